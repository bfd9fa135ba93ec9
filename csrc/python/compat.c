/*
 * python/compat.c -- netifc.compat.netifaces' answer for a link's name, in
 * C (Linux): _netifaces_ifaddresses, which module.c adds.
 *
 * The rules are the Python module's (netifc/compat/netifaces.py: _key,
 * _link_entry, _entries), where they are told and where the other backends
 * take them; this file applies the same rules to the core's records, with
 * no Addr made for each, and the tests hold both to netifaces' own
 * answers.  The link and its addresses come in one run of the netlink
 * backend (one socket, one namespace check), with the GIL released.
 */
#include "python/compat.h"

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "core/values.h"
#include "netlink/backend.h"

enum { KEY_ADDR, KEY_NETMASK, KEY_BROADCAST, KEY_PEER, NKEYS };
static const char *const key_names[NKEYS] = {"addr", "netmask", "broadcast", "peer"};

/* What a link's entries are made with. */
struct present {
	PyObject *const *keys; /* the state's interned keys */
	PyObject *other; /* "broadcast", or "peer" on a loopback or point-to-point link */
	PyObject *masks4, *masks6; /* the netmask texts by prefix length: 33 and 129 */
	PyObject *name; /* the name asked for: the zone */
	const char *raw; /* its bytes: the label of the link's own IPv4 addresses */
	PyObject *last_brd; /* the last IPv4 broadcast text, for the next of the same */
	uint8_t last_brd_ip[4];
};

/* d[key] = v; v taken (NULL: an error already set). */
static int put(PyObject *d, PyObject *key, PyObject *v)
{
	int r = v ? PyDict_SetItem(d, key, v) : -1;

	Py_XDECREF(v);
	return r;
}

/* list.append(v); v taken. */
static int append(PyObject *list, PyObject *v)
{
	int r = v ? PyList_Append(list, v) : -1;

	Py_XDECREF(v);
	return r;
}

static PyObject *hex_colon(const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char buf[NETIFC_HWADDR_MAX * 3];
	size_t i, at = 0;

	for (i = 0; i < n; i++) {
		if (i)
			buf[at++] = ':';
		buf[at++] = digits[p[i] >> 4];
		buf[at++] = digits[p[i] & 15];
	}
	return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)at);
}

/* An IPv4 address as inet_ntop writes it ("192.0.2.1"), without its printf. */
static PyObject *ip4_text(const uint8_t *p)
{
	char buf[16];
	size_t i, at = 0;

	for (i = 0; i < 4; i++) {
		if (i)
			buf[at++] = '.';
		if (p[i] >= 100)
			buf[at++] = (char)('0' + p[i] / 100);
		if (p[i] >= 10)
			buf[at++] = (char)('0' + p[i] / 10 % 10);
		buf[at++] = (char)('0' + p[i] % 10);
	}
	return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)at);
}

/* The broadcast text, the one before when the same (a link's addresses often share it). */
static PyObject *brd_text(struct present *pr, const uint8_t *ip)
{
	if (!pr->last_brd || memcmp(pr->last_brd_ip, ip, 4)) {
		Py_XSETREF(pr->last_brd, ip4_text(ip));
		memcpy(pr->last_brd_ip, ip, 4);
	}
	return pr->last_brd ? Py_NewRef(pr->last_brd) : NULL;
}

/* _link_entry: the link-layer address and broadcast, or none (0 in *entry). */
static int link_entry(const struct present *pr, const struct netifc_link *l, PyObject **entry)
{
	static const uint8_t zeros[NETIFC_HWADDR_MAX];
	PyObject *d;

	*entry = NULL;
	if (!l->brd_len)
		return 0;
	if (!(d = PyDict_New()) ||
	    put(d, pr->keys[KEY_ADDR],
		l->hwaddr_len ? hex_colon(l->hwaddr, l->hwaddr_len) : hex_colon(zeros, l->brd_len)) ||
	    put(d, pr->other, hex_colon(l->brd, l->brd_len))) {
		Py_XDECREF(d);
		return -1;
	}
	*entry = d;
	return 0;
}

/* _entries, IPv4: the broadcast, else the peer, else the address; none for 169.254/16 or 0.0.0.0. */
static PyObject *entry4(struct present *pr, const struct netifc_addr *a)
{
	static const uint8_t any[4];
	const uint8_t *other = a->has_broadcast ? a->broadcast : a->has_peer ? a->peer : a->local;
	PyObject *d = PyDict_New();

	if (!d || put(d, pr->keys[KEY_ADDR], ip4_text(a->local)) ||
	    put(d, pr->keys[KEY_NETMASK], Py_NewRef(NETIFC_TUPLE_ITEM(pr->masks4, a->prefixlen))))
		goto fail;
	if (!(a->local[0] == 169 && a->local[1] == 254) && memcmp(other, any, 4) &&
	    put(d, pr->other, other == a->broadcast ? brd_text(pr, other) : ip4_text(other)))
		goto fail;
	return d;
fail:
	Py_XDECREF(d);
	return NULL;
}

/* What _zoned6 gives a zone: link-local unicast (fe80::/10) and link-local multicast (ffx2::). */
static int zoned6(const uint8_t *p)
{
	return (p[0] == 0xfe && (p[1] & 0xc0) == 0x80) || (p[0] == 0xff && (p[1] & 0x0f) == 2);
}

static PyObject *ip6_text(const uint8_t *p, PyObject *zone)
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, p, buf, sizeof buf))
		return PyErr_SetFromErrno(PyExc_OSError);
	return zone ? PyUnicode_FromFormat("%s%%%U", buf, zone) : PyUnicode_FromString(buf);
}

/* _entries, IPv6: the address with its zone, the peer with _zoned6's. */
static PyObject *entry6(const struct present *pr, const struct netifc_addr *a)
{
	PyObject *d = PyDict_New();

	if (!d || put(d, pr->keys[KEY_ADDR], ip6_text(a->local, a->zone[0] ? pr->name : NULL)) ||
	    put(d, pr->keys[KEY_NETMASK], Py_NewRef(NETIFC_TUPLE_ITEM(pr->masks6, a->prefixlen))) ||
	    (a->has_peer &&
	     put(d, pr->other, ip6_text(a->peer, zoned6(a->peer) ? pr->name : NULL)))) {
		Py_XDECREF(d);
		return NULL;
	}
	return d;
}

/* d[family] = list; list taken (NULL: an error already set). */
static int put_family(PyObject *d, int family, PyObject *list)
{
	PyObject *key = list ? PyLong_FromLong(family) : NULL;
	int r = key ? PyDict_SetItem(d, key, list) : -1;

	Py_XDECREF(key);
	Py_XDECREF(list);
	return r;
}

/* [e]; e taken. */
static PyObject *list_of(PyObject *e)
{
	PyObject *list = PyList_New(0);

	if (list && PyList_Append(list, e) < 0)
		Py_CLEAR(list);
	Py_DECREF(e);
	return list;
}

/*
 * {AF_LINK: [...], AF_INET: [...], AF_INET6: [...]}, each family there when
 * it has an entry: the IPv4 addresses those whose label is the link's name
 * (or that have none), in the kernel's order.  AF_LINK is AF_PACKET.
 */
static PyObject *present(struct present *pr, const struct netifc_link *l,
			 const struct netifc_addrs *t)
{
	PyObject *res = PyDict_New(), *v4 = PyList_New(0), *v6 = PyList_New(0), *e = NULL;
	size_t i;
	int r = res && v4 && v6 ? link_entry(pr, l, &e) : -1;

	if (r == 0 && e)
		r = put_family(res, AF_PACKET, list_of(e));
	for (i = 0; r == 0 && i < t->n; i++) {
		const struct netifc_addr *a = &t->v[i];

		if (a->family == AF_INET6)
			r = append(v6, entry6(pr, a));
		else if (!a->label[0] || !strcmp(a->label, pr->raw))
			r = append(v4, entry4(pr, a));
	}
	if (r == 0 && NETIFC_LIST_SIZE(v4))
		r = put_family(res, AF_INET, Py_NewRef(v4));
	if (r == 0 && NETIFC_LIST_SIZE(v6))
		r = put_family(res, AF_INET6, Py_NewRef(v6));
	Py_XDECREF(v4);
	Py_XDECREF(v6);
	if (r < 0)
		Py_CLEAR(res);
	return res;
}

/*
 * _netifaces_ifaddresses(name, masks4, masks6): the answer for a link of
 * that name, asked of rtnetlink whatever the module's backend (the caller
 * chooses); None when no link has it (a label, maybe); NoSuchInterface
 * when the link went, was renamed or lost its index while it was asked
 * about.  masks4, masks6: the netmask texts by prefix length.
 */
static PyObject *m_netifaces_ifaddresses(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_call call = {.opts = netifc_path_of(st).opts};
	struct netifc_link one;
	struct netifc_links link = NETIFC_LINKS_ON(&one);
	struct netifc_addrs addrs = {0};
	struct present pr = {.keys = st->NetifacesKeys};
	PyObject *raw = NULL, *res = NULL;
	int r;

	if (!PyArg_ParseTuple(args, "UO!O!:_netifaces_ifaddresses", &pr.name, &PyTuple_Type,
			      &pr.masks4, &PyTuple_Type, &pr.masks6))
		return NULL;
	if (NETIFC_TUPLE_SIZE(pr.masks4) != 33 || NETIFC_TUPLE_SIZE(pr.masks6) != 129)
		return PyErr_Format(PyExc_ValueError,
				    "masks4 and masks6 must hold 33 and 129 texts");
	if ((r = netifc_name_arg(pr.name, &raw)) <= 0)
		return r < 0 ? NULL : Py_NewRef(Py_None);
	pr.raw = NETIFC_BYTES_DATA(raw);
	Py_BEGIN_ALLOW_THREADS
	r = netifc_nl_link_addrs(&call, pr.raw, &link, &addrs);
	Py_END_ALLOW_THREADS
	if (r == -ENODEV && !link.n) {
		res = Py_NewRef(Py_None);
	} else if (r < 0) {
		res = netifc_core_error(st, &call, r, r == -ENODEV ? pr.name : NULL);
	} else {
		pr.other = pr.keys[link.v[0].flags & (NETIFC_IFF_LOOPBACK | NETIFC_IFF_POINTOPOINT)
					   ? KEY_PEER
					   : KEY_BROADCAST];
		res = present(&pr, &link.v[0], &addrs);
	}
	Py_XDECREF(pr.last_brd);
	Py_DECREF(raw);
	netifc_links_free(&link);
	netifc_addrs_free(&addrs);
	return res;
}

PyMethodDef netifc_compat_functions[] = {
	{"_netifaces_ifaddresses", m_netifaces_ifaddresses, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};

/* The keys, interned: the same objects as the Python module's literals. */
int netifc_compat_add(PyObject *m, modstate *st)
{
	int i;

	(void)m;
	for (i = 0; i < NKEYS; i++)
		if (!(st->NetifacesKeys[i] = PyUnicode_InternFromString(key_names[i])))
			return -1;
	return 0;
}
