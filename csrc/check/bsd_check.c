/*
 * bsd_check.c -- posix/bsd.c on records as the BSD kernels give them:
 * sockaddr_dl of links and of multicast memberships, IPv6 addresses with
 * the KAME zone in bytes 2-3, netmasks the kernel shortened, struct if_data
 * as each system lays it out.  The records are written out byte by byte
 * from the documented layouts (<net/if_dl.h>, <netinet6/in6.h>, <net/if.h>
 * or <net/if_var.h>), as a little-endian (amd64, arm64) kernel fills them.
 * Runs on Linux: it needs no BSD header.  Exit status 0 when all is well.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "posix/bsd.h"

static int failures;

static void expect(long got, long want, const char *what)
{
	if (got != want) {
		fprintf(stderr, "bsd_check: %s: got %ld, want %ld\n", what, got, want);
		failures++;
	}
}

static void expect_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
	if (memcmp(got, want, n)) {
		fprintf(stderr, "bsd_check: %s: bytes differ\n", what);
		failures++;
	}
}

/* A copy of a little-endian record with its 16-bit sdl_index in the host's order. */
static const uint8_t *host_order(const uint8_t *rec, size_t len, uint8_t *buf)
{
	uint16_t index = (uint16_t)(rec[SDL_INDEX] | rec[SDL_INDEX + 1] << 8);

	memcpy(buf, rec, len);
	if (len >= SDL_INDEX + 2)
		memcpy(buf + SDL_INDEX, &index, sizeof index);
	return buf;
}

/* sdl_len, sdl_family, sdl_index (2), sdl_type, sdl_nlen, sdl_alen, sdl_slen, sdl_data. */

/* macOS en0: Ethernet, index 4; sizeof(struct sockaddr_dl) is 20 there. */
static const uint8_t mac_en0[20] = {
	20, 18, 4, 0, 0x06, 3, 6, 0, 'e', 'n', '0', 0x3c, 0x22, 0xfb, 0x12, 0x34, 0x56, 0, 0, 0,
};
/* macOS lo0: IFT_LOOP, no address. */
static const uint8_t mac_lo0[20] = {
	20, 18, 1, 0, 0x18, 3, 0, 0, 'l', 'o', '0', 0, 0, 0, 0, 0, 0, 0, 0, 0,
};
/* macOS utun3: IFT_OTHER, index 23. */
static const uint8_t mac_utun3[20] = {
	20, 18, 23, 0, 0x01, 5, 0, 0, 'u', 't', 'u', 'n', '3', 0, 0, 0, 0, 0, 0, 0,
};
/* FreeBSD bridge0 (IFT_BRIDGE), index 300 (0x012c): sizeof is 54 there. */
static const uint8_t fbsd_bridge0[54] = {
	54,  18,  0x2c, 0x01, 0xd1, 7,    6,    0,    'b',  'r',  'i',
	'd', 'g', 'e',  '0',  0x58, 0x9c, 0xfc, 0x00, 0x00, 0x01,
};
/* FreeBSD ib0: InfiniBand's 20-byte address. */
static const uint8_t fbsd_ib0[54] = {
	54,   18, 5, 0, 0xc7, 3, 20, 0,    'i',  'b',  '0',  0x80, 0,    0x02, 0x08, 0xfe,
	0x80, 0,  0, 0, 0,    0, 0,  0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0x0b, 0x0c,
};
/* A membership's ifma_name on FreeBSD: index 2 only, no name, no address. */
static const uint8_t fbsd_ifma_name[54] = { 54, 18, 2, 0, 0x06, 0, 0, 0 };

static void check_links(void)
{
	static const uint8_t en0_hw[6] = { 0x3c, 0x22, 0xfb, 0x12, 0x34, 0x56 };
	static const uint8_t bridge_hw[6] = { 0x58, 0x9c, 0xfc, 0x00, 0x00, 0x01 };
	uint8_t buf[64];
	struct netifc_link l;

	memset(&l, 0, sizeof l);
	expect(netifc_bsd_link(host_order(mac_en0, 20, buf), 20, &l), 0, "en0");
	expect(l.index, 4, "en0 index");
	expect(l.type, 1, "en0 type: ARPHRD_ETHER");
	expect(l.hwaddr_len, 6, "en0 address length");
	expect_bytes(l.hwaddr, en0_hw, 6, "en0 address");

	expect(netifc_bsd_link(host_order(mac_lo0, 20, buf), 20, &l), 0, "lo0");
	expect(l.index, 1, "lo0 index");
	expect(l.type, 772, "lo0 type: ARPHRD_LOOPBACK");
	expect(l.hwaddr_len, 0, "lo0 has no address (none left from en0)");

	expect(netifc_bsd_link(host_order(mac_utun3, 20, buf), 20, &l), 0, "utun3");
	expect(l.index, 23, "utun3 index");
	expect(l.type, 65534, "utun3 type: ARPHRD_NONE");

	expect(netifc_bsd_link(host_order(fbsd_bridge0, 54, buf), 54, &l), 0, "bridge0");
	expect(l.index, 300, "bridge0 index (both bytes)");
	expect(l.type, 1, "bridge0 type: ARPHRD_ETHER");
	expect(l.hwaddr_len, 6, "bridge0 address length (after a 7-byte name)");
	expect_bytes(l.hwaddr, bridge_hw, 6, "bridge0 address");

	expect(netifc_bsd_link(host_order(fbsd_ib0, 54, buf), 54, &l), 0, "ib0");
	expect(l.type, 32, "ib0 type: ARPHRD_INFINIBAND");
	expect(l.hwaddr_len, 20, "ib0 address length");
	expect_bytes(l.hwaddr, fbsd_ib0 + SDL_DATA + 3, 20, "ib0 address");
}

static void check_broken_links(void)
{
	uint8_t buf[64];
	struct netifc_link l;

	memset(&l, 0, sizeof l);
	host_order(mac_en0, 20, buf);
	expect(netifc_bsd_link(buf, 16, &l), -22, "cut short of its address: EINVAL");
	expect(netifc_bsd_link(buf, 7, &l), -22, "shorter than the header: EINVAL");
	buf[SDL_LEN] = 16;
	expect(netifc_bsd_link(buf, 20, &l), -22, "sdl_len short of the address: EINVAL");
	buf[SDL_LEN] = 20;
	buf[SDL_FAMILY] = 2;
	expect(netifc_bsd_link(buf, 20, &l), -22, "not AF_LINK: EINVAL");
	buf[SDL_FAMILY] = 18;
	buf[SDL_NLEN] = 200;
	expect(netifc_bsd_link(buf, 20, &l), -22, "a name past the end: EINVAL");
	buf[SDL_NLEN] = 3;
	buf[SDL_ALEN] = 255;
	expect(netifc_bsd_link(buf, 20, &l), -22, "an address past the end: EINVAL");

	memset(buf, 0xab, sizeof buf);          /* 40 bytes of address: over the 32 kept */
	buf[SDL_LEN] = 48;
	buf[SDL_FAMILY] = 18;
	buf[SDL_TYPE] = 0x06;
	buf[SDL_NLEN] = 0;
	buf[SDL_ALEN] = 40;
	expect(netifc_bsd_link(buf, sizeof buf, &l), 0, "a 40-byte address: the link kept");
	expect(l.hwaddr_len, 0, "a 40-byte address: none kept");
}

/* sockaddr_in6 on macOS (AF_INET6 30): len, family, port, flowinfo, address, scope id. */
static void sin6(uint8_t *sa, const uint8_t addr[16], uint32_t scope_id)
{
	memset(sa, 0, 28);
	sa[0] = 28;
	sa[1] = 30;
	memcpy(sa + SIN6_ADDR, addr, 16);
	memcpy(sa + SIN6_SCOPE_ID, &scope_id, 4);
}

struct kame_case {
	const char *what;
	uint8_t in[16], out[16];
	uint32_t scope_id;      /* sin6_scope_id as given */
	uint16_t embedded;      /* the zone in bytes 2-3 */
	uint32_t scope;         /* the scope id read */
};

static const struct kame_case kame_cases[] = {
	{ "fe80:4::3e22:fbff:fe12:3456: link-local, zone 4 embedded",
	  { 0xfe, 0x80, 0, 4, 0, 0, 0, 0, 0x3e, 0x22, 0xfb, 0xff, 0xfe, 0x12, 0x34, 0x56 },
	  { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x3e, 0x22, 0xfb, 0xff, 0xfe, 0x12, 0x34, 0x56 },
	  0,
	  4,
	  4 },
	{ "fe80:1:2::1: zone 0x0102",
	  { 0xfe, 0x80, 1, 2, [15] = 1 },
	  { 0xfe, 0x80, [15] = 1 },
	  0,
	  0x102,
	  0x102 },
	{ "febf:9::1: still fe80::/10",
	  { 0xfe, 0xbf, 0, 9, [15] = 1 },
	  { 0xfe, 0xbf, [15] = 1 },
	  0,
	  9,
	  9 },
	{ "fe80::1 with sin6_scope_id 5: nothing embedded",
	  { 0xfe, 0x80, [15] = 1 },
	  { 0xfe, 0x80, [15] = 1 },
	  5,
	  0,
	  5 },
	{ "fe80:4::1 with sin6_scope_id 4: cleared, the scope id kept",
	  { 0xfe, 0x80, 0, 4, [15] = 1 },
	  { 0xfe, 0x80, [15] = 1 },
	  4,
	  4,
	  4 },
	{ "ff02:7::1:ff12:3456: link-local group",
	  { 0xff, 0x02, 0, 7, [11] = 1, 0xff, 0x12, 0x34, 0x56 },
	  { 0xff, 0x02, [11] = 1, 0xff, 0x12, 0x34, 0x56 },
	  0,
	  7,
	  7 },
	{ "ff01:3::1: interface-local group",
	  { 0xff, 0x01, 0, 3, [15] = 1 },
	  { 0xff, 0x01, [15] = 1 },
	  0,
	  3,
	  3 },
	{ "ff12:3::1:3: transient link-local group",
	  { 0xff, 0x12, 0, 3, [13] = 1, [15] = 3 },
	  { 0xff, 0x12, [13] = 1, [15] = 3 },
	  0,
	  3,
	  3 },
	{ "ff05:2::3: site-local group, untouched",
	  { 0xff, 0x05, 0, 2, [15] = 3 },
	  { 0xff, 0x05, 0, 2, [15] = 3 },
	  0,
	  0,
	  0 },
	{ "2001:db8::1: global, untouched",
	  { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	  { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	  0,
	  0,
	  0 },
	{ "fec0:1::1: site-local unicast, untouched",
	  { 0xfe, 0xc0, 0, 1, [15] = 1 },
	  { 0xfe, 0xc0, 0, 1, [15] = 1 },
	  0,
	  0,
	  0 },
};

static void check_kame(void)
{
	uint8_t sa[28], ip[16];
	uint32_t scope;
	size_t i;

	for (i = 0; i < sizeof kame_cases / sizeof *kame_cases; i++) {
		const struct kame_case *k = &kame_cases[i];

		sin6(sa, k->in, k->scope_id);
		scope = 0xdead;
		expect(netifc_bsd_ip(sa, sizeof sa, AF_INET6, ip, &scope), 0, k->what);
		expect_bytes(ip, k->out, 16, k->what);
		expect(scope, k->scope, k->what);
		memcpy(ip, k->in, 16);
		expect(netifc_kame_unembed(ip), k->embedded, k->what);
		expect_bytes(ip, k->out, 16, k->what);
	}
	sa[0] = 20;        /* sin6_len short of the address */
	expect(netifc_bsd_ip(sa, sizeof sa, AF_INET6, ip, NULL), -22, "a short sockaddr_in6");
	expect(netifc_bsd_ip(sa, sizeof sa, 18, ip, NULL), -22, "not an IP family");
}

static void check_ipv4(void)
{
	static const uint8_t sin[16] = { 16, 2, 0, 0, 192, 0, 2, 1 };
	static const uint8_t want[4] = { 192, 0, 2, 1 };
	uint8_t ip[4];
	uint32_t scope = 7;

	expect(netifc_bsd_ip(sin, sizeof sin, AF_INET, ip, &scope), 0, "sockaddr_in");
	expect_bytes(ip, want, 4, "sockaddr_in's address");
	expect(scope, 0, "an IPv4 address has no scope id");
	expect(netifc_bsd_ip(sin, 7, AF_INET, ip, NULL), -22, "a cut sockaddr_in");
}

/* Netmasks as the kernel shortens them: sa_len up to the last non-zero byte, family often 0. */
static void check_prefixes(void)
{
	static const uint8_t v4_24[7] = { 7, 0, 0, 0, 255, 255, 255 };
	static const uint8_t v4_27[16] = { 8, 2, 0, 0, 255, 255, 255, 224, 0xff, 0xff };
	static const uint8_t v4_0[1] = { 0 };
	static const uint8_t v4_32[16] = { 16, 2, 0, 0, 255, 255, 255, 255 };
	static const uint8_t v6_64[16] = { 16,   0,    0,    0,    0,    0,    0,    0,
					   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t v6_128[28], v6_57[28];

	memset(v6_128, 0, sizeof v6_128);
	v6_128[0] = 28;
	v6_128[1] = 30;
	memset(v6_128 + SIN6_ADDR, 0xff, 16);
	memcpy(v6_57, v6_128, sizeof v6_57);
	memset(v6_57 + SIN6_ADDR + 7, 0, 9);
	v6_57[SIN6_ADDR + 7] = 0x80;

	expect(netifc_bsd_prefixlen(v4_24, sizeof v4_24, AF_INET), 24, "IPv4 /24, 7 bytes");
	expect(netifc_bsd_prefixlen(v4_27, sizeof v4_27, AF_INET), 27,
	       "IPv4 /27, sa_len 8 (what follows is not read)");
	expect(netifc_bsd_prefixlen(v4_0, sizeof v4_0, AF_INET), 0, "IPv4 /0, sa_len 0");
	expect(netifc_bsd_prefixlen(v4_32, sizeof v4_32, AF_INET), 32, "IPv4 /32");
	expect(netifc_bsd_prefixlen(v6_64, sizeof v6_64, AF_INET6), 64, "IPv6 /64, 16 bytes");
	expect(netifc_bsd_prefixlen(v6_128, sizeof v6_128, AF_INET6), 128, "IPv6 /128");
	expect(netifc_bsd_prefixlen(v6_57, sizeof v6_57, AF_INET6), 57, "IPv6 /57");
}

/* struct if_data with ifi_mtu where each system has it, and other fields around it set. */
static void check_mtu(void)
{
	uint8_t d[64];
	uint32_t mtu32, other32 = 7;
	uint64_t mtu64 = 1280;
	unsigned long mtul = 16384;
	int link_state = 2;

	memset(d, 0x11, sizeof d);
	mtu32 = 1500;
	memcpy(d + 8, &mtu32, 4);               /* macOS: 8 bytes of u_char, then u_int32_t */
	expect((long)netifc_bsd_mtu(d, NETIFC_MACOS), 1500, "macOS ifi_mtu");
	mtu32 = 9000;
	memcpy(d + 8, &mtu32, 4); /* FreeBSD: 6 u_char, uint16_t ifi_datalen, uint32_t */
	expect((long)netifc_bsd_mtu(d, NETIFC_FREEBSD), 9000, "FreeBSD ifi_mtu");
	mtu32 = 1492;
	memcpy(d + 4, &mtu32, 4); /* OpenBSD: 4 u_char, then u_int32_t; ifi_metric after */
	memcpy(d + 8, &other32, 4);
	expect((long)netifc_bsd_mtu(d, NETIFC_OPENBSD), 1492, "OpenBSD ifi_mtu");
	memcpy(d + 4, &link_state, 4); /* NetBSD: 3 u_char, int ifi_link_state, uint64_t */
	memcpy(d + 8, &mtu64, 8);
	expect((long)netifc_bsd_mtu(d, NETIFC_NETBSD), 1280, "NetBSD ifi_mtu");
	memset(d, 0x11, sizeof d); /* DragonFly: 6 u_char, then u_long */
	memcpy(d + 8, &mtul, sizeof mtul);
	expect((long)netifc_bsd_mtu(d, NETIFC_DRAGONFLY), 16384, "DragonFly ifi_mtu");
}

/* getifmaddrs() records: the link's sockaddr_dl and the group. */
static void check_groups(void)
{
	static const uint8_t g6[16] = { 0xff, 0x02, 0, 2, [11] = 1, 0xff, 0x00, 0x00, 0x01 };
	static const uint8_t g6_clear[16] = { 0xff, 0x02, [11] = 1, 0xff, 0x00, 0x00, 0x01 };
	static const uint8_t g6_site[16] = { 0xff, 0x05, [13] = 1, 0, 3 };
	static const uint8_t sin[16] = { 16, 2, 0, 0, 224, 0, 0, 1 };
	static const uint8_t nameless[54] = { 54, 18, 0, 0, 0x06, 0, 0, 0 };
	uint8_t dl[64], sa[28];
	struct netifc_addr a;

	host_order(fbsd_ifma_name, 54, dl);
	sin6(sa, g6, 0);
	expect(netifc_bsd_group(dl, 54, sa, sizeof sa, AF_INET6, &a), 1, "IPv6 group");
	expect(a.index, 2, "IPv6 group's link: sdl_index");
	expect(a.family, AF_INET6, "IPv6 group's family");
	expect(a.prefixlen, 128, "IPv6 group's prefix");
	expect_bytes(a.local, g6_clear, 16, "IPv6 group, its zone cleared");
	expect(a.scope, 0, "ff02:: group: scope universe, as Linux's group dump");
	sin6(sa, g6_site, 0);
	expect(netifc_bsd_group(dl, 54, sa, sizeof sa, AF_INET6, &a), 1, "site-scoped IPv6 group");
	expect(a.scope, 200, "ff05::1:3: scope site, as Linux's group dump");
	sin6(sa, g6, 0);
	expect(netifc_bsd_group(dl, 54, sin, sizeof sin, AF_INET, &a), 1, "IPv4 group");
	expect(a.index == 2 && a.prefixlen == 32 && a.local[0] == 224 && a.local[3] == 1, 1,
	       "IPv4 group 224.0.0.1 on link 2");
	expect(netifc_bsd_group(dl, 54, dl, 54, 18, &a), 0, "a link-layer group: not kept");
	expect(netifc_bsd_group(nameless, sizeof nameless, sa, sizeof sa, AF_INET6, &a), 1,
	       "a membership without sdl_index");
	expect(a.index, 2, "its link from the embedded zone");
	expect(netifc_bsd_group(dl, 6, sa, sizeof sa, AF_INET6, &a), -22, "a cut sockaddr_dl");
}

/* ifa_flags as ifconfig shows them on each system, and the Linux word each is. */
static void check_flags(void)
{
	/* macOS en0 8863 <UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> */
	expect(netifc_bsd_flags(0x8863), 0x1043, "en0: UP BROADCAST RUNNING MULTICAST");
	/* macOS lo0 8049 <UP,LOOPBACK,RUNNING,MULTICAST> */
	expect(netifc_bsd_flags(0x8049), 0x1049, "lo0: UP LOOPBACK RUNNING MULTICAST");
	/* macOS utun0 8051 <UP,POINTOPOINT,RUNNING,MULTICAST> */
	expect(netifc_bsd_flags(0x8051), 0x1051, "utun0: UP POINTOPOINT RUNNING MULTICAST");
	/* FreeBSD em0 28943 <UP,BROADCAST,RUNNING,PROMISC,SIMPLEX,MULTICAST,PPROMISC> */
	expect(netifc_bsd_flags(0x28943), 0x1143, "em0: UP BROADCAST RUNNING PROMISC MULTICAST");
	/* OpenBSD vether0 <BROADCAST,SIMPLEX,MULTICAST>, down; LINK0-2 alone are nothing */
	expect(netifc_bsd_flags(0x8802), 0x1002, "vether0: BROADCAST MULTICAST");
	expect(netifc_bsd_flags(0x7000), 0,
	       "LINK0 LINK1 LINK2: no Linux bit (0x1000 is not MULTICAST)");
	expect(netifc_bsd_flags(0x2c4), 0x2c4, "NOARP ALLMULTI DEBUG RUNNING: the same bits");
}

int main(void)
{
	check_flags();
	check_links();
	check_broken_links();
	check_kame();
	check_ipv4();
	check_prefixes();
	check_mtu();
	check_groups();
	printf("bsd_check: %d failures\n", failures);
	return failures != 0;
}
