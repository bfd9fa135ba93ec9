"""Renderers: what ``python -m netifc`` prints, as functions tooling can call.

Each takes interfaces and the addresses (or multicast groups) to show with
them; an address is shown under the interface whose index it carries.
"""
import json
import socket

__all__ = ["render_text", "render_brief", "render_json", "to_json", "JSON_SCHEMA_VERSION"]

JSON_SCHEMA_VERSION = 1

_LINK_TYPES = {
    1: "ether", 24: "ieee1394", 32: "infiniband", 512: "ppp", 768: "ipip",
    769: "tunnel6", 772: "loopback", 776: "sit", 778: "gre", 823: "ip6gre",
    65534: "none",
}
_SCOPES = {0: "global", 200: "site", 253: "link", 254: "host", 255: "nowhere"}
_FLAG_WORDS = ("UP", "BROADCAST", "LOOPBACK", "POINTTOPOINT", "MULTICAST", "RUNNING")
_COLORS = {"name": "36", "up": "32", "down": "31", "inet": "35", "inet6": "34", "mac": "33"}


def _paint(text, what, color):
    if not color or what not in _COLORS:
        return text
    return f"\x1b[{_COLORS[what]}m{text}\x1b[0m"


def _family_word(a):
    return "inet" if a.family == socket.AF_INET else "inet6"


def _scope_word(scope):
    return _SCOPES.get(scope, str(scope))


def _group(addrs):
    by = {}
    for a in addrs:
        by.setdefault(a.index, []).append(a)
    return by


def _flag_words(iface):
    return [w for w in _FLAG_WORDS if int(iface.flags) & (1 << _FLAG_WORDS.index(w))]


def _lifetime(v):
    return "forever" if v is None else f"{v}sec"


def _addr_flag_words(a):
    words = [n.lower() for n in str(a.flags).split("|") if n not in ("0", "permanent")]
    if a.valid_lifetime is not None:
        words.insert(0, "dynamic")
    return words


def _addr_lines(a, color, multicast):
    fam = _paint(_family_word(a), "inet" if a.family == socket.AF_INET else "inet6", color)
    if multicast:
        ip = a.address + (f"%{a.zone}" if a.zone else "")
        return [f"    {fam} {ip}"]
    if a.peer is not None:
        where = f"{a.address} peer {a.peer}/{a.prefixlen}"
    else:
        where = str(a)
    parts = [f"    {fam} {where}"]
    if a.broadcast is not None:
        parts.append(f"brd {a.broadcast}")
    parts.append(f"scope {_scope_word(a.scope)}")
    parts.extend(_addr_flag_words(a))
    return [
        " ".join(parts),
        f"       valid_lft {_lifetime(a.valid_lifetime)} "
        f"preferred_lft {_lifetime(a.preferred_lifetime)}",
    ]


def render_text(interfaces, addrs, *, color=False, multicast=False):
    """``ip addr``-style text: a block per interface, its addresses below."""
    by = _group(addrs)
    out = []
    for i in interfaces:
        state = i.operstate.upper()
        out.append(
            f"{i.index}: {_paint(i.name, 'name', color)}: <{','.join(_flag_words(i))}> "
            f"mtu {i.mtu} state {_paint(state, i.operstate, color)}"
        )
        kind = _LINK_TYPES.get(i.link_type, str(i.link_type))
        link = f"    link/{kind}"
        if i.hardware_addr:
            link += " " + _paint(i.hardware_addr_str, "mac", color)
        out.append(link)
        for a in by.get(i.index, ()):
            out.extend(_addr_lines(a, color, multicast))
    return "\n".join(out) + ("\n" if out else "")


def render_brief(interfaces, addrs, *, color=False, multicast=False):
    """One line per interface: name, state, addresses (``ip -br addr``)."""
    by = _group(addrs)
    out = []
    for i in interfaces:
        state = i.operstate.upper()
        shown = [
            (a.address + (f"%{a.zone}" if a.zone else "")) if multicast else str(a)
            for a in by.get(i.index, ())
        ]
        name = _paint(f"{i.name:<16}", "name", color)
        line = f"{name} {_paint(f'{state:<14}', i.operstate, color)} {' '.join(shown)}"
        out.append(line.rstrip())
    return "\n".join(out) + ("\n" if out else "")


def _addr_json(a, multicast):
    d = {
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
        scope=_scope_word(a.scope),
        flags=[] if not int(a.flags) else str(a.flags).split("|"),
        preferred_lifetime=a.preferred_lifetime,
        valid_lifetime=a.valid_lifetime,
    )
    return d


def to_json(interfaces, addrs, *, multicast=False):
    """The JSON document as Python data (schema in README.rst)."""
    by = _group(addrs)
    key = "multicast" if multicast else "addrs"
    return [
        {
            "index": i.index,
            "name": i.name,
            "flags": [] if not int(i.flags) else str(i.flags).split("|"),
            "mtu": i.mtu,
            "operstate": i.operstate,
            "link_type": i.link_type,
            "hardware_addr": i.hardware_addr_str,
            key: [_addr_json(a, multicast) for a in by.get(i.index, ())],
        }
        for i in interfaces
    ]


def render_json(interfaces, addrs, *, multicast=False, indent=None):
    """``to_json`` as text."""
    return json.dumps(to_json(interfaces, addrs, multicast=multicast), indent=indent) + "\n"
