/*
 * floor.c -- the kernel floor for the benchmark harness: the very requests
 * each netifc benchmark makes, with no parsing past the message headers and
 * no records built.  Two sockets: a fresh one for each round, or one kept
 * for every round with NETLINK_GET_STRICT_CHK on, as netifc keeps a socket
 * per thread (opened and set up by the same nl_open()).
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "floor.h"
#include "nlio.h"

static int discard(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	(void)type; (void)p; (void)len; (void)ctx;
	return 0;
}

static int ask_link(struct nl_sock *s, int dump, int32_t index, const char *name)
{
	struct nl_link_req q;
	int r = netifc_link_request(&q, dump ? NLM_F_DUMP : 0, index, name);

	return r < 0 ? r : nl_talk(s, &q.h, discard, NULL);
}

static int ask_addrs(struct nl_sock *s, uint16_t type, int family, int32_t index)
{
	struct {
		struct nlmsghdr h;
		struct ifaddrmsg ifa;
	} q;

	memset(&q, 0, sizeof q);
	q.h.nlmsg_len = NLMSG_LENGTH(sizeof q.ifa);
	q.h.nlmsg_type = type;
	q.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q.ifa.ifa_family = (uint8_t)family;
	q.ifa.ifa_index = (uint32_t)index;
	return nl_talk(s, &q.h, discard, NULL);
}

static int once(struct nl_sock *s, const struct netifc_floor *f)
{
	size_t i;
	int r;

	switch (f->op) {
	case FLOOR_LINKS:
		r = ask_link(s, 1, 0, NULL);
		break;
	case FLOOR_LINK_INDEX:
		r = ask_link(s, 0, f->index, NULL);
		break;
	case FLOOR_LINK_NAME:
		r = ask_link(s, 0, 0, f->name);
		break;
	case FLOOR_ADDRS:
		r = ask_addrs(s, RTM_GETADDR, AF_UNSPEC, 0);
		for (i = 0; r >= 0 && i < f->n_zones; i++) {
			struct ifreq ifr = { .ifr_ifindex = f->zones[i] };

			r = ioctl(s->fd, SIOCGIFNAME, &ifr) < 0 ? -errno : 0;
		}
		break;
	case FLOOR_LINK_ADDRS:
		r = ask_addrs(s, RTM_GETADDR, AF_UNSPEC, f->index);
		break;
	case FLOOR_LINK_GROUPS:
		r = ask_addrs(s, RTM_GETMULTICAST, AF_INET, f->index);
		if (r >= 0)
			r = ask_addrs(s, RTM_GETMULTICAST, AF_INET6, f->index);
		break;
	case FLOOR_SNAPSHOT:
		r = ask_link(s, 1, 0, NULL);
		if (r >= 0)
			r = ask_addrs(s, RTM_GETADDR, AF_UNSPEC, 0);
		break;
	default:
		r = -EINVAL;
	}
	return r < 0 ? r : 0;
}

/* One round on a socket of its own: opened, asked, closed. */
static int once_fresh(const struct netifc_floor *f)
{
	struct nl_sock s;
	int r;

	if ((r = nl_open(&s, 1)) < 0)
		return r;
	r = once(&s, f);
	nl_close(&s);
	return r;
}

int netifc_floor_run(const struct netifc_floor *f, long n, double *ns_per_op)
{
	struct nl_sock kept = { .fd = -1 };
	struct timespec a, b;
	long i;
	int r = 0;

	if (f->socket == FLOOR_KEPT && (r = nl_open(&kept, 1)) < 0)
		return r;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n && r == 0; i++)
		r = f->socket == FLOOR_KEPT ? once(&kept, f) : once_fresh(f);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (f->socket == FLOOR_KEPT)
		nl_close(&kept);
	*ns_per_op = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
		     (double)(n > 0 ? n : 1);
	return r;
}
