/*
 * route_parse.h -- routes: their records, the pure parser of RTM_NEWROUTE
 * messages and the RTM_GETROUTE requests (route_parse.c).  The calls that
 * ask the kernel are in routes.h.  Nothing here knows Python.
 */
#ifndef NETIFC_NLROUTE_H
#define NETIFC_NLROUTE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "core/netifc.h"

#define NETIFC_TABLE_ALL 0u     /* RT_TABLE_UNSPEC: every table */

/* One next hop of a multipath route (RTA_MULTIPATH). */
struct netifc_nexthop {
	int32_t index;          /* rtnh_ifindex, 0: none */
	uint16_t weight;        /* rtnh_hops + 1 */
	uint8_t flags;          /* RTNH_F_* */
	uint8_t gw_family; /* 0: no gateway; else the gateway's family (RTA_VIA may differ) */
	uint8_t gateway[16];
	char name[NETIFC_NAMESIZ]; /* index's name, "" when none or gone */
};

struct netifc_route {
	uint32_t table; /* RTA_TABLE, else rtm_table */
	uint32_t metric; /* RTA_PRIORITY, 0 when none */
	uint32_t flags; /* rtm_flags: RTNH_F_* and RTM_F_* */
	int32_t index; /* RTA_OIF, 0: none */
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t prefixlen; /* rtm_dst_len */
	uint8_t protocol; /* RTPROT_* */
	uint8_t scope; /* RT_SCOPE_* */
	uint8_t type; /* RTN_* */
	uint8_t gw_family; /* 0: no gateway; else its family (RTA_VIA may differ) */
	uint8_t has_prefsrc;
	uint8_t has_metric;
	uint8_t has_pref;
	uint8_t pref; /* RTA_PREF (IPv6 router preference) */
	uint8_t tos; /* rtm_tos (IPv4), 0: any */
	uint8_t src_len; /* rtm_src_len: the source prefix (IPv6 "from") */
	uint8_t has_src; /* a source prefix: src_len or RTA_SRC */
	uint8_t dst[16]; /* zero past the prefix when RTA_DST is absent */
	uint8_t src[16]; /* RTA_SRC, zero when absent */
	uint8_t gateway[16];
	uint8_t prefsrc[16];
	uint32_t nh_off, nh_n; /* the next hops: nh_n records at nh_off in the table */
	char name[NETIFC_NAMESIZ]; /* index's name, "" when none or gone */
};

struct netifc_routes {
	struct netifc_route *v;
	size_t n, cap;
	struct netifc_nexthop *nh;
	size_t nh_n, nh_cap;
};

/*
 * One message's payload appended to t: 1, 0 when it is not an IPv4 or IPv6
 * RTM_NEWROUTE, -EPROTO (a length or address that does not fit) or -ENOMEM;
 * on 0 or an error t is as it was.
 */
int nl_parse_route(uint16_t type, const uint8_t *p, size_t len, struct netifc_routes *t);
void netifc_routes_truncate(struct netifc_routes *t, size_t n);
void netifc_routes_free(struct netifc_routes *t);

/* An RTM_GETROUTE request: a dump or one lookup. */
struct nl_route_req {
	struct nlmsghdr h;
	struct rtmsg rtm;
	uint8_t attrs[RTA_SPACE(16) + 2 * RTA_SPACE(4)];
};

/*
 * A dump of one family (AF_UNSPEC: all) and one table (NETIFC_TABLE_ALL:
 * all).  With strict checking the kernel filters by the table (RTA_TABLE)
 * and leaves out its cached exceptions; without it, the caller filters.
 */
void netifc_route_dump_request(struct nl_route_req *q, int family, uint32_t table, int strict);
/*
 * The route to dst (4 or 16 bytes by family), out of link index if not 0;
 * the answer names the table that answered (IPv4: RTM_F_LOOKUP_TABLE).
 */
void netifc_route_get_request(struct nl_route_req *q, int family, const uint8_t *dst, int32_t index);

#endif
