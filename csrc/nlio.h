/* nlio.h -- the NETLINK_ROUTE socket: open, send one request, receive its reply. */
#ifndef NETIFC_NLIO_H
#define NETIFC_NLIO_H

#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>

#include "nlparse.h"

struct nl_sock {
	int fd;
	uint32_t portid;
	uint32_t seq;
	int strict;             /* NETLINK_GET_STRICT_CHK is on */
	uint8_t *buf;
	size_t size;
};

int nl_open(struct nl_sock *s, int want_strict);
void nl_close(struct nl_sock *s);

/*
 * Send req (its nlmsg_len set) and hand each message of the reply to cb.
 * Returns 0, 1 when the kernel flagged the dump as interrupted (the whole
 * reply was still read), or a negative errno.
 */
int nl_talk(struct nl_sock *s, struct nlmsghdr *req, nl_msg_cb cb, void *ctx);

#endif
