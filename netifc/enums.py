"""The enums of netifc's records, by one rule: every number the kernel names
is an enum -- a set of bits an ``IntFlag``, one value of a list an
``IntEnum`` -- so it compares equal to the kernel's int and prints as
iproute2 (or Go, for ``Flags``) names it.

Lists that grow (route types and protocols, scopes, link types) keep a value
they do not name: its member's name and text are the number.
"""

from __future__ import annotations

import enum
import socket
from typing import Optional, TypeVar

from . import _netifc

__all__ = [
    "Flags",
    "AddrFlags",
    "Addr6Flags",
    "LinkType",
    "Scope",
    "RouteType",
    "RouteProtocol",
    "RouteFlags",
]


class _TextFlag(enum.IntFlag):
    """An IntFlag whose text is its set members' names, lower case, joined by
    "|" in value order, then any bits without a name as one hex number
    ("up|0x400"); "0" when no bit is set: Go's form for net.Flags.

    A format spec formats the int (``f"{flags:#x}"``); an empty one, the text.
    """

    def _names(self) -> tuple[list[str], int]:
        """The set members' names in value order, and the bits none names."""
        value = int(self)
        names = []
        for member in type(self):
            if value & member.value:
                names.append(str(member.name))
                value &= ~member.value
        return names, value

    def __str__(self) -> str:
        names, rest = self._names()
        words = [n.lower() for n in names] + ([hex(rest)] if rest else [])
        return "|".join(words) if words else "0"

    def __repr__(self) -> str:
        """``<Flags.UP|RUNNING: 33>``, ``<Flags.UP|1024: 1025>``, ``<Flags: 0>``
        (no member set), on every CPython: 3.11's form, which 3.9 and 3.10
        order and write otherwise."""
        names, rest = self._names()
        cls = type(self).__name__
        if not names:
            return f"<{cls}: {int(self)}>"
        return f"<{cls}.{'|'.join(names + ([str(rest)] if rest else []))}: {int(self)}>"

    def __format__(self, spec: str) -> str:
        return format(int(self), spec) if spec else str(self)


_E = TypeVar("_E", bound="_OpenEnum")


class _OpenEnum(enum.IntEnum):
    """An IntEnum that keeps a value it does not name (0 to 65535): the
    member's name and text are then the number. Its text is the member's
    name in lower case; a format spec formats the int."""

    @classmethod
    def _missing_(cls: type[_E], value: object) -> Optional[_E]:
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0xFFFF:
            member = int.__new__(cls, value)
            member._name_ = str(value)
            member._value_ = value
            return member
        return None

    def __str__(self) -> str:
        return self.name.lower()

    def __format__(self, spec: str) -> str:
        return format(int(self), spec) if spec else str(self)


class Flags(_TextFlag):
    """Interface flags, with Go's bit values and Go's text form."""

    UP = 1
    BROADCAST = 2
    LOOPBACK = 4
    POINTTOPOINT = 8
    MULTICAST = 16
    RUNNING = 32


class AddrFlags(_TextFlag):
    """Flags of an IPv4 address or of a multicast group: the kernel's IFA_F_* bits."""

    SECONDARY = 0x01
    NODAD = 0x02
    OPTIMISTIC = 0x04
    DADFAILED = 0x08
    HOMEADDRESS = 0x10
    DEPRECATED = 0x20
    TENTATIVE = 0x40
    PERMANENT = 0x80
    MANAGETEMPADDR = 0x100
    NOPREFIXROUTE = 0x200
    MCAUTOJOIN = 0x400
    STABLE_PRIVACY = 0x800


class Addr6Flags(_TextFlag):
    """Flags of an IPv6 address: the kernel's IFA_F_* bits, where 0x01 means
    a temporary (privacy) address, not a secondary one."""

    TEMPORARY = 0x01
    NODAD = 0x02
    OPTIMISTIC = 0x04
    DADFAILED = 0x08
    HOMEADDRESS = 0x10
    DEPRECATED = 0x20
    TENTATIVE = 0x40
    PERMANENT = 0x80
    MANAGETEMPADDR = 0x100
    NOPREFIXROUTE = 0x200
    MCAUTOJOIN = 0x400
    STABLE_PRIVACY = 0x800


class RouteFlags(_TextFlag):
    """Flags of a route (rtm_flags: RTNH_F_* and RTM_F_* bits) or of a next
    hop (rtnh_flags: RTNH_F_* bits)."""

    DEAD = 0x1
    PERVASIVE = 0x2
    ONLINK = 0x4
    OFFLOAD = 0x8
    LINKDOWN = 0x10
    UNRESOLVED = 0x20
    TRAP = 0x40
    NOTIFY = 0x100
    CLONED = 0x200
    EQUALIZE = 0x400
    PREFIX = 0x800
    LOOKUP_TABLE = 0x1000
    FIB_MATCH = 0x2000
    ROUTE_OFFLOAD = 0x4000
    ROUTE_TRAP = 0x8000
    ROUTE_OFFLOAD_FAILED = 0x20000000


class Scope(_OpenEnum):
    """The scope of an address or a route: RT_SCOPE_*, named as ip prints it."""

    GLOBAL = 0
    SITE = 200
    LINK = 253
    HOST = 254
    NOWHERE = 255


class RouteType(_OpenEnum):
    """A route's type: the kernel's RTN_* values; its text as ``ip route`` prints it."""

    UNSPEC = 0
    UNICAST = 1
    LOCAL = 2
    BROADCAST = 3
    ANYCAST = 4
    MULTICAST = 5
    BLACKHOLE = 6
    UNREACHABLE = 7
    PROHIBIT = 8
    THROW = 9
    NAT = 10
    XRESOLVE = 11


class RouteProtocol(_OpenEnum):
    """Who installed a route: the kernel's RTPROT_* values (numbers of
    /etc/iproute2/rt_protos beyond them keep their number)."""

    UNSPEC = 0
    REDIRECT = 1
    KERNEL = 2
    BOOT = 3
    STATIC = 4
    GATED = 8
    RA = 9
    MRT = 10
    ZEBRA = 11
    BIRD = 12
    DNROUTED = 13
    XORP = 14
    NTK = 15
    DHCP = 16
    MROUTED = 17
    KEEPALIVED = 18
    BABEL = 42
    OPENR = 99
    BGP = 186
    ISIS = 187
    OSPF = 188
    RIP = 189
    EIGRP = 192


class LinkType(_OpenEnum):
    """An interface's link-layer type: the kernel's ARPHRD_* values (the
    common ones named)."""

    NETROM = 0
    ETHER = 1
    IEEE802 = 6
    ARCNET = 7
    DLCI = 15
    ATM = 19
    IEEE1394 = 24
    INFINIBAND = 32
    SLIP = 256
    CAN = 280
    PPP = 512
    HDLC = 513
    IPIP = 768
    TUNNEL6 = 769
    LOOPBACK = 772
    SIT = 776
    GRE = 778
    IEEE80211 = 801
    IEEE80211_RADIOTAP = 803
    IEEE802154 = 804
    PHONET = 820
    GRE6 = 823
    NETLINK = 824
    SIXLOWPAN = 825
    VSOCKMON = 826
    NONE = 0xFFFE
    VOID = 0xFFFF


_netifc._register(Flags, AddrFlags, Addr6Flags, LinkType, tuple(Scope(i) for i in range(256)))

if hasattr(_netifc, "_register_routes"):
    # Members by number, for the C getters: looked up, not made, per access.
    _netifc._register_routes(
        tuple(RouteType(i) for i in range(256)),
        tuple(
            socket.AddressFamily(i) if i in (socket.AF_INET, socket.AF_INET6) else i
            for i in range(socket.AF_INET6 + 1)
        ),
        tuple(RouteProtocol(i) for i in range(256)),
        RouteFlags,
    )
