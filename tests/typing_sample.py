"""A typed use of every public name of netifc.

``mypy --strict --disallow-any-expr`` checks it (tests/test_typing.py): each
assert_type() is a claim of the stubs, and no expression may be Any.  Run, it
checks the same claims against the objects it gets.
"""

from __future__ import annotations

import asyncio
import socket
from ipaddress import (
    IPv4Address,
    IPv4Interface,
    IPv4Network,
    IPv6Address,
    IPv6Interface,
    IPv6Network,
)
from typing import TYPE_CHECKING, Iterator  # noqa: F401 (named by an assert_type string)

import netifc

if TYPE_CHECKING:
    from typing_extensions import assert_type
else:

    def assert_type(value, _type):
        return value


def check_interface(i: netifc.Interface) -> None:
    assert isinstance(assert_type(i.index, int), int)
    assert isinstance(assert_type(i.name, str), str)
    assert isinstance(assert_type(i.mtu, int), int)
    assert isinstance(assert_type(i.flags, netifc.Flags), netifc.Flags)
    assert isinstance(assert_type(i.raw_flags, int), int)
    assert isinstance(assert_type(i.hardware_addr, bytes), bytes)
    assert isinstance(assert_type(i.hardware_addr_str, str), str)
    assert isinstance(assert_type(i.hardware_broadcast, bytes), bytes)
    altnames = assert_type(i.altnames, "tuple[str, ...]")
    assert isinstance(altnames, tuple) and all(isinstance(n, str) for n in altnames)
    assert isinstance(assert_type(i.operstate, str), str)
    assert isinstance(assert_type(i.link_type, netifc.LinkType), netifc.LinkType)
    for a in assert_type(i.addrs(), "tuple[netifc.Addr, ...]"):
        check_addr(a)
    for g in assert_type(i.multicast_addrs(), "tuple[netifc.Addr, ...]"):
        check_addr(g)
    assert isinstance(assert_type(hash(i), int), int)
    assert assert_type(i == i, bool)


def check_addr(a: netifc.Addr) -> None:
    assert isinstance(assert_type(a.family, socket.AddressFamily), socket.AddressFamily)
    assert isinstance(assert_type(a.address, str), str)
    assert isinstance(assert_type(a.prefixlen, int), int)
    assert isinstance(assert_type(a.zone, str), str)
    assert isinstance(assert_type(a.index, int), int)
    assert isinstance(assert_type(a.peer, "str | None"), (str, type(None)))
    assert isinstance(assert_type(a.broadcast, "str | None"), (str, type(None)))
    assert isinstance(assert_type(a.scope, netifc.Scope), netifc.Scope)
    flags = assert_type(a.flags, "netifc.AddrFlags | netifc.Addr6Flags")
    assert isinstance(flags, netifc.Addr6Flags if a.family == socket.AF_INET6 else netifc.AddrFlags)
    for lifetime in (a.preferred_lifetime, a.valid_lifetime):
        assert isinstance(assert_type(lifetime, "int | None"), (int, type(None)))
        assert lifetime is None or 0 <= lifetime <= netifc.FOREVER
    assert isinstance(assert_type(a.ip, "IPv4Address | IPv6Address"), (IPv4Address, IPv6Address))
    assert isinstance(
        assert_type(a.interface, "IPv4Interface | IPv6Interface"), (IPv4Interface, IPv6Interface)
    )
    assert isinstance(
        assert_type(a.network, "IPv4Network | IPv6Network"), (IPv4Network, IPv6Network)
    )
    assert isinstance(assert_type(str(a), str), str)


def check_snapshot(snap: netifc.Snapshot) -> None:
    assert isinstance(assert_type(snap.interfaces, "tuple[netifc.Interface, ...]"), tuple)
    assert isinstance(assert_type(snap.addrs, "tuple[netifc.Addr, ...]"), tuple)
    it = assert_type(iter(snap), "Iterator[netifc.Interface]")
    first = next(it)
    assert assert_type(snap.by_index(first.index), netifc.Interface) == first
    assert assert_type(snap.by_name(first.name), netifc.Interface) == first
    assert assert_type(snap.addrs_of(first), "tuple[netifc.Addr, ...]") == snap.addrs_of(
        first.index
    )
    assert assert_type(len(snap), int) == len(snap.interfaces)


def check_flags() -> None:
    up: netifc.Flags = netifc.Flags.UP | netifc.Flags.RUNNING
    assert assert_type(str(up), str) == "up|running"
    assert assert_type(f"{up:#x}", str) == "0x21"
    assert assert_type(int(netifc.AddrFlags.SECONDARY), int) == int(netifc.Addr6Flags.TEMPORARY)
    assert assert_type(netifc.FOREVER, int) == 0xFFFFFFFF


def check_module() -> None:
    ifaces = assert_type(netifc.interfaces(), "tuple[netifc.Interface, ...]")
    for i in ifaces:
        check_interface(i)
    lo = assert_type(netifc.interface_by_index(ifaces[0].index), netifc.Interface)
    assert assert_type(netifc.interface_by_name(lo.name), netifc.Interface) == lo
    addrs = assert_type(netifc.interface_addrs(), "tuple[netifc.Addr, ...]")
    for a in addrs:
        check_addr(a)
    check_snapshot(assert_type(netifc.snapshot(), netifc.Snapshot))
    check_snapshot(assert_type(netifc.multicast_snapshot(), netifc.Snapshot))
    assert assert_type(netifc.backend, str) in ("netlink", "getifaddrs")
    try:
        netifc.interface_by_index(2**31 - 1)
    except netifc.NoSuchInterface as e:
        assert isinstance(assert_type(e, netifc.NoSuchInterface), LookupError)
    for text in (
        netifc.render_text(ifaces, addrs),
        netifc.render_brief(ifaces, addrs),
        netifc.render_json(ifaces, addrs),
    ):
        assert isinstance(assert_type(text, str), str)
    assert isinstance(netifc.to_json(ifaces, addrs), list)


def describe(e: netifc.Event) -> str:
    """Every event type, and what each carries."""
    if isinstance(e, (netifc.LinkAdded, netifc.LinkRemoved)):
        return assert_type(e.link, netifc.Interface).name
    if isinstance(e, netifc.LinkChanged):
        return f"{assert_type(e.old, netifc.Interface).name} {e.new.name}"
    if isinstance(e, (netifc.AddrAdded, netifc.AddrRemoved)):
        return str(assert_type(e.addr, netifc.Addr))
    if isinstance(e, netifc.AddrChanged):
        return f"{assert_type(e.old, netifc.Addr)} {e.new}"
    if isinstance(e, (netifc.GroupJoined, netifc.GroupLeft)):
        return str(assert_type(e.group, netifc.Addr))
    if isinstance(e, netifc.Resync):
        return (
            f"{len(assert_type(e.interfaces, 'tuple[netifc.Interface, ...]'))}"
            f" {len(assert_type(e.addrs, 'tuple[netifc.Addr, ...]'))} {len(e.groups)}"
        )
    return ""


def check_live() -> None:
    lv = assert_type(netifc.live(), netifc.Live)
    try:
        first = assert_type(lv.interfaces, "tuple[netifc.Interface, ...]")[0]
        assert assert_type(lv.by_index(first.index), netifc.Interface) == first
        assert assert_type(lv.by_name(first.name), netifc.Interface) == first
        for a in assert_type(lv.addrs_of(first), "tuple[netifc.Addr, ...]"):
            check_addr(a)
        for g in assert_type(lv.groups_of(first.index), "tuple[netifc.Addr, ...]"):
            check_addr(g)
        assert isinstance(assert_type(lv.addrs, "tuple[netifc.Addr, ...]"), tuple)
        assert isinstance(assert_type(lv.groups, "tuple[netifc.Addr, ...]"), tuple)
        check_snapshot(assert_type(lv.snapshot(), netifc.Snapshot))
    finally:
        lv.close()
    with netifc.live() as held:
        assert isinstance(assert_type(held, netifc.Live).interfaces, tuple)
    with netifc.Watcher() as w:
        assert isinstance(assert_type(w.fileno(), int), int)
        for e in assert_type(w.poll(0), "list[netifc.Event]"):
            assert isinstance(describe(e), str)
        assert isinstance(assert_type(w.interfaces, "tuple[netifc.Interface, ...]"), tuple)


def lo_of(tables: netifc.Live) -> netifc.Interface:
    return tables.by_name("lo")


async def check_async_waits() -> None:
    lo = assert_type(await netifc.async_wait_link("lo", up=True, timeout=5), netifc.Interface)
    a = assert_type(await netifc.async_wait_addr(lo, 4, timeout=5), netifc.Addr)
    assert a.index == lo.index
    try:
        gw = assert_type(await netifc.async_wait_default_route(timeout=0), netifc.Gateway)
        assert isinstance(gw.ifname, str)
    except TimeoutError:
        pass
    got = assert_type(await netifc.async_wait_until(lo_of, timeout=5), netifc.Interface)
    assert got.index == lo.index


def check_waits() -> None:
    lo = assert_type(
        netifc.wait_link("lo", up=True, operstate="unknown", timeout=5), netifc.Interface
    )
    a = assert_type(
        netifc.wait_addr("lo", socket.AF_INET, address="127.0.0.1", timeout=5), netifc.Addr
    )
    assert a.address == "127.0.0.1"
    try:
        gw = assert_type(netifc.wait_default_route(6, timeout=0), netifc.Gateway)
        assert isinstance(gw.gateway, str)
    except TimeoutError:
        pass
    assert assert_type(netifc.wait_until(lo_of, what="lo", timeout=5), netifc.Interface) == lo
    asyncio.run(check_async_waits())


def check_counters() -> None:
    every = assert_type(netifc.counters(), "tuple[netifc.Counters, ...]")
    for c in every:
        assert isinstance(assert_type(c.index, int), int)
        assert isinstance(assert_type(c.ifname, str), str)
        rx = assert_type(c.rx_bytes, "int | None")
        assert rx is None or rx >= 0
        assert isinstance(assert_type(c.as_dict(), "dict[str, int | None]"), dict)
    lo = netifc.interface_by_name("lo")
    assert assert_type(lo.counters(), netifc.Counters).index == lo.index
    ls = assert_type(lo.link_settings(), "netifc.LinkSettings | None")
    if ls is not None:
        assert_type(ls.speed, "int | None")
        assert_type(ls.duplex, "str | None")


def check_routes() -> None:
    for r in assert_type(netifc.routes(None, "all"), "tuple[netifc.Route, ...]"):
        assert isinstance(assert_type(r.type, netifc.RouteType), netifc.RouteType)
        assert isinstance(assert_type(r.destination, str), str)
        assert isinstance(assert_type(r.gateway, "str | None"), (str, type(None)))
        assert isinstance(assert_type(r.metric, int), int)
        assert isinstance(assert_type(r.table, int), int)
        assert isinstance(assert_type(r.ifname, str), str)
        assert isinstance(assert_type(r.protocol, netifc.RouteProtocol), netifc.RouteProtocol)
        assert isinstance(assert_type(r.scope, netifc.Scope), netifc.Scope)
        assert isinstance(assert_type(r.flags, netifc.RouteFlags), netifc.RouteFlags)
        for h in assert_type(r.nexthops, "tuple[netifc.NextHop, ...]"):
            assert isinstance(assert_type(h.weight, int), int)
            assert isinstance(assert_type(h.ifname, str), str)
            assert isinstance(assert_type(h.flags, netifc.RouteFlags), netifc.RouteFlags)
    for family, gws in netifc.default_gateways().items():
        for g in assert_type(gws, "tuple[netifc.Gateway, ...]"):
            assert assert_type(g.route, netifc.Route).family == family
            assert isinstance(assert_type(g.gateway, str), str)
            assert isinstance(assert_type(g.ifname, str), str)
    r = assert_type(netifc.route_get("127.0.0.1"), netifc.Route)
    assert r.type == netifc.RouteType.LOCAL


def check_netns() -> None:
    """This thread's own namespace, by path (entering it needs CAP_SYS_ADMIN too)."""
    try:
        ns = assert_type(netifc.NetNS("/proc/thread-self/ns/net"), netifc.NetNS)
    except PermissionError:
        return
    with ns:
        assert isinstance(assert_type(ns.name, "str | None"), (str, type(None)))
        assert isinstance(assert_type(ns.path, "str | None"), str)
        assert isinstance(assert_type(ns.fileno(), int), int)
        first = assert_type(ns.interfaces(), "tuple[netifc.Interface, ...]")[0]
        check_interface(assert_type(ns.interface_by_index(first.index), netifc.Interface))
        check_interface(assert_type(ns.interface_by_name(first.name), netifc.Interface))
        for a in assert_type(ns.interface_addrs(), "tuple[netifc.Addr, ...]"):
            check_addr(a)
        check_snapshot(assert_type(ns.snapshot(), netifc.Snapshot))
        check_snapshot(assert_type(ns.multicast_snapshot(), netifc.Snapshot))
        assert isinstance(assert_type(ns.routes(None, "all"), "tuple[netifc.Route, ...]"), tuple)
        assert isinstance(
            assert_type(
                ns.default_gateways(), "dict[socket.AddressFamily, tuple[netifc.Gateway, ...]]"
            ),
            dict,
        )
        assert assert_type(ns.route_get("127.0.0.1"), netifc.Route).type == netifc.RouteType.LOCAL
        assert {assert_type(c, netifc.Counters).index for c in ns.counters()} == {
            i.index for i in ns.interfaces()
        }
        lv = assert_type(ns.live(), netifc.Live)
        assert assert_type(lv.by_index(first.index), netifc.Interface) == first
        lv.close()
        with (
            assert_type(netifc.Watcher(netns=ns), netifc.Watcher) as w,
            assert_type(ns.Watcher(), netifc.Watcher) as w2,
        ):
            for e in assert_type(w.poll(0), "list[netifc.Event]") + w2.poll(0):
                assert isinstance(describe(e), str)
        assert_type(netifc.live(ns), netifc.Live).close()
    assert assert_type(ns.closed, bool)


def check_compat() -> None:
    """netifc.compat.netifaces: netifaces 0.11's shapes, typed."""
    import netifc.compat.netifaces as netifaces

    names = assert_type(netifaces.interfaces(), "list[str]")
    assert "lo" in names
    lo = assert_type(netifaces.ifaddresses("lo"), "dict[int, list[dict[str, str]]]")
    assert assert_type(lo[netifaces.AF_INET][0]["addr"], str) == "127.0.0.1"
    assert isinstance(assert_type(netifaces.AF_LINK, int), int)
    assert isinstance(assert_type(netifaces.address_families, "dict[int, str]"), dict)
    gws = netifaces.gateways()
    default = gws["default"]
    assert isinstance(default, dict)
    for family, entries in gws.items():
        if family != "default":
            assert isinstance(entries, list)
            assert all(
                isinstance(assert_type(gw, "tuple[str, str, bool]")[2], bool) for gw in entries
            )


def main() -> None:
    check_flags()
    check_module()
    check_live()
    check_waits()
    check_counters()
    check_routes()
    check_netns()
    check_compat()


if __name__ == "__main__":
    main()
