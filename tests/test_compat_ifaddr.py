"""netifc.compat.ifaddr against ifaddr 0.2 itself, in namespaces.

Both answer in the same thread, inside the same namespace: nslab's lab
(veth pairs, a bridge, a tun with point-to-point peers, link-local zones,
secondary and labelled addresses, a down link, tentative and deprecated
addresses, a 15-byte and a non-ASCII name) with more kinds added here (a
vxlan, an ifb, a macvlan, links without addresses, IPv6 addresses written
with IPv4 in their last 32 bits, a /0). Every adapter and address must be
the same, in the same order, with and without include_unconfigured: their
reprs, and each attribute with its type. Then the change notifications
(against ``ip``'s changes and ifaddr's answer after each), the default
adapter recipe of docs/migrating/ifaddr.rst, and python-zeroconf's own
address helpers with ifaddr and with the drop-in in its place.
"""

import asyncio
import doctest
import json
import os
import pathlib
import sys
import threading
import time
import warnings

import pytest

import netifc
import netifc.compat.ifaddr as ours
from conftest import require_namespaces
from netifc import _netifc
from nslab import BYTES_NAME, TOOL_ENV, Netns, build_lab, wait_link_locals

ON_CI_LINUX = bool(os.environ.get("CI")) and sys.platform == "linux"
if ON_CI_LINUX:
    import ifaddr  # the test extra installs it (pure Python, every CPython): CI must compare
else:
    ifaddr = pytest.importorskip("ifaddr", reason="ifaddr is not installed (pip install ifaddr)")

if not hasattr(_netifc, "_routes"):
    pytest.skip("netifc.compat.ifaddr is compared on Linux only", allow_module_level=True)

# The kernel's order is that of rtnetlink's dumps (netifc's getifaddrs backend
# lists addresses link by link).
pytestmark = pytest.mark.backends("netlink")


@pytest.fixture(autouse=True)
def forget():
    """get_adapters() keeps the live tables of the namespace it was last
    called in, which holds that namespace: let each test's go."""
    yield
    ours._CACHE.forget()


RENAMED = "vbytes0"  # ifaddr cannot decode the lab's non-UTF-8 name: renamed here
DEADLINE = 10  # seconds a change may take to be told, on a loaded machine


def described(adapters):
    """Every field of every adapter and address, with its type: what equality means here."""
    out = []
    for a in adapters:
        ips = [
            (type(ip.ip).__name__, ip.ip, ip.network_prefix, ip.nice_name, ip.is_IPv4, ip.is_IPv6)
            for ip in a.ips
        ]
        out.append((a.name, a.nice_name, type(a.index).__name__, a.index, ips, repr(a)))
    return out


def both(include_unconfigured=False):
    """(ours, ifaddr's), read one after the other in this thread's namespace."""
    theirs = described(ifaddr.get_adapters(include_unconfigured=include_unconfigured))
    mine = described(ours.get_adapters(include_unconfigured=include_unconfigured))
    return mine, theirs


@pytest.fixture(scope="module")
def iflab():
    require_namespaces()
    ns = build_lab()
    try:
        ns.ip("link", "set", BYTES_NAME, "name", RENAMED)
        ns.batch(
            [
                "link add vx0 type veth peer name vx1",
                "addr add 169.254.7.7/16 brd + dev vx0",
                "addr add 10.40.0.1 peer 10.40.0.9/24 dev vx0",
                "addr add 2001:db8:40::1 peer 2001:db8:40::9 dev vx0",
                "addr add 2001:db8:41::1/65 dev vx0 nodad",
                "addr add 2001:db8:42::1/0 dev vx0 nodad",
                "addr add ::192.0.2.77/128 dev vx0 nodad",
                "addr add ::ffff:192.0.2.78/128 dev vx0 nodad",
                "addr add 10.41.0.1/8 dev vx0 label vx0:a",
                "addr add 10.41.0.2/8 dev vx0 label vx0:a",
                "addr add 10.41.1.1/8 dev vx0 label vx0zz",
                "addr add 10.42.0.1/24 brd 10.42.0.127 dev vx0 label vx0:b",
                "addr add 10.43.0.1/0 dev vx1",
                "addr add fe80::77/64 dev vx1 nodad",
                # links whose order by index is not the order they were made in
                "link add vy0 index 300 type veth peer name vy1",
                "link add vz0 index 200 type veth peer name vz1",
                "addr add 10.44.0.1/24 dev vy0 label vy0:x",
                "addr add 10.45.0.1/24 dev vz0 label vz0:x",
                "addr add 10.46.0.1/24 dev vx1 label vx1:p",
                "addr add 10.46.0.1/25 dev vx1 label vx1:q",
                "addr add 10.47.0.1 peer 0.0.0.0 dev vx1",
                "addr add 2001:db8:48::1 peer fe80::9 dev vx1 nodad",
                "addr add 2001:db8:49::1 peer fe80::a dev tun0 nodad",
                # more kinds of link: a vxlan, an ifb, a macvlan on a veth end;
                # ifb0 and vw0 keep no address at all
                "link add vxl0 type vxlan id 42 dstport 4789 local 192.0.2.1 dev v0",
                "addr add 10.60.0.1/24 dev vxl0",
                "addr add 2001:db8:60::1/64 dev vxl0 nodad",
                "link add ifb0 type ifb",
                "link add mv0 link vx1 type macvlan mode bridge",
                "addr add 10.61.0.1/24 dev mv0",
                "link add vw0 type veth peer name vw1",
                "link set vw1 up",
                "link set vx0 up",
                "link set vx1 up",
                "link set vxl0 up",
                "link set mv0 up",
            ]
        )
        # The links just set up get their link-locals when their carrier
        # comes: both libraries must read the same, settled state.
        wait_link_locals(ns, ["vx0", "vx1", "vxl0", "mv0"])
        yield ns
    finally:
        ns.delete()


@pytest.mark.parametrize("include_unconfigured", [False, True])
def test_get_adapters_equals_ifaddr(iflab, include_unconfigured):
    with iflab.entered():
        mine, theirs = both(include_unconfigured)
    assert mine == theirs


def test_the_default_is_without_unconfigured(iflab):
    with iflab.entered():
        assert described(ours.get_adapters()) == described(ifaddr.get_adapters())
        assert described(ours.get_adapters(False)) == described(ifaddr.get_adapters(False))


def test_the_kinds_are_there(iflab):
    """The comparison above met every kind of adapter and address it is meant to."""
    with iflab.entered():
        got = {a.name: a for a in ours.get_adapters()}
        every = [a.name for a in ours.get_adapters(include_unconfigured=True)]
        index = {i.name: i.index for i in netifc.interfaces()}
    ips = {n: [ip.ip for ip in a.ips] for n, a in got.items()}
    # labels: adapters of their own, with the index of the name before the colon
    assert got["vx0:a"].index == index["vx0"] and ips["vx0:a"] == ["10.41.0.1", "10.41.0.2"]
    assert got["vx1:p"].index == index["vx1"] and ips["vx1:q"] == ["10.46.0.1"]
    assert got["vx0zz"].index is None and ips["vx0zz"] == ["10.41.1.1"]
    assert "10.41.0.1" not in ips["vx0"]
    # link-local: the link's index as scope id; others 0
    assert ("fe80::77", 0, index["vx1"]) in ips["vx1"]
    assert any(ip[0].startswith("fe80:") and ip[2] == index["v0"] for ip in ips["v0"][1:])
    assert ("2001:db8:1::1", 0, 0) in ips["v0"]
    # point-to-point: this end only
    assert "10.9.0.1" in ips["tun0"] and "10.9.0.2" not in ips["tun0"]
    assert ("2001:db8:49::1", 0, 0) in ips["tun0"]
    assert "10.40.0.1" in ips["vx0"] and ("2001:db8:40::1", 0, 0) in ips["vx0"]
    # IPv4 inside IPv6, as ipaddress writes it (on this Python)
    assert (str(ours.ipaddress.IPv6Address("::ffff:192.0.2.78")), 0, 0) in ips["vx0"]
    prefixes = {ip.ip: ip.network_prefix for ip in got["vx0"].ips}
    assert prefixes[("2001:db8:41::1", 0, 0)] == 65 and prefixes[("2001:db8:42::1", 0, 0)] == 0
    # tentative (vt0), a down link (vd0), the 15-byte name, vxlan, macvlan
    assert ("2001:db8:7::1", 0, 0) in ips["vt0"]
    assert "198.18.0.1" in ips["vd0"] and "abcdefghijklmno" in got
    assert "10.60.0.1" in ips["vxl0"] and "10.61.0.1" in ips["mv0"]
    # links without an address: only with include_unconfigured
    assert "ifb0" not in got and "vw0" not in got
    assert {"ifb0", "vw0", "vw1", "vx0:a"} <= set(every)
    assert every.index("vw0") < every.index("vx0:a")  # the links first
    # the order: every IPv4 address before every IPv6 one (the kernel's)
    first6 = next(n for n, a in enumerate(got.values()) if a.ips[0].is_IPv6)
    assert all(a.ips[0].is_IPv6 for a in list(got.values())[first6:])


def test_a_name_that_is_not_utf8():
    """ifaddr raises on it; the drop-in gives it surrogate-escaped, as netifc does."""
    require_namespaces()
    ns = build_lab()
    try:
        # ifaddr's own raise, in a process of its own: it leaves the
        # getifaddrs() list it was reading unfreed (CI's LeakSanitizer run
        # would count that against this process)
        r = ns.run(
            [sys.executable, "-c", "import ifaddr; ifaddr.get_adapters(include_unconfigured=True)"],
            capture_output=True,
            text=True,
            env=TOOL_ENV,
        )
        assert r.returncode != 0 and "UnicodeDecodeError" in r.stderr, r.stderr
        with ns.entered():
            every = {a.name: a for a in ours.get_adapters(include_unconfigured=True)}
            index = netifc.interface_by_name(BYTES_NAME).index
        assert every[BYTES_NAME].index == index and every[BYTES_NAME].ips == []
    finally:
        ns.delete()


def test_host_equals_ifaddr():
    """The machine's own adapters, whatever they are. Other programs may
    change them between the two reads: a difference must last three reads
    to fail."""
    for include in (False, True):
        for _ in range(3):
            mine, theirs = both(include)
            if mine == theirs:
                break
        assert mine == theirs


def test_the_classes_are_ifaddrs():
    """Made by hand, they are ifaddr's: the same repr, properties, and
    equality (each only to itself)."""
    for m in (ours, ifaddr):
        four, six = m.IP("192.0.2.1", 24, "x"), m.IP(("fe80::1", 0, 3), 64, "x")
        adapter = m.Adapter("x", "x", [four, six], index=3)
        assert (four.is_IPv4, four.is_IPv6, six.is_IPv4, six.is_IPv6) == (True, False, False, True)
        assert m.Adapter("y", "y", []).index is None
        assert four != m.IP("192.0.2.1", 24, "x") and four == four
        hash(adapter)
    assert repr(ours.Adapter("x", "x", [ours.IP(("fe80::1", 0, 3), 64, "x")], 3)) == repr(
        ifaddr.Adapter("x", "x", [ifaddr.IP(("fe80::1", 0, 3), 64, "x")], 3)
    )


def test_many_links():
    """200 veth pairs, each end with addresses, labels on some: the same
    answer, in the same order."""
    require_namespaces()
    ns = Netns("ifaddr-many")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        lines = []
        for i in range(200):
            lines.append(f"link add m{i}a type veth peer name m{i}b")
            lines.append(f"addr add 10.{i // 250}.{i % 250}.1/24 dev m{i}a")
            lines.append(f"addr add fd00:{i:x}::1/64 dev m{i}a")
            if i % 7 == 0:
                lines.append(f"addr add 10.100.{i}.1/24 dev m{i}b label m{i}b:l")
        ns.batch(lines)
        with ns.entered():
            for include in (False, True):
                mine, theirs = both(include)
                assert mine == theirs
                assert len(theirs) == (430 if include else 230)  # lo, the links, 29 labels
    finally:
        ns.delete()


# ---- being told of changes -----------------------------------------------------------


def key(adapters):
    return [(a.name, a.index, [(ip.ip, ip.network_prefix) for ip in a.ips]) for a in adapters]


def ips_of(adapters, name):
    return [ip.ip for a in adapters if a.name == name for ip in a.ips]


@pytest.fixture
def wlab():
    """A namespace of two veth pairs, down (so no address comes by itself)."""
    require_namespaces()
    ns = Netns("ifaddr-watch")
    try:
        ns.batch(
            [
                "link add w0 type veth peer name w1",
                "link add u0 type veth peer name u1",
                "addr add 10.70.0.1/24 dev w0",
            ]
        )
        yield ns
    finally:
        ns.delete()


def told_until(changes, done, what):
    """The answers changes.poll() tells until done(answer) holds, within DEADLINE
    seconds: each differs from the one before and equals ifaddr's answer of
    that moment (read in this thread's namespace, nothing else changing)."""
    told, before = [], key(changes.adapters)
    deadline = time.monotonic() + DEADLINE
    while not told or not done(told[-1]):
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"{what}: not told in {DEADLINE} s (told: {told})")
        got = changes.poll(left)
        if got is None:
            continue
        assert key(got) != before, "told of adapters that did not change"
        assert described(got) == described(ifaddr.get_adapters(changes._include))
        assert got is changes.adapters
        told.append(got)
        before = key(got)
    return told


def test_watch_tells_each_change(wlab):
    with wlab.entered():
        with ours.watch_adapters() as changes:
            assert described(changes.adapters) == described(ifaddr.get_adapters())
            assert changes.poll(0) is None
            wlab.ip("addr", "add", "10.70.0.2/24", "dev", "w0")
            told_until(changes, lambda a: "10.70.0.2" in ips_of(a, "w0"), "an address added")
            # what ifaddr does not show is not told: the first answer after an
            # MTU and a flag change is the one with the address added after them
            wlab.ip("link", "set", "w0", "mtu", "1400")
            wlab.ip("link", "set", "w0", "multicast", "off")
            wlab.ip("addr", "add", "10.70.0.3/24", "dev", "w0")
            told = told_until(changes, lambda a: "10.70.0.3" in ips_of(a, "w0"), "after the MTU")
            assert len(told) == 1
            wlab.ip("addr", "add", "10.71.0.1/24", "dev", "w0", "label", "w0:x")
            told_until(changes, lambda a: ips_of(a, "w0:x") == ["10.71.0.1"], "a label")
            wlab.ip("addr", "add", "2001:db8:70::1/64", "dev", "u0", "nodad")
            told_until(
                changes, lambda a: ("2001:db8:70::1", 0, 0) in ips_of(a, "u0"), "an IPv6 address"
            )
            wlab.ip("addr", "del", "10.70.0.1/24", "dev", "w0")
            told_until(changes, lambda a: "10.70.0.1" not in ips_of(a, "w0"), "an address removed")
            wlab.ip("link", "set", "u0", "name", "u9")
            told_until(changes, lambda a: ips_of(a, "u9") and not ips_of(a, "u0"), "a rename")
            wlab.ip("link", "del", "w0")
            told_until(changes, lambda a: not ips_of(a, "w0"), "a link deleted")
        assert changes.closed
        with pytest.raises(ValueError, match="closed"):
            changes.poll(0)


def test_watch_tells_links_without_addresses(wlab):
    with wlab.entered():
        with ours.watch_adapters(include_unconfigured=True) as changes:
            names = [a.name for a in changes.adapters]
            assert {"w1", "u0", "u1"} <= set(names)
            wlab.ip("link", "add", "n0", "type", "veth", "peer", "name", "n1")
            told_until(changes, lambda a: {"n0", "n1"} <= {x.name for x in a}, "a new link")


def test_watch_tells_an_address_once_out_of_dad(wlab):
    """An address in DAD: listed at once, told when DAD ends (or its group is
    joined); told all the same, as ifaddr then lists it."""
    wlab.sysctl("net.ipv6.conf.u0.accept_dad", 1)
    wlab.ip("link", "set", "u1", "up")
    wlab.ip("link", "set", "u0", "up")
    with wlab.entered():
        with ours.watch_adapters() as changes:
            wlab.ip("addr", "add", "2001:db8:71::1/64", "dev", "u0")
            told_until(
                changes, lambda a: ("2001:db8:71::1", 0, 0) in ips_of(a, "u0"), "a DAD address"
            )


def test_watch_in_a_netns_by_iteration_and_closed_from_another_thread(wlab):
    with netifc.NetNS(wlab.name) as ns, ours.watch_adapters(netns=ns) as changes:
        got, done = [], threading.Event()

        def run():
            for adapters in changes:
                got.append(adapters)
                if "10.72.0.1" in ips_of(adapters, "w1"):
                    done.set()
            done.set()

        t = threading.Thread(target=run, daemon=True)
        t.start()
        wlab.ip("addr", "add", "10.72.0.1/24", "dev", "w1")
        assert done.wait(DEADLINE), "not told in time"
        assert "10.72.0.1" in ips_of(got[-1], "w1")
        with wlab.entered():
            assert described(got[-1]) == described(ifaddr.get_adapters())
        changes.close()
        t.join(DEADLINE)
        assert not t.is_alive(), "close() did not end the iteration"


def test_watch_async(wlab):
    async def main():
        with ours.watch_adapters() as changes:
            wlab.ip("addr", "add", "10.73.0.1/24", "dev", "w1")
            deadline = time.monotonic() + DEADLINE
            while True:
                left = deadline - time.monotonic()
                assert left > 0, "not told in time"
                adapters = await asyncio.wait_for(changes.__anext__(), left)
                if "10.73.0.1" in ips_of(adapters, "w1"):
                    break
            assert described(adapters) == described(ifaddr.get_adapters())
            loop = asyncio.get_running_loop()
            loop.call_soon(changes.close)
            assert [a async for a in changes] == []

    with wlab.entered():
        asyncio.run(main())


@pytest.mark.parametrize(
    "bad, exc", [(-1, ValueError), (float("nan"), ValueError), ("1", TypeError), (True, TypeError)]
)
def test_watch_bad_timeouts(wlab, bad, exc):
    with wlab.entered(), ours.watch_adapters() as changes:
        with pytest.raises(exc, match="timeout"):
            changes.poll(bad)


def test_each_call_sees_the_changes_before_it(wlab):
    """get_adapters() keeps live tables between calls: a change made before a
    call is in its answer, as in ifaddr's."""
    with wlab.entered():
        assert described(ours.get_adapters()) == described(ifaddr.get_adapters())
        for n in range(1, 6):
            wlab.ip("addr", "add", f"10.74.0.{n}/24", "dev", "w1")
            mine = ours.get_adapters()
            assert f"10.74.0.{n}" in ips_of(mine, "w1")
            assert described(mine) == described(ifaddr.get_adapters())
        wlab.ip("link", "set", "w1", "name", "w7")
        assert described(ours.get_adapters(True)) == described(ifaddr.get_adapters(True))
        assert ips_of(ours.get_adapters(), "w7") and not ips_of(ours.get_adapters(), "w1")
    # in another namespace: that namespace's adapters
    assert not ips_of(ours.get_adapters(), "w7")


# ---- the default adapter recipe (docs/migrating/ifaddr.rst) ---------------------------------

PAGE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "migrating" / "ifaddr.rst"


def recipe():
    """default_adapter() as the page defines it, run here with the drop-in as ifaddr."""
    test = doctest.DocTestParser().get_doctest(PAGE.read_text(), {}, PAGE.name, str(PAGE), 0)
    (source,) = [e.source for e in test.examples if e.source.startswith("def default_adapter")]
    scope = {"netifc": netifc, "ifaddr": ours}
    exec(source, scope)
    return scope["default_adapter"]


@pytest.fixture
def rlab():
    require_namespaces()
    ns = Netns("ifaddr-route")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            [
                "link add r0 type veth peer name r1",
                "link add s0 type veth peer name s1",
                "addr add 10.80.0.5/24 dev r0",
                "addr add 10.80.0.7/24 dev r0 label r0:h",
                "addr add 2001:db8:80::5/64 dev r0",
                "addr add 10.81.0.5/24 dev s0",
                "link set r0 up",
                "link set r1 up",
                "link set s0 up",
                "link set s1 up",
            ]
        )
        yield ns
    finally:
        ns.delete()


def holder(ns, target):
    """ip's preferred source for target, and the name of ifaddr's adapter holding it."""
    (route,) = ns.ipj("route", "get", target)
    with ns.entered():
        names = [
            a.name
            for a in ifaddr.get_adapters()
            for ip in a.ips
            if (ip.ip if ip.is_IPv4 else ip.ip[0]) == route["prefsrc"]
        ]
    return route["prefsrc"], names[0]


def test_the_default_adapter_recipe(rlab):
    default_adapter = recipe()
    with rlab.entered():
        assert default_adapter() is None  # no default route yet: ENETUNREACH
        assert default_adapter("2001:4860:4860::8888") is None
    rlab.ip("route", "add", "default", "via", "10.80.0.1", "dev", "r0", "metric", "100")
    rlab.ip("-6", "route", "add", "default", "via", "2001:db8:80::1", "dev", "r0")
    assert holder(rlab, "8.8.8.8") == ("10.80.0.5", "r0")
    with rlab.entered():
        assert default_adapter().name == "r0"
        assert default_adapter("2001:4860:4860::8888").name == "r0"
    # the route's own source, under a label: the label's adapter, as ifaddr lists it
    rlab.ip(
        "route",
        "replace",
        "default",
        "via",
        "10.80.0.1",
        "dev",
        "r0",
        "metric",
        "100",
        "src",
        "10.80.0.7",
    )
    assert holder(rlab, "8.8.8.8") == ("10.80.0.7", "r0:h")
    with rlab.entered():
        assert default_adapter().name == "r0:h"
    # a lower metric on another link wins, as the kernel chooses
    rlab.ip("route", "add", "default", "via", "10.81.0.1", "dev", "s0", "metric", "10")
    assert holder(rlab, "8.8.8.8") == ("10.81.0.5", "s0")
    with rlab.entered():
        assert default_adapter().name == "s0"


# ---- python-zeroconf's helpers ----------------------------------------------------------

if ON_CI_LINUX:
    import zeroconf._utils.net as zc_net  # the test extra installs it on every CPython
else:
    zc_net = pytest.importorskip(
        "zeroconf._utils.net", reason="python-zeroconf is not installed (pip install zeroconf)"
    )


def zeroconf_answers(net):
    """What python-zeroconf's address helpers answer (their sets sorted)."""
    import zeroconf

    adapters = net.ifaddr.get_adapters()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        v4, v6 = net.get_all_addresses(), net.get_all_addresses_v6()
    wanted = [a.index for a in adapters if a.index and any(ip.is_IPv6 for ip in a.ips)]
    wanted += [ip.ip[0] for a in adapters for ip in a.ips if ip.is_IPv6 and a.index][:20]
    every = net.normalize_interface_choice(zeroconf.InterfaceChoice.All, zeroconf.IPVersion.All)
    return {
        "ipv4": sorted(net.get_all_addresses_ipv4(adapters)),
        "ipv6": sorted(net.get_all_addresses_ipv6(adapters)),
        "all_v4": sorted(v4),
        "all_v6": sorted(v6),
        "choice_all": sorted(every, key=repr),
        "indexes": net.ip6_addresses_to_indexes(wanted),
    }


def test_zeroconf_helpers_agree(iflab, monkeypatch):
    with iflab.entered():
        theirs = zeroconf_answers(zc_net)
        monkeypatch.setattr(zc_net, "ifaddr", ours)
        mine = zeroconf_answers(zc_net)
    assert mine == theirs
    assert "10.41.0.1" in theirs["ipv4"] and len(theirs["indexes"]) > 20
    assert any(scope for (_, _, scope), _ in theirs["ipv6"])  # link-locals, with their scope


ZEROCONF_CODE = """
import json, sys, warnings
if sys.argv[1] == "drop-in":
    import netifc.compat.ifaddr
    sys.modules["ifaddr"] = netifc.compat.ifaddr
import zeroconf._utils.net as net
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    print(json.dumps([net.ifaddr.__name__, sorted(net.get_all_addresses()),
                      sorted(net.get_all_addresses_v6())]))
"""


def test_zeroconf_with_the_drop_in_in_sys_modules(iflab):
    """The page's way: the drop-in under ifaddr's name before zeroconf is imported."""
    out = {}
    for how in ("ifaddr", "drop-in"):
        r = iflab.run(
            [sys.executable, "-c", ZEROCONF_CODE, how], capture_output=True, text=True, cwd="/"
        )
        assert r.returncode == 0, r.stderr[-2000:]
        out[how] = json.loads(r.stdout)
    assert out["ifaddr"][0] == "ifaddr" and out["drop-in"][0] == "netifc.compat.ifaddr"
    assert out["ifaddr"][1:] == out["drop-in"][1:]
    assert "10.42.0.1" in out["ifaddr"][1]


def test_threads_in_two_namespaces():
    """Threads in two namespaces calling at once: each answer is its own
    namespace's (the kept live table is that of the caller's namespace)."""
    require_namespaces()
    labs = [Netns("ifaddr-t0"), Netns("ifaddr-t1")]
    try:
        for n, ns in enumerate(labs):
            ns.batch(
                [f"link add t{n} type veth peer name p{n}", f"addr add 10.90.{n}.1/24 dev t{n}"]
            )
        failures = []

        def run(n):
            try:
                with labs[n].entered():
                    theirs = described(ifaddr.get_adapters())
                    for _ in range(100):
                        mine = described(ours.get_adapters())
                        if mine != theirs:
                            failures.append((n, mine, theirs))
                            return
            except BaseException as e:  # handed to the test
                failures.append((n, repr(e)))

        threads = [threading.Thread(target=run, args=(n % 2,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads)
        assert failures == []
    finally:
        for ns in labs:
            ns.delete()
