"""netifc against iproute2, on the host and in the lab namespace, on every backend."""

import socket

import pytest

import netifc
from conftest import require_namespaces
from nslab import Netns, ip_addrs, ip_groups, ip_links

pytestmark = pytest.mark.backends  # every test, on every backend (conftest.py)

FAMILY = {"inet": socket.AF_INET, "inet6": socket.AF_INET6}
GO_FLAG = {
    "UP": netifc.Flags.UP,
    "BROADCAST": netifc.Flags.BROADCAST,
    "LOOPBACK": netifc.Flags.LOOPBACK,
    "POINTOPOINT": netifc.Flags.POINTTOPOINT,
    "MULTICAST": netifc.Flags.MULTICAST,
}


def check_link(i, want, backend):
    assert (i.index, i.name, i.mtu) == (want["index"], want["name"], want["mtu"])
    assert i.hardware_addr_str == want["hw"]
    assert i.hardware_addr == bytes.fromhex(want["hw"].replace(":", ""))
    flags = netifc.Flags(0)
    for word, bit in GO_FLAG.items():
        if word in want["flags"]:
            flags |= bit
    if want["running"]:
        flags |= netifc.Flags.RUNNING
    assert i.flags == flags, (i, want)
    if want["link_type"] is not None:
        assert i.link_type == want["link_type"]
    if backend == "getifaddrs":  # derived from the flags: never "unknown"
        assert (i.operstate == "up") == want["running"]
    else:
        assert i.operstate == want["operstate"]


def check_addr(a, want, backend, lifetime_slack=3):
    assert a.family == FAMILY[want["family"]]
    assert (a.address, a.prefixlen, a.index) == (want["address"], want["prefixlen"], want["index"])
    assert (a.peer, a.broadcast, a.zone) == (want["peer"], want["broadcast"], want["zone"]), (
        a,
        want,
    )
    if backend == "getifaddrs":
        # getifaddrs() has no lifetimes: unknown, never "forever".
        assert a.valid_lifetime is None and a.preferred_lifetime is None
        return
    assert a.scope == want["scope"]
    f = a.flags
    assert bool(f & netifc.AddrFlags.SECONDARY) == want["secondary"]
    assert bool(f & netifc.AddrFlags.TENTATIVE) == want["tentative"]
    assert bool(f & netifc.AddrFlags.DEPRECATED) == want["deprecated"]
    assert bool(f & netifc.AddrFlags.NODAD) == want["nodad"]
    assert bool(f & netifc.AddrFlags.PERMANENT) == (not want["dynamic"])
    for got, exp in ((a.valid_lifetime, want["valid"]), (a.preferred_lifetime, want["preferred"])):
        if exp == 4294967295:
            assert got == netifc.FOREVER
        else:
            assert got is not None and abs(got - exp) <= lifetime_slack


def test_interfaces_match_ip(where, backend):
    want = ip_links(where)
    with where.entered():
        got = netifc.interfaces()
    assert sorted(i.index for i in got) == sorted(want)
    for i in got:
        check_link(i, want[i.index], backend)


def test_lookups_match_ip(where, backend):
    want = ip_links(where)
    with where.entered():
        for index, w in want.items():
            check_link(netifc.interface_by_index(index), w, backend)
            check_link(netifc.interface_by_name(w["name"]), w, backend)


def test_interface_addrs_match_ip(where, backend):
    want = ip_addrs(where)
    with where.entered():
        got = netifc.interface_addrs()
    flat = sorted(
        (w for rows in want.values() for w in rows),
        key=lambda w: (w["index"], w["family"], w["address"]),
    )
    got = sorted(
        got, key=lambda a: (a.index, "inet" if a.family == socket.AF_INET else "inet6", a.address)
    )
    assert len(got) == len(flat)
    for a, w in zip(got, flat):
        check_addr(a, w, backend)


def test_addrs_per_interface_match_ip(where, backend):
    want = ip_addrs(where)
    with where.entered():
        for i in netifc.interfaces():
            got = i.addrs()
            rows = want.get(i.index, [])
            if backend == "getifaddrs":  # glibc orders by its own rules
                got = sorted(got, key=lambda a: (a.family, a.address))
                rows = sorted(rows, key=lambda w: (FAMILY[w["family"]], w["address"]))
            assert len(got) == len(rows), i
            for a, w in zip(got, rows):
                check_addr(a, w, backend)


def test_multicast_match_ip(where, backend):
    want = ip_groups(where)
    with where.entered():
        ifaces = netifc.interfaces()
        snap = netifc.multicast_snapshot()
        for i in ifaces:
            got = i.multicast_addrs()
            key = sorted(
                ("inet" if g.family == socket.AF_INET else "inet6", g.address, g.zone) for g in got
            )
            assert key == want.get(i.index, []), i
            for g in got:
                assert g.index == i.index and g.ip.is_multicast
                assert g.prefixlen == (32 if g.family == socket.AF_INET else 128)
                assert g.peer is None and g.broadcast is None
            assert sorted(map(str, snap.addrs_of(i.index))) == sorted(map(str, got))


def test_snapshot_matches_calls(where, backend):
    with where.entered():
        snap = netifc.snapshot()
        assert snap.interfaces == netifc.interfaces()
        assert sorted(snap.addrs, key=str) == sorted(netifc.interface_addrs(), key=str)
        for i in snap.interfaces:
            assert snap.by_index(i.index) == i == snap.by_name(i.name)
            assert snap.addrs_of(i) == tuple(a for a in snap.addrs if a.index == i.index)
        indexes = {i.index for i in snap.interfaces}
        assert all(a.index in indexes for a in snap.addrs)


def test_lab_details(lab, backend):
    """The odd cases, asserted one by one."""
    with lab.entered():
        tun = netifc.interface_by_name("tun0")
        assert tun.flags & netifc.Flags.POINTTOPOINT
        assert tun.hardware_addr == b""
        (a4,) = [a for a in tun.addrs() if a.family == socket.AF_INET]
        assert (a4.address, a4.peer, a4.prefixlen, a4.broadcast) == (
            "10.9.0.1",
            "10.9.0.2",
            32,
            None,
        )
        v6 = [a for a in tun.addrs() if a.address == "2001:db8:9::1"]
        assert v6 and v6[0].peer == "2001:db8:9::2"
        v1 = netifc.interface_by_name("v1")
        addrs = v1.addrs()
        assert len([a for a in addrs if a.address.startswith("198.51.100.")]) == 60
        slash31 = [a for a in addrs if a.address == "10.31.0.0"][0]
        assert slash31.broadcast is None and slash31.prefixlen == 31
        v0 = netifc.interface_by_name("v0")
        link_local = [a for a in v0.addrs() if a.ip.is_link_local]
        assert link_local and all(a.zone == "v0" and str(a).endswith("%v0/64") for a in link_local)
        assert all(a.ip.scope_id == "v0" for a in link_local)
        down = netifc.interface_by_name("vd0")
        assert not down.flags & netifc.Flags.UP and down.operstate == "down"
        assert [a.address for a in down.addrs()] == ["198.18.0.1"]
        if backend != "getifaddrs":
            sec = [a for a in v0.addrs() if a.address == "192.0.2.2"][0]
            assert sec.flags & netifc.AddrFlags.SECONDARY
            dep = [a for a in v0.addrs() if a.address == "2001:db8:2::1"][0]
            assert dep.flags & netifc.AddrFlags.DEPRECATED and dep.preferred_lifetime == 0
            # Against ip read right after: the lab may be minutes old by now.
            want = [
                a
                for a in lab.ipj("addr", "show", "dev", "v0")[0]["addr_info"]
                if a["local"] == "2001:db8:2::1"
            ][0]["valid_life_time"]
            assert 0 <= dep.valid_lifetime - want <= 2 and dep.valid_lifetime <= 3600
            tent = [
                a for a in netifc.interface_by_name("vt0").addrs() if a.address == "2001:db8:7::1"
            ][0]
            assert tent.flags & netifc.AddrFlags.TENTATIVE


def test_names_round_trip(lab, backend):
    from nslab import BYTES_NAME, LONG_NAME, ODD_NAME

    with lab.entered():
        for name in (LONG_NAME, ODD_NAME, BYTES_NAME):
            i = netifc.interface_by_name(name)
            assert i.name == name
            assert netifc.interface_by_index(i.index).name == name
        assert [
            a.address
            for a in netifc.interface_by_name(LONG_NAME).addrs()
            if a.family == socket.AF_INET
        ] == ["198.19.0.1"]
        with pytest.raises(netifc.NoSuchInterface):
            netifc.interface_by_name(LONG_NAME + "p")


def test_interface_deleted_between_calls(lab, backend):
    lab.ip("link", "add", "gone0", "type", "veth", "peer", "name", "gone1")
    lab.ip("addr", "add", "198.20.0.1/24", "dev", "gone0")
    with lab.entered():
        gone = netifc.interface_by_name("gone0")
        assert [a.address for a in gone.addrs()] == ["198.20.0.1"]
    lab.ip("link", "del", "gone0")
    with lab.entered():
        for method in (gone.addrs, gone.multicast_addrs, gone.counters, gone.link_settings):
            with pytest.raises(netifc.NoSuchInterface, match="'gone0'"):
                method()
        with pytest.raises(netifc.NoSuchInterface):
            netifc.interface_by_index(gone.index)
        with pytest.raises(netifc.NoSuchInterface):
            netifc.interface_by_name("gone0")
        assert all(a.index != gone.index for a in netifc.interface_addrs())


def test_thread_follows_its_namespace(lab, host, backend):
    """The same thread, in and out of a namespace: each call answers for where it is."""
    outside = {i.name for i in netifc.interfaces()}
    with lab.entered():
        inside = {i.name for i in netifc.interfaces()}
        assert inside == {l["name"] for l in ip_links(lab).values()}
    assert (
        {i.name for i in netifc.interfaces()}
        == outside
        == {l["name"] for l in ip_links(host).values()}
    )
    assert "tun0" in inside and "tun0" not in outside


@pytest.fixture(scope="module")
def scopes():
    """A namespace whose addresses, added without a scope, take every scope
    the kernel derives: loopback host, link-local link, fec0::/10 site, and
    global for the rest (2001:db8::/32, fd00::/8, 192.0.2.0/24)."""
    require_namespaces()
    ns = Netns("scopes")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            [
                "link set lo up",
                "link add sc0 type veth peer name sc1",
                "link set sc0 up",
                "link set sc1 up",
                "addr add 192.0.2.1/24 dev sc0",
                "addr add 2001:db8::1/64 dev sc0",
                "addr add fec0::1/64 dev sc0",
                "addr add fd00::1/64 dev sc0",
            ]
        )
        yield ns
    finally:
        ns.delete()


def test_default_scopes_match_ip(scopes, backend):
    """getifaddrs() tells no scope; its backend derives it by the kernel's
    rules, so every backend agrees with ip on an address given none."""
    want = {(w["index"], w["address"]): w["scope"] for r in ip_addrs(scopes).values() for w in r}
    assert {0, 200, 253, 254} <= set(want.values())
    with scopes.entered():
        got = {(a.index, a.address): a.scope for a in netifc.interface_addrs()}
    assert got == want
