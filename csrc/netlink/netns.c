/*
 * netns.c -- calls into another network namespace from any thread.
 *
 * setns(CLONE_NEWNET) moves only the thread that calls it, so it is made on
 * a helper thread of our own, which does one thing there (make a socket,
 * read a /proc/net file) and ends; the caller's namespace never changes.
 * The helper blocks every signal, so the process's handlers run elsewhere.
 *
 * Every open namespace record is on the fork registry (netlink/fork.h).  A
 * fork waits for each record's call to end (its lock), and the child closes
 * every kept socket: it holds none of the parent's, and makes its own in the
 * namespace, whose descriptor it keeps.
 */
#define _GNU_SOURCE             /* setns, F_DUPFD_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "netlink/netns.h"
#include "procfs/igmp.h"

/* In a forked child: the kept socket is the parent's; the namespace's descriptor stays. */
static void ns_in_child(struct nl_fork_entry *e)
{
	struct netifc_ns *ns = (struct netifc_ns *)((char *)e - offsetof(struct netifc_ns, fork));

	if (ns->s.fd >= 0)
		nl_close(&ns->s);
}

int netifc_ns_closed(const struct netifc_ns *ns)
{
	return __atomic_load_n(&ns->fd, __ATOMIC_ACQUIRE) < 0;
}

/* ---- the helper thread ------------------------------------------------- */

struct helper {
	int nsfd;
	int (*fn)(void *);
	void *arg;
	int result;
};

static void *helper_main(void *p)
{
	struct helper *h = p;

	if (setns(h->nsfd, CLONE_NEWNET) < 0)
		h->result = -errno;
	else
		h->result = h->fn(h->arg);
	return NULL;
}

int netifc_netns_run(int nsfd, int (*fn)(void *), void *arg)
{
	struct helper h = { .nsfd = nsfd, .fn = fn, .arg = arg };
	sigset_t all, old;
	pthread_t t;
	int r;

	if (nsfd < 0)
		return -EBADF;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);       /* the helper inherits it */
	r = pthread_create(&t, NULL, helper_main, &h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return -r;
	pthread_join(t, NULL);
	return h.result;
}

struct socket_args {
	int domain, type, protocol;
};

static int make_socket(void *p)
{
	struct socket_args *a = p;
	int fd = socket(a->domain, a->type, a->protocol);

	return fd < 0 ? -errno : fd;
}

int netifc_netns_socket(int nsfd, int domain, int type, int protocol)
{
	struct socket_args a = { domain, type, protocol };

	return netifc_netns_run(nsfd, make_socket, &a);
}

int netifc_ns_socket(struct netifc_ns *ns, int domain, int type, int protocol)
{
	int r = -EBADF;

	pthread_mutex_lock(&ns->lock);
	if (ns->fd >= 0)
		r = netifc_netns_socket(ns->fd, domain, type, protocol);
	pthread_mutex_unlock(&ns->lock);
	return r;
}

/* ---- a namespace's kept socket -------------------------------------------- */

struct open_args {
	struct nl_sock *s;
	int strict;
	size_t want;
};

static int open_sock(void *p)
{
	struct open_args *a = p;

	return nl_open(a->s, a->strict, a->want);
}

/* nl_open inside the namespace; s->fd is -1 on failure. */
static int open_in(struct netifc_ns *ns, struct nl_sock *s, int strict, size_t want)
{
	struct open_args a = { s, strict, want };
	int r;

	s->fd = -1;
	r = netifc_netns_run(ns->fd, open_sock, &a);
	if (r < 0 && s->fd >= 0)
		nl_close(s);
	s->fd = r < 0 ? -1 : s->fd;
	return r;
}

int netifc_ns_get(struct netifc_ns *ns, struct nl_sock *own, int strict, size_t want,
		  struct nl_sock **out)
{
	int r = 0;

	pthread_mutex_lock(&ns->lock);
	if (ns->fd < 0) {
		r = -EBADF;
	} else if (!strict) {
		*out = own;
		r = open_in(ns, own, 0, want);
	} else {
		*out = &ns->s;
		if (ns->s.fd < 0)
			r = open_in(ns, &ns->s, 1, want);
		else if (want > ns->s.want)
			ns->s.want = want;
	}
	if (r < 0)
		pthread_mutex_unlock(&ns->lock);
	return r;
}

void netifc_ns_put(struct netifc_ns *ns, struct nl_sock *s, struct nl_sock *own)
{
	if (s == own || s->dirty)
		nl_close(s);
	pthread_mutex_unlock(&ns->lock);
}

struct hold_args {
	struct nl_fork_fd **held;
	int (*open_fd)(void *arg);
	void *arg;
};

static int hold_in(void *p)
{
	struct hold_args *a = p;

	return nl_fork_hold(a->held, a->open_fd, a->arg);
}

int netifc_ns_hold(struct netifc_ns *ns, struct nl_fork_fd **held, int (*open_fd)(void *arg),
		   void *arg)
{
	struct hold_args a = { held, open_fd, arg };
	int r = -EBADF;

	*held = NULL;
	pthread_mutex_lock(&ns->lock);
	if (ns->fd >= 0)
		r = netifc_netns_run(ns->fd, hold_in, &a);
	pthread_mutex_unlock(&ns->lock);
	return r;
}

struct groups_args {
	int family;
	int32_t index;
	struct netifc_addrs *out;
};

static int read_groups(void *p)
{
	struct groups_args *a = p;

	return netifc_proc_groups(a->family, a->index, a->out);
}

/* Between netifc_ns_get and netifc_ns_put: ns->lock is held, so ns->fd stays open. */
int netifc_ns_proc_groups(struct netifc_ns *ns, int family, int32_t index, struct netifc_addrs *out)
{
	struct groups_args a = { family, index, out };

	return netifc_netns_run(ns->fd, read_groups, &a);
}

/* ---- records --------------------------------------------------------------------- */

/* The record's own descriptor: nsfd's copy, or path opened (*opened 0 when that failed). */
static int own_fd(int nsfd, const char *path, int *opened)
{
	/* O_NONBLOCK: a FIFO given as the path is not waited on (setns refuses it) */
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
		      : fcntl(nsfd, F_DUPFD_CLOEXEC, 0);

	*opened = fd >= 0;
	return fd;
}

static int ns_open(int nsfd, const char *path, struct netifc_ns **out, int *opened)
{
	struct netifc_ns *ns = calloc(1, sizeof *ns);
	int r;

	*out = NULL;
	*opened = 0;
	if (!ns)
		return -ENOMEM;
	ns->s.fd = -1;
	if ((r = nl_fork_own(&ns->fork, &ns->lock, ns_in_child)) != 0) {
		free(ns);
		return -r;
	}
	nl_fork_lock(NL_FORK_NAMESPACES);
	ns->fd = own_fd(nsfd, path, opened);
	r = ns->fd < 0 ? -errno : open_in(ns, &ns->s, 1, 0);
	if (r == 0)
		nl_fork_add(NL_FORK_NAMESPACES, &ns->fork);
	else if (ns->fd >= 0)
		close(ns->fd);
	nl_fork_unlock(NL_FORK_NAMESPACES);
	if (r < 0) {
		nl_fork_drop(NL_FORK_NAMESPACES, &ns->fork);
		free(ns);
		return r;
	}
	*out = ns;
	return 0;
}

int netifc_ns_open(int nsfd, struct netifc_ns **out)
{
	int opened;

	return ns_open(nsfd, NULL, out, &opened);
}

int netifc_ns_open_path(const char *path, struct netifc_ns **out, int *opened)
{
	return ns_open(-1, path, out, opened);
}

void netifc_ns_close(struct netifc_ns *ns)
{
	nl_fork_lock(NL_FORK_NAMESPACES);
	pthread_mutex_lock(&ns->lock);
	if (ns->s.fd >= 0)
		nl_close(&ns->s);
	if (ns->fd >= 0)
		close(ns->fd);
	__atomic_store_n(&ns->fd, -1, __ATOMIC_RELEASE); /* netifc_ns_closed reads it unlocked */
	pthread_mutex_unlock(&ns->lock);
	nl_fork_unlock(NL_FORK_NAMESPACES);
}

void netifc_ns_free(struct netifc_ns *ns)
{
	netifc_ns_close(ns);
	nl_fork_drop(NL_FORK_NAMESPACES, &ns->fork);
	free(ns);
}
