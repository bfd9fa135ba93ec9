/*
 * netlink/names.h -- the names of one network namespace's links, kept
 * current by the kernel's link notifications (netlink/names.c), for a
 * thread's kept socket: counters() names each link from here instead of
 * asking the kernel each link's name on every call.
 */
#ifndef NETIFC_NETLINK_NAMES_H
#define NETIFC_NETLINK_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "netlink/io.h"

struct nl_names;

/*
 * A socket of the calling thread's network namespace subscribed to its
 * link notifications, knowing no name yet (its buffer at least want
 * bytes): NULL when that cannot be made.
 */
struct nl_names *nl_names_open(size_t want);
void nl_names_free(struct nl_names *t);

/*
 * nl_talk on t's socket; every link notification queued before the reply
 * is applied on the way, so that after 0 or NL_ERR_INTR each name kept is
 * at least as new as the request.  When t's socket is left dirty, kept (the
 * thread's kept socket, which holds t) is made dirty too, so that both are
 * dropped, and kept's want grows to what t's socket needs.
 */
int nl_names_talk(struct nl_names *t, struct nl_sock *kept, struct nlmsghdr *req, nl_msg_cb cb,
		  void *ctx);

/* How many names are kept: about the namespace's link count. */
size_t nl_names_count(const struct nl_names *t);

/* The name kept for a link, or NULL when none is: ask the kernel, then keep it. */
const char *nl_names_find(const struct nl_names *t, int32_t index);
int nl_names_keep(struct nl_names *t, int32_t index, const char *name);

#endif
