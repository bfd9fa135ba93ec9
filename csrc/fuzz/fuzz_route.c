/*
 * libFuzzer target: nl_walk() and the route parser on arbitrary bytes, the
 * way netlink/routes.c drives them (a dump keeps one table and one family).
 * Byte 0 picks a dump (bit 0) or a single reply; byte 1 the family and
 * table kept (0: all).  For replies, the sequence number and port id are
 * taken from the first header, so recorded replies are walked in full.
 * Every route's next hops must lie within the table's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include "netlink/parse.h"
#include "netlink/route_parse.h"

struct keep {
	struct netifc_routes t;
	uint8_t family;
	uint32_t table;
};

static int on_msg(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct keep *k = ctx;
	const struct netifc_route *rt;
	int r = nl_parse_route(type, p, len, &k->t);

	if (r <= 0)
		return r;
	rt = &k->t.v[k->t.n - 1];
	if ((k->family && rt->family != k->family) || (k->table && rt->table != k->table))
		netifc_routes_truncate(&k->t, k->t.n - 1);
	return 0;
}

static void check(const struct netifc_routes *t)
{
	size_t i, at = 0;

	for (i = 0; i < t->n; i++) {
		if (t->v[i].nh_off != at || t->v[i].nh_off + t->v[i].nh_n > t->nh_n)
			abort();
		at += t->v[i].nh_n;
	}
	if (at != t->nh_n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct keep k = { .t = { 0 } };
	struct nl_walk w = { .cb = on_msg, .ctx = &k };
	struct nlmsghdr h;

	if (size < 2)
		return 0;
	w.dump = data[0] & 1;
	k.family = (data[1] & 1) ? 2 : (data[1] & 2) ? 10 : 0;
	k.table = data[1] >> 2;
	data += 2;
	size -= 2;
	if (size >= sizeof h) {
		memcpy(&h, data, sizeof h);
		w.seq = h.nlmsg_seq;
		w.portid = h.nlmsg_pid;
	}
	nl_walk(&w, data, size);
	check(&k.t);
	netifc_routes_free(&k.t);
	return 0;
}
