/*
 * nlsock.h -- the socket a call uses: the calling thread's own, kept across
 * calls (opened again after fork() or when the thread moved to another
 * network namespace), or, where that cannot be, a fresh one (nlsock.c).
 */
#ifndef NETIFC_NLSOCK_H
#define NETIFC_NLSOCK_H

#include "nlio.h"

struct netifc_ns;

/*
 * *out is the thread's kept socket (strict checking on) or, when strict is
 * 0 or no socket can be kept, own, opened here.  Its buffer is at least
 * want bytes.  nl_put() after the call: a dirty socket is closed.  ns: the
 * network namespace of struct netifc_call, NULL for the calling thread's;
 * another namespace's socket serves one call at a time (netns.h).
 */
int nl_get(struct netifc_ns *ns, struct nl_sock *own, int strict, size_t want,
	   struct nl_sock **out);
void nl_put(struct netifc_ns *ns, struct nl_sock *s, struct nl_sock *own);

/*
 * linux.c: a request of another file through the one get/ask/put loop:
 * ask() is called on each attempt, and starts its answer from empty.
 */
typedef int (*nl_ask_fn)(struct nl_sock *s, struct netifc_call *call, void *ctx);
int netifc_nl_run(struct netifc_call *call, nl_ask_fn ask, void *ctx);
/* A link's name by index (SIOCGIFNAME on s): 0, -ENODEV when none has it. */
int nl_name_of(struct nl_sock *s, struct netifc_call *call, int32_t index, char *name);

/* nlstats.c: the netlink backend's counters(). */
int netifc_nl_counters(struct netifc_call *c, int32_t index, struct netifc_counters_table *out);

#endif
