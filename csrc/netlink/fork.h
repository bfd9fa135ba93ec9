/*
 * netlink/fork.h -- what a fork() must leave sane, in one registry
 * (netlink/fork.c): every open watch, namespace record and thread's kept
 * socket is an entry on one of its lists, and so is every descriptor a
 * single call holds (a generic netlink socket, a /proc file) and the live
 * tables' lock renewal (python/live.c).  No descriptor netifc opens is left
 * out: a forked child holds none of the parent's sockets or files.
 *
 * A fork takes each list's lock and then each entry's own, list by list in
 * the order below, so the calls in flight end first and the child gets no
 * half-made entry and every lock free.  The order is the one in which calls
 * nest: a watch's read may ask its namespace, either may use the thread's
 * socket, and any of them may open a descriptor of its own.  In the child each entry's in_child runs: the entry's
 * descriptors are the parent's, and it closes them.
 */
#ifndef NETIFC_NETLINK_FORK_H
#define NETIFC_NETLINK_FORK_H

#include <pthread.h>

/* NL_FORK_OTHER: locks held for a few loads and stores, which wait for no other. */
enum nl_fork_list {
	NL_FORK_WATCHES,
	NL_FORK_NAMESPACES,
	NL_FORK_THREADS,
	NL_FORK_CALLS,          /* descriptors one call holds (nl_fork_hold) */
	NL_FORK_OTHER,
	NL_FORK_LISTS
};

struct nl_fork_entry {
	pthread_mutex_t *lock;  /* held by the entry's calls; NULL: its list's lock covers it */
	void (*in_child)(struct nl_fork_entry *e);      /* may nl_fork_remove(e) and free it */
	struct nl_fork_entry *next, *prev;
};

/* 0 once the fork handlers are in place, else pthread_atfork's errno. */
int nl_fork_ready(void);

/* A list's lock: what opens or closes an entry's descriptors holds it. */
void nl_fork_lock(enum nl_fork_list list);
void nl_fork_unlock(enum nl_fork_list list);

/* Under the list's lock. */
void nl_fork_add(enum nl_fork_list list, struct nl_fork_entry *e);
void nl_fork_remove(enum nl_fork_list list, struct nl_fork_entry *e);

/*
 * An entry with a lock of its own (a watch, a namespace): nl_fork_own makes
 * the lock and readies the handlers (0 or an errno; on an errno nothing is
 * left to undo); nl_fork_drop, when the entry's calls are over, takes it off
 * the list if it is on it and destroys the lock.
 */
int nl_fork_own(struct nl_fork_entry *e, pthread_mutex_t *lock,
		void (*in_child)(struct nl_fork_entry *e));
void nl_fork_drop(enum nl_fork_list list, struct nl_fork_entry *e);

/*
 * A descriptor one call opens and closes (a generic netlink socket, a /proc
 * file), on whichever thread: open_fd(arg) (a descriptor, or a negative
 * errno) runs under the calls' lock and its descriptor is recorded before
 * the lock is let go, so a fork sees it either recorded or not made.  A
 * forked child, in which the call does not go on, closes it.  The lock is
 * held for the opening and the closing only, never for the I/O between.
 * Returns the descriptor, *held its record until nl_fork_release; or a
 * negative errno, *held NULL.
 */
struct nl_fork_fd;
int nl_fork_hold(struct nl_fork_fd **held, int (*open_fd)(void *arg), void *arg);
/* Closes the descriptor under the lock and frees the record; NULL: nothing. */
void nl_fork_release(struct nl_fork_fd *held);

#endif
