/*
 * linux_routes.c -- what a routes call asks the kernel.
 *
 * routes: one RTM_GETROUTE dump of one family or both, which the kernel
 * filters by table where it checks requests strictly; the table, the
 * family and the cached exceptions are also filtered here, for kernels
 * that do not.  route_get: one RTM_GETROUTE request for one destination.
 * Both go through linux.c's retry loop on the thread's socket, then name
 * each output link (SIOCGIFNAME, once per link).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "nlsock.h"
#include "nlroute.h"

#define NAMES_KEPT 64

struct route_job {
	struct netifc_routes *out;
	size_t start;           /* what out held before the call */
	int family;             /* AF_UNSPEC: both */
	uint32_t table;         /* NETIFC_TABLE_ALL: every table */
	int dump;
	const uint8_t *dst;     /* route_get: the destination, and its link or 0 */
	int32_t index;
};

/* The last links named, so a table of routes over a few links asks a few times. */
struct names {
	struct { int32_t index; char name[NETIFC_NAMESIZ]; } v[NAMES_KEPT];
	size_t n, next;
};

static int on_route(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct route_job *j = ctx;
	const struct netifc_route *rt;
	int r = nl_parse_route(type, p, len, j->out);

	if (r <= 0)
		return r;
	rt = &j->out->v[j->out->n - 1];
	if (j->dump && ((j->family && rt->family != j->family) ||
			(j->table != NETIFC_TABLE_ALL && rt->table != j->table) ||
			(rt->flags & RTM_F_CLONED)))
		netifc_routes_truncate(j->out, j->out->n - 1);
	return 0;
}

/* index's name into name ("" for none, or a link gone since). */
static int name_into(struct nl_sock *s, struct netifc_call *call, struct names *c,
		     int32_t index, char *name)
{
	size_t i;
	int r;

	memset(name, 0, NETIFC_NAMESIZ);
	if (!index)
		return 0;
	for (i = 0; i < c->n; i++)
		if (c->v[i].index == index) {
			memcpy(name, c->v[i].name, NETIFC_NAMESIZ);
			return 0;
		}
	r = netifc_nl_name_of(s, call, index, name);
	if (r < 0 && r != -ENODEV)
		return r;
	i = c->n < NAMES_KEPT ? c->n++ : c->next++ % NAMES_KEPT;
	c->v[i].index = index;
	memcpy(c->v[i].name, name, NETIFC_NAMESIZ);
	return 0;
}

static int name_links(struct nl_sock *s, struct netifc_call *call, struct route_job *j)
{
	struct netifc_routes *t = j->out;
	struct names c = { .n = 0 };
	size_t i;
	int r = 0;

	for (i = j->start; r == 0 && i < t->n; i++)
		r = name_into(s, call, &c, t->v[i].index, t->v[i].name);
	for (i = j->start ? t->v[j->start - 1].nh_off + t->v[j->start - 1].nh_n : 0;
	     r == 0 && i < t->nh_n; i++)
		r = name_into(s, call, &c, t->nh[i].index, t->nh[i].name);
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
	struct route_job j = { .out = out, .start = out->n, .family = family, .table = table,
			       .dump = 1 };

	return netifc_nl_run(c, ask_routes, &j);
}

int netifc_route_get(struct netifc_call *c, int family, const uint8_t *dst, int32_t index,
		     struct netifc_routes *out)
{
	struct route_job j = { .out = out, .start = out->n, .family = family, .dst = dst,
			       .index = index };

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	return netifc_nl_run(c, ask_routes, &j);
}
