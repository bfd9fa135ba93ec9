/*
 * records.c -- the core's records as immutable Python objects: the
 * Interface and Addr types, and the functions pickle rebuilds them with.
 * Their layouts and constructors, which every file of the binding uses,
 * are record.h's.
 *
 * An Addr holds its C record; an Interface the fields of its record and,
 * after them, only the bytes its link has (addresses, altnames).  Derived
 * values (strings, ipaddress objects, enums) are computed by getters when
 * asked for, never stored twice.  Equality and
 * hash use exactly the exposed fields, compared one by one: an Addr's two
 * lifetimes are left out, as they count down while the address stays the
 * same.
 */
#include <errno.h>
#include <string.h>
#ifdef _WIN32
#include <winsock2.h>           /* AF_INET6 */
#else
#include <sys/socket.h>
#endif

#include "core/values.h"
#include "python/counters.h"
#include "python/records.h"
#ifdef __linux__
#include "netlink/backend.h"
#include "python/netns.h"
#endif

#define ALTNAME_MAX 128         /* ALTIFNAMSIZ, the NUL included */

/* ---- Interface --------------------------------------------------------- */

static const char *const operstates[] = {
	"unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up",
};

/* Go's flag bits, from the kernel's IFF_* ones. */
static unsigned long go_flags(uint32_t f)
{
	return ((f & NETIFC_IFF_UP) ? 1 : 0) | ((f & NETIFC_IFF_BROADCAST) ? 2 : 0) |
	       ((f & NETIFC_IFF_LOOPBACK) ? 4 : 0) | ((f & NETIFC_IFF_POINTOPOINT) ? 8 : 0) |
	       ((f & NETIFC_IFF_MULTICAST) ? 16 : 0) | ((f & NETIFC_IFF_RUNNING) ? 32 : 0);
}

static const uint8_t *iface_brd_at(const IfaceObject *o)
{
	return o->data + o->hwaddr_len;
}

/* The altnames and their length. */
static const char *iface_alt_at(const IfaceObject *o, size_t *len)
{
	*len = (size_t)Py_SIZE(o) - o->hwaddr_len - o->brd_len;
	return (const char *)o->data + o->hwaddr_len + o->brd_len;
}

static PyObject *iface_flags(PyObject *self, void *c)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));

	(void)c;
	return netifc_enum_of(st, &st->Flags, go_flags(IFACE(self)->flags));
}

static PyObject *iface_hw(PyObject *self, void *c)
{
	(void)c;
	return PyBytes_FromStringAndSize((const char *)IFACE(self)->data, IFACE(self)->hwaddr_len);
}

static PyObject *iface_brd(PyObject *self, void *c)
{
	(void)c;
	return PyBytes_FromStringAndSize((const char *)iface_brd_at(IFACE(self)),
					 IFACE(self)->brd_len);
}

static PyObject *iface_hw_str(PyObject *self, void *c)
{
	const IfaceObject *o = IFACE(self);
	char buf[NETIFC_HWADDR_MAX * 3 + 1] = "";
	int i;

	(void)c;
	for (i = 0; i < o->hwaddr_len; i++)
		snprintf(buf + (i ? 3 * i - 1 : 0), 4, i ? ":%02x" : "%02x", o->data[i]);
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

static PyObject *iface_altnames(PyObject *self, void *c)
{
	size_t len, at = 0, n;
	const char *alt = iface_alt_at(IFACE(self), &len);
	PyObject *list = PyList_New(0), *name, *res;

	(void)c;
	while (list && at < len) {
		n = strlen(alt + at);
		if (!(name = PyUnicode_DecodeFSDefaultAndSize(alt + at, (Py_ssize_t)n)) ||
		    PyList_Append(list, name) < 0)
			Py_CLEAR(list);
		Py_XDECREF(name);
		at += n + 1;
	}
	if (!list)
		return NULL;
	res = PyList_AsTuple(list);
	Py_DECREF(list);
	return res;
}

static void iface_dealloc(PyObject *self)
{
	Py_CLEAR(IFACE(self)->ns);
	netifc_record_dealloc(self);
}

/* NoSuchInterface for the record's link, named by the record's name. */
static PyObject *gone_error(PyObject *iface, modstate *st, const struct netifc_call *call)
{
	PyObject *name = PyUnicode_DecodeFSDefault(IFACE(iface)->name);

	if (name) {
		netifc_core_error(st, call, -ENODEV, name);
		Py_DECREF(name);
	}
	return NULL;
}

/* The netlink backend checks a link's name in the same call (NETIFC_SAME_LINK). */
static int checks_name(const struct netifc_backend *b)
{
	return !strcmp(b->name, "netlink");
}

/*
 * An Interface's answer checked after it came, where the backend could not
 * check it in the same call: res when the link at the record's index still
 * has the record's name, else NoSuchInterface (the link has gone, was
 * renamed, or a new link took its index and the answer was that link's).
 * On the netlink backend one SIOCGIFNAME on the thread's socket (of the
 * record's namespace); elsewhere the backend's link request.  res: a new
 * reference or NULL, taken.
 */
#ifdef __linux__
struct name_job {
	int32_t index;
	char *name;
};

static int ask_name(struct nl_sock *s, struct netifc_call *call, void *ctx)
{
	const struct name_job *j = ctx;

	return nl_name_of(s, call, j->index, j->name);
}
#endif

static int name_now(const struct netifc_backend *b, struct netifc_call *call, int32_t index,
		    char name[NETIFC_NAMESIZ])
{
	struct netifc_link one;
	struct netifc_links t = NETIFC_LINKS_ON(&one);
	int r;
#ifdef __linux__
	struct name_job j = {index, name};

	if (checks_name(b))
		return netifc_nl_run(call, ask_name, &j);
#endif
	r = b->link(call, index, NULL, &t);
	if (r == 0)
		memcpy(name, t.v[0].name, NETIFC_NAMESIZ);
	netifc_links_free(&t);
	return r;
}

static PyObject *if_same_link(PyObject *iface, PyObject *res)
{
	modstate *st = netifc_state_of_type(Py_TYPE(iface));
	struct netifc_path p = netifc_path_of(st);
	struct netifc_call call = {.opts = p.opts};
	char now[NETIFC_NAMESIZ] = "";
	int r;

	if (!res)
		return NULL;
#ifdef __linux__
	if (IFACE(iface)->ns && !(call.ns = netifc_ns_core(IFACE(iface)->ns))) {
		Py_DECREF(res);
		return NULL;
	}
#endif
	Py_BEGIN_ALLOW_THREADS
	r = name_now(p.backend, &call, IFACE(iface)->index, now);
	Py_END_ALLOW_THREADS
	if (r == 0 && !strcmp(now, IFACE(iface)->name))
		return res;
	Py_DECREF(res);
	if (r < 0 && r != -ENODEV)
		return netifc_core_error(st, &call, r, NULL);
	return gone_error(iface, st, &call);
}

/* An Interface's addresses or groups: of its link still (NoSuchInterface if not). */
static PyObject *iface_addrs_kind(PyObject *self, enum netifc_kind kind)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));
	struct netifc_path p = netifc_path_of(st);
	const struct netifc_backend *b = p.backend;
	struct netifc_call call = {.opts = p.opts | NETIFC_SAME_LINK};
	struct netifc_addrs t = {0};
	const IfaceObject *o = IFACE(self);
	PyObject *res;
	int r;

#ifdef __linux__
	if (o->ns)
		return netifc_ns_iface_addrs(o->ns, kind, o->index, o->name);
#endif
	Py_BEGIN_ALLOW_THREADS
	r = b->addrs(&call, kind, o->index, o->name, NULL, &t);
	Py_END_ALLOW_THREADS
	if (r == -ENODEV)
		res = gone_error(self, st, &call);
	else
		res = r < 0 ? netifc_core_error(st, &call, r, NULL) : netifc_addrs_tuple(st, &t);
	netifc_addrs_free(&t);
	return checks_name(b) ? res : if_same_link(self, res);
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

static PyObject *iface_counters(PyObject *self, PyObject *unused)
{
	(void)unused;
#ifdef __linux__
	if (IFACE(self)->ns)
		return netifc_ns_iface_counters(IFACE(self)->ns, IFACE(self)->index,
						IFACE(self)->name, 0);
#endif
	/* (The counters come with the link's name: checked against the record's.) */
	return netifc_counters_of(netifc_state_of_type(Py_TYPE(self)), NULL, IFACE(self)->index,
				  IFACE(self)->name);
}

static PyObject *iface_link_settings(PyObject *self, PyObject *unused)
{
	(void)unused;
#ifdef __linux__
	if (IFACE(self)->ns)
		return if_same_link(self,
				    netifc_ns_iface_counters(IFACE(self)->ns, IFACE(self)->index,
							     IFACE(self)->name, 1));
#endif
	return if_same_link(self, netifc_link_settings_of(netifc_state_of_type(Py_TYPE(self)), NULL,
							  IFACE(self)->index, IFACE(self)->name));
}

static PyObject *iface_reduce(PyObject *self, PyObject *unused)
{
	const IfaceObject *o = IFACE(self);
	PyObject *mod = PyType_GetModule(Py_TYPE(self)), *fn;

	(void)unused;
	if (!mod || !(fn = PyObject_GetAttrString(mod, "_interface")))
		return NULL;
	/* The NetNS goes too: a copy asks the same namespace; a pickle refuses it. */
	return Py_BuildValue("(N(iNkky#iiy#NO))", fn, o->index, PyUnicode_DecodeFSDefault(o->name),
			     (unsigned long)o->mtu, (unsigned long)o->flags, (const char *)o->data,
			     (Py_ssize_t)o->hwaddr_len, (int)o->type, (int)o->operstate,
			     (const char *)iface_brd_at(o), (Py_ssize_t)o->brd_len,
			     iface_altnames(self, NULL), o->ns ? o->ns : Py_None);
}

static const char *const iface_fields[] = {
	"index",
	"name",
	"flags",
	"raw_flags",
	"mtu",
	"hardware_addr",
	"hardware_broadcast",
	"operstate",
	"link_type",
	"altnames",
	NULL,
};

static PyObject *iface_repr(PyObject *self)
{
	return netifc_fields_repr(self, "Interface", iface_fields);
}

static PyObject *iface_str(PyObject *self)
{
	return netifc_str_by(self, "netifc.render", "interface_line");
}

static int iface_same(PyObject *a, PyObject *b)
{
	const IfaceObject *x = IFACE(a), *y = IFACE(b);

	return x->index == y->index && x->mtu == y->mtu && x->flags == y->flags &&
	       x->type == y->type && x->operstate == y->operstate && !strcmp(x->name, y->name) &&
	       x->hwaddr_len == y->hwaddr_len && x->brd_len == y->brd_len &&
	       Py_SIZE(x) == Py_SIZE(y) && !memcmp(x->data, y->data, (size_t)Py_SIZE(x));
}

static Py_hash_t iface_hash(PyObject *self)
{
	const IfaceObject *o = IFACE(self);
	uint64_t h = NETIFC_HASH_START;

	NETIFC_HASH_FIELD(&h, o->index);
	NETIFC_HASH_FIELD(&h, o->mtu);
	NETIFC_HASH_FIELD(&h, o->flags);
	NETIFC_HASH_FIELD(&h, o->type);
	NETIFC_HASH_FIELD(&h, o->operstate);
	netifc_hash_add(&h, o->name, strlen(o->name) + 1);
	NETIFC_HASH_FIELD(&h, o->hwaddr_len);
	NETIFC_HASH_FIELD(&h, o->brd_len);
	netifc_hash_add(&h, o->data, (size_t)Py_SIZE(o));
	return netifc_hash_end(h);
}

static PyObject *iface_richcompare(PyObject *a, PyObject *b, int op)
{
	return netifc_record_compare(a, b, op, iface_same);
}

static const size_t iface_name_at = offsetof(IfaceObject, name);

static PyMemberDef iface_members[] = {
	{"index", T_INT, offsetof(IfaceObject, index), READONLY,
	 "Interface index (ifindex), positive."},
	{"mtu", T_UINT, offsetof(IfaceObject, mtu), READONLY, "Maximum transmission unit in bytes."},
	{"raw_flags", T_UINT, offsetof(IfaceObject, flags), READONLY,
	 "The kernel's whole IFF_* word (LOWER_UP, PROMISC, ...)."},
	{NULL, 0, 0, 0, NULL},
};

static struct netifc_enum_field iface_type_field = NETIFC_ENUM_FIELD(IfaceObject, type, LinkType);

static PyGetSetDef iface_getset[] = {
	{"name", netifc_name_field_get, NULL,
	 "Interface name (filesystem encoding, surrogateescape).", (void *)&iface_name_at},
	{"flags", iface_flags, NULL, "netifc.Flags, Go's bits: up, broadcast, loopback, ...", NULL},
	{"hardware_addr", iface_hw, NULL, "Link-layer address as bytes; b'' when none or all zero.",
	 NULL},
	{"hardware_addr_str", iface_hw_str, NULL, "Link-layer address as 'aa:bb:..'; '' when none.",
	 NULL},
	{"hardware_broadcast", iface_brd, NULL,
	 "Link-layer broadcast address as the kernel gives it; b'' when none.", NULL},
	{"operstate", iface_operstate, NULL,
	 "RFC 2863 operational state: 'up', 'down', 'unknown', ...", NULL},
	{"link_type", netifc_enum_field_get, NULL,
	 "netifc.LinkType: the ARPHRD_* link type (ether, loopback, ...).", &iface_type_field},
	{"altnames", iface_altnames, NULL,
	 "Alternative names, in the kernel's order; () when none or unknown.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef iface_methods[] = {
	{"addrs", iface_addrs, METH_NOARGS,
	 "addrs($self, /)\n--\n\n"
	 "This interface's unicast addresses, in kernel order.\n\n"
	 "Raises NoSuchInterface once it is gone; OSError (with errno) when the\n"
	 "kernel or the OS fails."},
	{"multicast_addrs", iface_maddrs, METH_NOARGS,
	 "multicast_addrs($self, /)\n--\n\n"
	 "The multicast groups this interface joined.\n\n"
	 "Raises NoSuchInterface once it is gone; OSError (with errno) when the\n"
	 "kernel or the OS fails."},
	{"counters", iface_counters, METH_NOARGS,
	 "counters($self, /)\n--\n\n"
	 "This interface's counters (one request for that link, never a dump).\n\n"
	 "Raises NoSuchInterface once it is gone; OSError when the kernel or the\n"
	 "OS fails."},
	{"link_settings", iface_link_settings, METH_NOARGS,
	 "link_settings($self, /)\n--\n\n"
	 "This interface's speed (Mb/s) and duplex as a LinkSettings, asked of\n"
	 "ethtool; None when the link cannot tell (virtual, no driver support).\n\n"
	 "Raises NoSuchInterface once it is gone; OSError when the OS fails."},
	{"__reduce__", iface_reduce, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

const struct netifc_record_type netifc_iface_record = {
	"netifc.Interface",
	"A network interface; immutable, hashable, equal by value.",
	offsetof(IfaceObject, data),
	1,
	NULL,
	iface_dealloc,
	iface_repr,
	iface_str,
	iface_hash,
	iface_richcompare,
	iface_getset,
	iface_members,
	iface_methods,
};

/* ---- Addr ------------------------------------------------------------- */

static PyObject *addr_address(PyObject *self, void *c)
{
	(void)c;
	return netifc_ip_text(ADDR(self)->family, ADDR(self)->local);
}

static PyObject *addr_peer(PyObject *self, void *c)
{
	(void)c;
	return netifc_opt_ip_text(ADDR(self)->has_peer, ADDR(self)->family, ADDR(self)->peer);
}

static PyObject *addr_broadcast(PyObject *self, void *c)
{
	(void)c;
	return netifc_opt_ip_text(ADDR(self)->has_broadcast, ADDR(self)->family,
				  ADDR(self)->broadcast);
}

/* IFA_F_SECONDARY and IFA_F_TEMPORARY share a bit: the family says which it is. */
static PyObject *addr_flags(PyObject *self, void *c)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));

	(void)c;
	return netifc_enum_of(st, ADDR(self)->family == AF_INET6 ? &st->Addr6Flags : &st->AddrFlags,
			      ADDR(self)->flags);
}

static PyObject *lifetime(const struct netifc_addr *a, uint32_t v)
{
	if (!a->has_lifetimes)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(v);
}

static PyObject *addr_preferred(PyObject *self, void *c)
{
	(void)c;
	return lifetime(ADDR(self), ADDR(self)->preferred);
}
static PyObject *addr_valid(PyObject *self, void *c)
{
	(void)c;
	return lifetime(ADDR(self), ADDR(self)->valid);
}

/* "192.0.2.1/24", "fe80::1%eth0/64": what ipaddress.ip_interface() reads back. */
static PyObject *addr_str(PyObject *self)
{
	const struct netifc_addr *a = ADDR(self);
	PyObject *ip = addr_address(self, NULL), *zone = NULL, *res = NULL;

	if (ip && (zone = PyUnicode_DecodeFSDefault(ADDR(self)->zone)))
		res = PyUnicode_GetLength(zone)
			      ? PyUnicode_FromFormat("%U%%%U/%d", ip, zone, a->prefixlen)
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
	PyObject *ip = addr_address(self, NULL),
		 *zone = PyUnicode_DecodeFSDefault(ADDR(self)->zone), *text = NULL;

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
	return Py_BuildValue(
		"(N(iy#iiNNikNNNN))", fn, a->family, (const char *)a->local, (Py_ssize_t)alen,
		a->prefixlen, a->index, opt_bytes(a->has_peer, a->peer, alen),
		opt_bytes(a->has_broadcast, a->broadcast, alen), a->scope, (unsigned long)a->flags,
		lifetime(a, a->preferred), lifetime(a, a->valid),
		PyUnicode_DecodeFSDefault(a->zone), PyUnicode_DecodeFSDefault(a->label));
}

static const char *const addr_fields[] = {
	"family", "address", "prefixlen",          "zone",           "index", "peer", "broadcast",
	"scope",  "flags",   "preferred_lifetime", "valid_lifetime", "label", NULL,
};

static PyObject *addr_repr(PyObject *self)
{
	return netifc_fields_repr(self, "Addr", addr_fields);
}

static int addr_same(PyObject *a, PyObject *b)
{
	const struct netifc_addr *x = ADDR(a), *y = ADDR(b);
	size_t alen = netifc_family_len(x->family);

	return x->family == y->family && x->index == y->index && x->flags == y->flags &&
	       x->prefixlen == y->prefixlen && x->scope == y->scope &&
	       !memcmp(x->local, y->local, alen) && x->has_peer == y->has_peer &&
	       (!x->has_peer || !memcmp(x->peer, y->peer, alen)) &&
	       x->has_broadcast == y->has_broadcast &&
	       (!x->has_broadcast || !memcmp(x->broadcast, y->broadcast, alen)) &&
	       !strcmp(x->zone, y->zone) && !strcmp(x->label, y->label);
}

static Py_hash_t addr_hash(PyObject *self)
{
	const struct netifc_addr *a = ADDR(self);
	size_t alen = netifc_family_len(a->family);
	uint64_t h = NETIFC_HASH_START;

	NETIFC_HASH_FIELD(&h, a->family);
	NETIFC_HASH_FIELD(&h, a->index);
	NETIFC_HASH_FIELD(&h, a->flags);
	NETIFC_HASH_FIELD(&h, a->prefixlen);
	NETIFC_HASH_FIELD(&h, a->scope);
	netifc_hash_add(&h, a->local, alen);
	NETIFC_HASH_FIELD(&h, a->has_peer);
	if (a->has_peer)
		netifc_hash_add(&h, a->peer, alen);
	NETIFC_HASH_FIELD(&h, a->has_broadcast);
	if (a->has_broadcast)
		netifc_hash_add(&h, a->broadcast, alen);
	netifc_hash_add(&h, a->zone, strlen(a->zone) + 1);
	netifc_hash_add(&h, a->label, strlen(a->label) + 1);
	return netifc_hash_end(h);
}

static PyObject *addr_richcompare(PyObject *a, PyObject *b, int op)
{
	return netifc_record_compare(a, b, op, addr_same);
}

static const size_t addr_zone_at = offsetof(AddrObject, a.zone),
		    addr_label_at = offsetof(AddrObject, a.label);

static PyMemberDef addr_members[] = {
	{"prefixlen", T_UBYTE, offsetof(AddrObject, a.prefixlen), READONLY,
	 "Prefix length in bits."},
	{"index", T_INT, offsetof(AddrObject, a.index), READONLY,
	 "Index of the interface the address belongs to."},
	{NULL, 0, 0, 0, NULL},
};

static struct netifc_enum_field addr_family_field =
					NETIFC_ENUM_FIELD(AddrObject, a.family, AddressFamily),
				addr_scope_field = NETIFC_ENUM_FIELD(AddrObject, a.scope, Scopes);

static PyGetSetDef addr_getset[] = {
	{"family", netifc_enum_field_get, NULL, "socket.AddressFamily: AF_INET or AF_INET6.",
	 &addr_family_field},
	{"address", addr_address, NULL, "This end's address as text, without zone.", NULL},
	{"zone", netifc_name_field_get, NULL,
	 "Interface name for IPv6 link-local unicast and link-/interface-local multicast, else ''.",
	 (void *)&addr_zone_at},
	{"peer", addr_peer, NULL, "Point-to-point peer address, or None.", NULL},
	{"label", netifc_name_field_get, NULL,
	 "IPv4 on Linux: the address's label (IFA_LABEL: the link's name, or one given as "
	 "'eth0:1'); else ''.",
	 (void *)&addr_label_at},
	{"broadcast", addr_broadcast, NULL, "IPv4 broadcast address, or None.", NULL},
	{"scope", netifc_enum_field_get, NULL,
	 "netifc.Scope: RT_SCOPE_* (global, link, host, ...).", &addr_scope_field},
	{"flags", addr_flags, NULL,
	 "The kernel's IFA_F_* bits: netifc.AddrFlags (IPv4) or netifc.Addr6Flags (IPv6).", NULL},
	{"preferred_lifetime", addr_preferred, NULL,
	 "Seconds left preferred, netifc.FOREVER, or None when unknown.", NULL},
	{"valid_lifetime", addr_valid, NULL,
	 "Seconds left valid, netifc.FOREVER, or None when unknown.", NULL},
	{"ip", addr_ip, NULL, "ipaddress.IPv4Address / IPv6Address (with scope_id).", NULL},
	{"interface", addr_interface, NULL, "ipaddress.IPv4Interface / IPv6Interface.", NULL},
	{"network", addr_network, NULL, "ipaddress.IPv4Network / IPv6Network.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef addr_methods[] = {
	{"__reduce__", addr_reduce, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

const struct netifc_record_type netifc_addr_record = {
	"netifc.Addr",
	"An interface address or multicast group; immutable, hashable, equal by value "
	"(lifetimes aside).",
	sizeof(AddrObject),
	0,
	NULL,
	NULL,
	addr_repr,
	addr_str,
	addr_hash,
	addr_richcompare,
	addr_getset,
	addr_members,
	addr_methods,
};

/* ---- rebuilding pickled records (every field checked like the parser does) */

static int check_range(long long v, long long lo, long long hi, const char *what)
{
	if (v >= lo && v <= hi)
		return 0;
	PyErr_Format(PyExc_ValueError, "%s out of range: %lld", what, v);
	return -1;
}

/* A name's bytes into out (size bytes, NUL-ended); its length, or -1. */
static Py_ssize_t name_into(PyObject *name, char *out, size_t size, int allow_empty)
{
	PyObject *raw;
	int c = netifc_name_check(name, &raw);
	Py_ssize_t n;

	if (c < 0)
		return -1;
	n = NETIFC_BYTES_SIZE(raw);
	if ((size_t)n >= size || c == NETIFC_NAME_NUL || (c == NETIFC_NAME_EMPTY && !allow_empty)) {
		Py_DECREF(raw);
		PyErr_Format(PyExc_ValueError, "invalid interface name %R", name);
		return -1;
	}
	memset(out, 0, size);
	memcpy(out, NETIFC_BYTES_DATA(raw), (size_t)n);
	Py_DECREF(raw);
	return n;
}

/* A tuple of altnames into l's table of one (pool: where they go). */
static int altnames_into(PyObject *names, struct netifc_links *t, struct netifc_link *l)
{
	char buf[ALTNAME_MAX];
	Py_ssize_t i, n;

	if (!PyTuple_Check(names)) {
		PyErr_SetString(PyExc_TypeError, "altnames must be a tuple of str");
		return -1;
	}
	for (i = 0; i < NETIFC_TUPLE_SIZE(names); i++) {
		if ((n = name_into(NETIFC_TUPLE_ITEM(names, i), buf, sizeof buf, 0)) < 0)
			return -1;
		if (netifc_links_add_altname(t, l, buf, (size_t)n) < 0) {
			PyErr_NoMemory();
			return -1;
		}
	}
	return 0;
}

static PyObject *make_interface(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	long long index, mtu, flags, type, oper;
	struct netifc_links t = {0};
	struct netifc_link *l;
	PyObject *name, *alt, *ns = Py_None, *res = NULL;
	const char *hw, *brd;
	Py_ssize_t hw_len, brd_len;

	if (!PyArg_ParseTuple(args, "LULLy#LLy#O|O:_interface", &index, &name, &mtu, &flags, &hw,
			      &hw_len, &type, &oper, &brd, &brd_len, &alt, &ns))
		return NULL;
#ifdef __linux__
	if (ns != Py_None && netifc_ns_check(ns) < 0)
		return NULL;
#else
	if (ns != Py_None)
		return PyErr_Format(PyExc_TypeError, "netns must be None here");
#endif
	if (!(l = netifc_links_push(&t))) {
		PyErr_NoMemory();
		goto out;
	}
	if (check_range(index, 1, 0x7fffffff, "index") || check_range(mtu, 0, 0xffffffffLL, "mtu") ||
	    check_range(flags, 0, 0xffffffffLL, "flags") ||
	    check_range(type, 0, 0xffff, "link_type") || check_range(oper, 0, 0xff, "operstate") ||
	    check_range(hw_len, 0, NETIFC_HWADDR_MAX, "hardware address length") ||
	    check_range(brd_len, 0, NETIFC_HWADDR_MAX, "hardware broadcast length") ||
	    name_into(name, l->name, NETIFC_NAMESIZ, 0) < 0 || altnames_into(alt, &t, l) < 0)
		goto out;
	l->index = (int32_t)index;
	l->mtu = (uint32_t)mtu;
	l->flags = (uint32_t)flags;
	l->type = (uint16_t)type;
	l->operstate = (uint8_t)oper;
	netifc_hwaddr_set(l, hw, (size_t)hw_len);
	netifc_brd_set(l, brd, (size_t)brd_len);
	res = netifc_new_iface(st, l, t.pool);
#ifdef __linux__
	if (res && ns != Py_None)
		netifc_iface_set_ns(res, ns);
#endif
out:
	netifc_links_free(&t);
	return res;
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

/* A lifetime: None (unknown) or seconds; *known is set for seconds. */
static int lifetime_into(PyObject *o, uint32_t *out, int *known, const char *what)
{
	long long v;

	if (o == Py_None)
		return 0;
	if (!PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be int or None", what);
		return -1;
	}
	v = PyLong_AsLongLong(o);
	if ((v == -1 && PyErr_Occurred()) || check_range(v, 0, 0xffffffffLL, what) < 0)
		return -1;
	*out = (uint32_t)v;
	*known = 1;
	return 0;
}

/* Whether the backends' own rules (addr.c) would give a different record. */
static int parser_would_change(const struct netifc_addr *a)
{
	struct netifc_addr b = *a;

	if (netifc_addr_needs_zone(a) && !a->zone[0])
		return 1;
	netifc_addr_finish(&b, a->zone);
	return memcmp(&b, a, sizeof b) != 0;
}

static PyObject *make_addr(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	long long family, prefixlen, index, scope, flags;
	PyObject *local, *peer, *brd, *zone, *pref, *valid, *label = NULL;
	int pref_known = 0, valid_known = 0;
	struct netifc_addr a;
	size_t alen;

	if (!PyArg_ParseTuple(args, "LSLLOOLLOOU|U:_addr", &family, &local, &prefixlen, &index,
			      &peer, &brd, &scope, &flags, &pref, &valid, &zone, &label))
		return NULL;
	memset(&a, 0, sizeof a);
	alen = netifc_family_len((int)family);
	if (!alen || family != (int)family)
		return PyErr_Format(PyExc_ValueError, "unsupported address family %lld", family);
	if (check_range(prefixlen, 0, (long long)alen * 8, "prefixlen") ||
	    check_range(index, 1, 0x7fffffff, "index") || check_range(scope, 0, 255, "scope") ||
	    check_range(flags, 0, 0xffffffffLL, "flags") ||
	    lifetime_into(pref, &a.preferred, &pref_known, "preferred_lifetime") ||
	    lifetime_into(valid, &a.valid, &valid_known, "valid_lifetime") ||
	    ip_into(local, alen, a.local, NULL) || ip_into(peer, alen, a.peer, &a.has_peer) ||
	    ip_into(brd, alen, a.broadcast, &a.has_broadcast) ||
	    name_into(zone, a.zone, NETIFC_NAMESIZ, 1) < 0 ||
	    (label && name_into(label, a.label, NETIFC_LABELSIZ, 1) < 0))
		return NULL;
	if (pref_known != valid_known)
		return PyErr_Format(PyExc_ValueError, "lifetimes must both be known or both None");
	a.has_lifetimes = (uint8_t)pref_known;
	a.family = (uint8_t)family;
	a.prefixlen = (uint8_t)prefixlen;
	a.index = (int32_t)index;
	a.scope = (uint8_t)scope;
	a.flags = (uint32_t)flags;
	if (parser_would_change(&a))
		return PyErr_Format(
			PyExc_ValueError,
			"fields no address has together (a zone only on link-local IPv6, and "
			"there always; no peer equal to the address)");
	return netifc_new_addr(st, &a);
}

PyMethodDef netifc_records_functions[] = {
	{"_interface", make_interface, METH_VARARGS, NULL},
	{"_addr", make_addr, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};
