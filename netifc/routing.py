"""Routes and default gateways, from the kernel's routing tables (Linux).

The records (``Route``, ``NextHop``) and the kernel requests are the C core's;
this module presents them: the route types as an enum, table and protocol
names, the default gateways per family, and the checks of what callers pass.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _netifc
from ._netifc import Interface
from .enums import RouteType as RouteType

if TYPE_CHECKING:
    from ._netifc import _NetNS

if hasattr(_netifc, "Route"):
    from ._netifc import NextHop as NextHop, Route as Route
else:  # not Linux: the names exist, the calls say why they cannot work

    class Route:  # type: ignore[no-redef]
        """A route (Linux only)."""

    class NextHop:  # type: ignore[no-redef]
        """One next hop of a multipath route (Linux only)."""


# Compared with a plain int: an enum member's lookup costs a microsecond.
_UNICAST = int(RouteType.UNICAST)

# The tables iproute2 reserves, by name; /etc/iproute2/rt_tables may add more.
TABLES: Dict[str, int] = {"default": 253, "main": 254, "local": 255}
_RT_TABLES_FILES = ("/etc/iproute2/rt_tables", "/usr/share/iproute2/rt_tables")


def iproute2_names(paths: Sequence[str], every: bool = False) -> List[Tuple[int, str]]:
    """The ``NUMBER NAME`` lines of iproute2's name files (``rt_tables``,
    ``rt_protos``, ``rt_dsfield``), as (number, name) in file order: of the
    first file in paths that exists (an unreadable one gives none), or of
    every file (every).  The number may be decimal or hex, as iproute2 reads it."""
    found: List[Tuple[int, str]] = []
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    words = line.split("#", 1)[0].split()
                    if len(words) >= 2:
                        try:
                            found.append((int(words[0], 0), words[1]))
                        except ValueError:
                            continue
        except FileNotFoundError:
            continue
        except OSError:
            pass
        if not every:
            break
    return found


def table_names() -> Dict[str, int]:
    """Every table name known: the reserved ones, then those of rt_tables."""
    names = dict(TABLES)
    for number, name in iproute2_names(_RT_TABLES_FILES, every=True):
        if 0 < number <= 0xFFFFFFFF:
            names.setdefault(name, number)
    return names


def table_name(table: int) -> str:
    """A table's name when it has one ("main", "local", an rt_tables entry), else its number.
    TypeError unless table is an int, ValueError outside 0 to 4294967295."""
    if isinstance(table, bool) or not isinstance(table, int):
        raise TypeError(f"table_name: table must be int, not {type(table).__name__}")
    if not 0 <= table <= 0xFFFFFFFF:
        raise ValueError(f"table_name: table {table} out of range (0 to 4294967295)")
    for name, number in TABLES.items():
        if number == table:
            return name
    for name, number in table_names().items():
        if number == table:
            return name
    return str(table)


def _table_number(table: Union[int, str]) -> int:
    if isinstance(table, bool) or not isinstance(table, (int, str)):
        raise TypeError(f"table must be int or str, not {type(table).__name__}")
    if isinstance(table, str):
        if table == "all":
            return 0
        if table.isdigit():
            table = int(table)
        else:
            number = TABLES.get(table) or table_names().get(table)
            if number is None:
                raise ValueError(
                    f"unknown routing table {table!r}"
                    " (a number, 'all', 'main', 'local', 'default' or an"
                    " /etc/iproute2/rt_tables name)"
                )
            return number
    if not 0 < table <= 0xFFFFFFFF:
        raise ValueError(f"routing table {table} out of range (1 to 4294967295)")
    return table


def _family_number(family: Optional[int]) -> int:
    if family is None:
        return socket.AF_UNSPEC
    if isinstance(family, bool) or not isinstance(family, int):
        raise TypeError(f"family must be AF_INET, AF_INET6 or None, not {type(family).__name__}")
    if family not in (socket.AF_INET, socket.AF_INET6):
        raise ValueError(f"family must be AF_INET, AF_INET6 or None, not {family!r}")
    return int(family)


def _linux_only() -> NotImplementedError:
    return NotImplementedError("routes are read from rtnetlink, on Linux only")


def routes(family: Optional[int] = None, table: Union[int, str] = "main") -> Tuple[Route, ...]:
    """The routes of one table (``"all"``: every table) and one family (None:
    IPv4 and IPv6), in kernel order: one route dump, filtered by the kernel.

    ``table`` is a number or a name ("main", "local", "default", "all", or
    an /etc/iproute2/rt_tables name). A table that does not exist has no
    routes. Raises TypeError or ValueError for a bad family or table;
    OSError when the kernel fails.
    """
    return _routes_in(None, family, table)


def _routes_in(
    ns: Optional[_NetNS], family: Optional[int], table: Union[int, str]
) -> Tuple[Route, ...]:
    """routes() in the caller's namespace (ns None) or in ns (NetNS.routes())."""
    fam, number = _family_number(family), _table_number(table)
    if not hasattr(_netifc, "_routes"):
        raise _linux_only()
    return _netifc._routes(fam, number, ns)


# Interface indexes are positive C ints.
_MAX_INDEX = 2**31 - 1


def _zone_index(
    zone: str,
    destination: object,
    by_name: Callable[[str], Interface],
    by_index: Callable[[int], Interface],
) -> int:
    """The index of the link a zone names: a name first, then a number, as
    getaddrinfo (and ip's ``oif``) read it; ValueError when it names no link."""
    try:
        return by_name(zone).index
    except _netifc.NoSuchInterface:
        pass
    if zone.isascii() and zone.isdigit():
        number = int(zone)
        if number == 0:  # getaddrinfo's scope 0: no zone
            return 0
        if number <= _MAX_INDEX:
            try:
                return by_index(number).index
            except _netifc.NoSuchInterface:
                pass
    raise ValueError(
        f"route_get: no interface named or numbered {zone!r} for the zone of {str(destination)!r}"
    )


def _destination(
    destination: Union[str, ipaddress.IPv4Address, ipaddress.IPv6Address],
    by_name: Callable[[str], Interface],
    by_index: Callable[[int], Interface],
) -> Tuple[int, bytes, int]:
    """(family, packed address, interface index of its zone or 0)."""
    if isinstance(destination, str) and "%" not in destination:
        # The common case, without ipaddress's parsing (several times the request's cost).
        for family in (socket.AF_INET, socket.AF_INET6):
            try:
                return family, socket.inet_pton(family, destination), 0
            except (OSError, ValueError):
                continue
    if isinstance(destination, str):
        text = destination.strip()
        try:
            ip: Union[ipaddress.IPv4Address, ipaddress.IPv6Address] = ipaddress.ip_address(text)
        except ValueError:
            raise ValueError(
                f"route_get: {destination!r} is not an IPv4 or IPv6 address"
                " (a single address, without a prefix length)"
            ) from None
    elif isinstance(destination, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
        ip = destination
    else:
        raise TypeError(
            "route_get: destination must be str, IPv4Address or IPv6Address,"
            f" not {type(destination).__name__}"
        )
    zone = ip.scope_id if isinstance(ip, ipaddress.IPv6Address) else None
    index = _zone_index(zone, destination, by_name, by_index) if zone else 0
    family = socket.AF_INET if ip.version == 4 else socket.AF_INET6
    return family, ip.packed, index


def route_get(destination: Union[str, ipaddress.IPv4Address, ipaddress.IPv6Address]) -> Route:
    """The route the kernel would choose for a packet to ``destination``, as
    ``ip route get`` shows it: one RTM_GETROUTE request, not a dump.

    ``destination`` is an address (text or ``ipaddress``); an IPv6 zone
    (``fe80::1%eth0``) asks for the route out of that interface, read as a
    name first, then as an index (``%2``), as getaddrinfo reads it. Raises
    TypeError or ValueError for anything else (ValueError for a zone that
    names no interface); OSError with the kernel's
    errno when there is no route (ENETUNREACH; EHOSTUNREACH or EACCES for
    an unreachable or prohibit route; EINVAL for a blackhole one).
    """
    return _route_get_in(None, _netifc.interface_by_name, destination)


def _route_get_in(
    ns: Optional[_NetNS],
    by_name: Callable[[str], Interface],
    destination: Union[str, ipaddress.IPv4Address, ipaddress.IPv6Address],
) -> Route:
    """route_get() in the caller's namespace (ns None) or in ns; by_name: that
    namespace's interface_by_name, for a zone."""
    by_index = ns.interface_by_index if ns is not None else _netifc.interface_by_index
    family, packed, index = _destination(destination, by_name, by_index)
    if not hasattr(_netifc, "_route_get"):
        raise _linux_only()
    return _netifc._route_get(family, packed, index, ns)


@dataclasses.dataclass(frozen=True)
class Gateway:
    """A default route's gateway: its address (IPv6 link-local with its zone,
    ``fe80::1%eth0``), the interface it is reached on, the metric, and the
    route it comes from."""

    gateway: str
    ifname: str
    index: int
    metric: int
    route: Route


def _zoned(gateway: str, ifname: str) -> str:
    """An IPv6 link-local gateway (fe80::/10) with its zone."""
    if ":" in gateway and ifname:
        packed = socket.inet_pton(socket.AF_INET6, gateway)
        if packed[0] == 0xFE and packed[1] & 0xC0 == 0x80:
            return f"{gateway}%{ifname}"
    return gateway


def default_gateways() -> Dict[socket.AddressFamily, Tuple[Gateway, ...]]:
    """Per family (AF_INET, AF_INET6), the gateways of the main table's
    default routes, by metric (lowest, the one used, first); a multipath
    default route gives one Gateway per next hop. A family with no default
    gateway is left out. Raises OSError when the kernel fails.
    """
    return _gateways(_routes_in(None, None, "main"))


def _gateways(main: Tuple[Route, ...]) -> Dict[socket.AddressFamily, Tuple[Gateway, ...]]:
    """default_gateways() of the main table's routes."""
    found: Dict[socket.AddressFamily, list[Gateway]] = {}
    for r in main:
        if r.prefixlen or r.type != _UNICAST:
            continue
        hops = [(h.gateway, h.ifname, h.index) for h in r.nexthops] or [
            (r.gateway, r.ifname, r.index)
        ]
        for gw, name, index in hops:
            if gw is not None:
                found.setdefault(r.family, []).append(
                    Gateway(_zoned(gw, name), name, index, r.metric, r)
                )
    return {f: tuple(sorted(g, key=_metric_of)) for f, g in sorted(found.items())}


def _metric_of(g: Gateway) -> int:
    return g.metric
