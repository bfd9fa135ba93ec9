/*
 * posix/bsd.h -- what the BSD kernels (macOS, FreeBSD, OpenBSD, NetBSD,
 * DragonFly) put in getifaddrs() and getifmaddrs() records, read as plain
 * bytes with the layouts written out below, so this compiles and is tested
 * on any system (csrc/check/bsd_check.c feeds it recorded structures).
 * posix/getifaddrs.c calls it on those systems, where it also checks at compile time
 * that the layouts below are the platform's.
 *
 * Addresses are read with their own length (sa_len), never past it: the
 * kernel shortens a netmask to its last non-zero byte.  Families are the
 * caller's AF_INET and AF_INET6 (their values differ between systems).
 */
#ifndef NETIFC_BSDADDR_H
#define NETIFC_BSDADDR_H

#include <stddef.h>
#include <stdint.h>

#include "core/netifc.h"

#define NETIFC_AF_LINK 18       /* AF_LINK on every BSD */

/* struct sockaddr_dl (<net/if_dl.h>): the same on every BSD, only sdl_data's size differs. */
enum {
	SDL_LEN = 0,            /* u_char: the whole sockaddr's length */
	SDL_FAMILY = 1,         /* u_char: AF_LINK */
	SDL_INDEX = 2,          /* u_short, host order: the interface's index */
	SDL_TYPE = 4,           /* u_char: IFT_* */
	SDL_NLEN = 5,           /* u_char: the name's length, no NUL */
	SDL_ALEN = 6,           /* u_char: the link-layer address's length */
	SDL_SLEN = 7,           /* u_char: the selector's length */
	SDL_DATA = 8,           /* the name, then the address, then the selector */
};

/* struct sockaddr_in and sockaddr_in6: after sin_len and sin_family, as on Linux. */
enum { SIN_ADDR = 4, SIN6_ADDR = 8, SIN6_SCOPE_ID = 24 };

/* Where struct if_data (ifa_data of a link's record) keeps ifi_mtu, and how wide it is. */
enum netifc_bsd_os {
	NETIFC_MACOS,
	NETIFC_FREEBSD,
	NETIFC_OPENBSD,
	NETIFC_NETBSD,
	NETIFC_DRAGONFLY
};
#define NETIFC_IFDATA_MTU_OFF(os) ((os) == NETIFC_OPENBSD ? 4 : 8)
#define NETIFC_IFDATA_MTU_SIZE(os) \
	((os) == NETIFC_NETBSD ? 8 : (os) == NETIFC_DRAGONFLY ? sizeof(unsigned long) : 4)

/*
 * A link's index, type (IFT_* as ARPHRD_*) and hardware address from its
 * sockaddr_dl of len bytes (sdl_len bounds it too): 0, or -EINVAL when it
 * is no sockaddr_dl or its lengths overrun it.
 */
int netifc_bsd_link(const void *sdl, size_t len, struct netifc_link *l);

/* The ARPHRD_* type Linux gives such a link: 1 Ethernet, 772 loopback... 65534 none. */
uint16_t netifc_bsd_arphrd(uint8_t ift);

/* A BSD's IFF_* word (ifa_flags) as Linux's: the bits Linux also has, at its values. */
uint32_t netifc_bsd_flags(uint32_t bsd_flags);

/* ifi_mtu of a struct if_data laid out as on `os`. */
uint32_t netifc_bsd_mtu(const void *if_data, enum netifc_bsd_os os);

/*
 * KAME: a BSD kernel keeps the zone of a link-local or interface-local
 * IPv6 address in its bytes 2-3.  They are cleared; the zone (an interface
 * index) is returned, 0 if none was there.
 */
uint16_t netifc_kame_unembed(uint8_t addr[16]);

/*
 * The address of a sockaddr_in or _in6 of len bytes into out (4 or 16
 * bytes), its KAME zone cleared; its scope id (sin6_scope_id, else the
 * embedded zone) in *scope_id if not NULL.  0, or -EINVAL when too short.
 */
int netifc_bsd_ip(const void *sa, size_t len, int family, uint8_t *out, uint32_t *scope_id);

/* The prefix length of a netmask sockaddr of len bytes (what is past len is zero). */
int netifc_bsd_prefixlen(const void *mask, size_t len, int family);

/*
 * A multicast group from getifmaddrs(): ifma_name (the link's sockaddr_dl)
 * and ifma_addr (the group, of `family`).  1: *a is the group (its zone
 * still to be named); 0: not an IPv4 or IPv6 group; -EINVAL: broken.
 */
int netifc_bsd_group(const void *sdl, size_t sdl_len, const void *sa, size_t sa_len, int family,
		     struct netifc_addr *a);

#endif
