/*
 * module.h -- what the extension's two files share: the module state, the
 * record types' constructors (records.c) and the one error translator
 * (module.c).
 */
#ifndef NETIFC_MODULE_H
#define NETIFC_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "netifc.h"

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *Py_NewRef(PyObject *o)
{
	Py_INCREF(o);
	return o;
}
#endif
#ifndef Py_TPFLAGS_IMMUTABLETYPE
#define Py_TPFLAGS_IMMUTABLETYPE 0
#endif

typedef struct {
	PyTypeObject *Interface;
	PyTypeObject *Addr;
	PyTypeObject *Tables;   /* Linux: the live tables (live.c) */
	PyTypeObject *Counters; /* stats.c */
	PyTypeObject *LinkSettings;
	PyTypeObject *Route;    /* Linux: Route and NextHop (routes.c) */
	PyTypeObject *NextHop;
	PyObject *RouteTypes;   /* once registered: RouteType(i) for i in range(256) */
	PyObject *RouteFamilies;        /* socket.AddressFamily(i) for i up to AF_INET6 */
	PyObject *NoSuchInterface;
	PyObject *AddressFamily;        /* socket.AddressFamily */
	PyObject *Flags;        /* netifc.Flags, AddrFlags, Addr6Flags, once registered */
	PyObject *AddrFlags;
	PyObject *Addr6Flags;
	const struct netifc_backend *backend;
	unsigned opts;          /* NETIFC_NO_* for every call (tests) */
} modstate;

modstate *netifc_state_of_type(PyTypeObject *tp);

/* The record types' layouts: the live tables read them where they are. */
/* Only the bytes a link has: ob_size counts those of data. */
typedef struct {
	PyObject_VAR_HEAD
	PyObject *ns;           /* the NetNS it came from (addrs() asks there), or NULL */
	int32_t index;
	uint32_t mtu;
	uint32_t flags;
	uint16_t type;
	uint8_t operstate;
	uint8_t hwaddr_len;
	uint8_t brd_len;
	char name[NETIFC_NAMESIZ];
	uint8_t data[1];        /* hardware address, broadcast, then NUL-ended altnames */
} IfaceObject;

typedef struct {
	PyObject_HEAD
	struct netifc_addr a;
} AddrObject;

#define IFACE(o) ((IfaceObject *)(o))
#define ADDR(o) (&((AddrObject *)(o))->a)

/* The name of an Interface, NULL for any other object. */
static inline const char *netifc_iface_name(modstate *st, PyObject *iface)
{
	return Py_TYPE(iface) == st->Interface ? IFACE(iface)->name : NULL;
}

/* The index of iface, an Interface. */
static inline int32_t netifc_iface_index(PyObject *iface)
{
	return IFACE(iface)->index;
}

/* The C record of an Addr, NULL for any other object. */
static inline const struct netifc_addr *netifc_addr_rec(modstate *st, PyObject *addr)
{
	return Py_TYPE(addr) == st->Addr ? ADDR(addr) : NULL;
}

/* records.c: the Interface and Addr types. */
int netifc_add_types(PyObject *m, modstate *st);
PyObject *netifc_new_iface(modstate *st, const struct netifc_link *l, const char *pool);
PyObject *netifc_new_addr(modstate *st, const struct netifc_addr *a);
PyObject *netifc_links_tuple(modstate *st, const struct netifc_links *t);
PyObject *netifc_addrs_tuple(modstate *st, const struct netifc_addrs *t);
PyObject *netifc_make_interface(PyObject *m, PyObject *args);
PyObject *netifc_make_addr(PyObject *m, PyObject *args);

/* live.c (Linux): the _Tables type. */
int netifc_add_tables_type(PyObject *m, modstate *st);

/* stats.c: the Counters and LinkSettings types, counters(); an Interface's own. */
int netifc_add_stats_types(PyObject *m, modstate *st);
struct netifc_ns;
PyObject *netifc_counters_all(modstate *st, struct netifc_ns *ns);    /* ns NULL: the thread's */
PyObject *netifc_counters_of(modstate *st, struct netifc_ns *ns, int32_t index, const char *name);
PyObject *netifc_link_settings_of(modstate *st, struct netifc_ns *ns, int32_t index,
				   const char *name);
/* routes.c (Linux): the Route and NextHop types and the route functions. */
int netifc_add_route_types(PyObject *m, modstate *st);
/* nsmodule.c (Linux): the _NetNS type; an Interface's addrs() in its NetNS. */
int netifc_add_netns_type(PyObject *m, modstate *st);
void netifc_iface_set_ns(PyObject *iface, PyObject *ns);
int netifc_ns_fd(PyObject *ns);         /* -1 and TypeError unless a _NetNS, ValueError if closed */
PyObject *netifc_ns_iface_addrs(PyObject *ns, enum netifc_kind kind, int32_t index,
				const char *name);
PyObject *netifc_ns_iface_counters(PyObject *ns, int32_t index, const char *name, int settings);
struct netifc_ns *netifc_ns_core(PyObject *ns);  /* NULL and an exception unless an open _NetNS */

/*
 * module.c: the one place a core error becomes an exception (NULL).  what:
 * the index or name looked up, for NoSuchInterface; NULL elsewhere.
 */
PyObject *netifc_core_error(modstate *st, const struct netifc_call *c, int err, PyObject *what);

#endif
