/*
 * netlink/backend.c -- the rtnetlink backend.
 *
 * interfaces: one RTM_GETLINK dump.  By index or name: one RTM_GETLINK
 * request for that link.  One link's addresses: an RTM_GETADDR dump the
 * kernel filters (NETLINK_GET_STRICT_CHK + ifa_index); a link by name and
 * its addresses (the netifaces drop-in's question): both in one run.  All addresses: one
 * address dump, then the name of each link that has a zone to name
 * (SIOCGIFNAME on the same socket); a snapshot takes one link dump instead.
 * Groups: RTM_GETMULTICAST per family, or /proc/net/igmp{,6} where the
 * kernel has no IPv4 RTM_GETMULTICAST.  The thread's socket is reused; a
 * call in another network namespace (call->ns) uses that namespace's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "netlink/netns.h"
#include "netlink/backend.h"
#include "netlink/heard.h"
#include "netlink/stats.h"
#include "procfs/igmp.h"
#include "netlink/route_parse.h"

/* Address dumps a socket asks hearing after one was interrupted (heard_dump). */
#define NL_CHURN_DUMPS 64

struct collect {
	struct netifc_links *links;
	struct netifc_addrs *addrs;
	int32_t only;           /* keep one link's records (C-side filter), 0: all */
	int family;             /* keep one family, 0: all */
	struct nl_heard *heard; /* not NULL: what the kernel tells meanwhile is noted here */
};

static int on_heard(void *ctx, const uint8_t *buf, size_t len)
{
	return nl_heard_parse(ctx, buf, len);
}

static int index_cmp(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;

	return (a > b) - (a < b);
}

/*
 * Whether the kernel walks link and address dumps in the order of the
 * links' indices, resuming each datagram after the last link it listed
 * (Linux 6.18 does): then a link that comes or goes while a dump runs moves
 * no other link's place, and an interrupted dump lists each link that
 * stays once.  Older kernels walk a hash of 256 buckets by place, where
 * such a change can skip or repeat a link.  Learned from the dumps: one in
 * rising order in which two links share a bucket (their indices equal
 * modulo 256) can only come from a walk by index; until one is seen, every
 * dump interrupted by a link's coming or going is asked again whole.
 */
enum { BY_INDEX_LINKS, BY_INDEX_ADDRS };
static int by_index[2];

static int walked_by_index(int which)
{
	return __atomic_load_n(&by_index[which], __ATOMIC_RELAXED);
}

/* The indices of a dump's records (stride apart) rise, from one family's run to the next. */
struct order {
	uint8_t seen[32];       /* a bit per bucket of 256 */
	int shared, rising, last_family;
	int32_t last;
};

static void order_next(struct order *o, int32_t index, int family, int strict)
{
	uint8_t bit = (uint8_t)(1u << (index & 7));
	uint8_t *b = &o->seen[(index & 255) >> 3];

	if (family != o->last_family) {
		o->rising &= o->last_family == 0 || family == AF_INET6; /* IPv4's run, then IPv6's */
		o->last_family = family;
		o->last = 0;
	}
	if (index < o->last || (strict && index == o->last))
		o->rising = 0;
	if (index != o->last && (*b & bit))
		o->shared = 1;
	*b |= bit;
	o->last = index;
}

/* 1 when the records show a walk by index (and say so from now on), else 0. */
static int learn_order(int which, const struct order *o)
{
	if (!o->rising)
		return 0;
	if (o->shared)
		__atomic_store_n(&by_index[which], 1, __ATOMIC_RELAXED);
	return 1;
}

static int links_by_index(const struct netifc_links *t, size_t from)
{
	struct order o = { .rising = 1 };
	size_t i;

	for (i = from; i < t->n; i++)
		order_next(&o, t->v[i].index, 0, 1);
	return learn_order(BY_INDEX_LINKS, &o);
}

static int addrs_by_index(const struct netifc_addrs *t, size_t from)
{
	struct order o = { .rising = 1 };
	size_t i;

	for (i = from; i < t->n; i++)
		order_next(&o, t->v[i].index, t->v[i].family, 0);
	return learn_order(BY_INDEX_ADDRS, &o);
}

static int on_link(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct collect *c = ctx;
	int r = nl_parse_link(type, p, len, c->links);

	return r < 0 ? r : 0;
}

static int on_addr(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct collect *c = ctx;
	struct netifc_addr *a = netifc_addrs_push(c->addrs);
	int r;

	if (!a)
		return -ENOMEM;
	r = nl_parse_addr(type, p, len, a);
	if (r <= 0 || (c->only && a->index != c->only) || (c->family && a->family != c->family))
		c->addrs->n--;
	return r < 0 ? r : 0;
}

/*
 * Every link.  A dump interrupted by a link's coming or going stands when
 * the kernel walks by index and its links rise (none twice): each link that
 * stayed is in it once, and one that came or went is as it was then.
 */
static int dump_links(struct nl_sock *s, struct netifc_call *call, struct netifc_links *out)
{
	struct collect c = { .links = out };
	struct nl_link_req q;
	size_t start = out->n;
	int r;

	call->step = "netlink RTM_GETLINK dump";
	netifc_link_request(&q, NLM_F_DUMP, 0, NULL);
	r = nl_talk(s, &q.h, on_link, &c);
	if (r == 0)
		links_by_index(out, start);
	else if (r == NL_ERR_INTR && walked_by_index(BY_INDEX_LINKS) && links_by_index(out, start))
		r = 0;
	return r;
}

/*
 * One link, by index or (index 0) by name, appended to out: a single-object
 * request.  The kernel also finds a link by one of its altnames; a lookup
 * by name matches the primary name only.
 */
static int get_link(struct nl_sock *s, struct netifc_call *call, int32_t index, const char *name,
		    struct netifc_links *out)
{
	struct collect c = { .links = out };
	struct nl_link_req q;
	size_t n = out->n;
	int r;

	call->step = "netlink RTM_GETLINK request";
	if ((r = netifc_link_request(&q, 0, index, name)) < 0)
		return r;
	if ((r = nl_talk(s, &q.h, on_link, &c)) < 0)
		return r;
	if (out->n == n + 1 && (!name || !strcmp(out->v[n].name, name)))
		return 0;
	netifc_links_truncate(out, n);
	return -ENODEV;
}

static int dump_addrs_nl(struct nl_sock *s, struct netifc_call *call, uint16_t type, int family,
			 int32_t index, struct collect *c)
{
	struct nl_addr_req q;

	call->step =
		type == RTM_GETADDR ? "netlink RTM_GETADDR dump" : "netlink RTM_GETMULTICAST dump";
	netifc_addr_request(&q, type, family, s->strict ? index : 0);
	c->only = index; /* also filtered here: without strict checking it is needed */
	return nl_talk_heard(s, &q.h, on_addr, c, c->heard ? on_heard : NULL, c->heard);
}

/*
 * One family's groups.  Kernels before IPv4 RTM_GETMULTICAST answer an
 * AF_INET request with EOPNOTSUPP: /proc/net/igmp has them there (and the
 * socket remembers).  There is no AF_UNSPEC dump of groups.
 */
static int dump_groups(struct nl_sock *s, struct netifc_call *call, int family, int32_t index,
		       struct netifc_addrs *out, struct nl_heard *heard)
{
	struct collect c = { .addrs = out, .family = family, .heard = heard };
	int use_proc = (call->opts & NETIFC_NO_NL_MCAST) ||
		       (family == AF_INET && ((call->opts & NETIFC_NO_NL_MCAST4) || s->no_mcast4));
	size_t start = out->n;
	int r;

	if (!use_proc) {
		r = dump_addrs_nl(s, call, RTM_GETMULTICAST, family, index, &c);
		if (r != -EOPNOTSUPP || family != AF_INET)
			return r;
		s->no_mcast4 = 1;
		out->n = start;
	}
	call->step = family == AF_INET ? "/proc/net/igmp" : "/proc/net/igmp6";
	if (call->ns) /* the file answers for the reading thread's namespace */
		return netifc_ns_proc_groups(call->ns, family, index, out);
	return netifc_proc_groups(family, index, out);
}

/*
 * One kind of address, of every link (index 0) or of one.  Hearing, a
 * family's dump flagged interrupted does not stop the other's: the caller
 * mends what the kernel told changed (NL_ERR_INTR is returned at the end).
 * A group dump of every link notes whether it took more than one datagram:
 * the next then hears the group notifications (heard_dump).
 */
static int dump_kind(struct nl_sock *s, struct netifc_call *call, enum netifc_kind kind,
		     int32_t index, struct netifc_addrs *out, struct nl_heard *heard)
{
	struct collect c = { .addrs = out, .heard = heard };
	int r, r6, big;

	if (kind == NETIFC_MULTICAST) {
		s->datagrams = 0; /* (none, from /proc) */
		r = dump_groups(s, call, AF_INET, index, out, heard);
		big = s->datagrams > 1;
		if (r == 0 || (r == NL_ERR_INTR && heard)) {
			s->datagrams = 0;
			r6 = dump_groups(s, call, AF_INET6, index, out, heard);
			if (!index && (r6 == 0 || r6 == NL_ERR_INTR))
				s->groups_big = big || s->datagrams > 1;
			if (heard && r6 == 0 && r == NL_ERR_INTR)
				heard->family = AF_INET; /* only its groups to mend */
			if (heard && r6 == NL_ERR_INTR && r == 0)
				heard->family = AF_INET6;
			r = r6 ? r6 : r;
		}
	} else {
		r = dump_addrs_nl(s, call, RTM_GETADDR, AF_UNSPEC, index, &c);
	}
	return r == -ENODEV && index ? 0 : r; /* a vanished link has no addresses */
}

/* A link's name by index, asked of the socket's own namespace. */
int nl_name_of(struct nl_sock *s, struct netifc_call *call, int32_t index, char *name)
{
	call->step = "SIOCGIFNAME";
	return nl_link_name(s->fd, index, name);
}

/*
 * Zone names from the link dump of this same call (a snapshot).  A link
 * that came after that dump is asked for alone; an address whose link has
 * gone since is dropped, so every address kept names a link of the table.
 */
static int zones_from_links(struct nl_sock *s, struct netifc_call *call, struct netifc_links *links,
			    struct netifc_addrs *t)
{
	const struct netifc_link *l;
	size_t i, kept = 0, hint = 0;
	int32_t gone = 0; /* the last link found gone: asked for once */
	int r;

	for (i = 0; i < t->n; i++) {
		struct netifc_addr *a = &t->v[i];

		if (a->index == gone)
			continue;
		if (!(l = netifc_links_find(links, a->index, &hint))) {
			r = get_link(s, call, a->index, NULL, links);
			if (r == -ENODEV) {
				gone = a->index;
				continue;
			}
			if (r < 0)
				return r;
			l = &links->v[links->n - 1];
		}
		netifc_addr_finish(a, l->name);
		t->v[kept++] = *a;
	}
	t->n = kept;
	return 0;
}

/*
 * Zone names without a link table: only the links that have a zone to
 * name are asked for, once per run of their addresses (a dump lists a
 * link's addresses together).  An address that needs a zone is dropped if
 * its link has gone since the dump (there is no name to give it); the
 * others stay as the dump gave them.
 */
static int zones_by_name(struct nl_sock *s, struct netifc_call *call, struct netifc_addrs *t)
{
	char name[NETIFC_NAMESIZ] = "";
	int32_t last = 0;
	size_t i, kept = 0;
	int r;

	for (i = 0; i < t->n; i++) {
		struct netifc_addr *a = &t->v[i];

		if (netifc_addr_needs_zone(a) && a->index != last) {
			last = a->index;
			r = nl_name_of(s, call, a->index, name);
			if (r == -ENODEV)
				name[0] = 0; /* gone */
			else if (r < 0)
				return r;
		}
		if (netifc_addr_needs_zone(a) && !name[0])
			continue;
		netifc_addr_finish(a, name);
		t->v[kept++] = *a;
	}
	t->n = kept;
	return 0;
}

/* What one call asks for, and where it puts the answer. */
struct job {
	enum { JOB_LINKS, JOB_LINK, JOB_ADDRS, JOB_NAMED, JOB_OTHER } what;
	enum netifc_kind kind;
	int32_t index;
	const char *name;
	struct netifc_links *links;
	struct netifc_addrs *addrs;
	struct netifc_links scratch; /* one link's name, when not given */
	struct netifc_link one; /* where scratch starts */
	size_t links_start; /* what the tables held before the call */
	size_t addrs_start;
	int hearing; /* an address dump of this call was interrupted */
	struct nl_heard heard; /* what the kernel told while the dump ran */
	nl_ask_fn ask; /* JOB_OTHER: another file's request */
	void *ctx;
};

/*
 * The records of each link told changed (sorted h->links) put where that
 * link's first record of the same family was, or at the end for a family
 * it had none of; fresh holds them, link by link, from start[i] on.
 */
static int put_fresh(struct netifc_addrs *t, size_t from, const struct nl_heard *h,
		     const struct netifc_addrs *fresh, const size_t *start)
{
	struct netifc_addrs out = { 0 };
	struct netifc_addr *a;
	uint8_t *put = NULL; /* per link told changed: the families put (bits) */
	size_t i, k;
	int r = -ENOMEM;

	if (!(put = calloc(h->n, 1)))
		goto out;
	for (i = from; i < t->n; i++) {
		const struct netifc_addr *old = &t->v[i];
		int32_t *at = bsearch(&old->index, h->links, h->n, sizeof *h->links, index_cmp);
		uint8_t bit = old->family == AF_INET ? 1 : old->family == AF_INET6 ? 2 : 4;
		size_t p = at ? (size_t)(at - h->links) : 0;

		if (!at || (h->family && old->family != h->family)) {
			if (!(a = netifc_addrs_push(&out)))
				goto out;
			*a = *old;
			continue;
		}
		if (put[p] & bit)
			continue;
		put[p] |= bit;
		for (k = start[p]; k < start[p + 1]; k++)
			if (fresh->v[k].family == old->family) {
				if (!(a = netifc_addrs_push(&out)))
					goto out;
				*a = fresh->v[k];
			}
	}
	for (i = 0; i < h->n; i++)
		for (k = start[i]; k < start[i + 1]; k++) {
			uint8_t f = fresh->v[k].family;

			if (put[i] & (f == AF_INET ? 1 : f == AF_INET6 ? 2 : 4))
				continue;
			if (!(a = netifc_addrs_push(&out)))
				goto out;
			*a = fresh->v[k];
		}
	t->n = from;
	for (i = 0; i < out.n; i++) {
		if (!(a = netifc_addrs_push(t)))
			goto out;
		*a = out.v[i];
	}
	r = 0;
out:
	free(put);
	netifc_addrs_free(&out);
	return r;
}

/*
 * An interrupted dump mended: each link the kernel told changed while it
 * ran is asked for again alone (a short reply, whole unless that very link
 * changes between its datagrams) and its records replace the dump's.
 */
static int mend(struct nl_sock *s, struct netifc_call *call, struct job *j)
{
	struct netifc_addrs fresh = { 0 };
	struct nl_heard *h = &j->heard;
	size_t *start = NULL, i, n;
	int r = -ENOMEM, tries;

	if (!(start = calloc(h->n + 1, sizeof *start)))
		goto out;
	for (i = 0; i < h->n; i++) {
		start[i] = n = fresh.n;
		for (tries = 0; tries < NETIFC_TRIES; tries++) {
			fresh.n = n;
			r = h->family ? dump_groups(s, call, h->family, h->links[i], &fresh, NULL)
				      : dump_kind(s, call, j->kind, h->links[i], &fresh, NULL);
			if (r == -ENODEV)
				r = 0; /* gone since: no records */
			if (r != NL_ERR_INTR)
				break;
		}
		if (r < 0)
			goto out;
	}
	start[h->n] = fresh.n;
	r = put_fresh(j->addrs, j->addrs_start, h, &fresh, start);
out:
	free(start);
	netifc_addrs_free(&fresh);
	return r;
}

/*
 * Under churn: the address or group dump of every link (index 0) or of
 * one, with the socket hearing the link and address groups meanwhile.  The
 * kernel flags a dump interrupted when anything changed between two of its
 * datagrams; it resumes each datagram from its places in its lists, so a
 * list that changed may have been read with a record skipped or twice.  A
 * link's own list: every link told changed is asked for again (mend), and
 * one link's dump stands when its link is not among them.  The list of
 * links (one came or went): the dump is asked again whole (NL_ERR_INTR).
 */
static int heard_dump(struct nl_sock *s, struct netifc_call *call, struct job *j, int32_t index)
{
	unsigned groups = NL_HEAR_ADDRS | (j->kind == NETIFC_MULTICAST ? NL_HEAR_GROUPS : 0);
	int r, left, intr;

	nl_heard_clear(&j->heard, AF_UNSPEC);
	if ((r = nl_listen(s, groups, NULL, NULL)) < 0) {
		call->step = "netlink NETLINK_ADD_MEMBERSHIP";
		return r;
	}
	r = dump_kind(s, call, j->kind, index, j->addrs, &j->heard);
	left = nl_listen(s, groups, on_heard, &j->heard);
	if (left < 0 && (r == 0 || r == NL_ERR_INTR))
		r = left;
	if (r < 0 && r != NL_ERR_INTR)
		return r;
	intr = r == NL_ERR_INTR;
	if (intr)
		s->churn = NL_CHURN_DUMPS;
	else if (s->churn)
		s->churn--;
	/* A group list that changed moves no counter the kernel checks: nothing is flagged. */
	if (!intr && !(j->kind == NETIFC_MULTICAST && !index && j->heard.n && s->strict))
		return 0;
	if (!s->strict)
		return NL_ERR_INTR;
	if (intr && j->heard.relisted &&
	    !(j->kind == NETIFC_UNICAST && walked_by_index(BY_INDEX_ADDRS) &&
	      addrs_by_index(j->addrs, j->addrs_start)))
		return NL_ERR_INTR;
	nl_heard_sort(&j->heard);
	if (index)
		return nl_heard_has(&j->heard, index) ? NL_ERR_INTR : 0;
	return mend(s, call, j);
}

static int all_addrs(struct nl_sock *s, struct netifc_call *call, struct job *j)
{
	int r = 0;

	if (j->links)
		r = dump_links(s, call, j->links);
	if (r == 0 && (j->hearing || s->churn || (j->kind == NETIFC_MULTICAST && s->groups_big))) {
		r = heard_dump(s, call, j, 0);
	} else if (r == 0) {
		r = dump_kind(s, call, j->kind, 0, j->addrs, NULL);
		if (r == 0 && j->kind == NETIFC_UNICAST && !walked_by_index(BY_INDEX_ADDRS))
			addrs_by_index(j->addrs, j->addrs_start); /* (a dump as it came) */
	}
	if (r == 0)
		r = j->links ? zones_from_links(s, call, j->links, j->addrs)
			     : zones_by_name(s, call, j->addrs);
	return r;
}

/*
 * After a link's addresses came: the link at index still has the name the
 * caller knows it by (one SIOCGIFNAME on the same socket), else -ENODEV --
 * the answer was of another link, or of none.
 */
static int still_named(struct nl_sock *s, struct netifc_call *call, int32_t index, const char *name)
{
	char now[NETIFC_NAMESIZ];
	int r = nl_name_of(s, call, index, now);

	return r < 0 ? r : strcmp(now, name) ? -ENODEV : 0;
}

static int one_link_addrs(struct nl_sock *s, struct netifc_call *call, struct job *j)
{
	const char *name = j->name;
	size_t i;
	int r;

	if (!name) {
		if ((r = get_link(s, call, j->index, NULL, &j->scratch)) < 0)
			return r;
		name = j->scratch.v[0].name;
	}
	r = j->hearing ? heard_dump(s, call, j, j->index)
		       : dump_kind(s, call, j->kind, j->index, j->addrs, NULL);
	if (r == 0 && j->name && ((call->opts & NETIFC_SAME_LINK) || j->what == JOB_NAMED))
		r = still_named(s, call, j->index, j->name);
	for (i = 0; r == 0 && i < j->addrs->n; i++)
		netifc_addr_finish(&j->addrs->v[i], name);
	return r;
}

static int do_job(struct nl_sock *s, struct netifc_call *call, struct job *j)
{
	int r;

	/* Every attempt starts from empty tables. */
	if (j->links)
		netifc_links_truncate(j->links, j->links_start);
	if (j->addrs)
		j->addrs->n = j->addrs_start;
	netifc_links_truncate(&j->scratch, 0);
	switch (j->what) {
	case JOB_LINKS:
		return dump_links(s, call, j->links);
	case JOB_LINK:
		return get_link(s, call, j->index, j->name, j->links);
	case JOB_OTHER:
		return j->ask(s, call, j->ctx);
	case JOB_NAMED: /* the link by name, then its addresses by its index */
		if ((r = get_link(s, call, 0, j->name, j->links)) < 0)
			return r;
		j->index = j->links->v[j->links_start].index;
		return one_link_addrs(s, call, j);
	default:
		return j->index ? one_link_addrs(s, call, j) : all_addrs(s, call, j);
	}
}

/*
 * The one get/ask/put loop.  A job is asked again, from the start, while
 * the kernel flags a dump as interrupted by concurrent changes, a reply
 * outgrows the buffer (then on another socket, with a buffer that fits) or
 * the socket's queue overflowed (ENOBUFS; another socket too): a bounded
 * number of times, then EBUSY rather than a partial table.
 */
static int run(struct netifc_call *call, struct job *j)
{
	struct nl_sock own, *s;
	size_t want = 0;
	int tries, r;

	j->links_start = j->links ? j->links->n : 0;
	j->addrs_start = j->addrs ? j->addrs->n : 0;
	for (tries = 0; tries < NETIFC_TRIES; tries++) {
		if ((r = nl_get(call->ns, &own, !(call->opts & NETIFC_NO_STRICT_CHK), want, &s)) <
		    0) {
			call->step = "netlink socket";
			break;
		}
		r = do_job(s, call, j);
		if (r == NL_ERR_INTR && (j->what == JOB_ADDRS || j->what == JOB_NAMED) &&
		    !j->hearing) {
			j->hearing = 1; /* asked again hearing what changes */
			s->churn = NL_CHURN_DUMPS;
		}
		want = s->want;
		if (r == -ENOBUFS)
			s->dirty = 1;
		nl_put(call->ns, s, &own);
		if (r == NL_ERR_INTR)
			call->interrupted++;
		else if (r == NL_ERR_CUT)
			call->outgrown++;
		else if (r == -ENOBUFS)
			call->overflowed++;
		else
			break;
		r = -EBUSY;
	}
	netifc_links_free(&j->scratch);
	nl_heard_free(&j->heard);
	return r;
}

static int linux_links(struct netifc_call *call, struct netifc_links *out)
{
	struct job j = { .what = JOB_LINKS, .links = out };

	return run(call, &j);
}

static int linux_link(struct netifc_call *call, int32_t index, const char *name,
		      struct netifc_links *out)
{
	struct job j = { .what = JOB_LINK, .index = index, .name = name, .links = out };

	return run(call, &j);
}

static int linux_addrs(struct netifc_call *call, enum netifc_kind kind, int32_t index,
		       const char *name, struct netifc_links *links, struct netifc_addrs *out)
{
	struct job j = { .what = JOB_ADDRS,
			 .kind = kind,
			 .index = index,
			 .name = name,
			 .links = index ? NULL : links,
			 .addrs = out };
	int r;

	j.scratch = (struct netifc_links)NETIFC_LINKS_ON(&j.one);
	r = run(call, &j);

	/* A vanished link has no addresses, unless the caller asked after it by name. */
	return r == -ENODEV && index && !(call->opts & NETIFC_SAME_LINK) ? 0 : r;
}

int netifc_nl_link_addrs(struct netifc_call *call, const char *name, struct netifc_links *link,
			 struct netifc_addrs *addrs)
{
	struct job j = { .what = JOB_NAMED, .name = name, .links = link, .addrs = addrs };

	return run(call, &j);
}

int netifc_nl_run(struct netifc_call *call, nl_ask_fn ask, void *ctx)
{
	struct job j = { .what = JOB_OTHER, .ask = ask, .ctx = ctx };

	return run(call, &j);
}

const struct netifc_backend netifc_backend_netlink = {
	.name = "netlink",
	.links = linux_links,
	.link = linux_link,
	.addrs = linux_addrs,
	.counters = netifc_nl_counters,
};
