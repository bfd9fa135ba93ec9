/*
 * core/values.h -- the numbers the records hold: Linux's, on every system.
 *
 * A link's flags, type and operstate and an address's scope and flags mean
 * what rtnetlink says they mean; the backends of other systems (posix/bsd.c,
 * windows/iphlpapi.c) and the rules of core/addr.c name them here, where no
 * OS header defines them (or defines them otherwise: a BSD's IFF_MULTICAST
 * is 0x8000).
 */
#ifndef NETIFC_VALUES_H
#define NETIFC_VALUES_H

/* netifc_link.flags: <linux/if.h>'s IFF_*. */
enum {
	NETIFC_IFF_UP = 0x1,
	NETIFC_IFF_BROADCAST = 0x2,
	NETIFC_IFF_DEBUG = 0x4,
	NETIFC_IFF_LOOPBACK = 0x8,
	NETIFC_IFF_POINTOPOINT = 0x10,
	NETIFC_IFF_RUNNING = 0x40,
	NETIFC_IFF_NOARP = 0x80,
	NETIFC_IFF_PROMISC = 0x100,
	NETIFC_IFF_ALLMULTI = 0x200,
	NETIFC_IFF_MULTICAST = 0x1000,
	NETIFC_IFF_DORMANT = 0x20000,
};

/* netifc_link.type: <linux/if_arp.h>'s ARPHRD_*. */
enum {
	NETIFC_ARPHRD_ETHER = 1,
	NETIFC_ARPHRD_IEEE802 = 6,
	NETIFC_ARPHRD_ATM = 19,
	NETIFC_ARPHRD_IEEE1394 = 24,
	NETIFC_ARPHRD_INFINIBAND = 32,
	NETIFC_ARPHRD_PPP = 512,
	NETIFC_ARPHRD_TUNNEL = 768,
	NETIFC_ARPHRD_TUNNEL6 = 769,
	NETIFC_ARPHRD_LOOPBACK = 772,
	NETIFC_ARPHRD_SIT = 776,
	NETIFC_ARPHRD_IPGRE = 778,
	NETIFC_ARPHRD_IP6GRE = 823,
	NETIFC_ARPHRD_NONE = 0xfffe,
	NETIFC_ARPHRD_VOID = 0xffff,
};

/* netifc_link.operstate: RFC 2863's, as Linux's IF_OPER_*. */
enum {
	NETIFC_OPER_UNKNOWN = 0,
	NETIFC_OPER_NOTPRESENT = 1,
	NETIFC_OPER_DOWN = 2,
	NETIFC_OPER_LOWERLAYERDOWN = 3,
	NETIFC_OPER_TESTING = 4,
	NETIFC_OPER_DORMANT = 5,
	NETIFC_OPER_UP = 6,
};

/* netifc_addr.scope: RT_SCOPE_*; netifc_addr.flags: IFA_F_*. */
enum {
	NETIFC_SCOPE_UNIVERSE = 0,
	NETIFC_SCOPE_SITE = 200,
	NETIFC_SCOPE_LINK = 253,
	NETIFC_SCOPE_HOST = 254,
};
enum {
	NETIFC_IFA_F_DADFAILED = 0x08,
	NETIFC_IFA_F_DEPRECATED = 0x20,
	NETIFC_IFA_F_TENTATIVE = 0x40,
	NETIFC_IFA_F_PERMANENT = 0x80,
};

#endif
