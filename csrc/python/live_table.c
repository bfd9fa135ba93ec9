/*
 * python/live_table.c -- the live tables' own logic: the changes told since each
 * tuple was made, by key (an open-addressing hash over the entries, which
 * are only added to until the next merge), lookups through them, and the
 * merge that makes new tuples.  See live.c for what the tables are.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "live/merge.h"
#include "python/live_table.h"

/* ---- the changes (live/changes.c), holding records ---------------------------- */

/* The entry of k, made (holding no record yet) when there is none; NULL: no memory. */
entry *lt_entry(delta *d, const struct lt_key *k)
{
	entry *e = lt_changes_entry(d, k);

	return e ? e : (entry *)PyErr_NoMemory();
}

static void delta_clear(delta *d)
{
	uint32_t i;

	for (i = 0; i < d->n; i++)
		Py_XDECREF(d->v[i].rec);
	lt_changes_free(d);
}

void lt_clear(table *t)
{
	Py_CLEAR(t->tuple);
	delta_clear(&t->d);
	PyMem_Free(t->exp);
	t->exp = NULL;
}

/* ---- lifetimes, counted down ---------------------------------------------- */

/*
 * rec as it is now (a new reference): its zone its link's name (link NULL:
 * as it is), its lifetimes x counted down to now (x NULL: as told).
 */
static PyObject *record_now(modstate *st, PyObject *rec, PyObject *link, const struct lt_expiry *x,
			    int64_t now, int64_t *next)
{
	const struct netifc_addr *a = netifc_addr_rec(st, rec);
	const char *name = link ? netifc_iface_name(st, link) : NULL;
	int rezone = name && netifc_addr_needs_zone(a) && strcmp(a->zone, name);
	struct netifc_addr copy = *a;

	if (x && lt_runs_out(x)) {
		copy.preferred = lt_left(x->preferred, now, next);
		copy.valid = lt_left(x->valid, now, next);
	}
	if (!rezone && copy.preferred == a->preferred && copy.valid == a->valid)
		return Py_NewRef(rec);
	if (rezone) {
		memset(copy.zone, 0, sizeof copy.zone);
		/* at most 15 bytes into the zeroed zone: memcpy, as GCC 16's
		 * -Wstringop-truncation refuses the same strncpy */
		memcpy(copy.zone, name, strnlen(name, sizeof copy.zone - 1));
	}
	return netifc_new_addr(st, &copy);
}

/* A tuple made, with its records' expiries by position (NULL: none runs out). */
struct made {
	PyObject *tuple;
	struct lt_expiry *exp;
	int64_t next;
};

static void install(table *tab, struct made *m)
{
	Py_XSETREF(tab->tuple, m->tuple);
	PyMem_Free(tab->exp);
	tab->exp = m->exp;
	tab->next_age = m->next;
	m->tuple = NULL;
	m->exp = NULL;
}

static void made_free(struct made *m)
{
	Py_CLEAR(m->tuple);
	PyMem_Free(m->exp);
	m->exp = NULL;
}

/* ---- the records as they are now ---------------------------------------- */

static int family_rank(const struct netifc_addr *a)
{
	return a->family != AF_INET; /* IPv4 first */
}

PyObject *lt_link_in_tuple(PyObject *tuple, int32_t index)
{
	Py_ssize_t lo = 0, hi = tuple ? NETIFC_TUPLE_SIZE(tuple) : 0, mid;
	int32_t at;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		at = netifc_iface_index(NETIFC_TUPLE_ITEM(tuple, mid));
		if (at == index)
			return NETIFC_TUPLE_ITEM(tuple, mid);
		if (at < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Link `index` now (borrowed), or NULL; *gone: when it was last removed. */
PyObject *lt_link(TablesObject *t, int32_t index, uint32_t *gone)
{
	uint32_t when;
	void *rec;
	int r = lt_link_now(&t->links.d, index, &rec, &when);

	if (gone)
		*gone = when;
	return r < 0 ? lt_link_in_tuple(t->links.tuple, index) : rec;
}

/* The first position in an address tuple at or after (rank, index). */
static Py_ssize_t run_start(modstate *st, PyObject *tuple, int rank, int32_t index)
{
	Py_ssize_t lo = 0, hi = NETIFC_TUPLE_SIZE(tuple), mid;
	const struct netifc_addr *a;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		a = netifc_addr_rec(st, NETIFC_TUPLE_ITEM(tuple, mid));
		if (family_rank(a) < rank || (family_rank(a) == rank && a->index < index))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static PyObject *addr_in_tuple(modstate *st, PyObject *tuple, const struct lt_key *k)
{
	struct netifc_addr probe = {.family = k->family, .index = k->index};
	int rank = family_rank(&probe);
	Py_ssize_t i, n = tuple ? NETIFC_TUPLE_SIZE(tuple) : 0;
	const struct netifc_addr *a;
	struct lt_key ak;

	for (i = n ? run_start(st, tuple, rank, k->index) : 0; i < n; i++) {
		a = netifc_addr_rec(st, NETIFC_TUPLE_ITEM(tuple, i));
		if (a->index != k->index || family_rank(a) != rank)
			break;
		lt_key_addr(&ak, a);
		if (!memcmp(&ak, k, sizeof ak))
			return NETIFC_TUPLE_ITEM(tuple, i);
	}
	return NULL;
}

/* The address (or group) of key k now (borrowed), or NULL; gone: as lt_link tells it. */
PyObject *lt_addr(TablesObject *t, table *tab, const struct lt_key *k, uint32_t gone)
{
	void *rec;

	if (lt_addr_now(&tab->d, k, gone, &rec) < 0)
		return addr_in_tuple(PyModule_GetState(t->module), tab->tuple, k);
	return rec;
}

/* Link index's records of one table now, merged or not (a new list). */
PyObject *lt_records_now(TablesObject *t, table *tab, int32_t index)
{
	modstate *st = PyModule_GetState(t->module);
	Py_ssize_t i, n = tab->tuple ? NETIFC_TUPLE_SIZE(tab->tuple) : 0;
	PyObject *res = PyList_New(0), *rec;
	const struct netifc_addr *a;
	struct lt_key k;
	uint32_t gone, j;
	entry *e;
	int rank;

	lt_link(t, index, &gone);
	for (rank = 0; res && !gone && rank < 2; rank++) {
		for (i = n ? run_start(st, tab->tuple, rank, index) : 0; res && i < n; i++) {
			rec = NETIFC_TUPLE_ITEM(tab->tuple, i);
			a = netifc_addr_rec(st, rec);
			if (a->index != index || family_rank(a) != rank)
				break;
			lt_key_addr(&k, a);
			if ((e = lt_changes_find(&tab->d, &k)) && !e->present)
				continue;
			if (PyList_Append(res, e ? e->rec : rec) < 0)
				Py_CLEAR(res);
		}
	}
	for (j = 0; res && j < tab->d.n; j++) {
		e = &tab->d.v[j];
		if (e->k.index != index || !e->present || e->seq <= gone ||
		    (!gone && addr_in_tuple(st, tab->tuple, &e->k)))
			continue;
		if (PyList_Append(res, e->rec) < 0)
			Py_CLEAR(res);
	}
	return res;
}

/* rec, or a copy whose zone is its link's name now (new references). */
PyObject *lt_rezoned(modstate *st, PyObject *rec, PyObject *link)
{
	return record_now(st, rec, link, NULL, 0, NULL);
}

/* ---- merging the changes in --------------------------------------------- */

/* Whether the links tuple has link index (live/merge.h's lt_in_base). */
static int link_in_base(void *t, int32_t index)
{
	return lt_link_in_tuple(TABLES(t)->links.tuple, index) != NULL;
}

struct making {
	TablesObject *t;
	int zones;
	int64_t now, next;
};

/* The record, lt_rezoned by its link if zones (by none: NULL), its lifetimes counted down. */
static PyObject *placed_made(void *ctx, const void *placed, size_t i)
{
	struct making *m = ctx;
	const struct lt_placed *p = (const struct lt_placed *)placed + i;

	if (!m->zones && !lt_runs_out(&p->exp))
		return Py_NewRef(p->rec);
	return record_now(PyModule_GetState(m->t->module), p->rec,
			  m->zones ? lt_link(m->t, p->index, NULL) : NULL, &p->exp, m->now,
			  &m->next);
}

/* A tuple of the n records, each lt_rezoned by its link if zones, as they are now. */
static int make_tuple(TablesObject *t, const struct lt_placed *p, size_t n, int zones,
		      struct made *out)
{
	struct making m = {t, zones, 0, INT64_MAX};
	size_t i;
	int finite = 0;

	for (i = 0; i < n && !finite; i++)
		finite = lt_runs_out(&p[i].exp);
	out->exp = NULL;
	if (finite) {
		m.now = lt_now();
		if (!(out->exp = PyMem_Calloc(n, sizeof *out->exp))) {
			PyErr_NoMemory();
			return -1;
		}
		for (i = 0; i < n; i++)
			out->exp[i] = p[i].exp;
	}
	if (!(out->tuple = netifc_tuple_of(&m, p, n, placed_made))) {
		made_free(out);
		return -1;
	}
	out->next = m.next;
	return 0;
}

/* The links tuple with the changes in. */
static PyObject *merged_links(TablesObject *t)
{
	delta *d = &t->links.d;
	Py_ssize_t nb = NETIFC_TUPLE_SIZE(t->links.tuple), i;
	struct lt_placed *base = PyMem_Calloc((size_t)nb + 1, sizeof *base);
	struct lt_placed *out = PyMem_Calloc((size_t)nb + d->n + 1, sizeof *out);
	PyObject *res = NULL, *b;
	struct made made;
	size_t n;

	if (!base || !out)
		goto done;
	for (i = 0; i < nb; i++) {
		b = NETIFC_TUPLE_ITEM(t->links.tuple, i);
		base[i] = (struct lt_placed){.index = netifc_iface_index(b), .rec = b};
	}
	if (lt_merge_links(base, (size_t)nb, d, out, &n) == 0 &&
	    make_tuple(t, out, n, 0, &made) == 0)
		res = made.tuple; /* (links run out never: no expiries) */
done:
	PyMem_Free(base);
	PyMem_Free(out);
	return res ? res : (PyErr_Occurred() ? NULL : PyErr_NoMemory());
}

/* What a merge keeps aside: records (owned) of links not told of yet. */
struct carry {
	struct lt_placed *v;
	size_t n;
};

static void carry_free(struct carry *c)
{
	size_t i;

	for (i = 0; c->v && i < c->n; i++)
		Py_XDECREF((PyObject *)c->v[i].rec);
	PyMem_Free(c->v);
	c->v = NULL;
	c->n = 0;
}

/* An address or group tuple with the changes in (live/merge.c): only records
 * of links there now, each with its link's name as its zone. */
static int merged_addrs(TablesObject *t, table *tab, struct carry *carry, struct made *res)
{
	modstate *st = PyModule_GetState(t->module);
	delta *d = &tab->d;
	Py_ssize_t nb = NETIFC_TUPLE_SIZE(tab->tuple), i;
	struct lt_placed *base = PyMem_Calloc((size_t)nb + 1, sizeof *base);
	struct lt_placed *out = PyMem_Calloc((size_t)nb + d->n + 1, sizeof *out);
	const struct netifc_addr *a;
	size_t n, k;
	PyObject *b;
	int r = -1;

	carry->v = PyMem_Calloc((size_t)nb + d->n + 1, sizeof *carry->v);
	if (!base || !out || !carry->v)
		goto done;
	for (i = 0; i < nb; i++) {
		b = NETIFC_TUPLE_ITEM(tab->tuple, i);
		a = netifc_addr_rec(st, b);
		base[i] = (struct lt_placed){.index = a->index,
					     .rank = (uint8_t)family_rank(a),
					     .rec = b,
					     .exp = tab->exp ? tab->exp[i]
							     : (struct lt_expiry){0, 0}};
		lt_key_addr(&base[i].key, a);
	}
	if (lt_merge_records(base, (size_t)nb, d, &t->links.d, link_in_base, t, out, &n, carry->v,
			     &carry->n) < 0)
		goto done;
	for (k = 0; k < carry->n;
	     k++) /* theirs from now: the changes go before they are told again */
		Py_INCREF((PyObject *)carry->v[k].rec);
	r = make_tuple(t, out, n, 1, res);
done:
	PyMem_Free(base);
	PyMem_Free(out);
	if (r < 0 && !PyErr_Occurred())
		PyErr_NoMemory();
	return r;
}

/* The records kept aside by a merge, told again into tab's (cleared) changes. */
static int carry_over(TablesObject *t, table *tab, struct carry *carry)
{
	void *held;
	entry *e;
	size_t i;

	for (i = 0; i < carry->n; i++) {
		if (!(e = lt_entry(&tab->d, &carry->v[i].key)))
			return -1;
		held = e->rec;
		lt_told_addr(e, carry->v[i].rec, 0, 0, &t->seq);
		carry->v[i].rec = NULL; /* (the entry's now) */
		e->exp = carry->v[i].exp;
		Py_XDECREF((PyObject *)held);
	}
	return 0;
}

/*
 * Every change merged in: all three tuples made before any is replaced.
 * An address or group of a link not told of yet (the kernel tells of a new
 * link's groups before the link) stays among the changes until it is.
 */
int lt_merge(TablesObject *t)
{
	struct made addrs = {0}, groups = {0};
	struct carry carry_a = {NULL, 0}, carry_g = {NULL, 0};
	PyObject *links = NULL;
	int r = -1;

	if (!t->links.d.n && !t->addrs.d.n && !t->groups.d.n) {
		r = 0;
		goto done;
	}
	if (merged_addrs(t, &t->addrs, &carry_a, &addrs) < 0 ||
	    (t->groups.tuple && merged_addrs(t, &t->groups, &carry_g, &groups) < 0) ||
	    !(links = merged_links(t)))
		goto done;
	if (t->links.d.n) {
		PyMem_Free(t->by_name);
		t->by_name = NULL;
	}
	install(&t->addrs, &addrs);
	if (groups.tuple)
		install(&t->groups, &groups);
	Py_XSETREF(t->links.tuple, links);
	links = NULL;
	delta_clear(&t->links.d);
	delta_clear(&t->addrs.d);
	delta_clear(&t->groups.d);
	t->seq = 0;
	if (carry_over(t, &t->addrs, &carry_a) < 0 || carry_over(t, &t->groups, &carry_g) < 0)
		t->stale = 1; /* what was kept aside is lost: read the tables again */
	else
		r = 0;
done:
	made_free(&addrs);
	made_free(&groups);
	Py_XDECREF(links);
	carry_free(&carry_a);
	carry_free(&carry_g);
	return r;
}

/* The expiries of a tuple just read from the kernel: its lifetimes are as of now. */
int lt_expiries(TablesObject *t, table *tab)
{
	modstate *st = PyModule_GetState(t->module);
	Py_ssize_t i, n = tab->tuple ? NETIFC_TUPLE_SIZE(tab->tuple) : 0;
	int64_t now = lt_now(), next = INT64_MAX;
	struct lt_expiry x, *v = NULL;

	for (i = 0; i < n; i++) {
		lt_expiry(&x, netifc_addr_rec(st, NETIFC_TUPLE_ITEM(tab->tuple, i)), now);
		if (!lt_runs_out(&x))
			continue;
		if (!v && !(v = PyMem_Calloc((size_t)n, sizeof *v))) {
			PyErr_NoMemory();
			return -1;
		}
		v[i] = x;
		lt_left(x.preferred, now, &next);
		lt_left(x.valid, now, &next);
	}
	PyMem_Free(tab->exp);
	tab->exp = v;
	tab->next_age = next;
	return 0;
}

/* Merged: the tuple made anew once a lifetime in it has dropped by a second (1), else 0. */
int lt_age(TablesObject *t, table *tab)
{
	Py_ssize_t i, n;
	struct lt_placed *p;
	struct made m;
	int r;

	if (!tab->exp || !tab->tuple || lt_now() < tab->next_age)
		return 0;
	n = NETIFC_TUPLE_SIZE(tab->tuple);
	if (!(p = PyMem_Calloc((size_t)n + 1, sizeof *p))) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < n; i++)
		p[i] = (struct lt_placed){.rec = NETIFC_TUPLE_ITEM(tab->tuple, i),
					  .exp = tab->exp[i]};
	r = make_tuple(t, p, (size_t)n, 0, &m);
	PyMem_Free(p);
	if (r < 0)
		return -1;
	install(tab, &m);
	return 1;
}

size_t lt_len(PyObject *tuple)
{
	return tuple ? (size_t)NETIFC_TUPLE_SIZE(tuple) : 0;
}

/* Changes beyond the tables' size are merged in: what is pending stays bounded. */
int lt_bound(TablesObject *t)
{
	if (t->links.d.n > 64 + lt_len(t->links.tuple) ||
	    t->addrs.d.n > 64 + lt_len(t->addrs.tuple) ||
	    t->groups.d.n > 64 + lt_len(t->groups.tuple))
		return lt_merge(t);
	return 0;
}

/* A dump's records in the tables' order (a stable sort of a new tuple). */
PyObject *lt_ordered(TablesObject *t, PyObject *tuple, int links)
{
	modstate *st = PyModule_GetState(t->module);
	Py_ssize_t n = NETIFC_TUPLE_SIZE(tuple), i;
	struct lt_placed *p = PyMem_Calloc((size_t)n + 1, sizeof *p);
	const struct netifc_addr *a;
	struct made made;
	PyObject *res;

	if (!p)
		return PyErr_NoMemory();
	for (i = 0; i < n; i++) {
		PyObject *o = NETIFC_TUPLE_ITEM(tuple, i);

		if (Py_TYPE(o) != (links ? st->Interface : st->Addr)) {
			PyMem_Free(p);
			return netifc_type_error(PyExc_TypeError,
						 links ? "_snapshot() gave a %U among its links"
						       : "_snapshot() gave a %U among its records",
						 Py_TYPE(o));
		}
		if (links) {
			p[i] = (struct lt_placed){
				.index = netifc_iface_index(o), .order = (uint32_t)i, .rec = o};
		} else {
			a = netifc_addr_rec(st, o);
			p[i] = (struct lt_placed){.index = a->index,
						  .rank = (uint8_t)family_rank(a),
						  .order = (uint32_t)i,
						  .rec = o};
		}
	}
	qsort(p, (size_t)n, sizeof *p, lt_placed_cmp);
	res = make_tuple(t, p, (size_t)n, 0, &made) < 0 ? NULL : made.tuple;
	PyMem_Free(p);
	return res; /* (no expiries among a dump's placed: lt_expiries tells them) */
}

/* ---- lookups by name and by link ---------------------------------------- */

struct named {
	const char *name; /* in a link of the tuple */
	uint32_t at;
};

static int named_cmp(const void *x, const void *y)
{
	return strcmp(((const struct named *)x)->name, ((const struct named *)y)->name);
}

/* t->by_name: the links' positions by name; -1 when out of memory. */
static int index_names(TablesObject *t, modstate *st, size_t n)
{
	struct named *v = PyMem_Calloc(n, sizeof *v);
	size_t i;

	if (!v || !(t->by_name = PyMem_Calloc(n, sizeof *t->by_name))) {
		PyMem_Free(v);
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < n; i++)
		v[i] = (struct named){netifc_iface_name(st, NETIFC_TUPLE_ITEM(t->links.tuple, i)),
				      (uint32_t)i};
	qsort(v, n, sizeof *v, named_cmp);
	for (i = 0; i < n; i++)
		t->by_name[i] = v[i].at;
	PyMem_Free(v);
	return 0;
}

/* Under the lock, merged: the link named name (borrowed), or NULL. */
PyObject *lt_link_named(TablesObject *t, const char *name)
{
	modstate *st = PyModule_GetState(t->module);
	size_t n = lt_len(t->links.tuple), lo = 0, hi = n, mid;
	PyObject *o;
	int c;

	if (!t->by_name && n && index_names(t, st, n) < 0)
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		o = NETIFC_TUPLE_ITEM(t->links.tuple, t->by_name[mid]);
		if ((c = strcmp(netifc_iface_name(st, o), name)) == 0)
			return o;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Under the lock, merged: a link's records of one table, IPv4 then IPv6. */
PyObject *lt_records_of(TablesObject *t, PyObject *tuple, int32_t index)
{
	modstate *st = PyModule_GetState(t->module);
	Py_ssize_t at[2][2], n = NETIFC_TUPLE_SIZE(tuple), i, k = 0;
	PyObject *res;
	int rank;

	for (rank = 0; rank < 2; rank++) {
		at[rank][0] = at[rank][1] = run_start(st, tuple, rank, index);
		while (at[rank][1] < n) {
			const struct netifc_addr *a =
				netifc_addr_rec(st, NETIFC_TUPLE_ITEM(tuple, at[rank][1]));

			if (a->index != index || family_rank(a) != rank)
				break;
			at[rank][1]++;
		}
	}
	if (!(res = PyTuple_New(at[0][1] - at[0][0] + at[1][1] - at[1][0])))
		return NULL;
	for (rank = 0; rank < 2; rank++)
		for (i = at[rank][0]; i < at[rank][1]; i++)
			NETIFC_TUPLE_SET(res, k++, Py_NewRef(NETIFC_TUPLE_ITEM(tuple, i)));
	return res;
}
