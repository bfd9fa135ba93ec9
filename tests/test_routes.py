"""Routes and gateways against iproute2, in namespaces these tests build.

Every route netifc returns is compared, field by field and in kernel order,
with ``ip -j route show`` of the same tables (several tables, metrics, ECMP
routes of both families, an IPv6 default via a link-local gateway, an IPv4
route via an IPv6 gateway, blackhole, unreachable and prohibit routes, and
10,000 routes); ``route_get`` with ``ip -j route get``; the CLI's text and
JSON with ``ip route``'s, line by line. Each test runs with the kernel's
strict checking (the table filtered by the kernel) and without it (filtered
in C).
"""

import errno
import gc
import ipaddress
import json
import os
import re
import resource
import socket
import subprocess
import sys
import time

import pytest

import netifc
from conftest import require_namespaces
from netifc import _netifc
from nslab import REPORTS, Netns, in_new_thread, require_strace, settle, soak_rounds

AF = {4: socket.AF_INET, 6: socket.AF_INET6}
TABLE_NUMBERS = {"default": 253, "main": 254, "local": 255}
SCOPE_NUMBERS = {"global": 0, "universe": 0, "site": 200, "link": 253, "host": 254, "nowhere": 255}
TYPE_NUMBERS = {
    "unicast": 1,
    "local": 2,
    "broadcast": 3,
    "anycast": 4,
    "multicast": 5,
    "blackhole": 6,
    "unreachable": 7,
    "prohibit": 8,
    "throw": 9,
}
PREF_NUMBERS = {"medium": 0, "high": 1, "low": 3}


# Routes always come from rtnetlink: with strict checking, and without.
pytestmark = pytest.mark.backends("netlink", "netlink-nostrict")


# Where iproute2 reads its protocol names: /etc/iproute2/rt_protos, or when
# there is none (iproute2 6.5 and later, which ship theirs under /usr/share)
# its own /usr/share/iproute2/rt_protos.
RT_PROTOS_FILES = ("/etc/iproute2/rt_protos", "/usr/share/iproute2/rt_protos")


def protocol_numbers():
    """iproute2's protocol names, read from its own file."""
    names = {"unspec": 0, "redirect": 1, "kernel": 2, "boot": 3, "static": 4}
    for path in RT_PROTOS_FILES:
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    words = line.split("#", 1)[0].split()
                    if len(words) >= 2:
                        names[words[1]] = int(words[0])
            break
    return names


PROTOCOLS = protocol_numbers()


def tos_number(word):
    """A TOS as ip prints it: a name of iproute2's rt_dsfield, or hex."""
    if word.startswith("0x"):
        return int(word, 16)
    for path in ("/etc/iproute2/rt_dsfield", "/usr/share/iproute2/rt_dsfield"):
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    words = line.split("#", 1)[0].split()
                    if len(words) >= 2 and words[1] == word:
                        return int(words[0], 0)
            break
    raise AssertionError(f"ip printed tos {word!r}, in no rt_dsfield")


def protocol_number(word):
    """ip's protocol word: a name of its rt_protos, else the number itself."""
    return int(word) if word.isdigit() else PROTOCOLS[word]


def build_routes_lab():
    ns = Netns("rtlab")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            [
                "link add va type veth peer name vb",
                "link add vc type veth peer name vd",
                "link set va up",
                "link set vb up",
                "link set vc up",
                "link set vd up",
                "addr add 10.1.0.2/24 dev va",
                "addr add 10.2.0.2/24 dev vc",
                "addr add 2001:db8:1::2/64 dev va nodad",
                "addr add 2001:db8:2::2/64 dev vc nodad",
                "route add default via 10.1.0.1 dev va metric 100",
                "route add default via 10.2.0.1 dev vc metric 200",
                "route add 10.50.0.0/16 proto static nexthop via 10.1.0.1 dev va weight 1"
                " nexthop via 10.2.0.1 dev vc weight 3",
                "route add blackhole 10.60.0.0/16",
                "route add unreachable 10.61.0.0/16",
                "route add prohibit 10.62.0.0/16",
                "route add 10.63.0.0/16 via 10.1.0.1 proto dhcp metric 7 src 10.1.0.2",
                "route add 10.64.0.1 dev vc scope link",
                "route add 10.70.0.0/16 via 10.1.0.1 table 100",
                # a protocol named by some iproute2 releases' rt_protos only (84: ovn)
                "route add 10.73.0.0/16 via 10.1.0.1 table 100 proto 84",
                "route add 10.71.0.0/16 via 10.2.0.1 table 1000 metric 5",
                "route add blackhole 10.72.0.0/16 table 1000",
                "route add 10.80.0.0/16 via inet6 fe80::1 dev va",
                "route add 2001:db8:80::/48 via fe80::1 dev va onlink",
                "route add default via fe80::1 dev va metric 1",
                "route add default via fe80::2 dev vc metric 50 pref high",
                "route add 2001:db8:50::/48 nexthop via fe80::1 dev va weight 2"
                " nexthop via fe80::2 dev vc",
                "route add blackhole 2001:db8:60::/48",
                "route add unreachable 2001:db8:61::/48",
                "route add prohibit 2001:db8:62::/48",
                "route add 2001:db8:70::/48 via 2001:db8:1::1 table 100",
                # routes that differ only by TOS (IPv4) or source prefix (IPv6)
                "route add 10.74.0.0/16 tos 0x10 via 10.1.0.1",
                "route add 10.74.0.0/16 tos 0x20 via 10.1.0.1",  # rt_dsfield's CS1
                "route add 10.74.0.0/16 via 10.1.0.1",
                "route add 2001:db8:74::/48 from 2001:db8:7::/48 via 2001:db8:1::1",
                "route add 2001:db8:74::/48 from 2001:db8:8::1 via 2001:db8:1::1",
                "route add 2001:db8:74::/48 via 2001:db8:1::1",
            ]
        )
        # The links' own routes (their link-locals', IPv6's multicast route)
        # come when the kernel's link watch sees the carrier: all there.
        settle(ns, timeout=60)
        return ns
    except BaseException:
        ns.delete()
        raise


@pytest.fixture(scope="module")
def rtlab():
    require_namespaces()
    ns = build_routes_lab()
    yield ns
    ns.delete()


def ip_routes(ns, family, table="all"):
    return ns.ipj(f"-{family}", "route", "show", "table", str(table))


# ---- the two views ---------------------------------------------------------------------


def ip_view(j, family):
    """What ip -j says of one route, in netifc's terms."""
    dst = j["dst"]
    if dst == "default":
        dst = "0.0.0.0/0" if family == 4 else "::/0"
    hops = tuple((h.get("gateway"), h.get("dev", ""), h["weight"]) for h in j.get("nexthops", ()))
    gateway = j.get("gateway") or j.get("via", {}).get("host")
    table = j.get("table", "main")
    return dict(
        type=TYPE_NUMBERS[j.get("type", "unicast")],
        destination=str(ipaddress.ip_network(dst)),
        source=str(ipaddress.ip_network(j["from"])) if "from" in j else None,
        tos=tos_number(j.get("tos", "0x00")),
        gateway=gateway,
        ifname=j.get("dev", ""),
        table=TABLE_NUMBERS.get(table) or int(table),
        protocol=protocol_number(j.get("protocol", "boot")),
        scope=SCOPE_NUMBERS[j.get("scope", "global")],
        prefsrc=j.get("prefsrc"),
        metric=j.get("metric", 0),
        pref=PREF_NUMBERS[j["pref"]] if "pref" in j else None,
        onlink="onlink" in j.get("flags", ()),
        nexthops=hops,
    )


def view(r):
    return dict(
        type=int(r.type),
        destination=r.destination,
        source=r.source,
        tos=r.tos,
        gateway=r.gateway,
        ifname=r.ifname,
        table=r.table,
        protocol=int(r.protocol),
        scope=int(r.scope),
        prefsrc=r.prefsrc,
        metric=r.metric,
        pref=r.pref,
        onlink=bool(r.flags & 4),
        nexthops=tuple((h.gateway, h.ifname, h.weight) for h in r.nexthops),
    )


def in_ns(ns, fn):
    with ns.entered():
        return fn()


# ---- routes() against ip -j route show ---------------------------------------------------


@pytest.mark.parametrize("family", [4, 6])
def test_every_table_is_ip_route_show_table_all(rtlab, family):
    ours = in_ns(rtlab, lambda: netifc.routes(AF[family], "all"))
    theirs = ip_routes(rtlab, family)
    assert [view(r) for r in ours] == [ip_view(j, family) for j in theirs]
    assert all(r.family == AF[family] for r in ours)
    # what makes the lab: none of it may go missing without the test failing
    kinds = {(int(r.type), r.table) for r in ours}
    assert {(6, 254), (7, 254), (8, 254), (1, 100), (2, 255)} <= kinds


@pytest.mark.parametrize("table", ["main", "local", 100, "1000", "default", 4242])
@pytest.mark.parametrize("family", [4, 6])
def test_one_table_is_ip_route_show_table(rtlab, family, table):
    ours = in_ns(rtlab, lambda: netifc.routes(AF[family], table))
    r = rtlab.ip(f"-{family}", "-j", "route", "show", "table", str(table), check=False)
    if r.returncode:
        assert "does not exist" in r.stderr  # ip fails where netifc has no routes
        theirs = []
    else:
        theirs = json.loads(r.stdout) if r.stdout.strip() else []
    number = TABLE_NUMBERS.get(str(table)) or int(table)
    expect = [dict(ip_view(j, family), table=number) for j in theirs]
    assert [view(r) for r in ours] == expect
    assert all(r.table == number for r in ours)


def test_both_families_are_the_two_dumps(rtlab):
    both = in_ns(rtlab, lambda: netifc.routes(None, "all"))
    assert sorted(map(view, both), key=repr) == sorted(
        [ip_view(j, 4) for j in ip_routes(rtlab, 4)] + [ip_view(j, 6) for j in ip_routes(rtlab, 6)],
        key=repr,
    )
    assert in_ns(rtlab, netifc.routes) == tuple(
        r for r in both if r.table == 254
    )  # the default: the main table, both families


def test_ecmp_next_hops(rtlab):
    main = in_ns(rtlab, lambda: netifc.routes(None, 254))
    v4 = [r for r in main if r.destination == "10.50.0.0/16"][0]
    assert [(h.gateway, h.ifname, h.weight) for h in v4.nexthops] == [
        ("10.1.0.1", "va", 1),
        ("10.2.0.1", "vc", 3),
    ]
    assert v4.gateway is None and v4.index == 0 and v4.protocol == 4
    v6 = [r for r in main if r.destination == "2001:db8:50::/48"][0]
    assert [(h.gateway, h.ifname, h.weight) for h in v6.nexthops] == [
        ("fe80::1", "va", 2),
        ("fe80::2", "vc", 1),
    ]
    index = {l["ifname"]: l["ifindex"] for l in rtlab.ipj("link", "show")}
    assert [h.index for h in v6.nexthops] == [index["va"], index["vc"]]


def test_route_via_another_family(rtlab):
    r = [
        r
        for r in in_ns(rtlab, lambda: netifc.routes(socket.AF_INET))
        if r.destination == "10.80.0.0/16"
    ][0]
    assert (r.gateway, r.ifname) == ("fe80::1", "va")
    j = [j for j in ip_routes(rtlab, 4, "main") if j["dst"] == "10.80.0.0/16"][0]
    assert j["via"] == {"family": "inet6", "host": "fe80::1"}


def test_records_are_immutable_values(rtlab):
    a = in_ns(rtlab, lambda: netifc.routes(None, "all"))
    b = in_ns(rtlab, lambda: netifc.routes(None, "all"))
    assert a == b and [hash(x) for x in a] == [hash(x) for x in b]
    assert len(set(a)) == len(a)
    r = [r for r in a if r.nexthops][0]
    with pytest.raises(AttributeError):
        r.metric = 5
    with pytest.raises(AttributeError):
        r.nexthops[0].weight = 5
    with pytest.raises(TypeError):
        type(r)()
    assert r.network == ipaddress.ip_network(r.destination)
    assert "Route(family=" in repr(r) and "NextHop(gateway=" in repr(r)
    assert str(netifc.RouteType.BLACKHOLE) == "blackhole"


# ---- default gateways ------------------------------------------------------------------


def test_a_route_is_equal_whatever_dump_read_it(rtlab):
    """One route read by two dumps is one value.  The IPv6 ECMP route's next
    hops sit first in the C table of an IPv6 dump, after the IPv4 ECMP
    route's in a dump of every family: equality and hash read the fields,
    never the bytes the record happens to hold (offsets, padding)."""
    every = in_ns(rtlab, lambda: netifc.routes(None, "all"))
    v6 = in_ns(rtlab, lambda: netifc.routes(socket.AF_INET6, 254))
    assert any(r.nexthops for r in every if r.family == socket.AF_INET)
    ecmp = [r for r in v6 if r.nexthops]
    assert ecmp
    for r in ecmp:
        twin = [
            x
            for x in every
            if x.family == r.family
            and x.table == r.table
            and x.destination == r.destination
            and x.metric == r.metric
        ]
        assert twin == [r] and hash(twin[0]) == hash(r)
        assert [hash(h) for h in twin[0].nexthops] == [hash(h) for h in r.nexthops]
    assert set(v6) <= set(every)
    assert len({r: None for r in every + v6}) == len(every)


def test_default_gateways_by_metric(rtlab):
    gws = in_ns(rtlab, netifc.default_gateways)
    for family in (4, 6):
        theirs = sorted(
            rtlab.ipj(f"-{family}", "route", "show", "default"), key=lambda j: j.get("metric", 0)
        )
        ours = gws[AF[family]]
        assert [(g.gateway.split("%")[0], g.ifname, g.metric) for g in ours] == [
            (j["gateway"], j["dev"], j.get("metric", 0)) for j in theirs
        ]
    v6 = gws[socket.AF_INET6]
    assert [g.gateway for g in v6] == ["fe80::1%va", "fe80::2%vc"]
    assert ipaddress.ip_address(v6[0].gateway).scope_id == "va"
    assert [g.gateway for g in gws[socket.AF_INET]] == ["10.1.0.1", "10.2.0.1"]
    assert all(g.route.prefixlen == 0 for f in gws for g in gws[f])


def test_no_default_gateway():
    require_namespaces()
    ns = Netns("rtempty")
    try:
        assert in_ns(ns, netifc.default_gateways) == {}
        assert in_ns(ns, netifc.routes) == ()
    finally:
        ns.delete()


# ---- route_get against ip -j route get -----------------------------------------------------

GET = [
    "11.1.1.1",
    "10.1.0.7",
    "10.1.0.2",
    "10.50.0.9",
    "10.63.1.1",
    "10.64.0.1",
    "127.0.0.1",
    "2001:db8:2::5",
    "2001:db8:99::1",
    "2001:db8:50::1",
    "::1",
    "fe80::9%va",
    "10.74.0.1",
    "2001:db8:74::1",
]


def ip_get_view(j, family):
    return dict(
        destination=str(ipaddress.ip_network(j["dst"])),
        source=str(ipaddress.ip_network(j["from"])) if "from" in j else None,
        tos=tos_number(j.get("tos", "0x00")),
        gateway=j.get("gateway"),
        ifname=j.get("dev", ""),
        prefsrc=j.get("prefsrc"),
        type=TYPE_NUMBERS[j.get("type", "unicast")],
    )


def get_view(r):
    return dict(
        destination=r.destination,
        source=r.source,
        tos=r.tos,
        gateway=r.gateway,
        ifname=r.ifname,
        prefsrc=r.prefsrc,
        type=int(r.type),
    )


@pytest.mark.parametrize("dst", GET)
def test_route_get_is_ip_route_get(rtlab, dst):
    r = in_ns(rtlab, lambda: netifc.route_get(dst))
    address, _, zone = dst.partition("%")
    family = 6 if ":" in dst else 4
    args = ["route", "get", address] + (["oif", zone] if zone else [])
    theirs = rtlab.ipj(f"-{family}", *args)[0]
    assert get_view(r) == ip_get_view(theirs, family)
    assert r.family == AF[family]
    same = in_ns(rtlab, lambda: netifc.route_get(ipaddress.ip_address(dst)))
    assert same == r


@pytest.mark.parametrize(
    "dst,err",
    [
        ("10.60.1.1", errno.EINVAL),
        ("10.61.1.1", errno.EHOSTUNREACH),
        ("10.62.1.1", errno.EACCES),
        ("2001:db8:61::1", errno.EHOSTUNREACH),
        ("2001:db8:62::1", errno.EACCES),
    ],
)
def test_route_get_errors_are_ips(rtlab, dst, err):
    with pytest.raises(OSError) as e:
        in_ns(rtlab, lambda: netifc.route_get(dst))
    assert e.value.errno == err
    assert "RTM_GETROUTE" in str(e.value)
    r = rtlab.ip("route", "get", dst, check=False)
    assert r.returncode and os.strerror(err) in r.stderr


def test_route_get_with_no_route():
    require_namespaces()
    ns = Netns("rtnoroute")
    try:
        with pytest.raises(OSError) as e:
            in_ns(ns, lambda: netifc.route_get("192.0.2.1"))
        assert e.value.errno == errno.ENETUNREACH
        assert (
            os.strerror(errno.ENETUNREACH) in ns.ip("route", "get", "192.0.2.1", check=False).stderr
        )
    finally:
        ns.delete()


@pytest.mark.parametrize(
    "bad,exc",
    [
        (None, TypeError),
        (1.5, TypeError),
        (b"\x7f\0\0\1", TypeError),
        (0x7F000001, TypeError),
        ("", ValueError),
        ("10.0.0.0/8", ValueError),
        ("300.1.1.1", ValueError),
        ("fe80::1%nosuchlink0", ValueError),
        ("host.example", ValueError),
        ("1.2.3.4\0", ValueError),
    ],
)
def test_route_get_bad_input(bad, exc):
    with pytest.raises(exc, match="route_get"):
        netifc.route_get(bad)


@pytest.mark.parametrize(
    "kw,exc",
    [
        (dict(table="nosuch"), ValueError),
        (dict(table=-1), ValueError),
        (dict(table=0), ValueError),
        (dict(table=2**32), ValueError),
        (dict(table=True), TypeError),
        (dict(table=1.0), TypeError),
        (dict(family=7), ValueError),
        (dict(family="inet"), TypeError),
        (dict(family=True), TypeError),
    ],
)
def test_routes_bad_input(kw, exc):
    with pytest.raises(exc):
        netifc.routes(**kw)


def test_private_calls_check_their_input():
    with pytest.raises(ValueError):
        _netifc._routes(7, 254)
    with pytest.raises(ValueError):
        _netifc._route_get(socket.AF_INET, b"\0" * 16, 0)
    with pytest.raises(ValueError):
        _netifc._route_get(socket.AF_INET6, b"\0" * 4, 0)
    with pytest.raises(ValueError):
        _netifc._route_get(socket.AF_INET, b"\0" * 4, -1)


# ---- the CLI against ip route, line by line -----------------------------------------------


def cli(ns, *args):
    return ns.run(
        [sys.executable, "-m", "netifc", "route", *args],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    ).stdout


def ip_text(ns, *args):
    """ip's lines, without the space it leaves at the end of each (the one
    difference in the text, README.rst)."""
    return "".join(line.rstrip() + "\n" for line in ns.ip(*args).stdout.splitlines())


@pytest.mark.parametrize(
    "ours,theirs",
    [
        ((), ("route",)),
        (("-4",), ("-4", "route")),
        (("-6",), ("-6", "route")),
        (("--table", "all"), ("route", "show", "table", "all")),
        (("-6", "--table", "all"), ("-6", "route", "show", "table", "all")),
        (("--table", "100"), ("route", "show", "table", "100")),
        (("-6", "-t", "local"), ("-6", "route", "show", "table", "local")),
    ],
)
def test_cli_text_is_ip_route(rtlab, backend, ours, theirs):
    if backend != "netlink":
        pytest.skip("the CLI takes the default path")
    assert cli(rtlab, *ours) == ip_text(rtlab, *theirs)


@pytest.mark.parametrize(
    "ours,theirs",
    [
        ((), ("route",)),
        (("-6", "--table", "all"), ("-6", "route", "show", "table", "all")),
        (("--table", "all"), ("route", "show", "table", "all")),
    ],
)
def test_cli_json_is_ip_j_route(rtlab, backend, ours, theirs):
    if backend != "netlink":
        pytest.skip("the CLI takes the default path")
    assert json.loads(cli(rtlab, "-j", *ours)) == rtlab.ipj(*theirs)


def test_cli_bad_table(rtlab, backend):
    if backend != "netlink":
        pytest.skip("the CLI takes the default path")
    r = rtlab.run(
        [sys.executable, "-m", "netifc", "route", "--table", "nosuch"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert r.returncode == 1 and "unknown routing table 'nosuch'" in r.stderr


@pytest.mark.parametrize("where", ["before", "after", "equals"])
def test_cli_n_shows_the_namespace_routes(rtlab, backend, where):
    """netifc -n NAME route, netifc route -n NAME: the namespace's routes (the
    caller stays on the host), as ip -n NAME route shows them."""
    if backend != "netlink":
        pytest.skip("the CLI takes the default path")
    args = {
        "before": ["-n", rtlab.name, "route"],
        "after": ["route", "-n", rtlab.name],
        "equals": [f"--netns={rtlab.name}", "route"],
    }[where]
    out = subprocess.run(
        [sys.executable, "-m", "netifc", *args, "--table", "all"],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    ).stdout
    assert out == ip_text(rtlab, "route", "show", "table", "all")
    r = subprocess.run(
        [sys.executable, "-m", "netifc", "route", "-n", "nfc-no-such-ns"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert r.returncode == 1 and "nfc-no-such-ns" in r.stderr


# ---- 10,000 routes ---------------------------------------------------------------------


def test_ten_thousand_routes(backend):
    require_namespaces()
    ns = Netns("rtscale")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            [
                "link add vs type veth peer name vt",
                "link set vs up",
                "link set vt up",
                "addr add 10.0.0.2/24 dev vs",
                "addr add 2001:db8::2/64 dev vs nodad",
            ]
            + [
                f"route add 172.{16 + i // 256}.{i % 256}.0/24 via 10.0.0.1 metric {i % 7}"
                for i in range(5000)
            ]
            + [
                f"route add 198.18.{i // 256}.{i % 256}/32 via 10.0.0.1 table 300"
                for i in range(2000)
            ]
            + [f"route add 2001:db8:{i:x}::/48 via 2001:db8::1" for i in range(1, 3001)]
        )
        # vs's and vt's own routes (their link-locals', IPv6's multicast
        # route) come when the link watch sees their carrier: all there first.
        settle(ns, timeout=60)
        t = time.perf_counter()
        ours = in_ns(ns, lambda: netifc.routes(None, "all"))
        took = time.perf_counter() - t
        theirs = [ip_view(j, 4) for j in ip_routes(ns, 4)] + [
            ip_view(j, 6) for j in ip_routes(ns, 6)
        ]
        assert sorted(map(view, ours), key=repr) == sorted(theirs, key=repr)
        assert len(ours) >= 10000
        t300 = in_ns(ns, lambda: netifc.routes(socket.AF_INET, 300))
        assert [view(r) for r in t300] == [
            dict(ip_view(j, 4), table=300) for j in ip_routes(ns, 4, 300)
        ]
        assert len(t300) == 2000
        REPORTS.append(
            f"routes(None, 'all') of {len(ours)} routes ({backend}): {took * 1000:.1f} ms"
        )
    finally:
        ns.delete()


# ---- what a route dump asks of the kernel -----------------------------------------------

# A child that calls routes() and default_gateways() between markers
# (getppid), after two calls that make its kept socket and learn its size.
HEARING_CHILD = r"""
import os, netifc
netifc.routes(); netifc.routes()
os.getppid()
for _ in range(5):
    netifc.routes(); netifc.default_gateways(); netifc.routes(table="all")
os.getppid()
"""


def groups_joined(ns):
    """The notification groups HEARING_CHILD's calls joined in ns, as strace
    decodes its setsockopt calls."""
    require_strace("the route dump's request test")
    r = ns.run(
        [
            "strace",
            "-qq",
            "-e",
            "signal=none",
            "-e",
            "trace=getppid,setsockopt",
            sys.executable,
            "-c",
            HEARING_CHILD,
        ],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert r.returncode == 0, r.stderr[-2000:]
    parts = r.stderr.split("getppid()")
    assert len(parts) == 3, r.stderr[-2000:]
    named = {"11": "RTNLGRP_IPV6_ROUTE"}  # strace names it, or not
    return [named.get(g, g) for g in re.findall(r"NETLINK_ADD_MEMBERSHIP, \[(\w+)\]", parts[1])]


def test_a_route_dump_of_one_datagram_hears_nothing(rtlab):
    """A route table the kernel lists in one datagram is walked at once
    (docs/routes.rst), so routes() and default_gateways() there join no
    notification group: one dump each, though the kernel sends the dump's
    NLMSG_DONE in a datagram of its own.  Beside it, an IPv6 table of 2,000
    routes (several datagrams) is heard while it is dumped."""
    assert groups_joined(rtlab) == []
    big = Netns("rtbig")
    try:
        big.batch([f"route add blackhole 2001:db8:f::{i:x}/128" for i in range(1, 2001)])
        joined = groups_joined(big)
    finally:
        big.delete()
    assert joined and set(joined) == {"RTNLGRP_IPV6_ROUTE"}, joined


# ---- no leak, on every path ------------------------------------------------------------


def route_calls():
    """Each route call and error path, as (name, callable, expected exception)."""
    return [
        ("routes", netifc.routes, None),
        ("routes all", lambda: netifc.routes(None, "all"), None),
        ("routes of no table", lambda: netifc.routes(socket.AF_INET, 4242), None),
        ("default_gateways", netifc.default_gateways, None),
        ("route_get", lambda: netifc.route_get("10.50.0.9"), None),
        ("route_get zone", lambda: netifc.route_get("fe80::9%va"), None),
        ("records", lambda: [(repr(r), hash(r), r == r, r.network) for r in netifc.routes()], None),
        ("unreachable", lambda: netifc.route_get("10.61.1.1"), OSError),
        ("blackhole", lambda: netifc.route_get("2001:db8:60::1"), OSError),
        ("bad destination", lambda: netifc.route_get("10.0.0.0/8"), ValueError),
        ("bad table", lambda: netifc.routes(table="nosuch"), ValueError),
        ("bad private call", lambda: _netifc._route_get(socket.AF_INET, b"\0", 0), ValueError),
    ]


@pytest.mark.soak
def test_no_leak_of_memory_refs_or_descriptors(rtlab, backend):
    from test_hardening import call_all, open_fds, rss_bytes

    calls = route_calls()
    rounds = soak_rounds(20_000 if backend == "netlink" else 5_000)

    def leak_rounds():
        with rtlab.entered():
            call_all(calls, 1_000)  # warm caches and allocator pools
            gc.collect()
            fds, rss, objs = open_fds(), rss_bytes(), len(gc.get_objects())
            call_all(calls, rounds)
            gc.collect()
            return open_fds() - fds, rss_bytes() - rss, len(gc.get_objects()) - objs

    fd_growth, rss_growth, obj_growth = in_new_thread(leak_rounds)
    assert fd_growth == 0 and obj_growth < 100
    if not os.environ.get("NETIFC_ASAN"):  # ASan keeps freed memory in quarantine
        assert rss_growth < 4 << 20, f"RSS grew {rss_growth} bytes over {rounds} rounds"


@pytest.mark.soak
def test_no_leak_when_calls_fail(rtlab, backend):
    """Route calls failing for want of a descriptor leak neither memory nor descriptors."""
    from test_hardening import open_fds, rss_bytes

    calls = [c for c in route_calls() if c[2] is None and c[0] != "records"]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    def failing_rounds():
        with rtlab.entered():
            fds, rss = open_fds(), rss_bytes()
            lowest_free = os.dup(0)
            os.close(lowest_free)
            resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free, hard))
            try:
                for _ in range(2_000):
                    for name, fn, _exc in calls:
                        with pytest.raises(OSError) as e:
                            fn()
                        assert e.value.errno == errno.EMFILE, name
            finally:
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
            return open_fds() - fds, rss_bytes() - rss

    fd_growth, rss_growth = in_new_thread(failing_rounds)
    assert fd_growth == 0
    if not os.environ.get("NETIFC_ASAN"):
        assert rss_growth < 2 << 20
