/*
 * python/routes.c -- routes as immutable Python objects (Route, NextHop) and the
 * module's route functions (_routes, _route_get), added to the module by
 * netifc_add_route_types().  Linux only.
 *
 * A Route holds its C record and a tuple of its next hops; a NextHop holds
 * its record.  Texts, enums and ipaddress objects are made by getters when
 * asked for.  Equality and hash use the records' bytes (zeroed where they
 * hold no field) and the next hops.
 */
#include "python/module.h"

#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <structmember.h>

#include "netlink/routes.h"

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

static PyObject *no_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	(void)args; (void)kw;
	return netifc_type_error(PyExc_TypeError,
				 "cannot create '%U' instances; use netifc's functions", tp);
}

static PyObject *ip_text(int family, const uint8_t *p)
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, p, buf, sizeof buf))
		return PyErr_SetFromErrno(PyExc_OSError);
	return PyUnicode_FromString(buf);
}

static PyObject *gateway_text(int family, const uint8_t *p)
{
	if (!family)
		Py_RETURN_NONE;
	return ip_text(family, p);
}

static Py_hash_t bytes_hash(const void *p, size_t n, Py_hash_t more)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull ^ (uint64_t)more;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return (Py_hash_t)h == -1 ? -2 : (Py_hash_t)h;
}

/* "Type(field=repr, ...)": each field as its attribute returns it. */
static PyObject *fields_repr(PyObject *self, const char *type, const char *const *fields)
{
	PyObject *res = PyUnicode_FromFormat("%s(", type);
	size_t i;

	for (i = 0; res && fields[i]; i++) {
		PyObject *v = PyObject_GetAttrString(self, fields[i]);

		if (!v)
			Py_CLEAR(res);
		else
			Py_SETREF(res, PyUnicode_FromFormat("%U%s%s=%R", res, i ? ", " : "",
							    fields[i], v));
		Py_XDECREF(v);
	}
	if (res)
		Py_SETREF(res, PyUnicode_FromFormat("%U)", res));
	return res;
}

/* ---- NextHop ----------------------------------------------------------- */

static void hop_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	NETIFC_TP_FREE(tp)(self);
	Py_DECREF(tp);
}

static PyObject *hop_gateway(PyObject *self, void *c) { (void)c; return gateway_text(HOP(self)->gw_family, HOP(self)->gateway); }
static PyObject *hop_ifname(PyObject *self, void *c) { (void)c; return PyUnicode_DecodeFSDefault(HOP(self)->name); }

static PyObject *hop_flags(PyObject *self, void *c)
{
	(void)c;
	return netifc_enum(netifc_state_of_type(Py_TYPE(self))->RouteFlags, HOP(self)->flags);
}

static const char *const hop_fields[] = { "gateway", "index", "ifname", "weight", "flags", NULL };

static PyObject *hop_repr(PyObject *self)
{
	return fields_repr(self, "NextHop", hop_fields);
}

static PyObject *hop_richcompare(PyObject *a, PyObject *b, int op)
{
	int eq;

	if (Py_TYPE(a) != Py_TYPE(b) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	eq = !memcmp(HOP(a), HOP(b), sizeof *HOP(a));
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t hop_hash(PyObject *self)
{
	return bytes_hash(HOP(self), sizeof *HOP(self), 0);
}

static PyMemberDef hop_members[] = {
	{"index", T_INT, offsetof(NextHopObject, h.index), READONLY, "Output interface index; 0 when none."},
	{"weight", T_USHORT, offsetof(NextHopObject, h.weight), READONLY, "Weight (rtnh_hops + 1)."},
	{NULL, 0, 0, 0, NULL},
};

static PyGetSetDef hop_getset[] = {
	{"gateway", hop_gateway, NULL, "Gateway address as text; None when none.", NULL},
	{"flags", hop_flags, NULL, "netifc.RouteFlags: RTNH_F_* (dead, onlink, linkdown, ...).", NULL},
	{"ifname", hop_ifname, NULL, "Output interface name; '' when none or gone.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot hop_slots[] = {
	{Py_tp_doc, "One next hop of a multipath route; immutable, hashable, equal by value."},
	{Py_tp_new, no_new},
	{Py_tp_dealloc, hop_dealloc},
	{Py_tp_repr, hop_repr},
	{Py_tp_hash, hop_hash},
	{Py_tp_richcompare, hop_richcompare},
	{Py_tp_members, hop_members},
	{Py_tp_getset, hop_getset},
	{0, NULL},
};

static PyType_Spec hop_spec = {
	"netifc.NextHop", sizeof(NextHopObject), 0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, hop_slots,
};

/* ---- Route ------------------------------------------------------------- */

static void route_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	Py_XDECREF(((RouteObject *)self)->nexthops);
	NETIFC_TP_FREE(tp)(self);
	Py_DECREF(tp);
}

static PyObject *new_hops(modstate *st, const struct netifc_routes *t, const struct netifc_route *rt)
{
	PyObject *tup = PyTuple_New(rt->nh_n);
	NextHopObject *o;
	uint32_t i;

	for (i = 0; tup && i < rt->nh_n; i++) {
		if (!(o = PyObject_New(NextHopObject, st->NextHop))) {
			Py_CLEAR(tup);
			break;
		}
		memcpy(&o->h, &t->nh[rt->nh_off + i], sizeof o->h);
		NETIFC_TUPLE_SET(tup, i, (PyObject *)o);
	}
	return tup;
}

static PyObject *new_route(modstate *st, const struct netifc_routes *t, size_t i)
{
	PyObject *hops = new_hops(st, t, &t->v[i]);
	RouteObject *o;

	if (!hops)
		return NULL;
	if (!(o = PyObject_New(RouteObject, st->Route))) {
		Py_DECREF(hops);
		return NULL;
	}
	memcpy(&o->r, &t->v[i], sizeof o->r);
	o->r.nh_off = 0;        /* where the table kept them: no field of the route */
	o->nexthops = hops;
	return (PyObject *)o;
}

static PyObject *routes_tuple(modstate *st, const struct netifc_routes *t)
{
	PyObject *tup = PyTuple_New((Py_ssize_t)t->n), *o;
	size_t i;

	for (i = 0; tup && i < t->n; i++) {
		if (!(o = new_route(st, t, i))) {
			Py_CLEAR(tup);
			break;
		}
		NETIFC_TUPLE_SET(tup, (Py_ssize_t)i, o);
	}
	return tup;
}

static PyObject *route_family(PyObject *self, void *c)
{
	(void)c;
	return netifc_enum(netifc_state_of_type(Py_TYPE(self))->RouteFamilies, ROUTE(self)->family);
}

static PyObject *route_type(PyObject *self, void *c)
{
	(void)c;
	return netifc_enum(netifc_state_of_type(Py_TYPE(self))->RouteTypes, ROUTE(self)->type);
}

static PyObject *route_protocol(PyObject *self, void *c)
{
	(void)c;
	return netifc_enum(netifc_state_of_type(Py_TYPE(self))->Protocols, ROUTE(self)->protocol);
}

static PyObject *route_scope(PyObject *self, void *c)
{
	(void)c;
	return netifc_enum(netifc_state_of_type(Py_TYPE(self))->Scopes, ROUTE(self)->scope);
}

static PyObject *route_flags(PyObject *self, void *c)
{
	(void)c;
	return netifc_enum(netifc_state_of_type(Py_TYPE(self))->RouteFlags, ROUTE(self)->flags);
}

/* "192.0.2.0/24", "::/0": the network text ipaddress gives. */
static PyObject *route_destination(PyObject *self, void *c)
{
	const struct netifc_route *r = ROUTE(self);
	PyObject *ip = ip_text(r->family, r->dst), *res;

	(void)c;
	if (!ip)
		return NULL;
	res = PyUnicode_FromFormat("%U/%d", ip, r->prefixlen);
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

static PyObject *route_gateway(PyObject *self, void *c) { (void)c; return gateway_text(ROUTE(self)->gw_family, ROUTE(self)->gateway); }
static PyObject *route_ifname(PyObject *self, void *c) { (void)c; return PyUnicode_DecodeFSDefault(ROUTE(self)->name); }

static PyObject *route_prefsrc(PyObject *self, void *c)
{
	(void)c;
	if (!ROUTE(self)->has_prefsrc)
		Py_RETURN_NONE;
	return ip_text(ROUTE(self)->family, ROUTE(self)->prefsrc);
}

static PyObject *route_pref(PyObject *self, void *c)
{
	(void)c;
	if (!ROUTE(self)->has_pref)
		Py_RETURN_NONE;
	return PyLong_FromLong(ROUTE(self)->pref);
}

static const char *const route_fields[] = {
	"family", "type", "destination", "gateway", "index", "ifname", "metric", "table",
	"protocol", "scope", "prefsrc", "flags", "pref", "nexthops", NULL,
};

static PyObject *route_repr(PyObject *self)
{
	return fields_repr(self, "Route", route_fields);
}

static PyObject *route_richcompare(PyObject *a, PyObject *b, int op)
{
	int eq;

	if (Py_TYPE(a) != Py_TYPE(b) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	eq = !memcmp(ROUTE(a), ROUTE(b), sizeof *ROUTE(a));
	if (eq && (eq = PyObject_RichCompareBool(((RouteObject *)a)->nexthops,
						 ((RouteObject *)b)->nexthops, Py_EQ)) < 0)
		return NULL;
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t route_hash(PyObject *self)
{
	Py_hash_t hops = PyObject_Hash(((RouteObject *)self)->nexthops);

	return hops == -1 ? -1 : bytes_hash(ROUTE(self), sizeof *ROUTE(self), hops);
}

static PyMemberDef route_members[] = {
	{"prefixlen", T_UBYTE, offsetof(RouteObject, r.prefixlen), READONLY, "Destination prefix length."},
	{"index", T_INT, offsetof(RouteObject, r.index), READONLY, "Output interface index (RTA_OIF); 0 when none."},
	{"metric", T_UINT, offsetof(RouteObject, r.metric), READONLY, "Metric (RTA_PRIORITY); 0 when none."},
	{"table", T_UINT, offsetof(RouteObject, r.table), READONLY, "Routing table number (254 main, 255 local, ...)."},
	{"nexthops", T_OBJECT_EX, offsetof(RouteObject, nexthops), READONLY, "Multipath next hops (tuple of NextHop); () when not multipath."},
	{NULL, 0, 0, 0, NULL},
};

static PyGetSetDef route_getset[] = {
	{"family", route_family, NULL, "socket.AF_INET or socket.AF_INET6.", NULL},
	{"type", route_type, NULL, "netifc.RouteType: unicast, local, blackhole, unreachable, ...", NULL},
	{"destination", route_destination, NULL, "Destination network as text, '0.0.0.0/0' for a default route.", NULL},
	{"network", route_network, NULL, "Destination as an ipaddress network.", NULL},
	{"gateway", route_gateway, NULL, "Gateway address as text (no zone); None when none.", NULL},
	{"ifname", route_ifname, NULL, "Output interface name; '' when none or gone.", NULL},
	{"protocol", route_protocol, NULL, "netifc.RouteProtocol: RTPROT_* (kernel, boot, static, dhcp, ...).", NULL},
	{"scope", route_scope, NULL, "netifc.Scope: RT_SCOPE_* (global, link, host, ...).", NULL},
	{"flags", route_flags, NULL, "netifc.RouteFlags: RTNH_F_* (onlink, linkdown, ...) and RTM_F_* (cloned, ...).", NULL},
	{"prefsrc", route_prefsrc, NULL, "Preferred source address as text; None when none.", NULL},
	{"pref", route_pref, NULL, "IPv6 router preference (0 medium, 1 high, 3 low); None when none.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot route_slots[] = {
	{Py_tp_doc, "A route; immutable, hashable, equal by value."},
	{Py_tp_new, no_new},
	{Py_tp_dealloc, route_dealloc},
	{Py_tp_repr, route_repr},
	{Py_tp_hash, route_hash},
	{Py_tp_richcompare, route_richcompare},
	{Py_tp_members, route_members},
	{Py_tp_getset, route_getset},
	{0, NULL},
};

static PyType_Spec route_spec = {
	"netifc.Route", sizeof(RouteObject), 0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, route_slots,
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
	struct netifc_call call = { .opts = st->opts };
	struct netifc_routes t = { 0 };
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
	res = r < 0 ? netifc_core_error(st, &call, r, NULL) : routes_tuple(st, &t);
	netifc_routes_free(&t);
	return res;
}

static PyObject *m_route_get(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_call call = { .opts = st->opts };
	struct netifc_routes t = { 0 };
	const char *dst;
	Py_ssize_t n;
	int family, index, r;
	PyObject *res, *netns = Py_None;        /* a _NetNS: the route there */

	if (!PyArg_ParseTuple(args, "iy#i|O:_route_get", &family, &dst, &n, &index, &netns))
		return NULL;
	if (netns != Py_None && !(call.ns = netifc_ns_core(netns)))
		return NULL;
	if ((family != AF_INET || n != 4) && (family != AF_INET6 || n != 16))
		return PyErr_Format(PyExc_ValueError, "a destination of family %d cannot be %zd bytes",
				    family, n);
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
	modstate *st = PyModule_GetState(m);
	PyObject *types, *families, *protocols, *flags;

	if (!PyArg_ParseTuple(args, "O!O!O!O:_register_routes", &PyTuple_Type, &types,
			      &PyTuple_Type, &families, &PyTuple_Type, &protocols, &flags))
		return NULL;
	Py_XSETREF(st->RouteTypes, Py_NewRef(types));
	Py_XSETREF(st->RouteFamilies, Py_NewRef(families));
	Py_XSETREF(st->Protocols, Py_NewRef(protocols));
	Py_XSETREF(st->RouteFlags, Py_NewRef(flags));
	Py_RETURN_NONE;
}

static PyMethodDef route_functions[] = {
	{"_routes", m_routes, METH_VARARGS, NULL},
	{"_route_get", m_route_get, METH_VARARGS, NULL},
	{"_register_routes", m_register_routes, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static int add_type(PyObject *m, PyType_Spec *spec, PyTypeObject **slot)
{
	*slot = (PyTypeObject *)PyType_FromModuleAndSpec(m, spec, NULL);
	if (!*slot)
		return -1;
	return PyModule_AddObject(m, strrchr(spec->name, '.') + 1, Py_NewRef((PyObject *)*slot));
}

int netifc_add_route_types(PyObject *m, modstate *st)
{
	if (add_type(m, &hop_spec, &st->NextHop) < 0 || add_type(m, &route_spec, &st->Route) < 0)
		return -1;
	return PyModule_AddFunctions(m, route_functions);
}
