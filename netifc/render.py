"""Renderers: what ``python -m netifc`` prints, as functions tooling can call.

Each takes interfaces and the addresses (or multicast groups) to show with
them; an address is shown under the interface whose index it carries. The
text forms follow iproute2's ``ip addr`` and ``ip -br addr`` line by line,
less what netifc does not know (docs/cli.rst lists it).
"""

from __future__ import annotations

import json
import os
import socket
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union, cast

from ._netifc import Addr, Interface
from .enums import AddrFlags

if TYPE_CHECKING:
    from .watch import Event

__all__ = [
    "render_text",
    "render_brief",
    "render_json",
    "to_json",
    "render_event",
    "interface_line",
    "event_json",
    "JSON_SCHEMA_VERSION",
    "JSONValue",
]

JSON_SCHEMA_VERSION = 2

JSONValue = Union[None, bool, int, str, List["JSONValue"], Dict[str, "JSONValue"]]
"""One value of the JSON document, as ``json.loads`` gives it back."""

_FOREVER = 0xFFFFFFFF

# iproute2's names for ARPHRD_* link types; any other prints as "[N]".
_LINK_TYPES = {
    0: "netrom",
    1: "ether",
    2: "eether",
    3: "ax25",
    4: "pronet",
    5: "chaos",
    6: "ieee802",
    7: "arcnet",
    8: "atalk",
    15: "dlci",
    19: "atm",
    23: "metricom",
    24: "ieee1394",
    32: "infiniband",
    256: "slip",
    257: "cslip",
    258: "slip6",
    259: "cslip6",
    260: "rsrvd",
    264: "adapt",
    270: "rose",
    271: "x25",
    272: "hwx25",
    280: "can",
    512: "ppp",
    513: "hdlc",
    516: "lapb",
    517: "ddcmp",
    518: "rawhdlc",
    768: "ipip",
    769: "tunnel6",
    770: "frad",
    771: "skip",
    772: "loopback",
    773: "ltalk",
    774: "fddi",
    775: "bif",
    776: "sit",
    777: "ip/ddp",
    778: "gre",
    779: "pimreg",
    780: "hippi",
    781: "ash",
    782: "econet",
    783: "irda",
    784: "fcpp",
    785: "fcal",
    786: "fcpl",
    **{787 + i: f"fcfb{i}" for i in range(13)},
    800: "tr",
    801: "ieee802.11",
    802: "ieee802.11/prism",
    803: "ieee802.11/radiotap",
    804: "ieee802.15.4",
    805: "ieee802.15.4/monitor",
    820: "phonet",
    821: "phonet_pipe",
    822: "caif",
    823: "gre6",
    824: "netlink",
    825: "6lowpan",
    65534: "none",
    65535: "void",
}
# IP tunnels put their IPv4 (or IPv6) endpoints where a hardware address goes;
# netifc keeps neither, so their link line shows no address.
_TUNNEL_ENDPOINT_LEN = {768: 4, 776: 4, 778: 4, 769: 16, 823: 16}

_SCOPES = {0: "global", 200: "site", 253: "link", 254: "host", 255: "nowhere"}

# The kernel's IFF_* bits in the order ip prints them (RUNNING never is:
# NO-CARRIER stands for UP without it).
_IFF_UP = 0x1
_IFF_POINTOPOINT = 0x10
_IFF_RUNNING = 0x40
_IFF_WORDS = (
    (0x8, "LOOPBACK"),
    (0x2, "BROADCAST"),
    (0x10, "POINTOPOINT"),
    (0x1000, "MULTICAST"),
    (0x80, "NOARP"),
    (0x200, "ALLMULTI"),
    (0x100, "PROMISC"),
    (0x400, "MASTER"),
    (0x800, "SLAVE"),
    (0x4, "DEBUG"),
    (0x8000, "DYNAMIC"),
    (0x4000, "AUTOMEDIA"),
    (0x2000, "PORTSEL"),
    (0x20, "NOTRAILERS"),
    (0x1, "UP"),
    (0x10000, "LOWER_UP"),
    (0x20000, "DORMANT"),
    (0x40000, "ECHO"),
)

# ip's word for an IFA_F_* bit (ip prints them in value order, as the members
# of AddrFlags and Addr6Flags stand) where it is not the member's name in
# lower case.
_IFA_WORDS = {
    "HOMEADDRESS": "home",
    "MANAGETEMPADDR": "mngtmpaddr",
    "MCAUTOJOIN": "autojoin",
    "STABLE_PRIVACY": "stable-privacy",
}

_COLORS = {"name": "36", "up": "32", "down": "31", "inet": "35", "inet6": "34", "mac": "33"}


def _paint(text: str, what: str, color: bool) -> str:
    if not color or what not in _COLORS:
        return text
    return f"\x1b[{_COLORS[what]}m{text}\x1b[0m"


def _family_word(a: Addr) -> str:
    return "inet" if a.family == socket.AF_INET else "inet6"


def _scope_word(scope: int) -> str:
    return _SCOPES.get(scope, str(scope))


def bit_words(bits: int, names: Sequence[Tuple[int, str]]) -> List[str]:
    """The words of the bits set, in the order of names, then the bits
    without a name as one hex number: how ip prints a flag word."""
    words = []
    for bit, word in names:
        if bits & bit:
            words.append(word)
            bits &= ~bit
    if bits:
        words.append(f"{bits:x}")
    return words


def _link_flag_words(raw_flags: int) -> List[str]:
    """The kernel's IFF_* word as ip prints it between ``<`` and ``>``:
    ``["NO-CARRIER", "POINTOPOINT", "MULTICAST", "NOARP", "UP"]``, any bit
    without a name last, in hex."""
    carrier = ["NO-CARRIER"] if raw_flags & _IFF_UP and not raw_flags & _IFF_RUNNING else []
    return carrier + bit_words(raw_flags & ~_IFF_RUNNING, _IFF_WORDS)


def _addr_flag_words(a: Addr) -> List[str]:
    """ip's words for an address's IFA_F_* bits, in ip's order (0x01 is
    "secondary" on IPv4, "temporary" on IPv6: its flags' own enums). "dynamic"
    stands where "permanent" would be missing, when the backend knows
    (lifetimes known); bits without a name end as ``flags XX``."""
    words = []
    flags = a.flags
    left = int(flags)
    for member in type(flags):
        if member is type(flags).PERMANENT:
            if not left & member and a.valid_lifetime is not None:
                words.append("dynamic")
        elif left & member:
            name = str(member.name)
            words.append(_IFA_WORDS.get(name, name.lower()))
        left &= ~member
    if left:
        words.append(f"flags {left:02x}")
    return words


def _lifetime(seconds: Optional[int], signed: bool = False) -> str:
    if seconds is None:
        return "unknown"
    if seconds == _FOREVER:
        return "forever"
    if signed and seconds >= 1 << 31:  # ip prints a deprecated address's as signed
        seconds -= 1 << 32
    return f"{seconds}sec"


def _link_addr_text(hw: bytes) -> str:
    return ":".join(f"{b:02x}" for b in hw)


def _link_line(i: Interface, color: bool) -> str:
    """``link/ether 02:fc:00:00:00:01 brd ff:ff:ff:ff:ff:ff``. The kernel sends
    the address and the broadcast address together, of one length; netifc's
    hardware_addr is b"" when all zero, so the broadcast's length restores it."""
    line = f"    link/{_LINK_TYPES.get(i.link_type, f'[{i.link_type}]')}"
    brd = i.hardware_broadcast
    if _TUNNEL_ENDPOINT_LEN.get(i.link_type) == len(brd):
        return line
    hw = i.hardware_addr or (bytes(len(brd)) if brd else b"")
    if hw:
        line += " " + _paint(_link_addr_text(hw), "mac", color)
    if brd:
        word = "peer" if i.raw_flags & _IFF_POINTOPOINT else "brd"
        line += f" {word} " + _paint(_link_addr_text(brd), "mac", color)
    return line


def _header_line(i: Interface, color: bool) -> str:
    """``2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP``."""
    return (
        f"{i.index}: {_paint(i.name, 'name', color)}: <{','.join(_link_flag_words(i.raw_flags))}>"
        f" mtu {i.mtu} state {_paint(i.operstate.upper(), i.operstate, color)}"
    )


def interface_line(i: Interface) -> str:
    """``str()`` of an Interface: ip's first two lines of it as one,
    ``2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP link/ether
    02:fc:00:00:00:01 brd ff:ff:ff:ff:ff:ff``."""
    if not isinstance(i, Interface):
        raise TypeError(f"interface_line: i must be a netifc.Interface, not {type(i).__name__}")
    return f"{_header_line(i, False)} {_link_line(i, False).strip()}"


def _local_text(a: Addr, color: bool) -> str:
    """``192.0.2.1/24`` or ``10.9.0.1 peer 10.9.0.2/32``: no zone, as ip
    (and no ``peer 0.0.0.0``: the kernel sends ip no zero address)."""
    fam = _family_word(a)
    text = _paint(a.address, fam, color)
    if a.peer is not None and a.peer != "0.0.0.0":
        text += " peer " + _paint(a.peer, fam, color)
    return f"{text}/{a.prefixlen}"


def _addr_lines(a: Addr, color: bool, multicast: bool) -> List[str]:
    fam = _family_word(a)
    if multicast:
        return [f"    {fam} {_paint(a.address, fam, color)}"]
    parts = [f"    {fam} {_local_text(a, color)}"]
    if a.broadcast is not None:
        parts.append(f"brd {_paint(a.broadcast, fam, color)}")
    parts.append(f"scope {_scope_word(a.scope)}")
    parts.extend(_addr_flag_words(a))
    if a.label:  # IPv4: ip ends the line with the label ("eth0", "eth0:1")
        parts.append(a.label)
    deprecated = bool(a.flags & AddrFlags.DEPRECATED)
    return [
        " ".join(parts),
        f"       valid_lft {_lifetime(a.valid_lifetime)}"
        f" preferred_lft {_lifetime(a.preferred_lifetime, signed=deprecated)}",
    ]


def _records(who: str, what: str, items: object, kind: type) -> List[Any]:
    """items as a list, each checked to be a kind: TypeError naming what."""
    want = f"{who}: {what} must be an iterable of netifc.{kind.__name__}"
    if isinstance(items, (str, bytes)):
        raise TypeError(f"{want}, not {type(items).__name__}")
    try:
        listed: List[Any] = list(cast(Iterable[Any], items))
    except TypeError:
        raise TypeError(f"{want}, not {type(items).__name__}") from None
    for item in listed:
        if not isinstance(item, kind):
            raise TypeError(f"{want}, not an iterable holding {type(item).__name__}")
    return listed


def _checked(
    who: str,
    interfaces: Iterable[Interface],
    addrs: Iterable[Addr],
    family: Optional[int],
    **switches: bool,
) -> Tuple[List[Interface], List[Addr]]:
    """The arguments every renderer takes, their types checked, each error naming its argument."""
    shown = _records(who, "interfaces", interfaces, Interface)
    listed = _records(who, "addrs", addrs, Addr)
    if family is not None:
        if isinstance(family, bool) or not isinstance(family, int):
            raise TypeError(
                f"{who}: family must be socket.AF_INET, socket.AF_INET6 or None,"
                f" not {type(family).__name__}"
            )
        if family not in (socket.AF_INET, socket.AF_INET6):
            raise ValueError(
                f"{who}: family must be socket.AF_INET, socket.AF_INET6 or None, not {family!r}"
            )
    for name, value in switches.items():
        if not isinstance(value, bool):
            raise TypeError(f"{who}: {name} must be bool, not {type(value).__name__}")
    return shown, listed


def _select(
    interfaces: List[Interface], addrs: List[Addr], family: Optional[int]
) -> List[Tuple[Interface, List[Addr]]]:
    """Each interface with its addresses, in order. With a family, only that
    family's addresses, and only the interfaces that have one (as ``ip -4``)."""
    by: Dict[int, List[Addr]] = {}
    for a in addrs:
        if family is None or a.family == family:
            by.setdefault(a.index, []).append(a)
    return [(i, by.get(i.index, [])) for i in interfaces if family is None or i.index in by]


def render_text(
    interfaces: Iterable[Interface],
    addrs: Iterable[Addr],
    *,
    color: bool = False,
    multicast: bool = False,
    family: Optional[int] = None,
) -> str:
    """``ip addr``-style text: a block per interface, its addresses below.

    ``family`` (``socket.AF_INET`` or ``AF_INET6``) shows only that family's
    addresses and the interfaces that have one, without the link line, as
    ``ip -4 addr`` / ``ip -6 addr`` do.
    """
    links, listed = _checked(
        "render_text", interfaces, addrs, family, color=color, multicast=multicast
    )
    out = []
    for i, shown in _select(links, listed, family):
        out.append(_header_line(i, color))
        if family is None:
            out.append(_link_line(i, color))
        out.extend(f"    altname {n}" for n in i.altnames)
        for a in shown:
            out.extend(_addr_lines(a, color, multicast))
    return "".join(line + "\n" for line in out)


def _pad(text: str, width: int) -> str:
    """Pad to ``width`` bytes, as ip's printf does: a name's width is its
    length in bytes to the kernel, not in characters."""
    size = len(os.fsencode(text))
    return text + " " * max(0, width - size)


def render_brief(
    interfaces: Iterable[Interface],
    addrs: Iterable[Addr],
    *,
    color: bool = False,
    multicast: bool = False,
    family: Optional[int] = None,
) -> str:
    """One line per interface: name, state, addresses (``ip -br addr``)."""
    links, listed = _checked(
        "render_brief", interfaces, addrs, family, color=color, multicast=multicast
    )
    out = []
    for i, shown in _select(links, listed, family):
        state = i.operstate.upper()
        words = [
            _paint(a.address, _family_word(a), color) if multicast else _local_text(a, color)
            for a in shown
        ]
        line = (
            f"{_paint(_pad(i.name, 16), 'name', color)} "
            f"{_paint(f'{state:<14}', i.operstate, color)} {' '.join(words)}"
        )
        out.append(line.rstrip())
    return "".join(line + "\n" for line in out)


def _strings(words: Iterable[str]) -> List[JSONValue]:
    return list(words)


def _flag_names(flags: object) -> List[JSONValue]:
    """Go-style flag text as a list: "up|running" -> ["up", "running"]."""
    text = str(flags)
    return [] if text == "0" else _strings(text.split("|"))


def _addr_json(a: Addr, multicast: bool) -> Dict[str, JSONValue]:
    d: Dict[str, JSONValue] = {
        "family": _family_word(a),
        "address": a.address,
        "prefixlen": a.prefixlen,
        "zone": a.zone,
    }
    if multicast:
        return d
    d.update(
        peer=a.peer,
        broadcast=a.broadcast,
        label=a.label,
        scope=_scope_word(a.scope),
        flags=_flag_names(a.flags),
        preferred_lifetime=a.preferred_lifetime,
        valid_lifetime=a.valid_lifetime,
    )
    return d


def _interface_json(i: Interface, shown: Sequence[Addr], multicast: bool) -> Dict[str, JSONValue]:
    return {
        "index": i.index,
        "name": i.name,
        "flags": _flag_names(i.flags),
        "mtu": i.mtu,
        "operstate": i.operstate,
        "link_type": i.link_type,
        "hardware_addr": i.hardware_addr_str,
        "multicast" if multicast else "addrs": [_addr_json(a, multicast) for a in shown],
        "raw_flags": i.raw_flags,
        "ip_flags": _strings(_link_flag_words(i.raw_flags)),
        "hardware_broadcast": _link_addr_text(i.hardware_broadcast),
        "altnames": _strings(i.altnames),
    }


def to_json(
    interfaces: Iterable[Interface],
    addrs: Iterable[Addr],
    *,
    multicast: bool = False,
    family: Optional[int] = None,
) -> List[Dict[str, JSONValue]]:
    """The JSON document as Python data (schema in docs/cli.rst)."""
    return _document("to_json", interfaces, addrs, multicast, family)


def _document(
    who: str,
    interfaces: Iterable[Interface],
    addrs: Iterable[Addr],
    multicast: bool,
    family: Optional[int],
) -> List[Dict[str, JSONValue]]:
    links, listed = _checked(who, interfaces, addrs, family, multicast=multicast)
    return [_interface_json(i, shown, multicast) for i, shown in _select(links, listed, family)]


def render_json(
    interfaces: Iterable[Interface],
    addrs: Iterable[Addr],
    *,
    multicast: bool = False,
    family: Optional[int] = None,
    indent: Optional[int] = None,
) -> str:
    """``to_json`` as text."""
    if indent is not None and (isinstance(indent, bool) or not isinstance(indent, int)):
        raise TypeError(f"render_json: indent must be int or None, not {type(indent).__name__}")
    doc = _document("render_json", interfaces, addrs, multicast, family)
    return json.dumps(doc, indent=indent) + "\n"


# ---- change events (``netifc --watch``) ------------------------------------------------


def _link_block(i: Interface, color: bool) -> List[str]:
    text = render_text([i], [], color=color)
    return text.splitlines()


def _event_checked(who: str, event: object) -> None:
    from .watch import Event

    if not isinstance(event, Event):
        raise TypeError(f"{who}: event must be a netifc.Event, not {type(event).__name__}")


def _event_parts(event: Event) -> Tuple[bool, Optional[Interface], Optional[Addr], bool]:
    """(removed, interface, address or group, is a group) of an event."""
    from . import watch as ev

    if isinstance(event, (ev.LinkAdded, ev.LinkRemoved)):
        return (isinstance(event, ev.LinkRemoved), event.link, None, False)
    if isinstance(event, ev.LinkChanged):
        return (False, event.new, None, False)
    if isinstance(event, (ev.AddrAdded, ev.AddrRemoved)):
        return (isinstance(event, ev.AddrRemoved), None, event.addr, False)
    if isinstance(event, ev.AddrChanged):
        return (False, None, event.new, False)
    if isinstance(event, (ev.GroupJoined, ev.GroupLeft)):
        return (isinstance(event, ev.GroupLeft), None, event.group, True)
    return (False, None, None, False)


def render_event(event: Event, name: str = "", *, color: bool = False) -> str:
    """One event as ``ip monitor`` prints it: the link's block, or its index
    and name then the address (or group) lines; ``Deleted`` before what went.
    ``name`` is the name of the address's interface (ip prints it there)."""
    _event_checked("render_event", event)
    if not isinstance(name, str):
        raise TypeError(f"render_event: name must be str, not {type(name).__name__}")
    if not isinstance(color, bool):
        raise TypeError(f"render_event: color must be bool, not {type(color).__name__}")
    removed, iface, addr, group = _event_parts(event)
    prefix = "Deleted " if removed else ""
    if iface is not None:
        lines = _link_block(iface, color)
    elif addr is not None:
        lines = _addr_lines(addr, color, group)
        lines[0] = f"{addr.index}: {_paint(name, 'name', color)}    {lines[0].lstrip()}"
    else:
        from .watch import Resync

        assert isinstance(event, Resync)
        lines = [
            f"Resync: {len(event.interfaces)} interfaces, {len(event.addrs)} addresses,"
            f" {len(event.groups)} groups (the kernel dropped notifications)"
        ]
    lines[0] = prefix + lines[0]
    return "".join(line + "\n" for line in lines)


_EVENT_NAMES = {
    "LinkAdded": "link_added",
    "LinkChanged": "link_changed",
    "LinkRemoved": "link_removed",
    "AddrAdded": "addr_added",
    "AddrChanged": "addr_changed",
    "AddrRemoved": "addr_removed",
    "GroupJoined": "group_joined",
    "GroupLeft": "group_left",
    "Resync": "resync",
}


def _link_json(i: Interface) -> Dict[str, JSONValue]:
    d = _interface_json(i, (), False)
    del d["addrs"]
    return d


def event_json(event: Event) -> Dict[str, JSONValue]:
    """One event as JSON data: ``{"event": "addr_added", "index": 3, "addr": {...}}``;
    links as in ``to_json`` without addresses, ``old`` and ``new`` for changes."""
    from . import watch as ev

    _event_checked("event_json", event)
    d: Dict[str, JSONValue] = {"event": _EVENT_NAMES[type(event).__name__]}
    if isinstance(event, (ev.LinkAdded, ev.LinkRemoved)):
        d["link"] = _link_json(event.link)
    elif isinstance(event, ev.LinkChanged):
        d.update(old=_link_json(event.old), new=_link_json(event.new))
    elif isinstance(event, (ev.AddrAdded, ev.AddrRemoved)):
        d.update(index=event.addr.index, addr=_addr_json(event.addr, False))
    elif isinstance(event, ev.AddrChanged):
        d.update(
            index=event.new.index,
            old=_addr_json(event.old, False),
            new=_addr_json(event.new, False),
        )
    elif isinstance(event, (ev.GroupJoined, ev.GroupLeft)):
        d.update(index=event.group.index, group=_addr_json(event.group, True))
    elif isinstance(event, ev.Resync):
        d.update(interfaces=len(event.interfaces), addrs=len(event.addrs), groups=len(event.groups))
    return d
