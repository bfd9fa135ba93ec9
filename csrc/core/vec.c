/*
 * vec.c -- growable tables of fixed-size records: one allocation, one free.
 * A link table also keeps its links' altnames in one pool, in link order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/netifc.h"

static void *grow(void **v, size_t *n, size_t *cap, size_t size, size_t more)
{
	size_t ncap = *cap ? *cap : 4;      /* small: a lookup stays in malloc's fast path */
	void *nv;

	if (*n + more > *cap) {
		while (ncap < *n + more)
			ncap *= 2;
		if (ncap > SIZE_MAX / size)
			return NULL;
		if (!(nv = realloc(*v, ncap * size)))
			return NULL;
		*v = nv;
		*cap = ncap;
	}
	return (char *)*v + *n * size;
}

void *netifc_vec_push(void **v, size_t *n, size_t *cap, size_t size)
{
	void *p = grow(v, n, cap, size, 1);

	if (!p)
		return NULL;
	(*n)++;
	return memset(p, 0, size);
}

/* A table on the caller's record moves to the heap when it outgrows it. */
static int unborrow(struct netifc_links *t)
{
	struct netifc_link *v;

	if (!t->borrowed || t->n < t->cap)
		return 0;
	if (!(v = malloc(t->cap * sizeof *v)))
		return -1;
	memcpy(v, t->v, t->n * sizeof *v);
	t->v = v;
	t->borrowed = 0;
	return 0;
}

struct netifc_link *netifc_links_push(struct netifc_links *t)
{
	struct netifc_link *l =
		unborrow(t) < 0 ? NULL
				: netifc_vec_push((void **)&t->v, &t->n, &t->cap, sizeof *t->v);

	if (!l)
		return NULL;
	l->alt_off = (uint32_t)t->pool_n;
	return l;
}

struct netifc_addr *netifc_addrs_push(struct netifc_addrs *t)
{
	return netifc_vec_push((void **)&t->v, &t->n, &t->cap, sizeof *t->v);
}

/* Appends a name (len bytes, no NUL) to l, the table's last link. */
int netifc_links_add_altname(struct netifc_links *t, struct netifc_link *l, const char *name,
			     size_t len)
{
	char *p;

	if (t->pool_n + len + 1 > UINT32_MAX)
		return -ENOMEM;
	if (!(p = grow((void **)&t->pool, &t->pool_n, &t->pool_cap, 1, len + 1)))
		return -ENOMEM;
	memcpy(p, name, len);
	p[len] = 0;
	t->pool_n += len + 1;
	l->alt_len += (uint32_t)(len + 1);
	return 0;
}

/* Keeps the first n links (and their altnames). */
void netifc_links_truncate(struct netifc_links *t, size_t n)
{
	t->n = n;
	t->pool_n = n ? t->v[n - 1].alt_off + t->v[n - 1].alt_len : 0;
}

void netifc_links_free(struct netifc_links *t)
{
	if (!t->borrowed)
		free(t->v);
	free(t->pool);
	memset(t, 0, sizeof *t);
}

void netifc_addrs_free(struct netifc_addrs *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}

struct netifc_counters *netifc_counters_push(struct netifc_counters_table *t)
{
	return netifc_vec_push((void **)&t->v, &t->n, &t->cap, sizeof *t->v);
}

int netifc_counters_reserve(struct netifc_counters_table *t, size_t more)
{
	return grow((void **)&t->v, &t->n, &t->cap, sizeof *t->v, more) ? 0 : -ENOMEM;
}

void netifc_counters_free(struct netifc_counters_table *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}
