/* posix/bsd.c -- the BSD kernels' link and address records, read as plain bytes (see posix/bsd.h). */
#include <errno.h>
#include <string.h>

#include "core/values.h"
#include "posix/bsd.h"

/* What a sockaddr of len readable bytes claims for itself (sa_len, byte 0) bounds it too. */
static size_t own_len(const uint8_t *p, size_t len)
{
	return len > 0 && p[0] < len ? p[0] : len;
}

int netifc_bsd_link(const void *sdl, size_t len, struct netifc_link *l)
{
	const uint8_t *p = sdl;
	uint16_t index;
	size_t nlen, alen;

	len = own_len(p, len);
	if (len < SDL_DATA || p[SDL_FAMILY] != NETIFC_AF_LINK)
		return -EINVAL;
	nlen = p[SDL_NLEN];
	alen = p[SDL_ALEN];
	if (SDL_DATA + nlen + alen > len)
		return -EINVAL;
	memcpy(&index, p + SDL_INDEX, sizeof index);
	l->index = index;
	l->type = netifc_bsd_arphrd(p[SDL_TYPE]);
	/* After the type: an address of over NETIFC_HWADDR_MAX bytes is kept as none. */
	netifc_hwaddr_set(l, p + SDL_DATA + nlen, alen);
	return 0;
}

/* IFT_* (<net/if_types.h>, IANA's ifType numbers) to what Linux calls the same link. */
uint16_t netifc_bsd_arphrd(uint8_t ift)
{
	switch (ift) {
	case 0x06: /* IFT_ETHER */
	case 0x47: /* IFT_IEEE80211 */
	case 0x87: /* IFT_L2VLAN */
	case 0xd1: /* IFT_BRIDGE */
		return NETIFC_ARPHRD_ETHER;
	case 0x18: /* IFT_LOOP */
		return NETIFC_ARPHRD_LOOPBACK;
	case 0x17: /* IFT_PPP */
		return NETIFC_ARPHRD_PPP;
	case 0xc7: /* IFT_INFINIBAND */
		return NETIFC_ARPHRD_INFINIBAND;
	default:
		return NETIFC_ARPHRD_NONE;
	}
}

/*
 * The bits below 0x400 other than 0x20 are Linux's on every BSD; IFF_MULTICAST
 * is 0x8000 there.  The rest (0x20 SMART, NEEDSEPOCH or STATICARP, OACTIVE,
 * SIMPLEX, LINK0-2, FreeBSD's high bits) mean nothing Linux has.
 */
uint32_t netifc_bsd_flags(uint32_t f)
{
	const uint32_t same = NETIFC_IFF_UP | NETIFC_IFF_BROADCAST | NETIFC_IFF_DEBUG |
			      NETIFC_IFF_LOOPBACK | NETIFC_IFF_POINTOPOINT | NETIFC_IFF_RUNNING |
			      NETIFC_IFF_NOARP | NETIFC_IFF_PROMISC | NETIFC_IFF_ALLMULTI;

	return (f & same) | (f & 0x8000 ? NETIFC_IFF_MULTICAST : 0);
}

uint32_t netifc_bsd_mtu(const void *if_data, enum netifc_bsd_os os)
{
	const uint8_t *p = (const uint8_t *)if_data + NETIFC_IFDATA_MTU_OFF(os);
	uint64_t wide;
	uint32_t mtu;

	if (NETIFC_IFDATA_MTU_SIZE(os) == 8) {
		memcpy(&wide, p, sizeof wide);
		return wide > UINT32_MAX ? UINT32_MAX : (uint32_t)wide;
	}
	memcpy(&mtu, p, sizeof mtu);
	return mtu;
}

uint16_t netifc_kame_unembed(uint8_t addr[16])
{
	uint16_t zone;

	if (!netifc_ip6_needs_zone(addr))
		return 0;
	zone = (uint16_t)(addr[2] << 8 | addr[3]);
	addr[2] = addr[3] = 0;
	return zone;
}

int netifc_bsd_ip(const void *sa, size_t len, int family, uint8_t *out, uint32_t *scope_id)
{
	const uint8_t *p = sa;
	size_t alen = netifc_family_len(family), off = alen == 16 ? SIN6_ADDR : SIN_ADDR;
	uint32_t scope = 0;
	uint16_t zone;

	len = own_len(p, len);
	if (!alen || len < off + alen)
		return -EINVAL;
	memcpy(out, p + off, alen);
	if (alen == 16) {
		if (len >= SIN6_SCOPE_ID + sizeof scope)
			memcpy(&scope, p + SIN6_SCOPE_ID, sizeof scope);
		zone = netifc_kame_unembed(out);
		if (!scope)
			scope = zone;
	}
	if (scope_id)
		*scope_id = scope;
	return 0;
}

int netifc_bsd_prefixlen(const void *mask, size_t len, int family)
{
	const uint8_t *p = mask;
	size_t alen = netifc_family_len(family), off = alen == 16 ? SIN6_ADDR : SIN_ADDR, i;
	int bits = 0;

	len = own_len(p, len);
	for (i = 0; i < alen && off + i < len && p[off + i] == 0xff; i++)
		bits += 8;
	if (i < alen && off + i < len)
		for (uint8_t b = p[off + i]; b & 0x80; b = (uint8_t)(b << 1))
			bits++;
	return bits;
}

int netifc_bsd_group(const void *sdl, size_t sdl_len, const void *sa, size_t sa_len, int family,
		     struct netifc_addr *a)
{
	size_t alen = netifc_family_len(family);
	struct netifc_link l;
	uint32_t scope;

	memset(a, 0, sizeof *a);
	memset(&l, 0, sizeof l);
	if (!alen)
		return 0;
	if (netifc_bsd_link(sdl, sdl_len, &l) < 0 ||
	    netifc_bsd_ip(sa, sa_len, family, a->local, &scope) < 0)
		return -EINVAL;
	a->family = (uint8_t)family;
	a->index = l.index ? l.index : (int32_t)scope;
	a->prefixlen = (uint8_t)(alen * 8);
	a->preferred = a->valid = NETIFC_FOREVER; /* as /proc's groups: has_lifetimes 0 */
	a->scope = netifc_addr_scope(a); /* as Linux's group dump says */
	return 1;
}
