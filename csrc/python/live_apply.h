/*
 * live_apply.h -- what the live tables do with what the kernel tells
 * (live_apply.c), for their type (live.c).  All under the tables' lock;
 * each returns 0, or -1 and an exception.  out: a list the Watcher's
 * events are appended to, made from classes (its kinds); NULL for none.
 */
#ifndef NETIFC_LIVE_APPLY_H
#define NETIFC_LIVE_APPLY_H

#include "python/live_table.h"

/* *o let go: released by the caller's leave() once the lock is. */
void lv_let_go(TablesObject *t, PyObject **o);

/* Every table read again (the socket open before: what changes after the dumps is pending). */
int lv_reload(TablesObject *t);

/* The notifications of one read applied, and what they are signs of asked for. */
int lv_apply(TablesObject *t, struct nl_events *ev, PyObject *out, PyObject *classes);

/* Where the kernel tells of neither or one family's groups: 1, and lv_regroup keeps them. */
int lv_groups_untold(TablesObject *t);
int lv_regroup(TablesObject *t, PyObject *out, PyObject *classes);

#endif
