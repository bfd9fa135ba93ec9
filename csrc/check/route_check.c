/*
 * route_check.c -- the route calls under ASan+UBSan+LSan (csrc/check/run.sh):
 * every family, table and option, many times, from several threads; and
 * the route parser on made-up messages: next hops, a lying next hop
 * length, addresses of the wrong length, a gateway of another family.
 * Exit status 0 when all is well.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "netlink/routes.h"

static int failures;

static void expect(long r, long want, const char *what)
{
	if (r != want) {
		fprintf(stderr, "%s: got %ld, want %ld\n", what, r, want);
		failures++;
	}
}

static void round_of(unsigned opts)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 }, lo6[16] = { [15] = 1 };
	static const uint8_t none4[4] = { 0, 0, 0, 0 };
	static const int families[] = { AF_UNSPEC, AF_INET, AF_INET6 };
	static const uint32_t tables[] = { NETIFC_TABLE_ALL, 254, 255, 4242 };
	struct netifc_call c = { .opts = opts };
	struct netifc_routes t = { 0 };
	size_t f, i;

	for (f = 0; f < 3; f++)
		for (i = 0; i < 4; i++) {
			expect(netifc_routes_dump(&c, families[f], tables[i], &t), 0, "routes");
			netifc_routes_free(&t);
		}
	expect(netifc_routes_dump(&c, AF_INET, 255, &t), 0, "local table");
	expect(t.n > 0, 1, "the local table has routes");
	netifc_routes_free(&t);
	expect(netifc_route_get(&c, AF_INET, lo4, 0, &t), 0, "route_get 127.0.0.1");
	expect(netifc_route_get(&c, AF_INET6, lo6, 1, &t), 0, "route_get ::1 out of lo");
	expect((long)t.n, 2, "two routes appended");
	expect(t.n == 2 && t.v[0].type == RTN_LOCAL && !strcmp(t.v[0].name, "lo"), 1,
	       "127.0.0.1 is local, on lo");
	netifc_routes_free(&t);
	expect(netifc_route_get(&c, AF_INET, none4, 0x7ffffff0, &t) < 0, 1,
	       "route_get out of a missing link fails");
	expect((long)t.n, 0, "and appends nothing");
	expect(netifc_route_get(&c, AF_UNSPEC, lo4, 0, &t), -EAFNOSUPPORT, "route_get AF_UNSPEC");
	netifc_routes_free(&t);
}

static void *rounds(void *arg)
{
	unsigned opts = *(unsigned *)arg;
	int i;

	for (i = 0; i < 100; i++)
		round_of(opts);
	return NULL;
}

static size_t put_attr(uint8_t *at, uint16_t type, const void *data, size_t len)
{
	struct rtattr rta = { .rta_len = (unsigned short)RTA_LENGTH(len), .rta_type = type };

	memcpy(at, &rta, sizeof rta);
	memcpy(at + RTA_LENGTH(0), data, len);
	return RTA_SPACE(len);
}

/* RTA_MULTIPATH of two hops via 10.0.0.1 (weight 1) and 10.0.0.2 out of link 3 (weight 4). */
static size_t put_multipath(uint8_t *at)
{
	static const uint8_t gw1[4] = { 10, 0, 0, 1 }, gw2[4] = { 10, 0, 0, 2 };
	uint8_t hops[64];
	struct rtnexthop nh = { .rtnh_len = RTNH_LENGTH(RTA_SPACE(4)), .rtnh_ifindex = 2 };
	size_t n = 0;

	memcpy(hops + n, &nh, sizeof nh);
	n += put_attr(hops + n + RTNH_LENGTH(0), RTA_GATEWAY, gw1, 4) + RTNH_LENGTH(0);
	nh.rtnh_hops = 3;
	nh.rtnh_ifindex = 3;
	memcpy(hops + n, &nh, sizeof nh);
	n += put_attr(hops + n + RTNH_LENGTH(0), RTA_GATEWAY, gw2, 4) + RTNH_LENGTH(0);
	return put_attr(at, RTA_MULTIPATH, hops, n);
}

static void check_parsing(void)
{
	struct rtmsg rtm = {
		.rtm_family = AF_INET, .rtm_dst_len = 16, .rtm_table = 254, .rtm_type = RTN_UNICAST
	};
	static const uint8_t dst[4] = { 10, 50, 0, 0 }, v6[18] = { AF_INET6 & 0xff, 0, 0xfe, 0x80 };
	uint8_t msg[256];
	struct netifc_routes t = { 0 };
	size_t n = NLMSG_ALIGN(sizeof rtm), hops_at;

	memcpy(msg, &rtm, sizeof rtm);
	n += put_attr(msg + n, RTA_DST, dst, 4);
	hops_at = n;
	n += put_multipath(msg + n);
	expect(nl_parse_route(RTM_NEWROUTE, msg, n, &t), 1, "a multipath route");
	expect(t.n == 1 && t.v[0].nh_n == 2 && t.nh_n == 2 && t.nh[0].weight == 1 &&
		       t.nh[1].weight == 4 && t.nh[1].index == 3 && t.nh[1].gateway[3] == 2 &&
		       t.nh[0].gw_family == AF_INET,
	       1, "its next hops");
	expect(nl_parse_route(RTM_NEWROUTE, msg, n, &t), 1, "a second one");
	expect(t.v[1].nh_off == 2 && t.nh_n == 4, 1, "next hops appended in order");
	netifc_routes_truncate(&t, 1);
	expect((long)t.nh_n, 2, "truncating drops the route's next hops");

	msg[hops_at + RTA_LENGTH(0)] = 200;             /* the first hop's rtnh_len lies */
	expect(nl_parse_route(RTM_NEWROUTE, msg, n, &t), -EPROTO, "a lying next hop length");
	expect(t.n == 1 && t.nh_n == 2, 1, "the table as it was");

	n = NLMSG_ALIGN(sizeof rtm) + put_attr(msg + NLMSG_ALIGN(sizeof rtm), RTA_GATEWAY, dst, 3);
	expect(nl_parse_route(RTM_NEWROUTE, msg, n, &t), -EPROTO, "a 3-byte gateway");
	n = NLMSG_ALIGN(sizeof rtm) + put_attr(msg + NLMSG_ALIGN(sizeof rtm), RTA_VIA, v6, 18);
	expect(nl_parse_route(RTM_NEWROUTE, msg, n, &t), 1, "a route via IPv6");
	expect(t.v[1].gw_family == AF_INET6 && t.v[1].gateway[0] == 0xfe, 1, "its gateway");
	n = NLMSG_ALIGN(sizeof rtm) + put_attr(msg + NLMSG_ALIGN(sizeof rtm), RTA_VIA, v6, 10);
	expect(nl_parse_route(RTM_NEWROUTE, msg, n, &t), -EPROTO, "a cut RTA_VIA");
	expect(nl_parse_route(RTM_NEWROUTE, msg, 4, &t), -EPROTO, "shorter than rtmsg");
	expect(nl_parse_route(RTM_NEWLINK, msg, n, &t), 0, "not a route message");
	rtm.rtm_dst_len = 33;
	memcpy(msg, &rtm, sizeof rtm);
	expect(nl_parse_route(RTM_NEWROUTE, msg, n, &t), -EPROTO, "a prefix of 33 bits");
	rtm.rtm_family = 128;                           /* RTNL_FAMILY_IPMR: not ours */
	memcpy(msg, &rtm, sizeof rtm);
	expect(nl_parse_route(RTM_NEWROUTE, msg, n, &t), 0, "a multicast routing table's route");
	expect((long)t.n, 2, "two routes kept");
	netifc_routes_free(&t);
}

int main(void)
{
	static unsigned modes[] = { 0, NETIFC_NO_STRICT_CHK };
	pthread_t th[4];
	int m, i;

	check_parsing();
	for (m = 0; m < 2; m++) {
		rounds(&modes[m]);
		for (i = 0; i < 4; i++)
			pthread_create(&th[i], NULL, rounds, &modes[m]);
		for (i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
	}
	printf("route_check: %d failures\n", failures);
	return failures != 0;
}
