/*
 * netlink/stats.c -- the netlink backend's link counters.  Every link's: one
 * RTM_GETSTATS dump that asks for the 64-bit link counters only
 * (IFLA_STATS_LINK_64), not a link dump; one link's: one RTM_GETSTATS
 * request.  The stats messages carry no name: on the thread's kept socket
 * the names come from those kept with it, current by the kernel's link
 * notifications (netlink/names.c), and only a link not known yet is asked
 * for (SIOCGIFNAME, on the same socket); in another namespace (NetNS) each
 * link's is asked for.  A link gone in between is dropped.  Both go
 * through netlink/backend.c's get/ask/put loop.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "netlink/backend.h"
#include "netlink/names.h"
#include "netlink/socket.h"
#include "netlink/stats.h"
#include "netlink/stats_parse.h"

struct stats_job {
	int32_t index;          /* 0: every link */
	struct netifc_counters_table *out;
	size_t start;           /* what the table held before the call */
};

static int on_stats(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct netifc_counters_table *t = ctx;
	struct netifc_counters *c = netifc_counters_push(t);
	int r;

	if (!c)
		return -ENOMEM;
	r = nl_parse_stats(type, p, len, c);
	if (r <= 0)
		t->n--;
	return r < 0 ? r : 0;
}

/*
 * A link's name: kept with the thread's socket (names, when not NULL),
 * else asked of the kernel, and then kept.
 */
static int name_of(struct nl_sock *s, struct netifc_call *call, struct nl_names *names,
		   int32_t index, char *name)
{
	const char *known = names ? nl_names_find(names, index) : NULL;
	int r;

	if (known) {
		memcpy(name, known, NETIFC_NAMESIZ);
		return 0;
	}
	if ((r = nl_name_of(s, call, index, name)) < 0 || !names)
		return r;
	return nl_names_keep(names, index, name);
}

/* Each record's link named; those whose link has gone since, dropped. */
static int name_all(struct nl_sock *s, struct netifc_call *call, struct nl_names *names,
		    struct netifc_counters_table *t, size_t start)
{
	size_t i, kept = start;
	int r;

	for (i = start; i < t->n; i++) {
		r = name_of(s, call, names, t->v[i].index, t->v[i].name);
		if (r == -ENODEV)
			continue;
		if (r < 0)
			return r;
		if (kept != i)
			t->v[kept] = t->v[i];
		kept++;
	}
	t->n = kept;
	return 0;
}

static int ask_stats(struct nl_sock *s, struct netifc_call *call, void *ctx)
{
	struct stats_job *j = ctx;
	struct nl_names *names = call->ns ? NULL : nl_kept_names(s);
	struct nl_stats_req q;
	int r;

	j->out->n = j->start;
	/* The links known: room for them and a few more, grown once, not doubled up to it. */
	if (names && !j->index && netifc_counters_reserve(j->out, nl_names_count(names) + 16) < 0)
		return -ENOMEM;
	netifc_stats_request(&q, j->index);
	call->step = j->index ? "netlink RTM_GETSTATS request" : "netlink RTM_GETSTATS dump";
	r = names ? nl_names_talk(names, s, &q.h, on_stats, j->out)
		  : nl_talk(s, &q.h, on_stats, j->out);
	if (r < 0)
		return r;
	if (j->index && (j->out->n != j->start + 1 || j->out->v[j->start].index != j->index))
		return -EPROTO;         /* a request has one answer, for its link */
	if ((r = name_all(s, call, names, j->out, j->start)) < 0)
		return r;
	return j->index && j->out->n == j->start ? -ENODEV : 0;
}

int netifc_nl_counters(struct netifc_call *c, int32_t index, struct netifc_counters_table *out)
{
	struct stats_job j = { .index = index, .out = out, .start = out->n };

	return netifc_nl_run(c, ask_stats, &j);
}
