/*
 * core_check.c -- every call of every backend and option, many times, from
 * the main thread and from threads that then exit; and the socket layer's
 * promises, on real sockets: another socket cannot queue a datagram on a
 * request socket; a foreign datagram, even one larger than the buffer,
 * costs nothing; a reply cut by a short buffer is reported at once, never
 * waited on; and the two backends agree (compare.c).  Built with
 * ASan+UBSan+LSan by csrc/check/run.sh, with musl and UBSan by
 * csrc/check/musl.sh: any memory error, undefined behaviour or leak of the
 * C core's own allocations fails it.  Exit status 0 when all is well.
 */
#define _GNU_SOURCE             /* unshare */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "netlink/ethtool.h"
#include "netlink/netns.h"
#include "netlink/io.h"
#include "netlink/heard.h"
#include "netlink/watch.h"
#include "compare.h"

static int failures;

static void expect(int r, int want, const char *what)
{
	if (r != want) {
		fprintf(stderr, "%s: got %d, want %d\n", what, r, want);
		failures++;
	}
}

static unsigned opts;           /* the options of this round's calls */
static struct netifc_ns *in_ns; /* and their namespace (NULL: the thread's) */

static void round_of(const struct netifc_backend *b)
{
	struct netifc_links links = { 0 };
	struct netifc_addrs addrs = { 0 };
	struct netifc_call c = { .opts = opts, .ns = in_ns };
	int kind;

	expect(b->links(&c, &links) < 0, 0, "links");
	netifc_links_free(&links);
	expect(b->link(&c, 1, NULL, &links), 0, "link(1)");
	expect(b->link(&c, 0, "lo", &links), 0, "link(lo)");
	expect((int)links.n, 2, "two links appended");
	netifc_links_free(&links);
	expect(b->link(&c, 0x7ffffff0, NULL, &links), -ENODEV, "link(missing index)");
	expect(b->link(&c, 0, "nfc-none0", &links), -ENODEV, "link(missing name)");
	expect((int)links.n, 0, "nothing appended for a missing link");
	netifc_links_free(&links);
	for (kind = NETIFC_UNICAST; kind <= NETIFC_MULTICAST; kind++) {
		expect(b->addrs(&c, kind, 0, NULL, NULL, &addrs) < 0, 0, "addrs(all)");
		netifc_addrs_free(&addrs);
		expect(b->addrs(&c, kind, 0, NULL, &links, &addrs) < 0, 0, "addrs(all, links)");
		netifc_links_free(&links);
		netifc_addrs_free(&addrs);
		expect(b->addrs(&c, kind, 1, "lo", NULL, &addrs) < 0, 0, "addrs(lo)");
		netifc_addrs_free(&addrs);
		expect(b->addrs(&c, kind, 1, NULL, NULL, &addrs) < 0, 0, "addrs(1)");
		netifc_addrs_free(&addrs);
		expect(b->addrs(&c, kind, 0x7ffffff0, NULL, NULL, &addrs), 0, "addrs(missing)");
		expect((int)addrs.n, 0, "addrs(missing) is empty");
		netifc_addrs_free(&addrs);
	}
}

/* Counters of every link, of one, of none; loopback's settings (unknown). */
static void counters_round(const struct netifc_backend *b)
{
	struct netifc_counters_table t = { 0 };
	struct netifc_call c = { .opts = opts };
	struct netifc_link_settings ls;

	expect(b->counters(&c, 0, &t) < 0, 0, "counters(all)");
	expect(t.n > 0 && t.v[0].name[0] != 0, 1, "counters(all) named");
	netifc_counters_free(&t);
	expect(b->counters(&c, 1, &t), 0, "counters(1)");
	expect((int)t.n, 1, "counters(1) is one record");
	netifc_counters_free(&t);
	expect(b->counters(&c, 0x7ffffff0, &t), -ENODEV, "counters(missing)");
	expect((int)t.n, 0, "counters(missing) is empty");
	netifc_counters_free(&t);
	c.opts = opts | NETIFC_NO_ETHTOOL_NL;
	for (int i = 0; i < 2; i++, c.opts = opts) {
		expect(netifc_link_settings(&c, 1, "lo", &ls), 0, "link settings(lo)");
		expect(ls.speed == NETIFC_SPEED_UNKNOWN && ls.duplex == NETIFC_DUPLEX_UNKNOWN, 1,
		       "loopback has no speed or duplex");
		expect(netifc_link_settings(&c, 0x7ffffff0, "nfc-none0", &ls), 0,
		       "link settings(missing)");
	}
}

static void *ns_rounds(void *arg)
{
	int i, n = *(int *)arg;

	for (i = 0; i < n; i++)
		round_of(netifc_backend_find("netlink"));
	return NULL;
}

static void *rounds(void *arg)
{
	int i, n = *(int *)arg;

	for (i = 0; i < n; i++) {
		round_of(netifc_backend_find("netlink"));
		round_of(netifc_backend_find("getifaddrs"));
		counters_round(netifc_backend_find("netlink"));
		counters_round(netifc_backend_find("getifaddrs"));
	}
	return NULL;
}

static int on_link(uint16_t type, const uint8_t *p, size_t len, void *ctx)
{
	int r = nl_parse_link(type, p, len, ctx);

	return r < 0 ? r : 0;
}

/* Another socket, bound to a port of its own, sending to port `to`. */
static int send_from_another(uint32_t to, size_t size)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK, .nl_pid = to };
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	uint8_t *buf = calloc(1, size);
	struct nlmsghdr h = { .nlmsg_len = (uint32_t)size, .nlmsg_type = NLMSG_DONE };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), r;

	if (fd < 0 || !buf || bind(fd, (struct sockaddr *)&me, sizeof me) < 0) {
		r = -errno;
		goto out;
	}
	memcpy(buf, &h, sizeof h);
	r = sendto(fd, buf, size, 0, (struct sockaddr *)&dst, sizeof dst) < 0 ? -errno : 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return r;
}

/* Appends an attribute at *at: its aligned length. */
static size_t put_attr(uint8_t *at, uint16_t type, const void *data, size_t len)
{
	struct rtattr a = { .rta_len = (unsigned short)RTA_LENGTH(len), .rta_type = type };

	memcpy(at, &a, sizeof a);
	memcpy(at + RTA_LENGTH(0), data, len);
	return RTA_SPACE(len);
}

/* A message with two IFLA_ADDRESS, the second shorter: no byte of the first stays. */
static void check_no_stale_bytes(void)
{
	static const uint8_t long_hw[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t short_hw[6] = { 9, 9, 9, 9, 9, 9 };
	static const uint8_t zero[NETIFC_HWADDR_MAX];
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 7, .ifi_type = 1 };
	struct netifc_links t = { 0 };
	uint8_t msg[256] = { 0 };
	size_t n = NLMSG_ALIGN(sizeof ifi);

	memcpy(msg, &ifi, sizeof ifi);
	n += put_attr(msg + n, IFLA_IFNAME, "x0", 3);
	n += put_attr(msg + n, IFLA_ADDRESS, long_hw, sizeof long_hw);
	n += put_attr(msg + n, IFLA_ADDRESS, short_hw, sizeof short_hw);
	n += put_attr(msg + n, IFLA_BROADCAST, long_hw, sizeof long_hw);
	n += put_attr(msg + n, IFLA_BROADCAST, short_hw, sizeof short_hw);
	expect(nl_parse_link(RTM_NEWLINK, msg, n, &t), 1, "parse a link with two addresses");
	expect(t.n == 1 && t.v[0].hwaddr_len == 6 && t.v[0].brd_len == 6, 1,
	       "the last address counts");
	expect(t.n == 1 && !memcmp(t.v[0].hwaddr + 6, zero, sizeof zero - 6) &&
		       !memcmp(t.v[0].brd + 6, zero, sizeof zero - 6),
	       1, "no stale bytes after it");
	netifc_links_free(&t);
}

static void check_sockets(void)
{
	struct sockaddr_nl nobody = { .nl_family = AF_UNSPEC };
	struct netifc_links t = { 0 };
	struct nl_link_req q;
	struct nl_sock s;
	size_t size;
	int i, r;

	/* Connected to the kernel: another socket's unicast is refused at the sender. */
	expect(nl_open(&s, 1, 0), 0, "nl_open");
	expect(send_from_another(s.portid, 64), -ECONNREFUSED,
	       "forged datagram to a connected socket");

	/* Unconnected (the second line): 40 KB forged datagrams cost no retry and no growth. */
	expect(connect(s.fd, (struct sockaddr *)&nobody, sizeof nobody), 0, "disconnect");
	netifc_link_request(&q, 0, 1, NULL);
	expect(nl_talk(&s, &q.h, on_link, &t), 0, "first request");
	size = s.size;
	for (i = 0; i < 3; i++)
		expect(send_from_another(s.portid, 40000), 0, "forged 40 KB datagram queued");
	netifc_links_truncate(&t, 0);
	netifc_link_request(&q, 0, 1, NULL);
	expect(nl_talk(&s, &q.h, on_link, &t), 0, "request past forged datagrams");
	expect((int)t.n, 1, "one link, the kernel's");
	expect(t.n && !strcmp(t.v[0].name, "lo"), 1, "the link is lo");
	expect(s.size == size && s.want == size, 1, "buffer not grown by a forgery");
	expect(s.dirty, 0, "socket clean after its reply");
	nl_close(&s);

	/* A buffer too short: the cut is reported at once (no read waits for a DONE). */
	expect(nl_open(&s, 1, 0), 0, "nl_open");
	s.want = 64;
	netifc_link_request(&q, NLM_F_DUMP, 0, NULL);
	netifc_links_truncate(&t, 0);
	r = nl_talk(&s, &q.h, on_link, &t);
	expect(r, NL_ERR_CUT, "dump into 64 bytes is cut");
	expect(s.dirty && s.want > 64, 1, "cut socket dirty, its size known");
	size = s.want;
	nl_close(&s);
	for (i = 0, r = NL_ERR_CUT; i < 8 && r == NL_ERR_CUT; i++) {
		expect(nl_open(&s, 1, size), 0, "nl_open with the size learned");
		netifc_links_truncate(&t, 0);
		r = nl_talk(&s, &q.h, on_link, &t);
		size = s.want;
		nl_close(&s);
	}
	expect(r, 0, "dump with the size learned");
	expect(t.n > 0, 1, "links after the cut");

	/*
	 * Records in one datagram, NLMSG_DONE in the next: one datagram of
	 * records.  (The second dump: a socket's first is cut to a page's
	 * datagrams, before the kernel knows its reads' size.)
	 */
	expect(nl_open(&s, 1, 0), 0, "nl_open");
	for (i = 0; i < 2; i++) {
		netifc_links_truncate(&t, 0);
		expect(nl_talk(&s, &q.h, on_link, &t), 0, "link dump");
	}
	expect(t.n > 16 || s.datagrams == 1, 1, "a dump of a few links counts one datagram");
	nl_close(&s);
	netifc_links_free(&t);
}

/* A notification datagram: one message of type `type` with payload body. */
static size_t put_msg(uint8_t *at, uint16_t type, const void *body, size_t len)
{
	struct nlmsghdr h = { .nlmsg_len = (uint32_t)NLMSG_LENGTH(len), .nlmsg_type = type };

	memcpy(at, &h, sizeof h);
	memcpy(at + NLMSG_HDRLEN, body, len);
	return NLMSG_ALIGN(h.nlmsg_len);
}

/* nl_parse_events on made-up datagrams: kinds, order, skips, and what counts as lost. */
static void check_event_parsing(void)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 7, .ifi_type = 1 };
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_prefixlen = 24, .ifa_index = 7 };
	static const uint8_t ip[4] = { 192, 0, 2, 1 };
	uint8_t link[64] = { 0 }, addr[64] = { 0 }, dgram[512];
	struct nl_events ev = { 0 };
	size_t ln, an, n = 0;

	memcpy(link, &ifi, sizeof ifi);
	ln = NLMSG_ALIGN(sizeof ifi) +
	     put_attr(link + NLMSG_ALIGN(sizeof ifi), IFLA_IFNAME, "x0", 3);
	memcpy(addr, &ifa, sizeof ifa);
	an = NLMSG_ALIGN(sizeof ifa) + put_attr(addr + NLMSG_ALIGN(sizeof ifa), IFA_LOCAL, ip, 4);
	n += put_msg(dgram + n, RTM_NEWLINK, link, ln);
	n += put_msg(dgram + n, RTM_NEWADDR, addr, an);
	n += put_msg(dgram + n, RTM_DELADDR, addr, an);
	n += put_msg(dgram + n, RTM_NEWROUTE, addr, an);          /* not ours: skipped */
	n += put_msg(dgram + n, RTM_DELLINK, link, ln);
	expect(nl_parse_events(dgram, n, &ev), 0, "parse five notifications");
	expect((int)ev.n, 4, "four events");
	expect(ev.n == 4 && ev.v[0].kind == NL_EV_LINK_NEW && ev.v[1].kind == NL_EV_ADDR_NEW &&
		       ev.v[2].kind == NL_EV_ADDR_DEL && ev.v[3].kind == NL_EV_LINK_DEL,
	       1, "in order");
	expect(ev.n == 4 && ev.links.v[ev.v[3].at].index == 7 &&
		       !strcmp(ev.links.v[ev.v[3].at].name, "x0") &&
		       ev.addrs.v[ev.v[2].at].local[3] == 1,
	       1, "records of the events");
	expect((int)ev.lost, 0, "nothing lost");
	nl_events_clear(&ev);

	ifi.ifi_family = AF_BRIDGE;                                /* a bridge port's: skipped */
	memcpy(link, &ifi, sizeof ifi);
	n = put_msg(dgram, RTM_NEWLINK, link, ln);
	expect(nl_parse_events(dgram, n, &ev), 0, "parse a bridge notification");
	expect((int)(ev.n + ev.lost), 0, "no event, nothing lost");

	n = put_msg(dgram, RTM_NEWADDR, addr, 4);                  /* shorter than ifaddrmsg */
	n += put_msg(dgram + n, RTM_NEWADDR, addr, an);
	expect(nl_parse_events(dgram, n, &ev), 0, "parse a broken message");
	expect((int)ev.n, 1, "the next message still read");
	expect((int)ev.lost, 1, "the broken one lost");
	nl_events_clear(&ev);
	expect(nl_parse_events(dgram, n - 1, &ev), 0, "parse a datagram cut short");
	expect((int)ev.lost, 2, "the broken message and the overrun: both lost");
	nl_events_free(&ev);
}

/* One RTM_NEWADDR payload: ifa, then IFA_LOCAL, IFA_ADDRESS (when addr) and IFA_LABEL. */
static size_t addr_payload(uint8_t *at, uint8_t family, const uint8_t *local, const uint8_t *addr,
			   const char *label, size_t label_len)
{
	struct ifaddrmsg ifa = { .ifa_family = family, .ifa_prefixlen = 24, .ifa_index = 7 };
	size_t alen = family == AF_INET ? 4 : 16, n = NLMSG_ALIGN(sizeof ifa);

	memcpy(at, &ifa, sizeof ifa);
	n += put_attr(at + n, IFA_LOCAL, local, alen);
	if (addr)
		n += put_attr(at + n, IFA_ADDRESS, addr, alen);
	if (label)
		n += put_attr(at + n, IFA_LABEL, label, label_len);
	return n;
}

/* IFA_LABEL: an IPv4 address's, NUL-ended and at most 15 bytes; none for IPv6;
 * and no IFA_ADDRESS (the kernel leaves a zero one out) is the peer 0.0.0.0. */
static void check_label_parsing(void)
{
	static const uint8_t ip[4] = { 192, 0, 2, 1 },
			     ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct netifc_addr a;
	uint8_t msg[256];
	size_t n;

	n = addr_payload(msg, AF_INET, ip, ip, "x0:1", 5);
	expect(nl_parse_addr(RTM_NEWADDR, msg, n, &a), 1, "an address with a label");
	netifc_addr_finish(&a, "x0");
	expect(!strcmp(a.label, "x0:1") && !a.has_peer, 1, "its label, no peer");
	n = addr_payload(msg, AF_INET, ip, NULL, "x0", 3);
	expect(nl_parse_addr(RTM_NEWADDR, msg, n, &a), 1, "an address without IFA_ADDRESS");
	netifc_addr_finish(&a, "x0");
	expect(a.has_peer && !a.peer[0] && !a.peer[3] && !strcmp(a.label, "x0"), 1,
	       "the peer 0.0.0.0");
	n = addr_payload(msg, AF_INET, ip, ip, "x0:1", 4);
	expect(nl_parse_addr(RTM_NEWADDR, msg, n, &a), -EPROTO, "a label without its NUL");
	n = addr_payload(msg, AF_INET, ip, ip, "x0:0123456789ab", 16);
	expect(nl_parse_addr(RTM_NEWADDR, msg, n, &a), 1, "a label of 15 bytes");
	n = addr_payload(msg, AF_INET, ip, ip, "x0:0123456789abc", 17);
	expect(nl_parse_addr(RTM_NEWADDR, msg, n, &a), -EPROTO, "a label of 16 bytes");
	n = addr_payload(msg, AF_INET6, ip6, ip6, "x0", 3);
	expect(nl_parse_addr(RTM_NEWADDR, msg, n, &a), 1, "an IPv6 address with a label");
	netifc_addr_finish(&a, "x0");
	expect(a.label[0] == 0 && !a.has_peer, 1, "no label on IPv6");
}

/* nl_heard_parse on made-up datagrams: the links told, and what counts as relisted. */
static void check_heard_parsing(void)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 9 };
	struct ifaddrmsg ifa = { .ifa_family = AF_INET6, .ifa_prefixlen = 64, .ifa_index = 5 };
	struct rtmsg rtm = { .rtm_family = AF_INET6 };
	uint8_t dgram[512];
	struct nl_heard h = { 0 };
	size_t n = 0;

	n += put_msg(dgram + n, RTM_NEWADDR, &ifa, sizeof ifa);
	n += put_msg(dgram + n, RTM_DELADDR, &ifa, sizeof ifa);
	ifa.ifa_index = 3;
	n += put_msg(dgram + n, RTM_NEWADDR, &ifa, sizeof ifa);
	n += put_msg(dgram + n, RTM_NEWLINK, &ifi, sizeof ifi);   /* a change: not relisted */
	expect(nl_heard_parse(&h, dgram, n), 0, "parse what a dump heard");
	nl_heard_sort(&h);
	expect(h.n == 2 && h.links[0] == 3 && h.links[1] == 5, 1, "links 3 and 5 told, once each");
	expect(nl_heard_has(&h, 5) && !nl_heard_has(&h, 9), 1, "a link change is no address change");
	expect(h.relisted || h.routes6, 0, "nothing relisted");

	ifi.ifi_change = 0xffffffffu;                               /* a new link */
	n = put_msg(dgram, RTM_NEWLINK, &ifi, sizeof ifi);
	expect(nl_heard_parse(&h, dgram, n) == 0 && h.relisted, 1, "a new link relists");
	nl_heard_sort(&h);
	expect(nl_heard_has(&h, 9), 1, "a new link is told");
	nl_heard_clear(&h, AF_UNSPEC);
	ifi.ifi_family = AF_BRIDGE;                                /* a bridge port's: skipped */
	n = put_msg(dgram, RTM_DELLINK, &ifi, sizeof ifi);
	expect(nl_heard_parse(&h, dgram, n) == 0 && !h.relisted, 1, "a bridge port's is skipped");
	ifi.ifi_family = AF_UNSPEC;
	n = put_msg(dgram, RTM_DELLINK, &ifi, sizeof ifi);
	expect(nl_heard_parse(&h, dgram, n) == 0 && h.relisted, 1, "a link gone relists");
	nl_heard_clear(&h, AF_UNSPEC);
	n = put_msg(dgram, RTM_NEWROUTE, &rtm, sizeof rtm);
	expect(nl_heard_parse(&h, dgram, n) == 0 && h.routes6 && !h.relisted, 1, "an IPv6 route");
	nl_heard_clear(&h, AF_UNSPEC);
	n = put_msg(dgram, RTM_NEWADDR, &ifa, 4);                  /* shorter than ifaddrmsg */
	expect(nl_heard_parse(&h, dgram, n) == 0 && h.relisted && !h.n, 1, "a short one relists");
	nl_heard_clear(&h, AF_UNSPEC);
	n = put_msg(dgram, RTM_NEWADDR, &ifa, sizeof ifa);
	expect(nl_heard_parse(&h, dgram, n - 1) == 0 && h.relisted, 1, "an overrun relists");
	nl_heard_free(&h);
}

static int set_lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	r = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 &&
			    (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr) == 0)
		    ? 0
		    : -errno;
	if (fd >= 0)
		close(fd);
	return r;
}

/* A root socket sends a link notification to the group: never an event. */
static int forge_multicast(void)
{
	struct sockaddr_nl group = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 1 };
	uint8_t link[64] = { 0 }, dgram[128];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), r;
	size_t n;

	memcpy(link, &ifi, sizeof ifi);
	n = NLMSG_ALIGN(sizeof ifi) + put_attr(link + NLMSG_ALIGN(sizeof ifi), IFLA_IFNAME, "lo", 3);
	n = put_msg(dgram, RTM_NEWLINK, link, n);
	r = fd >= 0 && bind(fd, (struct sockaddr *)&me, sizeof me) == 0 &&
			    sendto(fd, dgram, n, 0, (struct sockaddr *)&group, sizeof group) ==
				    (ssize_t)n
		    ? 0
		    : -errno;
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * In a network namespace of its own (a child process): nothing pending
 * reads as nothing; lo going up is an event; forged multicast is not; a
 * forked child's watch is closed.
 */
static int watch_in_own_netns(void)
{
	struct netifc_addr solicited = { .family = AF_INET6,
					 .local = { 0xff, 2, [11] = 1, 0xff, 0, 0, 1 } };
	struct netifc_addr all_nodes = { .family = AF_INET6, .local = { 0xff, 2, [15] = 1 } };
	struct netifc_addrs lo = { 0 }, none = { 0 };
	struct netifc_call call = { 0 };
	struct nl_events ev = { 0 };
	struct nl_watch w, bare;
	pid_t pid;
	int status;
	size_t i, links = 0;

	if (unshare(CLONE_NEWNET) < 0) {
		printf("core_check: watch checks skipped: unshare(CLONE_NEWNET): %s\n",
		       strerror(errno));
		return 0;
	}
	expect(nl_watch_open(&bare, NULL, 0), 0, "nl_watch_open without the optional groups");
	expect((int)bare.groups, 0, "no optional group joined when none is asked for");
	nl_watch_free(&bare);
	expect(nl_watch_open(&w, NULL, NL_WATCH_MCAST4 | NL_WATCH_MCAST6), 0, "nl_watch_open");
	expect(nl_watch_read(&w, &ev), 0, "read with nothing pending");
	expect((int)(ev.n + ev.lost), 0, "nothing pending: no event");
	expect(set_lo_up(), 0, "lo up");
	expect(nl_watch_read(&w, &ev), 0, "read after lo up");
	for (i = 0; i < ev.n; i++)
		if (ev.v[i].kind == NL_EV_LINK_NEW && ev.links.v[ev.v[i].at].index == 1)
			links++;
	expect(links >= 1, 1, "lo's change is an event");
	expect(ev.n > links, 1, "lo's addresses are events");
	nl_events_clear(&ev);
	expect(forge_multicast(), 0, "forged multicast sent");
	expect(nl_watch_read(&w, &ev), 0, "read after forged multicast");
	expect((int)(ev.n + ev.lost), 0, "forged multicast: no event");
	expect(nl_watch_link_addrs(&call, NETIFC_UNICAST, 1, "lo", &lo), 0, "lo's addresses asked");
	expect(lo.n >= 1 && lo.v[0].index == 1, 1, "lo's addresses: lo's");
	expect(nl_watch_link_addrs(&call, NETIFC_UNICAST, 999, "gone0", &none), 0, "a link gone");
	expect((int)none.n, 0, "a link gone has no addresses");
	expect(nl_watch_solicited(&solicited), 1, "ff02::1:ff00:1 is a solicited-node group");
	expect(nl_watch_solicited(&all_nodes), 0, "ff02::1 is not");
	netifc_addrs_free(&lo);
	pid = fork();
	if (pid == 0)
		_exit(w.fd == -1 && nl_watch_read(&w, &ev) == -EBADF ? 0 : 1);
	expect(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		       WEXITSTATUS(status) == 0,
	       1, "the forked child's watch is closed");
	expect(w.fd >= 0, 1, "the parent's watch stays open");
	nl_watch_free(&w);
	nl_events_free(&ev);
	return failures;
}

/*
 * In a child process: a new namespace with lo up, left again; a record of it
 * answers for it (lo alone, its groups from /proc on the fallback path)
 * from threads that never enter it; a forked child makes its own socket.
 */
static int netns_from_outside(void)
{
	static const unsigned modes[] = { 0, NETIFC_NO_STRICT_CHK, NETIFC_NO_NL_MCAST };
	const struct netifc_backend *b = netifc_backend_find("netlink");
	int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC), target, status, m, t;
	int n = 20;
	char before[64] = "", after[64] = "";
	struct netifc_links links = { 0 };
	struct netifc_addrs groups = { 0 };
	struct netifc_call c = { 0 };
	pthread_t th[4];
	pid_t pid;

	if (home < 0 || unshare(CLONE_NEWNET) < 0) {
		printf("core_check: namespace checks skipped: unshare(CLONE_NEWNET): %s\n",
		       strerror(errno));
		return 0;
	}
	expect(set_lo_up(), 0, "lo up in the new namespace");
	target = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	expect(setns(home, CLONE_NEWNET), 0, "back home");
	expect(readlink("/proc/thread-self/ns/net", before, sizeof before - 1) > 0, 1, "readlink");
	expect(netifc_ns_open(target, &c.ns), 0, "netifc_ns_open");
	close(target);
	close(home);
	if (!c.ns)
		return failures;
	expect(b->links(&c, &links), 0, "links there");
	expect(links.n == 1 && !strcmp(links.v[0].name, "lo"), 1, "lo alone there");
	c.opts = NETIFC_NO_NL_MCAST;
	expect(b->addrs(&c, NETIFC_MULTICAST, 1, "lo", NULL, &groups), 0, "groups from /proc there");
	expect(groups.n > 0, 1, "lo's groups there");
	in_ns = c.ns;
	for (m = 0; m < 3; m++) {
		opts = modes[m];
		for (t = 0; t < 4; t++)
			pthread_create(&th[t], NULL, ns_rounds, &n);
		for (t = 0; t < 4; t++)
			pthread_join(th[t], NULL);
	}
	pid = fork();
	if (pid == 0)
		_exit(c.ns->s.fd == -1 && b->links(&c, &links) == 0 && c.ns->s.fd >= 0 ? 0 : 1);
	expect(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		       WEXITSTATUS(status) == 0,
	       1, "a forked child's own socket there");
	expect(readlink("/proc/thread-self/ns/net", after, sizeof after - 1) > 0 &&
		       !strcmp(before, after),
	       1, "this thread never moved");
	netifc_ns_close(c.ns);
	expect(b->links(&c, &links), -EBADF, "closed");
	netifc_ns_free(c.ns);
	netifc_links_free(&links);
	netifc_addrs_free(&groups);
	return failures;
}

/*
 * With no thread-specific key left, a call fails with pthread_key_create's
 * own error (EAGAIN), not one of its own making; in a child, whose first
 * call it is.
 */
static int no_key_left(void)
{
	struct netifc_call call = { 0 };
	struct netifc_links t = { 0 };
	pthread_key_t key;
	int r;

	while (pthread_key_create(&key, NULL) == 0)
		;
	r = netifc_backend_find("netlink")->links(&call, &t);
	netifc_links_free(&t);
	return r == -EAGAIN ? 0 : (fprintf(stderr, "no key left: got %d\n", r), 1);
}

static void check_no_key_left(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(no_key_left());
	expect(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		       WEXITSTATUS(status) == 0,
	       1, "a call with no thread key left reports EAGAIN");
}

static void check_netns(void)
{
	int status, before = failures;
	pid_t pid = fork();

	if (pid == 0)
		_exit(netns_from_outside() != before);
	expect(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		       WEXITSTATUS(status) == 0,
	       1, "namespace checks (from outside a namespace of their own)");
}

static void check_watch(void)
{
	int status, before = failures;
	pid_t pid = fork();

	if (pid == 0)
		_exit(watch_in_own_netns() != before);
	expect(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		       WEXITSTATUS(status) == 0,
	       1, "watch checks (in their own namespace)");
}

int main(void)
{
	static const unsigned modes[] = { 0, NETIFC_NO_STRICT_CHK, NETIFC_NO_NL_MCAST4,
					  NETIFC_NO_NL_MCAST };
	int n = 200, t, m;

	check_no_key_left();            /* first: no call has made the key yet */
	check_no_stale_bytes();
	check_sockets();
	check_event_parsing();
	check_label_parsing();
	check_heard_parsing();
	check_watch();
	check_netns();
	failures += compare_backends();
	for (m = 0; m < 4; m++) {
		pthread_t th[4];

		opts = modes[m];
		rounds(&n);
		for (t = 0; t < 4; t++)
			pthread_create(&th[t], NULL, rounds, &n);
		for (t = 0; t < 4; t++)
			pthread_join(th[t], NULL);
	}
	printf("core_check: %d failures\n", failures);
	return failures != 0;
}
