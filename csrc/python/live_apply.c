/*
 * python/live_apply.c -- what the live tables do with what the kernel tells
 * (python/live.c is their type): a read of every table (reload), each
 * notification applied to the tables (live_table.c, on live/'s changes)
 * and, for the Watcher, told as its event; and what the kernel does not
 * tell, asked for.
 *
 * What the kernel lists before it tells (netlink/watch.h) is asked for when
 * a sign of it is told -- a link's change, an address's solicited-node group
 * joined: after the batch, each such link's addresses (and kept groups), one
 * filtered request each, and what differs applied as if told.  Where the
 * kernel tells of no groups, a read of them (live) or of events (Watcher)
 * compares them with a dump.  A link told removed has each record of it
 * still kept told gone first (the kernel frees some untold).  Everything
 * here runs under the tables' lock (live_lock.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netlink/socket.h"
#include "python/live_apply.h"
#include "python/live_events.h"
#include "python/netns.h"

/* ---- reading the tables ------------------------------------------------- */

/* -1 and RuntimeError when this thread is in another namespace than the tables watch. */
static int elsewhere(TablesObject *t)
{
	char id[NL_NS_ID_SIZE];

	if (!t->netns && t->ns_id[0] && nl_thread_ns(id) == 0 && strcmp(id, t->ns_id)) {
		PyErr_SetString(PyExc_RuntimeError,
				"netifc: live tables are read again from the"
				" network namespace they watch; this thread is in another one");
		return -1;
	}
	return 0;
}

/* Under the lock: *o is let go, released by leave() once the lock is. */
void lv_let_go(TablesObject *t, PyObject **o)
{
	size_t i;

	if (!*o)
		return;
	for (i = 0; i < sizeof t->dropped / sizeof *t->dropped && t->dropped[i]; i++)
		;
	if (i < sizeof t->dropped / sizeof *t->dropped)
		t->dropped[i] = *o;
	else
		Py_DECREF(*o);  /* not reached: a call lets go of each field once */
	*o = NULL;
}

/* One dump by the module's _snapshot(multicast, "netlink") (or the _NetNS's): (links, records). */
static PyObject *dump(TablesObject *t, int multicast)
{
	PyObject *res = t->netns ? PyObject_CallMethod(t->netns, "_snapshot", "(i)", multicast)
				 : PyObject_CallMethod(t->module, "_snapshot", "(is)", multicast,
						       "netlink");

	if (res && (!PyTuple_Check(res) || NETIFC_TUPLE_SIZE(res) != 2 ||
		    !PyTuple_Check(NETIFC_TUPLE_ITEM(res, 0)) ||
		    !PyTuple_Check(NETIFC_TUPLE_ITEM(res, 1)))) {
		Py_DECREF(res);
		PyErr_SetString(PyExc_TypeError, "_snapshot() must return two tuples");
		return NULL;
	}
	return res;
}

/*
 * Read every table again.  The socket was open before, so what changes
 * after the dumps is pending on it, and applying what a dump already holds
 * changes nothing.
 */
int lv_reload(TablesObject *t)
{
	PyObject *uni = NULL, *multi = NULL, *links = NULL, *addrs = NULL, *groups = NULL;
	int r = -1;

	t->stale = 1;           /* until this succeeds: the next read tries again */
	if (elsewhere(t) < 0)
		return -1;
	if (!(uni = dump(t, 0)) || (t->keep_groups && !(multi = dump(t, 1))))
		goto done;
	if (!(links = lt_ordered(t, NETIFC_TUPLE_ITEM(uni, 0), 1)) ||
	    !(addrs = lt_ordered(t, NETIFC_TUPLE_ITEM(uni, 1), 0)) ||
	    (multi && !(groups = lt_ordered(t, NETIFC_TUPLE_ITEM(multi, 1), 0))))
		goto done;
	lt_clear(&t->links);
	lt_clear(&t->addrs);
	lt_clear(&t->groups);
	t->links.tuple = links;
	t->addrs.tuple = addrs;
	t->groups.tuple = groups;
	links = addrs = groups = NULL;
	if (lt_expiries(t, &t->addrs) < 0)
		goto done;
	PyMem_Free(t->by_name);
	t->by_name = NULL;
	lv_let_go(t, &t->cache);
	t->stale = 0;
	r = 0;
done:
	Py_XDECREF(uni);
	Py_XDECREF(multi);
	Py_XDECREF(links);
	Py_XDECREF(addrs);
	Py_XDECREF(groups);
	return r;
}

/* ---- applying notifications --------------------------------------------- */

static int emit(TablesObject *t, PyObject *out, PyObject *kinds, int kind, PyObject *a, PyObject *b)
{
	PyObject *ev;
	int r;

	if (!out)
		return 0;
	if (!(ev = lt_event(t->new_object, kinds, kind, a, b, NULL)))
		return -1;
	r = PyList_Append(out, ev);
	Py_DECREF(ev);
	return r;
}

/* What e held before (a new reference, or NULL), let go of once e holds the new. */
static void drop(void *rec)
{
	Py_XDECREF((PyObject *)rec);
}

static int apply_addr(TablesObject *t, table *tab, PyObject *rec, int removed, int group, int asked,
		      PyObject *out, PyObject *classes);

/*
 * Before a link is told removed (deleted, or moved to another namespace):
 * each of its records still in the tables told gone.  The kernel frees some
 * of a link's groups untold (ff01::1; all of them where it tells of no
 * groups), and a mirror kept from the events would keep them.
 */
static int records_gone(TablesObject *t, int32_t index, PyObject *out, PyObject *classes)
{
	table *tabs[2] = {&t->addrs, &t->groups};
	PyObject *had;
	Py_ssize_t j;
	int i, r = 0;

	for (i = 0; r == 0 && i < 2; i++) {
		if (!tabs[i]->tuple && !tabs[i]->d.n)
			continue;       /* not kept */
		if (!(had = lt_records_now(t, tabs[i], index)))
			return -1;
		for (j = 0; r == 0 && j < NETIFC_LIST_SIZE(had); j++)
			r = apply_addr(t, tabs[i], NETIFC_LIST_ITEM(had, j), 1, i, 1, out, classes);
		Py_DECREF(had);
	}
	return r;
}

/* 1 when the link is new or changed, 0 when not (or removed), -1 on error. */
static int apply_link(TablesObject *t, PyObject *rec, int removed, PyObject *out, PyObject *classes)
{
	int32_t index = netifc_iface_index(rec);
	PyObject *old = lt_link(t, index, NULL);
	struct lt_key k;
	void *held;
	entry *e;
	int same;

	if (old && !removed && (same = PyObject_RichCompareBool(old, rec, Py_EQ)) != 0)
		return same < 0 ? -1 : 0;
	if (old && removed && records_gone(t, index, out, classes) < 0)
		return -1;
	lt_key_index(&k, index);       /* a link never told of is removed too: its records go */
	if (!(e = lt_entry(&t->links.d, &k)))
		return -1;
	Py_XINCREF(old);
	held = e->rec;
	lt_told_link(e, Py_NewRef(removed ? (old ? old : rec) : rec), removed, &t->seq);
	drop(held);
	if (out && (old || !removed) &&
	    emit(t, out, classes,
		 removed ? EV_LINK_REMOVED
		 : old   ? EV_LINK_CHANGED
			 : EV_LINK_ADDED,
		 old ? old : rec, old && !removed ? rec : NULL) < 0) {
		Py_XDECREF(old);
		return -1;
	}
	Py_XDECREF(old);
	return !removed;
}

static int same_lifetimes(modstate *st, PyObject *x, PyObject *y)
{
	const struct netifc_addr *a = netifc_addr_rec(st, x), *b = netifc_addr_rec(st, y);

	return a->preferred == b->preferred && a->valid == b->valid;
}

static int runs_out(const struct netifc_addr *a)
{
	return a->has_lifetimes && a->preferred != NETIFC_FOREVER;
}

/*
 * An address or group told (or, asked: read from the kernel, whose lifetimes
 * count down since they were told, so only a change of its fields counts;
 * lifetimes that run out are counted down from the answer from now on).
 */
static int apply_addr(TablesObject *t, table *tab, PyObject *rec, int removed, int group, int asked,
		      PyObject *out, PyObject *classes)
{
	modstate *st = PyModule_GetState(t->module);
	const struct netifc_addr *a = netifc_addr_rec(st, rec);
	PyObject *old, *was = NULL, *link;
	uint32_t gone;
	struct lt_key k;
	void *held;
	entry *e;
	int same = 0, quiet = 0, kind, r = -1;

	lt_key_addr(&k, a);
	link = lt_link(t, k.index, &gone);
	if ((old = lt_addr(t, tab, &k, gone)) &&
	    !(was = link ? lt_rezoned(st, old, link) : Py_NewRef(old)))
		return -1;
	if (was && !removed && (same = PyObject_RichCompareBool(was, rec, Py_EQ)) < 0)
		goto done;
	if ((removed && !was) || (same && (group || asked || same_lifetimes(st, was, rec)))) {
		r = 0;
		if (!(quiet = same && asked && !group && runs_out(a)))
			goto done;
	}
	if (!(e = lt_entry(&tab->d, &k)))
		goto done;
	held = e->rec;
	lt_told_addr(e, Py_NewRef(removed ? was : rec), removed, gone, &t->seq);
	drop(held);
	if (!removed)   /* its lifetimes as of now, counted down from here */
		lt_expiry(&e->exp, a, runs_out(a) ? lt_now() : 0);
	if (quiet)
		goto done;
	if (group)
		kind = removed ? EV_GROUP_LEFT : EV_GROUP_JOINED;
	else
		kind = removed ? EV_ADDR_REMOVED : was ? EV_ADDR_CHANGED : EV_ADDR_ADDED;
	r = 0;
	if (group && !removed && was)
		goto done;              /* a group's record changed: no event */
	if (kind == EV_ADDR_CHANGED)
		r = emit(t, out, classes, kind, was, rec);
	else
		r = emit(t, out, classes, kind, removed ? was : rec, NULL);
done:
	Py_XDECREF(was);
	return r;
}

#define LOOK_AHEAD 256          /* events a zone's link is looked for in, after its own */

/*
 * The zone of an address of link `index`, event i of ev: its name in the
 * tables; else in a link event soon after (the kernel tells of a new
 * link's groups before the link); else the kernel's name for it now.
 */
static void zone_of(TablesObject *t, const struct nl_events *ev, size_t i, int32_t index,
		    char name[NETIFC_NAMESIZ])
{
	modstate *st = PyModule_GetState(t->module);
	PyObject *link = lt_link(t, index, NULL);
	const struct nl_event *e;
	size_t k;
	int r;

	name[0] = 0;
	if (link) {
		strcpy(name, netifc_iface_name(st, link));
		return;
	}
	for (k = i + 1; k < ev->n && k <= i + LOOK_AHEAD; k++) {
		e = &ev->v[k];
		if ((e->kind == NL_EV_LINK_NEW || e->kind == NL_EV_LINK_DEL) &&
		    ev->links.v[e->at].index == index) {
			strcpy(name, ev->links.v[e->at].name);
			return;
		}
	}
	Py_BEGIN_ALLOW_THREADS
	r = nl_watch_name(&t->w, index, name);
	Py_END_ALLOW_THREADS
	if (r < 0)
		name[0] = 0;            /* gone: no zone can be told */
}

/* ---- what the kernel does not tell (netlink/watch.h) ---------------------- */

struct asks {     /* the links whose addresses are asked for */
	int32_t *v;
	size_t n, cap;
};

static int ask_later(struct asks *q, int32_t index)
{
	int32_t *v;
	size_t cap;

	if (q->n && q->v[q->n - 1] == index)
		return 0;
	if (q->n == q->cap) {
		cap = q->cap ? 2 * q->cap : 8;
		if (!(v = PyMem_Realloc(q->v, cap * sizeof *v))) {
			PyErr_NoMemory();
			return -1;
		}
		q->v = v;
		q->cap = cap;
	}
	q->v[q->n++] = index;
	return 0;
}

static int index_cmp(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;

	return a < b ? -1 : a > b;
}

static int key_cmp(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(struct lt_key));
}

/* Link index's addresses (or groups) as the kernel lists them now: 0, or -1 and an error. */
static int ask(TablesObject *t, enum netifc_kind kind, int32_t index, const char *name,
	       struct netifc_addrs *out)
{
	struct netifc_call call = {0};
	int r;

	if (t->netns && !(call.ns = netifc_ns_core(t->netns)))
		return -1;
	Py_BEGIN_ALLOW_THREADS
	r = nl_watch_link_addrs(&call, kind, index, name, out);
	Py_END_ALLOW_THREADS
	if (r < 0)      /* (-EBADF: the namespace closed meanwhile by another thread) */
		netifc_core_error(PyModule_GetState(t->module), &call, r, NULL);
	return r < 0 ? -1 : 0;
}

/*
 * Link index's records of one table made what the kernel lists, each
 * difference applied as if told.
 */
static int reconcile(TablesObject *t, enum netifc_kind kind, int32_t index, PyObject *out,
		     PyObject *classes)
{
	modstate *st = PyModule_GetState(t->module);
	int group = kind == NETIFC_MULTICAST;
	table *tab = group ? &t->groups : &t->addrs;
	PyObject *link = lt_link(t, index, NULL), *had = NULL, *rec;
	struct netifc_addrs now = {0};
	char name[NETIFC_NAMESIZ];
	struct lt_key *keys = NULL, k;
	Py_ssize_t j;
	size_t i;
	int r = -1, bad;

	if (!link || !tab->tuple)
		return 0;               /* gone (its records went with it), or not kept */
	strcpy(name, netifc_iface_name(st, link));
	if (!(had = lt_records_of(t, tab->tuple, index)) || ask(t, kind, index, name, &now) < 0)
		goto done;
	if (!(keys = PyMem_Calloc(now.n + 1, sizeof *keys))) {
		PyErr_NoMemory();
		goto done;
	}
	for (i = 0; i < now.n; i++)
		lt_key_addr(&keys[i], &now.v[i]);
	qsort(keys, now.n, sizeof *keys, key_cmp);
	for (j = 0; j < NETIFC_TUPLE_SIZE(had); j++) {
		rec = NETIFC_TUPLE_ITEM(had, j);
		lt_key_addr(&k, netifc_addr_rec(st, rec));
		if (!bsearch(&k, keys, now.n, sizeof *keys, key_cmp) &&
		    apply_addr(t, tab, rec, 1, group, 1, out, classes) < 0)
			goto done;
	}
	for (i = 0; i < now.n; i++) {
		if (!(rec = netifc_new_addr(st, &now.v[i])))
			goto done;
		bad = apply_addr(t, tab, rec, 0, group, 1, out, classes) < 0;
		Py_DECREF(rec);
		if (bad)
			goto done;
	}
	r = 0;
done:
	PyMem_Free(keys);
	netifc_addrs_free(&now);
	Py_XDECREF(had);
	return r;
}

/* The sorted keys of a tuple of Addr records (n+1 of them, for none); NULL: no memory. */
static struct lt_key *sorted_keys(modstate *st, PyObject *tuple)
{
	Py_ssize_t i, n = NETIFC_TUPLE_SIZE(tuple);
	struct lt_key *keys = PyMem_Calloc((size_t)n + 1, sizeof *keys);

	if (!keys)
		return (struct lt_key *)PyErr_NoMemory();
	for (i = 0; i < n; i++)
		lt_key_addr(&keys[i], netifc_addr_rec(st, NETIFC_TUPLE_ITEM(tuple, i)));
	qsort(keys, (size_t)n, sizeof *keys, key_cmp);
	return keys;
}

/* Where the kernel tells of neither or one family's groups (it refused to join them). */
int lv_groups_untold(TablesObject *t)
{
	return (t->w.groups & (NL_WATCH_MCAST4 | NL_WATCH_MCAST6)) !=
	       (NL_WATCH_MCAST4 | NL_WATCH_MCAST6);
}

/*
 * The groups read by a dump, each difference applied as if told: what keeps
 * them current where the kernel does not tell of them.
 */
int lv_regroup(TablesObject *t, PyObject *out, PyObject *classes)
{
	modstate *st = PyModule_GetState(t->module);
	PyObject *multi = NULL, *had = NULL, *now, *g;
	struct lt_key *keys = NULL, k;
	Py_ssize_t i;
	int r = -1;

	if (elsewhere(t) < 0 || !(multi = dump(t, 1)) || lt_merge(t) < 0)
		goto done;
	now = NETIFC_TUPLE_ITEM(multi, 1);
	had = Py_NewRef(t->groups.tuple);
	if (!(keys = sorted_keys(st, now)))
		goto done;
	for (i = 0; i < NETIFC_TUPLE_SIZE(had); i++) {
		g = NETIFC_TUPLE_ITEM(had, i);
		lt_key_addr(&k, netifc_addr_rec(st, g));
		if (!bsearch(&k, keys, (size_t)NETIFC_TUPLE_SIZE(now), sizeof *keys, key_cmp) &&
		    apply_addr(t, &t->groups, g, 1, 1, 1, out, classes) < 0)
			goto done;
	}
	for (i = 0; i < NETIFC_TUPLE_SIZE(now); i++) {
		g = NETIFC_TUPLE_ITEM(now, i);
		if (Py_TYPE(g) != st->Addr) {
			netifc_type_error(PyExc_TypeError,
					  "_snapshot() gave a %U among its records", Py_TYPE(g));
			goto done;
		}
		if (apply_addr(t, &t->groups, g, 0, 1, 1, out, classes) < 0)
			goto done;
	}
	lv_let_go(t, &t->cache);
	r = 0;
done:
	PyMem_Free(keys);
	Py_XDECREF(had);
	Py_XDECREF(multi);
	return r;
}

/* Every link of q asked for once, on tables with every change merged in. */
static int reconcile_all(TablesObject *t, struct asks *q, PyObject *out, PyObject *classes)
{
	size_t i, n = 0;

	if (elsewhere(t) < 0 || lt_merge(t) < 0)
		return -1;
	qsort(q->v, q->n, sizeof *q->v, index_cmp);
	for (i = 0; i < q->n; i++)
		if (!n || q->v[n - 1] != q->v[i])
			q->v[n++] = q->v[i];
	for (i = 0; i < n; i++)
		if (reconcile(t, NETIFC_UNICAST, q->v[i], out, classes) < 0 ||
		    reconcile(t, NETIFC_MULTICAST, q->v[i], out, classes) < 0)
			return -1;
	return 0;
}

int lv_apply(TablesObject *t, struct nl_events *ev, PyObject *out, PyObject *classes)
{
	modstate *st = PyModule_GetState(t->module);
	char name[NETIFC_NAMESIZ];
	struct asks q = {0};
	struct netifc_addr *a;
	const struct nl_event *e;
	PyObject *rec;
	size_t i;
	int r = 0, group;

	for (i = 0; r == 0 && i < ev->n; i++) {
		e = &ev->v[i];
		group = e->kind == NL_EV_GROUP_NEW || e->kind == NL_EV_GROUP_DEL;
		if (e->kind == NL_EV_GROUP_NEW && nl_watch_solicited(&ev->addrs.v[e->at]) &&
		    (r = ask_later(&q, ev->addrs.v[e->at].index)) < 0)
			break;
		if (group && !t->groups.tuple)
			continue;
		if (e->kind == NL_EV_LINK_NEW || e->kind == NL_EV_LINK_DEL) {
			if (!(rec = netifc_new_iface(st, &ev->links.v[e->at], ev->links.pool))) {
				r = -1;
				break;
			}
			if (t->netns)
				netifc_iface_set_ns(rec, t->netns);
			r = apply_link(t, rec, e->kind == NL_EV_LINK_DEL, out, classes);
			if (r > 0)
				r = ask_later(&q, netifc_iface_index(rec));
		} else {
			a = &ev->addrs.v[e->at];
			if (e->kind == NL_EV_ADDR_NEW && t->late && runs_out(a) &&
			    (r = ask_later(&q, a->index)) < 0)
				break;
			name[0] = 0;
			if (netifc_addr_needs_zone(a))
				zone_of(t, ev, i, a->index, name);
			netifc_addr_finish(a, name[0] ? name : NULL);
			if (!(rec = netifc_new_addr(st, a))) {
				r = -1;
				break;
			}
			r = apply_addr(t, group ? &t->groups : &t->addrs, rec,
				       e->kind == NL_EV_ADDR_DEL || e->kind == NL_EV_GROUP_DEL,
				       group, 0, out, classes);
		}
		Py_DECREF(rec);
	}
	if (r == 0 && q.n)
		r = reconcile_all(t, &q, out, classes);
	PyMem_Free(q.v);
	if (r == 0 && ev->n)
		lv_let_go(t, &t->cache);
	return r ? r : lt_bound(t);
}
