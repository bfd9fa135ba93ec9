/*
 * netlink/fork.c -- the fork registry: one set of pthread_atfork handlers
 * for every list of netlink/fork.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "netlink/fork.h"

struct list {
	pthread_mutex_t lock;
	struct nl_fork_entry *head;
};

static struct list lists[NL_FORK_LISTS] = {
	[0 ... NL_FORK_LISTS - 1] = { PTHREAD_MUTEX_INITIALIZER, NULL },
};
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int ready_err;

static void before_fork(void)
{
	struct nl_fork_entry *e;
	int l;

	for (l = 0; l < NL_FORK_LISTS; l++) {
		pthread_mutex_lock(&lists[l].lock);
		for (e = lists[l].head; e; e = e->next)
			if (e->lock)
				pthread_mutex_lock(e->lock);
	}
}

static void in_parent(void)
{
	struct nl_fork_entry *e;
	int l;

	for (l = NL_FORK_LISTS - 1; l >= 0; l--) {
		for (e = lists[l].head; e; e = e->next)
			if (e->lock)
				pthread_mutex_unlock(e->lock);
		pthread_mutex_unlock(&lists[l].lock);
	}
}

/* The child's one thread is the one that forked: it holds every lock. */
static void in_child(void)
{
	struct nl_fork_entry *e, *next;
	int l;

	for (l = NL_FORK_LISTS - 1; l >= 0; l--) {
		for (e = lists[l].head; e; e = next) {
			next = e->next;
			if (e->lock)
				pthread_mutex_unlock(e->lock);
			e->in_child(e);
		}
		pthread_mutex_unlock(&lists[l].lock);
	}
}

static void init(void)
{
	ready_err = pthread_atfork(before_fork, in_parent, in_child);
}

int nl_fork_ready(void)
{
	pthread_once(&once, init);
	return ready_err;
}

void nl_fork_lock(enum nl_fork_list list)
{
	pthread_mutex_lock(&lists[list].lock);
}

void nl_fork_unlock(enum nl_fork_list list)
{
	pthread_mutex_unlock(&lists[list].lock);
}

void nl_fork_add(enum nl_fork_list list, struct nl_fork_entry *e)
{
	struct nl_fork_entry **head = &lists[list].head;

	e->prev = NULL;
	e->next = *head;
	if (*head)
		(*head)->prev = e;
	*head = e;
}

void nl_fork_remove(enum nl_fork_list list, struct nl_fork_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else if (lists[list].head == e)
		lists[list].head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	e->next = e->prev = NULL;
}

int nl_fork_own(struct nl_fork_entry *e, pthread_mutex_t *lock,
		void (*in_child)(struct nl_fork_entry *e))
{
	int r;

	if ((r = nl_fork_ready()) != 0 || (r = pthread_mutex_init(lock, NULL)) != 0)
		return r;
	e->lock = lock;
	e->in_child = in_child;
	e->next = e->prev = NULL;
	return 0;
}

void nl_fork_drop(enum nl_fork_list list, struct nl_fork_entry *e)
{
	nl_fork_lock(list);
	nl_fork_remove(list, e);
	nl_fork_unlock(list);
	pthread_mutex_destroy(e->lock);
}

/* ---- descriptors one call holds ------------------------------------------- */

/* On the heap: a child may be forked while another thread's call holds one. */
struct nl_fork_fd {
	struct nl_fork_entry e;
	int fd;
};

static void fd_in_child(struct nl_fork_entry *e)
{
	struct nl_fork_fd *f = (struct nl_fork_fd *)((char *)e - offsetof(struct nl_fork_fd, e));

	close(f->fd);
	nl_fork_remove(NL_FORK_CALLS, e);
	free(f);
}

int nl_fork_hold(struct nl_fork_fd **held, int (*open_fd)(void *arg), void *arg)
{
	struct nl_fork_fd *f;
	int r;

	*held = NULL;
	if ((r = nl_fork_ready()) != 0)
		return -r;
	if (!(f = calloc(1, sizeof *f)))
		return -ENOMEM;
	f->e.in_child = fd_in_child;
	nl_fork_lock(NL_FORK_CALLS);
	if ((r = open_fd(arg)) >= 0) {
		f->fd = r;
		nl_fork_add(NL_FORK_CALLS, &f->e);
	}
	nl_fork_unlock(NL_FORK_CALLS);
	if (r < 0)
		free(f);
	else
		*held = f;
	return r;
}

void nl_fork_release(struct nl_fork_fd *held)
{
	if (!held)
		return;
	nl_fork_lock(NL_FORK_CALLS);
	nl_fork_remove(NL_FORK_CALLS, &held->e);
	close(held->fd);
	nl_fork_unlock(NL_FORK_CALLS);
	free(held);
}
