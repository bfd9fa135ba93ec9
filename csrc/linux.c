/*
 * linux.c -- the rtnetlink backend.
 *
 * interfaces: one RTM_GETLINK dump.  By index or name: one RTM_GETLINK
 * request for that link.  One link's addresses: an RTM_GETADDR dump the
 * kernel filters (NETLINK_GET_STRICT_CHK + ifa_index).  All addresses: one
 * address dump, then the name of each link that has a zone to name
 * (SIOCGIFNAME on the same socket); a snapshot takes one link dump instead.
 * Groups: RTM_GETMULTICAST per family, or /proc/net/igmp{,6} where the
 * kernel has no IPv4 RTM_GETMULTICAST.  The thread's socket is reused.
 */
#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "nlio.h"

static unsigned fallbacks;
static unsigned long retried[2];        /* dumps asked again: interrupted, outgrown */
static int mcast4_state;        /* -1: the kernel has no IPv4 RTM_GETMULTICAST */

void netifc_linux_set_fallbacks(unsigned bits)
{
	fallbacks = bits;
	mcast4_state = 0;
}

void netifc_linux_retries(unsigned long *interrupted, unsigned long *outgrown)
{
	*interrupted = __atomic_load_n(&retried[0], __ATOMIC_RELAXED);
	*outgrown = __atomic_load_n(&retried[1], __ATOMIC_RELAXED);
}

struct collect {
	struct netifc_links *links;
	struct netifc_addrs *addrs;
	struct netifc_link *one;        /* a single-link request's record */
	int found;
	size_t start;           /* table size before this request: a retry resets to it */
	int32_t only;           /* keep one link's records (C-side filter), 0: all */
	int family;             /* keep one family, 0: all */
};

static int on_link(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct collect *c = ctx;
	struct netifc_link *l = netifc_links_push(c->links);
	int r;

	if (!l)
		return -ENOMEM;
	r = nl_parse_link(type, p, len, l);
	if (r <= 0)
		c->links->n--;
	return r < 0 ? r : 0;
}

static int on_one_link(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct collect *c = ctx;
	int r = nl_parse_link(type, p, len, c->one);

	if (r > 0)
		c->found = 1;
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
 * Ask, and ask again while the kernel flags the dump as interrupted or a
 * datagram outgrew the buffer (it has grown since): a bounded number of
 * times, then EBUSY rather than a partial table.
 */
static int ask(struct nl_sock *s, struct nlmsghdr *req, nl_msg_cb cb, struct collect *c)
{
	int tries, r;

	for (tries = 0; tries < NETIFC_DUMP_TRIES; tries++) {
		if (c->links)
			c->links->n = c->start;
		if (c->addrs)
			c->addrs->n = c->start;
		c->found = 0;
		r = nl_talk(s, req, cb, c);
		if (r != NL_AGAIN_INTR && r != NL_AGAIN_CUT)
			return r;
		__atomic_fetch_add(&retried[r == NL_AGAIN_CUT], 1, __ATOMIC_RELAXED);
	}
	return -EBUSY;
}

static int dump_links(struct nl_sock *s, struct netifc_links *out)
{
	struct collect c = { .links = out, .start = out->n };
	struct nl_link_req q;

	netifc_link_request(&q, NLM_F_DUMP, 0, NULL);
	return ask(s, &q.h, on_link, &c);
}

/* One link, by index or (index 0) by name: a single-object request. */
static int get_link(struct nl_sock *s, int32_t index, const char *name, struct netifc_link *out)
{
	struct collect c = { .one = out };
	struct nl_link_req q;
	int r;

	if ((r = netifc_link_request(&q, 0, index, name)) < 0)
		return r;
	r = ask(s, &q.h, on_one_link, &c);
	return r < 0 ? r : c.found ? 0 : -ENODEV;
}

struct addr_req {
	struct nlmsghdr h;
	struct ifaddrmsg ifa;
};

static int dump_addrs_nl(struct nl_sock *s, int type, int family, int32_t index,
			 struct collect *c)
{
	struct addr_req q;

	memset(&q, 0, sizeof q);
	q.h.nlmsg_len = NLMSG_LENGTH(sizeof q.ifa);
	q.h.nlmsg_type = (uint16_t)type;
	q.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q.ifa.ifa_family = (uint8_t)family;
	q.ifa.ifa_index = s->strict ? (uint32_t)index : 0;
	c->only = index;        /* also filtered here: without strict checking it is needed */
	c->start = c->addrs->n;
	return ask(s, &q.h, on_addr, c);
}

/*
 * One family's groups.  Kernels before IPv4 RTM_GETMULTICAST answer an
 * AF_INET request with EOPNOTSUPP: /proc/net/igmp has them there (and the
 * answer is remembered).  There is no AF_UNSPEC dump of groups.
 */
static int dump_groups(struct nl_sock *s, int family, int32_t index, struct netifc_addrs *out)
{
	struct collect c = { .addrs = out, .family = family };
	int use_proc = (fallbacks & NETIFC_NO_NL_MCAST) ||
		       (family == AF_INET && ((fallbacks & NETIFC_NO_NL_MCAST4) || mcast4_state < 0));
	int r;

	if (!use_proc) {
		r = dump_addrs_nl(s, RTM_GETMULTICAST, family, index, &c);
		if (r != -EOPNOTSUPP)
			return r;
		if (family == AF_INET)
			mcast4_state = -1;
		out->n = c.start;
	}
	return netifc_proc_groups(family, index, out);
}

static int dump_kind(struct nl_sock *s, enum netifc_kind kind, int32_t index,
		     struct netifc_addrs *out)
{
	struct collect c = { .addrs = out };
	int r;

	if (kind == NETIFC_MULTICAST) {
		r = dump_groups(s, AF_INET, index, out);
		if (r == 0)
			r = dump_groups(s, AF_INET6, index, out);
	} else
		r = dump_addrs_nl(s, RTM_GETADDR, AF_UNSPEC, index, &c);
	return r == -ENODEV && index ? 0 : r;   /* a vanished link has no addresses */
}

/* A link's name by index, asked of the socket's own namespace. */
static int name_of(struct nl_sock *s, int32_t index, struct netifc_link *out)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_ifindex = index;
	if (ioctl(s->fd, SIOCGIFNAME, &ifr) < 0)
		return errno == ENODEV || errno == ENXIO ? -ENODEV : -errno;
	memset(out, 0, sizeof *out);
	out->index = index;
	memcpy(out->name, ifr.ifr_name, sizeof out->name - 1);
	return 0;
}

/*
 * Zone names from the link dump of this same call (a snapshot).  A link
 * that came after that dump is asked for alone; an address whose link has
 * gone since is dropped, so every address kept names a link of the table.
 */
static int zones_from_links(struct nl_sock *s, struct netifc_links *links,
			    struct netifc_addrs *t)
{
	const struct netifc_link *l;
	struct netifc_link one;
	size_t i, kept = 0, hint = 0;
	int r;

	for (i = 0; i < t->n; i++) {
		struct netifc_addr *a = &t->v[i];

		if (!(l = netifc_links_find(links, a->index, &hint))) {
			r = get_link(s, a->index, NULL, &one);
			if (r == -ENODEV)
				continue;
			if (r < 0)
				return r;
			if (!(l = netifc_links_push(links)))
				return -ENOMEM;
			*(struct netifc_link *)l = one;
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
 * link's addresses together).  An address whose link has gone is dropped.
 */
static int zones_by_name(struct nl_sock *s, struct netifc_addrs *t)
{
	struct netifc_link last = { .index = 0 };
	size_t i, kept = 0;
	int r;

	for (i = 0; i < t->n; i++) {
		struct netifc_addr *a = &t->v[i];

		if (netifc_addr_needs_zone(a) && a->index != last.index) {
			r = name_of(s, a->index, &last);
			if (r == -ENODEV) {
				last.index = a->index;
				last.name[0] = 0;       /* gone */
			} else if (r < 0) {
				return r;
			}
		}
		if (netifc_addr_needs_zone(a) && !last.name[0])
			continue;
		netifc_addr_finish(a, last.name);
		t->v[kept++] = *a;
	}
	t->n = kept;
	return 0;
}

static int all_addrs(struct nl_sock *s, enum netifc_kind kind, struct netifc_links *links,
		     struct netifc_addrs *out)
{
	int r = 0;

	if (links)
		r = dump_links(s, links);
	if (r == 0)
		r = dump_kind(s, kind, 0, out);
	if (r == 0)
		r = links ? zones_from_links(s, links, out) : zones_by_name(s, out);
	return r;
}

static int one_link_addrs(struct nl_sock *s, enum netifc_kind kind, int32_t index,
			  const char *name, struct netifc_addrs *out)
{
	struct netifc_link l;
	size_t i;
	int r;

	if (!name) {
		if ((r = get_link(s, index, NULL, &l)) < 0)
			return r;
		name = l.name;
	}
	r = dump_kind(s, kind, index, out);
	for (i = 0; r == 0 && i < out->n; i++)
		netifc_addr_finish(&out->v[i], name);
	return r;
}

/*
 * A kept socket whose queue overflowed (ENOBUFS: datagrams nobody read, or
 * forged ones) cannot take the reply: the call is made once more on a new
 * socket, the tables emptied first.
 */
static int overflowed(int r, const struct nl_sock *s, const struct nl_sock *own)
{
	return r == -ENOBUFS && s != own;
}

static int linux_addrs(enum netifc_kind kind, int32_t index, const char *name,
		       struct netifc_links *links, struct netifc_addrs *out)
{
	struct nl_sock own, *s;
	int r, tries = 0;

	do {
		if (links)
			links->n = 0;
		out->n = 0;
		if ((r = nl_get(&own, !(fallbacks & NETIFC_NO_STRICT_CHK), &s)) < 0)
			return r;
		if (index)
			r = one_link_addrs(s, kind, index, name, out);
		else
			r = all_addrs(s, kind, links, out);
		nl_put(s, &own, r < 0);
	} while (overflowed(r, s, &own) && ++tries < 2);
	return r == -ENODEV && index ? 0 : r;   /* a vanished link has no addresses */
}

static int linux_links(struct netifc_links *out)
{
	struct nl_sock own, *s;
	int r, tries = 0;

	do {
		out->n = 0;
		if ((r = nl_get(&own, !(fallbacks & NETIFC_NO_STRICT_CHK), &s)) < 0)
			return r;
		r = dump_links(s, out);
		nl_put(s, &own, r < 0);
	} while (overflowed(r, s, &own) && ++tries < 2);
	return r;
}

static int linux_link(int32_t index, const char *name, struct netifc_link *out)
{
	struct nl_sock own, *s;
	int r, tries = 0;

	do {
		if ((r = nl_get(&own, !(fallbacks & NETIFC_NO_STRICT_CHK), &s)) < 0)
			return r;
		r = get_link(s, index, name, out);
		nl_put(s, &own, r < 0 && r != -ENODEV);
	} while (overflowed(r, s, &own) && ++tries < 2);
	return r;
}

static int linux_link_by_index(int32_t index, struct netifc_link *out)
{
	return linux_link(index, NULL, out);
}

static int linux_link_by_name(const char *name, struct netifc_link *out)
{
	return linux_link(0, name, out);
}

const struct netifc_backend netifc_backend_netlink = {
	.name = "netlink",
	.links = linux_links,
	.link_by_index = linux_link_by_index,
	.link_by_name = linux_link_by_name,
	.addrs = linux_addrs,
};
