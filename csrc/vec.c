/* vec.c -- growable tables of fixed-size records: one allocation, one free. */
#include <stdlib.h>
#include <string.h>

#include "netifc.h"

static void *grow(void **v, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *nv;

		if (ncap > SIZE_MAX / size)
			return NULL;
		nv = realloc(*v, ncap * size);
		if (!nv)
			return NULL;
		*v = nv;
		*cap = ncap;
	}
	return memset((char *)*v + (*n)++ * size, 0, size);
}

struct netifc_link *netifc_links_push(struct netifc_links *t)
{
	return grow((void **)&t->v, &t->n, &t->cap, sizeof *t->v);
}

struct netifc_addr *netifc_addrs_push(struct netifc_addrs *t)
{
	return grow((void **)&t->v, &t->n, &t->cap, sizeof *t->v);
}

void netifc_links_free(struct netifc_links *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}

void netifc_addrs_free(struct netifc_addrs *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}
