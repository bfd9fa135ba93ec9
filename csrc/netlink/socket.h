/*
 * socket.h -- the socket a call uses: the calling thread's own, kept across
 * calls (opened again after fork() or when the thread moved to another
 * network namespace), or, where that cannot be, a fresh one (socket.c).
 */
#ifndef NETIFC_NETLINK_SOCKET_H
#define NETIFC_NETLINK_SOCKET_H

#include "netlink/io.h"

struct netifc_ns;

/*
 * *out is the thread's kept socket (strict checking on) or, when strict is
 * 0 or no socket can be kept, own, opened here.  Its buffer is at least
 * want bytes.  nl_put() after the call: a dirty socket is closed.  ns: the
 * network namespace of struct netifc_call, NULL for the calling thread's;
 * another namespace's socket serves one call at a time (netns.h).
 */
int nl_get(struct netifc_ns *ns, struct nl_sock *own, int strict, size_t want, struct nl_sock **out);
void nl_put(struct netifc_ns *ns, struct nl_sock *s, struct nl_sock *own);

/*
 * The one check of which network namespace the calling thread is in: its
 * id ("net:[inode]", read through the thread's kept link to it): 0, or a
 * negative errno.  The live tables compare it with their own.
 */
#define NL_NS_ID_SIZE 48
int nl_thread_ns(char id[NL_NS_ID_SIZE]);

/*
 * When s is the calling thread's kept socket (given by nl_get, in use), the
 * link names of its namespace with their own socket (netlink/names.h),
 * opened on first use, kept with s and dropped with it (a dirty s, another
 * namespace, fork, the thread's end); NULL for any other socket, or when
 * they cannot be had.
 */
struct nl_names *nl_kept_names(struct nl_sock *s);

#endif
