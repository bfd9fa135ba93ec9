/*
 * netlink/names.c -- the names of one network namespace's links, kept
 * current.  Its socket is subscribed to the link notifications
 * (RTNLGRP_LINK) and also carries the requests that need the names
 * (counters' RTM_GETSTATS).  The kernel queues a notification before the
 * change's own call returns, and the queue is read in order, so by the
 * time a reply is read every new link, rename and removal before the
 * request has been applied: no call of its own is spent on them.  A link
 * not known yet is asked for by the caller (SIOCGIFNAME) and kept.  When
 * notifications were lost (ENOBUFS, a datagram cut short) the socket is
 * left dirty and the caller drops it with every name; one that cannot be
 * parsed makes every name forgotten.  The names sit in an open-addressing
 * table by ifindex (linear probing, at most half full).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netlink/names.h"
#include "netlink/parse.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct slot {
	int32_t index;          /* 0: empty */
	char name[NETIFC_NAMESIZ];
};

struct nl_names {
	struct nl_sock s;
	struct slot *v;
	size_t cap, n;          /* cap: 0 or a power of two */
	struct nl_events ev;
};

struct nl_names *nl_names_open(size_t want)
{
	struct nl_names *t = calloc(1, sizeof *t);
	int group = RTNLGRP_LINK;

	if (!t)
		return NULL;
	if (nl_open(&t->s, 1, want) < 0 ||
	    setsockopt(t->s.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof group) < 0) {
		nl_close(&t->s);
		free(t);
		return NULL;
	}
	return t;
}

void nl_names_free(struct nl_names *t)
{
	if (!t)
		return;
	nl_close(&t->s);
	free(t->v);
	nl_events_free(&t->ev);
	free(t);
}

static size_t home(const struct nl_names *t, int32_t index)
{
	return ((uint32_t)index * 2654435761u) & (t->cap - 1);
}

static struct slot *slot_of(const struct nl_names *t, int32_t index)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = home(t, index); t->v[i].index; i = (i + 1) & (t->cap - 1))
		if (t->v[i].index == index)
			return &t->v[i];
	return NULL;
}

size_t nl_names_count(const struct nl_names *t)
{
	return t->n;
}

const char *nl_names_find(const struct nl_names *t, int32_t index)
{
	const struct slot *s = slot_of(t, index);

	return s ? s->name : NULL;
}

static void place(struct nl_names *t, int32_t index, const char *name)
{
	size_t i = home(t, index);

	while (t->v[i].index)
		i = (i + 1) & (t->cap - 1);
	t->v[i].index = index;
	memcpy(t->v[i].name, name, NETIFC_NAMESIZ);
	t->n++;
}

static int grow(struct nl_names *t)
{
	struct slot *old = t->v;
	size_t i, cap = t->cap;

	t->v = calloc(cap ? cap * 2 : 64, sizeof *t->v);
	if (!t->v) {
		t->v = old;
		return -ENOMEM;
	}
	t->cap = cap ? cap * 2 : 64;
	t->n = 0;
	for (i = 0; i < cap; i++)
		if (old[i].index)
			place(t, old[i].index, old[i].name);
	free(old);
	return 0;
}

int nl_names_keep(struct nl_names *t, int32_t index, const char *name)
{
	struct slot *s = slot_of(t, index);
	char copy[NETIFC_NAMESIZ] = { 0 };

	strncpy(copy, name, NETIFC_NAMESIZ - 1);
	if (s) {
		memcpy(s->name, copy, sizeof copy);
		return 0;
	}
	if ((t->n + 1) * 2 > t->cap && grow(t) < 0)
		return -ENOMEM;
	place(t, index, copy);
	return 0;
}

/* Removes a link's name; the slots after it move back where their probe finds them. */
static void drop(struct nl_names *t, int32_t index)
{
	struct slot *s = slot_of(t, index);
	size_t hole, i, want;

	if (!s)
		return;
	hole = (size_t)(s - t->v);
	t->v[hole].index = 0;
	t->n--;
	for (i = (hole + 1) & (t->cap - 1); t->v[i].index; i = (i + 1) & (t->cap - 1)) {
		want = home(t, t->v[i].index);
		/* it stays unless the hole lies on its way from want to i */
		if (((i - want) & (t->cap - 1)) < ((i - hole) & (t->cap - 1)))
			continue;
		t->v[hole] = t->v[i];
		t->v[i].index = 0;
		hole = i;
	}
}

static void forget_all(struct nl_names *t)
{
	if (t->cap)
		memset(t->v, 0, t->cap * sizeof *t->v);
	t->n = 0;
}

/* The link events of one datagram, in order; all forgotten when some could not be read. */
static int heard(void *ctx, const uint8_t *buf, size_t len)
{
	struct nl_names *t = ctx;
	const struct nl_event *e;
	const struct netifc_link *l;
	size_t i;
	int r = nl_parse_events(buf, len, &t->ev);

	for (i = 0; i < t->ev.n && r == 0; i++) {
		e = &t->ev.v[i];
		if (e->kind != NL_EV_LINK_NEW && e->kind != NL_EV_LINK_DEL)
			continue;
		l = &t->ev.links.v[e->at];
		if (e->kind == NL_EV_LINK_DEL)
			drop(t, l->index);
		else
			r = nl_names_keep(t, l->index, l->name);
	}
	if (t->ev.lost || r < 0)
		forget_all(t);
	nl_events_clear(&t->ev);
	return r;
}

int nl_names_talk(struct nl_names *t, struct nl_sock *kept, struct nlmsghdr *req, nl_msg_cb cb,
		  void *ctx)
{
	int r = nl_talk_heard(&t->s, req, cb, ctx, heard, t);

	if (t->s.dirty)
		kept->dirty = 1;
	if (t->s.want > kept->want)
		kept->want = t->s.want;
	return r;
}
