/* addr.c -- rules every backend applies to the records it returns. */
#include <string.h>
#ifdef _WIN32
#include <winsock2.h>           /* AF_INET, AF_INET6 */
#else
#include <sys/socket.h>
#endif

#include "core/netifc.h"
#include "core/values.h"

size_t netifc_family_len(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

/* IPv6 addresses that only mean something on one link carry its name. */
int netifc_ip6_needs_zone(const uint8_t p[16])
{
	if (p[0] == 0xfe && (p[1] & 0xc0) == 0x80)
		return 1;                       /* fe80::/10 */
	return p[0] == 0xff && ((p[1] & 0x0f) == 1 || (p[1] & 0x0f) == 2);
}

/*
 * The scope Linux gives an address: ipv6_addr_scope()'s rules; IPv4 by 127/8
 * only.  A group's is the one the kernel's RTM_GETMULTICAST dump gives
 * (inet6_fill_ifmcaddr): site for a site-scoped IPv6 group (ffx5::), else
 * universe, the interface- and link-local groups too; IPv4 groups universe.
 */
uint8_t netifc_addr_scope(const struct netifc_addr *a)
{
	static const uint8_t v6_loopback[16] = { [15] = 1 };
	const uint8_t *p = a->local;

	if (a->family == AF_INET)
		return p[0] == 127 ? NETIFC_SCOPE_HOST : NETIFC_SCOPE_UNIVERSE;
	if (p[0] == 0xff)
		return (p[1] & 0x0f) == 5 ? NETIFC_SCOPE_SITE : NETIFC_SCOPE_UNIVERSE;
	if (!memcmp(p, v6_loopback, 16))
		return NETIFC_SCOPE_HOST;
	if (p[0] == 0xfe && (p[1] & 0xc0) == 0x80)
		return NETIFC_SCOPE_LINK;
	if (p[0] == 0xfe && (p[1] & 0xc0) == 0xc0)
		return NETIFC_SCOPE_SITE;
	return NETIFC_SCOPE_UNIVERSE;
}

int netifc_addr_needs_zone(const struct netifc_addr *a)
{
	return a->family == AF_INET6 && netifc_ip6_needs_zone(a->local);
}

/* Only IPv4 has labels; what follows a label's NUL is zero, as for the other fields. */
static void label_finish(struct netifc_addr *a)
{
	const char *end = memchr(a->label, 0, sizeof a->label - 1);
	size_t n = end ? (size_t)(end - a->label) : sizeof a->label - 1;

	if (a->family != AF_INET)
		n = 0;
	memset(a->label + n, 0, sizeof a->label - n);
}

void netifc_addr_finish(struct netifc_addr *a, const char *zone_name)
{
	/* A broadcast is kept at any length: /31 and /32 have one when it was given. */
	if (a->has_peer && !memcmp(a->peer, a->local, netifc_family_len(a->family)))
		a->has_peer = 0;
	/* What is not there is zero, so equal records compare equal byte for byte. */
	if (!a->has_broadcast)
		memset(a->broadcast, 0, sizeof a->broadcast);
	if (!a->has_peer)
		memset(a->peer, 0, sizeof a->peer);
	memset(a->zone, 0, sizeof a->zone);
	if (zone_name && netifc_addr_needs_zone(a))
		strncpy(a->zone, zone_name, sizeof a->zone - 1);
	label_finish(a);
}

/*
 * Addresses come grouped by link, in the order of the link dump, so the
 * search starts where the last one ended: linear overall, correct always.
 */
const struct netifc_link *netifc_links_find(const struct netifc_links *t, int32_t index,
					    size_t *hint)
{
	size_t i, k;

	for (k = 0; k < t->n; k++) {
		i = (*hint + k) % t->n;
		if (t->v[i].index == index) {
			*hint = i;
			return &t->v[i];
		}
	}
	return NULL;
}

/*
 * Any length fits (IPoIB has 20 bytes).  All zeros is no address, and the
 * IPv4/IPv6 endpoint an IP tunnel reports in its place is not one either.
 */
int netifc_hwaddr_set(struct netifc_link *l, const void *hw, size_t len)
{
	const uint8_t *p = hw;
	size_t i;

	l->hwaddr_len = 0;
	memset(l->hwaddr, 0, sizeof l->hwaddr);    /* no stale bytes from an earlier one */
	if (len > NETIFC_HWADDR_MAX)
		return -1;
	switch (l->type) {
	case NETIFC_ARPHRD_TUNNEL:
	case NETIFC_ARPHRD_SIT:
	case NETIFC_ARPHRD_IPGRE:
		if (len == 4)
			return 0;
		break;
	case NETIFC_ARPHRD_TUNNEL6:
	case NETIFC_ARPHRD_IP6GRE:
		if (len == 16)
			return 0;
		break;
	}
	for (i = 0; i < len && !p[i]; i++)
		;
	if (i == len)
		return 0;
	memcpy(l->hwaddr, p, len);
	l->hwaddr_len = (uint8_t)len;
	return 0;
}

/* The link-layer broadcast address, as the kernel gives it (zeros too). */
int netifc_brd_set(struct netifc_link *l, const void *hw, size_t len)
{
	l->brd_len = 0;
	memset(l->brd, 0, sizeof l->brd);
	if (len > NETIFC_HWADDR_MAX)
		return -1;
	memcpy(l->brd, hw, len);
	l->brd_len = (uint8_t)len;
	return 0;
}

const struct netifc_link *netifc_links_find_name(const struct netifc_links *t, const char *name,
						 size_t *hint)
{
	size_t i, k;

	for (k = 0; k < t->n; k++) {
		i = (*hint + k) % t->n;
		if (!strcmp(t->v[i].name, name)) {
			*hint = i;
			return &t->v[i];
		}
	}
	return NULL;
}
