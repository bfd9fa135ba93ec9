/*
 * gifa.c -- the portable backend on getifaddrs(3), for systems without
 * rtnetlink (built and testable on Linux too).  It can tell less than
 * netlink: no IFA_F_* flags and no lifetimes; scope is derived from the
 * address, operstate from the flags; one link is found by walking them all.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#ifdef __linux__
#include <linux/if_packet.h>
#include <linux/rtnetlink.h>
#define LINK_FAMILY AF_PACKET
#else
#include <net/if_dl.h>
#define LINK_FAMILY AF_LINK
#define RT_SCOPE_UNIVERSE 0
#define RT_SCOPE_LINK 253
#define RT_SCOPE_HOST 254
#endif

#include "netifc.h"
#ifdef __linux__
#include "procnet.h"
#endif

/* The link part of an IPv4 label "eth0:1" is its name (':' is not allowed in one). */
static void base_name(const char *label, char *out)
{
	size_t n = strcspn(label, ":");

	if (n >= NETIFC_NAMESIZ)
		n = NETIFC_NAMESIZ - 1;
	memcpy(out, label, n);
	out[n] = 0;
}

/*
 * getifaddrs() has no operational state; the flags tell most of it (and
 * sysfs would name the links of another namespace after setns()).  Never
 * "unknown": a link that is running reads "up".
 */
enum { OPER_DOWN = 2, OPER_DORMANT = 5, OPER_UP = 6 };     /* RFC 2863, as IF_OPER_* */

static uint8_t operstate_of(uint32_t flags)
{
	if (!(flags & IFF_UP))
		return OPER_DOWN;
#ifdef __linux__
	if (flags & 0x20000)            /* IFF_DORMANT */
		return OPER_DORMANT;
#endif
	return flags & IFF_RUNNING ? OPER_UP : OPER_DOWN;
}

/*
 * What the link's own getifaddrs() record tells; sock (or -1: not needed)
 * asks the type of a link the record gives no address for.
 */
static void link_id(const struct ifaddrs *ifa, int sock, struct netifc_link *l)
{
	memset(l, 0, sizeof *l);
	base_name(ifa->ifa_name, l->name);
	l->flags = ifa->ifa_flags;
#ifdef __linux__
	if (!ifa->ifa_addr) {
		/* glibc gives a link without a hardware address (tun) no ifa_addr. */
		struct ifreq ifr;

		l->index = (int32_t)if_nametoindex(l->name);
		memset(&ifr, 0, sizeof ifr);
		memcpy(ifr.ifr_name, l->name, sizeof l->name);
		if (sock >= 0 && ioctl(sock, SIOCGIFHWADDR, &ifr) == 0)
			l->type = ifr.ifr_hwaddr.sa_family;
	} else {
		const struct sockaddr_ll *sll = (const struct sockaddr_ll *)ifa->ifa_addr;

		l->index = sll->sll_ifindex;
		l->type = sll->sll_hatype;
		/* glibc's record holds more than sll_addr's 8 bytes. */
		netifc_hwaddr_set(l, sll->sll_addr, sll->sll_halen > 24 ? 24 : sll->sll_halen);
		sll = (const struct sockaddr_ll *)ifa->ifa_broadaddr;
		if (sll && sll->sll_family == AF_PACKET)
			netifc_brd_set(l, sll->sll_addr, sll->sll_halen > 24 ? 24 : sll->sll_halen);
	}
#else
	{
		const struct sockaddr_dl *sdl = (const struct sockaddr_dl *)ifa->ifa_addr;

		l->index = sdl->sdl_index;
		l->type = sdl->sdl_type;
		netifc_hwaddr_set(l, LLADDR(sdl), sdl->sdl_alen);
	}
#endif
}

static void link_from(const struct ifaddrs *ifa, int sock, struct netifc_link *l)
{
	struct ifreq ifr;

	link_id(ifa, sock, l);
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, l->name, sizeof l->name < sizeof ifr.ifr_name ? sizeof l->name : sizeof ifr.ifr_name);
	if (sock >= 0 && ioctl(sock, SIOCGIFMTU, &ifr) == 0)
		l->mtu = (uint32_t)ifr.ifr_mtu;
	l->operstate = operstate_of(l->flags);
}

static int is_link(const struct ifaddrs *ifa)
{
#ifdef __linux__
	if (!ifa->ifa_addr)
		return ifa->ifa_data != NULL;   /* glibc's link record, its stats in ifa_data */
#endif
	return ifa->ifa_addr && ifa->ifa_addr->sa_family == LINK_FAMILY;
}

/* Whether a link record is the one asked for (index 0 and name NULL: any). */
static int wanted(const struct ifaddrs *ifa, int32_t index, const char *name)
{
	char base[NETIFC_NAMESIZ];

	if (name) {
		base_name(ifa->ifa_name, base);
		return !strcmp(base, name);
	}
	if (!index)
		return 1;
#ifdef __linux__
	if (!ifa->ifa_addr)
		return (int32_t)if_nametoindex(ifa->ifa_name) == index;
	return ((const struct sockaddr_ll *)ifa->ifa_addr)->sll_ifindex == index;
#else
	return ((const struct sockaddr_dl *)ifa->ifa_addr)->sdl_index == index;
#endif
}

/*
 * The links of one getifaddrs() result (those asked for, found before any
 * ioctl is made): whole records, or their ids only.
 */
static int links_of(const struct ifaddrs *all, int whole, int32_t index, const char *name,
		    struct netifc_links *out)
{
	const struct ifaddrs *ifa;
	struct netifc_link *l;
	int sock = -1, r = 0;

	for (ifa = all; ifa && r == 0; ifa = ifa->ifa_next) {
		if (!is_link(ifa) || !wanted(ifa, index, name))
			continue;
		if (whole && sock < 0)
			sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (!(l = netifc_links_push(out)))
			r = -ENOMEM;
		else if (whole)
			link_from(ifa, sock, l);
		else
			link_id(ifa, -1, l);
	}
	if (sock >= 0)
		close(sock);
	return r;
}

/* Every link, or the one with `index`, or the one named `name`. */
static int walk_links(struct netifc_call *c, int32_t index, const char *name,
		      struct netifc_links *out)
{
	struct ifaddrs *all = NULL;
	int r;

	c->step = "getifaddrs";
	if (getifaddrs(&all) < 0)
		return -errno;
	r = links_of(all, 1, index, name, out);
	freeifaddrs(all);
	return r;
}

static int gifa_links(struct netifc_call *c, struct netifc_links *out)
{
	return walk_links(c, 0, NULL, out);
}

static int gifa_link(struct netifc_call *c, int32_t index, const char *name,
		     struct netifc_links *out)
{
	size_t n = out->n;
	int r = walk_links(c, index, name, out);

	if (r == 0 && out->n == n)
		return -ENODEV;
	if (r == 0)
		netifc_links_truncate(out, n + 1);      /* the first of its name or index */
	return r;
}

static int prefix_of(const struct sockaddr *mask, size_t alen)
{
	const uint8_t *p;
	int bits = 0;
	size_t i;

	if (!mask)
		return (int)alen * 8;
	p = mask->sa_family == AF_INET6 ? (const uint8_t *)&((const struct sockaddr_in6 *)mask)->sin6_addr
					: (const uint8_t *)&((const struct sockaddr_in *)mask)->sin_addr;
	for (i = 0; i < alen && p[i] == 0xff; i++)
		bits += 8;
	if (i < alen)
		for (uint8_t b = p[i]; b & 0x80; b = (uint8_t)(b << 1))
			bits++;
	return bits;
}

static const uint8_t *ip_of(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? (const uint8_t *)&((const struct sockaddr_in6 *)sa)->sin6_addr
					 : (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
}

static uint8_t scope_of(const struct netifc_addr *a)
{
	static const uint8_t v6_loopback[16] = { [15] = 1 };

	if (a->family == AF_INET)
		return a->local[0] == 127 ? RT_SCOPE_HOST : RT_SCOPE_UNIVERSE;
	if (!memcmp(a->local, v6_loopback, 16))
		return RT_SCOPE_HOST;
	if (a->local[0] == 0xfe && (a->local[1] & 0xc0) == 0x80)
		return RT_SCOPE_LINK;
	return RT_SCOPE_UNIVERSE;
}

static void addr_from(const struct ifaddrs *ifa, int32_t index, const char *name,
		      struct netifc_addr *a)
{
	const struct sockaddr *other = ifa->ifa_broadaddr;     /* or ifa_dstaddr: a union */
	size_t alen = netifc_family_len(ifa->ifa_addr->sa_family);

	a->family = (uint8_t)ifa->ifa_addr->sa_family;
	a->index = index;
	a->prefixlen = (uint8_t)prefix_of(ifa->ifa_netmask, alen);
	/* Lifetimes are unknown here: has_lifetimes stays 0. */
	memcpy(a->local, ip_of(ifa->ifa_addr), alen);
	if (other && other->sa_family == ifa->ifa_addr->sa_family) {
		if (ifa->ifa_flags & IFF_POINTOPOINT) {
			memcpy(a->peer, ip_of(other), alen);
			a->has_peer = 1;
		} else if (ifa->ifa_flags & IFF_BROADCAST && a->family == AF_INET &&
			   memcmp(ip_of(other), a->local, alen)) {
			/* glibc puts IFA_ADDRESS here when there is no IFA_BROADCAST. */
			memcpy(a->broadcast, ip_of(other), alen);
			a->has_broadcast = 1;
		}
	}
	a->scope = scope_of(a);
	netifc_addr_finish(a, name);
}

/*
 * Addresses and, for a snapshot, the links from one getifaddrs() result,
 * so every address kept belongs to a link of the table.
 */
static int unicast(struct netifc_call *c, int32_t index, struct netifc_links *links,
		   struct netifc_addrs *out)
{
	struct netifc_links own = { 0 }, *t = links ? links : &own;
	const struct netifc_link *l;
	struct ifaddrs *all = NULL, *ifa;
	char name[NETIFC_NAMESIZ];
	struct netifc_addr *a;
	size_t hint = 0;
	int r;

	c->step = "getifaddrs";
	if (getifaddrs(&all) < 0)
		return -errno;
	r = links_of(all, links != NULL, 0, NULL, t);
	for (ifa = all; ifa && r == 0; ifa = ifa->ifa_next) {
		if (!ifa->ifa_addr || !netifc_family_len(ifa->ifa_addr->sa_family))
			continue;
		base_name(ifa->ifa_name, name);
		l = netifc_links_find_name(t, name, &hint);
		if (!l || (index && l->index != index))
			continue;
		if (!(a = netifc_addrs_push(out)))
			r = -ENOMEM;
		else
			addr_from(ifa, l->index, name, a);
	}
	freeifaddrs(all);
	netifc_links_free(&own);
	return r;
}

static int groups(struct netifc_call *c, int32_t index, struct netifc_addrs *out)
{
#ifdef __linux__
	int r;

	c->step = "/proc/net/igmp";
	if ((r = netifc_proc_groups(AF_INET, index, out)) < 0)
		return r;
	c->step = "/proc/net/igmp6";
	return netifc_proc_groups(AF_INET6, index, out);
#else
	(void)index; (void)out;
	c->step = "multicast groups";
	return -EOPNOTSUPP;
#endif
}

/* Groups come from /proc, links from getifaddrs(): keep the groups of a link of the table. */
static void keep_known(const struct netifc_links *links, struct netifc_addrs *t)
{
	size_t i, kept = 0, hint = 0;

	for (i = 0; i < t->n; i++)
		if (netifc_links_find(links, t->v[i].index, &hint))
			t->v[kept++] = t->v[i];
	t->n = kept;
}

static int gifa_addrs(struct netifc_call *c, enum netifc_kind kind, int32_t index,
		      const char *name, struct netifc_links *links, struct netifc_addrs *out)
{
	int r;

	(void)name;
	if (index)
		links = NULL;
	if (kind == NETIFC_UNICAST)
		return unicast(c, index, links, out);
	if (links && (r = gifa_links(c, links)) < 0)
		return r;
	r = groups(c, index, out);
	if (r == 0 && links)
		keep_known(links, out);
	return r;
}

const struct netifc_backend netifc_backend_getifaddrs = {
	.name = "getifaddrs",
	.links = gifa_links,
	.link = gifa_link,
	.addrs = gifa_addrs,
};
