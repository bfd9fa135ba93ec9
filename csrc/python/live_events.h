/*
 * live_events.h -- the Watcher's events, as the live tables make them
 * (live_events.c): the kinds, in the order _events() is given their
 * classes, and the one function that makes one.
 */
#ifndef NETIFC_LIVE_EVENTS_H
#define NETIFC_LIVE_EVENTS_H

#include "python/abi.h"

enum {
	EV_LINK_ADDED,
	EV_LINK_CHANGED,
	EV_LINK_REMOVED,
	EV_ADDR_ADDED,
	EV_ADDR_CHANGED,
	EV_ADDR_REMOVED,
	EV_GROUP_JOINED,
	EV_GROUP_LEFT,
	EV_RESYNC,
	EV_KINDS
};

/*
 * kinds as _events() takes them: EV_KINDS pairs (class, (field name, ...)),
 * as many names as the kind has fields.  1, or 0 and TypeError.
 */
int lt_kinds_check(PyObject *kinds);

/*
 * An event of kind, its fields a, b, c (as many as it has): made by
 * object_new(class) (object.__new__, which refuses what it cannot make), and its fields
 * set by name as a frozen dataclass's own __init__ sets them
 * (object.__setattr__), without its Python frame.  NULL and an exception.
 */
PyObject *lt_event(PyObject *object_new, PyObject *kinds, int kind, PyObject *a, PyObject *b,
		   PyObject *c);

#endif
