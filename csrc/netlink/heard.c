/*
 * netlink/heard.c -- the links a dump's notifications told changed.
 *
 * Lengths are checked as in netlink/parse.c: a signed remaining length, each
 * message and its fixed header against what is left.  What cannot be read
 * is taken for the worst (relisted): the caller then asks the dump again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netlink/heard.h"

#ifndef RTM_NEWMULTICAST
#define RTM_NEWMULTICAST 56
#endif
#ifndef RTM_DELMULTICAST
#define RTM_DELMULTICAST 57
#endif

static int note(struct nl_heard *h, int32_t index)
{
	int32_t *nv;
	size_t cap;

	if (h->n && h->links[h->n - 1] == index)
		return 0;       /* a run of one link's messages */
	if (h->n == h->cap) {
		cap = h->cap ? 2 * h->cap : 16;
		if (!(nv = realloc(h->links, cap * sizeof *nv)))
			return -ENOMEM;
		h->links = nv;
		h->cap = cap;
	}
	h->links[h->n++] = index;
	return 0;
}

/* One message's payload; 0 or -ENOMEM. */
static int heard_one(struct nl_heard *h, uint16_t type, const uint8_t *p, long plen)
{
	struct ifaddrmsg ifa;
	struct ifinfomsg ifi;
	struct rtmsg rtm;

	switch (type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		if (plen < (long)sizeof rtm)
			break;
		memcpy(&rtm, p, sizeof rtm);
		h->routes6 |= rtm.rtm_family == AF_INET6;
		return 0;
	case RTM_NEWADDR:
	case RTM_DELADDR:
	case RTM_NEWMULTICAST:
	case RTM_DELMULTICAST:
		if (plen < (long)sizeof ifa)
			break;
		memcpy(&ifa, p, sizeof ifa);
		return note(h, (int32_t)ifa.ifa_index);
	case RTM_NEWLINK:
	case RTM_DELLINK:
		if (plen < (long)sizeof ifi)
			break;
		memcpy(&ifi, p, sizeof ifi);
		if (ifi.ifi_family == AF_BRIDGE)
			return 0;       /* a bridge port's, not the link list's */
		if (type != RTM_DELLINK && ifi.ifi_change != 0xffffffffu)
			return 0;
		h->relisted = 1;
		return note(h, ifi.ifi_index); /* its addresses, if any, are its no more or yet */
	default:
		return 0;
	}
	h->relisted = 1; /* too short to say which link */
	return 0;
}

int nl_heard_parse(struct nl_heard *h, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	long rem = (long)len, step;
	struct nlmsghdr nh;
	int r;

	while (rem >= (long)sizeof nh) {
		memcpy(&nh, p, sizeof nh);
		if (nh.nlmsg_len < sizeof nh || nh.nlmsg_len > (unsigned long)rem) {
			h->relisted = 1;
			return 0;
		}
		r = heard_one(h, nh.nlmsg_type, p + NLMSG_HDRLEN,
			      (long)nh.nlmsg_len - (long)NLMSG_HDRLEN);
		if (r < 0)
			return r;
		step = (long)NLMSG_ALIGN(nh.nlmsg_len);
		if (step > rem)
			step = rem;
		p += step;
		rem -= step;
	}
	return 0;
}

static int index_cmp(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;

	return (a > b) - (a < b);
}

void nl_heard_sort(struct nl_heard *h)
{
	size_t i, kept = 0;

	if (h->n)
		qsort(h->links, h->n, sizeof *h->links, index_cmp);
	for (i = 0; i < h->n; i++)
		if (!kept || h->links[kept - 1] != h->links[i])
			h->links[kept++] = h->links[i];
	h->n = kept;
}

int nl_heard_has(const struct nl_heard *h, int32_t index)
{
	return h->n && bsearch(&index, h->links, h->n, sizeof *h->links, index_cmp) != NULL;
}

void nl_heard_clear(struct nl_heard *h, int family)
{
	h->n = 0;
	h->relisted = 0;
	h->routes6 = 0;
	h->family = family;
}

void nl_heard_free(struct nl_heard *h)
{
	free(h->links);
	memset(h, 0, sizeof *h);
}
