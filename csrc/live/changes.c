/*
 * live/changes.c -- the live tables' changes by key, and their lifetimes
 * (changes.h).  Plain C: no Python, no socket.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/changes.h"

void lt_key_index(struct lt_key *k, int32_t index)
{
	memset(k, 0, sizeof *k);
	k->index = index;
}

void lt_key_addr(struct lt_key *k, const struct netifc_addr *a)
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

static uint32_t key_hash(const struct lt_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof *k; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static struct lt_change *find(const struct lt_changes *c, const struct lt_key *k, uint32_t h)
{
	uint32_t i, at;

	if (!c->n)
		return NULL;
	for (i = h & (c->nslot - 1); (at = c->slot[i]) != 0; i = (i + 1) & (c->nslot - 1))
		if (c->v[at - 1].hash == h && !memcmp(&c->v[at - 1].k, k, sizeof *k))
			return &c->v[at - 1];
	return NULL;
}

struct lt_change *lt_changes_find(const struct lt_changes *c, const struct lt_key *k)
{
	return find(c, k, key_hash(k));
}

static int rehash(struct lt_changes *c, uint32_t nslot)
{
	uint32_t *slot = calloc(nslot, sizeof *slot), i, j;

	if (!slot)
		return -1;
	for (i = 0; i < c->n; i++) {
		for (j = c->v[i].hash & (nslot - 1); slot[j]; j = (j + 1) & (nslot - 1))
			;
		slot[j] = i + 1;
	}
	free(c->slot);
	c->slot = slot;
	c->nslot = nslot;
	return 0;
}

struct lt_change *lt_changes_entry(struct lt_changes *c, const struct lt_key *k)
{
	uint32_t h = key_hash(k), j, cap;
	struct lt_change *e = find(c, k, h), *v;

	if (e)
		return e;
	if (c->n == c->cap) {
		cap = c->cap ? 2 * c->cap : 16;
		if (!(v = realloc(c->v, cap * sizeof *v)))
			return NULL;
		c->v = v;
		c->cap = cap;
	}
	if (2 * (c->n + 1) > c->nslot && rehash(c, c->nslot ? 2 * c->nslot : 32) < 0)
		return NULL;
	e = &c->v[c->n++];
	memset(e, 0, sizeof *e);
	e->k = *k;
	e->hash = h;
	for (j = h & (c->nslot - 1); c->slot[j]; j = (j + 1) & (c->nslot - 1))
		;
	c->slot[j] = c->n;
	return e;
}

void lt_changes_free(struct lt_changes *c)
{
	free(c->v);
	free(c->slot);
	memset(c, 0, sizeof *c);
}

int lt_link_now(const struct lt_changes *links, int32_t index, void **rec, uint32_t *gone)
{
	struct lt_key k;
	struct lt_change *e;

	*rec = NULL;
	*gone = 0;
	if (!links->n)
		return -1;
	lt_key_index(&k, index);
	if (!(e = lt_changes_find(links, &k)))
		return -1;
	*gone = e->gone;
	if (!e->present && !e->gone)
		return -1; /* (an entry made, nothing told yet) */
	*rec = e->present ? e->rec : NULL;
	return e->present;
}

int lt_addr_now(const struct lt_changes *c, const struct lt_key *k, uint32_t gone, void **rec)
{
	struct lt_change *e = lt_changes_find(c, k);

	*rec = NULL;
	if (!e)
		return gone ? 0 : -1;
	if (!e->present || e->seq <= gone)
		return 0;
	*rec = e->rec;
	return 1;
}

void lt_told_link(struct lt_change *e, void *rec, int removed, uint32_t *seq)
{
	e->rec = rec;
	e->present = !removed;
	if (removed)
		e->gone = ++*seq;
}

void lt_told_addr(struct lt_change *e, void *rec, int removed, uint32_t gone, uint32_t *seq)
{
	if (!removed && !(e->present && e->seq > gone))
		e->seq = ++*seq; /* added (again): it goes after its link's others */
	e->rec = rec;
	e->present = !removed;
}

/* ---- lifetimes ------------------------------------------------------------- */

int64_t lt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts); /* a tick's precision, at a tenth of the cost */
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* As the kernel counts them: the valid lifetime only while the preferred one is finite. */
void lt_expiry(struct lt_expiry *x, const struct netifc_addr *a, int64_t now)
{
	x->preferred = x->valid = LT_NEVER;
	if (!a || !a->has_lifetimes || a->preferred == NETIFC_FOREVER)
		return;
	x->preferred = now + (int64_t)a->preferred * 1000;
	if (a->valid != NETIFC_FOREVER)
		x->valid = now + (int64_t)a->valid * 1000;
}

int lt_runs_out(const struct lt_expiry *x)
{
	return x->preferred != LT_NEVER || x->valid != LT_NEVER;
}

/*
 * The kernel counts from when it set them and rounds up; a notification
 * tells them later, rounded: so this is within a second of what a dump says
 * then, for one read within a second of the notification (python/live.c:
 * LATE_MS).
 */
uint32_t lt_left(int64_t end, int64_t now, int64_t *next)
{
	int64_t v;

	if (end == LT_NEVER)
		return NETIFC_FOREVER;
	if (end <= now)
		return 0;
	v = (end - now) / 1000;
	if (v > 0 && end - 1000 * v + 1 < *next)
		*next = end - 1000 * v + 1;
	return v < NETIFC_FOREVER ? (uint32_t)v : NETIFC_FOREVER - 1;
}
