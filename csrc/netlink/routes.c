/*
 * netlink/routes.c -- what a routes call asks the kernel.
 *
 * routes: one RTM_GETROUTE dump of one family or both, which the kernel
 * filters by table where it checks requests strictly; the table, the
 * family and the cached exceptions are also filtered here, for kernels
 * that do not.  route_get: one RTM_GETROUTE request for one destination.
 * Both go through netlink/backend.c's retry loop on the thread's socket, then name
 * each output link (SIOCGIFNAME, once per link, however many routes).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "netlink/backend.h"
#include "netlink/heard.h"
#include "netlink/routes.h"

struct route_job {
	struct netifc_routes *out;
	size_t start;           /* what out held before the call */
	int family;             /* AF_UNSPEC: both */
	uint32_t table;         /* NETIFC_TABLE_ALL: every table */
	int dump;
	const uint8_t *dst;     /* route_get: the destination, and its link or 0 */
	int32_t index;
	unsigned tries;         /* dumps asked again for what was heard (hear_routes6) */
	struct nl_heard heard;
};

static int on_route(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct route_job *j = ctx;
	const struct netifc_route *rt;
	int r = nl_parse_route(type, p, len, j->out);

	if (r <= 0)
		return r;
	rt = &j->out->v[j->out->n - 1];
	if (j->dump &&
	    ((j->family && rt->family != j->family) ||
	     (j->table != NETIFC_TABLE_ALL && rt->table != j->table) || (rt->flags & RTM_F_CLONED)))
		netifc_routes_truncate(j->out, j->out->n - 1);
	return 0;
}

/* One output link and its name. */
struct named {
	int32_t index;
	char name[NETIFC_NAMESIZ];
};

static int by_index(const void *a, const void *b)
{
	int32_t x = ((const struct named *)a)->index, y = ((const struct named *)b)->index;

	return (x > y) - (x < y);
}

/* name: index's name from the sorted table v ("" for none, or a link gone since). */
static void name_from(const struct named *v, size_t n, int32_t index, char *name)
{
	struct named key = { .index = index };
	const struct named *at = index ? bsearch(&key, v, n, sizeof *v, by_index) : NULL;

	memcpy(name, at ? at->name : key.name, NETIFC_NAMESIZ);
}

/*
 * Each route's and next hop's link named: every link once (SIOCGIFNAME),
 * however many routes go out of it.
 */
static int name_links(struct nl_sock *s, struct netifc_call *call, struct route_job *j)
{
	struct netifc_routes *t = j->out;
	size_t nh_start = j->start ? t->v[j->start - 1].nh_off + t->v[j->start - 1].nh_n : 0;
	size_t i, n = 0, m = 0, most = (t->n - j->start) + (t->nh_n - nh_start);
	struct named *v = most ? calloc(most, sizeof *v) : NULL;
	int r = 0;

	if (!most)
		return 0;
	if (!v)
		return -ENOMEM;
	for (i = j->start; i < t->n; i++)
		v[n++].index = t->v[i].index;
	for (i = nh_start; i < t->nh_n; i++)
		v[n++].index = t->nh[i].index;
	qsort(v, n, sizeof *v, by_index);
	for (i = 0; i < n && r == 0; i++) {
		if (!v[i].index || (m && v[m - 1].index == v[i].index))
			continue;
		v[m].index = v[i].index;
		r = nl_name_of(s, call, v[m].index, v[m].name);
		if (r == -ENODEV) {
			memset(v[m].name, 0, NETIFC_NAMESIZ);
			r = 0;
		}
		m++;
	}
	for (i = j->start; r == 0 && i < t->n; i++)
		name_from(v, m, t->v[i].index, t->v[i].name);
	for (i = nh_start; r == 0 && i < t->nh_n; i++)
		name_from(v, m, t->nh[i].index, t->nh[i].name);
	free(v);
	return r;
}

/* Two records of one route: every field but where their next hops are, and the next hops. */
static int same_route(const struct netifc_routes *t, const struct netifc_route *a,
		      const struct netifc_route *b)
{
	const size_t head = offsetof(struct netifc_route, nh_off);
	const size_t tail = offsetof(struct netifc_route, nh_n) + sizeof a->nh_n;

	return !memcmp(a, b, head) && a->nh_n == b->nh_n &&
	       !memcmp((const char *)a + tail, (const char *)b + tail, sizeof *a - tail) &&
	       (!a->nh_n || !memcmp(&t->nh[a->nh_off], &t->nh[b->nh_off], a->nh_n * sizeof *t->nh));
}

static uint32_t route_hash(const struct netifc_route *a)
{
	const uint8_t *p = (const uint8_t *)a;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < offsetof(struct netifc_route, nh_off); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/*
 * Each route once.  The kernel's IPv6 route walk resumes each datagram of
 * a dump by counting routes from the start when its table changed
 * meanwhile, so a route can come twice (and one can be passed over: see
 * hear_routes6).  Records are compared whole, as zeroed and then filled
 * (records pushed zeroed, so their padding compares too).  0 or -ENOMEM.
 */
static int drop_doubles(struct netifc_routes *t, size_t start)
{
	size_t n = t->n - start, size = 16, i, k, kept = start;
	size_t *slot;

	if (n < 2)
		return 0;
	while (size < 2 * n)
		size *= 2;
	if (!(slot = malloc(size * sizeof *slot)))
		return -ENOMEM;
	for (i = 0; i < size; i++)
		slot[i] = SIZE_MAX;
	for (i = start; i < t->n; i++) {
		for (k = route_hash(&t->v[i]) & (size - 1); slot[k] != SIZE_MAX;
		     k = (k + 1) & (size - 1))
			if (same_route(t, &t->v[slot[k]], &t->v[i]))
				break;
		if (slot[k] != SIZE_MAX)
			continue; /* a double: its next hops stay in the pool, unnamed by any */
		t->v[kept] = t->v[i];
		slot[k] = kept++;
	}
	t->n = kept;
	free(slot);
	return 0;
}

static int on_heard(void *ctx, const uint8_t *buf, size_t len)
{
	return nl_heard_parse(ctx, buf, len);
}

/*
 * An IPv6 route dump of more than one datagram during which an IPv6 route
 * changed may have passed one over (the walk resumed by count, and one
 * before its place had gone); the kernel gives no sign of it, so such a
 * dump hears the IPv6 route group and is asked again while a change is
 * heard: at most NETIFC_TRIES times, the last answer then kept.  Whether
 * a dump of this socket takes more than one datagram is learned from the
 * last one (a dump not heard that took more is asked again, once).
 */
static int talk_routes(struct nl_sock *s, struct route_job *j, struct nl_route_req *q)
{
	int hear = j->dump && j->family != AF_INET && s->routes6_big;
	int r, left;

	if (hear) {
		nl_heard_clear(&j->heard, AF_UNSPEC);
		if ((r = nl_listen(s, NL_HEAR_ROUTES6, NULL, NULL)) < 0)
			return r;
	}
	r = nl_talk_heard(s, &q->h, on_route, j, hear ? on_heard : NULL, &j->heard);
	if (hear && (left = nl_listen(s, NL_HEAR_ROUTES6, on_heard, &j->heard)) < 0 && r == 0)
		r = left;
	if (r < 0 || !j->dump || j->family == AF_INET)
		return r;
	s->routes6_big = s->datagrams > 1;
	if (s->datagrams > 1 && (!hear || j->heard.routes6) && j->tries + 1 < NETIFC_TRIES) {
		j->tries++;
		return NL_ERR_INTR;
	}
	return 0;
}

static int ask_routes(struct nl_sock *s, struct netifc_call *call, void *ctx)
{
	struct route_job *j = ctx;
	struct nl_route_req q;
	size_t n;
	int r;

	netifc_routes_truncate(j->out, j->start);
	if (j->dump) {
		call->step = "netlink RTM_GETROUTE dump";
		netifc_route_dump_request(&q, j->family, j->table, s->strict);
	} else {
		call->step = "netlink RTM_GETROUTE request";
		netifc_route_get_request(&q, j->family, j->dst, j->index);
	}
	n = j->out->n;
	r = talk_routes(s, j, &q);
	/*
	 * A dump of every family asks each one's routes; MPLS checks its part
	 * strictly too, and refuses RTA_TABLE: the table is then filtered here.
	 */
	if (r == -EINVAL && j->dump && !j->family && j->table != NETIFC_TABLE_ALL && s->strict) {
		netifc_routes_truncate(j->out, j->start);
		netifc_route_dump_request(&q, AF_UNSPEC, j->table, 0);
		r = talk_routes(s, j, &q);
	}
	/* A table that does not exist has no routes (a one-family dump says ENOENT). */
	if (r == -ENOENT && j->dump && j->table != NETIFC_TABLE_ALL)
		r = 0;
	if (r == 0 && !j->dump && j->out->n != n + 1)
		r = -EPROTO;
	if (r == 0 && j->dump)
		r = drop_doubles(j->out, j->start);
	return r < 0 ? r : name_links(s, call, j);
}

int netifc_routes_dump(struct netifc_call *c, int family, uint32_t table, struct netifc_routes *out)
{
	struct route_job j = {
		.out = out, .start = out->n, .family = family, .table = table, .dump = 1
	};
	int r = netifc_nl_run(c, ask_routes, &j);

	nl_heard_free(&j.heard);
	return r;
}

int netifc_route_get(struct netifc_call *c, int family, const uint8_t *dst, int32_t index,
		     struct netifc_routes *out)
{
	struct route_job j = {
		.out = out, .start = out->n, .family = family, .dst = dst, .index = index
	};

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	return netifc_nl_run(c, ask_routes, &j);
}
