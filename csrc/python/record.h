/*
 * record.h -- what every file of the binding shares (record.c): the module
 * state, the Interface and Addr layouts the live tables read in place, the
 * records' common machinery (dealloc, the refusal to be made, hash,
 * equality, repr, tuples), the Interface and Addr constructors, the
 * argument checks and the one place a core error becomes an exception.
 * Each type's file has its own header for what module.c adds of it.
 */
#ifndef NETIFC_RECORD_H
#define NETIFC_RECORD_H

#include "python/abi.h"
#include "core/netifc.h"

/* What every call takes: the backend and its NETIFC_NO_* options (_set_backend: tests). */
struct netifc_path {
	const struct netifc_backend *backend;
	unsigned opts;
};

/*
 * The state changes after module_exec only by _register, _register_routes
 * (the objects after "once registered") and _set_backend (path): under
 * `lock`, which is held for a few loads and stores and nothing else (no
 * call, no wait), so it is taken with the GIL held.  Readers copy out
 * (netifc_path_of) or take a new reference (netifc_enum_of): nothing read
 * there is borrowed across a call that can let another thread replace it.
 */
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
	PyObject *NetifacesKeys[4]; /* Linux: "addr", "netmask", "broadcast", "peer" (compat.c) */
	struct netifc_path path;
	PyThread_type_lock lock;
} modstate;

/* The backend and options of a call, as one copy (under the state's lock). */
struct netifc_path netifc_path_of(modstate *st);
/* n objects stored at the states's offsets, under its lock; those replaced released after. */
void netifc_register(modstate *st, const size_t *offsets, PyObject *const *objects, size_t n);

/* The record types' layouts: the live tables read them where they are. */
/* Only the bytes a link has: ob_size counts those of data. */
typedef struct {
	PyObject_VAR_HEAD PyObject *ns; /* the NetNS it came from (addrs() asks there), or NULL */
	int32_t index;
	uint32_t mtu;
	uint32_t flags;
	uint16_t type;
	uint8_t operstate;
	uint8_t hwaddr_len;
	uint8_t brd_len;
	char name[NETIFC_NAMESIZ];
	uint8_t data[1]; /* hardware address, broadcast, then NUL-ended altnames */
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

/* The state of the module a type of the binding belongs to. */
modstate *netifc_state_of_type(PyTypeObject *tp);

/*
 * The one place a core error becomes an exception (NULL).  what: the index
 * or name looked up, for NoSuchInterface; NULL elsewhere.
 */
PyObject *netifc_core_error(modstate *st, const struct netifc_call *c, int err, PyObject *what);
/* The one place of ValueError "I/O operation on a closed network namespace" (NULL). */
PyObject *netifc_closed_ns_error(void);

/*
 * The argument of a lookup by index or by name, checked as
 * interface_by_index and interface_by_name check it: 1 (and *index, or
 * *raw: the name's bytes, a new reference), 0 when no link can have it
 * (0, negative, too large; empty, too long, a NUL, not encodable:
 * NoSuchInterface is the caller's), -1 with TypeError set.
 */
int netifc_index_arg(PyObject *arg, int32_t *index);
int netifc_name_arg(PyObject *arg, PyObject **raw);

/*
 * The one check of an interface name: its bytes in the filesystem encoding
 * (*raw, a new reference) and what they are; -1 with TypeError (not a str)
 * or the encoder's error.
 */
enum netifc_name_check {
	NETIFC_NAME_OK, /* a name a link can have: 1 to NETIFC_NAMESIZ - 1 bytes */
	NETIFC_NAME_EMPTY,
	NETIFC_NAME_NUL, /* holds a NUL */
	NETIFC_NAME_LONG, /* NETIFC_NAMESIZ bytes or more */
};
int netifc_name_check(PyObject *name, PyObject **raw);

/* ---- the records' machinery ----------------------------------------------- */

/*
 * A record type: what differs from one to the next.  Every record type is
 * immutable, cannot be made from Python (new: NULL for netifc_record_new),
 * and frees itself with netifc_record_dealloc (dealloc: NULL) unless it
 * holds objects.  NULL str, members, methods: none.
 */
struct netifc_record_type {
	const char *name; /* "netifc.Addr", added to the module as Addr */
	const char *doc;
	int basicsize, itemsize;
	newfunc new;
	destructor dealloc;
	reprfunc repr, str;
	hashfunc hash;
	richcmpfunc richcompare;
	PyGetSetDef *getset;
	PyMemberDef *members;
	PyMethodDef *methods;
};

/* Makes the type into *slot and adds it to m by its short name. */
int netifc_add_record_type(PyObject *m, const struct netifc_record_type *t, PyTypeObject **slot);

/* tp_dealloc of a record that holds no object; one that does clears them first. */
void netifc_record_dealloc(PyObject *self);

/* tp_new of a record: TypeError "cannot create 'T' instances; use " + use. */
PyObject *netifc_record_refuse(PyTypeObject *tp, const char *use);
PyObject *netifc_record_new(PyTypeObject *tp, PyObject *args, PyObject *kw); /* netifc's functions */

/* tp_richcompare of a record of one type: == and != by same(a, b) (1, 0, or -1 and an error). */
PyObject *netifc_record_compare(PyObject *a, PyObject *b, int op,
				int (*same)(PyObject *, PyObject *));

/* tp_hash: FNV-1a over the fields fed to it, in order; never -1. */
#define NETIFC_HASH_START 1469598103934665603ull
void netifc_hash_add(uint64_t *h, const void *p, size_t n);
#define NETIFC_HASH_FIELD(h, f) netifc_hash_add(h, &(f), sizeof(f))
Py_hash_t netifc_hash_end(uint64_t h);

/*
 * tp_repr: "Type(field=repr, ...)", each field as its attribute returns it,
 * but bytes (a link-layer address) as text: hardware_addr=02:fc:00:00:00:01.
 */
PyObject *netifc_fields_repr(PyObject *self, const char *type, const char *const *fields);

/* tp_str by the Python layer: module.func(self), an ip-like line. */
PyObject *netifc_str_by(PyObject *self, const char *module, const char *func);

/* A tuple of the n records of a table, each made by make(ctx, table, i) (a new reference). */
typedef PyObject *(*netifc_make_fn)(void *ctx, const void *table, size_t i);
PyObject *netifc_tuple_of(void *ctx, const void *table, size_t n, netifc_make_fn make);

/* An IPv4 or IPv6 address as text; None unless has. */
PyObject *netifc_ip_text(int family, const uint8_t *p);
PyObject *netifc_opt_ip_text(int has, int family, const uint8_t *p);

/*
 * An enum's member for v: *members (a registered slot of st, read under its
 * lock) is a tuple of them by value (a lookup: making one costs a
 * microsecond) or the enum class (called); the plain int before the Python
 * layer registers them (NULL) and past the tuple.
 */
PyObject *netifc_enum_of(modstate *st, PyObject *const *members, unsigned long v);

/*
 * A getset's getter of an unsigned field (1, 2 or 4 bytes) as a member of
 * one of the module state's enums: its closure is a struct
 * netifc_enum_field, written NETIFC_ENUM_FIELD(Object type, field, slot).
 */
struct netifc_enum_field {
	size_t offset, size; /* the field's, in the object */
	size_t members; /* offsetof(modstate, the enum's slot) */
};
#define NETIFC_ENUM_FIELD(type, field, slot) \
	{offsetof(type, field), sizeof(((type *)0)->field), offsetof(modstate, slot)}
PyObject *netifc_enum_field_get(PyObject *self, void *closure);

/* A getset's getter of a NUL-ended name (a char array) as text (filesystem
 * encoding): its closure points to the field's offset, a const size_t. */
PyObject *netifc_name_field_get(PyObject *self, void *closure);

/* ---- Interface and Addr records ------------------------------------------- */

PyObject *netifc_new_iface(modstate *st, const struct netifc_link *l, const char *pool);
PyObject *netifc_new_addr(modstate *st, const struct netifc_addr *a);
PyObject *netifc_links_tuple(modstate *st, const struct netifc_links *t);
PyObject *netifc_addrs_tuple(modstate *st, const struct netifc_addrs *t);
#ifdef __linux__
/* An Interface a NetNS returned: its calls ask that namespace. */
void netifc_iface_set_ns(PyObject *iface, PyObject *ns);
#endif

#endif
