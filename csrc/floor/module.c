/*
 * floor/module.c -- netifc._floor: the kernel floor timer (floor.c) for the
 * benchmark harness, python -m netifc.bench.  Nothing else imports it.
 *
 * fresh() and kept() time the very requests of one benchmark, on a socket
 * opened for each round or on one kept for all rounds, with the GIL
 * released; each returns the mean nanoseconds of one round.
 */
#include <errno.h>
#include <string.h>

#include "floor/floor.h"
#include "python/abi.h"                /* Python.h, and the Limited API's access macros */

static const char *const op_names[] = {
	[FLOOR_LINKS] = "links",
	[FLOOR_LINK_INDEX] = "link_index",
	[FLOOR_LINK_NAME] = "link_name",
	[FLOOR_ADDRS] = "addrs",
	[FLOOR_LINK_ADDRS] = "link_addrs",
	[FLOOR_LINK_GROUPS] = "link_groups",
	[FLOOR_SNAPSHOT] = "snapshot",
	[FLOOR_ROUTES] = "routes",
	[FLOOR_ROUTE_GET] = "route_get",
	[FLOOR_COUNTERS] = "counters",
	[FLOOR_LINK_COUNTERS] = "link_counters",
};
#define N_OPS (sizeof op_names / sizeof *op_names)

/* The ops that ask about one link by index; link_name needs a name. */
static int needs_index(enum floor_op op)
{
	return op == FLOOR_LINK_INDEX || op == FLOOR_LINK_ADDRS || op == FLOOR_LINK_GROUPS ||
	       op == FLOOR_LINK_COUNTERS;
}

static int parse_op(PyObject *obj, enum floor_op *op)
{
	const char *s = PyUnicode_AsUTF8AndSize(obj, NULL);
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < N_OPS; i++)
		if (!strcmp(op_names[i], s)) {
			*op = (enum floor_op)i;
			return 0;
		}
	PyErr_Format(PyExc_ValueError,
		     "unknown floor op %R: links, link_index, link_name, addrs, "
		     "link_addrs, link_groups, snapshot, routes, route_get, counters "
		     "or link_counters",
		     obj);
	return -1;
}

/* zones, a sequence of link indexes, into a new array (*out NULL when empty). */
static int parse_zones(PyObject *zones, int32_t **out, size_t *n)
{
	PyObject *seq = PySequence_List(zones);
	Py_ssize_t i, len;
	int32_t *v = NULL;
	int r = -1;

	*out = NULL;
	*n = 0;
	if (!seq) {
		if (PyErr_ExceptionMatches(PyExc_TypeError))
			PyErr_SetString(PyExc_TypeError, "zones must be a sequence of ints");
		return -1;
	}
	len = NETIFC_LIST_SIZE(seq);
	if (len && !(v = PyMem_Calloc((size_t)len, sizeof *v))) {
		PyErr_NoMemory();
		goto done;
	}
	for (i = 0; i < len; i++) {
		PyObject *o = NETIFC_LIST_ITEM(seq, i);
		long x;

		if (!PyLong_Check(o) || PyBool_Check(o)) {
			netifc_type_error(PyExc_TypeError, "zones must be ints, not %U", Py_TYPE(o));
			goto done;
		}
		x = PyLong_AsLong(o);
		if (x == -1 && PyErr_Occurred())
			goto done;
		if (x <= 0 || x > INT32_MAX) {
			PyErr_Format(PyExc_ValueError, "zone link index %ld out of range", x);
			goto done;
		}
		v[i] = (int32_t)x;
	}
	*out = v;
	*n = (size_t)len;
	v = NULL;
	r = 0;
done:
	PyMem_Free(v);
	Py_DECREF(seq);
	return r;
}

static PyObject *run(enum floor_socket sock, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "op", "n", "index", "name", "zones", "nscheck", NULL };
	struct netifc_floor f = { .socket = sock };
	PyObject *op, *name = Py_None, *zones = NULL;
	int32_t *idx = NULL;
	double ns = 0;
	long n;
	int index = 0, nscheck = 0, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 sock == FLOOR_KEPT ? "Ul|iOO$p:kept" : "Ul|iOO$p:fresh",
					 kwlist, &op, &n, &index, &name, &zones, &nscheck))
		return NULL;
	if (parse_op(op, &f.op) < 0)
		return NULL;
	if (n <= 0)
		return PyErr_Format(PyExc_ValueError, "n must be positive, not %ld", n);
	if (needs_index(f.op) && index <= 0)
		return PyErr_Format(PyExc_ValueError, "floor op %R needs a link index > 0", op);
	if (name != Py_None) {
		Py_ssize_t len;

		if (!PyUnicode_Check(name))
			return netifc_type_error(PyExc_TypeError,
						 "name must be a str or None, not %U",
						 Py_TYPE(name));
		if (!(f.name = PyUnicode_AsUTF8AndSize(name, &len)))
			return NULL;
		if (len == 0 || strlen(f.name) != (size_t)len)
			return PyErr_Format(PyExc_ValueError, "name must be non-empty without NUL");
	}
	if (f.op == FLOOR_LINK_NAME && !f.name)
		return PyErr_Format(PyExc_ValueError, "floor op %R needs a name", op);
	if (zones && parse_zones(zones, &idx, &f.n_zones) < 0)
		return NULL;
	f.index = index;
	f.zones = idx;
	f.nscheck = nscheck;
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

static PyObject *m_fresh(PyObject *m, PyObject *args, PyObject *kw)
{
	(void)m;
	return run(FLOOR_FRESH, args, kw);
}

static PyObject *m_kept(PyObject *m, PyObject *args, PyObject *kw)
{
	(void)m;
	return run(FLOOR_KEPT, args, kw);
}

#define ARGS_DOC \
	"op is links, link_index, link_name, addrs, link_addrs, link_groups or\n" \
	"snapshot (or routes: the main table; route_get: the route to 127.0.0.1;\n" \
	"counters: every link's RTM_GETSTATS; link_counters: one link's); index\n" \
	"is the link of link_index, link_addrs, link_groups and link_counters,\n" \
	"name the link of link_name, zones the links addrs and the routes ask the\n" \
	"names of (link_addrs and link_groups also ask index's name, as netifc\n" \
	"checks an Interface's link is still its own).  nscheck: each round also reads the thread's network namespace\n" \
	"and compares it with the one the run started in, as netifc checks its\n" \
	"kept socket on every call.\n" \
	"Raises ValueError or TypeError for bad arguments, OSError when the\n" \
	"kernel refuses a request."

static PyMethodDef floor_methods[] = {
	{ "fresh", (PyCFunction)(void (*)(void))m_fresh, METH_VARARGS | METH_KEYWORDS,
	  "fresh($module, /, op, n, index=0, name=None, zones=(), *, nscheck=False)\n--\n\n"
	  "Mean ns of one round of op's requests, n rounds, each on a socket\n"
	  "opened for it.\n\n" ARGS_DOC },
	{ "kept", (PyCFunction)(void (*)(void))m_kept, METH_VARARGS | METH_KEYWORDS,
	  "kept($module, /, op, n, index=0, name=None, zones=(), *, nscheck=False)\n--\n\n"
	  "Mean ns of one round of op's requests, n rounds, all on one socket\n"
	  "with NETLINK_GET_STRICT_CHK on, opened before the clock starts.\n\n" ARGS_DOC },
	{ NULL, NULL, 0, NULL },
};

static PyModuleDef_Slot floor_slots[] = {
	NETIFC_MODULE_SLOTS_END,
};

static struct PyModuleDef floor_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "netifc._floor",
	.m_doc = "The kernel floor of netifc's benchmarks: the same requests, nothing built.",
	.m_methods = floor_methods,
	.m_slots = floor_slots,
};

PyMODINIT_FUNC PyInit__floor(void)
{
	return netifc_module_init(&floor_def);
}
