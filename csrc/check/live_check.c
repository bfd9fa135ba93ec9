/*
 * live_check.c -- the live tables' changes (live/changes.c) against a
 * model: random sequences of links, addresses and groups added, changed
 * and removed (a link's removal takes its records; an address may come
 * before its link), merges (on their own, and once the changes outnumber
 * the tables, as python/live_table.c's lt_bound does) and resyncs (what
 * an overflow ends in); at every step, what the changes and the base say
 * of every link and every record equals the model.  Then the lifetimes'
 * arithmetic against its definition.  The harness applies what is told as
 * python/live.c does (apply_link, records_gone, apply_addr), records as
 * numbers.  Built with ASan+UBSan+LSan by csrc/check/run.sh; exit status 0
 * when all is well.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "live/changes.h"

#define LINKS 6  /* indexes 1..LINKS */
#define PER_LINK 4 /* keys per link and table */
#define KEYS (LINKS * PER_LINK)
#define STEPS 200000

static int failures;
static uint32_t rnd = 12345;

static uint32_t next_rand(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 17;
	rnd ^= rnd << 5;
	return rnd;
}

/* ---- the tables under test: a base and the changes since ------------------ */

struct tables {
	uintptr_t base_link[LINKS + 1]; /* record (a number), 0: none */
	uintptr_t base_rec[2][KEYS];    /* addresses, groups: of links there at the merge */
	struct lt_changes links, recs[2];
	uint32_t seq;
	size_t base_n;                  /* records in the base: what lt_bound compares with */
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

static uintptr_t link_now(const struct tables *t, int index, uint32_t *gone)
{
	void *rec;
	int r = lt_link_now(&t->links, index, &rec, gone);

	return r < 0 ? t->base_link[index] : (uintptr_t)rec;
}

static uintptr_t rec_now(const struct tables *t, int tab, int key)
{
	uint32_t gone;
	void *rec;

	link_now(t, link_of(key), &gone);
	if (lt_addr_now(&t->recs[tab], &keys[key], gone, &rec) < 0)
		return t->base_rec[tab][key];
	return (uintptr_t)rec;
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

/* Every change merged into the base, as lt_merge does: a record of a link not there stays told. */
static void merge(struct tables *t)
{
	uintptr_t link[LINKS + 1], rec[2][KEYS], carry[2][KEYS];
	uint32_t gone;
	int i, tab;

	t->base_n = 0;
	for (i = 1; i <= LINKS; i++)
		t->base_n += (link[i] = link_now(t, i, &gone)) != 0;
	for (tab = 0; tab < 2; tab++)
		for (i = 0; i < KEYS; i++) {
			uintptr_t r = rec_now(t, tab, i);

			rec[tab][i] = link[link_of(i)] ? r : 0;
			carry[tab][i] = link[link_of(i)] ? 0 : r;
			t->base_n += rec[tab][i] != 0;
		}
	clear(t);
	memcpy(t->base_link, link, sizeof link);
	memcpy(t->base_rec, rec, sizeof rec);
	for (tab = 0; tab < 2; tab++)
		for (i = 0; i < KEYS; i++)
			if (carry[tab][i]) {
				struct lt_change *e = entry(&t->recs[tab], &keys[i]);

				lt_told_addr(e, (void *)carry[tab][i], 0, 0, &t->seq);
			}
}

/* The tables read again (a Resync): the kernel's, which lists no record of a link not there. */
static void resync(struct tables *t, struct model *m)
{
	int i, tab;

	clear(t);
	t->base_n = 0;
	for (i = 1; i <= LINKS; i++)
		t->base_n += (t->base_link[i] = m->link[i]) != 0;
	for (tab = 0; tab < 2; tab++)
		for (i = 0; i < KEYS; i++) {
			if (!m->link[link_of(i)])
				m->rec[tab][i] = 0;
			t->base_n += (t->base_rec[tab][i] = m->rec[tab][i]) != 0;
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

static const char *step_once(struct tables *t, struct model *m)
{
	uint32_t r = next_rand() % 100;
	int index = (int)(next_rand() % LINKS) + 1, key = (int)(next_rand() % KEYS);
	int tab = (int)(next_rand() % 2), i;

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
		merge(t);
		return "merge";
	}
	resync(t, m);
	return "resync";
}

static void model_run(void)
{
	struct tables t;
	struct model m;
	const char *what;
	long step;

	memset(&t, 0, sizeof t);
	memset(&m, 0, sizeof m);
	make_keys();
	for (step = 0; step < STEPS && failures < 20; step++) {
		what = step_once(&t, &m);
		check(&t, &m, step, what);
		/* bounded: merged once they outnumber the tables (lt_bound, smaller) */
		if (t.links.n > 4 + t.base_n || t.recs[0].n > 4 + t.base_n ||
		    t.recs[1].n > 4 + t.base_n) {
			merge(&t);
			check(&t, &m, step, "merge (bound)");
		}
	}
	clear(&t);
}

/* ---- lifetimes --------------------------------------------------------------- */

static void lifetimes(void)
{
	struct netifc_addr a;
	struct lt_expiry x;
	int64_t now, end, next, later;
	uint32_t v, w;
	long i;

	memset(&a, 0, sizeof a);
	a.has_lifetimes = 1;
	a.preferred = NETIFC_FOREVER;
	a.valid = NETIFC_FOREVER;
	lt_expiry(&x, &a, 5000);
	if (lt_runs_out(&x) || lt_left(x.valid, 9999999, &next) != NETIFC_FOREVER)
		failures++, fprintf(stderr, "lifetimes: forever runs out\n");
	a.preferred = 50;
	a.valid = 100;
	lt_expiry(&x, &a, 5000);
	next = INT64_MAX;
	if (lt_left(x.preferred, 5000, &next) != 50 || lt_left(x.valid, 5000, &next) != 100 ||
	    lt_left(x.valid, 5999, &next) != 99 || lt_left(x.valid, 200000, &next) != 0)
		failures++, fprintf(stderr, "lifetimes: 50/100 told at 5000 not counted down\n");
	for (i = 0; i < 100000; i++) {
		now = 1 + next_rand() % 100000000;
		end = now + (int64_t)(next_rand() % 10000000) - 1000000;
		next = INT64_MAX;
		v = lt_left(end, now, &next);
		if (v != (end <= now ? 0 : (uint32_t)((end - now) / 1000))) {
			failures++;
			fprintf(stderr, "lifetimes: %ld ms left: %u s\n", (long)(end - now), v);
		}
		if (v == 0) {
			if (next != INT64_MAX)
				failures++, fprintf(stderr, "lifetimes: 0 s left, yet a change\n");
			continue;
		}
		later = INT64_MAX;
		w = lt_left(end, next - 1, &later);
		if (next <= now || next > now + 1000 || w != v ||
		    lt_left(end, next, &later) != v - 1) {
			failures++;
			fprintf(stderr, "lifetimes: %u s left at %ld, next change at %ld\n", v,
				(long)now, (long)next);
		}
	}
}

int main(void)
{
	model_run();
	lifetimes();
	printf("live_check: %d failures\n", failures);
	return failures != 0;
}
