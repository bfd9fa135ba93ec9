/*
 * live/merge.h -- a live table's changes merged into its base (merge.c):
 * plain C over placed records (the binding's, opaque here), no Python.
 *
 * The tables' order is a dump's: links by index; addresses and groups
 * IPv4 then IPv6, by link, each link's in the order learned -- what the
 * base had in its order, then what was added since, by when it was told.
 */
#ifndef NETIFC_LIVE_MERGE_H
#define NETIFC_LIVE_MERGE_H

#include <stddef.h>

#include "live/changes.h"

struct lt_placed {
	int32_t index;
	uint8_t rank;   /* 0: IPv4 (and links), 1: IPv6 */
	uint32_t order; /* among what is placed together: before, after */
	void *rec;
	struct lt_expiry exp;
	struct lt_key key; /* an address's or group's (links: unused) */
};

/* By rank, index, order: the tables' order (for qsort). */
int lt_placed_cmp(const void *x, const void *y);

/* Whether the base has link index (what the changes say nothing of). */
typedef int (*lt_in_base)(void *ctx, int32_t index);

/* Link index there now (1) or not (0); *gone as lt_link_now's. */
int lt_link_there(const struct lt_changes *links, int32_t index, lt_in_base in_base, void *ctx,
		  uint32_t *gone);

/* The base's links (by index) with the changes in: out, room for nb + links->n; 0 or -ENOMEM. */
int lt_merge_links(const struct lt_placed *base, size_t nb, const struct lt_changes *links,
		   struct lt_placed *out, size_t *n);

/*
 * The base's addresses or groups (in the tables' order, keys filled) with
 * the changes c in: *n into out (room for nb + c->n), each of a link there
 * now; *nc into carry (as much room): those of links not told of yet
 * (the kernel tells of a new link's groups before the link), which the
 * caller tells again into the next changes.  0 or -ENOMEM.
 */
int lt_merge_records(const struct lt_placed *base, size_t nb, struct lt_changes *c,
		     const struct lt_changes *links, lt_in_base in_base, void *ctx,
		     struct lt_placed *out, size_t *n, struct lt_placed *carry, size_t *nc);

#endif
