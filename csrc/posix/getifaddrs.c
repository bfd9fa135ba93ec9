/*
 * posix/getifaddrs.c -- the portable backend on getifaddrs(3), for systems without
 * rtnetlink (built and testable on Linux too).  It can tell less than
 * netlink: no IFA_F_* flags and no lifetimes; scope is derived from the
 * address, operstate from the flags; one link is found by walking them all.
 *
 * On macOS and the BSDs a link's record carries a sockaddr_dl (index, type,
 * hardware address) and its struct if_data (the MTU); groups come from
 * getifmaddrs() where there is one; link-local addresses come with the
 * KAME zone in them, which is cleared.  posix/bsd.c reads all of it.
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
/* A socket for the MTU, and the type of a link with no address: held on the
 * fork registry (netlink/fork.h), so a child forked meanwhile holds none. */
#include "netlink/fork.h"
#define LINK_SOCKET(held) nl_fork_hold(held, link_socket, NULL)
#define LINK_SOCKET_CLOSE(held, fd) nl_fork_release(held)
#else
#include <stddef.h>
#include <net/if_dl.h>
#ifdef __APPLE__
#include <net/if_var.h>         /* struct if_data */
#endif
#define LINK_FAMILY AF_LINK
/* ifa_data has the MTU (and macOS has no SOCK_CLOEXEC) */
#define LINK_SOCKET(held) ((void)(held), -1)
#define LINK_SOCKET_CLOSE(held, fd) ((void)(held), close(fd))
#endif

#include "core/netifc.h"
#include "core/values.h"
#ifdef __linux__
#include "procfs/igmp.h"
#else
#include "posix/bsd.h"

#if defined(__APPLE__)
#define BSD_OS NETIFC_MACOS
#elif defined(__FreeBSD__)
#define BSD_OS NETIFC_FREEBSD
#elif defined(__OpenBSD__)
#define BSD_OS NETIFC_OPENBSD
#elif defined(__NetBSD__)
#define BSD_OS NETIFC_NETBSD
#elif defined(__DragonFly__)
#define BSD_OS NETIFC_DRAGONFLY
#else
#error "netifc: no getifaddrs() record layout known for this system"
#endif
#if defined(__APPLE__) || defined(__FreeBSD__)
#define HAVE_GETIFMADDRS 1
#endif

/* posix/bsd.c reads records with the layouts it writes out: they are this system's. */
_Static_assert(AF_LINK == NETIFC_AF_LINK, "AF_LINK");
_Static_assert(offsetof(struct sockaddr_dl, sdl_index) == SDL_INDEX &&
		       offsetof(struct sockaddr_dl, sdl_type) == SDL_TYPE &&
		       offsetof(struct sockaddr_dl, sdl_nlen) == SDL_NLEN &&
		       offsetof(struct sockaddr_dl, sdl_alen) == SDL_ALEN &&
		       offsetof(struct sockaddr_dl, sdl_slen) == SDL_SLEN &&
		       offsetof(struct sockaddr_dl, sdl_data) == SDL_DATA,
	       "struct sockaddr_dl");
_Static_assert(offsetof(struct sockaddr_in, sin_addr) == SIN_ADDR &&
		       offsetof(struct sockaddr_in6, sin6_addr) == SIN6_ADDR &&
		       offsetof(struct sockaddr_in6, sin6_scope_id) == SIN6_SCOPE_ID,
	       "sockaddr_in{,6}");
_Static_assert(offsetof(struct if_data, ifi_mtu) == NETIFC_IFDATA_MTU_OFF(BSD_OS) &&
		       sizeof(((struct if_data *)0)->ifi_mtu) == NETIFC_IFDATA_MTU_SIZE(BSD_OS),
	       "struct if_data");
/* ... and netifc_bsd_flags' bits: those it keeps are this system's own, its IFF_MULTICAST 0x8000. */
_Static_assert(IFF_UP == NETIFC_IFF_UP && IFF_BROADCAST == NETIFC_IFF_BROADCAST &&
		       IFF_DEBUG == NETIFC_IFF_DEBUG && IFF_LOOPBACK == NETIFC_IFF_LOOPBACK &&
		       IFF_POINTOPOINT == NETIFC_IFF_POINTOPOINT && IFF_NOARP == NETIFC_IFF_NOARP &&
		       IFF_PROMISC == NETIFC_IFF_PROMISC && IFF_ALLMULTI == NETIFC_IFF_ALLMULTI &&
		       IFF_MULTICAST == 0x8000,
	       "IFF_*");
#ifdef IFF_RUNNING
_Static_assert(IFF_RUNNING == NETIFC_IFF_RUNNING, "IFF_RUNNING");
#endif
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
static uint8_t operstate_of(uint32_t flags)
{
	if (!(flags & NETIFC_IFF_UP))
		return NETIFC_OPER_DOWN;
	if (flags & NETIFC_IFF_DORMANT)
		return NETIFC_OPER_DORMANT;
	return flags & NETIFC_IFF_RUNNING ? NETIFC_OPER_UP : NETIFC_OPER_DOWN;
}

/*
 * What the link's own getifaddrs() record tells; sock (or -1: not needed)
 * asks the type of a link the record gives no address for.
 */
static void link_id(const struct ifaddrs *ifa, int sock, struct netifc_link *l)
{
	memset(l, 0, sizeof *l);
	base_name(ifa->ifa_name, l->name);
#ifdef __linux__
	l->flags = ifa->ifa_flags;
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
	(void)sock;
	l->flags = netifc_bsd_flags(ifa->ifa_flags);
	netifc_bsd_link(ifa->ifa_addr, ifa->ifa_addr->sa_len, l); /* is_link() read it */
#endif
}

static void link_from(const struct ifaddrs *ifa, int sock, struct netifc_link *l)
{
#ifdef __linux__
	struct ifreq ifr;

	link_id(ifa, sock, l);
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, l->name,
	       sizeof l->name < sizeof ifr.ifr_name ? sizeof l->name : sizeof ifr.ifr_name);
	if (sock >= 0 && ioctl(sock, SIOCGIFMTU, &ifr) == 0)
		l->mtu = (uint32_t)ifr.ifr_mtu;
#else
	link_id(ifa, sock, l);
	if (ifa->ifa_data)
		l->mtu = netifc_bsd_mtu(ifa->ifa_data, BSD_OS);
#endif
	l->operstate = operstate_of(l->flags);
}

#ifndef __linux__
/* The index of a link's record, -1 if its sockaddr_dl is broken. */
static int32_t dl_index(const struct ifaddrs *ifa)
{
	struct netifc_link l;

	memset(&l, 0, sizeof l);
	if (netifc_bsd_link(ifa->ifa_addr, ifa->ifa_addr->sa_len, &l) < 0)
		return -1;
	return l.index;
}
#endif

static int is_link(const struct ifaddrs *ifa)
{
#ifdef __linux__
	if (!ifa->ifa_addr)
		return ifa->ifa_data != NULL;   /* glibc's link record, its stats in ifa_data */
	return ifa->ifa_addr->sa_family == LINK_FAMILY;
#else
	return ifa->ifa_addr && ifa->ifa_addr->sa_family == LINK_FAMILY && dl_index(ifa) > 0;
#endif
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
	return dl_index(ifa) == index;
#endif
}

#ifdef __linux__
static int link_socket(void *unused)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	(void)unused;
	return fd < 0 ? -errno : fd;
}
#endif

/*
 * The links of one getifaddrs() result (those asked for, found before any
 * ioctl is made): whole records, or their ids only.
 */
static int links_of(const struct ifaddrs *all, int whole, int32_t index, const char *name,
		    struct netifc_links *out)
{
	const struct ifaddrs *ifa;
	struct netifc_link *l;
	struct nl_fork_fd *held = NULL;
	int sock = -1, r = 0;

	for (ifa = all; ifa && r == 0; ifa = ifa->ifa_next) {
		if (!is_link(ifa) || !wanted(ifa, index, name))
			continue;
		if (whole && sock < 0)
			sock = LINK_SOCKET(&held);
		if (!(l = netifc_links_push(out)))
			r = -ENOMEM;
		else if (whole)
			link_from(ifa, sock, l);
		else
			link_id(ifa, -1, l);
	}
	if (sock >= 0)
		LINK_SOCKET_CLOSE(held, sock);
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

#ifdef __linux__
static int prefix_of(const struct sockaddr *mask, size_t alen)
{
	const uint8_t *p;
	int bits = 0;
	size_t i;

	if (!mask)
		return (int)alen * 8;
	p = mask->sa_family == AF_INET6
		    ? (const uint8_t *)&((const struct sockaddr_in6 *)mask)->sin6_addr
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
	return sa->sa_family == AF_INET6
		       ? (const uint8_t *)&((const struct sockaddr_in6 *)sa)->sin6_addr
		       : (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
}

/* The address of sa (of the record's family) into out. */
static void ip_copy(const struct sockaddr *sa, size_t alen, uint8_t *out)
{
	memcpy(out, ip_of(sa), alen);
}
#else
/* The kernel shortens a netmask to its last non-zero byte (sa_len), its family often 0. */
static int prefix_of(const struct sockaddr *mask, size_t alen)
{
	if (!mask)
		return (int)alen * 8;
	return netifc_bsd_prefixlen(mask, mask->sa_len, alen == 16 ? AF_INET6 : AF_INET);
}

/* The address, its KAME zone cleared (the zone is the link's name: netifc_addr_finish). */
static void ip_copy(const struct sockaddr *sa, size_t alen, uint8_t *out)
{
	if (netifc_bsd_ip(sa, sa->sa_len, alen == 16 ? AF_INET6 : AF_INET, out, NULL) < 0)
		memset(out, 0, alen);
}
#endif

static void addr_from(const struct ifaddrs *ifa, int32_t index, const char *name,
		      struct netifc_addr *a)
{
	const struct sockaddr *other = ifa->ifa_broadaddr;     /* or ifa_dstaddr: a union */
	size_t alen = netifc_family_len(ifa->ifa_addr->sa_family);
	uint8_t ip[16];

	a->family = (uint8_t)ifa->ifa_addr->sa_family;
	a->index = index;
	a->prefixlen = (uint8_t)prefix_of(ifa->ifa_netmask, alen);
	/* Lifetimes are unknown here: has_lifetimes stays 0. */
	ip_copy(ifa->ifa_addr, alen, a->local);
	if (other && other->sa_family == ifa->ifa_addr->sa_family) {
		ip_copy(other, alen, ip);
		if (ifa->ifa_flags & IFF_POINTOPOINT) {
			memcpy(a->peer, ip, alen);
			a->has_peer = 1;
		} else if (ifa->ifa_flags & IFF_BROADCAST && a->family == AF_INET &&
			   memcmp(ip, a->local, alen)) {
			/* glibc and musl put IFA_ADDRESS here when there is no IFA_BROADCAST. */
			memcpy(a->broadcast, ip, alen);
			a->has_broadcast = 1;
		}
	}
#ifdef __linux__
	if (a->family == AF_INET) {
		/* glibc and musl name an IPv4 address by its label (IFA_LABEL). */
		strncpy(a->label, ifa->ifa_name, sizeof a->label - 1);
		/* Neither puts anything here when the kernel sent no IFA_ADDRESS: peer 0.0.0.0. */
		if (!other)
			a->has_peer = 1;
	}
#endif
	a->scope = netifc_addr_scope(a);
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
#elif defined(HAVE_GETIFMADDRS)
	struct ifmaddrs *all = NULL, *m;
	char name[IF_NAMESIZE];
	struct netifc_addr *a;
	int family, r = 0;

	c->step = "getifmaddrs";
	if (getifmaddrs(&all) < 0)
		return -errno;
	for (m = all; m && r == 0; m = m->ifma_next) {
		if (!m->ifma_name || !m->ifma_addr)
			continue;
		family = m->ifma_addr->sa_family;
		if (!(a = netifc_addrs_push(out)))
			r = -ENOMEM;
		else if (netifc_bsd_group(m->ifma_name, m->ifma_name->sa_len, m->ifma_addr,
					  m->ifma_addr->sa_len, family, a) <= 0 ||
			 (index && a->index != index))
			out->n--; /* a link-layer group, or another link's */
		else
			netifc_addr_finish(a, if_indextoname((unsigned)a->index, name));
	}
	freeifmaddrs(all);
	return r;
#else
	(void)index;
	(void)out;
	c->step = "multicast groups";     /* no getifmaddrs(): OpenBSD, NetBSD, DragonFly */
	return -EOPNOTSUPP;
#endif
}

/*
 * Groups come from /proc or getifmaddrs(), links from getifaddrs(): keep the
 * groups of a link of the table.
 */
static void keep_known(const struct netifc_links *links, struct netifc_addrs *t)
{
	size_t i, kept = 0, hint = 0;

	for (i = 0; i < t->n; i++)
		if (netifc_links_find(links, t->v[i].index, &hint))
			t->v[kept++] = t->v[i];
	t->n = kept;
}

static int gifa_addrs(struct netifc_call *c, enum netifc_kind kind, int32_t index, const char *name,
		      struct netifc_links *links, struct netifc_addrs *out)
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

/*
 * Counters: glibc gives each link's record the kernel's 32-bit struct
 * rtnl_link_stats in ifa_data (IFLA_STATS): its first 23 fields, which
 * every kernel sends, are read; they wrap at 2**32.  Other systems: none.
 */
#define GIFA_COUNTERS 23

static int gifa_counters(struct netifc_call *c, int32_t index, struct netifc_counters_table *out)
{
#ifdef __linux__
	struct ifaddrs *all = NULL;
	const struct ifaddrs *ifa;
	struct netifc_counters *k;
	struct netifc_link l;
	uint32_t v[GIFA_COUNTERS];
	size_t n = out->n, i;
	int r = 0;

	c->step = "getifaddrs";
	if (getifaddrs(&all) < 0)
		return -errno;
	for (ifa = all; ifa && r == 0; ifa = ifa->ifa_next) {
		if (!is_link(ifa) || !ifa->ifa_data || !wanted(ifa, index, NULL))
			continue;
		link_id(ifa, -1, &l);
		if (!(k = netifc_counters_push(out))) {
			r = -ENOMEM;
			break;
		}
		k->index = l.index;
		memcpy(k->name, l.name, sizeof k->name);
		memcpy(v, ifa->ifa_data, sizeof v);
		for (i = 0; i < GIFA_COUNTERS; i++)
			k->v[i] = v[i];
		k->known = GIFA_COUNTERS;
	}
	freeifaddrs(all);
	return r == 0 && index && out->n == n ? -ENODEV : r;
#else
	(void)index;
	(void)out;
	c->step = "getifaddrs counters";
	return -EOPNOTSUPP;
#endif
}

const struct netifc_backend netifc_backend_getifaddrs = {
	.name = "getifaddrs",
	.links = gifa_links,
	.link = gifa_link,
	.addrs = gifa_addrs,
	.counters = gifa_counters,
};
