/*
 * windows/iphlpapi.c -- the Windows backend on the IP Helper API.  A listing is one
 * GetAdaptersAddresses() call, which skips what the call does not need; a
 * lookup turns the index or the name into the interface's LUID and asks
 * GetIfEntry2() for that one interface.
 *
 * The records keep the core's meaning, so the extension presents them as it
 * does on Linux: flags are the Linux IFF_* bits and type an ARPHRD_* value,
 * derived from OperStatus and IfType as Go's net package derives its flags;
 * operstate is RFC 2863's, as on Linux.  The name is the FriendlyName (the
 * alias users see) in UTF-8.  An MTU of 0xffffffff (unknown) is 0.  IPv4
 * addresses have no broadcast or peer (Windows reports neither).  The
 * adapter GUID, description and LUID are not kept: the portable record has
 * no field for them.
 *
 * A Windows error becomes a negative errno (fail() tells which) and is kept
 * in c->winerror.
 *
 * Elsewhere the file is empty of code (setup.py leaves it out; a build of
 * every C file of csrc still compiles it).
 */
#ifndef _WIN32
extern const int netifc_win_absent;     /* ISO C wants a declaration at least */
#else
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0600     /* GetIfEntry2 and the LUID calls: Vista */
#endif
#include <winsock2.h>
#include <ws2tcpip.h>
#include <iphlpapi.h>
#include <netioapi.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/netifc.h"
#include "core/values.h"

#ifndef GAA_FIRST_SIZE          /* (the tests build it small, to grow at once) */
#define GAA_FIRST_SIZE 15000    /* Microsoft's advice: most hosts need no second call */
#endif

/*
 * ERROR_NOT_ENOUGH_MEMORY/OUTOFMEMORY -> ENOMEM, ERROR_FILE_NOT_FOUND/
 * NOT_FOUND -> ENODEV, ERROR_INVALID_PARAMETER -> EINVAL, ERROR_ACCESS_DENIED
 * -> EACCES, ERROR_NOT_SUPPORTED -> EOPNOTSUPP, ERROR_BUFFER_OVERFLOW (every
 * try) -> EBUSY, any other -> EIO.
 */
static int fail(struct netifc_call *c, const char *step, DWORD err)
{
	c->step = step;
	c->winerror = err;
	switch (err) {
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return -ENOMEM;
	case ERROR_FILE_NOT_FOUND:
	case ERROR_NOT_FOUND:
		return -ENODEV;
	case ERROR_INVALID_PARAMETER:
		return -EINVAL;
	case ERROR_ACCESS_DENIED:
		return -EACCES;
	case ERROR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case ERROR_BUFFER_OVERFLOW:
		return -EBUSY;
	default:
		return -EIO;
	}
}

/*
 * One GetAdaptersAddresses() result in *out (to be freed), grown and asked
 * again while the adapters outgrow the buffer.  No adapter is an empty list.
 */
static int adapters(struct netifc_call *c, ULONG flags, IP_ADAPTER_ADDRESSES **out)
{
	ULONG size = GAA_FIRST_SIZE, err = ERROR_BUFFER_OVERFLOW;
	IP_ADAPTER_ADDRESSES *buf = NULL;
	int tries;

	*out = NULL;
	for (tries = 0; tries < NETIFC_TRIES && err == ERROR_BUFFER_OVERFLOW; tries++) {
		free(buf);
		if (!(buf = malloc(size)))
			return fail(c, "GetAdaptersAddresses", ERROR_NOT_ENOUGH_MEMORY);
		err = GetAdaptersAddresses(AF_UNSPEC, flags, NULL, buf, &size);
		if (err == ERROR_BUFFER_OVERFLOW)
			c->outgrown++;
	}
	if (err == NO_ERROR) {
		*out = buf;
		return 0;
	}
	free(buf);
	return err == ERROR_NO_DATA ? 0 : fail(c, "GetAdaptersAddresses", err);
}

/* A UTF-16 name in UTF-8, cut at a character to fit NETIFC_NAMESIZ. */
static void name_from(const WCHAR *w, char *name)
{
	char buf[IF_MAX_STRING_SIZE * 3 + 1];
	int n;

	memset(name, 0, NETIFC_NAMESIZ);
	if (!w ||
	    (n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, (int)sizeof buf, NULL, NULL)) <= 0)
		return;
	n = (int)strlen(buf);
	if (n >= NETIFC_NAMESIZ)
		for (n = NETIFC_NAMESIZ - 1; n > 0 && ((unsigned char)buf[n] & 0xc0) == 0x80; n--)
			;
	memcpy(name, buf, (size_t)n);
}

/* Go's rules: OperStatus tells up and running, IfType the rest. */
static uint32_t flags_of(IF_OPER_STATUS oper, ULONG iftype)
{
	uint32_t f = oper == IfOperStatusUp ? NETIFC_IFF_UP | NETIFC_IFF_RUNNING : 0;

	switch (iftype) {
	case IF_TYPE_ETHERNET_CSMACD:
	case IF_TYPE_ISO88025_TOKENRING:
	case IF_TYPE_IEEE80211:
	case IF_TYPE_IEEE1394:
		return f | NETIFC_IFF_BROADCAST | NETIFC_IFF_MULTICAST;
	case IF_TYPE_PPP:
	case IF_TYPE_TUNNEL:
		return f | NETIFC_IFF_POINTOPOINT | NETIFC_IFF_MULTICAST;
	case IF_TYPE_SOFTWARE_LOOPBACK:
		return f | NETIFC_IFF_LOOPBACK | NETIFC_IFF_MULTICAST;
	case IF_TYPE_ATM:
		return f | NETIFC_IFF_BROADCAST | NETIFC_IFF_POINTOPOINT | NETIFC_IFF_MULTICAST;
	default:
		return f;
	}
}

static uint16_t type_of(ULONG iftype)
{
	switch (iftype) {
	case IF_TYPE_ETHERNET_CSMACD:
	case IF_TYPE_IEEE80211:
		return NETIFC_ARPHRD_ETHER;          /* Linux calls Wi-Fi Ethernet too */
	case IF_TYPE_ISO88025_TOKENRING:
		return NETIFC_ARPHRD_IEEE802;
	case IF_TYPE_IEEE1394:
		return NETIFC_ARPHRD_IEEE1394;
	case IF_TYPE_ATM:
		return NETIFC_ARPHRD_ATM;
	case IF_TYPE_PPP:
		return NETIFC_ARPHRD_PPP;
	case IF_TYPE_SOFTWARE_LOOPBACK:
		return NETIFC_ARPHRD_LOOPBACK;
	case IF_TYPE_TUNNEL:
		return NETIFC_ARPHRD_NONE;
	default:
		return NETIFC_ARPHRD_VOID;
	}
}

/* IF_OPER_STATUS (1 up .. 7 lower layer down) as RFC 2863's IF_OPER_* of Linux. */
static uint8_t operstate_of(IF_OPER_STATUS oper)
{
	static const uint8_t rfc[] = {
		[IfOperStatusUp] = NETIFC_OPER_UP,
		[IfOperStatusDown] = NETIFC_OPER_DOWN,
		[IfOperStatusTesting] = NETIFC_OPER_TESTING,
		[IfOperStatusUnknown] = NETIFC_OPER_UNKNOWN,
		[IfOperStatusDormant] = NETIFC_OPER_DORMANT,
		[IfOperStatusNotPresent] = NETIFC_OPER_NOTPRESENT,
		[IfOperStatusLowerLayerDown] = NETIFC_OPER_LOWERLAYERDOWN,
	};

	return (unsigned)oper < sizeof rfc ? rfc[oper] : 0;
}

static void link_set(struct netifc_link *l, NET_IFINDEX index, const WCHAR *name, ULONG mtu,
		     IF_OPER_STATUS oper, ULONG iftype, const UCHAR *hw, ULONG hwlen)
{
	l->index = (int32_t)index;
	name_from(name, l->name);
	l->mtu = mtu == 0xffffffffu ? 0 : (uint32_t)mtu;
	l->flags = flags_of(oper, iftype);
	l->type = type_of(iftype);
	l->operstate = operstate_of(oper);
	netifc_hwaddr_set(l, hw, hwlen);
}

/* Go's rule: IfIndex, or Ipv6IfIndex for an adapter without IPv4. */
static int32_t index_of(const IP_ADAPTER_ADDRESSES *aa)
{
	return (int32_t)(aa->IfIndex ? aa->IfIndex : aa->Ipv6IfIndex);
}

static int links_of(const IP_ADAPTER_ADDRESSES *all, struct netifc_links *out)
{
	const IP_ADAPTER_ADDRESSES *aa;
	struct netifc_link *l;

	for (aa = all; aa; aa = aa->Next) {
		if (!(l = netifc_links_push(out)))
			return -ENOMEM;
		link_set(l, (NET_IFINDEX)index_of(aa), aa->FriendlyName, aa->Mtu, aa->OperStatus,
			 aa->IfType, aa->PhysicalAddress, aa->PhysicalAddressLength);
	}
	return 0;
}

#define SKIP_ADDRS \
	(GAA_FLAG_SKIP_UNICAST | GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_MULTICAST | \
	 GAA_FLAG_SKIP_DNS_SERVER)

static int win_links(struct netifc_call *c, struct netifc_links *out)
{
	IP_ADAPTER_ADDRESSES *all;
	int r;

	if ((r = adapters(c, SKIP_ADDRS, &all)) < 0)
		return r;
	r = links_of(all, out);
	free(all);
	return r;
}

/* The LUID of the interface with `index` or, when name is not NULL, named `name`. */
static int luid_of(struct netifc_call *c, int32_t index, const char *name, NET_LUID *luid)
{
	WCHAR w[IF_MAX_STRING_SIZE + 1];
	DWORD err;

	if (!name) {
		if (index <= 0)
			return -ENODEV;
		err = ConvertInterfaceIndexToLuid((NET_IFINDEX)index, luid);
		return err ? fail(c, "ConvertInterfaceIndexToLuid", err) : 0;
	}
	/* A name that is not UTF-8 or too long names no interface. */
	if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, w, IF_MAX_STRING_SIZE + 1))
		return -ENODEV;
	err = ConvertInterfaceAliasToLuid(w, luid);
	/* Its only argument that can be wrong is a name no interface has. */
	if (err == ERROR_INVALID_PARAMETER)
		err = ERROR_NOT_FOUND;
	return err ? fail(c, "ConvertInterfaceAliasToLuid", err) : 0;
}

static int win_link(struct netifc_call *c, int32_t index, const char *name, struct netifc_links *out)
{
	struct netifc_link *l;
	MIB_IF_ROW2 row;
	DWORD err;
	int r;

	memset(&row, 0, sizeof row);
	if ((r = luid_of(c, index, name, &row.InterfaceLuid)) < 0)
		return r;
	if ((err = GetIfEntry2(&row)) != NO_ERROR)
		return fail(c, "GetIfEntry2", err);
	if (!(l = netifc_links_push(out)))
		return -ENOMEM;
	link_set(l, row.InterfaceIndex, row.Alias, row.Mtu, row.OperStatus, row.Type,
		 row.PhysicalAddress, row.PhysicalAddressLength);
	return 0;
}

static uint32_t dad_flags(const IP_ADAPTER_UNICAST_ADDRESS *u)
{
	uint32_t f = u->ValidLifetime == 0xffffffffu ? NETIFC_IFA_F_PERMANENT : 0;

	switch (u->DadState) {
	case IpDadStateTentative:
		return f | NETIFC_IFA_F_TENTATIVE;
	case IpDadStateDuplicate:
		return f | NETIFC_IFA_F_DADFAILED;
	case IpDadStateDeprecated:
		return f | NETIFC_IFA_F_DEPRECATED;
	default:
		return f;
	}
}

/*
 * The address in *sa into a, on link l; returns the link its zone is named
 * after (the one its scope id names, else l), or NULL for a family other
 * than IPv4 and IPv6.
 */
static const struct netifc_link *addr_set(struct netifc_addr *a, const SOCKET_ADDRESS *sa,
					  const struct netifc_link *l, const struct netifc_links *t)
{
	const struct sockaddr *s = sa->lpSockaddr;
	const struct netifc_link *zl = l;
	size_t hint = 0;

	a->index = l->index;
	if (s && s->sa_family == AF_INET && sa->iSockaddrLength >= (int)sizeof(struct sockaddr_in)) {
		a->family = AF_INET;
		memcpy(a->local, &((const struct sockaddr_in *)s)->sin_addr, 4);
	} else if (s && s->sa_family == AF_INET6 &&
		   sa->iSockaddrLength >= (int)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)s;

		a->family = AF_INET6;
		memcpy(a->local, &s6->sin6_addr, 16);
		if (s6->sin6_scope_id &&
		    !(zl = netifc_links_find(t, (int32_t)s6->sin6_scope_id, &hint)))
			zl = l;
	} else {
		return NULL;
	}
	a->scope = netifc_addr_scope(a);
	return zl;
}

/* What a unicast address tells beyond a group: its prefix, DAD state and lifetimes. */
static void unicast_set(struct netifc_addr *a, const IP_ADAPTER_UNICAST_ADDRESS *u)
{
	size_t max = netifc_family_len(a->family) * 8;

	a->prefixlen = (uint8_t)(u->OnLinkPrefixLength > max ? max : u->OnLinkPrefixLength);
	a->flags = dad_flags(u);
	a->valid = u->ValidLifetime;
	a->preferred = u->PreferredLifetime;
	a->has_lifetimes = 1;
}

/*
 * Adapter aa's addresses of one kind, on its link l: its unicast list, or
 * its multicast one (a group has the whole prefix and lives forever).
 */
static int addrs_of(const IP_ADAPTER_ADDRESSES *aa, enum netifc_kind kind,
		    const struct netifc_link *l, const struct netifc_links *t,
		    struct netifc_addrs *out)
{
	const IP_ADAPTER_UNICAST_ADDRESS *u =
		kind == NETIFC_UNICAST ? aa->FirstUnicastAddress : NULL;
	const IP_ADAPTER_MULTICAST_ADDRESS *m =
		kind == NETIFC_UNICAST ? NULL : aa->FirstMulticastAddress;
	const struct netifc_link *zl;
	struct netifc_addr *a;

	for (; u || m; u = u ? u->Next : NULL, m = m ? m->Next : NULL) {
		if (!(a = netifc_addrs_push(out)))
			return -ENOMEM;
		if (!(zl = addr_set(a, u ? &u->Address : &m->Address, l, t))) {
			out->n--;
			continue;
		}
		if (u) {
			unicast_set(a, u);
		} else {
			a->prefixlen = (uint8_t)(netifc_family_len(a->family) * 8);
			a->preferred = a->valid = NETIFC_FOREVER;
		}
		netifc_addr_finish(a, zl->name);
	}
	return 0;
}

/*
 * One kind of address of every adapter, or of the one with `index`, from
 * one GetAdaptersAddresses() call; for a snapshot, the links from it too.
 * The links of the result name the zones.
 */
static int win_addrs(struct netifc_call *c, enum netifc_kind kind, int32_t index, const char *name,
		     struct netifc_links *links, struct netifc_addrs *out)
{
	ULONG flags = GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_DNS_SERVER |
		      (kind == NETIFC_UNICAST ? GAA_FLAG_SKIP_MULTICAST : GAA_FLAG_SKIP_UNICAST);
	struct netifc_links own = { 0 }, *t = links && !index ? links : &own;
	const IP_ADAPTER_ADDRESSES *aa;
	IP_ADAPTER_ADDRESSES *all;
	size_t first = t->n, i;
	int r;

	(void)name;
	if ((r = adapters(c, flags, &all)) < 0)
		return r;
	r = links_of(all, t);
	for (aa = all, i = first; aa && r == 0; aa = aa->Next, i++) {
		if (index && t->v[i].index != index)
			continue;
		r = addrs_of(aa, kind, &t->v[i], t, out);
	}
	free(all);
	netifc_links_free(&own);
	return r;
}

const struct netifc_backend netifc_backend_windows = {
	.name = "windows",
	.links = win_links,
	.link = win_link,
	.addrs = win_addrs,
};
#endif
