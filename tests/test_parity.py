"""One set of rules (docs/rules.rst), held by every way netifc answers: the
same good and bad inputs through the module's functions, a NetNS, live()
and snapshot(), each expected to give the same answer -- for good input,
the one `ip -n NAME -j` gives.

Every source reads one namespace the test builds: the module's functions,
live() and snapshot() from a thread entered into it, the NetNS from outside.
"""

import copy
import os
import pickle
import socket

import pytest

import netifc
from conftest import require_namespaces
from nslab import Netns


@pytest.fixture(params=["netlink", "getifaddrs"], autouse=True)
def backend(request):
    """Both backends (NetNS and live() are netlink's: getifaddrs leaves the NetNS out)."""
    netifc._netifc._set_backend(request.param, 0)
    try:
        yield request.param
    finally:
        netifc._netifc._set_backend(os.environ.get("NETIFC_BACKEND", ""), 0)


@pytest.fixture(scope="module")
def place():
    require_namespaces()
    ns = Netns("par")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            [
                "link add pa type veth peer name pb",
                # no link-local address coming up after ip is read
                "link set pa addrgenmode none",
                "link set pb addrgenmode none",
                "addr add 192.0.2.1/24 brd + dev pa",
                "addr add 2001:db8:7::1/64 dev pa",
                "addr add 198.51.100.9/32 dev pb",
                "link set pa up",
                "link set pb up",
                "route add 203.0.113.0/24 via 192.0.2.254 dev pa proto static metric 7",
            ]
        )
        yield ns
    finally:
        ns.delete()


class Source:
    """One way of asking: by_index, by_name, addrs_of (an Interface's
    addresses) and every interface, as that way spells them."""

    def __init__(self, name, by_index, by_name, addrs_of, interfaces, close=lambda: None):
        self.name, self.by_index, self.by_name = name, by_index, by_name
        self.addrs_of, self.interfaces, self.close = addrs_of, interfaces, close


@pytest.fixture
def sources(place, backend):
    """The four ways, each made while this thread is in the namespace."""
    made = []
    with place.entered():
        made.append(
            Source(
                "module",
                netifc.interface_by_index,
                netifc.interface_by_name,
                lambda i: i.addrs(),
                netifc.interfaces,
            )
        )
        snap = netifc.snapshot()
        made.append(
            Source("snapshot", snap.by_index, snap.by_name, snap.addrs_of, lambda: snap.interfaces)
        )
        lv = netifc.live()
        made.append(
            Source("live", lv.by_index, lv.by_name, lv.addrs_of, lambda: lv.interfaces, lv.close)
        )
    if backend == "netlink":
        ns = netifc.NetNS(place.name)
        made.append(
            Source(
                "NetNS",
                ns.interface_by_index,
                ns.interface_by_name,
                lambda i: i.addrs(),
                ns.interfaces,
                ns.close,
            )
        )
    try:
        with place.entered():
            yield made
    finally:
        for s in made:
            s.close()


def addr_keys(addrs):
    return sorted((a.address, a.prefixlen) for a in addrs)


# ---- good input: the same answer, and iproute2's ----------------------------------


def test_good_lookups_agree_with_ip(place, sources):
    links = {l["ifindex"]: l for l in place.ipj("link", "show")}
    addrs = {
        l["ifindex"]: sorted((a["local"], a["prefixlen"]) for a in l.get("addr_info", []))
        for l in place.ipj("addr", "show")
    }
    for s in sources:
        assert sorted(i.index for i in s.interfaces()) == sorted(links), s.name
        for index, want in links.items():
            by_index, by_name = s.by_index(index), s.by_name(want["ifname"])
            assert by_index == by_name, s.name
            assert (by_index.index, by_index.name, by_index.mtu) == (
                index,
                want["ifname"],
                want["mtu"],
            ), s.name
            assert addr_keys(s.addrs_of(by_index)) == addrs.get(index, []), (s.name, index)


# ---- bad input: one exception, one message ---------------------------------------

NO_INDEX = [0, -1, -(2**63), -(2**100), 2**31 - 1, 2**31, 2**64]
NO_NAME = ["", "x" * 16, "x" * 300, "a\0b", "pa\0", "\ud800", "no-such-if"]
NOT_INDEX = [None, "1", 1.0, True, b"\x01", [1]]
NOT_NAME = [None, 1, b"pa", bytearray(b"pa"), ["pa"]]


def raised(call):
    """(exception type, message) of call(), which must raise."""
    with pytest.raises(Exception) as e:
        call()
    return type(e.value), str(e.value)


def answers(sources, call):
    """{source: (exception type, message)} of call(source) for each source."""
    return {s.name: raised(lambda: call(s)) for s in sources}  # noqa: B023 (called at once)


@pytest.mark.parametrize("bad", NO_INDEX)
def test_no_such_index(sources, bad):
    got = answers(sources, lambda s: s.by_index(bad))
    assert set(got.values()) == {(netifc.NoSuchInterface, f"no such network interface: {bad!r}")}, (
        got
    )


@pytest.mark.parametrize("bad", NO_NAME)
def test_no_such_name(sources, bad):
    got = answers(sources, lambda s: s.by_name(bad))
    assert set(got.values()) == {(netifc.NoSuchInterface, f"no such network interface: {bad!r}")}, (
        got
    )


@pytest.mark.parametrize("bad", NOT_INDEX)
def test_index_of_another_type(sources, bad):
    got = answers(sources, lambda s: s.by_index(bad))
    assert set(got.values()) == {
        (TypeError, f"interface index must be int, not {type(bad).__name__}")
    }, got


@pytest.mark.parametrize("bad", NOT_NAME)
def test_name_of_another_type(sources, bad):
    got = answers(sources, lambda s: s.by_name(bad))
    assert set(got.values()) == {
        (TypeError, f"interface name must be str, not {type(bad).__name__}")
    }, got


@pytest.mark.parametrize("bad", [1, "x", 1.5, object(), b"ns"])
def test_netns_argument_of_another_type(bad):
    for call in (netifc.Watcher, netifc.live, netifc.Live):
        with pytest.raises(
            TypeError, match=f"netns must be a netifc.NetNS or None, not {type(bad).__name__}"
        ):
            call(bad)
    if not isinstance(bad, (str, int)):  # a name, a path or a descriptor: NetNS takes it
        with pytest.raises(
            TypeError,
            match="NetNS: netns must be a name, a path or a file"
            f" descriptor, not {type(bad).__name__}",
        ):
            netifc.NetNS(bad)


# ---- a vanished interface: NoSuchInterface from everything that asks for it ------


def test_vanished_interface(place, sources, backend):
    place.batch(
        [
            "link add pgone type veth peer name pgpeer",
            "addr add 192.0.2.77/32 dev pgone",
            "link set pgone up",
        ]
    )
    try:
        mine = {s.name: s.by_name("pgone") for s in sources if s.name in ("module", "NetNS")}
        live = [s for s in sources if s.name == "live"][0]
        held = live.by_name("pgone")
    finally:
        place.ip("link", "del", "pgone")
    assert "pgone" not in {l["ifname"] for l in place.ipj("link", "show")}
    for iface in mine.values():
        for method in ("addrs", "multicast_addrs", "counters", "link_settings"):
            with pytest.raises(netifc.NoSuchInterface, match="'pgone'"):
                getattr(iface, method)()
    for call in (
        lambda: live.addrs_of(held),
        lambda: live.by_index(held.index),
        lambda: netifc.snapshot().addrs_of(held),
    ):
        with pytest.raises(netifc.NoSuchInterface):
            call()


def test_present_interface_answers(sources):
    """The rule's other half: an interface still there answers, empty or not."""
    for s in sources:
        pb = s.by_name("pb")
        assert addr_keys(s.addrs_of(pb)) == [("198.51.100.9", 32)], s.name
        if s.name in ("module", "NetNS"):
            assert pb.counters().ifname == "pb"
            settings = pb.link_settings()  # a veth: speed 10000 or cannot tell
            assert settings is None or isinstance(settings, netifc.LinkSettings)


# ---- names and enums: one meaning each --------------------------------------------


def test_one_meaning_for_interface_names(place, backend):
    if backend != "netlink":
        pytest.skip("routes are read over netlink")
    with netifc.NetNS(place.name) as ns:
        pa = ns.interface_by_name("pa")
        routes = ns.routes()
        gateways = ns.default_gateways()
        counters = {c.index: c for c in ns.counters()}
        assert str(pa.addrs()[0].interface) == "192.0.2.1/24"
    static = [r for r in routes if r.destination == "203.0.113.0/24"]
    assert [(r.index, r.ifname, r.gateway) for r in static] == [(pa.index, "pa", "192.0.2.254")]
    assert counters[pa.index].ifname == "pa"
    assert gateways == {}
    for record in (static[0], counters[pa.index]):
        assert not hasattr(record, "interface") and not hasattr(record, "name")
    # Events carry an Interface as .link, as address events carry .addr.
    assert netifc.LinkAdded.__slots__ == ("link",) == netifc.LinkRemoved.__slots__
    # .interface is only ever ipaddress's (Addr.interface, checked above).


def test_enums_by_one_rule(place, backend):
    """Every number the kernel names is an enum (IntEnum or IntFlag), equal
    to the kernel's int and printed as ip prints it."""
    if backend != "netlink":
        pytest.skip("routes are read over netlink")
    with netifc.NetNS(place.name) as ns:
        pa = ns.interface_by_name("pa")
        addrs = pa.addrs()
        routes = ns.routes()
    assert isinstance(pa.flags, netifc.Flags)
    assert isinstance(pa.link_type, netifc.LinkType) and pa.link_type == 1
    assert str(pa.link_type) == "ether"
    want = {
        a["local"]: a["scope"]
        for l in place.ipj("addr", "show", "dev", "pa")
        for a in l["addr_info"]
    }
    for a in addrs:
        assert isinstance(a.scope, netifc.Scope) and str(a.scope) == want[a.address]
        assert isinstance(
            a.flags, netifc.Addr6Flags if a.family == socket.AF_INET6 else netifc.AddrFlags
        )
    ip_routes = {r["dst"]: r for r in place.ipj("route", "show")}
    for r in routes:
        assert isinstance(r.type, netifc.RouteType)
        assert isinstance(r.protocol, netifc.RouteProtocol)
        assert isinstance(r.scope, netifc.Scope)
        assert isinstance(r.flags, netifc.RouteFlags)
        for h in r.nexthops:
            assert isinstance(h.flags, netifc.RouteFlags)
        j = ip_routes.get(r.destination)
        if j is not None:
            assert str(r.protocol) == j.get("protocol", "boot"), (r, j)
            assert str(r.scope) == j.get("scope", "global"), (r, j)
    # A value no member names keeps its number.
    assert int(netifc.RouteProtocol(250)) == 250 and str(netifc.RouteProtocol(250)) == "250"
    assert str(netifc.Scope(100)) == "100" and str(netifc.LinkType(9999)) == "9999"


# ---- copies keep the namespace; a pickle refuses it ---------------------------------


def test_copy_of_a_netns_interface_asks_its_namespace(place, backend):
    if backend != "netlink":
        pytest.skip("NetNS is netlink's")
    with netifc.NetNS(place.name) as ns:
        pb = ns.interface_by_name("pb")
        for twin in (copy.copy(pb), copy.deepcopy(pb)):
            assert twin == pb
            # Read in the caller's own namespace, pb's index names another
            # link or none: the copy must still ask place's kernel.
            assert addr_keys(twin.addrs()) == [("198.51.100.9", 32)]
            assert twin.counters().ifname == "pb"
        with pytest.raises(TypeError, match="cannot pickle a network namespace"):
            pickle.dumps(pb)
    lo = netifc.interface_by_name("lo")
    assert pickle.loads(pickle.dumps(lo)) == lo == copy.copy(lo)


# ---- the other calls: the module's and a NetNS's, the same ------------------------


def test_routes_counters_gateways_agree(place, backend):
    if backend != "netlink":
        pytest.skip("NetNS is netlink's")
    with netifc.NetNS(place.name) as ns:
        theirs = (
            ns.routes(None, "all"),
            ns.route_get("203.0.113.5"),
            ns.default_gateways(),
            sorted((c.index, c.ifname) for c in ns.counters()),
            ns.snapshot().interfaces,
            ns.interface_addrs(),
        )
        with place.entered():
            mine = (
                netifc.routes(None, "all"),
                netifc.route_get("203.0.113.5"),
                netifc.default_gateways(),
                sorted((c.index, c.ifname) for c in netifc.counters()),
                netifc.snapshot().interfaces,
                netifc.interface_addrs(),
            )
        assert mine == theirs
        want = place.ipj("route", "get", "203.0.113.5")[0]
        got = theirs[1]
        assert (got.gateway, got.ifname, got.prefsrc) == (
            want["gateway"],
            want["dev"],
            want["prefsrc"],
        )
        for call in (
            lambda s: s.routes("x"),
            lambda s: s.routes(None, 1.5),
            lambda s: s.routes(99),
            lambda s: s.routes(None, "no-such-table"),
            lambda s: s.route_get(1),
            lambda s: s.route_get("not an address"),
            lambda s: s.route_get("fe80::1%no-such-if"),
        ):
            with place.entered():
                expected = raised(lambda: call(netifc))  # noqa: B023 (called at once)
            assert raised(lambda: call(ns)) == expected  # noqa: B023
            assert expected[0] in (TypeError, ValueError), expected


def test_watcher_poll_names_its_argument():
    with netifc.Watcher() as w:
        for bad in ("1", b"1", [1], True):
            with pytest.raises(
                TypeError,
                match=f"poll: timeout must be a number of seconds or None, not {type(bad).__name__}",
            ):
                w.poll(bad)
        assert isinstance(w.poll(0), list) and isinstance(w.poll(0.0), list)


def test_event_json_follows_the_names():
    """The CLI's --watch --json says "link" where the event's field is .link."""
    from netifc.render import event_json

    lo = netifc.interface_by_name("lo")
    for event, kind in (
        (netifc.LinkAdded(lo), "link_added"),
        (netifc.LinkRemoved(lo), "link_removed"),
    ):
        d = event_json(event)
        assert set(d) == {"event", "link"} and d["event"] == kind
        assert (d["link"]["index"], d["link"]["name"]) == (lo.index, "lo")
