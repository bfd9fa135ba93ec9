/*
 * live_lock.h -- the live tables' own lock (live_lock.c): taken with the GIL
 * released, refused to a thread that holds it already, and made anew in a
 * forked child, where the parent's may be held by a thread that is not
 * there.
 */
#ifndef NETIFC_LIVE_LOCK_H
#define NETIFC_LIVE_LOCK_H

#include "python/abi.h"

struct lt_lock {
	PyThread_type_lock lock; /* lock and forks: under live_lock.c's `renewing` */
	PyThread_type_lock held; /* the lock the holder took (a child may renew lock) */
	unsigned long owner;     /* the thread holding it, 0: none (atomic: read unlocked) */
	unsigned forks;          /* the forks counted when lock was made */
	int orphaned;            /* renewed while a thread gone by a fork held it */
};

/* Once per process, before any lock: forks are counted from then on. */
void lt_lock_setup(void);

/* 0, or -1 and MemoryError. */
int lt_lock_init(struct lt_lock *l);
void lt_lock_free(struct lt_lock *l);

/*
 * The lock taken, waited for with the GIL released; a signal ends the wait
 * when its handler raises (PyErr_CheckSignals), else the wait goes on.
 * 0; 1 when the lock was made anew while a thread gone by a fork held the
 * old one (what it guards may be half changed); -1 and an exception
 * (RuntimeError: this thread holds it already, from a finalizer or signal
 * handler).
 */
int lt_lock_enter(struct lt_lock *l);
void lt_lock_leave(struct lt_lock *l);

#endif
