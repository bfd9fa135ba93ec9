/*
 * watch.c -- netifc._netifc._Watch (Linux): the watch socket as a private
 * type for the Python layer's Watcher and live tables.
 *
 * read() takes every pending notification without blocking, with the GIL
 * released, and returns them in order as (kind, record) pairs: kind is
 * enum nl_event_kind (0 link added or changed, 1 link removed, 2 and 3 the
 * same for an address, 4 and 5 for a group), the record an Interface or an
 * Addr; a last pair (6, None) says events were lost, so the caller must read
 * its tables again.  An address's zone is its link's name as the batch's
 * own link events give it, else the caller's table ({index: Interface}),
 * else the kernel's now (SIOCGIFNAME).
 */
#include <errno.h>
#include <string.h>

#include "module.h"
#include "nlwatch.h"

#define WATCH_LOST 6            /* the pair that says events were lost */

typedef struct {
	PyObject_HEAD
	struct nl_watch w;
	int open;               /* nl_watch_open succeeded: nl_watch_free is owed */
} WatchObject;

#define WATCH(o) ((WatchObject *)(o))

static PyObject *watch_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	modstate *st = netifc_state_of_type(tp);
	struct netifc_call call = { .step = "netlink watch socket" };
	WatchObject *o;
	int r;

	if (PyTuple_GET_SIZE(args) || (kw && PyDict_GET_SIZE(kw)))
		return PyErr_Format(PyExc_TypeError, "%s() takes no arguments", tp->tp_name);
	if (!(o = (WatchObject *)tp->tp_alloc(tp, 0)))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = nl_watch_open(&o->w);
	Py_END_ALLOW_THREADS
	if (r < 0) {
		Py_DECREF(o);
		return netifc_core_error(st, &call, r, NULL);
	}
	o->open = 1;
	return (PyObject *)o;
}

static void watch_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	if (WATCH(self)->open)
		nl_watch_free(&WATCH(self)->w);
	tp->tp_free(self);
	Py_DECREF(tp);
}

static PyObject *closed_error(void)
{
	return PyErr_Format(PyExc_ValueError, "I/O operation on a closed netlink watch");
}

/* The zone's name for an address of link `index`: into name; 0 when none is known. */
static int zone_name(WatchObject *o, modstate *st, PyObject *seen, PyObject *links,
		     int32_t index, char *name)
{
	PyObject *key = PyLong_FromLong(index), *iface = NULL;
	const char *n = NULL;
	int r;

	if (!key)
		return -1;
	if (seen && (iface = PyDict_GetItemWithError(seen, key)) == NULL && PyErr_Occurred())
		goto fail;
	if (!iface && links && links != Py_None &&
	    (iface = PyDict_GetItemWithError(links, key)) == NULL && PyErr_Occurred())
		goto fail;
	Py_DECREF(key);
	if (iface && (n = netifc_iface_name(st, iface))) {
		strcpy(name, n);
		return 1;
	}
	if (iface)
		return 0;               /* removed in this batch: Py_None */
	Py_BEGIN_ALLOW_THREADS
	r = nl_watch_name(&o->w, index, name);
	Py_END_ALLOW_THREADS
	return r == 0;
fail:
	Py_DECREF(key);
	return -1;
}

/* The record of event e: an Interface (remembered in seen) or an Addr. */
static PyObject *record_of(WatchObject *o, modstate *st, struct nl_events *ev,
			   const struct nl_event *e, PyObject **seen, PyObject *links)
{
	char name[NETIFC_NAMESIZ] = "";
	struct netifc_addr *a;
	PyObject *rec, *key;
	int r;

	if (e->kind == NL_EV_LINK_NEW || e->kind == NL_EV_LINK_DEL) {
		rec = netifc_new_iface(st, &ev->links.v[e->at], ev->links.pool);
		if (!rec || (!*seen && !(*seen = PyDict_New())))
			goto fail;
		if (!(key = PyLong_FromLong(ev->links.v[e->at].index)))
			goto fail;
		r = PyDict_SetItem(*seen, key, e->kind == NL_EV_LINK_NEW ? rec : Py_None);
		Py_DECREF(key);
		if (r < 0)
			goto fail;
		return rec;
	}
	a = &ev->addrs.v[e->at];
	if (netifc_addr_needs_zone(a) &&
	    (r = zone_name(o, st, *seen, links, a->index, name)) < 0)
		return NULL;
	netifc_addr_finish(a, name[0] ? name : NULL);
	return netifc_new_addr(st, a);
fail:
	Py_XDECREF(rec);
	return NULL;
}

static PyObject *events_list(WatchObject *o, modstate *st, struct nl_events *ev, PyObject *links)
{
	PyObject *list = PyList_New(0), *seen = NULL, *rec, *pair;
	size_t i;

	for (i = 0; list && i < ev->n; i++) {
		rec = record_of(o, st, ev, &ev->v[i], &seen, links);
		pair = rec ? Py_BuildValue("(iN)", (int)ev->v[i].kind, rec) : NULL;
		if (!pair || PyList_Append(list, pair) < 0)
			Py_CLEAR(list);
		Py_XDECREF(pair);
	}
	if (list && ev->lost) {
		pair = Py_BuildValue("(iO)", WATCH_LOST, Py_None);
		if (!pair || PyList_Append(list, pair) < 0)
			Py_CLEAR(list);
		Py_XDECREF(pair);
	}
	Py_XDECREF(seen);
	return list;
}

static PyObject *watch_read(PyObject *self, PyObject *links)
{
	WatchObject *o = WATCH(self);
	modstate *st = netifc_state_of_type(Py_TYPE(self));
	struct netifc_call call = { .step = "netlink watch recv" };
	struct nl_events ev = { 0 };
	PyObject *res;
	int r;

	if (links != Py_None && !PyDict_Check(links))
		return PyErr_Format(PyExc_TypeError, "links must be a dict or None, not %.100s",
				    Py_TYPE(links)->tp_name);
	Py_BEGIN_ALLOW_THREADS
	r = nl_watch_read(&o->w, &ev);
	Py_END_ALLOW_THREADS
	if (r == -EBADF)
		res = closed_error();
	else if (r < 0)
		res = netifc_core_error(st, &call, r, NULL);
	else
		res = events_list(o, st, &ev, links);
	nl_events_free(&ev);
	return res;
}

static PyObject *watch_fileno(PyObject *self, PyObject *unused)
{
	int fd = WATCH(self)->w.fd;

	(void)unused;
	if (fd < 0)
		return closed_error();
	return PyLong_FromLong(fd);
}

static PyObject *watch_close(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (WATCH(self)->open) {
		Py_BEGIN_ALLOW_THREADS
		nl_watch_close(&WATCH(self)->w);
		Py_END_ALLOW_THREADS
	}
	Py_RETURN_NONE;
}

static PyObject *watch_closed(PyObject *self, void *c)
{
	(void)c;
	return PyBool_FromLong(WATCH(self)->w.fd < 0);
}

static PyObject *watch_groups(PyObject *self, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLong(WATCH(self)->w.groups);
}

static PyMethodDef watch_methods[] = {
	{"read", watch_read, METH_O,
	 "read($self, links, /)\n--\n\n"
	 "Every pending notification, without blocking: a list of (kind, record)."},
	{"fileno", watch_fileno, METH_NOARGS, "fileno($self, /)\n--\n\nThe socket's descriptor."},
	{"close", watch_close, METH_NOARGS, "close($self, /)\n--\n\nClose the socket (again: nothing)."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef watch_getset[] = {
	{"closed", watch_closed, NULL, "True once closed (here, or in a forked child).", NULL},
	{"groups", watch_groups, NULL, "Group events the kernel sends: 1 IPv4, 2 IPv6.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot watch_slots[] = {
	{Py_tp_doc, "A netlink socket subscribed to link, address and group changes (private)."},
	{Py_tp_new, watch_new},
	{Py_tp_dealloc, watch_dealloc},
	{Py_tp_methods, watch_methods},
	{Py_tp_getset, watch_getset},
	{0, NULL},
};

static PyType_Spec watch_spec = {
	"netifc._netifc._Watch", sizeof(WatchObject), 0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, watch_slots,
};

int netifc_add_watch_type(PyObject *m, modstate *st)
{
	st->Watch = (PyTypeObject *)PyType_FromModuleAndSpec(m, &watch_spec, NULL);
	if (!st->Watch)
		return -1;
	return PyModule_AddObject(m, "_Watch", Py_NewRef((PyObject *)st->Watch));
}
