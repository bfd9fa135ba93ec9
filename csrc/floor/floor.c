/*
 * floor.c -- the kernel floor for the benchmark harness: the very requests
 * each netifc benchmark makes, with no parsing past the message headers and
 * no records built.  Two sockets: a fresh one for each round, or one kept
 * for every round with NETLINK_GET_STRICT_CHK on, as netifc keeps a socket
 * per thread (both opened, connected and read by the same netlink/io.c).
 * The requests are built by the same functions as netifc's.
 */
#define _GNU_SOURCE             /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "floor/floor.h"
#include "netlink/io.h"
#include "netlink/route_parse.h"
#include "netlink/stats_parse.h"

static int discard(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	(void)type;
	(void)p;
	(void)len;
	(void)ctx;
	return 0;
}

/* One request; an interrupted dump was still read whole, so it counts as done. */
static int ask(struct nl_sock *s, struct nlmsghdr *req)
{
	int r = nl_talk(s, req, discard, NULL);

	return r == NL_ERR_INTR ? 0 : r;
}

static int ask_link(struct nl_sock *s, int dump, int32_t index, const char *name)
{
	struct nl_link_req q;
	int r = netifc_link_request(&q, dump ? NLM_F_DUMP : 0, index, name);

	return r < 0 ? r : ask(s, &q.h);
}

static int ask_addrs(struct nl_sock *s, uint16_t type, int family, int32_t index)
{
	struct nl_addr_req q;

	netifc_addr_request(&q, type, family, index);
	return ask(s, &q.h);
}

/* One link's name (netifc's check that an Interface's link is still its own). */
static int ask_name(struct nl_sock *s, int32_t index)
{
	char name[NETIFC_NAMESIZ];

	return nl_link_name(s->fd, index, name);
}

/* The name of each link in f->zones, as netifc asks for them. */
static int ask_names(struct nl_sock *s, const struct netifc_floor *f)
{
	size_t i;
	int r = 0;

	for (i = 0; r == 0 && i < f->n_zones; i++)
		r = ask_name(s, f->zones[i]);
	return r;
}

static int ask_routes(struct nl_sock *s, const struct netifc_floor *f)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 };
	struct nl_route_req q;
	int r;

	if (f->op == FLOOR_ROUTES)
		netifc_route_dump_request(&q, AF_UNSPEC, RT_TABLE_MAIN, s->strict);
	else
		netifc_route_get_request(&q, AF_INET, lo4, 0);
	r = ask(s, &q.h);
	return r ? r : ask_names(s, f);
}

static int ask_stats(struct nl_sock *s, int32_t index)
{
	struct nl_stats_req q;

	netifc_stats_request(&q, index);
	return ask(s, &q.h);
}

/* One round of op's requests on s: 0, NL_ERR_CUT or a negative errno. */
static int once(struct nl_sock *s, const struct netifc_floor *f)
{
	int r;

	switch (f->op) {
	case FLOOR_LINKS:
		return ask_link(s, 1, 0, NULL);
	case FLOOR_LINK_INDEX:
		return ask_link(s, 0, f->index, NULL);
	case FLOOR_LINK_NAME:
		return ask_link(s, 0, 0, f->name);
	case FLOOR_ADDRS:
		r = ask_addrs(s, RTM_GETADDR, AF_UNSPEC, 0);
		return r ? r : ask_names(s, f);
	case FLOOR_LINK_ADDRS:
		r = ask_addrs(s, RTM_GETADDR, AF_UNSPEC, f->index);
		return r ? r : ask_name(s, f->index);
	case FLOOR_LINK_GROUPS:
		r = ask_addrs(s, RTM_GETMULTICAST, AF_INET, f->index);
		r = r ? r : ask_addrs(s, RTM_GETMULTICAST, AF_INET6, f->index);
		return r ? r : ask_name(s, f->index);
	case FLOOR_SNAPSHOT:
		r = ask_link(s, 1, 0, NULL);
		return r ? r : ask_addrs(s, RTM_GETADDR, AF_UNSPEC, 0);
	case FLOOR_ROUTES:
	case FLOOR_ROUTE_GET:
		return ask_routes(s, f);
	case FLOOR_COUNTERS:
		return ask_stats(s, 0);
	case FLOOR_LINK_COUNTERS:
		return ask_stats(s, f->index);
	}
	return -EINVAL;
}

/*
 * One round on *s, opened first when it is not (fd < 0).  A reply cut by a
 * short buffer leaves the socket unusable: the round is made again on a new
 * one with the buffer the kernel asked for, as netifc does, at most
 * NETIFC_TRIES times.  A fresh round closes its socket; the next one's
 * buffer is the size the last reply needed.
 */
static int round_on(struct nl_sock *s, const struct netifc_floor *f)
{
	size_t want = s->want;
	int tries, r = -EBUSY;

	for (tries = 0; tries < NETIFC_TRIES; tries++) {
		if (s->fd < 0 && (r = nl_open(s, 1, want)) < 0)
			return r;
		r = once(s, f);
		want = s->want;
		if (f->socket == FLOOR_FRESH || r == NL_ERR_CUT)
			nl_close(s);
		s->want = want;         /* the next socket's buffer */
		if (r != NL_ERR_CUT)
			return r;
	}
	return -EBUSY;
}

/* The thread's namespace, "net:[inode]", read through its link as netifc reads it. */
static int ns_id(int link, char *id, size_t size)
{
	ssize_t n = readlinkat(link, "", id, size - 1);

	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	id[n] = 0;
	return 0;
}

static int same_ns(int link, const char *was)
{
	char id[48];
	int r = ns_id(link, id, sizeof id);

	return r < 0 ? r : strcmp(id, was) ? -ESTALE : 0;
}

int netifc_floor_run(const struct netifc_floor *f, long n, double *ns_per_op)
{
	struct nl_sock s = { .fd = -1 };
	struct timespec a, b;
	char was[48];
	long i;
	int link = -1, r = 0;

	if (f->nscheck) {
		link = open("/proc/thread-self/ns/net", O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (link < 0)
			return -errno;
		if ((r = ns_id(link, was, sizeof was)) < 0)
			goto done;
	}
	if (f->socket == FLOOR_KEPT && (r = nl_open(&s, 1, 0)) < 0)
		goto done;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n && r == 0; i++)
		if (!f->nscheck || (r = same_ns(link, was)) == 0)
			r = round_on(&s, f);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ns_per_op = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
		     (double)(n > 0 ? n : 1);
done:
	nl_close(&s);
	if (link >= 0)
		close(link);
	return r;
}
