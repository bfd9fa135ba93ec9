/*
 * win_driver.c -- the default backend's answers as one JSON object on
 * stdout, for tests/test_windows.py to hold against iproute2.  Built for
 * Windows with mingw-w64 and run under Wine, which reports the Linux host's
 * interfaces through the Windows API:
 *
 *   links      every link of one listing
 *   by_index   each of them looked up by index, by_name by name (the
 *              lookup's record, or the error)
 *   missing    the errors of a lookup of an index and of a name nobody has
 *   addrs      unicast addresses of every link, with "snapshot_links"
 *              their table; "outgrown": how often the listing's and this
 *              call's buffer was too small
 *   groups     multicast groups of every link
 *   one_addrs  each link's unicast addresses asked for by its index
 *
 * Addresses are hex bytes, so formatting is the reader's.  Exit status 0
 * when every call that should succeed did.
 */
#include <stdio.h>
#include <string.h>

#include "core/netifc.h"

static int failures;

static void hex(const uint8_t *p, size_t n)
{
	size_t i;

	putchar('"');
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
	putchar('"');
}

static void str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void error(int r, const struct netifc_call *c)
{
	printf("{\"error\": %d, \"winerror\": %lu, \"step\": ", -r, c->winerror);
	str(c->step ? c->step : "");
	putchar('}');
}

static void link_json(const struct netifc_link *l)
{
	printf("{\"index\": %ld, \"name\": ", (long)l->index);
	str(l->name);
	printf(", \"mtu\": %lu, \"flags\": %lu, \"type\": %u, \"operstate\": %u, \"hwaddr\": ",
	       (unsigned long)l->mtu, (unsigned long)l->flags, l->type, l->operstate);
	hex(l->hwaddr, l->hwaddr_len);
	putchar('}');
}

static void addr_json(const struct netifc_addr *a)
{
	printf("{\"index\": %ld, \"family\": %u, \"local\": ", (long)a->index, a->family);
	hex(a->local, netifc_family_len(a->family));
	printf(", \"prefixlen\": %u, \"scope\": %u, \"flags\": %lu, \"valid\": %lu, "
	       "\"preferred\": %lu, \"has_lifetimes\": %u, \"has_broadcast\": %u, \"has_peer\": %u, "
	       "\"zone\": ",
	       a->prefixlen, a->scope, (unsigned long)a->flags, (unsigned long)a->valid,
	       (unsigned long)a->preferred, a->has_lifetimes, a->has_broadcast, a->has_peer);
	str(a->zone);
	putchar('}');
}

static void links_json(const struct netifc_links *t)
{
	size_t i;

	putchar('[');
	for (i = 0; i < t->n; i++) {
		printf(i ? ",\n  " : "\n  ");
		link_json(&t->v[i]);
	}
	putchar(']');
}

static void addrs_json(const struct netifc_addrs *t)
{
	size_t i;

	putchar('[');
	for (i = 0; i < t->n; i++) {
		printf(i ? ",\n  " : "\n  ");
		addr_json(&t->v[i]);
	}
	putchar(']');
}

/* One lookup (by index when name is NULL): its record or its error. */
static void lookup_json(const struct netifc_backend *b, int32_t index, const char *name)
{
	struct netifc_link one;
	struct netifc_links t = NETIFC_LINKS_ON(&one);
	struct netifc_call c = { 0 };
	int r = b->link(&c, index, name, &t);

	if (r < 0)
		error(r, &c);
	else
		link_json(&t.v[0]);
	netifc_links_free(&t);
}

/* Prints the addresses or the error; returns how often the buffer was outgrown. */
static unsigned addrs_call(const struct netifc_backend *b, enum netifc_kind kind, int32_t index,
			   struct netifc_links *links)
{
	struct netifc_addrs t = { 0 };
	struct netifc_call c = { 0 };
	int r = b->addrs(&c, kind, index, NULL, links, &t);

	if (r < 0) {
		failures++;
		error(r, &c);
	} else {
		addrs_json(&t);
	}
	netifc_addrs_free(&t);
	return c.outgrown;
}

int main(void)
{
	const struct netifc_backend *b = netifc_backend_find(NULL);
	struct netifc_links links = { 0 }, snap = { 0 };
	struct netifc_call c = { 0 };
	unsigned grown;
	size_t i;
	int r;

	printf("{\"backend\": ");
	str(b->name);
	printf(",\n\"links\": ");
	if ((r = b->links(&c, &links)) < 0) {
		failures++;
		error(r, &c);
	} else {
		links_json(&links);
	}
	for (i = 0; i < 2; i++) {
		size_t k;

		printf(i ? ",\n\"by_name\": [" : ",\n\"by_index\": [");
		for (k = 0; k < links.n; k++) {
			printf(k ? ",\n  " : "\n  ");
			lookup_json(b, i ? 0 : links.v[k].index, i ? links.v[k].name : NULL);
		}
		putchar(']');
	}
	printf(",\n\"missing\": [");
	lookup_json(b, 0x7ffffff0, NULL);
	printf(", ");
	lookup_json(b, 0, "nfc-none0");
	printf("],\n\"addrs\": ");
	grown = addrs_call(b, NETIFC_UNICAST, 0, &snap);
	printf(",\n\"outgrown\": [%u, %u]", c.outgrown, grown);
	printf(",\n\"snapshot_links\": ");
	links_json(&snap);
	printf(",\n\"groups\": ");
	addrs_call(b, NETIFC_MULTICAST, 0, NULL);
	printf(",\n\"one_addrs\": {");
	for (i = 0; i < links.n; i++) {
		printf(i ? ",\n  \"%ld\": " : "\n  \"%ld\": ", (long)links.v[i].index);
		addrs_call(b, NETIFC_UNICAST, links.v[i].index, NULL);
	}
	printf("},\n\"missing_addrs\": ");
	addrs_call(b, NETIFC_UNICAST, 0x7ffffff0, NULL);
	printf("}\n");
	netifc_links_free(&links);
	netifc_links_free(&snap);
	return failures != 0;
}
