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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netlink/backend.h"
#include "netlink/routes.h"

struct route_job {
	struct netifc_routes *out;
	size_t start;           /* what out held before the call */
	int family;             /* AF_UNSPEC: both */
	uint32_t table;         /* NETIFC_TABLE_ALL: every table */
	int dump;
	const uint8_t *dst;     /* route_get: the destination, and its link or 0 */
	int32_t index;
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
	r = nl_talk(s, &q.h, on_route, j);
	/*
	 * A dump of every family asks each one's routes; MPLS checks its part
	 * strictly too, and refuses RTA_TABLE: the table is then filtered here.
	 */
	if (r == -EINVAL && j->dump && !j->family && j->table != NETIFC_TABLE_ALL && s->strict) {
		netifc_routes_truncate(j->out, j->start);
		netifc_route_dump_request(&q, AF_UNSPEC, j->table, 0);
		r = nl_talk(s, &q.h, on_route, j);
	}
	/* A table that does not exist has no routes (a one-family dump says ENOENT). */
	if (r == -ENOENT && j->dump && j->table != NETIFC_TABLE_ALL)
		r = 0;
	if (r == 0 && !j->dump && j->out->n != n + 1)
		r = -EPROTO;
	return r < 0 ? r : name_links(s, call, j);
}

int netifc_routes_dump(struct netifc_call *c, int family, uint32_t table, struct netifc_routes *out)
{
	struct route_job j = {
		.out = out, .start = out->n, .family = family, .table = table, .dump = 1
	};

	return netifc_nl_run(c, ask_routes, &j);
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
