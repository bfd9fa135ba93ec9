/*
 * netlink/route_parse.c -- route messages as pure functions over byte buffers: the
 * RTM_NEWROUTE parser and the RTM_GETROUTE requests.  No syscalls.
 *
 * Lengths are checked as in netlink/parse.c: a signed remaining length, every
 * attribute and every next hop against what is left, every address against
 * its family's length.  Unknown attributes are skipped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netlink/parse.h"
#include "netlink/route_parse.h"

#ifndef RTA_VIA
#define RTA_VIA 18
#endif
#ifndef RTA_PREF
#define RTA_PREF 20
#endif

/* An address of the route's family: exactly its length. */
static int addr_of(const struct nl_attr *a, size_t alen, uint8_t *out)
{
	if (a->len != alen)
		return -EPROTO;
	memcpy(out, a->data, alen);
	return 0;
}

/* RTA_VIA: a gateway of any family (an IPv4 route may go via IPv6). */
static int via_of(const struct nl_attr *a, uint8_t *family, uint8_t *out)
{
	uint16_t f;
	size_t alen;

	if (a->len < sizeof f)
		return -EPROTO;
	memcpy(&f, a->data, sizeof f);
	alen = netifc_family_len(f);
	if (!alen || a->len != sizeof f + alen)
		return -EPROTO;
	memcpy(out, a->data + sizeof f, alen);
	*family = (uint8_t)f;
	return 0;
}

static struct netifc_nexthop *nh_push(struct netifc_routes *t)
{
	return netifc_vec_push((void **)&t->nh, &t->nh_n, &t->nh_cap, sizeof *t->nh);
}

/* One next hop's attributes: its gateway. */
static int nexthop_attrs(struct netifc_nexthop *h, const uint8_t *p, long rem, int family)
{
	size_t alen = netifc_family_len(family);
	struct nl_attr a;
	int r;

	while ((r = nl_attr_next(&p, &rem, &a)) > 0) {
		if (a.type == RTA_GATEWAY) {
			if (addr_of(&a, alen, h->gateway) < 0)
				return -EPROTO;
			h->gw_family = (uint8_t)family;
		} else if (a.type == RTA_VIA && via_of(&a, &h->gw_family, h->gateway) < 0) {
			return -EPROTO;
		}
	}
	return r;
}

/* RTA_MULTIPATH: a run of struct rtnexthop, each followed by its attributes. */
static int multipath(struct netifc_routes *t, struct netifc_route *rt, const struct nl_attr *a)
{
	const uint8_t *p = a->data;
	long rem = (long)a->len, step;
	struct rtnexthop nh;
	struct netifc_nexthop *h;
	int r;

	if (rt->nh_n)
		return -EPROTO;         /* one list per route */
	rt->nh_off = (uint32_t)t->nh_n;
	while (rem >= (long)sizeof nh) {
		memcpy(&nh, p, sizeof nh);
		if (nh.rtnh_len < sizeof nh || nh.rtnh_len > (unsigned long)rem ||
		    nh.rtnh_ifindex < 0)
			return -EPROTO;
		if (!(h = nh_push(t)))
			return -ENOMEM;
		h->index = nh.rtnh_ifindex;
		h->flags = nh.rtnh_flags;
		h->weight = (uint16_t)(nh.rtnh_hops + 1);
		rt->nh_n++;
		r = nexthop_attrs(h, p + RTNH_ALIGN(sizeof nh),
				  (long)nh.rtnh_len - (long)RTNH_ALIGN(sizeof nh), rt->family);
		if (r < 0)
			return r;
		step = RTNH_ALIGN(nh.rtnh_len);
		if (step > rem)
			step = rem;
		p += step;
		rem -= step;
	}
	return 0;
}

static int route_attr(struct netifc_routes *t, struct netifc_route *rt, const struct nl_attr *a)
{
	size_t alen = netifc_family_len(rt->family);
	uint32_t v;

	switch (a->type) {
	case RTA_DST:
		return addr_of(a, alen, rt->dst);
	case RTA_SRC:
		rt->has_src = 1;
		return addr_of(a, alen, rt->src);
	case RTA_GATEWAY:
		rt->gw_family = rt->family;
		return addr_of(a, alen, rt->gateway);
	case RTA_VIA:
		return via_of(a, &rt->gw_family, rt->gateway);
	case RTA_PREFSRC:
		rt->has_prefsrc = 1;
		return addr_of(a, alen, rt->prefsrc);
	case RTA_OIF:
		if (nl_attr_u32(a, &v) < 0 || (int32_t)v < 0)
			return -EPROTO;
		rt->index = (int32_t)v;
		return 0;
	case RTA_PRIORITY:
		rt->has_metric = 1;
		return nl_attr_u32(a, &rt->metric);
	case RTA_TABLE:
		return nl_attr_u32(a, &rt->table);
	case RTA_PREF:
		if (a->len < 1)
			return -EPROTO;
		rt->pref = a->data[0];
		rt->has_pref = 1;
		return 0;
	case RTA_MULTIPATH:
		return multipath(t, rt, a);
	}
	return 0;
}

void netifc_routes_truncate(struct netifc_routes *t, size_t n)
{
	if (n >= t->n)
		return;
	t->n = n;
	t->nh_n = n ? t->v[n - 1].nh_off + t->v[n - 1].nh_n : 0;
}

static struct netifc_route *route_push(struct netifc_routes *t)
{
	return netifc_vec_push((void **)&t->v, &t->n, &t->cap, sizeof *t->v);
}

static int route_msg(const uint8_t *p, size_t len, struct netifc_routes *t)
{
	struct rtmsg rtm;
	struct netifc_route *rt;
	long rem;
	size_t n = t->n, nh_n = t->nh_n;
	struct nl_attr a;
	int r;

	if ((r = nl_msg_header(&p, len, &rtm, sizeof rtm, &rem)) < 0)
		return r;
	if (!netifc_family_len(rtm.rtm_family))
		return 0;
	if (rtm.rtm_dst_len > netifc_family_len(rtm.rtm_family) * 8 ||
	    rtm.rtm_src_len > netifc_family_len(rtm.rtm_family) * 8)
		return -EPROTO;
	if (!(rt = route_push(t)))
		return -ENOMEM;
	rt->family = rtm.rtm_family;
	rt->prefixlen = rtm.rtm_dst_len;
	rt->protocol = rtm.rtm_protocol;
	rt->scope = rtm.rtm_scope;
	rt->type = rtm.rtm_type;
	rt->flags = rtm.rtm_flags;
	rt->table = rtm.rtm_table;
	rt->tos = rtm.rtm_tos;
	rt->src_len = rtm.rtm_src_len;
	rt->has_src = rtm.rtm_src_len != 0;
	rt->nh_off = (uint32_t)nh_n;
	/* rt stays valid: only the next hops grow while the attributes are read. */
	while ((r = nl_attr_next(&p, &rem, &a)) > 0)
		if ((r = route_attr(t, rt, &a)) < 0)
			break;
	if (r < 0) {
		t->n = n;
		t->nh_n = nh_n;
		return r;
	}
	return 1;
}

int nl_parse_route(uint16_t type, const uint8_t *p, size_t len, struct netifc_routes *t)
{
	return type == RTM_NEWROUTE ? route_msg(p, len, t) : 0;
}

void netifc_routes_free(struct netifc_routes *t)
{
	free(t->v);
	free(t->nh);
	memset(t, 0, sizeof *t);
}

static uint8_t *put_attr(uint8_t *p, unsigned short type, const void *data, size_t len)
{
	struct rtattr rta = { .rta_len = (unsigned short)RTA_LENGTH(len), .rta_type = type };

	memcpy(p, &rta, sizeof rta);
	memcpy(p + RTA_LENGTH(0), data, len);
	return p + RTA_SPACE(len);
}

static void route_request(struct nl_route_req *q, uint16_t flags, int family)
{
	memset(q, 0, sizeof *q);
	q->h.nlmsg_type = RTM_GETROUTE;
	q->h.nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	q->rtm.rtm_family = (unsigned char)family;
}

void netifc_route_dump_request(struct nl_route_req *q, int family, uint32_t table, int strict)
{
	uint8_t *p = q->attrs;

	route_request(q, NLM_F_DUMP, family);
	if (strict && table != NETIFC_TABLE_ALL)
		p = put_attr(p, RTA_TABLE, &table, sizeof table);
	q->h.nlmsg_len = (uint32_t)(p - (uint8_t *)q);
}

void netifc_route_get_request(struct nl_route_req *q, int family, const uint8_t *dst, int32_t index)
{
	size_t alen = netifc_family_len(family);
	uint8_t *p = q->attrs;

	route_request(q, 0, family);
	/*
	 * IPv4 answers with a cache entry, which names table main unless asked
	 * for the table whose rule and route answered.  IPv6 always names it,
	 * and with strict checking refuses this flag.
	 */
	if (family == AF_INET)
		q->rtm.rtm_flags = RTM_F_LOOKUP_TABLE;
	q->rtm.rtm_dst_len = (unsigned char)(alen * 8);
	p = put_attr(p, RTA_DST, dst, alen);
	if (index)
		p = put_attr(p, RTA_OIF, &index, sizeof index);
	q->h.nlmsg_len = (uint32_t)(p - (uint8_t *)q);
}
