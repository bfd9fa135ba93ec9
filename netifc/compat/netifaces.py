"""netifaces 0.11's API, answered by netifc: ``import netifc.compat.netifaces
as netifaces`` and a program written for netifaces runs unchanged.

``interfaces()``, ``ifaddresses(name)`` and ``gateways()`` return what
netifaces 0.11 returns on Linux, value for value and in the same order: the
same dicts and keys (``addr``, ``netmask``, ``broadcast``, ``peer``), the
IPv6 netmask as ``ffff:ffff:ffff:ffff::/64``, link-local addresses with their
zone (``fe80::1%eth0``), the link-layer address under ``AF_LINK`` (which is
``AF_PACKET`` on Linux), IPv4 addresses under a label (``ip addr add ...
label eth0:1``) as an interface of that name (a label is read where the
kernel's ioctls read it: on the link named before its ':'), and netifaces'
quirks (an IPv4 address without a broadcast address reports itself as its
broadcast, or as its peer on a loopback or point-to-point link; the
169.254.0.0/16 addresses have neither).

What differs is the cost: ``ifaddresses(name)`` asks the kernel for that one
link and its addresses, where netifaces reads every interface and address
of the system (getifaddrs) on each call, and ``gateways()`` is one route
dump read by netifc's C core.  Names that are not valid UTF-8 come back
surrogate-escaped, as netifc gives them, where netifaces crashes.

Linux only: the label checks are IPv4 ioctls and the gateways come from
rtnetlink (``NotImplementedError`` elsewhere, as ``netifc.routes()``).
"""

from __future__ import annotations

import array
import fcntl
import socket
import struct
import sys
from typing import Dict, List, Tuple, Union

import netifc

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


_AF_INET = int(socket.AF_INET)
_NETMASK = {
    _AF_INET: tuple(_netmask4(p) for p in range(33)),
    int(socket.AF_INET6): tuple(_netmask6(p) for p in range(129)),
}


def _mac(data: bytes) -> str:
    return data.hex(":")


# ---- IPv4 labels ------------------------------------------------------------------
# An IPv4 address added with a label (ip addr add ... label eth0:1) is an
# interface of that name to getifaddrs, and so to netifaces.  netifc's
# records carry no label; the IPv4 ioctls still speak in labels.

_SIOCGIFCONF = 0x8912
_SIOCGIFADDR = 0x8915
_SIOCGIFINDEX = 0x8933
_IFREQ = 40 if struct.calcsize("P") == 8 else 32  # sizeof(struct ifreq)
_IFCONF = struct.Struct("iP" if struct.calcsize("P") == 4 else "i4xP")


def _ifreq(name: bytes, packed: bytes) -> bytes:
    """A struct ifreq: a name and an AF_INET sockaddr."""
    return struct.pack("16sH2s4s", name, socket.AF_INET, b"", packed).ljust(_IFREQ, b"\0")


def _has_label(sock: socket.socket, label: bytes, packed: bytes) -> bool:
    """True when an IPv4 address with this label has this local address.

    SIOCGIFADDR looks for an address with both (the name, the address), else
    for the first with the name; it answers the address it found."""
    try:
        out = fcntl.ioctl(sock.fileno(), _SIOCGIFADDR, _ifreq(label, packed))
    except OSError:  # EADDRNOTAVAIL: no address has the label; ENODEV: no such link
        return False
    return out[20:24] == packed


def _link_of(sock: socket.socket, label: str) -> int:
    """The index of the link a label belongs to, as the kernel resolves it
    (SIOCGIFINDEX: the name before ':'); 0 when it resolves to none."""
    try:
        out = fcntl.ioctl(sock.fileno(), _SIOCGIFINDEX, _encoded(label).ljust(_IFREQ, b"\0"))
    except OSError:
        return 0
    return int.from_bytes(out[16:20], sys.byteorder, signed=True)


def _labels() -> List[Tuple[str, bytes]]:
    """(label, packed local address) of every IPv4 address, in the kernel's
    order (SIOCGIFCONF)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        size = 64 * _IFREQ
        while True:
            buf = array.array("B", bytes(size))
            addr, _ = buf.buffer_info()
            req = bytearray(_IFCONF.pack(size, addr))
            fcntl.ioctl(sock.fileno(), _SIOCGIFCONF, req, True)
            used = int.from_bytes(req[:4], sys.byteorder, signed=True)  # ifc_len
            if used < size:  # all of them fitted
                break
            size *= 2
    data = buf.tobytes()[:used]
    out = []
    for off in range(0, used, _IFREQ):
        name = data[off : off + 16].split(b"\0", 1)[0]
        out.append((name.decode("utf-8", "surrogateescape"), data[off + 20 : off + 24]))
    return out


def _encoded(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


# ---- one link's entries --------------------------------------------------------------


def _link_entry(iface: netifc.Interface) -> Dict[str, str] | None:
    """The AF_LINK dict of a link: its link-layer address and broadcast address.

    The kernel sends both or neither (a link without one: tun, wireguard);
    netifc reads an all-zero address (loopback's) as none, so its length is
    the broadcast address's."""
    brd = bytes(iface.hardware_broadcast)
    if not brd:
        return None
    hw = bytes(iface.hardware_addr) or bytes(len(brd))
    key = "peer" if iface.raw_flags & (_IFF_LOOPBACK | _IFF_POINTOPOINT) else "broadcast"
    return {"addr": _mac(hw), key: _mac(brd)}


def _addr_entry(a: netifc.Addr, family: int, iface: netifc.Interface) -> Dict[str, str]:
    """One address as netifaces gives it (glibc's getifaddrs read by netifaces)."""
    text = a.address
    entry = {"addr": text, "netmask": _NETMASK[family][a.prefixlen]}
    key = "peer" if iface.raw_flags & (_IFF_LOOPBACK | _IFF_POINTOPOINT) else "broadcast"
    if family == _AF_INET:
        # getifaddrs: the broadcast address, else IFA_ADDRESS (the peer, or
        # the address itself); netifaces drops it for 169.254.0.0/16.
        if not text.startswith("169.254."):
            entry[key] = a.broadcast or a.peer or text
    else:
        packed = socket.inet_pton(socket.AF_INET6, text)
        if packed[0] == 0xFE and packed[1] & 0xC0 == 0x80:  # fe80::/10: glibc gives the zone
            entry["addr"] = f"{text}%{iface.name}"
        peer = a.peer
        if peer is not None:
            entry[key] = peer
    return entry


def _add(result: Dict[int, List[Dict[str, str]]], family: int, entry: Dict[str, str]) -> None:
    result.setdefault(family, []).append(entry)


def _lookup(name: str) -> netifc.Interface | None:
    try:
        return netifc.interface_by_name(name)
    except (netifc.NoSuchInterface, ValueError):
        return None


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
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for label, _ in _labels():
            if label in seen:
                continue
            seen.add(label)
            index = _link_of(sock, label)
            if index in position:
                extra.append((position[index], label))
    extra.sort(key=_first)  # stable: a link's labels keep their order
    return names + [label for _, label in extra]


def _first(item: Tuple[int, str]) -> int:
    return item[0]


def ifaddresses(ifname: str) -> Dict[int, List[Dict[str, str]]]:
    """Obtain information about the specified network interface.

    Returns a dict whose keys are equal to the address family constants,
    e.g. netifaces.AF_INET, and whose values are a list of addresses in
    that family that are attached to the network interface.

    One link lookup and one request for that link's addresses (and, for
    each IPv4 address, one ioctl that tells its label). Raises ValueError
    ("You must specify a valid interface name.") for a name that is neither
    a link nor an IPv4 label, TypeError unless ifname is a str.
    """
    if not isinstance(ifname, str):
        what = "None" if ifname is None else type(ifname).__name__
        raise TypeError(f"argument 1 must be str, not {what}")
    if "\0" in ifname:
        raise ValueError("embedded null character")
    iface = _lookup(ifname) if ifname else None
    if iface is None:
        return _labelled(ifname)
    result: Dict[int, List[Dict[str, str]]] = {}
    link = _link_entry(iface)
    if link is not None:
        _add(result, AF_LINK, link)
    try:
        addrs = iface.addrs()
    except netifc.NoSuchInterface:  # gone since it was looked up
        raise ValueError("You must specify a valid interface name.") from None
    label = _encoded(ifname)
    sock: socket.socket | None = None
    try:
        for a in addrs:
            family = int(a.family)
            if family == _AF_INET:
                if sock is None:
                    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                if not _has_label(sock, label, socket.inet_aton(a.address)):
                    continue  # under another label: an interface of its own
            _add(result, family, _addr_entry(a, family, iface))
    finally:
        if sock is not None:
            sock.close()
    return result


def _labelled(label: str) -> Dict[int, List[Dict[str, str]]]:
    """The IPv4 addresses under a label that is no link's name (``eth0:1``):
    of the link the kernel resolves it to, the name before ':'."""
    if not label or len(_encoded(label)) > 15:
        raise ValueError("You must specify a valid interface name.")
    wanted = _encoded(label)
    result: Dict[int, List[Dict[str, str]]] = {}
    base = _lookup(label.split(":", 1)[0]) if ":" in label else None
    if base is not None:
        try:
            addrs = base.addrs()
        except netifc.NoSuchInterface:
            addrs = ()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for a in addrs:
                if a.family == _AF_INET and _has_label(sock, wanted, socket.inet_aton(a.address)):
                    _add(result, AF_INET, _addr_entry(a, AF_INET, base))
    if not result:
        raise ValueError("You must specify a valid interface name.")
    return result


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
