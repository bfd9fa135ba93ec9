/*
 * module.h -- what the extension's two files share: the module state, the
 * record types' constructors (records.c) and the one error translator
 * (module.c).
 */
#ifndef NETIFC_MODULE_H
#define NETIFC_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core/netifc.h"

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *netifc_new_ref(PyObject *o)
{
	Py_INCREF(o);
	return o;
}
#define Py_NewRef(o) netifc_new_ref((PyObject *)(o))   /* any object pointer, as 3.10's */
#endif
#ifndef Py_TPFLAGS_IMMUTABLETYPE
#define Py_TPFLAGS_IMMUTABLETYPE 0
#endif
#ifndef Py_XSETREF
#define Py_XSETREF(dst, src) \
	do { PyObject *old_ = (PyObject *)(dst); (dst) = (src); Py_XDECREF(old_); } while (0)
#endif
#ifndef Py_SETREF
#define Py_SETREF(dst, src) \
	do { PyObject *old_ = (PyObject *)(dst); (dst) = (src); Py_DECREF(old_); } while (0)
#endif

/*
 * Object access that builds under the Limited API too (abi3: setup.py sets
 * Py_LIMITED_API), where the layouts the full API's macros read are hidden.
 * The full build keeps the macros; the limited one calls the functions.
 */
#ifdef Py_LIMITED_API
#define NETIFC_TUPLE_SIZE(t) PyTuple_Size(t)
#define NETIFC_TUPLE_ITEM(t, i) PyTuple_GetItem(t, i)
#define NETIFC_TUPLE_SET(t, i, o) ((void)PyTuple_SetItem(t, i, o))
#define NETIFC_LIST_SIZE(l) PyList_Size(l)
#define NETIFC_LIST_ITEM(l, i) PyList_GetItem(l, i)
#define NETIFC_LIST_SET(l, i, o) ((void)PyList_SetItem(l, i, o))
#define NETIFC_BYTES_SIZE(b) PyBytes_Size(b)
#define NETIFC_BYTES_DATA(b) PyBytes_AsString(b)
#define NETIFC_DICT_SIZE(d) PyDict_Size(d)
#define NETIFC_STRUCTSEQ_ITEM(s, i) PyStructSequence_GetItem(s, i)
#define NETIFC_STRUCTSEQ_SET(s, i, o) PyStructSequence_SetItem(s, i, o)
#define NETIFC_TP_ALLOC(tp) ((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))
#define NETIFC_TP_FREE(tp) ((freefunc)PyType_GetSlot(tp, Py_tp_free))
#define NETIFC_TP_DEALLOC(tp) ((destructor)PyType_GetSlot(tp, Py_tp_dealloc))
#define NETIFC_TP_DESCR_SET(tp) ((descrsetfunc)PyType_GetSlot(tp, Py_tp_descr_set))
#define NETIFC_TP_BASE(tp) ((PyTypeObject *)PyType_GetSlot(tp, Py_tp_base))
#define NETIFC_TP_FLAGS(tp) PyType_GetFlags(tp)
#else
#define NETIFC_TUPLE_SIZE(t) PyTuple_GET_SIZE(t)
#define NETIFC_TUPLE_ITEM(t, i) PyTuple_GET_ITEM(t, i)
#define NETIFC_TUPLE_SET(t, i, o) PyTuple_SET_ITEM(t, i, o)
#define NETIFC_LIST_SIZE(l) PyList_GET_SIZE(l)
#define NETIFC_LIST_ITEM(l, i) PyList_GET_ITEM(l, i)
#define NETIFC_LIST_SET(l, i, o) PyList_SET_ITEM(l, i, o)
#define NETIFC_BYTES_SIZE(b) PyBytes_GET_SIZE(b)
#define NETIFC_BYTES_DATA(b) PyBytes_AS_STRING(b)
#define NETIFC_DICT_SIZE(d) PyDict_GET_SIZE(d)
#define NETIFC_STRUCTSEQ_ITEM(s, i) PyStructSequence_GET_ITEM(s, i)
#define NETIFC_STRUCTSEQ_SET(s, i, o) PyStructSequence_SET_ITEM(s, i, o)
#define NETIFC_TP_ALLOC(tp) ((tp)->tp_alloc)
#define NETIFC_TP_FREE(tp) ((tp)->tp_free)
#define NETIFC_TP_DEALLOC(tp) ((tp)->tp_dealloc)
#define NETIFC_TP_DESCR_SET(tp) ((tp)->tp_descr_set)
#define NETIFC_TP_BASE(tp) ((tp)->tp_base)
#define NETIFC_TP_FLAGS(tp) ((tp)->tp_flags)
#endif

/* A type's tp_basicsize (item 0) or tp_itemsize (item 1); -1 and an error when unreadable. */
static inline Py_ssize_t netifc_type_size(PyTypeObject *tp, int item)
{
#ifdef Py_LIMITED_API
	PyObject *v = PyObject_GetAttrString((PyObject *)tp, item ? "__itemsize__" : "__basicsize__");
	Py_ssize_t n = v ? PyLong_AsSsize_t(v) : -1;

	Py_XDECREF(v);
	return n;
#else
	return item ? tp->tp_itemsize : tp->tp_basicsize;
#endif
}

/*
 * The name of a type for messages, as a new str (NULL on failure): its
 * tp_name, or under the Limited API "module.qualname" ("int" for builtins).
 */
static inline PyObject *netifc_type_name(PyTypeObject *tp)
{
#ifdef Py_LIMITED_API
	PyObject *mod = PyObject_GetAttrString((PyObject *)tp, "__module__");
	PyObject *qual = mod ? PyObject_GetAttrString((PyObject *)tp, "__qualname__") : NULL;
	PyObject *res = NULL;

	if (qual && PyUnicode_Check(mod) && PyUnicode_CompareWithASCIIString(mod, "builtins"))
		res = PyUnicode_FromFormat("%U.%U", mod, qual);
	else if (qual)
		res = Py_NewRef(qual);
	Py_XDECREF(mod);
	Py_XDECREF(qual);
	return res;
#else
	return PyUnicode_FromString(tp->tp_name);
#endif
}

/* Raise exc with fmt, whose one conversion (%U) is the name of tp; NULL. */
static inline PyObject *netifc_type_error(PyObject *exc, const char *fmt, PyTypeObject *tp)
{
	PyObject *name = netifc_type_name(tp);

	if (name) {
		PyErr_Format(exc, fmt, name);
		Py_DECREF(name);
	}
	return NULL;
}

/*
 * An enum's member for v: members is a tuple of them by value (a lookup:
 * making one costs a microsecond) or the enum class (called); the plain
 * int before the Python layer registers them (NULL) and past the tuple.
 */
static inline PyObject *netifc_enum(PyObject *members, unsigned long v)
{
	if (!members)
		return PyLong_FromUnsignedLong(v);
	if (!PyTuple_Check(members))
		return PyObject_CallFunction(members, "k", v);
	if (v < (size_t)NETIFC_TUPLE_SIZE(members))
		return Py_NewRef(NETIFC_TUPLE_ITEM(members, (Py_ssize_t)v));
	return PyLong_FromUnsignedLong(v);
}

typedef struct {
	PyTypeObject *Interface;
	PyTypeObject *Addr;
	PyTypeObject *Tables;   /* Linux: the live tables (live.c) */
	PyTypeObject *Counters; /* python/counters.c */
	PyTypeObject *LinkSettings;
	PyTypeObject *Route;    /* Linux: Route and NextHop (python/routes.c) */
	PyTypeObject *NextHop;
	PyObject *RouteTypes;   /* once registered: RouteType(i) for i in range(256) */
	PyObject *RouteFamilies;        /* socket.AddressFamily(i) for i up to AF_INET6 */
	PyObject *NoSuchInterface;
	PyObject *AddressFamily;        /* socket.AddressFamily */
	PyObject *Flags;        /* netifc.Flags, AddrFlags, Addr6Flags, once registered */
	PyObject *AddrFlags;
	PyObject *Addr6Flags;
	PyObject *LinkType;     /* netifc.LinkType, once registered */
	PyObject *Scopes;       /* Scope(i) for i in range(256): Addr's and Route's scope */
	PyObject *Protocols;    /* RouteProtocol(i) for i in range(256) */
	PyObject *RouteFlags;   /* netifc.RouteFlags: Route's and NextHop's flags */
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

/* python/counters.c: the Counters and LinkSettings types, counters(); an Interface's own. */
int netifc_add_stats_types(PyObject *m, modstate *st);
struct netifc_ns;
PyObject *netifc_counters_all(modstate *st, struct netifc_ns *ns);    /* ns NULL: the thread's */
PyObject *netifc_counters_of(modstate *st, struct netifc_ns *ns, int32_t index, const char *name);
PyObject *netifc_link_settings_of(modstate *st, struct netifc_ns *ns, int32_t index,
				   const char *name);
/* python/routes.c (Linux): the Route and NextHop types and the route functions. */
int netifc_add_route_types(PyObject *m, modstate *st);
/* python/netns.c (Linux): the _NetNS type; an Interface's addrs() in its NetNS. */
int netifc_add_netns_type(PyObject *m, modstate *st);
void netifc_iface_set_ns(PyObject *iface, PyObject *ns);
int netifc_ns_fd(PyObject *ns);         /* -1 and TypeError unless a _NetNS, ValueError if closed */
int netifc_ns_check(PyObject *ns);      /* 0 for a _NetNS (open or closed), else -1 and TypeError */
PyObject *netifc_ns_iface_addrs(PyObject *ns, enum netifc_kind kind, int32_t index,
				const char *name);
PyObject *netifc_ns_iface_counters(PyObject *ns, int32_t index, const char *name, int settings);
struct netifc_ns *netifc_ns_core(PyObject *ns);  /* NULL and an exception unless an open _NetNS */

/*
 * module.c: the one place a core error becomes an exception (NULL).  what:
 * the index or name looked up, for NoSuchInterface; NULL elsewhere.
 */
PyObject *netifc_core_error(modstate *st, const struct netifc_call *c, int err, PyObject *what);

/*
 * module.c: the argument of a lookup by index or by name, checked as
 * interface_by_index and interface_by_name check it: 1 (and *index, or
 * *raw: the name's bytes, a new reference), 0 when no link can have it
 * (0, negative, too large; empty, too long, a NUL, not encodable:
 * NoSuchInterface is the caller's), -1 with TypeError set.
 */
int netifc_index_arg(PyObject *arg, int32_t *index);
int netifc_name_arg(PyObject *arg, PyObject **raw);

/*
 * module.c: what an Interface's addrs(), multicast_addrs() and
 * link_settings() return: res, unless it is empty (() or None) and the
 * link is gone: then NULL and NoSuchInterface.  res is taken.
 */
PyObject *netifc_unless_gone(PyObject *iface, PyObject *res);

#endif
