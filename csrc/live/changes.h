/*
 * live/changes.h -- the live tables' changes (changes.c): plain C over the
 * core's records, with no Python object and no socket, so that
 * csrc/check/live_check.c can drive it against a model.
 *
 * A table is what it held at its last merge (the base, the binding's) and
 * the changes told since, by key: an open-addressing hash over entries that
 * are only added to until the next merge.  Each entry holds the last
 * record told of its key (the binding's, opaque here: a removed one too).
 * seq orders what is told: an address added after its link was last
 * removed (gone) is there, one added before is not, whatever the base says.
 * Lifetimes are kept as when they run out, and counted down on reading.
 */
#ifndef NETIFC_LIVE_CHANGES_H
#define NETIFC_LIVE_CHANGES_H

#include <stdint.h>

#include "core/netifc.h"

/* What a record is found by: a link's index; an address's or group's link,
 * family, prefix length, address and peer (unused bytes zero). */
struct lt_key {
	int32_t index;
	uint8_t family, prefixlen, has_peer, pad;
	uint8_t local[16], peer[16];
};

/*
 * When an address's lifetimes run out, in ms of CLOCK_MONOTONIC_COARSE
 * (which, as the kernel's count of them, stops while the system sleeps);
 * LT_NEVER: forever, or not known (so a zeroed one is).
 */
#define LT_NEVER 0
struct lt_expiry {
	int64_t preferred, valid;
};

struct lt_change {
	struct lt_key k;
	struct lt_expiry exp; /* of rec, from when it was told */
	void *rec;            /* the last record told of it (a removed one too) */
	uint32_t seq;         /* when it was last added: orders additions */
	uint32_t gone;        /* links: when last removed (0: not since the base) */
	uint32_t hash;
	uint8_t present, used;
};

struct lt_changes {
	struct lt_change *v;
	uint32_t n, cap;
	uint32_t *slot; /* entry number + 1, 0 when empty; nslot a power of two */
	uint32_t nslot;
};

void lt_key_index(struct lt_key *k, int32_t index);
void lt_key_addr(struct lt_key *k, const struct netifc_addr *a);

/* The entry of k, or NULL. */
struct lt_change *lt_changes_find(const struct lt_changes *c, const struct lt_key *k);
/* The entry of k, made (no record, not present) when there is none; NULL: no memory. */
struct lt_change *lt_changes_entry(struct lt_changes *c, const struct lt_key *k);
/* Frees the entries; their records are the caller's, to let go of before. */
void lt_changes_free(struct lt_changes *c);

/*
 * What the changes say of link index: 1 and *rec (there, as told), 0 (gone
 * since the base), -1 (nothing: as the base has it).  *gone: when it was
 * last removed, 0 when not since the base (what lt_addr_now is given).
 */
int lt_link_now(const struct lt_changes *links, int32_t index, void **rec, uint32_t *gone);
/* The same of an address or group of a link last removed at gone (0: not since the base). */
int lt_addr_now(const struct lt_changes *c, const struct lt_key *k, uint32_t gone, void **rec);

/*
 * What is told, recorded (rec: the binding's new record, whose old one it
 * let go of): a link there or removed (*seq: the tables' count of what was
 * told); an address or group there or removed, its link last removed at
 * gone.  An address added (again) after its link's others gets a new seq.
 */
void lt_told_link(struct lt_change *e, void *rec, int removed, uint32_t *seq);
void lt_told_addr(struct lt_change *e, void *rec, int removed, uint32_t gone, uint32_t *seq);

/* Lifetimes: now (ms); a's expiry if told now; whether x runs out at all. */
int64_t lt_now(void);
void lt_expiry(struct lt_expiry *x, const struct netifc_addr *a, int64_t now);
int lt_runs_out(const struct lt_expiry *x);
/*
 * The whole seconds left at now of a lifetime that ends at end
 * (NETIFC_FOREVER for LT_NEVER); *next made no later than when that drops
 * by one.
 */
uint32_t lt_left(int64_t end, int64_t now, int64_t *next);

#endif
