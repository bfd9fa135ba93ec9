/*
 * compare.c -- the two backends against each other: the links, addresses
 * and groups the rtnetlink backend reads from the kernel, against those
 * the getifaddrs backend gets from the C library (glibc's or musl's own
 * netlink reader) and from /proc/net/igmp{,6}.  Where README.rst says the
 * getifaddrs backend knows less (operstate, altnames, address flags,
 * lifetimes, scope; a peer only on point-to-point links, and in its place
 * a broadcast address elsewhere), that field is not compared; every other
 * field must be equal.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>

#include "compare.h"

static int loud;                /* print the differences: the last reading only */

__attribute__((format(printf, 1, 2))) static void report(const char *fmt, ...)
{
	va_list ap;

	if (!loud)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

struct view {
	struct netifc_links links;
	struct netifc_addrs addrs;
	struct netifc_addrs groups;
};

static int read_view(const struct netifc_backend *b, struct view *v)
{
	struct netifc_call c = { 0 };
	int r;

	if ((r = b->links(&c, &v->links)) < 0 ||
	    (r = b->addrs(&c, NETIFC_UNICAST, 0, NULL, NULL, &v->addrs)) < 0 ||
	    (r = b->addrs(&c, NETIFC_MULTICAST, 0, NULL, NULL, &v->groups)) < 0)
		report("compare: %s: %s: %s\n", b->name, c.step, strerror(-r));
	return r;
}

static void free_view(struct view *v)
{
	netifc_links_free(&v->links);
	netifc_addrs_free(&v->addrs);
	netifc_addrs_free(&v->groups);
}

static int by_index(const void *x, const void *y)
{
	const struct netifc_link *a = x, *b = y;

	return (a->index > b->index) - (a->index < b->index);
}

/* Addresses in one order whatever the backend's: link, family, address, prefix. */
static int by_key(const void *x, const void *y)
{
	const struct netifc_addr *a = x, *b = y;
	int d;

	if (a->index != b->index)
		return (a->index > b->index) - (a->index < b->index);
	if (a->family != b->family)
		return a->family - b->family;
	if ((d = memcmp(a->local, b->local, sizeof a->local)))
		return d;
	return a->prefixlen - b->prefixlen;
}

static void text(const struct netifc_addr *a, const uint8_t *ip, char *out)
{
	inet_ntop(a->family, ip, out, INET6_ADDRSTRLEN);
}

static int link_diff(const struct netifc_link *n, const struct netifc_link *g)
{
	const char *what =
		strcmp(n->name, g->name) ? "name"
		: n->flags != g->flags   ? "flags"
		: n->mtu != g->mtu       ? "mtu"
		: n->type != g->type     ? "type"
		: n->hwaddr_len != g->hwaddr_len || memcmp(n->hwaddr, g->hwaddr, sizeof n->hwaddr)
			? "hardware address"
		: n->brd_len != g->brd_len || memcmp(n->brd, g->brd, sizeof n->brd)
			? "broadcast address"
			: NULL;

	if (!what)
		return 0;
	report("compare: link %d (%s / %s): %s differs (flags %#x / %#x, mtu %u / %u, "
	       "type %u / %u, hwaddr_len %u / %u, brd_len %u / %u)\n",
	       n->index, n->name, g->name, what, n->flags, g->flags, n->mtu, g->mtu, n->type,
	       g->type, n->hwaddr_len, g->hwaddr_len, n->brd_len, g->brd_len);
	return 1;
}

static int addr_diff(const struct netifc_addr *n, const struct netifc_addr *g,
		     const struct netifc_link *l)
{
	int p2p = l && (l->flags & IFF_POINTOPOINT);
	char a[INET6_ADDRSTRLEN], x[INET6_ADDRSTRLEN], y[INET6_ADDRSTRLEN];
	const char *what =
		by_key(n, g)                 ? "address"
		: strcmp(n->zone, g->zone)   ? "zone"
		: strcmp(n->label, g->label) ? "label"
		: p2p && (n->has_peer != g->has_peer || memcmp(n->peer, g->peer, sizeof n->peer))
			? "peer"
		: !p2p && !n->has_peer &&
				(n->has_broadcast != g->has_broadcast ||
				 memcmp(n->broadcast, g->broadcast, sizeof n->broadcast))
			? "broadcast"
			: NULL;

	if (!what)
		return 0;
	text(n, n->local, a);
	text(g, g->local, x);
	text(n, p2p ? n->peer : n->broadcast, y);
	report("compare: link %d: %s/%u%%%s (netlink) / %s/%u%%%s (getifaddrs): %s "
	       "differs (netlink's peer or broadcast: %s)\n",
	       n->index, a, n->prefixlen, n->zone, x, g->prefixlen, g->zone, what, y);
	return 1;
}

static int links_diff(struct netifc_links *n, struct netifc_links *g)
{
	size_t i;
	int d = 0;

	qsort(n->v, n->n, sizeof *n->v, by_index);
	qsort(g->v, g->n, sizeof *g->v, by_index);
	if (n->n != g->n) {
		report("compare: %zu links (netlink) / %zu (getifaddrs)\n", n->n, g->n);
		return 1;
	}
	for (i = 0; i < n->n; i++)
		if (n->v[i].index != g->v[i].index) {
			report("compare: link %d (netlink) / %d (getifaddrs)\n", n->v[i].index,
			       g->v[i].index);
			return 1;
		} else {
			d += link_diff(&n->v[i], &g->v[i]);
		}
	return d;
}

static int addrs_diff(const char *what, struct netifc_addrs *n, struct netifc_addrs *g,
		      const struct netifc_links *links)
{
	size_t i, hint = 0;
	int d = 0;

	qsort(n->v, n->n, sizeof *n->v, by_key);
	qsort(g->v, g->n, sizeof *g->v, by_key);
	if (n->n != g->n) {
		report("compare: %zu %s (netlink) / %zu (getifaddrs)\n", n->n, what, g->n);
		return 1;
	}
	for (i = 0; i < n->n; i++)
		d += addr_diff(&n->v[i], &g->v[i], netifc_links_find(links, n->v[i].index, &hint));
	return d;
}

/* One reading of each backend; the number of differences, or -1 if a call failed. */
static int compare_once(int *nlinks, int *naddrs, int *ngroups)
{
	struct view n, g;
	int d = -1;

	memset(&n, 0, sizeof n);
	memset(&g, 0, sizeof g);
	if (read_view(netifc_backend_find("netlink"), &n) == 0 &&
	    read_view(netifc_backend_find("getifaddrs"), &g) == 0) {
		d = links_diff(&n.links, &g.links);
		d += addrs_diff("addresses", &n.addrs, &g.addrs, &n.links);
		d += addrs_diff("groups", &n.groups, &g.groups, &n.links);
		*nlinks = (int)n.links.n;
		*naddrs = (int)n.addrs.n;
		*ngroups = (int)n.groups.n;
	}
	free_view(&n);
	free_view(&g);
	return d;
}

/*
 * Links and addresses may change between the two readings (another
 * process at work): a difference counts only if it is there every time.
 */
int compare_backends(void)
{
	int i, d = -1, links = 0, addrs = 0, groups = 0;

	for (i = 0; i < 5 && d != 0; i++) {
		loud = i == 4;
		d = compare_once(&links, &addrs, &groups);
	}
	if (d == 0)
		printf("compare: netlink and getifaddrs agree on %d links, %d addresses, "
		       "%d groups\n",
		       links, addrs, groups);
	return d != 0;
}
