/*
 * live/merge.c -- a live table's changes merged into its base (merge.h),
 * in O(n + d log d).  Plain C: no Python, no socket.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "live/merge.h"

int lt_placed_cmp(const void *x, const void *y)
{
	const struct lt_placed *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

int lt_link_there(const struct lt_changes *links, int32_t index, lt_in_base in_base, void *ctx,
		  uint32_t *gone)
{
	void *rec;
	int r = lt_link_now(links, index, &rec, gone);

	return r < 0 ? in_base(ctx, index) : r;
}

int lt_merge_links(const struct lt_placed *base, size_t nb, const struct lt_changes *links,
		   struct lt_placed *out, size_t *n)
{
	struct lt_placed *add = calloc(links->n + 1, sizeof *add);
	size_t i = 0, j = 0, na = 0;
	uint32_t k;

	*n = 0;
	if (!add)
		return -ENOMEM;
	for (k = 0; k < links->n; k++)
		add[na++] =
			(struct lt_placed){ .index = links->v[k].k.index,
					    .order = k,
					    .rec = links->v[k].present ? links->v[k].rec : NULL };
	qsort(add, na, sizeof *add, lt_placed_cmp);
	while (i < nb || j < na) {
		if (j < na && (i == nb || add[j].index <= base[i].index)) {
			if (i < nb && add[j].index == base[i].index)
				i++; /* changed or removed */
			if (add[j].rec)
				out[(*n)++] = add[j];
			j++;
		} else {
			out[(*n)++] = base[i++];
		}
	}
	free(add);
	return 0;
}

int lt_merge_records(const struct lt_placed *base, size_t nb, struct lt_changes *c,
		     const struct lt_changes *links, lt_in_base in_base, void *ctx,
		     struct lt_placed *out, size_t *n, struct lt_placed *carry, size_t *nc)
{
	struct lt_placed *kept = calloc(nb + 1, sizeof *kept), *add = calloc(c->n + 1, sizeof *add);
	size_t nk = 0, na = 0, i, j = 0, o = 0;
	struct lt_placed p;
	struct lt_change *e;
	uint32_t k, gone;
	int there, r = -ENOMEM;

	*n = *nc = 0;
	if (!kept || !add)
		goto done;
	for (k = 0; k < c->n; k++)
		c->v[k].used = 0;
	for (i = 0; i < nb; i++) { /* the base's, as they are now, in their order */
		there = lt_link_there(links, base[i].index, in_base, ctx, &gone);
		if (gone)
			continue;
		p = base[i];
		if ((e = lt_changes_find(c, &p.key))) {
			e->used = 1;
			if (!e->present)
				continue;
			p.rec = e->rec;
			p.exp = e->exp;
		}
		if (there)
			kept[nk++] = p;
		else
			carry[(*nc)++] = p;
	}
	for (k = 0; k < c->n; k++) { /* then what was added, by when */
		e = &c->v[k];
		if (e->used || !e->present)
			continue;
		there = lt_link_there(links, e->k.index, in_base, ctx, &gone);
		if (e->seq <= gone)
			continue;
		p = (struct lt_placed){ e->k.index, e->k.family != AF_INET, e->seq, e->rec, e->exp,
					e->k };
		if (there)
			add[na++] = p;
		else
			carry[(*nc)++] = p;
	}
	qsort(add, na, sizeof *add, lt_placed_cmp);
	while (o < nk || j < na) { /* a link's additions after what it had */
		if (j < na && (o == nk || kept[o].rank > add[j].rank ||
			       (kept[o].rank == add[j].rank && kept[o].index > add[j].index)))
			out[(*n)++] = add[j++];
		else
			out[(*n)++] = kept[o++];
	}
	r = 0;
done:
	free(kept);
	free(add);
	return r;
}
