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
 * The GIL guards the tables; a lock guards what spans a call that may let
 * it go (a new read of the tables, or the garbage collector's finalizers),
 * and a forked child makes its own.  A live table's read first takes what
 * is pending, without blocking; the Watcher's tables change only when it
 * asks for events.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "module.h"
#include "nlwatch.h"

/* What _events() makes, in the order of the classes it is given. */
enum { EV_LINK_ADDED, EV_LINK_CHANGED, EV_LINK_REMOVED, EV_ADDR_ADDED, EV_ADDR_CHANGED,
       EV_ADDR_REMOVED, EV_GROUP_JOINED, EV_GROUP_LEFT, EV_RESYNC, EV_KINDS };

/* What a record is found by: a link's index; an address's or group's link,
 * family, prefix length, address and peer (unused bytes zero). */
struct key {
	int32_t index;
	uint8_t family, prefixlen, has_peer, pad;
	uint8_t local[16], peer[16];
};

typedef struct {
	struct key k;
	PyObject *rec;          /* the last record told of it (a removed one too) */
	uint32_t seq;           /* when it was last added: orders additions */
	uint32_t gone;          /* links: when last removed (0: not since the tuple) */
	uint32_t hash;
	uint8_t present, used;
} entry;

typedef struct {                /* the changes since the tuple, by key */
	entry *v;
	uint32_t n, cap;
	uint32_t *slot;         /* entry number + 1, 0 when empty; nslot a power of two */
	uint32_t nslot;
} delta;

typedef struct {
	PyObject *tuple;        /* NULL: not kept (groups, until a live table is asked) */
	delta d;
} table;

typedef struct {
	PyObject_HEAD
	PyObject *module;
	struct nl_watch w;
	int open;               /* nl_watch_free is owed */
	uint8_t live;           /* reads take what is pending first */
	uint8_t stale;          /* events were lost and the tables not read since */
	uint8_t keep_groups;
	uint32_t seq;
	dev_t ns_dev;           /* the namespace watched */
	ino_t ns_ino;
	table links, addrs, groups;
	uint32_t *by_name;      /* positions in links.tuple by name, made on first use */
	PyObject *cache;        /* the Python layer's, dropped at every change */
	PyThread_type_lock lock;
	unsigned long owner;    /* the thread holding lock */
	unsigned forks;         /* fork_count when lock was made */
} TablesObject;

#define TABLES(o) ((TablesObject *)(o))

static unsigned fork_count;     /* a child's locks are the parent's state: made anew */

static void count_fork(void)
{
	fork_count++;
}

static void count_forks_from_now(void)
{
	pthread_atfork(NULL, NULL, count_fork);
}

/* ---- keys and the changes table ----------------------------------------- */

static void key_of_index(struct key *k, int32_t index)
{
	memset(k, 0, sizeof *k);
	k->index = index;
}

static void key_of_addr(struct key *k, const struct netifc_addr *a)
{
	size_t alen = netifc_family_len(a->family);

	memset(k, 0, sizeof *k);
	k->index = a->index;
	k->family = a->family;
	k->prefixlen = a->prefixlen;
	k->has_peer = a->has_peer;
	memcpy(k->local, a->local, alen);
	if (a->has_peer)
		memcpy(k->peer, a->peer, alen);
}

static uint32_t key_hash(const struct key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof *k; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static entry *delta_find(const delta *d, const struct key *k, uint32_t h)
{
	uint32_t i, at;

	if (!d->n)
		return NULL;
	for (i = h & (d->nslot - 1); (at = d->slot[i]) != 0; i = (i + 1) & (d->nslot - 1))
		if (d->v[at - 1].hash == h && !memcmp(&d->v[at - 1].k, k, sizeof *k))
			return &d->v[at - 1];
	return NULL;
}

static int delta_rehash(delta *d, uint32_t nslot)
{
	uint32_t *slot = PyMem_Calloc(nslot, sizeof *slot), i, j;

	if (!slot)
		return -1;
	for (i = 0; i < d->n; i++) {
		for (j = d->v[i].hash & (nslot - 1); slot[j]; j = (j + 1) & (nslot - 1))
			;
		slot[j] = i + 1;
	}
	PyMem_Free(d->slot);
	d->slot = slot;
	d->nslot = nslot;
	return 0;
}

/* The entry of k, made (holding no record yet) when there is none; NULL: no memory. */
static entry *delta_get(delta *d, const struct key *k)
{
	uint32_t h = key_hash(k), j;
	entry *e = delta_find(d, k, h), *v;

	if (e)
		return e;
	if (d->n == d->cap) {
		uint32_t cap = d->cap ? 2 * d->cap : 16;

		if (!(v = PyMem_Realloc(d->v, cap * sizeof *v)))
			return (entry *)PyErr_NoMemory();
		d->v = v;
		d->cap = cap;
	}
	if (2 * (d->n + 1) > d->nslot && delta_rehash(d, d->nslot ? 2 * d->nslot : 32) < 0)
		return (entry *)PyErr_NoMemory();
	e = &d->v[d->n++];
	memset(e, 0, sizeof *e);
	e->k = *k;
	e->hash = h;
	for (j = h & (d->nslot - 1); d->slot[j]; j = (j + 1) & (d->nslot - 1))
		;
	d->slot[j] = d->n;
	return e;
}

static void delta_clear(delta *d)
{
	uint32_t i;

	for (i = 0; i < d->n; i++)
		Py_XDECREF(d->v[i].rec);
	PyMem_Free(d->v);
	PyMem_Free(d->slot);
	memset(d, 0, sizeof *d);
}

static void table_clear(table *t)
{
	Py_CLEAR(t->tuple);
	delta_clear(&t->d);
}

/* ---- the records as they are now ---------------------------------------- */

static int family_rank(const struct netifc_addr *a)
{
	return a->family != AF_INET;    /* IPv4 first */
}

static PyObject *link_in_tuple(PyObject *tuple, int32_t index)
{
	Py_ssize_t lo = 0, hi = tuple ? PyTuple_GET_SIZE(tuple) : 0, mid;
	int32_t at;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		at = netifc_iface_index(PyTuple_GET_ITEM(tuple, mid));
		if (at == index)
			return PyTuple_GET_ITEM(tuple, mid);
		if (at < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Link `index` now (borrowed), or NULL; *gone: when it was last removed. */
static PyObject *link_now(TablesObject *t, int32_t index, uint32_t *gone)
{
	struct key k;
	entry *e;

	if (gone)
		*gone = 0;
	if (t->links.d.n) {
		key_of_index(&k, index);
		if ((e = delta_find(&t->links.d, &k, key_hash(&k)))) {
			if (gone)
				*gone = e->gone;
			if (e->present || e->gone)
				return e->present ? e->rec : NULL;
		}
	}
	return link_in_tuple(t->links.tuple, index);
}

/* The first position in an address tuple at or after (rank, index). */
static Py_ssize_t run_start(modstate *st, PyObject *tuple, int rank, int32_t index)
{
	Py_ssize_t lo = 0, hi = PyTuple_GET_SIZE(tuple), mid;
	const struct netifc_addr *a;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		a = netifc_addr_rec(st, PyTuple_GET_ITEM(tuple, mid));
		if (family_rank(a) < rank || (family_rank(a) == rank && a->index < index))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static PyObject *addr_in_tuple(modstate *st, PyObject *tuple, const struct key *k)
{
	struct netifc_addr probe = { .family = k->family, .index = k->index };
	int rank = family_rank(&probe);
	Py_ssize_t i, n = tuple ? PyTuple_GET_SIZE(tuple) : 0;
	const struct netifc_addr *a;
	struct key ak;

	for (i = n ? run_start(st, tuple, rank, k->index) : 0; i < n; i++) {
		a = netifc_addr_rec(st, PyTuple_GET_ITEM(tuple, i));
		if (a->index != k->index || family_rank(a) != rank)
			break;
		key_of_addr(&ak, a);
		if (!memcmp(&ak, k, sizeof ak))
			return PyTuple_GET_ITEM(tuple, i);
	}
	return NULL;
}

/* The address (or group) of key k now (borrowed), or NULL. */
static PyObject *addr_now(TablesObject *t, table *tab, const struct key *k)
{
	modstate *st = PyModule_GetState(t->module);
	uint32_t gone = 0;
	entry *e;

	link_now(t, k->index, &gone);
	if ((e = delta_find(&tab->d, k, key_hash(k))))
		return e->present && e->seq > gone ? e->rec : NULL;
	return gone ? NULL : addr_in_tuple(st, tab->tuple, k);
}

/* rec, or a copy whose zone is its link's name now (new references). */
static PyObject *rezoned(modstate *st, PyObject *rec, PyObject *link)
{
	const struct netifc_addr *a = netifc_addr_rec(st, rec);
	const char *name = netifc_iface_name(st, link);
	struct netifc_addr copy;

	if (!netifc_addr_needs_zone(a) || !strcmp(a->zone, name))
		return Py_NewRef(rec);
	copy = *a;
	memset(copy.zone, 0, sizeof copy.zone);
	strncpy(copy.zone, name, sizeof copy.zone - 1);
	return netifc_new_addr(st, &copy);
}

/* ---- merging the changes in --------------------------------------------- */

struct placed {
	int32_t index;
	uint8_t rank;
	uint32_t order;
	PyObject *rec;          /* borrowed */
};

static int placed_cmp(const void *x, const void *y)
{
	const struct placed *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* A tuple of the n records, each rezoned by its link (NULL: by none). */
static PyObject *tuple_of(TablesObject *t, const struct placed *p, size_t n, int zones)
{
	modstate *st = PyModule_GetState(t->module);
	PyObject *tup = PyTuple_New((Py_ssize_t)n), *o;
	size_t i;

	for (i = 0; tup && i < n; i++) {
		o = zones ? rezoned(st, p[i].rec, link_now(t, p[i].index, NULL)) : Py_NewRef(p[i].rec);
		if (!o)
			Py_CLEAR(tup);
		else
			PyTuple_SET_ITEM(tup, (Py_ssize_t)i, o);
	}
	return tup;
}

/* The links tuple with the changes in. */
static PyObject *merged_links(TablesObject *t)
{
	delta *d = &t->links.d;
	Py_ssize_t nb = PyTuple_GET_SIZE(t->links.tuple), i = 0;
	struct placed *out = PyMem_Calloc((size_t)nb + d->n + 1, sizeof *out);
	struct placed *add = PyMem_Calloc(d->n + 1, sizeof *add);
	size_t n = 0, na = 0, j = 0;
	PyObject *res = NULL, *b;
	uint32_t k;

	if (!out || !add)
		goto done;
	for (k = 0; k < d->n; k++)
		add[na++] = (struct placed){ d->v[k].k.index, 0, k, d->v[k].present ? d->v[k].rec : NULL };
	qsort(add, na, sizeof *add, placed_cmp);
	while (i < nb || j < na) {
		b = i < nb ? PyTuple_GET_ITEM(t->links.tuple, i) : NULL;
		if (j < na && (!b || add[j].index <= netifc_iface_index(b))) {
			if (b && add[j].index == netifc_iface_index(b))
				i++;                    /* changed or removed */
			if (add[j].rec)
				out[n++] = add[j];
			j++;
		} else {
			out[n++] = (struct placed){ netifc_iface_index(b), 0, 0, b };
			i++;
		}
	}
	res = tuple_of(t, out, n, 0);
done:
	PyMem_Free(out);
	PyMem_Free(add);
	return res ? res : (PyErr_Occurred() ? NULL : PyErr_NoMemory());
}

/* An address or group tuple with the changes in: only records of links
 * there now, each with its link's name as its zone. */
static PyObject *merged_addrs(TablesObject *t, table *tab)
{
	modstate *st = PyModule_GetState(t->module);
	delta *d = &tab->d;
	Py_ssize_t nb = PyTuple_GET_SIZE(tab->tuple), i;
	struct placed *out = PyMem_Calloc((size_t)nb + d->n + 1, sizeof *out);
	struct placed *add = PyMem_Calloc(d->n + 1, sizeof *add);
	struct placed *all = NULL;
	size_t n = 0, na = 0, j = 0, m = 0, o = 0;
	const struct netifc_addr *a;
	PyObject *res = NULL, *b;
	uint32_t k, gone;
	struct key key;
	entry *e;

	if (!out || !add)
		goto done;
	for (k = 0; k < d->n; k++)
		d->v[k].used = 0;
	for (i = 0; i < nb; i++) {
		b = PyTuple_GET_ITEM(tab->tuple, i);
		a = netifc_addr_rec(st, b);
		if (!link_now(t, a->index, &gone) || gone)
			continue;
		key_of_addr(&key, a);
		if ((e = delta_find(d, &key, key_hash(&key)))) {
			e->used = 1;
			if (!e->present)
				continue;
			b = e->rec;
		}
		out[n++] = (struct placed){ a->index, (uint8_t)family_rank(a), 0, b };
	}
	for (k = 0; k < d->n; k++) {
		e = &d->v[k];
		if (e->used || !e->present || !link_now(t, e->k.index, &gone) || e->seq <= gone)
			continue;
		a = netifc_addr_rec(st, e->rec);
		add[na++] = (struct placed){ a->index, (uint8_t)family_rank(a), e->seq, e->rec };
	}
	qsort(add, na, sizeof *add, placed_cmp);
	if (!(all = PyMem_Calloc(n + na + 1, sizeof *all)))
		goto done;
	while (o < n || j < na) {       /* a link's additions after what it had */
		if (j < na && (o == n || out[o].rank > add[j].rank ||
			       (out[o].rank == add[j].rank && out[o].index > add[j].index)))
			all[m++] = add[j++];
		else
			all[m++] = out[o++];
	}
	res = tuple_of(t, all, m, 1);
done:
	PyMem_Free(out);
	PyMem_Free(add);
	PyMem_Free(all);
	return res ? res : (PyErr_Occurred() ? NULL : PyErr_NoMemory());
}

/* Every change merged in: all three tuples made before any is replaced. */
static int merge(TablesObject *t)
{
	PyObject *addrs = NULL, *groups = NULL, *links = NULL;

	if (!t->links.d.n && !t->addrs.d.n && !t->groups.d.n)
		return 0;
	if (!(addrs = merged_addrs(t, &t->addrs)) ||
	    (t->groups.tuple && !(groups = merged_addrs(t, &t->groups))) ||
	    !(links = merged_links(t))) {
		Py_XDECREF(addrs);
		Py_XDECREF(groups);
		return -1;
	}
	if (t->links.d.n) {
		PyMem_Free(t->by_name);
		t->by_name = NULL;
	}
	Py_SETREF(t->addrs.tuple, addrs);
	if (groups)
		Py_SETREF(t->groups.tuple, groups);
	Py_SETREF(t->links.tuple, links);
	delta_clear(&t->links.d);
	delta_clear(&t->addrs.d);
	delta_clear(&t->groups.d);
	return 0;
}

static size_t tuple_len(PyObject *tuple)
{
	return tuple ? (size_t)PyTuple_GET_SIZE(tuple) : 0;
}

/* Changes beyond the tables' size are merged in: what is pending stays bounded. */
static int bound(TablesObject *t)
{
	if (t->links.d.n > 64 + tuple_len(t->links.tuple) ||
	    t->addrs.d.n > 64 + tuple_len(t->addrs.tuple) ||
	    t->groups.d.n > 64 + tuple_len(t->groups.tuple))
		return merge(t);
	return 0;
}

/* ---- reading the tables ------------------------------------------------- */

static int netns_of_thread(dev_t *dev, ino_t *ino)
{
	struct stat s;

	if (stat("/proc/thread-self/ns/net", &s) < 0 && stat("/proc/self/ns/net", &s) < 0)
		return -1;
	*dev = s.st_dev;
	*ino = s.st_ino;
	return 0;
}

/* A dump's records in the tables' order (a stable sort of a new tuple). */
static PyObject *ordered(TablesObject *t, PyObject *tuple, int links)
{
	modstate *st = PyModule_GetState(t->module);
	Py_ssize_t n = PyTuple_GET_SIZE(tuple), i;
	struct placed *p = PyMem_Calloc((size_t)n + 1, sizeof *p);
	const struct netifc_addr *a;
	PyObject *res;

	if (!p)
		return PyErr_NoMemory();
	for (i = 0; i < n; i++) {
		PyObject *o = PyTuple_GET_ITEM(tuple, i);

		if (links) {
			p[i] = (struct placed){ netifc_iface_index(o), 0, (uint32_t)i, o };
		} else {
			a = netifc_addr_rec(st, o);
			p[i] = (struct placed){ a->index, (uint8_t)family_rank(a), (uint32_t)i, o };
		}
	}
	qsort(p, (size_t)n, sizeof *p, placed_cmp);
	res = tuple_of(t, p, (size_t)n, 0);
	PyMem_Free(p);
	return res;
}

/* One dump by the module's _snapshot(multicast, "netlink"): (links, records). */
static PyObject *dump(TablesObject *t, int multicast)
{
	PyObject *res = PyObject_CallMethod(t->module, "_snapshot", "(is)", multicast, "netlink");

	if (res && (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 2 ||
		    !PyTuple_Check(PyTuple_GET_ITEM(res, 0)) ||
		    !PyTuple_Check(PyTuple_GET_ITEM(res, 1)))) {
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
static int reload(TablesObject *t)
{
	PyObject *uni = NULL, *multi = NULL, *links = NULL, *addrs = NULL, *groups = NULL;
	dev_t dev;
	ino_t ino;
	int r = -1;

	t->stale = 1;           /* until this succeeds: the next read tries again */
	if (netns_of_thread(&dev, &ino) == 0 && (dev != t->ns_dev || ino != t->ns_ino)) {
		PyErr_SetString(PyExc_RuntimeError, "netifc: live tables are read again from the"
				" network namespace they watch; this thread is in another one");
		return -1;
	}
	if (!(uni = dump(t, 0)) || (t->keep_groups && !(multi = dump(t, 1))))
		goto done;
	if (!(links = ordered(t, PyTuple_GET_ITEM(uni, 0), 1)) ||
	    !(addrs = ordered(t, PyTuple_GET_ITEM(uni, 1), 0)) ||
	    (multi && !(groups = ordered(t, PyTuple_GET_ITEM(multi, 1), 0))))
		goto done;
	table_clear(&t->links);
	table_clear(&t->addrs);
	table_clear(&t->groups);
	t->links.tuple = links;
	t->addrs.tuple = addrs;
	t->groups.tuple = groups;
	links = addrs = groups = NULL;
	PyMem_Free(t->by_name);
	t->by_name = NULL;
	Py_CLEAR(t->cache);
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

/*
 * An event of kind made with its fields a, b, c (as many as its class has
 * slots): kinds[kind] is (class, (slot descriptor, ...)).  The fields are set
 * through the descriptors as the frozen class's own __init__ would, without
 * its Python frame.
 */
static PyObject *event(PyObject *kinds, int kind, PyObject *a, PyObject *b, PyObject *c)
{
	PyObject *spec = PyTuple_GET_ITEM(kinds, kind);
	PyTypeObject *cls = (PyTypeObject *)PyTuple_GET_ITEM(spec, 0);
	PyObject *slots = PyTuple_GET_ITEM(spec, 1), *ev, *fields[3] = { a, b, c }, *d;
	Py_ssize_t i;

	if (!(ev = cls->tp_alloc(cls, 0)))
		return NULL;
	for (i = 0; i < PyTuple_GET_SIZE(slots); i++) {
		d = PyTuple_GET_ITEM(slots, i);
		if (Py_TYPE(d)->tp_descr_set(d, ev, fields[i]) < 0) {
			Py_DECREF(ev);
			return NULL;
		}
	}
	return ev;
}

/* kinds as _events() takes them: EV_KINDS pairs (class, (member descriptor, ...)). */
static int kinds_ok(PyObject *kinds)
{
	static const Py_ssize_t nfields[EV_KINDS] = { 1, 2, 1, 1, 2, 1, 1, 1, 3 };
	PyObject *spec, *slots;
	Py_ssize_t i, k;

	if (!PyTuple_Check(kinds) || PyTuple_GET_SIZE(kinds) != EV_KINDS)
		goto bad;
	for (i = 0; i < EV_KINDS; i++) {
		spec = PyTuple_GET_ITEM(kinds, i);
		if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 2 ||
		    !PyType_Check(PyTuple_GET_ITEM(spec, 0)) ||
		    !PyTuple_Check(slots = PyTuple_GET_ITEM(spec, 1)) ||
		    PyTuple_GET_SIZE(slots) != nfields[i])
			goto bad;
		for (k = 0; k < nfields[i]; k++)
			if (Py_TYPE(PyTuple_GET_ITEM(slots, k)) != &PyMemberDescr_Type)
				goto bad;
	}
	return 1;
bad:
	PyErr_Format(PyExc_TypeError, "_events() takes %d pairs (class, slot descriptors)",
		     EV_KINDS);
	return 0;
}

static int emit(PyObject *out, PyObject *kinds, int kind, PyObject *a, PyObject *b)
{
	PyObject *ev;
	int r;

	if (!out)
		return 0;
	if (!(ev = event(kinds, kind, a, b, NULL)))
		return -1;
	r = PyList_Append(out, ev);
	Py_DECREF(ev);
	return r;
}

/* e holds rec (a new reference) from now on. */
static void entry_set(entry *e, PyObject *rec, int present)
{
	Py_XSETREF(e->rec, rec);
	e->present = (uint8_t)present;
}

static int apply_link(TablesObject *t, PyObject *rec, int removed, PyObject *out,
		      PyObject *classes)
{
	int32_t index = netifc_iface_index(rec);
	PyObject *old = link_now(t, index, NULL);
	struct key k;
	entry *e;
	int same;

	if (old && !removed && (same = PyObject_RichCompareBool(old, rec, Py_EQ)) != 0)
		return same < 0 ? -1 : 0;
	if (!old && removed)
		return 0;
	key_of_index(&k, index);
	if (!(e = delta_get(&t->links.d, &k)))
		return -1;
	Py_XINCREF(old);
	entry_set(e, Py_NewRef(removed ? (old ? old : rec) : rec), !removed);
	if (removed)
		e->gone = ++t->seq;
	if (out && emit(out, classes, removed ? EV_LINK_REMOVED : old ? EV_LINK_CHANGED : EV_LINK_ADDED,
			old ? old : rec, old && !removed ? rec : NULL) < 0) {
		Py_XDECREF(old);
		return -1;
	}
	Py_XDECREF(old);
	return 0;
}

static int same_lifetimes(modstate *st, PyObject *x, PyObject *y)
{
	const struct netifc_addr *a = netifc_addr_rec(st, x), *b = netifc_addr_rec(st, y);

	return a->preferred == b->preferred && a->valid == b->valid;
}

static int apply_addr(TablesObject *t, table *tab, PyObject *rec, int removed, int group,
		      PyObject *out, PyObject *classes)
{
	modstate *st = PyModule_GetState(t->module);
	const struct netifc_addr *a = netifc_addr_rec(st, rec);
	PyObject *old, *was = NULL;
	uint32_t gone;
	struct key k;
	entry *e;
	int same = 0, kind, r = -1;

	key_of_addr(&k, a);
	if ((old = addr_now(t, tab, &k))) {
		PyObject *link = link_now(t, k.index, NULL);

		if (!(was = link ? rezoned(st, old, link) : Py_NewRef(old)))
			return -1;
	}
	if (was && !removed && (same = PyObject_RichCompareBool(was, rec, Py_EQ)) < 0)
		goto done;
	if ((removed && !was) || (same && (group || same_lifetimes(st, was, rec)))) {
		r = 0;
		goto done;
	}
	if (!(e = delta_get(&tab->d, &k)))
		goto done;
	link_now(t, k.index, &gone);
	if (!removed && !(e->present && e->seq > gone))
		e->seq = ++t->seq;      /* added (again): it goes after its link's others */
	entry_set(e, Py_NewRef(removed ? was : rec), !removed);
	if (group)
		kind = removed ? EV_GROUP_LEFT : EV_GROUP_JOINED;
	else
		kind = removed ? EV_ADDR_REMOVED : was ? EV_ADDR_CHANGED : EV_ADDR_ADDED;
	r = 0;
	if (group && !removed && was)
		goto done;              /* a group's record changed: no event */
	if (kind == EV_ADDR_CHANGED)
		r = emit(out, classes, kind, was, rec);
	else
		r = emit(out, classes, kind, removed ? was : rec, NULL);
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
	PyObject *link = link_now(t, index, NULL);
	const struct nl_event *e;
	size_t k;

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
	if (nl_watch_name(&t->w, index, name) < 0)
		name[0] = 0;            /* gone: no zone can be told */
}

static int apply(TablesObject *t, struct nl_events *ev, PyObject *out, PyObject *classes)
{
	modstate *st = PyModule_GetState(t->module);
	char name[NETIFC_NAMESIZ];
	struct netifc_addr *a;
	const struct nl_event *e;
	PyObject *rec;
	size_t i;
	int r = 0, group;

	for (i = 0; r == 0 && i < ev->n; i++) {
		e = &ev->v[i];
		group = e->kind == NL_EV_GROUP_NEW || e->kind == NL_EV_GROUP_DEL;
		if (group && !t->groups.tuple)
			continue;
		if (e->kind == NL_EV_LINK_NEW || e->kind == NL_EV_LINK_DEL) {
			if (!(rec = netifc_new_iface(st, &ev->links.v[e->at], ev->links.pool)))
				return -1;
			r = apply_link(t, rec, e->kind == NL_EV_LINK_DEL, out, classes);
		} else {
			a = &ev->addrs.v[e->at];
			name[0] = 0;
			if (netifc_addr_needs_zone(a))
				zone_of(t, ev, i, a->index, name);
			netifc_addr_finish(a, name[0] ? name : NULL);
			if (!(rec = netifc_new_addr(st, a)))
				return -1;
			r = apply_addr(t, group ? &t->groups : &t->addrs, rec,
				       e->kind == NL_EV_ADDR_DEL || e->kind == NL_EV_GROUP_DEL,
				       group, out, classes);
		}
		Py_DECREF(rec);
	}
	if (r == 0 && ev->n)
		Py_CLEAR(t->cache);
	return r ? r : bound(t);
}

/* ---- the lock ------------------------------------------------------------ */

static int enter(TablesObject *t)
{
	if (t->forks != fork_count) {   /* the parent's lock: perhaps held by a thread gone here */
		PyThread_type_lock fresh = PyThread_allocate_lock();

		if (!fresh) {
			PyErr_NoMemory();
			return -1;
		}
		t->lock = fresh;        /* the old one is left: it may be held */
		t->forks = fork_count;
	}
	if (!PyThread_acquire_lock(t->lock, NOWAIT_LOCK)) {
		if (t->owner == PyThread_get_thread_ident()) {
			PyErr_SetString(PyExc_RuntimeError, "netifc: tables used again while in use");
			return -1;
		}
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(t->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
	t->owner = PyThread_get_thread_ident();
	return 0;
}

static void leave(TablesObject *t)
{
	t->owner = 0;
	PyThread_release_lock(t->lock);
}

/* ---- taking what is pending ---------------------------------------------- */

static PyObject *closed_error(void)
{
	return PyErr_Format(PyExc_ValueError, "I/O operation on a closed netlink watch");
}

static int open_watch(TablesObject *t)
{
	struct netifc_call call = { .step = "netlink watch socket" };
	int r = nl_watch_open(&t->w);

	if (r < 0) {
		netifc_core_error(PyModule_GetState(t->module), &call, r, NULL);
		return -1;
	}
	t->open = 1;
	return 0;
}

/*
 * Under the lock: every pending notification applied (a live table whose
 * socket was closed, here or by a fork, opens another and reads the tables
 * again).  out: the events, made from classes; NULL for none.
 */
static int take(TablesObject *t, PyObject *out, PyObject *classes)
{
	struct netifc_call call = { .step = "netlink watch recv" };
	struct nl_events ev = { 0 };
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
	r = nl_watch_read(&t->w, &ev);
	if (r < 0) {
		nl_events_free(&ev);
		netifc_core_error(PyModule_GetState(t->module), &call, r, NULL);
		return -1;
	}
	if (ev.lost || t->stale) {
		r = reload(t);
		if (r == 0 && out) {
			PyObject *none = PyTuple_New(0), *e = none ? event(
				classes, EV_RESYNC, t->links.tuple, t->addrs.tuple,
				t->groups.tuple ? t->groups.tuple : none) : NULL;

			Py_XDECREF(none);

			r = e ? PyList_Append(out, e) : -1;
			Py_XDECREF(e);
		}
	} else if (ev.n) {
		r = apply(t, &ev, out, classes);
	}
	nl_events_free(&ev);
	return r;
}

/* A read: (for a live table) take what is pending, then (whole) merge. */
static int ready(TablesObject *t, int whole)
{
	if (enter(t) < 0)
		return -1;
	if ((t->live && take(t, NULL, NULL) < 0) || (whole && merge(t) < 0)) {
		leave(t);
		return -1;
	}
	return 0;
}

/* ---- the type ------------------------------------------------------------ */

static void tables_dealloc(PyObject *self);

static PyObject *tables_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "live", NULL };
	PyTypeObject *base = tp;
	TablesObject *t;
	int live = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "p:_Tables", kwlist, &live))
		return NULL;
	while (base && base->tp_dealloc != tables_dealloc)
		base = base->tp_base;
	if (!base || !(t = (TablesObject *)tp->tp_alloc(tp, 0)))
		return NULL;
	t->module = Py_NewRef(PyType_GetModule(base));
	t->live = (uint8_t)live;
	t->keep_groups = !live;         /* a live table keeps them from the first read of them */
	t->forks = fork_count;
	if (!(t->lock = PyThread_allocate_lock())) {
		Py_DECREF(t);
		return PyErr_NoMemory();
	}
	if (netns_of_thread(&t->ns_dev, &t->ns_ino) < 0) {
		t->ns_dev = 0;
		t->ns_ino = 0;
	}
	if (open_watch(t) < 0 || reload(t) < 0) {    /* the socket first: nothing is missed */
		Py_DECREF(t);
		return NULL;
	}
	return (PyObject *)t;
}

static void tables_dealloc(PyObject *self)
{
	TablesObject *t = TABLES(self);
	PyTypeObject *tp = Py_TYPE(self);

	if (t->open)
		nl_watch_free(&t->w);
	table_clear(&t->links);
	table_clear(&t->addrs);
	table_clear(&t->groups);
	PyMem_Free(t->by_name);
	Py_CLEAR(t->cache);
	Py_CLEAR(t->module);
	if (t->lock && t->forks == fork_count)
		PyThread_free_lock(t->lock);
	tp->tp_free(self);
	Py_DECREF(tp);
}

static PyObject *no_such(PyObject *module, PyObject *what)
{
	modstate *st = PyModule_GetState(module);

	return PyErr_Format(st->NoSuchInterface, "no such network interface: %R", what);
}

/* An index argument: 1 and *index, 0 for an int no link can have, -1 when not an int. */
static int index_arg(PyObject *arg, int32_t *index)
{
	long v;

	if (!PyLong_CheckExact(arg) && (!PyLong_Check(arg) || PyBool_Check(arg))) {
		PyErr_Format(PyExc_TypeError, "interface index must be int, not %.100s",
			     Py_TYPE(arg)->tp_name);
		return -1;
	}
	v = PyLong_AsLong(arg);
	if (v == -1 && PyErr_Occurred()) {
		PyErr_Clear();
		return 0;
	}
	if (v <= 0 || v > INT32_MAX)
		return 0;
	*index = (int32_t)v;
	return 1;
}

static PyObject *tables_by_index(PyObject *self, PyObject *arg)
{
	TablesObject *t = TABLES(self);
	PyObject *found = NULL;
	int32_t index = 0;
	int ok = index_arg(arg, &index);

	if (ok < 0 || ready(t, 0) < 0)
		return NULL;
	if (ok)
		found = link_now(t, index, NULL);
	Py_XINCREF(found);
	leave(t);
	return found ? found : no_such(t->module, arg);
}

/* ---- lookups by name and by link ---------------------------------------- */

static PyObject *sorting;       /* the links tuple qsort compares in (GIL held) */
static modstate *sorting_st;

static int name_cmp(const void *x, const void *y)
{
	return strcmp(netifc_iface_name(sorting_st, PyTuple_GET_ITEM(sorting, *(const uint32_t *)x)),
		      netifc_iface_name(sorting_st, PyTuple_GET_ITEM(sorting, *(const uint32_t *)y)));
}

/* Under the lock, merged: the link named name (borrowed), or NULL. */
static PyObject *link_named(TablesObject *t, const char *name)
{
	modstate *st = PyModule_GetState(t->module);
	size_t n = tuple_len(t->links.tuple), lo = 0, hi = n, mid, i;
	PyObject *o;
	int c;

	if (!t->by_name && n) {
		if (!(t->by_name = PyMem_Calloc(n, sizeof *t->by_name))) {
			PyErr_NoMemory();
			return NULL;
		}
		for (i = 0; i < n; i++)
			t->by_name[i] = (uint32_t)i;
		sorting = t->links.tuple;
		sorting_st = st;
		qsort(t->by_name, n, sizeof *t->by_name, name_cmp);
		sorting = NULL;
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		o = PyTuple_GET_ITEM(t->links.tuple, t->by_name[mid]);
		if ((c = strcmp(netifc_iface_name(st, o), name)) == 0)
			return o;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static PyObject *tables_by_name(PyObject *self, PyObject *arg)
{
	TablesObject *t = TABLES(self);
	PyObject *bytes = NULL, *found = NULL;

	if (!PyUnicode_Check(arg))
		return PyErr_Format(PyExc_TypeError, "interface name must be str, not %.100s",
				    Py_TYPE(arg)->tp_name);
	if (!(bytes = PyUnicode_EncodeFSDefault(arg))) {
		PyErr_Clear();          /* no link has a name that cannot be encoded */
		return no_such(t->module, arg);
	}
	if (ready(t, 1) < 0)
		goto done;
	if (strlen(PyBytes_AS_STRING(bytes)) == (size_t)PyBytes_GET_SIZE(bytes))
		found = link_named(t, PyBytes_AS_STRING(bytes));
	Py_XINCREF(found);
	leave(t);
	if (!found && !PyErr_Occurred())
		no_such(t->module, arg);
done:
	Py_DECREF(bytes);
	return found;
}

/* Under the lock, merged: a link's records of one table, IPv4 then IPv6. */
static PyObject *records_of(TablesObject *t, PyObject *tuple, int32_t index)
{
	modstate *st = PyModule_GetState(t->module);
	Py_ssize_t at[2][2], n = PyTuple_GET_SIZE(tuple), i, k = 0;
	PyObject *res;
	int rank;

	for (rank = 0; rank < 2; rank++) {
		at[rank][0] = at[rank][1] = run_start(st, tuple, rank, index);
		while (at[rank][1] < n) {
			const struct netifc_addr *a =
				netifc_addr_rec(st, PyTuple_GET_ITEM(tuple, at[rank][1]));

			if (a->index != index || family_rank(a) != rank)
				break;
			at[rank][1]++;
		}
	}
	if (!(res = PyTuple_New(at[0][1] - at[0][0] + at[1][1] - at[1][0])))
		return NULL;
	for (rank = 0; rank < 2; rank++)
		for (i = at[rank][0]; i < at[rank][1]; i++)
			PyTuple_SET_ITEM(res, k++, Py_NewRef(PyTuple_GET_ITEM(tuple, i)));
	return res;
}

static PyObject *of_link(PyObject *self, PyObject *arg, int groups)
{
	TablesObject *t = TABLES(self);
	modstate *st = PyModule_GetState(t->module);
	PyObject *res = NULL;
	int32_t index = 0;
	int ok = 1;

	if (Py_TYPE(arg) == st->Interface)
		index = netifc_iface_index(arg);
	else if ((ok = index_arg(arg, &index)) < 0)
		return NULL;
	if (groups && !t->groups.tuple)
		t->keep_groups = t->stale = 1;  /* from now on (read below) */
	if (ready(t, 1) < 0)
		return NULL;
	if (ok && link_in_tuple(t->links.tuple, index))
		res = records_of(t, groups ? t->groups.tuple : t->addrs.tuple, index);
	else
		no_such(t->module, arg);
	leave(t);
	return res;
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

	if (which == 2 && !t->groups.tuple)
		t->keep_groups = t->stale = 1;
	if (ready(t, 1) < 0)
		return NULL;
	res = which == 0 ? t->links.tuple : which == 1 ? t->addrs.tuple : t->groups.tuple;
	Py_XINCREF(res);
	leave(t);
	return res ? res : PyTuple_New(0);
}

static PyObject *tables_interfaces(PyObject *self, void *c) { (void)c; return whole(self, 0); }
static PyObject *tables_addrs(PyObject *self, void *c) { (void)c; return whole(self, 1); }
static PyObject *tables_groups(PyObject *self, void *c) { (void)c; return whole(self, 2); }

/* ---- the Watcher's side ---------------------------------------------------- */

static PyObject *tables_events(PyObject *self, PyObject *classes)
{
	TablesObject *t = TABLES(self);
	PyObject *out;

	if (!kinds_ok(classes))
		return NULL;
	if (!(out = PyList_New(0)))
		return NULL;
	if (enter(t) < 0) {
		Py_DECREF(out);
		return NULL;
	}
	if (take(t, out, classes) < 0 || merge(t) < 0)
		Py_CLEAR(out);
	leave(t);
	return out;
}

static PyObject *tables_fileno(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (TABLES(self)->w.fd < 0)
		return closed_error();
	return PyLong_FromLong(TABLES(self)->w.fd);
}

static PyObject *tables_close(PyObject *self, PyObject *unused)
{
	TablesObject *t = TABLES(self);

	(void)unused;
	if (t->open && t->w.fd >= 0) {
		Py_BEGIN_ALLOW_THREADS
		nl_watch_close(&t->w);
		Py_END_ALLOW_THREADS
	}
	Py_RETURN_NONE;
}

static PyObject *tables_closed(PyObject *self, void *c)
{
	(void)c;
	return PyBool_FromLong(TABLES(self)->w.fd < 0);
}

static PyObject *tables_group_kinds(PyObject *self, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLong(TABLES(self)->w.groups);
}

static PyObject *tables_get_cache(PyObject *self, void *c)
{
	(void)c;
	return Py_NewRef(TABLES(self)->cache ? TABLES(self)->cache : Py_None);
}

static int tables_set_cache(PyObject *self, PyObject *v, void *c)
{
	(void)c;
	Py_XSETREF(TABLES(self)->cache, v && v != Py_None ? Py_NewRef(v) : NULL);
	return 0;
}

/* One read: (interfaces, addrs, what the Python layer keeps or None). */
static PyObject *tables_current(PyObject *self, PyObject *unused)
{
	TablesObject *t = TABLES(self);
	PyObject *res;

	(void)unused;
	if (ready(t, 1) < 0)
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
	 "(class, (slot descriptor, ...)) for each kind."},
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
	{"_group_kinds", tables_group_kinds, NULL,
	 "Group events the kernel sends: 1 IPv4, 2 IPv6.", NULL},
	{"_cache", tables_get_cache, tables_set_cache,
	 "What the Python layer keeps until the next change (None).", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot tables_slots[] = {
	{Py_tp_doc, "_Tables(live)\n--\n\n"
		    "Link, address and group tables kept by netlink notifications (private)."},
	{Py_tp_new, tables_new},
	{Py_tp_dealloc, tables_dealloc},
	{Py_tp_methods, tables_methods},
	{Py_tp_getset, tables_getset},
	{0, NULL},
};

static PyType_Spec tables_spec = {
	"netifc._netifc._Tables", sizeof(TablesObject), 0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE, tables_slots,
};

int netifc_add_tables_type(PyObject *m, modstate *st)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	PyObject *tp = PyType_FromModuleAndSpec(m, &tables_spec, NULL);

	if (!tp)
		return -1;
	st->Tables = (PyTypeObject *)tp;
	pthread_once(&once, count_forks_from_now);
	return PyModule_AddObject(m, "_Tables", Py_NewRef(tp));
}
