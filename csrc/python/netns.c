/*
 * python/netns.c -- netifc._netifc._NetNS (Linux): the module's calls in
 * another network namespace, for netifc.NetNS (netifc/netns.py).
 *
 * A _NetNS holds a struct netifc_ns (netns.c): the namespace's descriptor
 * and its socket, made there by a helper thread; each call sets it in its
 * struct netifc_call and the backend's socket layer does the rest.  The
 * Interfaces it returns keep it, so their addrs() ask the same namespace.
 * Only the netlink backend can look into another namespace.
 *
 * close() runs with the GIL released, so the namespace's descriptor is
 * used only under its lock (netlink/netns.c): a call checks it there and
 * fails with -EBADF (ValueError) once closed.  What is read here without
 * the lock (closed, fileno, the quick refusal) is one atomic load.
 */
#include <errno.h>
#include <string.h>

#include "netlink/netns.h"
#include "python/counters.h"
#include "python/netns.h"

typedef struct {
	PyObject_HEAD
	struct netifc_ns *ns;
} NetNSObject;

#define NS(o) (((NetNSObject *)(o))->ns)

/*
 * _NetNS(fd) copies the caller's descriptor; _NetNS(path=...) opens the
 * file itself, under the fork registry's lock (netns.h).  A failed open
 * raises OSError with the path as its filename; what fails after it, as
 * for a descriptor, without.
 */
static PyObject *ns_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"fd", "path", NULL};
	modstate *st = netifc_state_of_type(tp);
	struct netifc_call call = {.step = "network namespace (setns, netlink socket)"};
	PyObject *path = NULL, *bytes = NULL;
	const char *where = NULL;
	NetNSObject *o = NULL;
	int fd = -1, opened = 1, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|iO:_NetNS", kwlist, &fd, &path))
		return NULL;
	if (path && (!PyUnicode_FSConverter(path, &bytes) || !(where = PyBytes_AsString(bytes))))
		goto done;
	if (!path && fd < 0) {
		PyErr_Format(PyExc_ValueError, "invalid file descriptor %d", fd);
		goto done;
	}
	if (!(o = (NetNSObject *)NETIFC_TP_ALLOC(tp)(tp, 0)))
		goto done;
	Py_BEGIN_ALLOW_THREADS
	r = where ? netifc_ns_open_path(where, &o->ns, &opened) : netifc_ns_open(fd, &o->ns);
	Py_END_ALLOW_THREADS
	if (r < 0) {
		Py_CLEAR(o);
		errno = -r;
		if (opened)
			netifc_core_error(st, &call, r, NULL);
		else
			PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
	}
done:
	Py_XDECREF(bytes);
	return (PyObject *)o;
}

static void ns_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	if (NS(self))
		netifc_ns_free(NS(self));
	NETIFC_TP_FREE(tp)(self);
	Py_DECREF(tp);
}

/* The backend of path p for a call, or NULL with the exception set. */
static const struct netifc_backend *backend_for(PyObject *self, const struct netifc_path *p)
{
	if (netifc_ns_closed(NS(self))) {
		netifc_closed_ns_error();
		return NULL;
	}
	if (strcmp(p->backend->name, "netlink")) {
		PyErr_Format(PyExc_NotImplementedError,
			     "netifc: the %s backend cannot look into another network namespace"
			     " (the netlink backend can)",
			     p->backend->name);
		return NULL;
	}
	return p->backend;
}

/* 1 when open and the backend now is netlink; else 0 with the exception set. */
static int usable(PyObject *self, modstate *st)
{
	struct netifc_path p = netifc_path_of(st);

	return backend_for(self, &p) != NULL;
}

static PyObject *call_error(modstate *st, const struct netifc_call *c, int r, PyObject *what)
{
	if (r == -EBADF)        /* closed meanwhile by another thread */
		return netifc_closed_ns_error();
	return netifc_core_error(st, c, r, what);
}

/* Every Interface of tuple t keeps self: their addrs() ask this namespace. */
static PyObject *tagged(PyObject *self, PyObject *t)
{
	Py_ssize_t i;

	for (i = 0; t && i < NETIFC_TUPLE_SIZE(t); i++)
		netifc_iface_set_ns(NETIFC_TUPLE_ITEM(t, i), self);
	return t;
}

static PyObject *ns_interfaces(PyObject *self, PyObject *unused)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));
	struct netifc_path p = netifc_path_of(st);
	const struct netifc_backend *b = backend_for(self, &p);
	struct netifc_call call = {.opts = p.opts, .ns = NS(self)};
	struct netifc_links t = {0};
	PyObject *res;
	int r;

	(void)unused;
	if (!b)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = b->links(&call, &t);
	Py_END_ALLOW_THREADS
	res = r < 0 ? call_error(st, &call, r, NULL) : tagged(self, netifc_links_tuple(st, &t));
	netifc_links_free(&t);
	return res;
}

static PyObject *one_link(PyObject *self, int32_t index, const char *name, PyObject *what)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));
	struct netifc_path p = netifc_path_of(st);
	const struct netifc_backend *b = backend_for(self, &p);
	struct netifc_call call = {.opts = p.opts, .ns = NS(self)};
	struct netifc_link one;
	struct netifc_links t = NETIFC_LINKS_ON(&one);
	PyObject *res;
	int r;

	if (!b)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = b->link(&call, index, name, &t);
	Py_END_ALLOW_THREADS
	res = r < 0 ? call_error(st, &call, r, what) : netifc_new_iface(st, &t.v[0], t.pool);
	if (res)
		netifc_iface_set_ns(res, self);
	netifc_links_free(&t);
	return res;
}

/* The checks of netifc.interface_by_index and interface_by_name (module.c). */
static PyObject *ns_by_index(PyObject *self, PyObject *arg)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));
	struct netifc_call none = {0};
	int32_t index;
	int r = netifc_index_arg(arg, &index);

	if (r < 0)
		return NULL;
	if (r == 0)
		return usable(self, st) ? netifc_core_error(st, &none, -ENODEV, arg) : NULL;
	return one_link(self, index, NULL, arg);
}

static PyObject *ns_by_name(PyObject *self, PyObject *arg)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));
	struct netifc_call none = {0};
	PyObject *raw, *res;
	int r = netifc_name_arg(arg, &raw);

	if (r < 0)
		return NULL;
	if (r == 0)
		return usable(self, st) ? netifc_core_error(st, &none, -ENODEV, arg) : NULL;
	res = one_link(self, 0, NETIFC_BYTES_DATA(raw), arg);
	Py_DECREF(raw);
	return res;
}

/* Addresses or groups: of one link (index), or of all with their links (index 0). */
static int addrs_in(PyObject *self, modstate *st, enum netifc_kind kind, int32_t index,
		    const char *name, struct netifc_links *links, struct netifc_addrs *out)
{
	struct netifc_path p = netifc_path_of(st);
	const struct netifc_backend *b = backend_for(self, &p);
	struct netifc_call call = {.opts = p.opts, .ns = NS(self)};
	PyObject *what = NULL;
	int r;

	if (!b)
		return -1;
	if (index && name)
		call.opts |= NETIFC_SAME_LINK; /* an Interface's: of its link still */
	Py_BEGIN_ALLOW_THREADS
	r = b->addrs(&call, kind, index, name, links, out);
	Py_END_ALLOW_THREADS
	if (r == -ENODEV && name && !(what = PyUnicode_DecodeFSDefault(name)))
		return -1;
	if (r < 0)
		call_error(st, &call, r, what);
	Py_XDECREF(what);
	return r < 0 ? -1 : 0;
}

PyObject *netifc_ns_iface_addrs(PyObject *self, enum netifc_kind kind, int32_t index,
				const char *name)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));
	struct netifc_addrs t = {0};
	PyObject *res = NULL;

	if (addrs_in(self, st, kind, index, name, NULL, &t) == 0)
		res = netifc_addrs_tuple(st, &t);
	netifc_addrs_free(&t);
	return res;
}

static PyObject *ns_interface_addrs(PyObject *self, PyObject *unused)
{
	(void)unused;
	return netifc_ns_iface_addrs(self, NETIFC_UNICAST, 0, NULL);
}

static PyObject *ns_snapshot(PyObject *self, PyObject *args)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));
	struct netifc_links links = {0};
	struct netifc_addrs addrs = {0};
	PyObject *res = NULL;
	int multicast = 0;

	if (!PyArg_ParseTuple(args, "|p:_snapshot", &multicast))
		return NULL;
	if (addrs_in(self, st, multicast ? NETIFC_MULTICAST : NETIFC_UNICAST, 0, NULL, &links,
		     &addrs) == 0)
		res = Py_BuildValue("(NN)", tagged(self, netifc_links_tuple(st, &links)),
				    netifc_addrs_tuple(st, &addrs));
	netifc_links_free(&links);
	netifc_addrs_free(&addrs);
	return res;
}

PyObject *netifc_ns_iface_counters(PyObject *self, int32_t index, const char *name, int settings)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));

	if (!usable(self, st))
		return NULL;
	return settings ? netifc_link_settings_of(st, NS(self), index, name)
			: netifc_counters_of(st, NS(self), index, name);
}

static PyObject *ns_counters(PyObject *self, PyObject *unused)
{
	modstate *st = netifc_state_of_type(Py_TYPE(self));

	(void)unused;
	return usable(self, st) ? netifc_counters_all(st, NS(self)) : NULL;
}

int netifc_ns_check(PyObject *o)
{
	if (NETIFC_TP_DEALLOC(Py_TYPE(o)) == ns_dealloc)
		return 0;
	netifc_type_error(PyExc_TypeError, "netns must be a _NetNS, not %U", Py_TYPE(o));
	return -1;
}

/* The namespace of an open _NetNS, for another file's call; NULL and an exception else. */
struct netifc_ns *netifc_ns_core(PyObject *o)
{
	if (o == NULL || o == Py_None)
		return NULL;
	if (netifc_ns_check(o) < 0 || !usable(o, netifc_state_of_type(Py_TYPE(o))))
		return NULL;
	return NS(o);
}

struct netifc_ns *netifc_ns_of(PyObject *o)
{
	if (netifc_ns_check(o) < 0)
		return NULL;
	if (netifc_ns_closed(NS(o))) {
		netifc_closed_ns_error();
		return NULL;
	}
	return NS(o);
}

/* As a file's fileno(): the number, which a close() from another thread may end. */
static PyObject *ns_fileno(PyObject *self, PyObject *unused)
{
	int fd = __atomic_load_n(&NS(self)->fd, __ATOMIC_ACQUIRE);

	(void)unused;
	if (fd < 0)
		return netifc_closed_ns_error();
	return PyLong_FromLong(fd);
}

static PyObject *ns_close(PyObject *self, PyObject *unused)
{
	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	netifc_ns_close(NS(self));
	Py_END_ALLOW_THREADS
	Py_RETURN_NONE;
}

static PyObject *ns_closed(PyObject *self, void *c)
{
	(void)c;
	return PyBool_FromLong(netifc_ns_closed(NS(self)));
}

/* A copy of a namespace is the namespace: what an Interface's copy keeps. */
static PyObject *ns_copy(PyObject *self, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(self);
}

static PyObject *ns_reduce(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return PyErr_Format(PyExc_TypeError,
			    "cannot pickle a network namespace (a netifc.NetNS, or an Interface "
			    "read through one): it does not cross processes; open the NetNS there "
			    "and read the interface again");
}

static PyMethodDef ns_methods[] = {
	{"__copy__", ns_copy, METH_NOARGS, NULL},
	{"__deepcopy__", ns_copy, METH_O, NULL},
	{"__reduce__", ns_reduce, METH_NOARGS, NULL},
	{"interfaces", ns_interfaces, METH_NOARGS,
	 "interfaces($self, /)\n--\n\nEvery network interface of the namespace."},
	{"interface_by_index", ns_by_index, METH_O,
	 "interface_by_index($self, index, /)\n--\n\nThe namespace's interface with this index."},
	{"interface_by_name", ns_by_name, METH_O,
	 "interface_by_name($self, name, /)\n--\n\nThe namespace's interface with this name."},
	{"interface_addrs", ns_interface_addrs, METH_NOARGS,
	 "interface_addrs($self, /)\n--\n\nEvery unicast address of the namespace."},
	{"counters", ns_counters, METH_NOARGS,
	 "counters($self, /)\n--\n\nEvery interface's counters in the namespace."},
	{"_snapshot", ns_snapshot, METH_VARARGS,
	 "_snapshot($self, multicast=False, /)\n--\n\nThe namespace's links and addresses (or groups)."},
	{"fileno", ns_fileno, METH_NOARGS,
	 "fileno($self, /)\n--\n\nThe namespace's descriptor (its own duplicate)."},
	{"close", ns_close, METH_NOARGS,
	 "close($self, /)\n--\n\nClose the namespace's socket and descriptor (again: nothing)."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef ns_getset[] = {
	{"closed", ns_closed, NULL, "True once closed.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot ns_slots[] = {
	{Py_tp_doc, "Another network namespace: its descriptor and netlink socket (private)."},
	{Py_tp_new, ns_new},
	{Py_tp_dealloc, ns_dealloc},
	{Py_tp_methods, ns_methods},
	{Py_tp_getset, ns_getset},
	{0, NULL},
};

static PyType_Spec ns_spec = {
	"netifc._netifc._NetNS",
	sizeof(NetNSObject),
	0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	ns_slots,
};

int netifc_netns_add(PyObject *m, modstate *st)
{
	PyObject *tp = PyType_FromModuleAndSpec(m, &ns_spec, NULL);
	int r;

	(void)st;
	if (!tp)
		return -1;
	r = PyModule_AddObjectRef(m, "_NetNS", tp);
	Py_DECREF(tp);
	return r;
}
