/*
 * module.c -- netifc._netifc: the core's records as immutable Python objects.
 *
 * Kernel I/O runs with the GIL released into plain C tables; the objects
 * are built after.  Derived values (strings, ipaddress objects, enums) are
 * computed by getters when asked for, never stored twice.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "netifc.h"
#ifdef __linux__
#include "floor.h"
#endif

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
	PyObject *NoSuchInterface;
	PyObject *Flags;        /* netifc.Flags and netifc.AddrFlags, once registered */
	PyObject *AddrFlags;
	const struct netifc_backend *backend;
} modstate;

typedef struct {
	PyObject_HEAD
	struct netifc_link l;
} IfaceObject;

typedef struct {
	PyObject_HEAD
	struct netifc_addr a;
} AddrObject;

enum op { OP_LINKS, OP_LINK_INDEX, OP_LINK_NAME, OP_ADDRS, OP_GROUPS };

static const char *const netlink_steps[] = {
	"netlink RTM_GETLINK dump", "netlink RTM_GETLINK request",
	"netlink RTM_GETLINK request", "netlink RTM_GETLINK/RTM_GETADDR",
	"netlink RTM_GETMULTICAST",
};

static modstate *state_of_type(PyTypeObject *tp)
{
	return (modstate *)PyType_GetModuleState(tp);
}

/* The one place a core error becomes an exception. */
static PyObject *core_error(modstate *st, int err, enum op op, PyObject *what)
{
	char msg[160];
	const char *step = strcmp(st->backend->name, "netlink") ? "getifaddrs" : netlink_steps[op];
	PyObject *args;

	if (err == -ENODEV && what) {
		PyErr_Format(st->NoSuchInterface, "no such network interface: %R", what);
		return NULL;
	}
	if (err == -ENOMEM)
		return PyErr_NoMemory();
	if (err == -EBUSY)
		snprintf(msg, sizeof msg, "%s: dump interrupted by concurrent changes %d times",
			 step, NETIFC_DUMP_TRIES);
	else
		snprintf(msg, sizeof msg, "%s: %s", step, strerror(-err));
	args = Py_BuildValue("(is)", -err, msg);
	if (args) {
		PyErr_SetObject(PyExc_OSError, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* ---- building objects ------------------------------------------------ */

static PyObject *new_iface(modstate *st, const struct netifc_link *l)
{
	IfaceObject *o = PyObject_New(IfaceObject, st->Interface);

	if (o)
		o->l = *l;
	return (PyObject *)o;
}

static PyObject *new_addr(modstate *st, const struct netifc_addr *a)
{
	AddrObject *o = PyObject_New(AddrObject, st->Addr);

	if (o)
		o->a = *a;
	return (PyObject *)o;
}

static PyObject *links_tuple(modstate *st, const struct netifc_links *t)
{
	PyObject *tup = PyTuple_New((Py_ssize_t)t->n), *o;
	size_t i;

	for (i = 0; tup && i < t->n; i++) {
		if (!(o = new_iface(st, &t->v[i]))) {
			Py_CLEAR(tup);
			break;
		}
		PyTuple_SET_ITEM(tup, (Py_ssize_t)i, o);
	}
	return tup;
}

static PyObject *addrs_tuple(modstate *st, const struct netifc_addrs *t)
{
	PyObject *tup = PyTuple_New((Py_ssize_t)t->n), *o;
	size_t i;

	for (i = 0; tup && i < t->n; i++) {
		if (!(o = new_addr(st, &t->v[i]))) {
			Py_CLEAR(tup);
			break;
		}
		PyTuple_SET_ITEM(tup, (Py_ssize_t)i, o);
	}
	return tup;
}

static void plain_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	tp->tp_free(self);
	Py_DECREF(tp);
}

static PyObject *no_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	(void)args; (void)kw;
	PyErr_Format(PyExc_TypeError, "cannot create '%s' instances; use netifc's functions",
		     tp->tp_name);
	return NULL;
}

static Py_hash_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return (Py_hash_t)h == -1 ? -2 : (Py_hash_t)h;
}

static PyObject *compare(PyObject *a, PyObject *b, int op, size_t off, size_t n)
{
	int eq;

	if (Py_TYPE(a) != Py_TYPE(b) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	eq = !memcmp((char *)a + off, (char *)b + off, n);
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *enum_of(PyObject *cls, unsigned long v)
{
	return cls ? PyObject_CallFunction(cls, "k", v) : PyLong_FromUnsignedLong(v);
}

/* ---- Interface --------------------------------------------------------- */

#define IFACE(o) (&((IfaceObject *)(o))->l)

static const char *const operstates[] = {
	"unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up",
};

/* Go's flag bits, from the kernel's IFF_* ones. */
static unsigned long go_flags(uint32_t f)
{
	return ((f & 0x1) ? 1 : 0) | ((f & 0x2) ? 2 : 0) | ((f & 0x8) ? 4 : 0) |
	       ((f & 0x10) ? 8 : 0) | ((f & 0x1000) ? 16 : 0) | ((f & 0x40) ? 32 : 0);
}

static PyObject *iface_index(PyObject *self, void *c) { (void)c; return PyLong_FromLong(IFACE(self)->index); }
static PyObject *iface_mtu(PyObject *self, void *c) { (void)c; return PyLong_FromUnsignedLong(IFACE(self)->mtu); }
static PyObject *iface_type(PyObject *self, void *c) { (void)c; return PyLong_FromLong(IFACE(self)->type); }
static PyObject *iface_name(PyObject *self, void *c) { (void)c; return PyUnicode_DecodeFSDefault(IFACE(self)->name); }

static PyObject *iface_flags(PyObject *self, void *c)
{
	(void)c;
	return enum_of(state_of_type(Py_TYPE(self))->Flags, go_flags(IFACE(self)->flags));
}

static PyObject *iface_hw(PyObject *self, void *c)
{
	(void)c;
	return PyBytes_FromStringAndSize((const char *)IFACE(self)->hwaddr, IFACE(self)->hwaddr_len);
}

static PyObject *iface_hw_str(PyObject *self, void *c)
{
	const struct netifc_link *l = IFACE(self);
	char buf[NETIFC_HWADDR_MAX * 3 + 1] = "";
	int i;

	(void)c;
	for (i = 0; i < l->hwaddr_len; i++)
		snprintf(buf + (i ? 3 * i - 1 : 0), 4, i ? ":%02x" : "%02x", l->hwaddr[i]);
	return PyUnicode_FromString(buf);
}

static PyObject *iface_operstate(PyObject *self, void *c)
{
	uint8_t s = IFACE(self)->operstate;

	(void)c;
	if (s < sizeof operstates / sizeof *operstates)
		return PyUnicode_FromString(operstates[s]);
	return PyUnicode_FromFormat("%u", (unsigned)s);
}

static PyObject *iface_addrs_kind(PyObject *self, enum netifc_kind kind)
{
	modstate *st = state_of_type(Py_TYPE(self));
	const struct netifc_backend *b = st->backend;
	struct netifc_addrs t = { 0 };
	const struct netifc_link *l = IFACE(self);
	PyObject *res;
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = b->addrs(kind, l->index, l->name, NULL, &t);
	Py_END_ALLOW_THREADS
	res = r < 0 ? core_error(st, r, kind == NETIFC_UNICAST ? OP_ADDRS : OP_GROUPS, NULL)
		    : addrs_tuple(st, &t);
	netifc_addrs_free(&t);
	return res;
}

static PyObject *iface_addrs(PyObject *self, PyObject *unused)
{
	(void)unused;
	return iface_addrs_kind(self, NETIFC_UNICAST);
}

static PyObject *iface_maddrs(PyObject *self, PyObject *unused)
{
	(void)unused;
	return iface_addrs_kind(self, NETIFC_MULTICAST);
}

static PyObject *iface_reduce(PyObject *self, PyObject *unused)
{
	const struct netifc_link *l = IFACE(self);
	PyObject *mod = PyType_GetModule(Py_TYPE(self)), *fn, *res;

	(void)unused;
	if (!mod || !(fn = PyObject_GetAttrString(mod, "_interface")))
		return NULL;
	res = Py_BuildValue("(N(iNkky#ii))", fn, l->index, PyUnicode_DecodeFSDefault(l->name),
			    (unsigned long)l->mtu, (unsigned long)l->flags,
			    (const char *)l->hwaddr, (Py_ssize_t)l->hwaddr_len,
			    (int)l->type, (int)l->operstate);
	return res;
}

static PyObject *iface_repr(PyObject *self)
{
	const struct netifc_link *l = IFACE(self);
	PyObject *name = iface_name(self, NULL), *flags = iface_flags(self, NULL);
	PyObject *hw = iface_hw_str(self, NULL), *op = iface_operstate(self, NULL), *res = NULL;

	if (name && flags && hw && op)
		res = PyUnicode_FromFormat("Interface(index=%d, name=%R, flags=%S, mtu=%u, "
					   "hardware_addr=%R, operstate=%R, link_type=%d)",
					   l->index, name, flags, (unsigned)l->mtu, hw, op, (int)l->type);
	Py_XDECREF(name);
	Py_XDECREF(flags);
	Py_XDECREF(hw);
	Py_XDECREF(op);
	return res;
}

static Py_hash_t iface_hash(PyObject *self)
{
	return hash_bytes(IFACE(self), sizeof(struct netifc_link));
}

static PyObject *iface_richcompare(PyObject *a, PyObject *b, int op)
{
	return compare(a, b, op, offsetof(IfaceObject, l), sizeof(struct netifc_link));
}

static PyGetSetDef iface_getset[] = {
	{"index", iface_index, NULL, "Interface index (ifindex), positive.", NULL},
	{"name", iface_name, NULL, "Interface name (filesystem encoding, surrogateescape).", NULL},
	{"mtu", iface_mtu, NULL, "Maximum transmission unit in bytes.", NULL},
	{"flags", iface_flags, NULL, "netifc.Flags: up, broadcast, loopback, ...", NULL},
	{"hardware_addr", iface_hw, NULL, "Link-layer address as bytes; b'' when none.", NULL},
	{"hardware_addr_str", iface_hw_str, NULL, "Link-layer address as 'aa:bb:..'; '' when none.", NULL},
	{"operstate", iface_operstate, NULL, "RFC 2863 operational state: 'up', 'down', 'unknown', ...", NULL},
	{"link_type", iface_type, NULL, "ARPHRD_* link type (1 Ethernet, 772 loopback, ...).", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef iface_methods[] = {
	{"addrs", iface_addrs, METH_NOARGS,
	 "addrs() -> tuple[Addr, ...]: this interface's unicast addresses (() once it is gone)."},
	{"multicast_addrs", iface_maddrs, METH_NOARGS,
	 "multicast_addrs() -> tuple[Addr, ...]: the multicast groups this interface joined."},
	{"__reduce__", iface_reduce, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyType_Slot iface_slots[] = {
	{Py_tp_doc, "A network interface; immutable, hashable, equal by value."},
	{Py_tp_new, no_new},
	{Py_tp_dealloc, plain_dealloc},
	{Py_tp_repr, iface_repr},
	{Py_tp_hash, iface_hash},
	{Py_tp_richcompare, iface_richcompare},
	{Py_tp_getset, iface_getset},
	{Py_tp_methods, iface_methods},
	{0, NULL},
};

static PyType_Spec iface_spec = {
	"netifc.Interface", sizeof(IfaceObject), 0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, iface_slots,
};

/* ---- Addr ------------------------------------------------------------- */

#define ADDR(o) (&((AddrObject *)(o))->a)

static PyObject *ip_text(int family, const uint8_t *p)
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, p, buf, sizeof buf))
		return PyErr_SetFromErrno(PyExc_OSError);
	return PyUnicode_FromString(buf);
}

static PyObject *addr_family(PyObject *self, void *c) { (void)c; return PyLong_FromLong(ADDR(self)->family); }
static PyObject *addr_prefixlen(PyObject *self, void *c) { (void)c; return PyLong_FromLong(ADDR(self)->prefixlen); }
static PyObject *addr_index(PyObject *self, void *c) { (void)c; return PyLong_FromLong(ADDR(self)->index); }
static PyObject *addr_scope(PyObject *self, void *c) { (void)c; return PyLong_FromLong(ADDR(self)->scope); }
static PyObject *addr_zone(PyObject *self, void *c) { (void)c; return PyUnicode_DecodeFSDefault(ADDR(self)->zone); }
static PyObject *addr_address(PyObject *self, void *c) { (void)c; return ip_text(ADDR(self)->family, ADDR(self)->local); }

static PyObject *addr_peer(PyObject *self, void *c)
{
	(void)c;
	if (!ADDR(self)->has_peer)
		Py_RETURN_NONE;
	return ip_text(ADDR(self)->family, ADDR(self)->peer);
}

static PyObject *addr_broadcast(PyObject *self, void *c)
{
	(void)c;
	if (!ADDR(self)->has_broadcast)
		Py_RETURN_NONE;
	return ip_text(ADDR(self)->family, ADDR(self)->broadcast);
}

static PyObject *addr_flags(PyObject *self, void *c)
{
	(void)c;
	return enum_of(state_of_type(Py_TYPE(self))->AddrFlags, ADDR(self)->flags);
}

static PyObject *lifetime(uint32_t v)
{
	if (v == NETIFC_FOREVER)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(v);
}

static PyObject *addr_preferred(PyObject *self, void *c) { (void)c; return lifetime(ADDR(self)->preferred); }
static PyObject *addr_valid(PyObject *self, void *c) { (void)c; return lifetime(ADDR(self)->valid); }

/* "192.0.2.1/24", "fe80::1%eth0/64": what ipaddress.ip_interface() reads back. */
static PyObject *addr_str(PyObject *self)
{
	const struct netifc_addr *a = ADDR(self);
	PyObject *ip = addr_address(self, NULL), *zone = NULL, *res = NULL;

	if (ip && (zone = addr_zone(self, NULL)))
		res = PyUnicode_GetLength(zone) ? PyUnicode_FromFormat("%U%%%U/%d", ip, zone, a->prefixlen)
						: PyUnicode_FromFormat("%U/%d", ip, a->prefixlen);
	Py_XDECREF(ip);
	Py_XDECREF(zone);
	return res;
}

static PyObject *call_ipaddress(const char *fn, PyObject *arg)
{
	PyObject *mod = PyImport_ImportModule("ipaddress"), *res = NULL;

	if (mod && arg)
		res = PyObject_CallMethod(mod, fn, "O", arg);
	Py_XDECREF(mod);
	Py_XDECREF(arg);
	return res;
}

static PyObject *addr_ip(PyObject *self, void *c)
{
	PyObject *ip = addr_address(self, NULL), *zone = addr_zone(self, NULL), *text = NULL;

	(void)c;
	if (ip && zone)
		text = PyUnicode_GetLength(zone) ? PyUnicode_FromFormat("%U%%%U", ip, zone)
						 : Py_NewRef(ip);
	Py_XDECREF(ip);
	Py_XDECREF(zone);
	return call_ipaddress("ip_address", text);
}

static PyObject *addr_interface(PyObject *self, void *c)
{
	(void)c;
	return call_ipaddress("ip_interface", addr_str(self));
}

static PyObject *addr_network(PyObject *self, void *c)
{
	PyObject *iface = addr_interface(self, c), *res;

	if (!iface)
		return NULL;
	res = PyObject_GetAttrString(iface, "network");
	Py_DECREF(iface);
	return res;
}

static PyObject *opt_bytes(int has, const uint8_t *p, size_t n)
{
	if (!has)
		Py_RETURN_NONE;
	return PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n);
}

static PyObject *addr_reduce(PyObject *self, PyObject *unused)
{
	const struct netifc_addr *a = ADDR(self);
	size_t alen = netifc_family_len(a->family);
	PyObject *mod = PyType_GetModule(Py_TYPE(self)), *fn;

	(void)unused;
	if (!mod || !(fn = PyObject_GetAttrString(mod, "_addr")))
		return NULL;
	return Py_BuildValue("(N(iy#iiNNikkkN))", fn, a->family, (const char *)a->local,
			     (Py_ssize_t)alen, a->prefixlen, a->index,
			     opt_bytes(a->has_peer, a->peer, alen),
			     opt_bytes(a->has_broadcast, a->broadcast, alen), a->scope,
			     (unsigned long)a->flags, (unsigned long)a->preferred,
			     (unsigned long)a->valid, PyUnicode_DecodeFSDefault(a->zone));
}

static PyObject *addr_repr(PyObject *self)
{
	const struct netifc_addr *a = ADDR(self);
	PyObject *s = addr_str(self), *peer = addr_peer(self, NULL);
	PyObject *brd = addr_broadcast(self, NULL), *flags = addr_flags(self, NULL), *res = NULL;

	if (s && peer && brd && flags)
		res = PyUnicode_FromFormat("Addr(%R, index=%d, peer=%R, broadcast=%R, scope=%d, flags=%R)",
					   s, a->index, peer, brd, a->scope, flags);
	Py_XDECREF(s);
	Py_XDECREF(peer);
	Py_XDECREF(brd);
	Py_XDECREF(flags);
	return res;
}

static Py_hash_t addr_hash(PyObject *self)
{
	return hash_bytes(ADDR(self), sizeof(struct netifc_addr));
}

static PyObject *addr_richcompare(PyObject *a, PyObject *b, int op)
{
	return compare(a, b, op, offsetof(AddrObject, a), sizeof(struct netifc_addr));
}

static PyGetSetDef addr_getset[] = {
	{"family", addr_family, NULL, "socket.AF_INET or socket.AF_INET6.", NULL},
	{"address", addr_address, NULL, "This end's address as text, without zone.", NULL},
	{"prefixlen", addr_prefixlen, NULL, "Prefix length; full length for multicast groups.", NULL},
	{"zone", addr_zone, NULL, "IPv6 zone: the interface name for link-local addresses, else ''.", NULL},
	{"index", addr_index, NULL, "Index of the interface the address belongs to.", NULL},
	{"peer", addr_peer, NULL, "Point-to-point peer address, or None.", NULL},
	{"broadcast", addr_broadcast, NULL, "IPv4 broadcast address, or None.", NULL},
	{"scope", addr_scope, NULL, "RT_SCOPE_*: 0 global, 253 link, 254 host.", NULL},
	{"flags", addr_flags, NULL, "netifc.AddrFlags: the kernel's IFA_F_* bits.", NULL},
	{"preferred_lifetime", addr_preferred, NULL, "Seconds left preferred, or None for forever.", NULL},
	{"valid_lifetime", addr_valid, NULL, "Seconds left valid, or None for forever.", NULL},
	{"ip", addr_ip, NULL, "ipaddress.IPv4Address / IPv6Address (with scope_id).", NULL},
	{"interface", addr_interface, NULL, "ipaddress.IPv4Interface / IPv6Interface.", NULL},
	{"network", addr_network, NULL, "ipaddress.IPv4Network / IPv6Network.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef addr_methods[] = {
	{"__reduce__", addr_reduce, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyType_Slot addr_slots[] = {
	{Py_tp_doc, "An interface address or multicast group; immutable, hashable, equal by value."},
	{Py_tp_new, no_new},
	{Py_tp_dealloc, plain_dealloc},
	{Py_tp_repr, addr_repr},
	{Py_tp_str, addr_str},
	{Py_tp_hash, addr_hash},
	{Py_tp_richcompare, addr_richcompare},
	{Py_tp_getset, addr_getset},
	{Py_tp_methods, addr_methods},
	{0, NULL},
};

static PyType_Spec addr_spec = {
	"netifc.Addr", sizeof(AddrObject), 0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, addr_slots,
};

/* ---- module functions --------------------------------------------------- */

static PyObject *m_interfaces(PyObject *m, PyObject *unused)
{
	modstate *st = PyModule_GetState(m);
	const struct netifc_backend *b = st->backend;
	struct netifc_links t = { 0 };
	PyObject *res;
	int r;

	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	r = b->links(&t);
	Py_END_ALLOW_THREADS
	res = r < 0 ? core_error(st, r, OP_LINKS, NULL) : links_tuple(st, &t);
	netifc_links_free(&t);
	return res;
}

static PyObject *m_by_index(PyObject *m, PyObject *arg)
{
	modstate *st = PyModule_GetState(m);
	const struct netifc_backend *b = st->backend;
	struct netifc_link l;
	int overflow;
	long long v;
	int r;

	if (!PyLong_Check(arg) || PyBool_Check(arg))
		return PyErr_Format(PyExc_TypeError, "interface index must be int, not %.100s",
				    Py_TYPE(arg)->tp_name);
	v = PyLong_AsLongLongAndOverflow(arg, &overflow);
	if (v == -1 && PyErr_Occurred())
		return NULL;
	if (overflow < 0 || (!overflow && v <= 0))
		return PyErr_Format(PyExc_ValueError, "invalid interface index %R: must be positive", arg);
	if (overflow > 0 || v > 0x7fffffff)
		return core_error(st, -ENODEV, OP_LINK_INDEX, arg);
	Py_BEGIN_ALLOW_THREADS
	r = b->link_by_index((int32_t)v, &l);
	Py_END_ALLOW_THREADS
	if (r < 0)
		return core_error(st, r, OP_LINK_INDEX, arg);
	return new_iface(st, &l);
}

static PyObject *m_by_name(PyObject *m, PyObject *arg)
{
	modstate *st = PyModule_GetState(m);
	const struct netifc_backend *b = st->backend;
	struct netifc_link l;
	PyObject *raw;
	const char *name;
	Py_ssize_t n;
	int r;

	if (!PyUnicode_Check(arg))
		return PyErr_Format(PyExc_TypeError, "interface name must be str, not %.100s",
				    Py_TYPE(arg)->tp_name);
	if (PyUnicode_GetLength(arg) == 0)
		return PyErr_Format(PyExc_ValueError, "interface name must not be empty");
	if (!(raw = PyUnicode_EncodeFSDefault(arg)))
		return NULL;
	name = PyBytes_AS_STRING(raw);
	n = PyBytes_GET_SIZE(raw);
	if ((Py_ssize_t)strlen(name) != n) {
		Py_DECREF(raw);
		return PyErr_Format(PyExc_ValueError, "interface name must not contain NUL: %R", arg);
	}
	r = -ENODEV;
	if (n < NETIFC_NAMESIZ) {
		Py_BEGIN_ALLOW_THREADS
		r = b->link_by_name(name, &l);
		Py_END_ALLOW_THREADS
	}
	Py_DECREF(raw);
	if (r < 0)
		return core_error(st, r, OP_LINK_NAME, arg);
	return new_iface(st, &l);
}

static int all_addrs(modstate *st, enum netifc_kind kind, struct netifc_links *links,
		     struct netifc_addrs *addrs)
{
	const struct netifc_backend *b = st->backend;
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = b->addrs(kind, 0, NULL, links, addrs);
	Py_END_ALLOW_THREADS
	if (r < 0)
		core_error(st, r, kind == NETIFC_UNICAST ? OP_ADDRS : OP_GROUPS, NULL);
	return r;
}

static PyObject *m_interface_addrs(PyObject *m, PyObject *unused)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_addrs t = { 0 };
	PyObject *res = NULL;

	(void)unused;
	if (all_addrs(st, NETIFC_UNICAST, NULL, &t) == 0)
		res = addrs_tuple(st, &t);
	netifc_addrs_free(&t);
	return res;
}

static PyObject *m_snapshot(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_links links = { 0 };
	struct netifc_addrs addrs = { 0 };
	PyObject *res = NULL;
	int multicast = 0;

	if (!PyArg_ParseTuple(args, "|p:_snapshot", &multicast))
		return NULL;
	if (all_addrs(st, multicast ? NETIFC_MULTICAST : NETIFC_UNICAST, &links, &addrs) == 0)
		res = Py_BuildValue("(NN)", links_tuple(st, &links), addrs_tuple(st, &addrs));
	netifc_links_free(&links);
	netifc_addrs_free(&addrs);
	return res;
}

static int check_range(long long v, long long lo, long long hi, const char *what)
{
	if (v >= lo && v <= hi)
		return 0;
	PyErr_Format(PyExc_ValueError, "%s out of range: %lld", what, v);
	return -1;
}

static int name_into(PyObject *name, char *out, int allow_empty)
{
	PyObject *raw = PyUnicode_EncodeFSDefault(name);
	Py_ssize_t n;

	if (!raw)
		return -1;
	n = PyBytes_GET_SIZE(raw);
	if (n >= NETIFC_NAMESIZ || (n == 0 && !allow_empty) ||
	    (Py_ssize_t)strlen(PyBytes_AS_STRING(raw)) != n) {
		Py_DECREF(raw);
		PyErr_Format(PyExc_ValueError, "invalid interface name %R", name);
		return -1;
	}
	memset(out, 0, NETIFC_NAMESIZ);
	memcpy(out, PyBytes_AS_STRING(raw), (size_t)n);
	Py_DECREF(raw);
	return 0;
}

/* Rebuilds a pickled Interface; checks every field like the parser does. */
static PyObject *m_make_interface(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	long long index, mtu, flags, type, oper;
	struct netifc_link l;
	PyObject *name;
	Py_buffer hw;

	if (!PyArg_ParseTuple(args, "LULLy*LL:_interface", &index, &name, &mtu, &flags, &hw,
			      &type, &oper))
		return NULL;
	memset(&l, 0, sizeof l);
	if (check_range(index, 1, 0x7fffffff, "index") || check_range(mtu, 0, 0xffffffffLL, "mtu") ||
	    check_range(flags, 0, 0xffffffffLL, "flags") || check_range(type, 0, 0xffff, "link_type") ||
	    check_range(oper, 0, 0xff, "operstate") ||
	    check_range(hw.len, 0, NETIFC_HWADDR_MAX, "hardware address length") ||
	    name_into(name, l.name, 0)) {
		PyBuffer_Release(&hw);
		return NULL;
	}
	l.index = (int32_t)index;
	l.mtu = (uint32_t)mtu;
	l.flags = (uint32_t)flags;
	l.type = (uint16_t)type;
	l.operstate = (uint8_t)oper;
	netifc_hwaddr_set(&l, hw.buf, (size_t)hw.len);
	PyBuffer_Release(&hw);
	return new_iface(st, &l);
}

static int ip_into(PyObject *o, size_t alen, uint8_t *out, uint8_t *has)
{
	char *p;
	Py_ssize_t n;

	if (o == Py_None)
		return 0;
	if (PyBytes_AsStringAndSize(o, &p, &n) < 0)
		return -1;
	if ((size_t)n != alen) {
		PyErr_SetString(PyExc_ValueError, "address length does not match the family");
		return -1;
	}
	memcpy(out, p, alen);
	if (has)
		*has = 1;
	return 0;
}

static PyObject *m_make_addr(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	long long family, prefixlen, index, scope, flags, pref, valid;
	PyObject *local, *peer, *brd, *zone;
	struct netifc_addr a;
	size_t alen;

	if (!PyArg_ParseTuple(args, "LSLLOOLLLLU:_addr", &family, &local, &prefixlen, &index,
			      &peer, &brd, &scope, &flags, &pref, &valid, &zone))
		return NULL;
	memset(&a, 0, sizeof a);
	alen = netifc_family_len((int)family);
	if (!alen || family != (int)family)
		return PyErr_Format(PyExc_ValueError, "unsupported address family %lld", family);
	if (check_range(prefixlen, 0, (long long)alen * 8, "prefixlen") ||
	    check_range(index, 1, 0x7fffffff, "index") || check_range(scope, 0, 255, "scope") ||
	    check_range(flags, 0, 0xffffffffLL, "flags") ||
	    check_range(pref, 0, 0xffffffffLL, "preferred_lifetime") ||
	    check_range(valid, 0, 0xffffffffLL, "valid_lifetime") ||
	    ip_into(local, alen, a.local, NULL) || ip_into(peer, alen, a.peer, &a.has_peer) ||
	    ip_into(brd, alen, a.broadcast, &a.has_broadcast) || name_into(zone, a.zone, 1))
		return NULL;
	a.family = (uint8_t)family;
	a.prefixlen = (uint8_t)prefixlen;
	a.index = (int32_t)index;
	a.scope = (uint8_t)scope;
	a.flags = (uint32_t)flags;
	a.preferred = (uint32_t)pref;
	a.valid = (uint32_t)valid;
	return new_addr(st, &a);
}

static PyObject *m_register(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	PyObject *flags, *addr_flags;

	if (!PyArg_ParseTuple(args, "OO:_register", &flags, &addr_flags))
		return NULL;
	Py_XSETREF(st->Flags, Py_NewRef(flags));
	Py_XSETREF(st->AddrFlags, Py_NewRef(addr_flags));
	Py_RETURN_NONE;
}

static PyObject *m_backend(PyObject *m, PyObject *unused)
{
	(void)unused;
	return PyUnicode_FromString(((modstate *)PyModule_GetState(m))->backend->name);
}

static int set_backend(modstate *st, const char *name)
{
	const struct netifc_backend *b = netifc_backend_find(name);

	if (!b) {
		PyErr_Format(PyExc_ValueError, "unknown netifc backend %s (have: %s)",
			     name, netifc_backend_names());
		return -1;
	}
	st->backend = b;
	return 0;
}

/* Private: tests switch backends and force the Linux fallback paths. */
static PyObject *m_set_backend(PyObject *m, PyObject *args)
{
	const char *name;
	unsigned int fallbacks = 0;

	if (!PyArg_ParseTuple(args, "s|I:_set_backend", &name, &fallbacks))
		return NULL;
	if (set_backend(PyModule_GetState(m), name) < 0)
		return NULL;
#ifdef __linux__
	netifc_linux_set_fallbacks(fallbacks);
#else
	(void)fallbacks;
#endif
	Py_RETURN_NONE;
}

#ifdef __linux__
/* Private: the benchmark harness's kernel floor (see floor.c). */
static PyObject *m_floor(PyObject *m, PyObject *args)
{
	static const char *const ops[] = { "links", "link_index", "link_name", "addrs",
					   "link_addrs", "link_groups", "snapshot" };
	struct netifc_floor f = { 0 };
	const char *op, *name = NULL;
	PyObject *zones = NULL, *seq = NULL;
	int32_t *idx = NULL;
	double ns = 0;
	long n;
	int index = 0, r;
	size_t i;

	(void)m;
	if (!PyArg_ParseTuple(args, "sl|izO:_floor", &op, &n, &index, &name, &zones))
		return NULL;
	for (i = 0; i < sizeof ops / sizeof *ops && strcmp(ops[i], op); i++)
		;
	if (i == sizeof ops / sizeof *ops || n <= 0)
		return PyErr_Format(PyExc_ValueError, "bad floor request %s x %ld", op, n);
	f.op = (enum floor_op)i;
	f.index = index;
	f.name = name;
	if (zones) {
		if (!(seq = PySequence_Fast(zones, "zones must be a sequence of ints")))
			return NULL;
		f.n_zones = (size_t)PySequence_Fast_GET_SIZE(seq);
		if (!(idx = PyMem_Calloc(f.n_zones + 1, sizeof *idx))) {
			Py_DECREF(seq);
			return PyErr_NoMemory();
		}
		for (i = 0; i < f.n_zones; i++)
			idx[i] = (int32_t)PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i));
		Py_DECREF(seq);
		if (PyErr_Occurred()) {
			PyMem_Free(idx);
			return NULL;
		}
		f.zones = idx;
	}
	Py_BEGIN_ALLOW_THREADS
	r = netifc_floor_run(&f, n, &ns);
	Py_END_ALLOW_THREADS
	PyMem_Free(idx);
	if (r < 0) {
		errno = -r;
		return PyErr_SetFromErrno(PyExc_OSError);
	}
	return PyFloat_FromDouble(ns);
}
#endif

#ifdef __linux__
#include "nlio.h"

/* Private: the calling thread's kept socket, (port id, last seq), or None (tests). */
static PyObject *m_socket_info(PyObject *m, PyObject *unused)
{
	uint32_t portid, seq;

	(void)m; (void)unused;
	if (nl_thread_socket(&portid, &seq) < 0)
		Py_RETURN_NONE;
	return Py_BuildValue("(kk)", (unsigned long)portid, (unsigned long)seq);
}

/* Private: requests asked again since start, by reason (tests, reports). */
static PyObject *m_retries(PyObject *m, PyObject *unused)
{
	unsigned long intr, cut;

	(void)m; (void)unused;
	netifc_linux_retries(&intr, &cut);
	return Py_BuildValue("{sksk}", "interrupted", intr, "outgrown", cut);
}
#endif

static PyMethodDef module_methods[] = {
	{"interfaces", m_interfaces, METH_NOARGS,
	 "interfaces() -> tuple[Interface, ...]: every network interface (one link dump)."},
	{"interface_by_index", m_by_index, METH_O,
	 "interface_by_index(index) -> Interface: one request for that link."},
	{"interface_by_name", m_by_name, METH_O,
	 "interface_by_name(name) -> Interface: one request for that link."},
	{"interface_addrs", m_interface_addrs, METH_NOARGS,
	 "interface_addrs() -> tuple[Addr, ...]: every interface's unicast addresses."},
	{"_snapshot", m_snapshot, METH_VARARGS, NULL},
	{"_interface", m_make_interface, METH_VARARGS, NULL},
	{"_addr", m_make_addr, METH_VARARGS, NULL},
	{"_register", m_register, METH_VARARGS, NULL},
	{"_backend", m_backend, METH_NOARGS, NULL},
	{"_set_backend", m_set_backend, METH_VARARGS, NULL},
#ifdef __linux__
	{"_floor", m_floor, METH_VARARGS, NULL},
	{"_socket_info", m_socket_info, METH_NOARGS, NULL},
	{"_retries", m_retries, METH_NOARGS, NULL},
#endif
	{NULL, NULL, 0, NULL},
};

static int module_exec(PyObject *m)
{
	modstate *st = PyModule_GetState(m);
	const char *env = getenv("NETIFC_BACKEND");

	if (set_backend(st, env) < 0)
		return -1;
	st->Interface = (PyTypeObject *)PyType_FromModuleAndSpec(m, &iface_spec, NULL);
	st->Addr = (PyTypeObject *)PyType_FromModuleAndSpec(m, &addr_spec, NULL);
	st->NoSuchInterface = PyErr_NewExceptionWithDoc(
		"netifc.NoSuchInterface", "No network interface has the index or name asked for.",
		PyExc_LookupError, NULL);
	if (!st->Interface || !st->Addr || !st->NoSuchInterface)
		return -1;
	if (PyModule_AddObject(m, "Interface", Py_NewRef(st->Interface)) < 0 ||
	    PyModule_AddObject(m, "Addr", Py_NewRef(st->Addr)) < 0 ||
	    PyModule_AddObject(m, "NoSuchInterface", Py_NewRef(st->NoSuchInterface)) < 0)
		return -1;
	return 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg)
{
	modstate *st = PyModule_GetState(m);

	Py_VISIT(st->Interface);
	Py_VISIT(st->Addr);
	Py_VISIT(st->NoSuchInterface);
	Py_VISIT(st->Flags);
	Py_VISIT(st->AddrFlags);
	return 0;
}

static int module_clear(PyObject *m)
{
	modstate *st = PyModule_GetState(m);

	Py_CLEAR(st->Interface);
	Py_CLEAR(st->Addr);
	Py_CLEAR(st->NoSuchInterface);
	Py_CLEAR(st->Flags);
	Py_CLEAR(st->AddrFlags);
	return 0;
}

static void module_free(void *m)
{
	module_clear((PyObject *)m);
}

static PyModuleDef_Slot module_slots[] = {
	{Py_mod_exec, module_exec},
#ifdef Py_mod_multiple_interpreters
	{Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil
	{Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
	{0, NULL},
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "netifc._netifc",
	"netifc's C core: network interfaces, addresses and groups from the kernel.",
	sizeof(modstate), module_methods, module_slots,
	module_traverse, module_clear, module_free,
};

PyMODINIT_FUNC PyInit__netifc(void)
{
	return PyModuleDef_Init(&module_def);
}
