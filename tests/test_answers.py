"""Answers that must equal the kernel's, each against an independent truth:

- route_get()'s table: the one whose rule and route answered (``ip -j route
  get``), the CLI's ``netifc route get`` line as ip prints it;
- a zone read as a name first, then an index (``getaddrinfo``, ``ip route get
  ... oif``), and one ValueError for a zone that names no link;
- the broadcast of a /31 or /32 that was given one (``ip -j addr``);
- routes that differ only by TOS or IPv6 source prefix: as many distinct
  Routes, each with ip's ``tos`` and ``from`` (``ip -j route``);
- a group's scope the same from every backend and path, the one the
  kernel's RTM_GETMULTICAST dump gives (read here by a netlink socket of the
  test's own), the groups those of ``ip -j maddr``;
- an Interface whose link is gone, renamed, or whose index a new link took
  (``ip link add ... index N``) raises NoSuchInterface from every method
  that asks the kernel, never answering for the new link.
"""

import copy
import ipaddress
import json
import os
import pickle
import socket
import struct
import subprocess
import sys

import pytest

import netifc
from conftest import require_namespaces
from nslab import Netns, ip_addrs, ip_groups, wait_link_locals

TABLES = {"default": 253, "main": 254, "local": 255}
ROUTES = ("netlink", "netlink-nostrict")


def build_answers_lab():
    ns = Netns("answers")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            [
                # lo is 1; va 2 and vb 3; the link named 2 and its peer after.
                "link add va type veth peer name vb",
                "link add 2 type veth peer name p2",
                "link set va up",
                "link set vb up",
                "link set 2 up",
                "link set p2 up",
                "addr add 10.9.0.2/24 dev va",
                "addr add 10.23.0.5/32 brd 10.23.0.255 dev va",
                "addr add 10.24.0.4/31 brd 10.24.0.255 dev va",
                "addr add 10.25.0.0/31 brd + dev va",
                "addr add 10.26.0.1/32 dev va",
                "addr add 2001:db8:9::2/64 dev va",
                "route add 198.51.100.0/24 via 10.9.0.1 table 100",
                "rule add to 198.51.100.0/24 table 100",
                "route add 2001:db8:100::/48 via 2001:db8:9::1 table 100",
                "route add default via fe80::1 dev 2",
                # four routes that differ only by TOS or source prefix
                "route add 10.5.0.0/16 tos 0x10 via 10.9.0.1",
                "route add 10.5.0.0/16 tos 0x08 via 10.9.0.1",
                "route add 2001:db8:5::/48 from 2001:db8:7::/48 via 2001:db8:9::1",
                "route add 2001:db8:5::/48 from 2001:db8:8::1 via 2001:db8:9::1",
                # groups of every IPv6 multicast scope the kernel tells apart
                "addr add ff05::1:3/128 dev va autojoin",
                "addr add ff08::7/128 dev va autojoin",
                "addr add ff0e::9/128 dev va autojoin",
                "addr add 239.1.1.1/32 dev va autojoin",
            ]
        )
        ns.ip("-6", "rule", "add", "to", "2001:db8:100::/48", "table", "100")
        # each link's fe80::/64 route and groups come with its carrier, a moment later
        wait_link_locals(ns, ["va", "vb", "2", "p2"])
        return ns
    except BaseException:
        ns.delete()
        raise


@pytest.fixture(scope="module")
def alab():
    require_namespaces()
    ns = build_answers_lab()
    yield ns
    ns.delete()


def in_ns(ns, fn):
    with ns.entered():
        return fn()


def ip_table(j):
    """The table ip -j route get names (none: main)."""
    table = j.get("table", "main")
    return TABLES.get(table) or int(table)


# ---- 1. route_get()'s table ----------------------------------------------------------

GET = [
    "198.51.100.7",  # rule to 198.51.100.0/24: table 100
    "10.9.0.2",  # a local address: table local
    "10.9.0.5",  # main
    "127.0.0.1",
    "2001:db8:100::1",
    "2001:db8:9::5",
    "::1",
]


@pytest.mark.backends(*ROUTES)
@pytest.mark.parametrize("dst", GET)
def test_route_get_table_is_ip_route_gets(alab, backend, dst):
    r = in_ns(alab, lambda: netifc.route_get(dst))
    family = "-6" if ":" in dst else "-4"
    (theirs,) = alab.ipj(family, "route", "get", dst)
    assert r.table == ip_table(theirs)


@pytest.mark.backends(*ROUTES)
def test_route_get_table_by_rule_and_local(alab, backend):
    """What ip says in this lab, written out: the rule's table, then local."""
    assert alab.ipj("route", "get", "198.51.100.7")[0]["table"] == "100"
    assert in_ns(alab, lambda: netifc.route_get("198.51.100.7")).table == 100
    assert alab.ipj("route", "get", "10.9.0.2")[0]["table"] == "local"
    assert in_ns(alab, lambda: netifc.route_get("10.9.0.2")).table == 255
    assert in_ns(alab, lambda: netifc.route_get("2001:db8:100::1")).table == 100


def ip_text(ns, *args):
    return "".join(line.rstrip() + "\n" for line in ns.ip(*args).stdout.splitlines())


@pytest.mark.parametrize("dst", ["198.51.100.7", "10.9.0.2", "2001:db8:100::1"])
def test_cli_route_get_prints_the_table_as_ip(alab, dst):
    ours = subprocess.run(
        [sys.executable, "-m", "netifc", "-n", alab.name, "route", "get", dst],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    theirs = ip_text(alab, "route", "get", dst)
    assert " table " in theirs
    assert ours == theirs


# ---- 2. zones: a name first, then an index -------------------------------------------


def link_index(ns, name):
    return ns.ipj("link", "show", "dev", name)[0]["ifindex"]


def getaddrinfo_scope(text):
    return socket.getaddrinfo(text, 0, socket.AF_INET6, socket.SOCK_DGRAM)[0][4][3]


@pytest.mark.backends(*ROUTES)
def test_a_zone_is_a_name_before_an_index(alab, backend):
    named_2 = link_index(alab, "2")
    index_2 = alab.ipj("link", "show")[1]
    # what the test needs: a link named 2 that is not index 2, beside index 2
    assert named_2 != 2 and index_2["ifindex"] == 2 and index_2["ifname"] != "2"
    r = in_ns(alab, lambda: netifc.route_get("fe80::1%2"))
    assert r.index == in_ns(alab, lambda: getaddrinfo_scope("fe80::1%2")) == named_2
    (theirs,) = alab.ipj("-6", "route", "get", "fe80::1", "oif", "2")
    assert r.ifname == theirs["dev"] == "2"
    # a number that names no link is an index, as getaddrinfo reads it
    r3 = in_ns(alab, lambda: netifc.route_get("fe80::1%3"))
    assert r3.index == in_ns(alab, lambda: getaddrinfo_scope("fe80::1%3")) == 3
    # ip takes a link by name only, and by index as "if3"
    assert r3.ifname == alab.ipj("-6", "route", "get", "fe80::1", "oif", "if3")[0]["dev"]
    assert in_ns(alab, lambda: netifc.route_get(ipaddress.IPv6Address("fe80::1%2"))) == r


@pytest.mark.backends(*ROUTES)
def test_default_gateways_zone_names_its_link(alab, backend):
    gws = in_ns(alab, netifc.default_gateways)[socket.AF_INET6]
    (gw,) = [g for g in gws if g.ifname == "2"]
    assert gw.gateway == "fe80::1%2" and gw.index == link_index(alab, "2")
    assert in_ns(alab, lambda: getaddrinfo_scope(gw.gateway)) == gw.index
    assert in_ns(alab, lambda: netifc.route_get(gw.gateway)).index == gw.index


@pytest.mark.parametrize("zone", ["999", "4294967297", "2147483648", "nosuch", "\u00b2"])
def test_a_zone_that_names_no_link(alab, zone):
    assert not alab.ipj("link", "show")[-1]["ifindex"] >= 999
    with pytest.raises(ValueError, match=f"route_get: no interface named or numbered '{zone}'"):
        in_ns(alab, lambda: netifc.route_get(f"fe80::1%{zone}"))
    with pytest.raises(ValueError, match="no interface named or numbered"):
        in_ns(alab, lambda: netifc.NetNS(alab.name).route_get(f"fe80::1%{zone}"))
    r = alab.ip("-6", "route", "get", "fe80::1", "oif", zone, check=False)
    assert r.returncode != 0


def test_a_zone_in_another_namespace(alab):
    """NetNS.route_get reads the zone among that namespace's links."""
    with netifc.NetNS(alab.name) as ns:
        r = ns.route_get("fe80::1%2")
    assert r.index == link_index(alab, "2") and r.ifname == "2"


# ---- 3. the broadcast of a /31 or /32 ------------------------------------------------


def addr_view(a):
    return (a.address, a.prefixlen, a.broadcast)


@pytest.mark.backends()
def test_a_31_or_32_keeps_the_broadcast_it_was_given(alab, backend):
    va = link_index(alab, "va")
    theirs = [
        (a["address"], a["prefixlen"], a["broadcast"])
        for a in ip_addrs(alab)[va]
        if a["family"] == "inet"
    ]
    assert ("10.23.0.5", 32, "10.23.0.255") in theirs
    assert ("10.24.0.4", 31, "10.24.0.255") in theirs
    assert ("10.25.0.0", 31, None) in theirs and ("10.26.0.1", 32, None) in theirs
    ours = in_ns(alab, lambda: netifc.interface_by_index(va).addrs())
    assert [addr_view(a) for a in ours if a.family == socket.AF_INET] == theirs
    everyone = in_ns(alab, netifc.interface_addrs)
    assert [addr_view(a) for a in everyone if a.index == va and a.family == 2] == theirs


def test_a_31_or_32_with_a_broadcast_is_a_record_again(alab):
    (a,) = [
        a
        for a in in_ns(alab, lambda: netifc.interface_by_name("va").addrs())
        if a.address == "10.23.0.5"
    ]
    assert pickle.loads(pickle.dumps(a)) == a and copy.deepcopy(a) == a
    assert str(a) == "10.23.0.5/32" and a.broadcast == "10.23.0.255"


# ---- 4. routes by TOS and by source prefix -------------------------------------------


def ip_tos(word):
    return int(word, 16)  # this lab's TOS values have no rt_dsfield name: ip prints hex


@pytest.mark.backends(*ROUTES)
def test_routes_differing_by_tos_or_source_are_distinct(alab, backend):
    ours = in_ns(alab, lambda: netifc.routes(None, "main"))
    mine = [r for r in ours if r.destination in ("10.5.0.0/16", "2001:db8:5::/48")]
    theirs = [
        j
        for family in ("-4", "-6")
        for j in alab.ipj(family, "route", "show", "table", "main")
        if j["dst"] in ("10.5.0.0/16", "2001:db8:5::/48")
    ]
    assert len(theirs) == 4 and len(mine) == 4 and len(set(mine)) == 4
    assert len({str(r) for r in mine}) == 4
    got = [(r.destination, r.source, r.tos, r.gateway) for r in mine]
    want = [
        (
            j["dst"],
            str(ipaddress.ip_network(j["from"])) if "from" in j else None,
            ip_tos(j.get("tos", "0x0")),
            j["gateway"],
        )
        for j in theirs
    ]
    assert got == want
    assert {r.tos for r in mine if r.family == socket.AF_INET} == {0x10, 0x08}
    assert {r.source for r in mine if r.family == socket.AF_INET6} == {
        "2001:db8:7::/48",
        "2001:db8:8::1/128",
    }
    # each str() is the line ip route prints for it
    lines = {
        line.rstrip()
        for family in ("-4", "-6")
        for line in alab.ip(family, "route", "show").stdout.splitlines()
    }
    assert {str(r) for r in mine} <= lines
    # records that differ only there are unequal, and hash apart
    a, b = [r for r in mine if r.family == socket.AF_INET]
    assert a != b and len({a, b}) == 2


@pytest.mark.parametrize("family", ["-4", "-6"])
def test_cli_route_prints_tos_and_from_as_ip(alab, family):
    def run(*extra):
        return subprocess.run(
            [sys.executable, "-m", "netifc", "-n", alab.name, "route", family, *extra],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    text = ip_text(alab, family, "route")
    assert (" tos 0x10 " if family == "-4" else " from 2001:db8:7::/48 ") in text
    assert run() == text
    assert json.loads(run("-j")) == alab.ipj(family, "route")


# ---- 5. a group's scope --------------------------------------------------------------

RTM_GETMULTICAST, RTM_NEWMULTICAST, NLMSG_DONE, NLMSG_ERROR = 58, 56, 3, 2
IFA_MULTICAST = 7


def kernel_group_scopes(family):
    """{(index, address): scope} from an RTM_GETMULTICAST dump of this test's
    own (in the calling thread's namespace): the kernel's ifa_scope."""
    out = {}
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as s:
        body = struct.pack("=BBBBi", family, 0, 0, 0, 0)
        s.send(struct.pack("=IHHII", 16 + len(body), RTM_GETMULTICAST, 0x301, 1, 0) + body)
        while True:
            data = s.recv(1 << 20)
            at = 0
            while at + 16 <= len(data):
                length, kind = struct.unpack_from("=IH", data, at)
                if kind == NLMSG_DONE:
                    return out
                if kind == NLMSG_ERROR:
                    (err,) = struct.unpack_from("=i", data, at + 16)
                    raise OSError(-err, f"RTM_GETMULTICAST: {os.strerror(-err)}")
                if kind in (RTM_NEWMULTICAST, RTM_GETMULTICAST):  # IPv6 answers with GET
                    fam, _, _, scope, index = struct.unpack_from("=BBBBi", data, at + 16)
                    a = at + 24
                    while a + 4 <= at + length:
                        alen, atype = struct.unpack_from("=HH", data, a)
                        if atype == IFA_MULTICAST:
                            text = socket.inet_ntop(fam, data[a + 4 : a + alen])
                            out[(index, text)] = scope
                        a += (alen + 3) & ~3
                at += (length + 3) & ~3


@pytest.mark.backends()
def test_a_groups_scope_is_the_kernels_on_every_path(alab, backend):
    va = link_index(alab, "va")
    truth = in_ns(alab, lambda: kernel_group_scopes(socket.AF_INET6))
    want6 = {addr: scope for (index, addr), scope in truth.items() if index == va}
    assert want6["ff05::1:3"] == 200 and want6["ff08::7"] == want6["ff0e::9"] == 0
    assert want6["ff02::1"] == want6["ff01::1"] == 0
    groups = in_ns(alab, lambda: netifc.interface_by_index(va).multicast_addrs())
    got6 = {a.address: int(a.scope) for a in groups if a.family == socket.AF_INET6}
    assert got6 == want6
    # the groups are ip's; IPv4 ones are universe, as the kernel has them
    assert (
        sorted(
            ({socket.AF_INET: "inet", socket.AF_INET6: "inet6"}[a.family], a.address, a.zone)
            for a in groups
        )
        == ip_groups(alab)[va]
    )
    assert {int(a.scope) for a in groups if a.family == socket.AF_INET} == {0}
    # the snapshot's groups, read in one call, say the same
    _, addrs = in_ns(alab, lambda: netifc._netifc._snapshot(True))
    snap6 = {
        a.address: int(a.scope)
        for a in addrs
        if a.index == va and a.family == socket.AF_INET6 and a.ip.is_multicast
    }
    assert snap6 == want6


# ---- 6. an Interface whose index a new link took ---------------------------------------

METHODS = ("addrs", "multicast_addrs", "counters", "link_settings")


def assert_gone(record, methods=METHODS):
    for method in methods:
        with pytest.raises(netifc.NoSuchInterface, match=repr(record.name)):
            getattr(record, method)()


@pytest.fixture
def reuse_lab():
    require_namespaces()
    ns = Netns("reuse")
    try:
        ns.batch(
            [
                "link add ra type veth peer name rb",
                "link set ra up",
                "link set rb up",
                "addr add 10.77.0.1/24 dev ra",
            ]
        )
        yield ns
    finally:
        ns.delete()


def take_the_index(ns, index):
    """ra deleted, and a new link made at its index: what ip then says of it."""
    ns.batch(
        [
            "link del ra",
            f"link add rc index {index} type veth peer name rd",
            "link set rc up",
            "link set rd up",
            "addr add 10.88.0.1/24 dev rc",
        ]
    )
    (link,) = ns.ipj("link", "show", "dev", "rc")
    assert link["ifindex"] == index  # the kernel gave the new link the old index
    return link


@pytest.mark.backends("netlink", "getifaddrs")
def test_a_record_does_not_answer_for_the_link_that_took_its_index(reuse_lab, backend):
    old = in_ns(reuse_lab, lambda: netifc.interface_by_name("ra"))
    assert [a.address for a in in_ns(reuse_lab, old.addrs) if a.family == 2] == ["10.77.0.1"]
    assert in_ns(reuse_lab, old.counters).ifname == "ra"
    take_the_index(reuse_lab, old.index)
    in_ns(reuse_lab, lambda: assert_gone(old))
    new = in_ns(reuse_lab, lambda: netifc.interface_by_index(old.index))
    assert new.name == "rc" and new != old
    assert [a.address for a in in_ns(reuse_lab, new.addrs) if a.family == 2] == ["10.88.0.1"]
    assert in_ns(reuse_lab, new.counters).ifname == "rc"
    # renamed: the record names a link that has another name now
    reuse_lab.ip("link", "set", "rc", "down")
    reuse_lab.ip("link", "set", "rc", "name", "re")
    in_ns(reuse_lab, lambda: assert_gone(new))
    again = in_ns(reuse_lab, lambda: netifc.interface_by_index(old.index))
    assert again.name == "re" and [
        a.address for a in in_ns(reuse_lab, again.addrs) if a.family == 2
    ] == ["10.88.0.1"]


def test_a_netns_record_does_not_answer_for_the_link_that_took_its_index(reuse_lab):
    with netifc.NetNS(reuse_lab.name) as ns:
        (old,) = [i for i in ns.interfaces() if i.name == "ra"]
        assert old.counters().ifname == "ra"
        take_the_index(reuse_lab, old.index)
        assert_gone(old)
        assert ns.interface_by_index(old.index).counters().ifname == "rc"


def test_a_pickled_record_of_a_link_whose_index_was_taken(reuse_lab):
    old = in_ns(reuse_lab, lambda: netifc.interface_by_name("ra"))
    take_the_index(reuse_lab, old.index)
    copy_of_old = pickle.loads(pickle.dumps(old))
    in_ns(reuse_lab, lambda: assert_gone(copy_of_old, ("addrs", "counters")))
