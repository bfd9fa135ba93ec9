/* nlio.h -- the NETLINK_ROUTE socket: open, send one request, receive its reply. */
#ifndef NETIFC_NLIO_H
#define NETIFC_NLIO_H

#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "nlparse.h"

struct nl_sock {
	int fd;
	uint32_t portid;
	uint32_t seq;
	int strict;             /* NETLINK_GET_STRICT_CHK is on */
	uint8_t *buf;
	size_t size;
	size_t want;            /* the buffer size the next request needs */
};

#define NL_AGAIN_INTR 1         /* the kernel flagged the dump interrupted */
#define NL_AGAIN_CUT 2          /* a datagram did not fit: the buffer has grown */

int nl_open(struct nl_sock *s, int want_strict);
void nl_close(struct nl_sock *s);

/*
 * Send req (its nlmsg_len set) and hand each message of the reply to cb.
 * Returns 0; NL_AGAIN_* when the whole reply was read but must be asked
 * for again (what cb was given is void); or a negative errno, after which
 * the socket may still hold part of the reply.
 */
int nl_talk(struct nl_sock *s, struct nlmsghdr *req, nl_msg_cb cb, void *ctx);

/*
 * The socket for one call: the calling thread's own, kept across calls
 * (opened again after fork() or when the thread moved to another network
 * namespace), or, where that cannot be, a fresh one in *own.  nl_put()
 * after the call: a socket a call failed on is closed, never reused.
 */
/* An RTM_GETLINK request: a dump, one link by index, or (name) one by name. */
struct nl_link_req {
	struct nlmsghdr h;
	struct ifinfomsg ifi;
	uint8_t attrs[RTA_SPACE(4) + RTA_SPACE(NETIFC_NAMESIZ)];
};

/* Fills q; -ENODEV for a name no link can have (empty, or 16 bytes or more). */
int netifc_link_request(struct nl_link_req *q, uint16_t flags, int32_t index, const char *name);

int nl_get(struct nl_sock *own, int strict, struct nl_sock **out);
void nl_put(struct nl_sock *s, struct nl_sock *own, int failed);

/* The calling thread's kept socket: its port id and last sequence number (tests). */
int nl_thread_socket(uint32_t *portid, uint32_t *seq);

#endif
