"""Routes as ``ip route`` prints them, and as JSON in the shape of ``ip -j route``."""

from __future__ import annotations

import socket
from typing import Any, Dict, List, Optional, Sequence

from .enums import RouteType
from .render import bit_words
from .routing import Route, iproute2_names, table_name

_MAIN = 254
_BOOT = 3
_UNICAST = int(RouteType.UNICAST)

# iproute2's names for protocols and scopes; its rt_protos may add protocols.
_PROTOCOLS = {
    0: "unspec",
    1: "redirect",
    2: "kernel",
    3: "boot",
    4: "static",
    8: "gated",
    9: "ra",
    10: "mrt",
    11: "zebra",
    12: "bird",
    13: "dnrouted",
    14: "xorp",
    15: "ntk",
    16: "dhcp",
    18: "keepalived",
    42: "babel",
    99: "openr",
    186: "bgp",
    187: "isis",
    188: "ospf",
    189: "rip",
    192: "eigrp",
}
_SCOPES = {0: "global", 200: "site", 253: "link", 254: "host", 255: "nowhere"}
_PREFS = {0: "medium", 1: "high", 3: "low"}
# rtm_flags and rtnh_flags words, in the order ip prints them.
_FLAGS = (
    (0x1, "dead"),
    (0x4, "onlink"),
    (0x2, "pervasive"),
    (0x8, "offload"),
    (0x40, "trap"),
    (0x100, "notify"),
    (0x10, "linkdown"),
    (0x20, "unresolved"),
    (0x2000, "rt_offload"),
    (0x4000, "rt_trap"),
    (0x20000000, "rt_offload_failed"),
)


# ip reads /etc/iproute2/rt_protos, or where there is none (iproute2 6.5 and
# later ship theirs under /usr/share, Debian 13's adds 84 ovn) its own.
_RT_PROTOS_FILES = ("/etc/iproute2/rt_protos", "/usr/share/iproute2/rt_protos")


def _protocols() -> Dict[int, str]:
    names = dict(_PROTOCOLS)
    for number, name in iproute2_names(_RT_PROTOS_FILES):
        names.setdefault(number, name)
    return names


# ip names a route's TOS (DS field) from its rt_dsfield, else prints it in hex.
_RT_DSFIELD_FILES = ("/etc/iproute2/rt_dsfield", "/usr/share/iproute2/rt_dsfield")


def _dsfield_names() -> Dict[int, str]:
    names: Dict[int, str] = {}
    for number, name in iproute2_names(_RT_DSFIELD_FILES):
        names.setdefault(number, name)
    return names


def tos_word(tos: int) -> str:
    """A route's TOS as ip prints it: its rt_dsfield name, else ``0x10``."""
    return _dsfield_names().get(tos) or f"0x{tos:02x}"


def flag_words(flags: int) -> List[str]:
    """The words ip prints for a route's or a next hop's flags."""
    return [word for bit, word in _FLAGS if flags & bit]


def _dst(r: Route) -> str:
    if r.prefixlen == 0:
        return "default"
    full = 32 if r.family == socket.AF_INET else 128
    return r.destination.split("/")[0] if r.prefixlen == full else r.destination


def _from(r: Route) -> Optional[str]:
    """The source prefix as ip prints it after "from": a host without its length."""
    if r.source is None:
        return None
    address, _, length = r.source.partition("/")
    full = 32 if r.family == socket.AF_INET else 128
    return address if int(length) == full else r.source


def _via(gateway: Optional[str], family: int) -> Optional[str]:
    """ip's "via" words: a gateway of the other family names its family."""
    if gateway is None:
        return None
    gw6 = ":" in gateway
    if gw6 == (family == socket.AF_INET6):
        return f"via {gateway}"
    return f"via {'inet6' if gw6 else 'inet'} {gateway}"


def _has_metric(r: Route) -> bool:
    # IPv6 routes always carry RTA_PRIORITY; IPv4 ones only when it is not 0.
    return r.family == socket.AF_INET6 or r.metric != 0


def route_line(r: Route, show_table: bool, protocols: Dict[int, str]) -> str:
    """One route as ip prints it (its next hops on the lines after)."""
    words: List[str] = []
    if r.type != _UNICAST:
        words.append(str(r.type))
    words.append(_dst(r))
    source = _from(r)
    if source is not None:
        words.append(f"from {source}")
    if r.tos:
        words.append(f"tos {tos_word(r.tos)}")
    via = _via(r.gateway, r.family)
    if via:
        words.append(via)
    if r.index:
        words.append(f"dev {r.ifname or f'if{r.index}'}")
    if show_table and r.table != _MAIN:
        words.append(f"table {table_name(r.table)}")
    if not r.flags & 0x200:  # RTM_F_CLONED: what route_get returns
        if r.protocol != _BOOT:
            words.append(f"proto {protocols.get(r.protocol, str(r.protocol))}")
        if r.scope != 0:
            words.append(f"scope {_SCOPES.get(r.scope, str(r.scope))}")
    if r.prefsrc is not None:
        words.append(f"src {r.prefsrc}")
    if _has_metric(r):
        words.append(f"metric {r.metric}")
    words += flag_words(r.flags)
    if r.pref is not None:
        words.append(f"pref {_PREFS.get(r.pref, str(r.pref))}")
    lines = [" ".join(words)]
    for h in r.nexthops:
        hop = ["nexthop"]
        via = _via(h.gateway, r.family)
        if via:
            hop.append(via)
        if h.index:
            hop.append(f"dev {h.ifname or f'if{h.index}'}")
        hop.append(f"weight {h.weight}")
        hop += flag_words(h.flags)
        lines.append("\t" + " ".join(hop))
    return "\n".join(lines)


def route_text(r: Route) -> str:
    """``str()`` of a Route: the line ``ip route show table all`` prints for
    it, its next hops on that line too."""
    return route_line(r, True, _protocols()).replace("\n\t", " ")


def render_routes(routes: Sequence[Route], show_table: bool = False) -> str:
    """Routes as ``ip route`` prints them; ``show_table``: name each table but
    main, as ``ip route show table all`` does."""
    protocols = _protocols()
    return "".join(route_line(r, show_table, protocols) + "\n" for r in routes)


def _via_json(gateway: str, family: int) -> Dict[str, str]:
    return {"family": "inet6" if ":" in gateway else "inet", "host": gateway}


def route_json(
    r: Route, show_table: bool = False, protocols: Optional[Dict[int, str]] = None
) -> Dict[str, Any]:
    """One route in the shape of ``ip -j route``'s objects."""
    protocols = protocols if protocols is not None else _protocols()
    out: Dict[str, Any] = {}
    if r.type != _UNICAST:
        out["type"] = str(r.type)
    out["dst"] = _dst(r)
    source = _from(r)
    if source is not None:
        out["from"] = source
    if r.tos:
        out["tos"] = tos_word(r.tos)
    if r.gateway is not None:
        same = (":" in r.gateway) == (r.family == socket.AF_INET6)
        if same:
            out["gateway"] = r.gateway
        else:
            out["via"] = _via_json(r.gateway, r.family)
    if r.index:
        out["dev"] = r.ifname or f"if{r.index}"
    if show_table and r.table != _MAIN:
        out["table"] = table_name(r.table)
    if not r.flags & 0x200:
        if r.protocol != _BOOT:
            out["protocol"] = protocols.get(r.protocol, str(r.protocol))
        if r.scope != 0:
            out["scope"] = _SCOPES.get(r.scope, str(r.scope))
    if r.prefsrc is not None:
        out["prefsrc"] = r.prefsrc
    if _has_metric(r):
        out["metric"] = r.metric
    out["flags"] = flag_words(r.flags)
    if r.pref is not None:
        out["pref"] = _PREFS.get(r.pref, str(r.pref))
    if r.nexthops:
        hops = []
        for h in r.nexthops:
            hop: Dict[str, Any] = {}
            if h.gateway is not None:
                hop["gateway"] = h.gateway
            if h.index:
                hop["dev"] = h.ifname or f"if{h.index}"
            hop["weight"] = h.weight
            hop["flags"] = flag_words(h.flags)
            hops.append(hop)
        out["nexthops"] = hops
    return out


def routes_json(routes: Sequence[Route], show_table: bool = False) -> List[Dict[str, Any]]:
    protocols = _protocols()
    return [route_json(r, show_table, protocols) for r in routes]


# ---- one route as ip route get prints it -------------------------------------------

_CLONED = 0x200  # RTM_F_CLONED: an IPv4 route_get answer (a route cache entry)
# The RTCF_* bits of a cloned IPv4 route's flags: ip's "cache <...>" words, in its order.
_CACHE_FLAGS = (
    (0x80000000, "local"),
    (0x40000000, "reject"),
    (0x20000000, "mc"),
    (0x10000000, "brd"),
    (0x08000000, "dst-nat"),
    (0x00800000, "snat"),
    (0x00400000, "masq"),
    (0x00020000, "dst-direct"),
    (0x04000000, "src-direct"),
    (0x00040000, "redirected"),
    (0x01000000, "redirect"),
    (0x00200000, "fastroute"),
    (0x00010000, "notify"),
    (0x00080000, "tproxy"),
)


def _cache_words(flags: int) -> List[str]:
    """ip's words for the RTCF_* bits, then any other high bit as hex."""
    return bit_words(int(flags) & ~0xFFFF, _CACHE_FLAGS)


def _get_extras(r: Route, uid: int) -> Dict[str, Any]:
    """What ip route get shows beyond the route: the requester's uid and the
    cache flags (IPv4: the answer is a cache entry). The source the lookup
    used (IPv6: "from ::", none given) is the answer's own source."""
    if r.family != socket.AF_INET6 and int(r.flags) & _CLONED:
        return {"uid": uid, "cache": _cache_words(int(r.flags))}
    return {}


def route_get_line(r: Route, uid: int, protocols: Optional[Dict[int, str]] = None) -> str:
    """The answer of route_get() as ``ip route get`` prints it (without the
    space ip leaves at the end of its lines); ``uid``: the requester's, which
    the kernel puts in an IPv4 answer."""
    line = route_line(r, True, protocols if protocols is not None else _protocols())
    extras = _get_extras(r, uid)
    words = line.split(" ")
    if "uid" in extras:
        words += ["uid", str(extras["uid"])]
    text = " ".join(words) + "\n"
    if "cache" in extras:
        flags = extras["cache"]
        text += "    cache" + (f" <{','.join(flags)}>" if flags else "") + "\n"
    return text


def route_get_json(r: Route, uid: int) -> Dict[str, Any]:
    """The answer of route_get() in the shape of ``ip -j route get``'s object."""
    out = route_json(r, True)
    out.update(_get_extras(r, uid))
    return out
