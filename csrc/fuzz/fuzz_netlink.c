/*
 * libFuzzer target: nl_walk() and the link/address parsers on arbitrary
 * bytes, the way netlink/backend.c drives them (with the counters' and the link
 * settings' parsers of netlink/stats_parse.c on every message), and nl_parse_events() the way a
 * watch does (and nl_heard_parse() the way a dump that hears does).  Byte 0 picks a dump (bit 0) or a single reply, or (bit 1)
 * notifications; the rest is the datagram.  For replies, the sequence
 * number and port id are taken from its first header, so recorded replies
 * are walked in full.
 */
#include <stdint.h>
#include <string.h>
#include <linux/netlink.h>

#include "netlink/heard.h"
#include "netlink/parse.h"
#include "netlink/stats_parse.h"

struct tables {
	struct netifc_links links;
	struct netifc_addrs addrs;
};

/* The counters' and link settings' parsers: each message is tried as each. */
static void stats_and_settings(uint16_t type, const uint8_t *p, size_t len)
{
	struct netifc_counters c;
	struct netifc_link_settings ls;
	uint16_t id;

	nl_parse_stats(type, p, len, &c);
	nl_parse_genl_family(p, len, &id);
	nl_parse_linkmodes(p, len, &ls);
}

static int on_msg(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	struct tables *t = ctx;
	struct netifc_addr *a;
	int r;

	stats_and_settings(type, p, len);
	if ((r = nl_parse_link(type, p, len, &t->links)) < 0)
		return r;
	if (!(a = netifc_addrs_push(&t->addrs)))
		return -12;
	if ((r = nl_parse_addr(type, p, len, a)) <= 0)
		t->addrs.n--;
	else
		netifc_addr_finish(a, "zone0");
	return r < 0 ? r : 0;
}

static int notifications(const uint8_t *data, size_t size)
{
	struct nl_events ev = { 0 };
	struct nl_heard h = { 0 };
	size_t i;

	nl_heard_parse(&h, data, size);
	nl_heard_sort(&h);
	nl_heard_free(&h);
	nl_parse_events(data, size, &ev);
	for (i = 0; i < ev.n; i++)
		if (ev.v[i].kind >= NL_EV_ADDR_NEW)
			netifc_addr_finish(&ev.addrs.v[ev.v[i].at], "zone0");
	nl_events_free(&ev);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tables t = { { 0 }, { 0 } };
	struct nl_walk w = { .cb = on_msg, .ctx = &t };
	struct nlmsghdr h;

	if (size < 1)
		return 0;
	if (data[0] & 2)
		return notifications(data + 1, size - 1);
	w.dump = data[0] & 1;
	data++;
	size--;
	if (size >= sizeof h) {
		memcpy(&h, data, sizeof h);
		w.seq = h.nlmsg_seq;
		w.portid = h.nlmsg_pid;
	}
	nl_walk(&w, data, size);
	netifc_links_free(&t.links);
	netifc_addrs_free(&t.addrs);
	return 0;
}
