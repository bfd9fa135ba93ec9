/*
 * netlink/parse.c -- walk netlink datagrams and decode link and address messages.
 *
 * Every length is checked against what remains, kept in a signed long so a
 * lying nlmsg_len or rta_len ends the walk instead of passing the buffer's
 * end.  Headers are copied out, so the buffer needs no alignment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_addr.h>

#include "netlink/parse.h"

#ifndef RTM_NEWMULTICAST
#define RTM_NEWMULTICAST 56       /* notifications; dumps answer RTM_GETMULTICAST */
#endif
#ifndef RTM_DELMULTICAST
#define RTM_DELMULTICAST 57
#endif

int nl_attr_next(const uint8_t **p, long *rem, struct nl_attr *a)
{
	struct rtattr rta;
	long step;

	if (*rem < (long)sizeof rta)
		return 0;
	memcpy(&rta, *p, sizeof rta);
	if (rta.rta_len < sizeof rta || rta.rta_len > (unsigned long)*rem)
		return -EPROTO;
	a->type = rta.rta_type & NLA_TYPE_MASK;
	a->data = *p + RTA_LENGTH(0);
	a->len = rta.rta_len - RTA_LENGTH(0);
	step = RTA_ALIGN(rta.rta_len);
	if (step > *rem)
		step = *rem;
	*p += step;
	*rem -= step;
	return 1;
}

int nl_msg_header(const uint8_t **p, size_t len, void *hdr, size_t size, long *rem)
{
	*rem = (long)len - (long)NLMSG_ALIGN(size);
	if (*rem < 0)
		return -EPROTO;
	memcpy(hdr, *p, size);
	*p += NLMSG_ALIGN(size);
	return 0;
}

int nl_attr_u32(const struct nl_attr *a, uint32_t *v)
{
	if (a->len < sizeof *v)
		return -EPROTO;
	memcpy(v, a->data, sizeof *v);
	return 0;
}

static int control(struct nl_walk *w, const struct nlmsghdr *h, const uint8_t *p, long plen)
{
	int32_t err;

	switch (h->nlmsg_type) {
	case NLMSG_ERROR:
		w->ended = 1;
		if (plen < (long)sizeof err)
			return -EPROTO;
		memcpy(&err, p, sizeof err);
		if (err > 0 || err < -4095)
			return -EPROTO;
		return err;                     /* 0 is an acknowledgement */
	case NLMSG_DONE:
		w->ended = 1;
		if (h->nlmsg_flags & NLM_F_DUMP_INTR)
			w->intr = 1;
		if (plen >= (long)sizeof err) {
			memcpy(&err, p, sizeof err);
			if (err < 0 && err >= -4095)
				return err;
		}
		return NL_DONE;
	case NLMSG_OVERRUN:
		return -EPROTO;
	default:    /* NLMSG_NOOP and reserved types */
		return NL_MORE;
	}
}

static int one(struct nl_walk *w, const struct nlmsghdr *h, const uint8_t *p, long plen)
{
	int r;

	if (h->nlmsg_type < NLMSG_MIN_TYPE)
		return control(w, h, p, plen);
	if (h->nlmsg_flags & NLM_F_DUMP_INTR)
		w->intr = 1;
	r = w->cb(h->nlmsg_type, p, (size_t)plen, w->ctx);
	if (r < 0)
		return r;
	if (w->dump)
		return NL_MORE;
	w->ended = 1;
	return NL_DONE;
}

/*
 * The next message of a datagram: 1 with its header in *h and its payload
 * at *msg, 0 at the end, -EPROTO when its length overruns what is left.
 */
static int msg_next(const uint8_t **p, long *rem, struct nlmsghdr *h, const uint8_t **msg)
{
	long step;

	if (*rem < (long)sizeof *h)
		return 0;
	memcpy(h, *p, sizeof *h);
	if (h->nlmsg_len < sizeof *h || h->nlmsg_len > (unsigned long)*rem)
		return -EPROTO;
	*msg = *p + NLMSG_HDRLEN;
	step = NLMSG_ALIGN(h->nlmsg_len);
	if (step > *rem)
		step = *rem;
	*p += step;
	*rem -= step;
	return 1;
}

static long datagram_len(size_t len)
{
	return len > (size_t)0x7fffffff ? 0x7fffffff : (long)len;
}

int nl_walk(struct nl_walk *w, const void *buf, size_t len)
{
	const uint8_t *p = buf, *msg;
	long rem = datagram_len(len);
	struct nlmsghdr h;
	int r;

	while ((r = msg_next(&p, &rem, &h, &msg)) > 0) {
		/* Not ours: a stale reply, or a message from another process. */
		if (h.nlmsg_seq == w->seq && h.nlmsg_pid == w->portid) {
			r = one(w, &h, msg, (long)h.nlmsg_len - NLMSG_HDRLEN);
			if (r != NL_MORE)
				return r;
		}
	}
	return r < 0 ? r : NL_MORE;
}

#ifndef IFLA_PROP_LIST
#define IFLA_PROP_LIST 52
#define IFLA_ALT_IFNAME 53
#endif
#define ALTNAME_MAX 128         /* ALTIFNAMSIZ, the NUL included */

/* A string attribute: NUL-ended within its length, 1 to max-1 bytes long. */
static int string_of(const struct nl_attr *a, size_t max, size_t *n)
{
	*n = strnlen((const char *)a->data, a->len);
	return *n == a->len || *n == 0 || *n >= max ? -EPROTO : 0;
}

/* IFLA_PROP_LIST: the link's alternative names, in the kernel's order. */
static int altnames(struct netifc_links *t, struct netifc_link *l, const struct nl_attr *list)
{
	const uint8_t *p = list->data;
	long rem = (long)list->len;
	struct nl_attr a;
	size_t n;
	int r;

	while ((r = nl_attr_next(&p, &rem, &a)) > 0) {
		if (a.type != IFLA_ALT_IFNAME)
			continue;
		if ((r = string_of(&a, ALTNAME_MAX, &n)) < 0 ||
		    (r = netifc_links_add_altname(t, l, (const char *)a.data, n)) < 0)
			return r;
	}
	return r;
}

static int link_attr(struct netifc_links *t, struct netifc_link *l, const struct nl_attr *a,
		     int *named)
{
	size_t n;

	switch (a->type) {
	case IFLA_IFNAME:
		if (string_of(a, NETIFC_NAMESIZ, &n) < 0)
			return -EPROTO;
		memset(l->name, 0, sizeof l->name);
		memcpy(l->name, a->data, n);
		*named = 1;
		break;
	case IFLA_MTU:
		if (nl_attr_u32(a, &l->mtu) < 0)
			return -EPROTO;
		break;
	case IFLA_OPERSTATE:
		if (a->len < 1)
			return -EPROTO;
		l->operstate = a->data[0];
		break;
	case IFLA_ADDRESS:
		if (netifc_hwaddr_set(l, a->data, a->len) < 0)
			return -EPROTO;
		break;
	case IFLA_BROADCAST:
		if (netifc_brd_set(l, a->data, a->len) < 0)
			return -EPROTO;
		break;
	case IFLA_PROP_LIST:
		if (l->alt_len)
			return -EPROTO;         /* one list per link */
		return altnames(t, l, a);
	}
	return 0;
}

/*
 * Appends the link of an RTM_NEWLINK or RTM_DELLINK payload to t: 1, 0 when
 * it is not of family AF_UNSPEC (a bridge port's notification), or -EPROTO
 * (t unchanged).
 */
static int link_msg(const uint8_t *p, size_t len, struct netifc_links *t)
{
	struct ifinfomsg ifi;
	struct netifc_link *l;
	long rem;
	size_t n = t->n;
	struct nl_attr a;
	int named = 0, r;

	if ((r = nl_msg_header(&p, len, &ifi, sizeof ifi, &rem)) < 0)
		return r;
	if (ifi.ifi_family != AF_UNSPEC)
		return 0;
	if (ifi.ifi_index <= 0)
		return -EPROTO;
	if (!(l = netifc_links_push(t)))
		return -ENOMEM;
	l->index = ifi.ifi_index;
	l->flags = ifi.ifi_flags;
	l->type = ifi.ifi_type;
	/* l stays valid: only the pool grows while the attributes are read. */
	while ((r = nl_attr_next(&p, &rem, &a)) > 0)
		if ((r = link_attr(t, l, &a, &named)) < 0)
			break;
	if (r == 0 && !named)
		r = -EPROTO;
	if (r < 0)
		netifc_links_truncate(t, n);
	return r < 0 ? r : 1;
}

/* Appends the link to t: 1, or 0 when not a link message, or -EPROTO (t unchanged). */
int nl_parse_link(uint16_t type, const uint8_t *p, size_t len, struct netifc_links *t)
{
	return type == RTM_NEWLINK ? link_msg(p, len, t) : 0;
}

struct addr_attrs {
	const uint8_t *address, *local, *broadcast, *multicast;
	struct nl_attr label; /* data NULL: none */
	int has_cache;
	struct ifa_cacheinfo cache;
	uint32_t flags;
};

static int addr_attr(struct addr_attrs *t, const struct nl_attr *a, size_t alen)
{
	switch (a->type) {
	case IFA_ADDRESS:
	case IFA_LOCAL:
	case IFA_BROADCAST:
	case IFA_MULTICAST:
		if (a->len != alen)
			return -EPROTO;
		if (a->type == IFA_ADDRESS)
			t->address = a->data;
		else if (a->type == IFA_LOCAL)
			t->local = a->data;
		else if (a->type == IFA_BROADCAST)
			t->broadcast = a->data;
		else
			t->multicast = a->data;
		break;
	case IFA_CACHEINFO:
		if (a->len < sizeof t->cache)
			return -EPROTO;
		memcpy(&t->cache, a->data, sizeof t->cache);
		t->has_cache = 1;
		break;
	case IFA_FLAGS:
		if (nl_attr_u32(a, &t->flags) < 0)
			return -EPROTO;
		break;
	case IFA_LABEL:
		t->label = *a;
		break;
	}
	return 0;
}

/*
 * IFA_LOCAL is the address of this end whenever present; IFA_ADDRESS is then
 * the peer on a point-to-point link (and equal to IFA_LOCAL elsewhere).
 */
static int addr_fill(struct netifc_addr *o, const struct addr_attrs *t, size_t alen)
{
	const uint8_t *local = t->local ? t->local : t->address;
	size_t n;

	if (t->multicast) {
		local = t->multicast;
		o->prefixlen = (uint8_t)(alen * 8);
	}
	if (!local)
		return -EPROTO;
	memcpy(o->local, local, alen);
	if (t->local && t->address && !t->multicast) {
		memcpy(o->peer, t->address, alen);
		o->has_peer = 1;
	} else if (t->local && !t->multicast && o->family == AF_INET) {
		/* The kernel leaves out a zero IFA_ADDRESS: the peer 0.0.0.0 (o->peer). */
		o->has_peer = 1;
	}
	if (t->broadcast && !t->multicast) {
		memcpy(o->broadcast, t->broadcast, alen);
		o->has_broadcast = 1;
	}
	if (t->label.data && o->family == AF_INET && !t->multicast) {
		if (string_of(&t->label, sizeof o->label, &n) < 0)
			return -EPROTO;
		memcpy(o->label, t->label.data, n);
	}
	if (t->has_cache && !t->multicast) {
		o->preferred = t->cache.ifa_prefered;
		o->valid = t->cache.ifa_valid;
		o->has_lifetimes = 1;
	}
	return 1;
}

/* An address or group message of any type: 1, 0 when not IPv4 or IPv6, or -EPROTO. */
static int addr_msg(const uint8_t *p, size_t len, struct netifc_addr *o)
{
	struct ifaddrmsg ifa;
	struct addr_attrs t;
	long rem;
	size_t alen;
	struct nl_attr a;
	int r;

	if ((r = nl_msg_header(&p, len, &ifa, sizeof ifa, &rem)) < 0)
		return r;
	alen = netifc_family_len(ifa.ifa_family);
	if (!alen)
		return 0;
	if (ifa.ifa_prefixlen > alen * 8 || ifa.ifa_index == 0 || ifa.ifa_index > 0x7fffffff)
		return -EPROTO;
	memset(&t, 0, sizeof t);
	t.flags = ifa.ifa_flags;
	while ((r = nl_attr_next(&p, &rem, &a)) > 0)
		if ((r = addr_attr(&t, &a, alen)) < 0)
			return r;
	if (r < 0)
		return r;
	memset(o, 0, sizeof *o);
	o->family = ifa.ifa_family;
	o->prefixlen = ifa.ifa_prefixlen;
	o->scope = ifa.ifa_scope;
	o->index = (int32_t)ifa.ifa_index;
	o->flags = t.multicast ? 0 : t.flags;
	return addr_fill(o, &t, alen);
}

int nl_parse_addr(uint16_t type, const uint8_t *p, size_t len, struct netifc_addr *o)
{
	if (type != RTM_NEWADDR && type != RTM_NEWMULTICAST && type != RTM_GETMULTICAST)
		return 0;
	return addr_msg(p, len, o);
}

/* ---- notifications --------------------------------------------------------- */

static struct nl_event *event_push(struct nl_events *ev, uint8_t kind, size_t at)
{
	struct nl_event *nv = netifc_vec_push((void **)&ev->v, &ev->n, &ev->cap, sizeof *ev->v);

	if (!nv)
		return NULL;
	nv->kind = kind;
	nv->at = (uint32_t)at;
	return nv;
}

/* What kind of event a message type makes; -1 for none. */
static int kind_of(uint16_t type)
{
	switch (type) {
	case RTM_NEWLINK:
		return NL_EV_LINK_NEW;
	case RTM_DELLINK:
		return NL_EV_LINK_DEL;
	case RTM_NEWADDR:
		return NL_EV_ADDR_NEW;
	case RTM_DELADDR:
		return NL_EV_ADDR_DEL;
	case RTM_NEWMULTICAST:
		return NL_EV_GROUP_NEW;
	case RTM_DELMULTICAST:
		return NL_EV_GROUP_DEL;
	default:
		return -1;
	}
}

/* One message: 0 (an event, or nothing to tell), -EPROTO, or -ENOMEM. */
static int event_of(struct nl_events *ev, uint16_t type, const uint8_t *p, size_t len)
{
	int kind = kind_of(type), r;
	size_t at;
	struct netifc_addr *a;

	if (kind < 0)
		return 0;
	if (kind == NL_EV_LINK_NEW || kind == NL_EV_LINK_DEL) {
		at = ev->links.n;
		if ((r = link_msg(p, len, &ev->links)) <= 0)
			return r;
		if (!event_push(ev, (uint8_t)kind, at)) {
			netifc_links_truncate(&ev->links, at);
			return -ENOMEM;
		}
		return 0;
	}
	at = ev->addrs.n;
	if (!(a = netifc_addrs_push(&ev->addrs)))
		return -ENOMEM;
	if ((r = addr_msg(p, len, a)) <= 0 || !event_push(ev, (uint8_t)kind, at)) {
		ev->addrs.n = at;
		return r <= 0 ? r : -ENOMEM;
	}
	/*
	 * The kernel's dump gives a site-scoped IPv6 group (ffx5::) the scope
	 * RT_SCOPE_SITE; its notifications (Linux 6.x) say RT_SCOPE_UNIVERSE.
	 * An event's record is what a dump would give.
	 */
	if (kind >= NL_EV_GROUP_NEW && a->family == AF_INET6 && a->scope == RT_SCOPE_UNIVERSE &&
	    (a->local[1] & 0x0f) == 5)
		a->scope = RT_SCOPE_SITE;
	return 0;
}

int nl_parse_events(const void *buf, size_t len, struct nl_events *ev)
{
	const uint8_t *p = buf, *msg;
	long rem = datagram_len(len);
	struct nlmsghdr h;
	int r;

	while ((r = msg_next(&p, &rem, &h, &msg)) > 0) {
		r = event_of(ev, h.nlmsg_type, msg, h.nlmsg_len - NLMSG_HDRLEN);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			ev->lost++;
	}
	if (r < 0)
		ev->lost++;     /* a lying length: the rest of the datagram is lost */
	return 0;
}

void nl_events_clear(struct nl_events *ev)
{
	ev->n = 0;
	netifc_links_truncate(&ev->links, 0);
	ev->addrs.n = 0;
	ev->lost = 0;
}

void nl_events_free(struct nl_events *ev)
{
	free(ev->v);
	netifc_links_free(&ev->links);
	netifc_addrs_free(&ev->addrs);
	memset(ev, 0, sizeof *ev);
}
