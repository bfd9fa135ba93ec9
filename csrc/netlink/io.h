/*
 * netlink/io.h -- one NETLINK_ROUTE socket: open it, build a request, send it and
 * hand each message of the kernel's reply to a callback (netlink/io.c).
 */
#ifndef NETIFC_NLIO_H
#define NETIFC_NLIO_H

#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netlink/parse.h"

struct nl_sock {
	int fd;
	uint32_t portid;
	uint32_t seq;
	int strict;             /* NETLINK_GET_STRICT_CHK is on */
	int dirty;              /* a reply was not read to its end: never reuse */
	int no_mcast4;          /* the kernel refused IPv4 RTM_GETMULTICAST */
	unsigned churn;         /* address dumps left to ask while hearing (nl_listen) */
	unsigned datagrams;     /* of the last reply that held records */
	int routes6_big;        /* the last IPv6 route dump took more than one datagram */
	int groups_big;         /* so did the last group dump of every link */
	uint8_t *buf;
	size_t size;
	size_t want;            /* the buffer size the next request needs */
};

/* Not errnos: why a request must be asked again (see nl_talk). */
#define NL_ERR_INTR (-4096 - 1)
#define NL_ERR_CUT (-4096 - 2)

/*
 * A socket bound to a port of its own and connected to the kernel (nl_pid
 * 0), so the kernel refuses any other socket's unicast to it.  want: the
 * receive buffer to start with (0: the default).
 */
int nl_open(struct nl_sock *s, int want_strict, size_t want);
/* The same for generic netlink (NETLINK_GENERIC), no strict checking. */
int nl_open_generic(struct nl_sock *s);
void nl_close(struct nl_sock *s);

/*
 * Send req (its nlmsg_len set) and hand each message of the reply to cb.
 * Only the kernel's datagrams are read (sender nl_pid 0; any other is
 * dropped unread, whatever its size), and of those only the messages with
 * our port id and sequence number.  Returns 0; NL_ERR_INTR when the whole
 * reply was read but the kernel flagged the dump interrupted; NL_ERR_CUT
 * when a datagram of the reply did not fit the buffer (s->want now fits
 * it; the rest of the reply is left unread, so the socket is dirty); or a
 * negative errno.  What cb was given is void unless 0 is returned.
 */
int nl_talk(struct nl_sock *s, struct nlmsghdr *req, nl_msg_cb cb, void *ctx);

/*
 * The name of link index in the namespace of socket fd (SIOCGIFNAME): 0,
 * -ENODEV when no link has it, or a negative errno.
 */
int nl_link_name(int fd, int32_t index, char name[NETIFC_NAMESIZ]);

/*
 * nl_talk on a socket that is also subscribed to notification groups:
 * every datagram of the kernel's read that is not the reply's (the
 * notifications queued before or among the reply's datagrams) is handed
 * whole to heard (its error ends the call, the socket dirty).
 */
typedef int (*nl_heard_fn)(void *ctx, const uint8_t *buf, size_t len);
int nl_talk_heard(struct nl_sock *s, struct nlmsghdr *req, nl_msg_cb cb, void *ctx,
		  nl_heard_fn heard, void *heard_ctx);

/*
 * Join (heard NULL) or leave notification groups on a request socket, so
 * that nl_talk_heard hears what changes while a dump runs: NL_HEAR_ADDRS,
 * the link and address groups; NL_HEAR_ROUTES6, IPv6 routes; NL_HEAR_GROUPS,
 * the multicast groups, where the kernel has them (a refusal is no error).  Leaving
 * reads what was still queued, each datagram handed to heard (none is any
 * later request's): 0, NL_ERR_CUT for one the buffer cannot hold (s->want
 * then fits it), heard's error or a negative errno.
 */
#define NL_HEAR_ADDRS 1u
#define NL_HEAR_ROUTES6 2u
#define NL_HEAR_GROUPS 4u /* where the kernel tells group changes (Linux 6.x); else none */
int nl_listen(struct nl_sock *s, unsigned groups, nl_heard_fn heard, void *heard_ctx);

/* An RTM_GETLINK request: a dump, one link by index, or (name) one by name. */
struct nl_link_req {
	struct nlmsghdr h;
	struct ifinfomsg ifi;
	uint8_t attrs[RTA_SPACE(4) + RTA_SPACE(NETIFC_NAMESIZ)];
};

/* Fills q; -ENODEV for a name no link can have (empty, or 16 bytes or more). */
int netifc_link_request(struct nl_link_req *q, uint16_t flags, int32_t index, const char *name);

/* An RTM_GETADDR or RTM_GETMULTICAST dump of one family (or AF_UNSPEC), of
 * one link when index is not 0 (the kernel filters only with strict checking). */
struct nl_addr_req {
	struct nlmsghdr h;
	struct ifaddrmsg ifa;
};

void netifc_addr_request(struct nl_addr_req *q, uint16_t type, int family, int32_t index);

#endif
