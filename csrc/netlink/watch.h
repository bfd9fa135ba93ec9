/*
 * netlink/watch.h -- a NETLINK_ROUTE socket subscribed to change notifications:
 * links, IPv4 and IPv6 addresses and, where the kernel sends them,
 * multicast groups (netlink/watch.c).  Parsing is nl_parse_events (netlink/parse.c).
 */
#ifndef NETIFC_NLWATCH_H
#define NETIFC_NLWATCH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "netlink/fork.h"
#include "netlink/parse.h"

/* Which of the optional groups the kernel let the socket join. */
#define NL_WATCH_MCAST4 1u      /* RTNLGRP_IPV4_MCADDR */
#define NL_WATCH_MCAST6 2u      /* RTNLGRP_IPV6_MCADDR */
/* Asked for, instead of the links' and addresses' groups: the IPv4 and IPv6
 * routes' (a wait for a default route: nl_watch_drain tells it to look again). */
#define NL_WATCH_ROUTES 4u

struct nl_watch {
	int fd;   /* -1 once closed, here or by a fork in the child */
	unsigned groups;        /* NL_WATCH_MCAST4 | NL_WATCH_MCAST6 | NL_WATCH_ROUTES */
	uint8_t *buf;           /* NULL (a read uses its stack) until a datagram outgrows that */
	size_t size;
	pthread_mutex_t lock;   /* one read or close at a time */
	struct nl_fork_entry fork;      /* on the fork registry's list of watches */
};

struct netifc_ns;

/*
 * Opens the socket (SOCK_CLOEXEC | SOCK_NONBLOCK) in the network namespace
 * ns (netlink/netns.h, made there under its lock; NULL: the calling
 * thread's), joining those of the optional groups in `groups` the kernel
 * has -- or, with NL_WATCH_ROUTES, the route groups alone: 0 or a negative
 * errno (-EBADF: ns is closed).
 */
int nl_watch_open(struct nl_watch *w, struct netifc_ns *ns, unsigned groups);

/*
 * Takes every datagram pending without blocking, unparsed (a route watch's:
 * what matters is that something changed): how many of the kernel's it
 * took, the kernel's word that it dropped some counting as one; or a
 * negative errno (-EBADF once closed).  At most WATCH_MAX_READS a call.
 */
int nl_watch_drain(struct nl_watch *w);

/*
 * Takes every datagram pending, without blocking, and appends its events
 * to ev: 0 (nothing pending is not an error) or a negative errno (-EBADF
 * once closed).  Only the kernel's datagrams count (sender nl_pid 0).
 * Each datagram's size is peeked first and the buffer grown to it, so none
 * is read cut (a link with hundreds of altnames is told in one of 40 KB
 * and more).  ev->lost counts what the kernel dropped (ENOBUFS) and a
 * datagram read cut all the same (no memory to grow); either way the
 * caller reads its tables again.
 */
int nl_watch_read(struct nl_watch *w, struct nl_events *ev);

/*
 * The name of link `index` now (SIOCGIFNAME on the watch socket, in its
 * namespace), for a zone no table knows: 0, -ENODEV when gone, -errno.
 */
int nl_watch_name(struct nl_watch *w, int32_t index, char name[NETIFC_NAMESIZ]);

/*
 * What a watch is not told.  The kernel lists an IPv6 address it makes by
 * itself -- a link's link-local, when the link comes up or gets carrier
 * again, when IPv6 is enabled on it or its MTU is raised to 1280 or more
 * -- in dumps at once, while DAD runs, but tells of it only when DAD ends
 * (1-2 s later); a link that goes down with keep_addr_on_down makes the
 * addresses it keeps tentative again untold; and a link whose IPv6 goes
 * (MTU under 1280) leaves its remaining groups (ff01::1) untold.  The
 * signs, told at once: a change of the link, or an address's
 * solicited-node group joined (where groups are told).  Then the tables
 * ask for that link's addresses (and groups, when they keep them).
 */
int nl_watch_solicited(const struct netifc_addr *group);       /* ff02::1:ff00:0/104 */

/*
 * One link's addresses or groups, named by its `name`: one request the
 * kernel filters by index (the netlink backend's; groups: one per family),
 * in call->ns (NULL: the calling thread's namespace).  0 or a negative
 * errno (a link gone has none).
 */
int nl_watch_link_addrs(struct netifc_call *call, enum netifc_kind kind, int32_t index,
			const char *name, struct netifc_addrs *out);

/* Closes the socket; the struct stays valid (fd -1) until nl_watch_free. */
void nl_watch_close(struct nl_watch *w);
void nl_watch_free(struct nl_watch *w);

#endif
