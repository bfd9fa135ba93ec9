/*
 * python/routes.c -- routes as immutable Python objects (Route, NextHop), the
 * module's route functions (_routes, _route_get) and _RouteWatch (a wait's
 * route notifications), which module.c adds.  Linux only.
 *
 * A Route holds its C record and a tuple of its next hops; a NextHop holds
 * its record.  Texts, enums and ipaddress objects are made by getters when
 * asked for.  Equality and hash use exactly the exposed fields, compared
 * one by one (an address by its family's length), and the next hops.
 */
#include "python/routes.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "netlink/routes.h"
#include "netlink/watch.h"
#include "python/netns.h"

typedef struct {
	PyObject_HEAD
	struct netifc_nexthop h;
} NextHopObject;

typedef struct {
	PyObject_HEAD
	struct netifc_route r;
	PyObject *nexthops;     /* a tuple of NextHop */
} RouteObject;

#define HOP(o) (&((NextHopObject *)(o))->h)
#define ROUTE(o) (&((RouteObject *)(o))->r)

/* An address of family (none when 0) fed to a hash, or compared. */
static void hash_ip(uint64_t *h, int family, const uint8_t *p)
{
	NETIFC_HASH_FIELD(h, family);
	netifc_hash_add(h, p, netifc_family_len(family));
}

static int same_ip(int family, const uint8_t *x, const uint8_t *y)
{
	return !memcmp(x, y, netifc_family_len(family));
}

/* ---- NextHop ----------------------------------------------------------- */

static PyObject *hop_gateway(PyObject *self, void *c)
{
	(void)c;
	return netifc_opt_ip_text(HOP(self)->gw_family, HOP(self)->gw_family, HOP(self)->gateway);
}
/* The names, read by netifc_name_field_get; the enum fields, by netifc_enum_field_get. */
static const size_t hop_name_at = offsetof(NextHopObject, h.name),
		    route_name_at = offsetof(RouteObject, r.name);
static struct netifc_enum_field hop_flags_field =
					NETIFC_ENUM_FIELD(NextHopObject, h.flags, RouteFlags),
				route_family_field =
					NETIFC_ENUM_FIELD(RouteObject, r.family, RouteFamilies),
				route_type_field =
					NETIFC_ENUM_FIELD(RouteObject, r.type, RouteTypes),
				route_protocol_field =
					NETIFC_ENUM_FIELD(RouteObject, r.protocol, Protocols),
				route_scope_field = NETIFC_ENUM_FIELD(RouteObject, r.scope, Scopes),
				route_flags_field =
					NETIFC_ENUM_FIELD(RouteObject, r.flags, RouteFlags);

static const char *const hop_fields[] = {"gateway", "index", "ifname", "weight", "flags", NULL};

static PyObject *hop_repr(PyObject *self)
{
	return netifc_fields_repr(self, "NextHop", hop_fields);
}

static int hop_same(PyObject *a, PyObject *b)
{
	const struct netifc_nexthop *x = HOP(a), *y = HOP(b);

	return x->index == y->index && x->weight == y->weight && x->flags == y->flags &&
	       x->gw_family == y->gw_family && same_ip(x->gw_family, x->gateway, y->gateway) &&
	       !strcmp(x->name, y->name);
}

static PyObject *hop_richcompare(PyObject *a, PyObject *b, int op)
{
	return netifc_record_compare(a, b, op, hop_same);
}

static Py_hash_t hop_hash(PyObject *self)
{
	const struct netifc_nexthop *o = HOP(self);
	uint64_t h = NETIFC_HASH_START;

	NETIFC_HASH_FIELD(&h, o->index);
	NETIFC_HASH_FIELD(&h, o->weight);
	NETIFC_HASH_FIELD(&h, o->flags);
	hash_ip(&h, o->gw_family, o->gateway);
	netifc_hash_add(&h, o->name, strlen(o->name) + 1);
	return netifc_hash_end(h);
}

static PyMemberDef hop_members[] = {
	{"index", T_INT, offsetof(NextHopObject, h.index), READONLY,
	 "Output interface index; 0 when none."},
	{"weight", T_USHORT, offsetof(NextHopObject, h.weight), READONLY, "Weight (rtnh_hops + 1)."},
	{NULL, 0, 0, 0, NULL},
};

static PyGetSetDef hop_getset[] = {
	{"gateway", hop_gateway, NULL, "Gateway address as text; None when none.", NULL},
	{"flags", netifc_enum_field_get, NULL,
	 "netifc.RouteFlags: RTNH_F_* (dead, onlink, linkdown, ...).", &hop_flags_field},
	{"ifname", netifc_name_field_get, NULL, "Output interface name; '' when none or gone.",
	 (void *)&hop_name_at},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct netifc_record_type netifc_hop_record = {
	"netifc.NextHop",
	"One next hop of a multipath route; immutable, hashable, equal by value.",
	sizeof(NextHopObject),
	0,
	NULL,
	NULL,
	hop_repr,
	NULL,
	hop_hash,
	hop_richcompare,
	hop_getset,
	hop_members,
	NULL,
};

/* ---- Route ------------------------------------------------------------- */

static void route_dealloc(PyObject *self)
{
	Py_CLEAR(((RouteObject *)self)->nexthops);
	netifc_record_dealloc(self);
}

/* Next hop i of an array of them. */
static PyObject *hop_at(void *st, const void *hops, size_t i)
{
	NextHopObject *o = PyObject_New(NextHopObject, ((modstate *)st)->NextHop);

	if (o)
		o->h = ((const struct netifc_nexthop *)hops)[i];
	return (PyObject *)o;
}

/* Route i of table t. */
static PyObject *new_route(void *st, const void *table, size_t i)
{
	const struct netifc_routes *t = table;
	PyObject *hops = netifc_tuple_of(st, t->nh + t->v[i].nh_off, t->v[i].nh_n, hop_at);
	RouteObject *o;

	if (!hops)
		return NULL;
	if (!(o = PyObject_New(RouteObject, ((modstate *)st)->Route))) {
		Py_DECREF(hops);
		return NULL;
	}
	o->r = t->v[i];
	o->nexthops = hops;
	return (PyObject *)o;
}

/* "192.0.2.0/24", "::/0": the network text ipaddress gives. */
static PyObject *route_destination(PyObject *self, void *c)
{
	const struct netifc_route *r = ROUTE(self);
	PyObject *ip = netifc_ip_text(r->family, r->dst), *res;

	(void)c;
	if (!ip)
		return NULL;
	res = PyUnicode_FromFormat("%U/%d", ip, r->prefixlen);
	Py_DECREF(ip);
	return res;
}

/* The source prefix ("2001:db8:7::/48", ip's "from"); None when the route has none. */
static PyObject *route_source(PyObject *self, void *c)
{
	const struct netifc_route *r = ROUTE(self);
	PyObject *ip, *res;

	(void)c;
	if (!r->has_src)
		Py_RETURN_NONE;
	if (!(ip = netifc_ip_text(r->family, r->src)))
		return NULL;
	res = PyUnicode_FromFormat("%U/%d", ip, r->src_len);
	Py_DECREF(ip);
	return res;
}

static PyObject *route_network(PyObject *self, void *c)
{
	PyObject *mod = PyImport_ImportModule("ipaddress"), *text = route_destination(self, c);
	PyObject *res = NULL;

	if (mod && text)
		res = PyObject_CallMethod(mod, "ip_network", "O", text);
	Py_XDECREF(mod);
	Py_XDECREF(text);
	return res;
}

static PyObject *route_gateway(PyObject *self, void *c)
{
	(void)c;
	return netifc_opt_ip_text(ROUTE(self)->gw_family, ROUTE(self)->gw_family,
				  ROUTE(self)->gateway);
}
static PyObject *route_prefsrc(PyObject *self, void *c)
{
	(void)c;
	return netifc_opt_ip_text(ROUTE(self)->has_prefsrc, ROUTE(self)->family,
				  ROUTE(self)->prefsrc);
}

static PyObject *route_pref(PyObject *self, void *c)
{
	(void)c;
	if (!ROUTE(self)->has_pref)
		Py_RETURN_NONE;
	return PyLong_FromLong(ROUTE(self)->pref);
}

static const char *const route_fields[] = {
	"family",  "type",   "destination", "source",   "tos",      "gateway",
	"index",   "ifname", "metric",      "table",    "protocol", "scope",
	"prefsrc", "flags",  "pref",        "nexthops", NULL,
};

static PyObject *route_repr(PyObject *self)
{
	return netifc_fields_repr(self, "Route", route_fields);
}

static PyObject *route_str(PyObject *self)
{
	return netifc_str_by(self, "netifc.render_routes", "route_text");
}

/* Every exposed field, then the next hops (-1 when their comparison fails). */
static int route_same(PyObject *a, PyObject *b)
{
	const struct netifc_route *x = ROUTE(a), *y = ROUTE(b);

	if (x->family != y->family || x->type != y->type || x->prefixlen != y->prefixlen ||
	    !same_ip(x->family, x->dst, y->dst) || x->tos != y->tos || x->has_src != y->has_src ||
	    x->src_len != y->src_len || !same_ip(x->family, x->src, y->src) ||
	    x->gw_family != y->gw_family || !same_ip(x->gw_family, x->gateway, y->gateway) ||
	    x->index != y->index || strcmp(x->name, y->name) || x->metric != y->metric ||
	    x->table != y->table || x->protocol != y->protocol || x->scope != y->scope ||
	    x->flags != y->flags || x->has_prefsrc != y->has_prefsrc ||
	    (x->has_prefsrc && !same_ip(x->family, x->prefsrc, y->prefsrc)) ||
	    x->has_pref != y->has_pref || (x->has_pref && x->pref != y->pref))
		return 0;
	return PyObject_RichCompareBool(((RouteObject *)a)->nexthops, ((RouteObject *)b)->nexthops,
					Py_EQ);
}

static PyObject *route_richcompare(PyObject *a, PyObject *b, int op)
{
	return netifc_record_compare(a, b, op, route_same);
}

static Py_hash_t route_hash(PyObject *self)
{
	const struct netifc_route *r = ROUTE(self);
	Py_hash_t hops = PyObject_Hash(((RouteObject *)self)->nexthops);
	uint64_t h = NETIFC_HASH_START;

	if (hops == -1)
		return -1;
	NETIFC_HASH_FIELD(&h, r->type);
	NETIFC_HASH_FIELD(&h, r->prefixlen);
	hash_ip(&h, r->family, r->dst);
	NETIFC_HASH_FIELD(&h, r->tos);
	NETIFC_HASH_FIELD(&h, r->has_src);
	NETIFC_HASH_FIELD(&h, r->src_len);
	netifc_hash_add(&h, r->src, netifc_family_len(r->family));
	hash_ip(&h, r->gw_family, r->gateway);
	NETIFC_HASH_FIELD(&h, r->index);
	netifc_hash_add(&h, r->name, strlen(r->name) + 1);
	NETIFC_HASH_FIELD(&h, r->metric);
	NETIFC_HASH_FIELD(&h, r->table);
	NETIFC_HASH_FIELD(&h, r->protocol);
	NETIFC_HASH_FIELD(&h, r->scope);
	NETIFC_HASH_FIELD(&h, r->flags);
	NETIFC_HASH_FIELD(&h, r->has_prefsrc);
	if (r->has_prefsrc)
		netifc_hash_add(&h, r->prefsrc, netifc_family_len(r->family));
	NETIFC_HASH_FIELD(&h, r->has_pref);
	if (r->has_pref)
		NETIFC_HASH_FIELD(&h, r->pref);
	NETIFC_HASH_FIELD(&h, hops);
	return netifc_hash_end(h);
}

static PyMemberDef route_members[] = {
	{"prefixlen", T_UBYTE, offsetof(RouteObject, r.prefixlen), READONLY,
	 "Destination prefix length."},
	{"index", T_INT, offsetof(RouteObject, r.index), READONLY,
	 "Output interface index (RTA_OIF); 0 when none."},
	{"metric", T_UINT, offsetof(RouteObject, r.metric), READONLY,
	 "Metric (RTA_PRIORITY); 0 when none."},
	{"table", T_UINT, offsetof(RouteObject, r.table), READONLY,
	 "Routing table number (254 main, 255 local, ...)."},
	{"tos", T_UBYTE, offsetof(RouteObject, r.tos), READONLY,
	 "The TOS (DS field) an IPv4 route is for (ip's tos); 0: any."},
	{"nexthops", T_OBJECT_EX, offsetof(RouteObject, nexthops), READONLY,
	 "Multipath next hops (tuple of NextHop); () when not multipath."},
	{NULL, 0, 0, 0, NULL},
};

static PyGetSetDef route_getset[] = {
	{"family", netifc_enum_field_get, NULL, "socket.AF_INET or socket.AF_INET6.",
	 &route_family_field},
	{"type", netifc_enum_field_get, NULL,
	 "netifc.RouteType: unicast, local, blackhole, unreachable, ...", &route_type_field},
	{"destination", route_destination, NULL,
	 "Destination network as text, '0.0.0.0/0' for a default route.", NULL},
	{"network", route_network, NULL, "Destination as an ipaddress network.", NULL},
	{"source", route_source, NULL,
	 "Source prefix as network text (IPv6, ip's from); None when none.", NULL},
	{"gateway", route_gateway, NULL, "Gateway address as text (no zone); None when none.", NULL},
	{"protocol", netifc_enum_field_get, NULL,
	 "netifc.RouteProtocol: RTPROT_* (kernel, boot, static, dhcp, ...).", &route_protocol_field},
	{"scope", netifc_enum_field_get, NULL,
	 "netifc.Scope: RT_SCOPE_* (global, link, host, ...).", &route_scope_field},
	{"flags", netifc_enum_field_get, NULL,
	 "netifc.RouteFlags: RTNH_F_* (onlink, linkdown, ...) and RTM_F_* (cloned, ...).",
	 &route_flags_field},
	{"ifname", netifc_name_field_get, NULL, "Output interface name; '' when none or gone.",
	 (void *)&route_name_at},
	{"prefsrc", route_prefsrc, NULL, "Preferred source address as text; None when none.", NULL},
	{"pref", route_pref, NULL,
	 "IPv6 router preference (0 medium, 1 high, 3 low); None when none.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct netifc_record_type netifc_route_record = {
	"netifc.Route",
	"A route; immutable, hashable, equal by value.",
	sizeof(RouteObject),
	0,
	NULL,
	route_dealloc,
	route_repr,
	route_str,
	route_hash,
	route_richcompare,
	route_getset,
	route_members,
	NULL,
};

/* ---- functions ------------------------------------------------------------ */

static int family_arg(int family)
{
	if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6) {
		PyErr_Format(PyExc_ValueError, "family must be AF_INET, AF_INET6 or None, not %d",
			     family);
		return -1;
	}
	return 0;
}

static PyObject *m_routes(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_call call = {.opts = netifc_path_of(st).opts};
	struct netifc_routes t = {0};
	unsigned long table;
	PyObject *res, *netns = Py_None;        /* a _NetNS: its namespace's routes */
	int family, r;

	if (!PyArg_ParseTuple(args, "ik|O:_routes", &family, &table, &netns) ||
	    family_arg(family) < 0)
		return NULL;
	if (netns != Py_None && !(call.ns = netifc_ns_core(netns)))
		return NULL;
	if (table > 0xffffffffUL)
		return PyErr_Format(PyExc_ValueError, "table %lu out of range", table);
	Py_BEGIN_ALLOW_THREADS
	r = netifc_routes_dump(&call, family, (uint32_t)table, &t);
	Py_END_ALLOW_THREADS
	res = r < 0 ? netifc_core_error(st, &call, r, NULL)
		    : netifc_tuple_of(st, &t, t.n, new_route);
	netifc_routes_free(&t);
	return res;
}

static PyObject *m_route_get(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_call call = {.opts = netifc_path_of(st).opts};
	struct netifc_routes t = {0};
	const char *dst;
	Py_ssize_t n;
	int family, index, r;
	PyObject *res, *netns = Py_None;        /* a _NetNS: the route there */

	if (!PyArg_ParseTuple(args, "iy#i|O:_route_get", &family, &dst, &n, &index, &netns))
		return NULL;
	if (netns != Py_None && !(call.ns = netifc_ns_core(netns)))
		return NULL;
	if ((family != AF_INET || n != 4) && (family != AF_INET6 || n != 16))
		return PyErr_Format(PyExc_ValueError,
				    "a destination of family %d cannot be %zd bytes", family, n);
	if (index < 0)
		return PyErr_Format(PyExc_ValueError, "invalid interface index %d", index);
	Py_BEGIN_ALLOW_THREADS
	r = netifc_route_get(&call, family, (const uint8_t *)dst, index, &t);
	Py_END_ALLOW_THREADS
	res = r < 0 ? netifc_core_error(st, &call, r, NULL) : new_route(st, &t, 0);
	netifc_routes_free(&t);
	return res;
}

static PyObject *m_register_routes(PyObject *m, PyObject *args)
{
	static const size_t at[] = {offsetof(modstate, RouteTypes),
				    offsetof(modstate, RouteFamilies),
				    offsetof(modstate, Protocols), offsetof(modstate, RouteFlags)};
	PyObject *o[4];         /* types, families, protocols, flags */

	if (!PyArg_ParseTuple(args, "O!O!O!O:_register_routes", &PyTuple_Type, &o[0], &PyTuple_Type,
			      &o[1], &PyTuple_Type, &o[2], &o[3]))
		return NULL;
	netifc_register(PyModule_GetState(m), at, o, 4);
	Py_RETURN_NONE;
}

/*
 * _RouteWatch(netns=None): a socket the kernel tells of every route change
 * (IPv4 and IPv6), made in the namespace, on the fork registry as every
 * watch is (netlink/watch.h, NL_WATCH_ROUTES): a forked child holds none.
 * Its datagrams are only signs that the routes changed (drain()).
 */
typedef struct {
	PyObject_HEAD
	struct nl_watch *w;     /* NULL only while made */
} RouteWatchObject;

#define RW(o) (((RouteWatchObject *)(o))->w)

static PyObject *rw_closed_error(void)
{
	return PyErr_Format(PyExc_ValueError, "the route watch is closed");
}

static PyObject *rw_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"netns", NULL};
	struct netifc_call call = {.step = "netlink route notification socket"};
	PyObject *netns = Py_None;      /* a _NetNS: the socket made there */
	RouteWatchObject *o;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:_RouteWatch", kwlist, &netns))
		return NULL;
	if (netns != Py_None && !(call.ns = netifc_ns_core(netns)))
		return NULL;
	if (!(o = (RouteWatchObject *)NETIFC_TP_ALLOC(tp)(tp, 0)))
		return NULL;
	if (!(o->w = malloc(sizeof *o->w))) {
		Py_DECREF(o);
		return PyErr_NoMemory();
	}
	Py_BEGIN_ALLOW_THREADS
	r = nl_watch_open(o->w, call.ns, NL_WATCH_ROUTES);
	Py_END_ALLOW_THREADS
	if (r < 0) {
		free(o->w); /* nl_watch_open undid all it did */
		o->w = NULL;
		Py_DECREF(o);
		return netifc_core_error(netifc_state_of_type(tp), &call, r, NULL);
	}
	return (PyObject *)o;
}

static void rw_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	if (RW(self)) {
		nl_watch_free(RW(self));
		free(RW(self));
	}
	NETIFC_TP_FREE(tp)(self);
	Py_DECREF(tp);
}

static PyObject *rw_fileno(PyObject *self, PyObject *unused)
{
	int fd = __atomic_load_n(&RW(self)->fd, __ATOMIC_ACQUIRE);

	(void)unused;
	return fd < 0 ? rw_closed_error() : PyLong_FromLong(fd);
}

static PyObject *rw_drain(PyObject *self, PyObject *unused)
{
	struct netifc_call call = {.step = "netlink route notifications"};
	int r;

	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	r = nl_watch_drain(RW(self));
	Py_END_ALLOW_THREADS
	if (r == -EBADF)
		return rw_closed_error();
	return r < 0 ? netifc_core_error(netifc_state_of_type(Py_TYPE(self)), &call, r, NULL)
		     : PyLong_FromLong(r);
}

static PyObject *rw_close(PyObject *self, PyObject *unused)
{
	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	nl_watch_close(RW(self));
	Py_END_ALLOW_THREADS
	Py_RETURN_NONE;
}

static PyObject *rw_closed(PyObject *self, void *c)
{
	(void)c;
	return PyBool_FromLong(__atomic_load_n(&RW(self)->fd, __ATOMIC_ACQUIRE) < 0);
}

static PyMethodDef rw_methods[] = {
	{"fileno", rw_fileno, METH_NOARGS,
	 "fileno($self, /)\n--\n\nThe socket's descriptor, to poll: readable once routes changed."},
	{"drain", rw_drain, METH_NOARGS,
	 "drain($self, /)\n--\n\nTake every notification pending: how many (0: none)."},
	{"close", rw_close, METH_NOARGS,
	 "close($self, /)\n--\n\nClose the socket (again: nothing)."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef rw_getset[] = {
	{"closed", rw_closed, NULL, "True once closed (or in a child forked since).", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot rw_slots[] = {
	{Py_tp_doc, "_RouteWatch(netns=None)\n--\n\n"
		    "A socket told of every route change (private: netifc.wait's)."},
	{Py_tp_new, rw_new},
	{Py_tp_dealloc, rw_dealloc},
	{Py_tp_methods, rw_methods},
	{Py_tp_getset, rw_getset},
	{0, NULL},
};

static PyType_Spec rw_spec = {
	"netifc._netifc._RouteWatch",
	sizeof(RouteWatchObject),
	0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	rw_slots,
};

int netifc_route_watch_add(PyObject *m, modstate *st)
{
	PyObject *tp = PyType_FromModuleAndSpec(m, &rw_spec, NULL);
	int r;

	(void)st;
	if (!tp)
		return -1;
	r = PyModule_AddObjectRef(m, "_RouteWatch", tp);
	Py_DECREF(tp);
	return r;
}

PyMethodDef netifc_routes_functions[] = {
	{"_routes", m_routes, METH_VARARGS, NULL},
	{"_route_get", m_route_get, METH_VARARGS, NULL},
	{"_register_routes", m_register_routes, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};
