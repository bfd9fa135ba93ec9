/*
 * record.c -- what every file of the binding shares (record.h): the
 * records' machinery, written once for every record type (dealloc, the
 * refusal to be made, hash, equality, repr, tuples); the Interface and Addr
 * constructors; the checks of a lookup's argument; and the one place a core
 * error becomes an exception.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>
#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>           /* inet_ntop */
#else
#include <arpa/inet.h>
#include <sys/socket.h>
#endif

#include "python/record.h"

modstate *netifc_state_of_type(PyTypeObject *tp)
{
	return (modstate *)PyType_GetModuleState(tp);
}

/* ---- core errors --------------------------------------------------------- */

/* EBUSY: say what made every attempt fail. */
static void busy_text(const struct netifc_call *c, char *buf, size_t size)
{
	static const char *const why[] = {
		"interrupted by concurrent changes (NLM_F_DUMP_INTR)",
		"the reply outgrew the buffer",
		"the socket's queue overflowed (ENOBUFS)",
	};
	const unsigned counts[] = {c->interrupted, c->outgrown, c->overflowed};
	size_t i, at;

	at = (size_t)snprintf(buf, size, "%s: asked %d times:", c->step, NETIFC_TRIES);
	for (i = 0; i < 3 && at < size; i++)
		if (counts[i])
			at += (size_t)snprintf(buf + at, size - at, "%s %s %u times",
					       at && buf[at - 1] == ':' ? "" : ",", why[i],
					       counts[i]);
}

PyObject *netifc_closed_ns_error(void)
{
	return PyErr_Format(PyExc_ValueError, "I/O operation on a closed network namespace");
}

PyObject *netifc_core_error(modstate *st, const struct netifc_call *c, int err, PyObject *what)
{
	char msg[256];
	PyObject *args;

	if (err == -ENODEV && what) {
		PyErr_Format(st->NoSuchInterface, "no such network interface: %R", what);
		return NULL;
	}
	if (err == -ENOMEM)
		return PyErr_NoMemory();
	if (err == -EBADF && c->ns)     /* closed meanwhile by another thread */
		return netifc_closed_ns_error();
	if (err == -EBUSY)
		busy_text(c, msg, sizeof msg);
	else
		snprintf(msg, sizeof msg, "%s: %s",
			 c->step ? c->step : netifc_path_of(st).backend->name, strerror(-err));
#ifdef _WIN32
	/* OSError(errno, text, None, winerror): Python gives winerror's errno. */
	args = c->winerror ? Py_BuildValue("(isOk)", -err, msg, Py_None, c->winerror)
			   : Py_BuildValue("(is)", -err, msg);
#else
	args = Py_BuildValue("(is)", -err, msg);
#endif
	if (args) {
		PyErr_SetObject(PyExc_OSError, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* ---- arguments ----------------------------------------------------------- */

int netifc_index_arg(PyObject *arg, int32_t *index)
{
	int overflow;
	long long v;

	if (!PyLong_Check(arg) || PyBool_Check(arg)) {
		netifc_type_error(PyExc_TypeError, "interface index must be int, not %U",
				  Py_TYPE(arg));
		return -1;
	}
	v = PyLong_AsLongLongAndOverflow(arg, &overflow);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (overflow || v <= 0 || v > 0x7fffffff)
		return 0;
	*index = (int32_t)v;
	return 1;
}

int netifc_name_check(PyObject *name, PyObject **raw)
{
	Py_ssize_t n;

	*raw = NULL;
	if (!PyUnicode_Check(name)) {
		netifc_type_error(PyExc_TypeError, "interface name must be str, not %U",
				  Py_TYPE(name));
		return -1;
	}
	if (!(*raw = PyUnicode_EncodeFSDefault(name)))
		return -1;
	n = NETIFC_BYTES_SIZE(*raw);
	if (n == 0)
		return NETIFC_NAME_EMPTY;
	if ((Py_ssize_t)strlen(NETIFC_BYTES_DATA(*raw)) != n)
		return NETIFC_NAME_NUL;
	return n >= NETIFC_NAMESIZ ? NETIFC_NAME_LONG : NETIFC_NAME_OK;
}

/* Every name no link can have (empty, a NUL, too long, not encodable) is 0. */
int netifc_name_arg(PyObject *arg, PyObject **raw)
{
	int c = netifc_name_check(arg, raw);

	if (c == NETIFC_NAME_OK)
		return 1;
	if (c > 0) {
		Py_CLEAR(*raw);
		return 0;
	}
	if (!PyUnicode_Check(arg) || !PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
		return -1;
	PyErr_Clear();
	return 0;
}

/* ---- the records' machinery ---------------------------------------------- */

static int add_type(PyObject *m, PyType_Spec *spec, PyTypeObject **slot)
{
	*slot = (PyTypeObject *)PyType_FromModuleAndSpec(m, spec, NULL);
	if (!*slot)
		return -1;
	return PyModule_AddObjectRef(m, strrchr(spec->name, '.') + 1, (PyObject *)*slot);
}

int netifc_add_record_type(PyObject *m, const struct netifc_record_type *t, PyTypeObject **slot)
{
	PyType_Slot slots[12] = {
		{Py_tp_doc, (void *)t->doc},
		{Py_tp_new, t->new ? (void *)t->new : (void *)netifc_record_new},
		{Py_tp_dealloc, t->dealloc ? (void *)t->dealloc : (void *)netifc_record_dealloc},
		{Py_tp_repr, (void *)t->repr},
		{Py_tp_hash, (void *)t->hash},
		{Py_tp_richcompare, (void *)t->richcompare},
		{Py_tp_getset, t->getset},
	};
	PyType_Spec spec = {
		t->name, t->basicsize, t->itemsize, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
		slots,
	};
	int n = 7;

	if (t->str)
		slots[n++] = (PyType_Slot){Py_tp_str, (void *)t->str};
	if (t->members)
		slots[n++] = (PyType_Slot){Py_tp_members, t->members};
	if (t->methods)
		slots[n++] = (PyType_Slot){Py_tp_methods, t->methods};
	return add_type(m, &spec, slot);
}

void netifc_record_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	NETIFC_TP_FREE(tp)(self);
	Py_DECREF(tp);
}

PyObject *netifc_record_refuse(PyTypeObject *tp, const char *use)
{
	PyObject *name = netifc_type_name(tp);

	if (name) {
		PyErr_Format(PyExc_TypeError, "cannot create '%U' instances; use %s", name, use);
		Py_DECREF(name);
	}
	return NULL;
}

PyObject *netifc_record_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	(void)args;
	(void)kw;
	return netifc_record_refuse(tp, "netifc's functions");
}

PyObject *netifc_record_compare(PyObject *a, PyObject *b, int op,
				int (*same)(PyObject *, PyObject *))
{
	int eq;

	if (Py_TYPE(a) != Py_TYPE(b) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	if ((eq = same(a, b)) < 0)
		return NULL;
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

void netifc_hash_add(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 1099511628211ull;
}

Py_hash_t netifc_hash_end(uint64_t h)
{
	return (Py_hash_t)h == -1 ? -2 : (Py_hash_t)h;
}

/* "name='02:fc:00:00:00:01'" for a link-layer address, "name=''" for none:
 * text, quoted as every other text field is (bytes.hex(':') makes it). */
static PyObject *field_bytes_repr(const char *name, PyObject *v)
{
	PyObject *text = PyObject_CallMethod(v, "hex", "s", ":"), *res;

	if (!text)
		return NULL;
	res = PyUnicode_FromFormat("%s=%R", name, text);
	Py_DECREF(text);
	return res;
}

PyObject *netifc_fields_repr(PyObject *self, const char *type, const char *const *fields)
{
	PyObject *parts = PyList_New(0), *sep = NULL, *body = NULL, *res = NULL;
	size_t i;

	for (i = 0; parts && fields[i]; i++) {
		PyObject *v = PyObject_GetAttrString(self, fields[i]), *s = NULL;

		if (v && PyBytes_Check(v))
			s = field_bytes_repr(fields[i], v);
		else if (v)
			s = PyUnicode_FromFormat("%s=%R", fields[i], v);
		Py_XDECREF(v);
		if (!s || PyList_Append(parts, s) < 0) {
			Py_XDECREF(s);
			Py_CLEAR(parts);
			break;
		}
		Py_DECREF(s);
	}
	if (parts && (sep = PyUnicode_FromString(", ")) && (body = PyUnicode_Join(sep, parts)))
		res = PyUnicode_FromFormat("%s(%U)", type, body);
	Py_XDECREF(parts);
	Py_XDECREF(sep);
	Py_XDECREF(body);
	return res;
}

PyObject *netifc_str_by(PyObject *self, const char *module, const char *func)
{
	PyObject *m = PyImport_ImportModule(module), *res = NULL;

	if (m) {
		res = PyObject_CallMethod(m, func, "O", self);
		Py_DECREF(m);
	}
	return res;
}

PyObject *netifc_tuple_of(void *ctx, const void *table, size_t n, netifc_make_fn make)
{
	PyObject *tup = PyTuple_New((Py_ssize_t)n), *o;
	size_t i;

	for (i = 0; tup && i < n; i++) {
		if (!(o = make(ctx, table, i))) {
			Py_CLEAR(tup);
			break;
		}
		NETIFC_TUPLE_SET(tup, (Py_ssize_t)i, o);
	}
	return tup;
}

PyObject *netifc_ip_text(int family, const uint8_t *p)
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, p, buf, sizeof buf))
		return PyErr_SetFromErrno(PyExc_OSError);
	return PyUnicode_FromString(buf);
}

PyObject *netifc_opt_ip_text(int has, int family, const uint8_t *p)
{
	if (!has)
		Py_RETURN_NONE;
	return netifc_ip_text(family, p);
}

struct netifc_path netifc_path_of(modstate *st)
{
	struct netifc_path p;

	PyThread_acquire_lock(st->lock, WAIT_LOCK);
	p = st->path;
	PyThread_release_lock(st->lock);
	return p;
}

void netifc_register(modstate *st, const size_t *offsets, PyObject *const *objects, size_t n)
{
	PyObject *old[8], **slot;
	size_t i;

	assert(n <= sizeof old / sizeof *old);
	PyThread_acquire_lock(st->lock, WAIT_LOCK);
	for (i = 0; i < n; i++) {
		slot = (PyObject **)((char *)st + offsets[i]);
		old[i] = *slot;
		*slot = Py_NewRef(objects[i]);
	}
	PyThread_release_lock(st->lock);
	for (i = 0; i < n; i++)
		Py_XDECREF(old[i]);
}

PyObject *netifc_enum_of(modstate *st, PyObject *const *slot, unsigned long v)
{
	PyObject *members, *res;

	PyThread_acquire_lock(st->lock, WAIT_LOCK);
	members = *slot;
	Py_XINCREF(members);
	PyThread_release_lock(st->lock);
	if (!members)
		return PyLong_FromUnsignedLong(v);
	if (!PyTuple_Check(members))
		res = PyObject_CallFunction(members, "k", v);
	else if (v < (size_t)NETIFC_TUPLE_SIZE(members))
		res = Py_NewRef(NETIFC_TUPLE_ITEM(members, (Py_ssize_t)v));
	else
		res = PyLong_FromUnsignedLong(v);
	Py_DECREF(members);
	return res;
}

PyObject *netifc_enum_field_get(PyObject *self, void *closure)
{
	const struct netifc_enum_field *f = closure;
	modstate *st = netifc_state_of_type(Py_TYPE(self));
	const char *p = (const char *)self + f->offset;
	uint16_t v16;
	uint32_t v32;
	unsigned long v;

	if (f->size == 1) {
		v = *(const uint8_t *)p;
	} else if (f->size == 2) {
		memcpy(&v16, p, sizeof v16);
		v = v16;
	} else {
		memcpy(&v32, p, sizeof v32);
		v = v32;
	}
	return netifc_enum_of(st, (PyObject *const *)((const char *)st + f->members), v);
}

PyObject *netifc_name_field_get(PyObject *self, void *closure)
{
	return PyUnicode_DecodeFSDefault((const char *)self + *(const size_t *)closure);
}

/* ---- Interface and Addr records ------------------------------------------ */

PyObject *netifc_new_iface(modstate *st, const struct netifc_link *l, const char *pool)
{
	size_t n = (size_t)l->hwaddr_len + l->brd_len + l->alt_len;
	IfaceObject *o = PyObject_NewVar(IfaceObject, st->Interface, (Py_ssize_t)n);

	if (!o)
		return NULL;
	o->ns = NULL;
	o->index = l->index;
	o->mtu = l->mtu;
	o->flags = l->flags;
	o->type = l->type;
	o->operstate = l->operstate;
	o->hwaddr_len = l->hwaddr_len;
	o->brd_len = l->brd_len;
	memcpy(o->name, l->name, sizeof o->name);
	memcpy(o->data, l->hwaddr, l->hwaddr_len);
	memcpy(o->data + l->hwaddr_len, l->brd, l->brd_len);
	if (l->alt_len)
		memcpy(o->data + l->hwaddr_len + l->brd_len, pool + l->alt_off, l->alt_len);
	return (PyObject *)o;
}

#ifdef __linux__
void netifc_iface_set_ns(PyObject *iface, PyObject *ns)
{
	Py_XSETREF(IFACE(iface)->ns, Py_NewRef(ns));
}
#endif

PyObject *netifc_new_addr(modstate *st, const struct netifc_addr *a)
{
	AddrObject *o = PyObject_New(AddrObject, st->Addr);

	if (o)
		o->a = *a;
	return (PyObject *)o;
}

static PyObject *link_at(void *st, const void *table, size_t i)
{
	const struct netifc_links *t = table;

	return netifc_new_iface(st, &t->v[i], t->pool);
}

PyObject *netifc_links_tuple(modstate *st, const struct netifc_links *t)
{
	return netifc_tuple_of(st, t, t->n, link_at);
}

static PyObject *addr_at(void *st, const void *table, size_t i)
{
	return netifc_new_addr(st, &((const struct netifc_addrs *)table)->v[i]);
}

PyObject *netifc_addrs_tuple(modstate *st, const struct netifc_addrs *t)
{
	return netifc_tuple_of(st, t, t->n, addr_at);
}
