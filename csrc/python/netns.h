/*
 * netns.h -- another network namespace for Python (netns.c, Linux): the
 * _NetNS type, as module.c adds it, and what the other types ask of one.
 */
#ifndef NETIFC_PY_NETNS_H
#define NETIFC_PY_NETNS_H

#include "python/record.h"

int netifc_netns_add(PyObject *m, modstate *st);

struct netifc_ns;
struct netifc_ns *netifc_ns_core(PyObject *ns);  /* NULL and an exception unless an open _NetNS */
/* The namespace of a _NetNS, for nl_watch_open; NULL and TypeError, or ValueError if closed. */
struct netifc_ns *netifc_ns_of(PyObject *ns);
int netifc_ns_check(PyObject *ns); /* 0 for a _NetNS (open or closed), else -1 and TypeError */

/* An Interface's calls in the namespace it came from. */
PyObject *netifc_ns_iface_addrs(PyObject *ns, enum netifc_kind kind, int32_t index,
				const char *name);
PyObject *netifc_ns_iface_counters(PyObject *ns, int32_t index, const char *name, int settings);

#endif
