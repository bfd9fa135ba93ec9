"""netifaces 0.11's API, answered by netifc: ``import netifc.compat.netifaces
as netifaces`` and a program written for netifaces runs unchanged.

``interfaces()``, ``ifaddresses(name)`` and ``gateways()`` return what
netifaces 0.11 returns on Linux, value for value and in the same order: the
same dicts and keys (``addr``, ``netmask``, ``broadcast``, ``peer``), the
IPv6 netmask as ``ffff:ffff:ffff:ffff::/64``, link-local addresses and peers
with their zone (``fe80::1%eth0``), the link-layer address under ``AF_LINK``
(which is ``AF_PACKET`` on Linux), IPv4 addresses under a label (``ip addr
add ... label eth0:1``) as an interface of that name, listed under that label
only, and netifaces' quirks (an IPv4 address without a broadcast address
reports itself as its broadcast, or as its peer on a loopback or
point-to-point link, unless it was given ``peer 0.0.0.0``; the 169.254.0.0/16
addresses have neither).

Each answer is a presentation of netifc's records (``Addr.label`` says under
which name an IPv4 address is listed): ``ifaddresses(name)`` asks the kernel
for that one link and its addresses, where netifaces reads every interface
and address of the system (getifaddrs) on each call (on the netlink backend
both in one request loop, the dicts made in C from the core's records by
the rules this module states: ``_link_c``); a label that is no link's name
costs one address dump; ``interfaces()`` is a link dump and
an address dump; ``gateways()`` is one route dump.  Names that are not
valid UTF-8 come back surrogate-escaped, as netifc gives them, where
netifaces crashes.

Linux only: the labels and gateways are rtnetlink's (``NotImplementedError``
elsewhere, as ``netifc.routes()``).
"""

from __future__ import annotations

import socket
import struct
from typing import Dict, Iterable, List, Tuple, Union

import netifc
from netifc import _netifc

__all__ = ["address_families", "gateways", "ifaddresses", "interfaces", "version"]

version = "0.11.0"
"""The netifaces version whose answers this module gives."""

# ---- the AF_* constants and address_families, as netifaces 0.11 has them on Linux

# (netifaces' name, Linux value), in netifaces' order; address_families maps
# each value to the first name that has it (AF_UNIX and AF_ROUTE are second
# names: AF_FILE and AF_NETLINK keep the value).
_FAMILIES = (
    ("AF_UNSPEC", 0),
    ("AF_FILE", 1),
    ("AF_INET", 2),
    ("AF_AX25", 3),
    ("AF_SNA", 22),
    ("AF_DECnet", 12),
    ("AF_APPLETALK", 5),
    ("AF_NETLINK", 16),
    ("AF_PACKET", 17),
    ("AF_IPX", 4),
    ("AF_ISDN", 34),
    ("AF_INET6", 10),
    ("AF_NETBEUI", 13),
    ("AF_ATMPVC", 8),
    ("AF_ATMSVC", 20),
    ("AF_IRDA", 23),
    ("AF_NETROM", 6),
    ("AF_BRIDGE", 7),
    ("AF_X25", 9),
    ("AF_ROSE", 11),
    ("AF_SECURITY", 14),
    ("AF_KEY", 15),
    ("AF_ASH", 18),
    ("AF_ECONET", 19),
    ("AF_PPPOX", 24),
    ("AF_WANPIPE", 25),
    ("AF_BLUETOOTH", 31),
)

address_families: Dict[int, str] = {value: name for name, value in _FAMILIES}
"""{family number: its name}, as netifaces 0.11 has it on Linux."""

AF_UNSPEC = 0
AF_FILE = 1
AF_UNIX = 1
AF_INET = 2
AF_AX25 = 3
AF_IPX = 4
AF_APPLETALK = 5
AF_NETROM = 6
AF_BRIDGE = 7
AF_ATMPVC = 8
AF_X25 = 9
AF_INET6 = 10
AF_ROSE = 11
AF_DECnet = 12
AF_NETBEUI = 13
AF_SECURITY = 14
AF_KEY = 15
AF_NETLINK = 16
AF_ROUTE = 16
AF_PACKET = 17
AF_LINK = 17
"""The family of link-layer (MAC) addresses: AF_PACKET on Linux, as in netifaces."""
AF_ASH = 18
AF_ECONET = 19
AF_ATMSVC = 20
AF_SNA = 22
AF_IRDA = 23
AF_PPPOX = 24
AF_WANPIPE = 25
AF_BLUETOOTH = 31
AF_ISDN = 34

# ---- the strings netifaces makes -------------------------------------------------

_IFF_LOOPBACK = 0x8
_IFF_POINTOPOINT = 0x10
_RT_TABLE_MAIN = 254


def _netmask4(prefixlen: int) -> str:
    return socket.inet_ntoa(struct.pack("!I", (0xFFFFFFFF << (32 - prefixlen)) & 0xFFFFFFFF))


def _netmask6(prefixlen: int) -> str:
    """netifaces' own form of an IPv6 netmask: the mask's bytes in hex, two to
    a group, up to the last group with a set bit, then "::" (unless all 16
    bytes are written) and the prefix length: ``ffff:ffff:ffff:ffff::/64``."""
    mask = ((1 << 128) - 1) ^ ((1 << (128 - prefixlen)) - 1)
    packed = mask.to_bytes(16, "big")
    n = 2 * ((prefixlen + 15) // 16)
    groups = [packed[i : i + 2].hex() for i in range(0, n, 2)]
    return ":".join(groups) + ("::" if n < 16 else "") + f"/{prefixlen}"


_MASKS4 = tuple(_netmask4(p) for p in range(33))
_MASKS6 = tuple(_netmask6(p) for p in range(129))


# ---- one link's entries --------------------------------------------------------------


def _link_entry(iface: netifc.Interface, key: str) -> Dict[str, str] | None:
    """The AF_LINK dict of a link: its link-layer address and broadcast address.

    The kernel sends both or neither (a link without one: tun, wireguard);
    netifc reads an all-zero address (loopback's) as none, so its length is
    the broadcast address's."""
    brd = iface.hardware_broadcast
    if not brd:
        return None
    hw = iface.hardware_addr or bytes(len(brd))
    return {"addr": hw.hex(":"), key: brd.hex(":")}


def _zoned6(text: str, zone: str) -> str:
    """An IPv6 peer as glibc's getnameinfo writes it: with the link's name for
    a link-local unicast (fe80::/10) or link-local multicast (ffx2::) one."""
    first = text.split(":", 1)[0]
    if len(first) == 4 and (
        first[:3] in ("fe8", "fe9", "fea", "feb") or first[:2] + first[3] == "ff2"
    ):
        return f"{text}%{zone}"
    return text


def _entries(
    addrs: Iterable[netifc.Addr], key: str, label: str, link: str | None
) -> Tuple[List[Dict[str, str]], List[Dict[str, str]]]:
    """The IPv4 addresses under one label and, given the link's name, the
    link's IPv6 addresses, as netifaces gives them.

    IPv4 as glibc's getifaddrs gives it: the broadcast address, else the
    kernel's IFA_ADDRESS -- the peer, or the address itself, none for ``peer
    0.0.0.0``; netifaces drops it for 169.254.0.0/16.  An IPv4 address the
    kernel sent no label is under its link's name.  IPv6: the zone of a
    link-local address or peer.  (The label, then the address text, tell
    the family: they cost less to ask than ``Addr.family``.)"""
    masks4, masks6 = _MASKS4, _MASKS6
    v4: List[Dict[str, str]] = []
    v6: List[Dict[str, str]] = []
    for a in addrs:
        own = a.label  # IPv4 only: one under another label is skipped unread
        if own != label and (own or label != link):
            continue
        text = a.address
        if not own and ":" in text:
            if link is None:
                continue
            zone = a.zone
            entry = {"addr": text + "%" + zone if zone else text, "netmask": masks6[a.prefixlen]}
            peer = a.peer
            if peer is not None:
                entry[key] = _zoned6(peer, link)
            v6.append(entry)
            continue
        entry = {"addr": text, "netmask": masks4[a.prefixlen]}
        if not text.startswith("169.254."):
            other = a.broadcast or a.peer or text
            if other != "0.0.0.0":
                entry[key] = other
        v4.append(entry)
    return v4, v6


def _key(iface: netifc.Interface) -> str:
    return "peer" if iface.raw_flags & (_IFF_LOOPBACK | _IFF_POINTOPOINT) else "broadcast"


def _lookup(name: str) -> netifc.Interface | None:
    try:
        return netifc.interface_by_name(name)
    except (netifc.NoSuchInterface, ValueError):
        return None


def _labelled_addrs() -> List[netifc.Addr]:
    """Every address with a label (IPv4), in the kernel's order (one address dump)."""
    return [a for a in netifc.interface_addrs() if a.label]


# ---- the API ----------------------------------------------------------------------


def interfaces() -> List[str]:
    """Obtain a list of the interfaces available on this machine.

    Every link's name, in the kernel's order, then each IPv4 label that is
    not a link's name (``eth0:1``), in the order of the kernel's list of
    addresses (by link, as the links), as netifaces lists them.
    """
    links = netifc.interfaces()
    names = [i.name for i in links]
    position = {i.index: n for n, i in enumerate(links)}
    seen = set(names)
    extra: List[Tuple[int, str]] = []
    for a in _labelled_addrs():
        label = a.label
        if label not in seen and a.index in position:
            seen.add(label)
            extra.append((position[a.index], label))
    extra.sort(key=_first)  # stable: a link's labels keep their order
    return names + [label for _, label in extra]


def _first(item: Tuple[int, str]) -> int:
    return item[0]


def ifaddresses(ifname: str) -> Dict[int, List[Dict[str, str]]]:
    """Obtain information about the specified network interface.

    Returns a dict whose keys are equal to the address family constants,
    e.g. netifaces.AF_INET, and whose values are a list of addresses in
    that family that are attached to the network interface.

    A link's name: one link lookup and one request for that link's
    addresses, its IPv4 addresses those whose label is its name.  Another
    name: the IPv4 addresses of that label (one address dump).  Raises
    ValueError ("You must specify a valid interface name.") for a name that
    is neither a link nor an IPv4 label, TypeError unless ifname is a str.
    """
    if not isinstance(ifname, str):
        what = "None" if ifname is None else type(ifname).__name__
        raise TypeError(f"argument 1 must be str, not {what}")
    if "\0" in ifname:
        raise ValueError("embedded null character")
    found = None
    if ifname:
        found = _link_c(ifname) if _netifc._backend() == "netlink" else _link(ifname)
    return _labelled(ifname) if found is None else found


def _link(ifname: str) -> Dict[int, List[Dict[str, str]]] | None:
    """The answer for a link's name (None when no link has it): its AF_LINK
    entry, its IPv4 addresses whose label is its name, its IPv6 addresses."""
    iface = _lookup(ifname)
    if iface is None:
        return None
    try:
        addrs = iface.addrs()
    except netifc.NoSuchInterface:  # gone since it was looked up
        raise ValueError("You must specify a valid interface name.") from None
    result: Dict[int, List[Dict[str, str]]] = {}
    key = _key(iface)
    link = _link_entry(iface, key)
    if link is not None:
        result[AF_LINK] = [link]
    v4, v6 = _entries(addrs, key, ifname, ifname)
    if v4:
        result[AF_INET] = v4
    if v6:
        result[AF_INET6] = v6
    return result


def _link_c(ifname: str) -> Dict[int, List[Dict[str, str]]] | None:
    """_link's answer on the netlink backend, from the C binding: the link
    and its addresses in one request loop, its records made into _link's
    dicts by the rules of _key, _link_entry and _entries, with no Addr made
    (the tests hold both to netifaces)."""
    try:
        return _netifc._netifaces_ifaddresses(ifname, _MASKS4, _MASKS6)
    except netifc.NoSuchInterface:  # gone while it was asked about
        raise ValueError("You must specify a valid interface name.") from None


def _labelled(label: str) -> Dict[int, List[Dict[str, str]]]:
    """The IPv4 addresses under a label that is no link's name (``eth0:1``),
    in the kernel's order, each presented as on the link it is on."""
    found: List[Dict[str, str]] = []
    if label and len(_encoded(label)) < 16:
        links: Dict[int, netifc.Interface | None] = {}
        for a in _labelled_addrs():
            if a.label != label:
                continue
            if a.index not in links:
                try:
                    links[a.index] = netifc.interface_by_index(a.index)
                except netifc.NoSuchInterface:  # gone since the dump
                    links[a.index] = None
            iface = links[a.index]
            if iface is not None:
                found.extend(_entries((a,), _key(iface), label, None)[0])
    if not found:
        raise ValueError("You must specify a valid interface name.")
    return {AF_INET: found}


def _encoded(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


_Gateways = Dict[Union[int, str], Union[Dict[int, Tuple[str, str]], List[Tuple[str, str, bool]]]]


def gateways() -> _Gateways:
    """Obtain a list of the gateways on this machine.

    Returns a dict whose keys are equal to the address family constants,
    e.g. netifaces.AF_INET, and whose values are a list of tuples of the
    format (<address>, <interface>, <is_default>).

    There is also a special entry with the key 'default', which you can use
    to quickly obtain the default gateway for a particular address family.

    As netifaces on Linux: the routes to 0.0.0.0 or :: (any prefix length)
    of every table that have a gateway of their own family and an output
    interface (a multipath route has neither), in the kernel's order; a
    route is the default when it is in the main table and its metric is
    lower than that of every such route before it (of any table).
    """
    result: _Gateways = {}
    defaults: Dict[int, Tuple[str, str]] = {}
    result["default"] = defaults
    lists: Dict[int, List[Tuple[str, str, bool]]] = {}
    best: Dict[int, int] = {}
    for r in netifc.routes(None, "all"):
        gw = r.gateway
        if gw is None or r.index <= 0 or r.network.network_address.packed.strip(b"\0"):
            continue
        family = int(r.family)
        if (":" in gw) != (family == socket.AF_INET6):
            continue  # a gateway of the other family (RTA_VIA): not netifaces'
        try:
            name = socket.if_indextoname(r.index)
        except OSError:  # the link went away
            continue
        priority = r.metric if r.metric < 0x80000000 else 0  # a C int, negative read as 0
        is_default = r.table == _RT_TABLE_MAIN
        if family not in best or priority < best[family]:
            best[family] = priority
        else:
            is_default = False
        if family not in lists:
            lists[family] = result[family] = []
        lists[family].append((gw, name, is_default))
        if is_default:
            defaults[family] = (gw, name)
    return result
