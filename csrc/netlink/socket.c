/*
 * netlink/socket.c -- one NETLINK_ROUTE socket per thread, kept across calls.
 *
 * A socket answers for the network namespace it was made in, so the
 * thread's namespace is checked on every call (readlink of its ns/net,
 * about a microsecond; opening a socket costs several).  Every thread's
 * record is on the fork registry's list of threads (netlink/fork.h), with
 * its kept socket, its namespace link and the socket a call made for
 * itself, if one is open; each is opened and closed under the list's lock,
 * so a fork sees it either recorded or not there.
 * A forked child closes them all: it holds no socket or namespace link of
 * the parent's, whichever thread made it.  A thread's record is freed when
 * the thread exits.
 */
#define _GNU_SOURCE             /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netlink/fork.h"
#include "netlink/names.h"
#include "netlink/netns.h"
#include "netlink/socket.h"

struct cached {
	struct nl_sock s;
	int nslink;             /* this thread's /proc/.../ns/net link (O_PATH) */
	int own_fd;             /* a socket made for one call, while it is open */
	char ns[NL_NS_ID_SIZE]; /* "net:[inode]" the socket was made in */
	struct nl_names *names; /* its namespace's link names, once asked for */
	struct nl_fork_entry fork;      /* on the fork registry's list of threads */
};

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int have_key;
static int key_err; /* why there is none: pthread_key_create's or pthread_atfork's errno */

static void forget(struct cached *c)
{
	if (c->s.fd >= 0)
		nl_close(&c->s);
	c->s.fd = -1;
	nl_names_free(c->names);
	c->names = NULL;
}

/* Closes what the record holds; under the lock, or in a forked child. */
static void close_all(struct cached *c)
{
	forget(c);
	if (c->nslink >= 0)
		close(c->nslink);
	c->nslink = -1;
	if (c->own_fd >= 0)
		close(c->own_fd);
	c->own_fd = -1;
}

static void destroy(void *p)
{
	struct cached *c = p;

	nl_fork_lock(NL_FORK_THREADS);
	nl_fork_remove(NL_FORK_THREADS, &c->fork);
	close_all(c);
	nl_fork_unlock(NL_FORK_THREADS);
	free(c);
}

/*
 * The child's only thread is the one that forked.  Every record's socket
 * and namespace link is the parent's: close them all.  The other threads'
 * records belong to threads that do not exist here: free them.
 */
static void thread_in_child(struct nl_fork_entry *e)
{
	struct cached *c = (struct cached *)((char *)e - offsetof(struct cached, fork));

	close_all(c);
	if (c != pthread_getspecific(key)) {
		nl_fork_remove(NL_FORK_THREADS, &c->fork);
		free(c);
	}
}

static void init(void)
{
	if ((key_err = pthread_key_create(&key, destroy)) == 0 && (key_err = nl_fork_ready()) != 0)
		pthread_key_delete(key);
	have_key = !key_err;
}

static int netns_of_thread(struct cached *c, char *id, size_t size)
{
	ssize_t n;

	/* The link itself, kept open: procfs reads its target anew each time. */
	if (c->nslink < 0) {
		nl_fork_lock(NL_FORK_THREADS);
		c->nslink = open("/proc/thread-self/ns/net", O_PATH | O_NOFOLLOW | O_CLOEXEC);
		nl_fork_unlock(NL_FORK_THREADS);
	}
	if (c->nslink < 0)
		return -1;
	n = readlinkat(c->nslink, "", id, size - 1);
	if (n <= 0)
		return -1;
	id[n] = 0;
	return 0;
}

/* This thread's record, made on its first call: 0, or a negative errno. */
static int thread_record(struct cached **out)
{
	struct cached *c;
	int r;

	*out = NULL;
	pthread_once(&once, init);
	if (!have_key)
		return -key_err;
	if ((*out = pthread_getspecific(key)))
		return 0;
	if (!(c = calloc(1, sizeof *c)))
		return -ENOMEM;
	c->s.fd = -1;
	c->nslink = -1;
	c->own_fd = -1;
	if ((r = pthread_setspecific(key, c)) != 0) {
		free(c);
		return -r;
	}
	c->fork.in_child = thread_in_child;
	nl_fork_lock(NL_FORK_THREADS);
	nl_fork_add(NL_FORK_THREADS, &c->fork);
	nl_fork_unlock(NL_FORK_THREADS);
	*out = c;
	return 0;
}

int nl_get(struct netifc_ns *ns, struct nl_sock *own, int strict, size_t want, struct nl_sock **out)
{
	struct cached *c;
	char id[sizeof c->ns];
	int r, rec;

	if (ns)
		return netifc_ns_get(ns, own, strict, want, out);
	rec = thread_record(&c);
	if (c && strict && netns_of_thread(c, id, sizeof id) == 0) {
		if (c->s.fd >= 0 && strcmp(id, c->ns)) {
			nl_fork_lock(NL_FORK_THREADS);
			forget(c);
			nl_fork_unlock(NL_FORK_THREADS);
		}
		if (c->s.fd < 0) {
			nl_fork_lock(NL_FORK_THREADS);
			r = nl_open(&c->s, 1, want);
			nl_fork_unlock(NL_FORK_THREADS);
			if (r < 0)
				return r;
			memcpy(c->ns, id, sizeof id);
		}
		if (want > c->s.want)
			c->s.want = want;
		*out = &c->s;
		return 0;
	}
	/* A socket no record holds would escape a fork's clean-up: none then. */
	*out = own;
	own->fd = -1;
	if (!c)
		return rec;
	nl_fork_lock(NL_FORK_THREADS);
	r = nl_open(own, strict, want);
	c->own_fd = own->fd;
	nl_fork_unlock(NL_FORK_THREADS);
	return r;
}

int nl_thread_ns(char id[NL_NS_ID_SIZE])
{
	struct cached *c;
	int r = thread_record(&c);

	if (!c)
		return r < 0 ? r : -ENOMEM;
	return netns_of_thread(c, id, NL_NS_ID_SIZE) < 0 ? -ENOENT : 0;
}

void nl_put(struct netifc_ns *ns, struct nl_sock *s, struct nl_sock *own)
{
	struct cached *c;

	if (ns) {
		netifc_ns_put(ns, s, own);
		return;
	}
	c = have_key ? pthread_getspecific(key) : NULL;
	if (s != own && !s->dirty)
		return;
	if (c)
		nl_fork_lock(NL_FORK_THREADS);
	if (s == own) {
		nl_close(own);
		if (c)
			c->own_fd = -1;
	} else {
		forget((struct cached *)s);
	}
	if (c)
		nl_fork_unlock(NL_FORK_THREADS);
}

struct nl_names *nl_kept_names(struct nl_sock *s)
{
	struct cached *c = have_key ? pthread_getspecific(key) : NULL;

	if (!c || s != &c->s || s->fd < 0)
		return NULL;
	if (!c->names) {
		nl_fork_lock(NL_FORK_THREADS);
		c->names = nl_names_open(s->want);
		nl_fork_unlock(NL_FORK_THREADS);
	}
	return c->names;
}
