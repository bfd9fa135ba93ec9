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
/* A link's name by index (SIOCGIFNAME on s): 0, -ENODEV when none has it. */
int nl_name_of(struct nl_sock *s, struct netifc_call *call, int32_t index, char *name);

#endif
