/*
 * live_model.c -- the live tables' changes (live/changes.c) and merge
 * (live/merge.c) against a model (live_model.h): sequences of links,
 * addresses and groups added, changed and removed (a link's removal takes
 * its records; an address may come before its link), merges (on their own,
 * and once the changes outnumber the tables, as python/live_table.c's
 * lt_bound does) and resyncs (what an overflow ends in); at every step,
 * what the changes and the base say of every link and every record equals
 * the model, and every merge keeps the tables' order.  The harness applies
 * what is told as python/live_apply.c does (apply_link, records_gone,
 * apply_addr), records as numbers.  Driven by live_check.c (random steps)
 * and csrc/fuzz/fuzz_live.c (the fuzzer's bytes).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "check/live_model.h"
#include "live/merge.h"

#define LINKS 6  /* indexes 1..LINKS */
#define PER_LINK 4 /* keys per link and table */
#define KEYS (LINKS * PER_LINK)

static long failures;

/* ---- the tables under test: a base and the changes since ------------------ */

struct tables {
	/* the base, in the tables' order: links; addresses, groups (of links there then) */
	struct lt_placed base_link[LINKS], base_rec[2][KEYS];
	size_t nlinks, nrecs[2];
	struct lt_changes links, recs[2];
	uint32_t seq;
	size_t base_n; /* records in the base: what lt_bound compares with */
};

/* ---- the model: what is there ---------------------------------------------- */

struct model {
	uintptr_t link[LINKS + 1];
	uintptr_t rec[2][KEYS]; /* of links there or not yet told of */
};

static struct lt_key keys[KEYS];
static uintptr_t version;

static int link_of(int key)
{
	return key / PER_LINK + 1;
}

static void make_keys(void)
{
	struct netifc_addr a;
	int i;

	for (i = 0; i < KEYS; i++) {
		memset(&a, 0, sizeof a);
		a.index = link_of(i);
		a.family = i % 2 ? AF_INET6 : AF_INET;
		a.prefixlen = (uint8_t)(i % 3 ? 64 : 24);
		a.local[0] = (uint8_t)(10 + i % PER_LINK);
		a.local[3] = (uint8_t)i;
		a.has_peer = i % PER_LINK == 3;
		if (a.has_peer)
			a.peer[0] = 99;
		lt_key_addr(&keys[i], &a);
	}
}

/* The number of key k (make_keys writes it in local[3]), -1 for none of them. */
static int key_of(const struct lt_key *k)
{
	int i = k->local[3];

	return i < KEYS && !memcmp(&keys[i], k, sizeof *k) ? i : -1;
}

static uintptr_t base_link(const struct tables *t, int index)
{
	size_t i;

	for (i = 0; i < t->nlinks; i++)
		if (t->base_link[i].index == index)
			return (uintptr_t)t->base_link[i].rec;
	return 0;
}

static int in_base(void *t, int32_t index)
{
	return base_link(t, index) != 0;
}

static uintptr_t link_now(const struct tables *t, int index, uint32_t *gone)
{
	void *rec;
	int r = lt_link_now(&t->links, index, &rec, gone);

	return r < 0 ? base_link(t, index) : (uintptr_t)rec;
}

static uintptr_t rec_now(const struct tables *t, int tab, int key)
{
	uint32_t gone;
	size_t i;
	void *rec;

	link_now(t, link_of(key), &gone);
	if (lt_addr_now(&t->recs[tab], &keys[key], gone, &rec) >= 0)
		return (uintptr_t)rec;
	for (i = 0; i < t->nrecs[tab]; i++)
		if (key_of(&t->base_rec[tab][i].key) == key)
			return (uintptr_t)t->base_rec[tab][i].rec;
	return 0;
}

static struct lt_change *entry(struct lt_changes *c, const struct lt_key *k)
{
	struct lt_change *e = lt_changes_entry(c, k);

	if (!e) {
		fprintf(stderr, "live_check: out of memory\n");
		exit(2);
	}
	return e;
}

/* An address or group told there (rec) or removed (rec 0), as apply_addr does. */
static void tell_rec(struct tables *t, int tab, int key, uintptr_t rec)
{
	uintptr_t old = rec_now(t, tab, key);
	uint32_t gone;

	link_now(t, link_of(key), &gone);
	if (!rec && !old)
		return;
	lt_told_addr(entry(&t->recs[tab], &keys[key]), (void *)(rec ? rec : old), !rec, gone,
		     &t->seq);
}

/* A link told there (rec) or removed (rec 0), as apply_link and records_gone do. */
static void tell_link(struct tables *t, int index, uintptr_t rec)
{
	struct lt_key k;
	uint32_t gone;
	uintptr_t old = link_now(t, index, &gone);
	int tab, key;

	if (!rec && old)
		for (tab = 0; tab < 2; tab++)
			for (key = 0; key < KEYS; key++)
				if (link_of(key) == index && rec_now(t, tab, key))
					tell_rec(t, tab, key, 0);
	lt_key_index(&k, index);
	lt_told_link(entry(&t->links, &k), (void *)(rec ? rec : old), !rec, &t->seq);
}

static void clear(struct tables *t)
{
	lt_changes_free(&t->links);
	lt_changes_free(&t->recs[0]);
	lt_changes_free(&t->recs[1]);
	t->seq = 0;
}

static void fail(long step, const char *what)
{
	fprintf(stderr, "step %ld: merge: %s\n", step, what);
	failures++;
}

/*
 * The merged records of a table in the tables' order: by rank, then link;
 * a link's records of the base first, in the base's order, then the rest.
 */
static void check_order(const struct tables *before, int tab, const struct lt_placed *v, size_t n,
			long step)
{
	size_t i, j, at_prev = 0;
	int from_base_prev = 1;
	uint32_t gone;

	for (i = 0; i < n; i++) {
		size_t at = SIZE_MAX; /* its place in the base, if kept from there */

		link_now(before, v[i].index, &gone);
		for (j = 0; !gone && j < before->nrecs[tab]; j++)
			if (!memcmp(&before->base_rec[tab][j].key, &v[i].key, sizeof v[i].key))
				at = j;
		if (i && (v[i - 1].rank > v[i].rank ||
			  (v[i - 1].rank == v[i].rank && v[i - 1].index > v[i].index)))
			fail(step, "not by rank, then link");
		if (i && v[i - 1].rank == v[i].rank && v[i - 1].index == v[i].index) {
			if (at != SIZE_MAX && (!from_base_prev || at < at_prev))
				fail(step, "a link's records of the base not first, in order");
			if (at == SIZE_MAX && !from_base_prev && v[i].order < v[i - 1].order)
				fail(step, "a link's additions not in the order told");
		}
		if (v[i].rank != (keys[key_of(&v[i].key)].family != AF_INET) ||
		    v[i].index != link_of(key_of(&v[i].key)))
			fail(step, "a record placed by another's rank or link");
		from_base_prev = at != SIZE_MAX;
		at_prev = at;
	}
}

/* Every change merged into the base by live/merge.c, as lt_merge does: a
 * record of a link not there stays told. */
static void merge(struct tables *t, long step)
{
	struct lt_placed links[LINKS + KEYS], recs[2][2 * KEYS], carry[2][2 * KEYS];
	size_t nl, n[2], nc[2], i;
	int tab;

	for (tab = 0; tab < 2; tab++) {
		if (lt_merge_records(t->base_rec[tab], t->nrecs[tab], &t->recs[tab], &t->links,
				     in_base, t, recs[tab], &n[tab], carry[tab], &nc[tab]) < 0) {
			fprintf(stderr, "live_check: out of memory\n");
			exit(2);
		}
		check_order(t, tab, recs[tab], n[tab], step);
	}
	if (lt_merge_links(t->base_link, t->nlinks, &t->links, links, &nl) < 0) {
		fprintf(stderr, "live_check: out of memory\n");
		exit(2);
	}
	for (i = 0; i < nl; i++)
		if ((i && links[i - 1].index >= links[i].index) || !links[i].rec)
			fail(step, "links not by index, or one removed kept");
	clear(t);
	memcpy(t->base_link, links, nl * sizeof *links);
	t->nlinks = t->base_n = nl;
	for (tab = 0; tab < 2; tab++) {
		memcpy(t->base_rec[tab], recs[tab], n[tab] * sizeof *recs[tab]);
		t->base_n += t->nrecs[tab] = n[tab];
		for (i = 0; i < nc[tab]; i++) {
			struct lt_change *e = entry(&t->recs[tab], &carry[tab][i].key);

			lt_told_addr(e, carry[tab][i].rec, 0, 0, &t->seq);
		}
	}
}

/* The tables read again (a Resync): the kernel's, which lists no record of a link not there. */
static void resync(struct tables *t, struct model *m)
{
	int i, tab;

	struct lt_placed *p;
	int rank;

	clear(t);
	t->nlinks = 0;
	for (i = 1; i <= LINKS; i++)
		if (m->link[i])
			t->base_link[t->nlinks++] =
				(struct lt_placed){ .index = i, .rec = (void *)m->link[i] };
	t->base_n = t->nlinks;
	for (tab = 0; tab < 2; tab++) {
		t->nrecs[tab] = 0;
		for (rank = 0; rank < 2; rank++) /* as a dump gives them: IPv4, then IPv6; by link */
			for (i = 0; i < KEYS; i++) {
				if (!m->link[link_of(i)])
					m->rec[tab][i] = 0;
				if (!m->rec[tab][i] || (keys[i].family != AF_INET) != rank)
					continue;
				p = &t->base_rec[tab][t->nrecs[tab]++];
				*p = (struct lt_placed){ .index = link_of(i),
							 .rank = (uint8_t)rank,
							 .rec = (void *)m->rec[tab][i],
							 .key = keys[i] };
			}
		t->base_n += t->nrecs[tab];
	}
}

static void check(const struct tables *t, const struct model *m, long step, const char *what)
{
	uint32_t gone;
	int i, tab;

	for (i = 1; i <= LINKS; i++)
		if (link_now(t, i, &gone) != m->link[i]) {
			fprintf(stderr, "step %ld (%s): link %d is %lu, the model's %lu\n", step,
				what, i, (unsigned long)link_now(t, i, &gone),
				(unsigned long)m->link[i]);
			failures++;
		}
	for (tab = 0; tab < 2; tab++)
		for (i = 0; i < KEYS; i++)
			if (rec_now(t, tab, i) != m->rec[tab][i]) {
				fprintf(stderr, "step %ld (%s): %s %d is %lu, the model's %lu\n",
					step, what, tab ? "group" : "address", i,
					(unsigned long)rec_now(t, tab, i),
					(unsigned long)m->rec[tab][i]);
				failures++;
			}
}

/* One step, from four draws (NULL: the draws ran out). */
static const char *step_once(struct tables *t, struct model *m, long step, lm_draw draw, void *ctx)
{
	uint32_t v[4], r;
	int index, key, tab, i;

	for (i = 0; i < 4; i++)
		if (draw(ctx, &v[i]) < 0)
			return NULL;
	r = v[0] % 100;
	index = (int)(v[1] % LINKS) + 1;
	key = (int)(v[2] % KEYS);
	tab = (int)(v[3] % 2);

	if (r < 15) { /* a link added or changed */
		m->link[index] = ++version;
		tell_link(t, index, version);
		return "link told";
	}
	if (r < 22) { /* a link removed (deleted, moved out): its records with it */
		m->link[index] = 0;
		for (i = 0; i < KEYS; i++)
			if (link_of(i) == index)
				m->rec[0][i] = m->rec[1][i] = 0;
		tell_link(t, index, 0);
		return "link removed";
	}
	if (r < 62) { /* an address or group added or changed (its link may come after) */
		m->rec[tab][key] = ++version;
		tell_rec(t, tab, key, version);
		return "record told";
	}
	if (r < 88) {
		m->rec[tab][key] = 0;
		tell_rec(t, tab, key, 0);
		return "record removed";
	}
	if (r < 94) {
		merge(t, step);
		return "merge";
	}
	resync(t, m);
	return "resync";
}

long lm_run(lm_draw draw, void *ctx, long steps)
{
	struct tables t;
	struct model m;
	const char *what;
	long step;

	memset(&t, 0, sizeof t);
	memset(&m, 0, sizeof m);
	failures = 0;
	version = 0;
	make_keys();
	for (step = 0; step < steps && failures < 20; step++) {
		if (!(what = step_once(&t, &m, step, draw, ctx)))
			break;
		check(&t, &m, step, what);
		/* bounded: merged once they outnumber the tables (lt_bound, smaller) */
		if (t.links.n > 4 + t.base_n || t.recs[0].n > 4 + t.base_n ||
		    t.recs[1].n > 4 + t.base_n) {
			merge(&t, step);
			check(&t, &m, step, "merge (bound)");
		}
	}
	clear(&t);
	return failures;
}
