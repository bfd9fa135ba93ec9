/*
 * python/counters.c -- link counters and link settings for Python: the immutable
 * Counters type (it holds its C record; each counter is made an int when
 * asked for), the LinkSettings struct sequence, netifc.counters() and what
 * an Interface's counters() and link_settings() ask.  Kernel I/O runs with
 * the GIL released.
 */
#include <errno.h>
#include <string.h>

#include "python/counters.h"
#ifdef __linux__
#include "netlink/ethtool.h"
#endif

typedef struct {
	PyObject_HEAD
	struct netifc_counters c;
} CountersObject;

#define COUNTERS(o) (&((CountersObject *)(o))->c)

static const char *const counter_names[NETIFC_NCOUNTERS] = {NETIFC_COUNTER_NAMES};

static PyObject *new_counters(modstate *st, const struct netifc_counters *c)
{
	CountersObject *o = PyObject_New(CountersObject, st->Counters);

	if (o)
		o->c = *c;
	return (PyObject *)o;
}

static PyObject *counters_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	(void)args;
	(void)kw;
	return netifc_record_refuse(tp, "netifc.counters()");
}

static PyObject *counter_get(PyObject *self, void *closure)
{
	const struct netifc_counters *c = COUNTERS(self);
	size_t i = (size_t)(uintptr_t)closure;

	if (i >= c->known)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(c->v[i]);
}

/* {name: value} of every counter, in the kernel's order (None: not known). */
static PyObject *counters_as_dict(PyObject *self, PyObject *unused)
{
	PyObject *d = PyDict_New(), *v;
	size_t i;

	(void)unused;
	for (i = 0; d && i < NETIFC_NCOUNTERS; i++) {
		if (!(v = counter_get(self, (void *)(uintptr_t)i)) ||
		    PyDict_SetItemString(d, counter_names[i], v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *counters_values(PyObject *self)
{
	PyObject *t = PyTuple_New(NETIFC_NCOUNTERS), *v;
	size_t i;

	for (i = 0; t && i < NETIFC_NCOUNTERS; i++) {
		if (!(v = counter_get(self, (void *)(uintptr_t)i)))
			Py_CLEAR(t);
		else
			NETIFC_TUPLE_SET(t, (Py_ssize_t)i, v);
	}
	return t;
}

static PyObject *counters_reduce(PyObject *self, PyObject *unused)
{
	PyObject *mod = PyType_GetModule(Py_TYPE(self)), *fn;

	(void)unused;
	if (!mod || !(fn = PyObject_GetAttrString(mod, "_counters")))
		return NULL;
	return Py_BuildValue("(N(iNN))", fn, COUNTERS(self)->index,
			     PyUnicode_DecodeFSDefault(COUNTERS(self)->name), counters_values(self));
}

/* The repr shows what people read first; as_dict() gives every counter. */
static const char *const counters_fields[] = {
	"index",    "ifname",     "rx_bytes",  "rx_packets", "rx_errors", "rx_dropped",
	"tx_bytes", "tx_packets", "tx_errors", "tx_dropped", NULL,
};

static PyObject *counters_repr(PyObject *self)
{
	return netifc_fields_repr(self, "Counters", counters_fields);
}

static int counters_same(PyObject *a, PyObject *b)
{
	const struct netifc_counters *x = COUNTERS(a), *y = COUNTERS(b);

	return x->index == y->index && x->known == y->known && !strcmp(x->name, y->name) &&
	       !memcmp(x->v, y->v, x->known * sizeof x->v[0]);
}

static PyObject *counters_richcompare(PyObject *a, PyObject *b, int op)
{
	return netifc_record_compare(a, b, op, counters_same);
}

static Py_hash_t counters_hash(PyObject *self)
{
	const struct netifc_counters *c = COUNTERS(self);
	uint64_t h = NETIFC_HASH_START;

	NETIFC_HASH_FIELD(&h, c->index);
	NETIFC_HASH_FIELD(&h, c->known);
	netifc_hash_add(&h, c->name, strlen(c->name) + 1);
	netifc_hash_add(&h, c->v, c->known * sizeof c->v[0]);
	return netifc_hash_end(h);
}

#define COUNTER(name, i) {name, counter_get, NULL, NULL, (void *)(uintptr_t)(i)}

static const size_t counters_name_at = offsetof(CountersObject, c.name);

static PyMemberDef counters_members[] = {
	{"index", T_INT, offsetof(CountersObject, c.index), READONLY, "Interface index (ifindex)."},
	{NULL, 0, 0, 0, NULL},
};

/* In NETIFC_COUNTER_NAMES' order: the getter finds its value by position. */
static PyGetSetDef counters_getset[] = {
	{"ifname", netifc_name_field_get, NULL,
	 "Interface name, asked of the kernel with the counters.", (void *)&counters_name_at},
	COUNTER("rx_packets", 0),
	COUNTER("tx_packets", 1),
	COUNTER("rx_bytes", 2),
	COUNTER("tx_bytes", 3),
	COUNTER("rx_errors", 4),
	COUNTER("tx_errors", 5),
	COUNTER("rx_dropped", 6),
	COUNTER("tx_dropped", 7),
	COUNTER("multicast", 8),
	COUNTER("collisions", 9),
	COUNTER("rx_length_errors", 10),
	COUNTER("rx_over_errors", 11),
	COUNTER("rx_crc_errors", 12),
	COUNTER("rx_frame_errors", 13),
	COUNTER("rx_fifo_errors", 14),
	COUNTER("rx_missed_errors", 15),
	COUNTER("tx_aborted_errors", 16),
	COUNTER("tx_carrier_errors", 17),
	COUNTER("tx_fifo_errors", 18),
	COUNTER("tx_heartbeat_errors", 19),
	COUNTER("tx_window_errors", 20),
	COUNTER("rx_compressed", 21),
	COUNTER("tx_compressed", 22),
	COUNTER("rx_nohandler", 23),
	COUNTER("rx_otherhost_dropped", 24),
	{NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef counters_methods[] = {
	{"as_dict", counters_as_dict, METH_NOARGS,
	 "as_dict($self, /)\n--\n\n"
	 "Every counter by name, in the kernel's order (None where not known)."},
	{"__reduce__", counters_reduce, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

const struct netifc_record_type netifc_counters_record = {
	"netifc.Counters",
	"A network interface's counters (struct rtnl_link_stats64's fields); "
	"immutable, hashable, equal by value.",
	sizeof(CountersObject),
	0,
	counters_new,
	NULL,
	counters_repr,
	NULL,
	counters_hash,
	counters_richcompare,
	counters_getset,
	counters_members,
	counters_methods,
};

/* ---- calls ------------------------------------------------------------ */

/* A backend without counters answers EOPNOTSUPP. */
/* A backend without counters answers EOPNOTSUPP.  With the GIL released: b is a copy. */
static int counters_call(const struct netifc_backend *b, struct netifc_call *call, int32_t index,
			 struct netifc_counters_table *t)
{
	if (!b->counters) {
		call->step = b->name;
		return -EOPNOTSUPP;
	}
	return b->counters(call, index, t);
}

static PyObject *counters_at(void *st, const void *table, size_t i)
{
	return new_counters(st, &((const struct netifc_counters_table *)table)->v[i]);
}

/* Every link's counters, in ns (NULL: the calling thread's namespace). */
PyObject *netifc_counters_all(modstate *st, struct netifc_ns *ns)
{
	struct netifc_path p = netifc_path_of(st);
	struct netifc_call call = {.opts = p.opts, .ns = ns};
	struct netifc_counters_table t = {0};
	PyObject *res;
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = counters_call(p.backend, &call, 0, &t);
	Py_END_ALLOW_THREADS
	if (r < 0)
		res = netifc_core_error(st, &call, r, NULL);
	else
		res = netifc_tuple_of(st, &t, t.n, counters_at);
	netifc_counters_free(&t);
	return res;
}

static PyObject *m_counters(PyObject *m, PyObject *unused)
{
	(void)unused;
	return netifc_counters_all(PyModule_GetState(m), NULL);
}

PyObject *netifc_counters_of(modstate *st, struct netifc_ns *ns, int32_t index, const char *name)
{
	struct netifc_path p = netifc_path_of(st);
	struct netifc_call call = {.opts = p.opts, .ns = ns};
	struct netifc_counters_table t = {0};
	PyObject *what, *res;
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = counters_call(p.backend, &call, index, &t);
	Py_END_ALLOW_THREADS
	if (r == 0 && t.n == 1 && name && strcmp(t.v[0].name, name))
		r = -ENODEV; /* another link has the index now */
	if (r == 0 && t.n == 1)
		res = new_counters(st, &t.v[0]);
	else if (r == 0)
		res = PyErr_Format(PyExc_RuntimeError, "%s gave %zu records for one link",
				   p.backend->name, t.n);
	else if (r == -ENODEV && (what = PyUnicode_DecodeFSDefault(name))) {
		res = netifc_core_error(st, &call, r, what);
		Py_DECREF(what);
	} else
		res = r == -ENODEV ? NULL : netifc_core_error(st, &call, r, NULL);
	netifc_counters_free(&t);
	return res;
}

/* A counters record as pickle makes it again: every value checked. */
static PyObject *m_make_counters(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_counters c;
	PyObject *name, *values, *raw, *v;
	long long index;
	Py_ssize_t i;
	int check;

	if (!PyArg_ParseTuple(args, "LUO!:_counters", &index, &name, &PyTuple_Type, &values))
		return NULL;
	memset(&c, 0, sizeof c);
	if (index < 1 || index > 0x7fffffff)
		return PyErr_Format(PyExc_ValueError, "index must be in 1..2147483647, not %lld",
				    index);
	if (NETIFC_TUPLE_SIZE(values) != NETIFC_NCOUNTERS)
		return PyErr_Format(PyExc_ValueError, "counters need %d values", NETIFC_NCOUNTERS);
	if ((check = netifc_name_check(name, &raw)) < 0)
		return NULL;
	if (check == NETIFC_NAME_OK)
		memcpy(c.name, NETIFC_BYTES_DATA(raw), (size_t)NETIFC_BYTES_SIZE(raw));
	Py_DECREF(raw);
	if (check != NETIFC_NAME_OK)
		return PyErr_Format(PyExc_ValueError, "invalid interface name %R", name);
	c.index = (int32_t)index;
	for (i = 0; i < NETIFC_NCOUNTERS; i++) {
		v = NETIFC_TUPLE_ITEM(values, i);
		if (v == Py_None)
			break;
		if (!PyLong_Check(v) || PyBool_Check(v))
			return PyErr_Format(PyExc_TypeError, "counter %s must be int or None",
					    counter_names[i]);
		c.v[i] = PyLong_AsUnsignedLongLong(v);
		if (PyErr_Occurred())
			return NULL;
	}
	c.known = (uint8_t)i;
	for (; i < NETIFC_NCOUNTERS; i++)
		if (NETIFC_TUPLE_ITEM(values, i) != Py_None)
			return PyErr_Format(PyExc_ValueError,
					    "known counters must come first (None only at the end)");
	return new_counters(st, &c);
}

/* ---- link settings ------------------------------------------------------ */

static PyStructSequence_Field settings_fields[] = {
	{"speed", "Speed in Mb/s, or None when not known."},
	{"duplex", "'full', 'half', or None when not known."},
	{NULL, NULL},
};

static PyStructSequence_Desc settings_desc = {
	"netifc.LinkSettings",
	"A link's speed and duplex, as ethtool reports them.",
	settings_fields,
	2,
};

PyObject *netifc_link_settings_of(modstate *st, struct netifc_ns *ns, int32_t index,
				  const char *name)
{
#ifdef __linux__
	struct netifc_call call = {.opts = netifc_path_of(st).opts, .ns = ns};
	struct netifc_link_settings ls;
	PyObject *res;
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = netifc_link_settings(&call, index, name, &ls);
	Py_END_ALLOW_THREADS
	if (r < 0)
		return netifc_core_error(st, &call, r, NULL);
	if (ls.speed == NETIFC_SPEED_UNKNOWN && ls.duplex == NETIFC_DUPLEX_UNKNOWN)
		Py_RETURN_NONE;
	if (!(res = PyStructSequence_New(st->LinkSettings)))
		return NULL;
	NETIFC_STRUCTSEQ_SET(res, 0,
			     ls.speed == NETIFC_SPEED_UNKNOWN ? Py_NewRef(Py_None)
							      : PyLong_FromUnsignedLong(ls.speed));
	NETIFC_STRUCTSEQ_SET(
		res, 1,
		ls.duplex == NETIFC_DUPLEX_UNKNOWN
			? Py_NewRef(Py_None)
			: PyUnicode_FromString(ls.duplex == NETIFC_DUPLEX_FULL ? "full" : "half"));
	if (!NETIFC_STRUCTSEQ_ITEM(res, 0) || !NETIFC_STRUCTSEQ_ITEM(res, 1))
		Py_CLEAR(res);
	return res;
#else
	(void)st;
	(void)ns;
	(void)index;
	(void)name;
	Py_RETURN_NONE;         /* no ethtool here */
#endif
}

PyMethodDef netifc_counters_functions[] = {
	{"counters", m_counters, METH_NOARGS,
	 "counters($module, /)\n--\n\n"
	 "Every interface's counters, in kernel order (one RTM_GETSTATS dump on\n"
	 "netlink).  An interface that vanishes mid-call is left out.\n\n"
	 "Raises OSError when the kernel or the OS fails."},
	{"_counters", m_make_counters, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};

int netifc_counters_add(PyObject *m, modstate *st)
{
	PyObject *names = PyTuple_New(NETIFC_NCOUNTERS), *s;
	size_t i;

	for (i = 0; names && i < NETIFC_NCOUNTERS; i++) {
		if (!(s = PyUnicode_FromString(counter_names[i])))
			Py_CLEAR(names);
		else
			NETIFC_TUPLE_SET(names, (Py_ssize_t)i, s);
	}
	if (!names || PyModule_AddObjectRef(m, "_counter_fields", names) < 0) {
		Py_XDECREF(names);
		return -1;
	}
	Py_DECREF(names);
	if (!(st->LinkSettings = PyStructSequence_NewType(&settings_desc)))
		return -1;
	return PyModule_AddObjectRef(m, "LinkSettings", (PyObject *)st->LinkSettings);
}
