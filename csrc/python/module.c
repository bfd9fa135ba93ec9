/*
 * module.c -- netifc._netifc: the one file that knows every type.  Its
 * table names each type's file and what that file adds to the module (its
 * types, in the state too, and its module functions); module.c adds them
 * all, its own functions (the calls of the caller's namespace) and
 * NoSuchInterface, and keeps the state.  What every file shares is
 * record.h's.  Kernel I/O runs with the GIL released into plain C tables;
 * the objects are built after.
 */
#include <errno.h>
#include <stddef.h>

#include "python/counters.h"
#include "python/record.h"
#include "python/records.h"
#ifdef __linux__
#include "python/compat.h"
#include "python/live.h"
#include "python/netns.h"
#include "python/routes.h"
#endif

static PyObject *m_interfaces(PyObject *m, PyObject *unused)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_path p = netifc_path_of(st);
	const struct netifc_backend *b = p.backend;
	struct netifc_call call = {.opts = p.opts};
	struct netifc_links t = {0};
	PyObject *res;
	int r;

	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	r = b->links(&call, &t);
	Py_END_ALLOW_THREADS
	res = r < 0 ? netifc_core_error(st, &call, r, NULL) : netifc_links_tuple(st, &t);
	netifc_links_free(&t);
	return res;
}

/* One link, by index (name NULL) or by name, from a backend. */
static PyObject *one_link(modstate *st, int32_t index, const char *name, PyObject *what)
{
	struct netifc_path p = netifc_path_of(st);
	const struct netifc_backend *b = p.backend;
	struct netifc_call call = {.opts = p.opts};
	struct netifc_link one;
	struct netifc_links t = NETIFC_LINKS_ON(&one);
	PyObject *res;
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = b->link(&call, index, name, &t);
	Py_END_ALLOW_THREADS
	res = r < 0 ? netifc_core_error(st, &call, r, what) : netifc_new_iface(st, &t.v[0], t.pool);
	netifc_links_free(&t);
	return res;
}

static PyObject *m_by_index(PyObject *m, PyObject *arg)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_call none = {0};
	int32_t index;
	int r = netifc_index_arg(arg, &index);

	if (r <= 0)
		return r < 0 ? NULL : netifc_core_error(st, &none, -ENODEV, arg);
	return one_link(st, index, NULL, arg);
}

static PyObject *m_by_name(PyObject *m, PyObject *arg)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_call none = {0};
	PyObject *raw, *res;
	int r = netifc_name_arg(arg, &raw);

	if (r <= 0)
		return r < 0 ? NULL : netifc_core_error(st, &none, -ENODEV, arg);
	res = one_link(st, 0, NETIFC_BYTES_DATA(raw), arg);
	Py_DECREF(raw);
	return res;
}

static int all_addrs_of(modstate *st, const struct netifc_backend *b, unsigned opts,
			enum netifc_kind kind, struct netifc_links *links,
			struct netifc_addrs *addrs)
{
	struct netifc_call call = {.opts = opts};
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = b->addrs(&call, kind, 0, NULL, links, addrs);
	Py_END_ALLOW_THREADS
	if (r < 0)
		netifc_core_error(st, &call, r, NULL);
	return r;
}

static int all_addrs(modstate *st, enum netifc_kind kind, struct netifc_links *links,
		     struct netifc_addrs *addrs)
{
	struct netifc_path p = netifc_path_of(st);

	return all_addrs_of(st, p.backend, p.opts, kind, links, addrs);
}

static PyObject *m_interface_addrs(PyObject *m, PyObject *unused)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_addrs t = {0};
	PyObject *res = NULL;

	(void)unused;
	if (all_addrs(st, NETIFC_UNICAST, NULL, &t) == 0)
		res = netifc_addrs_tuple(st, &t);
	netifc_addrs_free(&t);
	return res;
}

static PyObject *m_snapshot(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	struct netifc_links links = {0};
	struct netifc_addrs addrs = {0};
	struct netifc_path p = netifc_path_of(st);
	const struct netifc_backend *b = p.backend;
	unsigned opts = p.opts;
	PyObject *res = NULL;
	const char *name = NULL;
	int multicast = 0;

	if (!PyArg_ParseTuple(args, "|pz:_snapshot", &multicast, &name))
		return NULL;
	if (name) {             /* this backend, on its default path (live tables: netlink) */
		if (!(b = netifc_backend_find(name)))
			return PyErr_Format(PyExc_ValueError, "unknown netifc backend %R",
					    NETIFC_TUPLE_ITEM(args, 1));
		opts = 0;
	}
	if (all_addrs_of(st, b, opts, multicast ? NETIFC_MULTICAST : NETIFC_UNICAST, &links,
			 &addrs) == 0)
		res = Py_BuildValue("(NN)", netifc_links_tuple(st, &links),
				    netifc_addrs_tuple(st, &addrs));
	netifc_links_free(&links);
	netifc_addrs_free(&addrs);
	return res;
}

static PyObject *m_register(PyObject *m, PyObject *args)
{
	static const size_t at[] = {offsetof(modstate, Flags), offsetof(modstate, AddrFlags),
				    offsetof(modstate, Addr6Flags), offsetof(modstate, LinkType),
				    offsetof(modstate, Scopes)};
	PyObject *o[5];         /* flags, addr_flags, addr6_flags, link_type, scopes */

	if (!PyArg_ParseTuple(args, "OOOOO!:_register", &o[0], &o[1], &o[2], &o[3], &PyTuple_Type,
			      &o[4]))
		return NULL;
	netifc_register(PyModule_GetState(m), at, o, 5);
	Py_RETURN_NONE;
}

static PyObject *m_backend(PyObject *m, PyObject *unused)
{
	(void)unused;
	return PyUnicode_FromString(netifc_path_of(PyModule_GetState(m)).backend->name);
}

static PyObject *m_backend_names(PyObject *m, PyObject *unused)
{
	PyObject *list = PyList_New(0), *res;
	const char *name;
	size_t i;

	(void)m;
	(void)unused;
	for (i = 0; list && (name = netifc_backend_name(i)); i++) {
		PyObject *s = PyUnicode_FromString(name);

		if (!s || PyList_Append(list, s) < 0)
			Py_CLEAR(list);
		Py_XDECREF(s);
	}
	if (!list)
		return NULL;
	res = PyList_AsTuple(list);
	Py_DECREF(list);
	return res;
}

/* Private: choose a backend ("" the default) and the paths every call takes. */
static PyObject *m_set_backend(PyObject *m, PyObject *args)
{
	modstate *st = PyModule_GetState(m);
	const struct netifc_backend *b;
	unsigned int opts = 0;
	const char *name;

	if (!PyArg_ParseTuple(args, "s|I:_set_backend", &name, &opts))
		return NULL;
	if (!(b = netifc_backend_find(name)))
		return PyErr_Format(PyExc_ValueError, "unknown netifc backend %R",
				    NETIFC_TUPLE_ITEM(args, 0));
	if (opts & ~(NETIFC_NO_STRICT_CHK | NETIFC_NO_NL_MCAST4 | NETIFC_NO_NL_MCAST |
		     NETIFC_NO_ETHTOOL_NL | NETIFC_NO_WATCH_MCAST))
		return PyErr_Format(PyExc_ValueError, "unknown netifc options 0x%x", opts);
	PyThread_acquire_lock(st->lock, WAIT_LOCK);
	st->path = (struct netifc_path){b, opts};
	PyThread_release_lock(st->lock);
	Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
	{"interfaces", m_interfaces, METH_NOARGS,
	 "interfaces($module, /)\n--\n\n"
	 "Every network interface, in kernel order (one link dump).\n\n"
	 "Raises OSError when the kernel or the OS fails: its errno, and the step\n"
	 "that failed in the message (EBUSY once the request was asked 8 times)."},
	{"interface_by_index", m_by_index, METH_O,
	 "interface_by_index($module, index, /)\n--\n\n"
	 "The interface with this index (one request for that link, never a dump).\n\n"
	 "Raises TypeError unless index is an int (bool is refused);\n"
	 "NoSuchInterface when no interface has it (0 and negative numbers\n"
	 "included); OSError when the kernel or the OS fails."},
	{"interface_by_name", m_by_name, METH_O,
	 "interface_by_name($module, name, /)\n--\n\n"
	 "The interface with this name (one request for that link, never a dump).\n"
	 "Only the primary name matches, as in Go: an alternative name does not.\n\n"
	 "Raises TypeError unless name is a str; NoSuchInterface when no\n"
	 "interface has it (an empty name, one of 16 bytes or more, one holding a\n"
	 "NUL or one that cannot be encoded included); OSError when the kernel or\n"
	 "the OS fails."},
	{"interface_addrs", m_interface_addrs, METH_NOARGS,
	 "interface_addrs($module, /)\n--\n\n"
	 "Every interface's unicast addresses, in kernel order.\n\n"
	 "Raises OSError when the kernel or the OS fails."},
	{"_snapshot", m_snapshot, METH_VARARGS, NULL},
	{"_register", m_register, METH_VARARGS, NULL},
	{"_backend", m_backend, METH_NOARGS, NULL},
	{"_backend_names", m_backend_names, METH_NOARGS, NULL},
	{"_set_backend", m_set_backend, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};

/*
 * Every type, by the file that has it: a record type (and where the state
 * keeps it), or a file's add function for its other types; and the
 * module functions of that file.
 */
static const struct part {
	const struct netifc_record_type *record;
	size_t slot;
	int (*add)(PyObject *m, modstate *st);
	PyMethodDef *functions;
} parts[] = {
	{&netifc_iface_record, offsetof(modstate, Interface), NULL, NULL},
	{&netifc_addr_record, offsetof(modstate, Addr), NULL, netifc_records_functions},
	{&netifc_counters_record, offsetof(modstate, Counters), netifc_counters_add,
	 netifc_counters_functions},
#ifdef __linux__
	{&netifc_hop_record, offsetof(modstate, NextHop), NULL, NULL},
	{&netifc_route_record, offsetof(modstate, Route), netifc_route_watch_add,
	 netifc_routes_functions},
	{NULL, 0, netifc_netns_add, NULL},                     /* _NetNS */
	{NULL, 0, netifc_live_add, NULL},                      /* _Tables */
	{NULL, 0, netifc_compat_add, netifc_compat_functions},
#endif
};

static int add_part(PyObject *m, modstate *st, const struct part *p)
{
	if (p->record &&
	    netifc_add_record_type(m, p->record, (PyTypeObject **)((char *)st + p->slot)) < 0)
		return -1;
	if (p->add && p->add(m, st) < 0)
		return -1;
	return p->functions ? PyModule_AddFunctions(m, p->functions) : 0;
}

static int module_exec(PyObject *m)
{
	modstate *st = PyModule_GetState(m);
	PyObject *socket_mod = PyImport_ImportModule("socket");
	size_t i;

	st->path.backend = netifc_backend_find(NULL);
	if (!(st->lock = PyThread_allocate_lock())) {
		PyErr_NoMemory();
		return -1;
	}
	st->AddressFamily = socket_mod ? PyObject_GetAttrString(socket_mod, "AddressFamily") : NULL;
	Py_XDECREF(socket_mod);
	if (!st->AddressFamily)
		return -1;
	for (i = 0; i < sizeof parts / sizeof *parts; i++)
		if (add_part(m, st, &parts[i]) < 0)
			return -1;
	st->NoSuchInterface = PyErr_NewExceptionWithDoc(
		"netifc.NoSuchInterface", "No network interface has the index or name asked for.",
		PyExc_LookupError, NULL);
	if (!st->NoSuchInterface ||
	    PyModule_AddObjectRef(m, "NoSuchInterface", st->NoSuchInterface) < 0)
		return -1;
	return 0;
}

/* Every object the state holds. */
static const size_t held[] = {
	offsetof(modstate, Interface),        offsetof(modstate, Addr),
	offsetof(modstate, Tables),           offsetof(modstate, Counters),
	offsetof(modstate, LinkSettings),     offsetof(modstate, Route),
	offsetof(modstate, NextHop),          offsetof(modstate, RouteTypes),
	offsetof(modstate, RouteFamilies),    offsetof(modstate, NoSuchInterface),
	offsetof(modstate, AddressFamily),    offsetof(modstate, Flags),
	offsetof(modstate, AddrFlags),        offsetof(modstate, Addr6Flags),
	offsetof(modstate, LinkType),         offsetof(modstate, Scopes),
	offsetof(modstate, Protocols),        offsetof(modstate, RouteFlags),
	offsetof(modstate, NetifacesKeys[0]), offsetof(modstate, NetifacesKeys[1]),
	offsetof(modstate, NetifacesKeys[2]), offsetof(modstate, NetifacesKeys[3]),
};

static PyObject **held_at(PyObject *m, size_t i)
{
	return (PyObject **)((char *)PyModule_GetState(m) + held[i]);
}

static int module_traverse(PyObject *m, visitproc visit, void *arg)
{
	size_t i;

	for (i = 0; i < sizeof held / sizeof *held; i++)
		Py_VISIT(*held_at(m, i));
	return 0;
}

static int module_clear(PyObject *m)
{
	size_t i;

	for (i = 0; i < sizeof held / sizeof *held; i++)
		Py_CLEAR(*held_at(m, i));
	return 0;
}

static void module_free(void *m)
{
	modstate *st = PyModule_GetState((PyObject *)m);

	module_clear((PyObject *)m);
	if (st && st->lock)
		PyThread_free_lock(st->lock);
	if (st)
		st->lock = NULL;
}

static PyModuleDef_Slot module_slots[] = {
	{Py_mod_exec, module_exec},
	NETIFC_MODULE_SLOTS_END,
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "netifc._netifc",
	.m_doc = "netifc's C core: network interfaces, addresses and groups from the kernel.",
	.m_size = sizeof(modstate),
	.m_methods = module_methods,
	.m_slots = module_slots,
	.m_traverse = module_traverse,
	.m_clear = module_clear,
	.m_free = module_free,
};

PyMODINIT_FUNC PyInit__netifc(void)
{
	return netifc_module_init(&module_def);
}
