/*
 * netlink/watch.c -- the watch socket: change notifications from the kernel.
 *
 * Only the kernel's datagrams are read (sender nl_pid 0): a root socket may
 * send to a multicast group, and what it sends is dropped unread.  The
 * socket is also connect()ed to the kernel, so no other socket's unicast
 * reaches it.  Every open watch is on the fork registry (netlink/fork.h),
 * opened and closed under its list's lock: a forked child closes them all
 * (a watch belongs to the process that opened it).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netlink/io.h"
#include "netlink/netns.h"
#include "netlink/watch.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
#ifndef NETLINK_ADD_MEMBERSHIP
#define NETLINK_ADD_MEMBERSHIP 1
#endif
/* Linux 6.x; older kernels refuse to join them (so the watch has no group events). */
#define RTNLGRP_IPV4_MCADDR_ 37
#define RTNLGRP_IPV6_MCADDR_ 38

#define WATCH_BUFSIZE 32768 /* on the stack; one notification is one message, most far smaller */
#define WATCH_RCVBUF (1 << 20) /* asked for; the kernel caps it at net.core.rmem_max */
#define WATCH_MAX_READS 65536 /* datagrams per read: a flood cannot keep it forever */

/* In a forked child: the socket is the parent's. */
static void watch_in_child(struct nl_fork_entry *e)
{
	struct nl_watch *w = (struct nl_watch *)((char *)e - offsetof(struct nl_watch, fork));

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

static int join(int fd, int group)
{
	return setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof group);
}

static int open_socket(struct nl_watch *w, struct netifc_ns *ns, unsigned groups)
{
	static const int tables[] = { RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR };
	static const int routes[] = { RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE };
	const int route_watch = (groups & NL_WATCH_ROUTES) != 0;
	const int *required = route_watch ? routes : tables;
	const size_t n_required = route_watch ? 2 : 3;
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	int rcvbuf = WATCH_RCVBUF;
	size_t i;
	const int type = SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK;
	int fd;

	/* In another namespace: made there by a helper thread, then used here. */
	fd = ns ? netifc_ns_socket(ns, AF_NETLINK, type, NETLINK_ROUTE)
		: socket(AF_NETLINK, type, NETLINK_ROUTE);
	if (fd < 0)
		return ns ? fd : -errno;
	w->fd = fd;
	if (bind(w->fd, (struct sockaddr *)&me, sizeof me) < 0 ||
	    connect(w->fd, (struct sockaddr *)&kernel, sizeof kernel) < 0)
		return -errno;
	for (i = 0; i < n_required; i++)
		if (join(w->fd, required[i]) < 0)
			return -errno;
	if (route_watch) { /* no other group */
		w->groups = NL_WATCH_ROUTES;
		groups = 0;
	}
	if ((groups & NL_WATCH_MCAST4) && join(w->fd, RTNLGRP_IPV4_MCADDR_) == 0)
		w->groups |= NL_WATCH_MCAST4;
	if ((groups & NL_WATCH_MCAST6) && join(w->fd, RTNLGRP_IPV6_MCADDR_) == 0)
		w->groups |= NL_WATCH_MCAST6;
	setsockopt(w->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf); /* best effort */
	return 0;
}

int nl_watch_open(struct nl_watch *w, struct netifc_ns *ns, unsigned groups)
{
	int r;

	memset(w, 0, sizeof *w);
	w->fd = -1;
	if ((r = nl_fork_own(&w->fork, &w->lock, watch_in_child)) != 0)
		return -r;
	nl_fork_lock(NL_FORK_WATCHES); /* then ns->lock, in open_socket: the registry's order */
	if ((r = open_socket(w, ns, groups)) < 0 && w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
	if (r == 0)
		nl_fork_add(NL_FORK_WATCHES, &w->fork);
	nl_fork_unlock(NL_FORK_WATCHES);
	if (r < 0)
		nl_fork_drop(NL_FORK_WATCHES, &w->fork);
	return r;
}

/*
 * The next datagram, peeked: its real length (MSG_TRUNC) and sender, or a
 * negative errno.  Nothing is copied; the datagram stays queued.
 */
static ssize_t peek_one(struct nl_watch *w, uint32_t *sender)
{
	struct sockaddr_nl sa;
	struct iovec iov = { .iov_base = NULL, .iov_len = 0 };
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &iov, .msg_iovlen = 1
	};
	ssize_t n;

	*sender = UINT32_MAX; /* none known until a datagram is seen */
	do
		n = recvmsg(w->fd, &msg, MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	*sender = msg.msg_namelen >= sizeof sa ? sa.nl_pid : UINT32_MAX;
	return n;
}

/* The datagram peeked, taken: its real length (beyond size: it was cut) or a negative errno. */
static ssize_t take_one(struct nl_watch *w, void *buf, size_t size)
{
	ssize_t n;

	do
		n = recv(w->fd, buf, size, MSG_DONTWAIT | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* Room for a datagram of `need` bytes: 0, or -ENOMEM (the buffer is left as it was). */
static int grow(struct nl_watch *w, size_t need)
{
	uint8_t *nb;

	if (need <= (w->buf ? w->size : WATCH_BUFSIZE))
		return 0;
	if (!(nb = realloc(w->buf, need)))
		return -ENOMEM;
	w->buf = nb;
	w->size = need;
	return 0;
}

/* Anything to read (or an error to take): poll costs less than an empty receive. */
static int pending(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) != 0; /* on failure, the receive tells */
}

/*
 * One datagram, as iproute2 reads: its size peeked, the buffer grown to it,
 * then read whole.  1: one taken (parsed or dropped), 0: none pending, -errno.
 */
static int read_one(struct nl_watch *w, uint8_t *stack, struct nl_events *ev)
{
	uint32_t sender;
	ssize_t n = peek_one(w, &sender);
	uint8_t *buf;
	size_t size;
	int r;

	if (n == -EAGAIN)
		return 0;
	if (n == -ENOBUFS) {
		ev->lost++; /* the kernel dropped notifications */
		return 1;
	}
	if (n < 0)
		return (int)n;
	if (sender != 0) { /* not the kernel's: dropped unread */
		n = take_one(w, stack, 0);
		return n < 0 ? (int)n : 1;
	}
	grow(w, (size_t)n); /* no memory: it is read cut, below */
	buf = w->buf ? w->buf : stack;
	size = w->buf ? w->size : WATCH_BUFSIZE;
	if ((n = take_one(w, buf, size)) < 0)
		return n == -EAGAIN ? 0 : (int)n;
	if ((size_t)n > size) {
		ev->lost++; /* cut, so lost: the caller reads its tables again */
		return 1;
	}
	r = nl_parse_events(buf, (size_t)n, ev);
	return r < 0 ? r : 1;
}

int nl_watch_read(struct nl_watch *w, struct nl_events *ev)
{
	uint8_t stack[WATCH_BUFSIZE];
	int r = 0, i;

	pthread_mutex_lock(&w->lock);
	if (w->fd < 0)
		r = -EBADF;
	for (i = 0; r >= 0 && i < WATCH_MAX_READS && (i || pending(w->fd)); i++)
		if ((r = read_one(w, stack, ev)) == 0)
			break;
	pthread_mutex_unlock(&w->lock);
	return r < 0 ? r : 0;
}

int nl_watch_drain(struct nl_watch *w)
{
	uint32_t sender;
	ssize_t n = 0;
	int heard = 0, i;

	pthread_mutex_lock(&w->lock);
	if (w->fd < 0)
		n = -EBADF;
	for (i = 0; n >= 0 && i < WATCH_MAX_READS; i++) {
		if ((n = peek_one(w, &sender)) == -ENOBUFS) {
			heard++; /* the kernel dropped some: look again all the same */
			n = 0;
		} else if (n >= 0 && (n = take_one(w, NULL, 0)) >= 0 && sender == 0) {
			heard++; /* (another sender's: taken, not counted) */
		}
	}
	pthread_mutex_unlock(&w->lock);
	return n < 0 && n != -EAGAIN ? (int)n : heard;
}

int nl_watch_name(struct nl_watch *w, int32_t index, char name[NETIFC_NAMESIZ])
{
	int r;

	pthread_mutex_lock(&w->lock);
	r = w->fd < 0 ? -EBADF : nl_link_name(w->fd, index, name);
	pthread_mutex_unlock(&w->lock);
	return r;
}

int nl_watch_solicited(const struct netifc_addr *g)
{
	static const uint8_t prefix[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff };

	return g->family == AF_INET6 && !memcmp(g->local, prefix, sizeof prefix);
}

int nl_watch_link_addrs(struct netifc_call *call, enum netifc_kind kind, int32_t index,
			const char *name, struct netifc_addrs *out)
{
	const struct netifc_backend *b = netifc_backend_find("netlink");

	call->opts = 0; /* the kernel filters: one request (per family for groups) */
	return b->addrs(call, kind, index, name, NULL, out);
}

void nl_watch_close(struct nl_watch *w)
{
	nl_fork_lock(NL_FORK_WATCHES);
	pthread_mutex_lock(&w->lock);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	pthread_mutex_unlock(&w->lock);
	nl_fork_unlock(NL_FORK_WATCHES);
}

/* Closes the watch and takes it off the list; w was opened by nl_watch_open. */
void nl_watch_free(struct nl_watch *w)
{
	nl_watch_close(w);
	nl_fork_drop(NL_FORK_WATCHES, &w->fork);
	free(w->buf);
	w->buf = NULL;
}
