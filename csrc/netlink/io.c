/*
 * netlink/io.c -- netlink socket I/O.  Parsing lives in netlink/parse.c.
 *
 * The socket is connected to the kernel, so no other socket can queue a
 * datagram on it; the sender is checked all the same.  A datagram is never
 * parsed cut: one too big for the buffer makes the request be asked again,
 * on another socket (the rest of that reply is never waited for).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <linux/rtnetlink.h>

#include "netlink/io.h"

#ifndef RTEXT_FILTER_SKIP_STATS
#define RTEXT_FILTER_SKIP_STATS (1 << 3)
#endif

#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif
#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
#ifndef NETLINK_ADD_MEMBERSHIP
#define NETLINK_ADD_MEMBERSHIP 1
#endif
#ifndef NETLINK_DROP_MEMBERSHIP
#define NETLINK_DROP_MEMBERSHIP 2
#endif
#define NL_DRAIN_MAX 4096       /* datagrams read after leaving; more: the socket is dropped */

#define NL_BUFSIZE 32768        /* the kernel fills dump datagrams up to this */

static int open_proto(struct nl_sock *s, int proto, int want_strict, size_t want)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	socklen_t salen = sizeof sa;
	int one = 1, err;

	memset(s, 0, sizeof *s);
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (s->fd < 0)
		return -errno;
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    getsockname(s->fd, (struct sockaddr *)&sa, &salen) < 0 ||
	    connect(s->fd, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
		err = -errno;
		nl_close(s);
		return err;
	}
	s->portid = sa.nl_pid;
	s->want = want > NL_BUFSIZE ? want : NL_BUFSIZE;
	s->strict = want_strict &&
		    setsockopt(s->fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof one) == 0;
	return 0;
}

int nl_open(struct nl_sock *s, int want_strict, size_t want)
{
	return open_proto(s, NETLINK_ROUTE, want_strict, want);
}

int nl_open_generic(struct nl_sock *s)
{
	return open_proto(s, NETLINK_GENERIC, 0, 0);
}

void nl_close(struct nl_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}

static int nl_send(struct nl_sock *s, struct nlmsghdr *req)
{
	ssize_t n;

	req->nlmsg_seq = ++s->seq;
	req->nlmsg_pid = 0;
	do
		n = send(s->fd, req, req->nlmsg_len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)req->nlmsg_len ? 0 : -EIO;
}

static int fit(struct nl_sock *s, size_t need)
{
	uint8_t *nb;

	if (need <= s->size)
		return 0;
	nb = realloc(s->buf, need);
	if (!nb)
		return -ENOMEM;
	s->buf = nb;
	s->size = need;
	return 0;
}

/*
 * One datagram into s->buf: its real length (MSG_TRUNC: it may exceed the
 * buffer, then only the buffer's worth was kept), or a negative errno.
 */
static ssize_t nl_recv(struct nl_sock *s, uint32_t *sender)
{
	struct sockaddr_nl sa;
	struct iovec iov = { .iov_base = s->buf, .iov_len = s->size };
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &iov, .msg_iovlen = 1
	};
	ssize_t n;

	*sender = UINT32_MAX;   /* none known until a datagram is read */
	do
		n = recvmsg(s->fd, &msg, MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	*sender = msg.msg_namelen >= sizeof sa ? sa.nl_pid : UINT32_MAX;
	return n;
}

/* A datagram of the reply itself: the kernel puts no notification in one. */
static int of_reply(const struct nl_walk *w, const uint8_t *buf, size_t len)
{
	struct nlmsghdr h;

	if (len < sizeof h)
		return 0;
	memcpy(&h, buf, sizeof h);
	return h.nlmsg_seq == w->seq && h.nlmsg_pid == w->portid;
}

/*
 * A datagram that holds records: not the NLMSG_DONE (or error) alone that
 * ends a dump, which the kernel sends on its own when the records filled
 * the datagram before.
 */
static int holds_records(const uint8_t *buf, size_t len)
{
	struct nlmsghdr h;

	if (len < sizeof h)
		return 0;
	memcpy(&h, buf, sizeof h);
	return h.nlmsg_type != NLMSG_DONE && h.nlmsg_type != NLMSG_ERROR;
}

int nl_talk(struct nl_sock *s, struct nlmsghdr *req, nl_msg_cb cb, void *ctx)
{
	return nl_talk_heard(s, req, cb, ctx, NULL, NULL);
}

int nl_talk_heard(struct nl_sock *s, struct nlmsghdr *req, nl_msg_cb cb, void *ctx,
		  nl_heard_fn heard, void *heard_ctx)
{
	struct nl_walk w = { .dump = !!(req->nlmsg_flags & NLM_F_DUMP), .cb = cb, .ctx = ctx };
	uint32_t sender;
	int r;
	ssize_t n;

	if ((r = fit(s, s->want)) < 0)
		return r;
	s->dirty = 1;
	if ((r = nl_send(s, req)) < 0)
		return r;
	w.seq = s->seq;
	w.portid = s->portid;
	s->datagrams = 0;
	do {
		if ((n = nl_recv(s, &sender)) < 0)
			return (int)n;
		if (sender != 0) {
			r = NL_MORE;    /* not the kernel's: dropped, whatever its size */
			continue;
		}
		if ((size_t)n > s->size) {
			/* Cut: the rest of the reply stays unread, so this socket is done. */
			s->want = (size_t)n;
			return NL_ERR_CUT;
		}
		if (heard && !of_reply(&w, s->buf, (size_t)n)) {
			if ((r = heard(heard_ctx, s->buf, (size_t)n)) < 0)
				return r;
		} else if (holds_records(s->buf, (size_t)n)) {
			s->datagrams++;
		}
		r = nl_walk(&w, s->buf, (size_t)n);
	} while (r == NL_MORE);
	if (w.ended)
		s->dirty = 0;
	if (r < 0)
		return r;
	return w.intr ? NL_ERR_INTR : 0;
}

int nl_listen(struct nl_sock *s, unsigned groups, nl_heard_fn heard, void *heard_ctx)
{
	static const struct {
		unsigned of;
		int group;
	} all[] = { { NL_HEAR_ADDRS, RTNLGRP_LINK },
		    { NL_HEAR_ADDRS, RTNLGRP_IPV4_IFADDR },
		    { NL_HEAR_ADDRS, RTNLGRP_IPV6_IFADDR },
		    { NL_HEAR_ROUTES6, RTNLGRP_IPV6_ROUTE },
		    { NL_HEAR_GROUPS, 37 /* RTNLGRP_IPV4_MCADDR */ },
		    { NL_HEAR_GROUPS, 38 /* RTNLGRP_IPV6_MCADDR */ } };
	int how = heard ? NETLINK_DROP_MEMBERSHIP : NETLINK_ADD_MEMBERSHIP;
	size_t i;
	ssize_t n;
	int r = 0;

	for (i = 0; i < sizeof all / sizeof *all; i++)
		if ((groups & all[i].of) &&
		    setsockopt(s->fd, SOL_NETLINK, how, &all[i].group, sizeof all[i].group) < 0 &&
		    !r)
			r = -errno;
	if (r < 0 || !heard) {
		s->dirty |= r < 0;
		return r;
	}
	for (i = 0; i < NL_DRAIN_MAX; i++) {
		do
			n = recv(s->fd, s->buf, s->size, MSG_DONTWAIT | MSG_TRUNC);
		while (n < 0 && errno == EINTR);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0) {
			s->dirty = 1;   /* ENOBUFS: some were lost */
			return -errno;
		}
		if ((size_t)n > s->size) {
			s->want = (size_t)n;
			s->dirty = 1;
			return NL_ERR_CUT;
		}
		if ((r = heard(heard_ctx, s->buf, (size_t)n)) < 0) {
			s->dirty = 1;
			return r;
		}
	}
	s->dirty = 1;   /* a flood: what it told is not all heard */
	return -ENOBUFS;
}

/*
 * The link counters are no part of a record, so the kernel is asked to skip
 * them (RTEXT_FILTER_SKIP_STATS; older kernels ignore it).
 */
int netifc_link_request(struct nl_link_req *q, uint16_t flags, int32_t index, const char *name)
{
	struct rtattr mask = { .rta_len = RTA_LENGTH(4), .rta_type = IFLA_EXT_MASK };
	struct rtattr ifname = { .rta_type = IFLA_IFNAME };
	uint32_t skip = RTEXT_FILTER_SKIP_STATS;
	size_t n = name ? strlen(name) : 0;
	uint8_t *p = q->attrs;

	if (name && (n == 0 || n >= NETIFC_NAMESIZ))
		return -ENODEV;
	memset(q, 0, sizeof *q);
	q->h.nlmsg_type = RTM_GETLINK;
	q->h.nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	q->ifi.ifi_family = AF_UNSPEC;
	q->ifi.ifi_index = index;
	memcpy(p, &mask, sizeof mask);
	memcpy(p + RTA_LENGTH(0), &skip, sizeof skip);
	p += RTA_SPACE(4);
	if (name) {
		ifname.rta_len = (unsigned short)RTA_LENGTH(n + 1);
		memcpy(p, &ifname, sizeof ifname);
		memcpy(p + RTA_LENGTH(0), name, n + 1);
		p += RTA_SPACE(n + 1);
	}
	q->h.nlmsg_len = (uint32_t)(p - (uint8_t *)q);
	return 0;
}

void netifc_addr_request(struct nl_addr_req *q, uint16_t type, int family, int32_t index)
{
	memset(q, 0, sizeof *q);
	q->h.nlmsg_len = NLMSG_LENGTH(sizeof q->ifa);
	q->h.nlmsg_type = type;
	q->h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q->ifa.ifa_family = (uint8_t)family;
	q->ifa.ifa_index = (uint32_t)index;
}

int nl_link_name(int fd, int32_t index, char name[NETIFC_NAMESIZ])
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_ifindex = index;
	if (ioctl(fd, SIOCGIFNAME, &ifr) < 0)
		return errno == ENODEV || errno == ENXIO ? -ENODEV : -errno;
	memset(name, 0, NETIFC_NAMESIZ);
	memcpy(name, ifr.ifr_name, NETIFC_NAMESIZ - 1);
	return 0;
}
