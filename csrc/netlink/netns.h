/*
 * netns.h -- another network namespace, without moving the calling thread
 * (netns.c).
 *
 * A socket answers for the namespace it was made in, whichever thread uses
 * it.  So a short-lived helper thread enters the namespace (setns), makes
 * the socket, and ends; the socket is then used from any thread.  A
 * struct netifc_ns keeps the namespace's descriptor and one NETLINK_ROUTE
 * socket, used by one call at a time (its lock); a forked child closes the
 * parent's sockets and makes its own at its first call.
 */
#ifndef NETIFC_NETNS_H
#define NETIFC_NETNS_H

#include <pthread.h>

#include "netlink/fork.h"
#include "netlink/io.h"

struct netifc_ns {
	int fd;   /* the namespace (nsfs), -1 once closed; used under lock */
	struct nl_sock s;       /* its kept socket, fd -1 until made */
	pthread_mutex_t lock;   /* held from nl_get to nl_put: one call at a time */
	struct nl_fork_entry fork;      /* on the fork registry's list of namespaces */
};

/*
 * A namespace record for nsfd (duplicated: the caller keeps its own), its
 * socket made at once, so that a descriptor that is no network namespace
 * (-EINVAL) or a namespace this process may not enter (-EPERM) fails here.
 */
int netifc_ns_open(int nsfd, struct netifc_ns **out);
/*
 * The same for the namespace file at path, opened here under the fork
 * registry's lock (so a child forked meanwhile holds no copy the caller
 * made); *opened is 0 when the open() failed, 1 when what failed came after.
 */
int netifc_ns_open_path(const char *path, struct netifc_ns **out, int *opened);
/* Closes its socket and descriptor (calls then fail with -EBADF); again: nothing. */
void netifc_ns_close(struct netifc_ns *ns);
/* Closes, then frees. */
void netifc_ns_free(struct netifc_ns *ns);
/*
 * 1 once closed, without the lock: for a quick refusal and for `closed`.  A
 * call that finds it open still checks again under the lock (-EBADF).
 */
int netifc_ns_closed(const struct netifc_ns *ns);

/*
 * fn(arg) on a new thread that first entered the network namespace nsfd:
 * fn's result, or a negative errno (setns: -EPERM without CAP_SYS_ADMIN,
 * -EINVAL when nsfd is no network namespace).  The caller does not move.
 */
int netifc_netns_run(int nsfd, int (*fn)(void *), void *arg);

/* A socket(domain, type, protocol) made inside nsfd: its descriptor or -errno. */
int netifc_netns_socket(int nsfd, int domain, int type, int protocol);
/* The same in ns, under its lock (a close waits for it): -EBADF once closed. */
int netifc_ns_socket(struct netifc_ns *ns, int domain, int type, int protocol);

/*
 * The socket layer's side (netlink/socket.c): the namespace's socket, locked for
 * one call, or (strict 0) own opened inside it; netifc_ns_put ends the
 * call.  -EBADF once closed.
 */
int netifc_ns_get(struct netifc_ns *ns, struct nl_sock *own, int strict, size_t want,
		  struct nl_sock **out);
void netifc_ns_put(struct netifc_ns *ns, struct nl_sock *s, struct nl_sock *own);

/*
 * nl_fork_hold(held, open_fd, arg) made in the namespace, under its lock (a
 * descriptor one call holds, netlink/fork.h): the descriptor or a negative
 * errno; -EBADF once closed.
 */
int netifc_ns_hold(struct netifc_ns *ns, struct nl_fork_fd **held, int (*open_fd)(void *arg),
		   void *arg);

/* The calling thread's /proc/net/igmp{,6} groups, read in the namespace (procfs/igmp_parse.h). */
int netifc_ns_proc_groups(struct netifc_ns *ns, int family, int32_t index, struct netifc_addrs *out);

#endif
