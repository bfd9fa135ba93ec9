/*
 * live.c -- netifc._netifc._Tables (Linux): the link, address and group
 * tables kept current by the kernel's notifications, for the Python layer's
 * Watcher and live().
 *
 * Each table is a tuple in the order a dump gives -- links by index;
 * addresses and groups IPv4 then IPv6, by link, each link's in the order
 * learned -- which is what a read returns, and the changes told since, by
 * key.  Applying a notification only records it among those: O(1).  A read
 * of a whole table merges them in first, once per change, in
 * O(n log n + d log d); so does a count of changes above the table's size,
 * which bounds them.  A lookup by index looks at both and merges nothing.
 * A table with nothing pending holds its records and its tuple, no more.
 *
 * What is told is applied by live_apply.c, which also asks the kernel for
 * what it does not tell; the changes and their merge are plain C (live/),
 * the tuples live_table.c's, the events live_events.c's.
 *
 * The tables' own lock, not the GIL, guards everything of theirs that
 * changes -- the tables, the socket, the kept object (_cache) and the event
 * classes (kinds) -- for the whole of every call that reads or changes them,
 * a call into Python (a new read of the tables) included.  It is waited for
 * with the GIL released, and the wait ends for a signal (KeyboardInterrupt)
 * as a threading.Lock's does.  What a call lets go under the lock (the kept
 * object, old event classes) is released after it, outside: a finalizer
 * never runs with the lock held.  A forked child makes its own lock.  A live
 * table's read first takes what is pending, without blocking; the Watcher's
 * tables change only when it asks for events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netlink/socket.h"
#include "python/live.h"
#include "python/live_apply.h"
#include "python/live_events.h"
#include "python/live_lock.h"
#include "python/live_table.h"
#include "python/netns.h"

/* ---- the lock (live_lock.c) ------------------------------------------------- */

static int enter(TablesObject *t)
{
	int r = lt_lock_enter(&t->lk);

	if (r > 0)
		t->stale = 1; /* a thread gone by a fork was changing the tables */
	return r < 0 ? -1 : 0;
}

/* The lock let go; then what the call let go of (let_go) is released. */
static void leave(TablesObject *t)
{
	PyObject *dropped[sizeof t->dropped / sizeof *t->dropped];
	size_t i;

	memcpy(dropped, t->dropped, sizeof dropped);
	memset(t->dropped, 0, sizeof t->dropped);
	lt_lock_leave(&t->lk);
	for (i = 0; i < sizeof dropped / sizeof *dropped; i++)
		Py_XDECREF(dropped[i]);
}

/* ---- taking what is pending ---------------------------------------------- */

static PyObject *closed_error(void)
{
	return PyErr_Format(PyExc_ValueError, "I/O operation on a closed netlink watch");
}

static int open_watch(TablesObject *t)
{
	modstate *st = PyModule_GetState(t->module);
	struct netifc_call call = {.step = "netlink watch socket"};
	struct netifc_ns *ns = t->netns ? netifc_ns_of(t->netns) : NULL; /* NULL: this thread's */
	unsigned groups = netifc_path_of(st).opts & NETIFC_NO_WATCH_MCAST
				  ? 0
				  : NL_WATCH_MCAST4 | NL_WATCH_MCAST6;
	int r;

	if (t->netns && !ns)
		return -1;
	call.ns = ns;
	Py_BEGIN_ALLOW_THREADS
	r = nl_watch_open(&t->w, ns, groups);
	Py_END_ALLOW_THREADS
	if (r < 0) { /* (-EBADF: the namespace closed meanwhile by another thread) */
		netifc_core_error(st, &call, r, NULL);
		return -1;
	}
	t->open = 1;
	return 0;
}

/*
 * A notification's lifetimes are those of when it was sent, which a read
 * more than this long after the last (ms) cannot tell well enough: their
 * links' addresses are asked for (at most once a read).
 */
#define LATE_MS 500

/*
 * Whether a datagram (or an error) waits on the socket: one peek that does
 * not block, so that a read with nothing pending -- the usual one -- costs
 * that syscall and not the GIL's handover around nl_watch_read.  The peek
 * takes the socket's error: an overflow (ENOBUFS) is kept as stale.
 */
static int pending(TablesObject *t)
{
	char byte;

	if (recv(t->w.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0)
		return 1;
	if (errno == ENOBUFS)
		t->stale = 1; /* notifications were lost: the tables are read again */
	return errno != EAGAIN && errno != EWOULDBLOCK;
}

/*
 * Under the lock: every pending notification applied (a live table whose
 * socket was closed, here or by a fork, opens another and reads the tables
 * again).  out: the events, made from classes; NULL for none.
 */
static int take(TablesObject *t, PyObject *out, PyObject *classes)
{
	struct netifc_call call = {.step = "netlink watch recv"};
	struct nl_events ev = {0};
	int64_t now;
	int r;

	if (t->w.fd < 0) {
		if (!t->live) {
			closed_error();
			return -1;
		}
		if (t->open)
			nl_watch_free(&t->w);
		t->open = 0;
		if (open_watch(t) < 0)
			return -1;
		t->stale = 1;
	}
	now = lt_now();
	t->late = now - t->read_at > LATE_MS;
	t->read_at = now;
	if (pending(t)) {
		Py_BEGIN_ALLOW_THREADS /* (the tables' lock guards t->w) */
		r = nl_watch_read(&t->w, &ev);
		Py_END_ALLOW_THREADS
	} else {
		r = 0;
	}
	if (r < 0) {
		t->stale = 1; /* what it took before failing is lost */
		nl_events_free(&ev);
		netifc_core_error(PyModule_GetState(t->module), &call, r, NULL);
		return -1;
	}
	if (ev.lost || t->stale) {
		r = lv_reload(t);
		if (r == 0 && out) {
			PyObject *none = PyTuple_New(0),
				 *e = none ? lt_event(t->new_object, classes, EV_RESYNC,
						      t->links.tuple, t->addrs.tuple,
						      t->groups.tuple ? t->groups.tuple : none)
					   : NULL;

			Py_XDECREF(none);

			r = e ? PyList_Append(out, e) : -1;
			Py_XDECREF(e);
		}
	} else if (ev.n) {
		r = lv_apply(t, &ev, out, classes);
	}
	nl_events_free(&ev);
	if (r < 0)
		t->stale = 1; /* read but not all applied (or no Resync made): read again */
	return r;
}

/* A read: (for a live table) take what is pending, then (whole) lt_merge. */
static int ready(TablesObject *t, int whole, int groups)
{
	int first, aged = 0;

	if (enter(t) < 0)
		return -1;
	if ((first = groups && !t->groups.tuple))
		t->keep_groups = t->stale = 1; /* kept from now on: read below */
	if ((t->live && take(t, NULL, NULL) < 0) ||
	    (t->live && groups && !first && lv_groups_untold(t) && lv_regroup(t, NULL, NULL) < 0) ||
	    (whole && (lt_merge(t) < 0 || (aged = lt_age(t, &t->addrs)) < 0))) {
		leave(t);
		return -1;
	}
	if (aged)
		lv_let_go(t, &t->cache);
	return 0;
}

/* ---- the type ------------------------------------------------------------ */

static void tables_dealloc(PyObject *self);

static PyObject *tables_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"live", "netns", NULL};
	PyObject *netns = Py_None; /* a _NetNS, or None: this thread's namespace */
	PyTypeObject *base = tp;
	TablesObject *t;
	int live = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "p|$O:_Tables", kwlist, &live, &netns))
		return NULL;
	if (netns != Py_None && !netifc_ns_of(netns))
		return NULL;
	while (base && NETIFC_TP_DEALLOC(base) != tables_dealloc)
		base = NETIFC_TP_BASE(base);
	if (!base || !(t = (TablesObject *)NETIFC_TP_ALLOC(tp)(tp, 0)))
		return NULL;
	t->module = Py_NewRef(PyType_GetModule(base));
	t->netns = netns == Py_None ? NULL : Py_NewRef(netns);
	t->live = (uint8_t)live;
	t->keep_groups = !live; /* a live table keeps them from the first read of them */
	if (lt_lock_init(&t->lk) < 0) {
		Py_DECREF(t);
		return NULL;
	}
	if (nl_thread_ns(t->ns_id) < 0)
		t->ns_id[0] = 0; /* not known: not checked */
	t->read_at = lt_now();
	if (open_watch(t) < 0 || lv_reload(t) < 0) { /* the socket first: nothing is missed */
		Py_DECREF(t);
		return NULL;
	}
	return (PyObject *)t;
}

static int tables_traverse(PyObject *self, visitproc visit, void *arg)
{
	TablesObject *t = TABLES(self);
	table *tabs[] = {&t->links, &t->addrs, &t->groups};
	uint32_t i, k;

	Py_VISIT(Py_TYPE(self));
	Py_VISIT(t->module);
	Py_VISIT(t->netns);
	Py_VISIT(t->cache);
	Py_VISIT(t->kinds);
	Py_VISIT(t->new_object);
	for (i = 0; i < 3; i++) {
		Py_VISIT(tabs[i]->tuple);
		for (k = 0; k < tabs[i]->d.n; k++)
			Py_VISIT(tabs[i]->d.v[k].rec);
	}
	return 0;
}

/* What can lead back here: the Python layer's object and the event classes. */
static int tables_clear(PyObject *self)
{
	Py_CLEAR(TABLES(self)->cache);
	Py_CLEAR(TABLES(self)->kinds);
	return 0;
}

static void tables_dealloc(PyObject *self)
{
	TablesObject *t = TABLES(self);
	PyTypeObject *tp = Py_TYPE(self);
	size_t i;

	PyObject_GC_UnTrack(self);
	if (t->open)
		nl_watch_free(&t->w);
	lt_clear(&t->links);
	lt_clear(&t->addrs);
	lt_clear(&t->groups);
	PyMem_Free(t->by_name);
	Py_CLEAR(t->cache);
	Py_CLEAR(t->kinds);
	Py_CLEAR(t->new_object);
	Py_CLEAR(t->module);
	Py_CLEAR(t->netns);
	for (i = 0; i < sizeof t->dropped / sizeof *t->dropped; i++)
		Py_CLEAR(t->dropped[i]);
	lt_lock_free(&t->lk);
	NETIFC_TP_FREE(tp)(self);
	Py_DECREF(tp);
}

static PyObject *no_such(PyObject *module, PyObject *what)
{
	modstate *st = PyModule_GetState(module);

	return PyErr_Format(st->NoSuchInterface, "no such network interface: %R", what);
}

static PyObject *tables_by_index(PyObject *self, PyObject *arg)
{
	TablesObject *t = TABLES(self);
	PyObject *found = NULL;
	int32_t index = 0;
	int ok = netifc_index_arg(arg, &index);

	if (ok < 0 || ready(t, 0, 0) < 0)
		return NULL;
	if (ok)
		found = lt_link(t, index, NULL);
	Py_XINCREF(found);
	leave(t);
	return found ? found : no_such(t->module, arg);
}

static PyObject *tables_by_name(PyObject *self, PyObject *arg)
{
	TablesObject *t = TABLES(self);
	PyObject *bytes = NULL, *found = NULL;
	int ok = netifc_name_arg(arg, &bytes);

	if (ok < 0)
		return NULL;
	if (ok == 0)
		return no_such(t->module, arg);
	if (ready(t, 1, 0) < 0)
		goto done;
	found = lt_link_named(t, NETIFC_BYTES_DATA(bytes));
	Py_XINCREF(found);
	leave(t);
	if (!found && !PyErr_Occurred())
		no_such(t->module, arg);
done:
	Py_DECREF(bytes);
	return found;
}

static PyObject *of_link(PyObject *self, PyObject *arg, int groups)
{
	TablesObject *t = TABLES(self);
	modstate *st = PyModule_GetState(t->module);
	PyObject *res = NULL, *tuple;
	int32_t index = 0;
	int ok = 1;

	if (Py_TYPE(arg) == st->Interface)
		index = netifc_iface_index(arg);
	else if ((ok = netifc_index_arg(arg, &index)) < 0)
		return NULL;
	if (ready(t, 1, groups) < 0)
		return NULL;
	tuple = groups ? t->groups.tuple : t->addrs.tuple;
	if (ok && lt_link_in_tuple(t->links.tuple, index))
		res = tuple ? lt_records_of(t, tuple, index) : PyTuple_New(0);
	else
		ok = 0;
	leave(t);
	return ok ? res : no_such(t->module, arg); /* its repr: outside the lock */
}

static PyObject *tables_addrs_of(PyObject *self, PyObject *arg)
{
	return of_link(self, arg, 0);
}

static PyObject *tables_groups_of(PyObject *self, PyObject *arg)
{
	return of_link(self, arg, 1);
}

/* ---- whole tables -------------------------------------------------------- */

static PyObject *whole(PyObject *self, int which)
{
	TablesObject *t = TABLES(self);
	PyObject *res;

	if (ready(t, 1, which == 2) < 0)
		return NULL;
	res = which == 0 ? t->links.tuple : which == 1 ? t->addrs.tuple : t->groups.tuple;
	Py_XINCREF(res);
	leave(t);
	return res ? res : PyTuple_New(0);
}

static PyObject *tables_interfaces(PyObject *self, void *c)
{
	(void)c;
	return whole(self, 0);
}
static PyObject *tables_addrs(PyObject *self, void *c)
{
	(void)c;
	return whole(self, 1);
}
static PyObject *tables_groups(PyObject *self, void *c)
{
	(void)c;
	return whole(self, 2);
}

/* ---- the Watcher's side ---------------------------------------------------- */

static PyObject *tables_events(PyObject *self, PyObject *classes)
{
	TablesObject *t = TABLES(self);
	PyObject *out;

	if (!(out = PyList_New(0)))
		return NULL;
	if (enter(t) < 0) {
		Py_DECREF(out);
		return NULL;
	}
	if (classes != t->kinds) {
		if (!lt_kinds_check(classes)) {
			leave(t);
			Py_DECREF(out);
			return NULL;
		}
		if (!t->new_object && !(t->new_object = PyObject_GetAttrString(
						(PyObject *)&PyBaseObject_Type, "__new__"))) {
			leave(t);
			Py_DECREF(out);
			return NULL;
		}
		lv_let_go(t, &t->kinds);
		t->kinds = Py_NewRef(classes);
	}
	if (take(t, out, classes) < 0 ||
	    (t->groups.tuple && lv_groups_untold(t) && lv_regroup(t, out, classes) < 0) ||
	    lt_merge(t) < 0) {
		t->stale = 1; /* the events taken are not handed out: a Resync will be */
		Py_CLEAR(out);
	}
	leave(t);
	return out;
}

/* The socket's descriptor under the lock (a live table's read may open another), -1: closed. */
static int watch_fd(TablesObject *t, int *fd)
{
	if (enter(t) < 0)
		return -1;
	*fd = t->w.fd;
	leave(t);
	return 0;
}

/* As a file's fileno(): the number, which a close() from another thread may end. */
static PyObject *tables_fileno(PyObject *self, PyObject *unused)
{
	int fd;

	(void)unused;
	if (watch_fd(TABLES(self), &fd) < 0)
		return NULL;
	return fd < 0 ? closed_error() : PyLong_FromLong(fd);
}

static PyObject *tables_close(PyObject *self, PyObject *unused)
{
	TablesObject *t = TABLES(self);

	(void)unused;
	if (enter(t) < 0)
		return NULL;
	if (t->open && t->w.fd >= 0)
		nl_watch_close(&t->w); /* a close(): it does not wait */
	leave(t);
	Py_RETURN_NONE;
}

static PyObject *tables_closed(PyObject *self, void *c)
{
	int fd;

	(void)c;
	if (watch_fd(TABLES(self), &fd) < 0)
		return NULL;
	return PyBool_FromLong(fd < 0);
}

static PyObject *tables_group_kinds(PyObject *self, void *c)
{
	TablesObject *t = TABLES(self);
	unsigned groups;

	(void)c;
	if (enter(t) < 0)
		return NULL;
	groups = t->w.groups; /* a live table's socket is opened again under the lock */
	leave(t);
	return PyLong_FromUnsignedLong(groups);
}

static PyObject *tables_get_cache(PyObject *self, void *c)
{
	TablesObject *t = TABLES(self);
	PyObject *res;

	(void)c;
	if (enter(t) < 0)
		return NULL;
	res = Py_NewRef(t->cache ? t->cache : Py_None);
	leave(t);
	return res;
}

static int tables_set_cache(PyObject *self, PyObject *v, void *c)
{
	TablesObject *t = TABLES(self);

	(void)c;
	if (enter(t) < 0)
		return -1;
	lv_let_go(t, &t->cache);
	t->cache = v && v != Py_None ? Py_NewRef(v) : NULL;
	leave(t);
	return 0;
}

/* One read: (interfaces, addrs, what the Python layer keeps or None). */
static PyObject *tables_current(PyObject *self, PyObject *unused)
{
	TablesObject *t = TABLES(self);
	PyObject *res;

	(void)unused;
	if (ready(t, 1, 0) < 0)
		return NULL;
	res = PyTuple_Pack(3, t->links.tuple, t->addrs.tuple, t->cache ? t->cache : Py_None);
	leave(t);
	return res;
}

static PyMethodDef tables_methods[] = {
	{"by_index", tables_by_index, METH_O,
	 "by_index($self, index, /)\n--\n\n"
	 "The interface with this index.\n\n"
	 "Raises TypeError unless index is an int (bool is refused);\n"
	 "NoSuchInterface when no interface has it."},
	{"by_name", tables_by_name, METH_O,
	 "by_name($self, name, /)\n--\n\n"
	 "The interface with this (primary) name.\n\n"
	 "Raises TypeError unless name is a str; NoSuchInterface when no\n"
	 "interface has it."},
	{"addrs_of", tables_addrs_of, METH_O,
	 "addrs_of($self, interface, /)\n--\n\n"
	 "The addresses of an Interface or interface index: IPv4, then IPv6.\n\n"
	 "Raises TypeError and NoSuchInterface as by_index() does."},
	{"groups_of", tables_groups_of, METH_O,
	 "groups_of($self, interface, /)\n--\n\n"
	 "The multicast groups of an Interface or interface index.\n\n"
	 "Raises TypeError and NoSuchInterface as by_index() does."},
	{"_events", tables_events, METH_O,
	 "_events($self, kinds, /)\n--\n\n"
	 "Apply every pending notification; the events, made as kinds says:\n"
	 "(class, (slot name, ...)) for each kind."},
	{"_current", tables_current, METH_NOARGS,
	 "_current($self, /)\n--\n\nOne read: (interfaces, addrs, the kept object or None)."},
	{"fileno", tables_fileno, METH_NOARGS,
	 "fileno($self, /)\n--\n\nThe socket's descriptor: readable when notifications are pending."},
	{"close", tables_close, METH_NOARGS,
	 "close($self, /)\n--\n\nClose the socket (again: nothing)."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef tables_getset[] = {
	{"interfaces", tables_interfaces, NULL, "Every interface, by index.", NULL},
	{"addrs", tables_addrs, NULL, "Every unicast address: IPv4, then IPv6, by link.", NULL},
	{"groups", tables_groups, NULL, "Every multicast group: IPv4, then IPv6, by link.", NULL},
	{"closed", tables_closed, NULL, "True once closed (here, or in a forked child).", NULL},
	{"_group_kinds", tables_group_kinds, NULL, "Group events the kernel sends: 1 IPv4, 2 IPv6.",
	 NULL},
	{"_cache", tables_get_cache, tables_set_cache,
	 "What the Python layer keeps until the next change (None).", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot tables_slots[] = {
	{Py_tp_doc, "_Tables(live, *, netns=None)\n--\n\n"
		    "Link, address and group tables kept by netlink notifications (private)."},
	{Py_tp_new, tables_new},
	{Py_tp_dealloc, tables_dealloc},
	{Py_tp_traverse, tables_traverse},
	{Py_tp_clear, tables_clear},
	{Py_tp_methods, tables_methods},
	{Py_tp_getset, tables_getset},
	{0, NULL},
};

static PyType_Spec tables_spec = {
	"netifc._netifc._Tables",
	sizeof(TablesObject),
	0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_HAVE_GC,
	tables_slots,
};

int netifc_live_add(PyObject *m, modstate *st)
{
	PyObject *tp = PyType_FromModuleAndSpec(m, &tables_spec, NULL);

	if (!tp)
		return -1;
	st->Tables = (PyTypeObject *)tp;
	lt_lock_setup();
	return PyModule_AddObjectRef(m, "_Tables", tp);
}
