/*
 * python/live_lock.c -- the live tables' lock and its renewal after fork().
 *
 * A child's table locks are the parent's state (perhaps held by a thread
 * gone there): made anew at their first use, under `renewing`, which guards
 * fork_count and every lock's lock and forks fields (and orphaned, until
 * the lock made anew is published; its holder clears it).  It is held
 * for a few loads and stores only, so a fork takes it (the fork registry's,
 * netlink/fork.h) to leave it free in both.
 */
#include <pthread.h>

#include "netlink/fork.h"
#include "python/live_lock.h"

static pthread_mutex_t renewing = PTHREAD_MUTEX_INITIALIZER;
static unsigned fork_count;

static void renew_in_child(struct nl_fork_entry *e)
{
	(void)e;
	fork_count++;
}

static struct nl_fork_entry renew = {&renewing, renew_in_child, NULL, NULL};

static void count_forks_from_now(void)
{
	if (nl_fork_ready() == 0) {
		nl_fork_lock(NL_FORK_OTHER);
		nl_fork_add(NL_FORK_OTHER, &renew);
		nl_fork_unlock(NL_FORK_OTHER);
	}
}

void lt_lock_setup(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, count_forks_from_now);
}

int lt_lock_init(struct lt_lock *l)
{
	pthread_mutex_lock(&renewing);
	l->forks = fork_count;
	pthread_mutex_unlock(&renewing);
	if (!(l->lock = PyThread_allocate_lock())) {
		PyErr_NoMemory();
		return -1;
	}
	l->held = l->lock;
	return 0;
}

void lt_lock_free(struct lt_lock *l)
{
	/* a lock of the parent's is left: a thread not here may hold it */
	if (l->lock && l->forks == fork_count)
		PyThread_free_lock(l->lock);
	l->lock = NULL;
}

/* The lock, made anew in a forked child (its first use there); NULL: no memory. */
static PyThread_type_lock lock_of(struct lt_lock *l)
{
	PyThread_type_lock lock;

	pthread_mutex_lock(&renewing);
	if (l->forks != fork_count) { /* the parent's lock, perhaps held by a thread gone here */
		PyThread_type_lock fresh = PyThread_allocate_lock();

		if (fresh) {
			/* (no thread can hold the new lock before it is published) */
			if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED))
				l->orphaned = 1;
			__atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
			l->lock = fresh; /* the old one is left: it may be held */
			l->forks = fork_count;
		}
	}
	lock = l->forks == fork_count ? l->lock : NULL;
	pthread_mutex_unlock(&renewing);
	return lock;
}

int lt_lock_enter(struct lt_lock *l)
{
	unsigned long me = PyThread_get_thread_ident();
	PyThread_type_lock lock;
	PyLockStatus r;
	int orphaned;

	/* Only this thread stores its own ident there, so the test is exact for it. */
	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) {
		PyErr_SetString(PyExc_RuntimeError,
				"netifc: tables used again while in use"
				" (from a finalizer or signal handler of the same thread)");
		return -1;
	}
	if (!(lock = lock_of(l))) {
		PyErr_NoMemory();
		return -1;
	}
	if (!PyThread_acquire_lock(lock, NOWAIT_LOCK)) {
		do {
			Py_BEGIN_ALLOW_THREADS
			r = PyThread_acquire_lock_timed(lock, -1, 1);
			Py_END_ALLOW_THREADS
			if (r == PY_LOCK_INTR && PyErr_CheckSignals() < 0)
				return -1;
		} while (r != PY_LOCK_ACQUIRED);
	}
	l->held = lock;
	__atomic_store_n(&l->owner, me, __ATOMIC_RELAXED);
	/* written before the lock was published (lock_of), read and cleared by its holder */
	orphaned = l->orphaned;
	l->orphaned = 0;
	return orphaned;
}

void lt_lock_leave(struct lt_lock *l)
{
	__atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
	PyThread_release_lock(l->held);
}
