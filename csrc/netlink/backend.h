/*
 * backend.h -- the rtnetlink backend's request loop, for the other files
 * of the layer that ask the kernel (backend.c).
 */
#ifndef NETIFC_NETLINK_BACKEND_H
#define NETIFC_NETLINK_BACKEND_H

#include "netlink/socket.h"

/*
 * A request of another file through the one get/ask/put loop: ask() is
 * called on each attempt, and starts its answer from empty.
 */
typedef int (*nl_ask_fn)(struct nl_sock *s, struct netifc_call *call, void *ctx);
int netifc_nl_run(struct netifc_call *call, nl_ask_fn ask, void *ctx);
/*
 * A link by its primary name and its unicast addresses, in one run (one
 * socket, one namespace check): the link appended to *link, its addresses
 * to *addrs, then the link at that index checked to have the name still
 * (as NETIFC_SAME_LINK).  -ENODEV when no link has the name (*link as it
 * was) or when the link went, was renamed or lost its index to another
 * while it was asked about (*link holds it as it was looked up).
 */
int netifc_nl_link_addrs(struct netifc_call *call, const char *name, struct netifc_links *link,
			 struct netifc_addrs *addrs);
/* A link's name by index (SIOCGIFNAME on s): 0, -ENODEV when none has it. */
int nl_name_of(struct nl_sock *s, struct netifc_call *call, int32_t index, char *name);

#endif
