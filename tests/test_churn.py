"""Table calls while the kernel changes: every call answers, and every answer is whole.

A namespace of PAIRS veth pairs, each first end with an IPv4 and an IPv6
address, settles (every link-local out of duplicate address detection);
what ``ip -j`` then lists is the namespace's own state, which nothing
changes while ``netifc.churn`` adds and removes other addresses (its own
ranges) at RATE a second.  Every table call made meanwhile, plain and by
NetNS, must answer (no EBUSY), list each of the namespace's own links,
addresses, groups and IPv4 routes exactly once, and nothing else but
churn addresses; its IPv6 routes at most once each (the kernel's IPv6 route
walk can pass one over under change and says nothing: docs/routes.rst;
how often a call lacked one is printed, not asserted).  That the churn is strong enough to matter is checked apart:
raw address dumps made here with the socket module (not netifc) during the
same run must be flagged interrupted (NLM_F_DUMP_INTR) by the kernel.
"""

import collections
import ipaddress
import re
import socket
import struct
import subprocess
import sys
import time

import pytest

import netifc
from netifc.bench import pair_batches
from netifc.churn import Churn, is_churn
from nslab import Netns, ip_groups, until_kernel_done, why_no_namespaces

pytestmark = pytest.mark.skipif(why_no_namespaces() is not None, reason=str(why_no_namespaces()))

PAIRS = 300  # 600 links: an address dump of several datagrams
RATE = 2000  # address changes a second
SECONDS = 4.0  # of calls under churn
NLM_F_DUMP_INTR = 0x10
FAMILIES = {"inet": socket.AF_INET, "inet6": socket.AF_INET6}


def build(ns, pairs):
    links, lines = pair_batches(pairs)
    ns.batch(links)
    ns.batch(lines)


def settled(ns, pairs, timeout=120):
    """ip -j addr once every link has its link-local and none is tentative
    (checked again on each change the kernel tells: nslab.until_kernel_done)."""
    found = {}

    def left():
        links = found["links"] = ns.ipj("addr", "show")
        locals_ = sum(
            1 for l in links for a in l.get("addr_info", []) if a["local"].startswith("fe80:")
        )
        tentative = [
            a["local"] for l in links for a in l.get("addr_info", []) if a.get("tentative")
        ]
        if locals_ == 2 * pairs and not tentative:
            return []
        return [f"{locals_} of {2 * pairs} link-locals, {len(tentative)} tentative"]

    until_kernel_done(ns, left, "the pairs' link-locals", timeout)
    return found["links"]


@pytest.fixture(scope="module")
def lab():
    ns = Netns("churn")
    try:
        build(ns, PAIRS)
        links = settled(ns, PAIRS)
        own = {
            (l["ifindex"], FAMILIES[a["family"]], a["local"], a["prefixlen"])
            for l in links
            for a in l.get("addr_info", [])
        }
        groups = {
            (i, FAMILIES[family], address)
            for i, rows in ip_groups(ns).items()
            for family, address, _ in rows
        }
        routes = {
            (route_net(r["dst"], fam), r.get("dev"), r.get("metric", 0))
            for fam in (4, 6)
            for r in ns.ipj(f"-{fam}", "route", "show", "table", "main")
        }
        yield ns, {l["ifindex"] for l in links}, own, groups, routes
    finally:
        ns.delete()


def route_net(dst, family):
    if dst == "default":
        dst = "0.0.0.0/0" if family == 4 else "::/0"
    return str(ipaddress.ip_network(dst))


def addr_keys(addrs):
    return [(a.index, a.family, a.address, a.prefixlen) for a in addrs]


def check_addrs(keys, own, links, what):
    counts = collections.Counter(keys)
    twice = [k for k, n in counts.items() if n > 1]
    assert not twice, f"{what}: listed twice: {twice[:5]}"
    missing = own - set(keys)
    assert not missing, (
        f"{what}: {len(missing)} of the namespace's addresses missing: {sorted(missing)[:5]}"
    )
    other = [k for k in keys if k not in own and not (is_churn(k[2]) and k[0] in links)]
    assert not other, f"{what}: neither the namespace's nor the churn's: {other[:5]}"


def raw_dump_interrupted(fd):
    """One RTM_GETADDR dump on a plain netlink socket: whether any message
    of it carried NLM_F_DUMP_INTR."""
    req = struct.pack("IHHII", 16 + 8, 22, 0x301, 1, 0) + struct.pack("BBBBI", 0, 0, 0, 0, 0)
    fd.send(req)
    intr = False
    while True:
        buf = fd.recv(1 << 16)
        off = 0
        while off + 16 <= len(buf):
            length, kind, flags, _, _ = struct.unpack_from("IHHII", buf, off)
            intr |= bool(flags & NLM_F_DUMP_INTR)
            if kind == 3:  # NLMSG_DONE
                return intr
            if kind == 2:  # NLMSG_ERROR
                raise OSError(-struct.unpack_from("i", buf, off + 16)[0], "raw RTM_GETADDR dump")
            off += (length + 3) & ~3


def calls(ns_obj, one):
    yield "interface_addrs", lambda: ("addrs", netifc.interface_addrs())
    yield "snapshot", lambda: ("snapshot", netifc.snapshot())
    yield "multicast_snapshot", lambda: ("groups", netifc.multicast_snapshot())
    yield "interfaces", lambda: ("links", netifc.interfaces())
    yield "Interface.addrs", lambda: ("one", one.addrs())
    yield "Interface.multicast_addrs", lambda: ("one_groups", one.multicast_addrs())
    yield "routes", lambda: ("routes", netifc.routes())
    yield "counters", lambda: ("counters", netifc.counters())
    yield "NetNS.interface_addrs", lambda: ("addrs", ns_obj.interface_addrs())
    yield "NetNS.snapshot", lambda: ("snapshot", ns_obj.snapshot())


def check(kind, answer, links, own, groups, routes, one, what):
    if kind == "addrs":
        check_addrs(addr_keys(answer), own, links, what)
    elif kind == "snapshot":
        assert sorted(i.index for i in answer) == sorted(links), what
        assert {a.index for a in answer.addrs} <= links, f"{what}: an address of no link"
        check_addrs(addr_keys(answer.addrs), own, links, what)
    elif kind == "groups":
        keys = [(g.index, g.family, g.address) for g in answer.addrs]
        assert len(keys) == len(set(keys)), f"{what}: a group listed twice"
        missing = groups - set(keys)
        assert not missing, f"{what}: groups missing: {sorted(missing)[:5]}"
    elif kind == "links":
        assert sorted(i.index for i in answer) == sorted(links), what
    elif kind == "one":
        mine = {k for k in own if k[0] == one.index}
        check_addrs(addr_keys(answer), mine, {one.index}, what)
    elif kind == "one_groups":
        keys = [(g.index, g.family, g.address) for g in answer]
        assert len(keys) == len(set(keys)), f"{what}: a group listed twice"
        assert {k for k in groups if k[0] == one.index} <= set(keys), what
    elif kind == "routes":
        keys = [(str(r.network), r.ifname, r.metric) for r in answer if r.table == 254]
        assert len(keys) == len(set(keys)), f"{what}: a route listed twice"
        missing = routes - set(keys)
        v4 = sorted(k for k in missing if ":" not in k[0])
        assert not v4, f"{what}: IPv4 routes missing: {v4[:5]}"
        return bool(missing)
    elif kind == "counters":
        assert sorted(c.index for c in answer) == sorted(links), what


def test_every_table_call_answers_whole_under_churn(lab):
    ns, links, own, groups, routes = lab
    answered = collections.Counter()
    interrupted = raw = short6 = 0
    with ns.entered(), netifc.NetNS(f"/run/netns/{ns.name}") as ns_obj:
        one = netifc.interface_by_name("a7")
        probe = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
        try:
            with Churn(ns.name, RATE) as churn:
                end = time.monotonic() + SECONDS
                while time.monotonic() < end:
                    for what, call in calls(ns_obj, one):
                        kind, answer = call()  # an OSError fails the test
                        if check(kind, answer, links, own, groups, routes, one, what):
                            short6 += 1
                        answered[what] += 1
                    raw += 1
                    interrupted += raw_dump_interrupted(probe)
        finally:
            probe.close()
    print(
        f"churn {churn.rate:.0f} changes/s; calls answered whole: {dict(answered)}; "
        f"raw dumps interrupted {interrupted} of {raw}; "
        f"routes() lacking an IPv6 route {short6} of {answered['routes']}",
        file=sys.stderr,
    )
    assert churn.rate > RATE / 4, f"the churn reached only {churn.rate:.0f} changes a second"
    assert interrupted, f"no raw dump of {raw} was interrupted: the churn tested nothing"


def test_table_calls_answer_whole_while_links_come_and_go(lab):
    """Veth pairs added and removed meanwhile: every link and address of the
    namespace's own listed once by each call; a churned link at most once."""
    ns, links, own, _, _ = lab
    answered = collections.Counter()
    with ns.entered(), netifc.NetNS(f"/run/netns/{ns.name}") as ns_obj:
        with Churn(ns.name, 100, links=True) as churn:
            end = time.monotonic() + SECONDS
            while time.monotonic() < end:
                for what, call in (
                    ("interfaces", netifc.interfaces),
                    ("snapshot", netifc.snapshot),
                    ("NetNS.interfaces", ns_obj.interfaces),
                    ("interface_addrs", netifc.interface_addrs),
                ):
                    answer = call()  # an OSError fails the test
                    if what == "interface_addrs":
                        addrs = answer
                    else:
                        names = collections.Counter(i.name for i in answer)
                        assert all(n == 1 for n in names.values()), f"{what}: a link twice"
                        got = {i.index for i in answer}
                        assert links <= got, f"{what}: links missing: {sorted(links - got)[:5]}"
                        assert all(i.index in links or i.name[:2] in ("ch", "cp") for i in answer)
                        addrs = answer.addrs if what == "snapshot" else ()
                    keys = [k for k in addr_keys(addrs) if k[0] in links]
                    if keys:
                        check_addrs(keys, own, links, what)
                    answered[what] += 1
    print(
        f"link churn {churn.rate:.0f} changes/s; calls answered whole: {dict(answered)}",
        file=sys.stderr,
    )
    assert churn.rate > 100 / 4, f"the churn reached only {churn.rate:.0f} changes a second"


def test_calls_answer_whole_while_links_come_up():
    """Right after the pairs come up, while every link-local is in duplicate
    address detection (the kernel tells each of them twice), the calls answer
    whole: each IPv4 address (there before the links came up) once."""
    ns = Netns("up")
    try:
        ns.batch([f"link add a{i} type veth peer name b{i}" for i in range(PAIRS)])
        ns.batch([f"addr add 10.{i // 250}.{i % 250}.1/24 dev a{i}" for i in range(PAIRS)])
        with ns.entered():
            links = {i.index for i in netifc.interfaces()}
            v4 = {k for k in addr_keys(netifc.interface_addrs()) if k[1] == socket.AF_INET}
            ns.batch([f"link set {e}{i} up" for i in range(PAIRS) for e in "ab"])
            end, n = time.monotonic() + 2.0, 0
            while time.monotonic() < end:
                keys = addr_keys(netifc.interface_addrs())
                assert len(keys) == len(set(keys)), "an address listed twice"
                assert v4 <= set(keys), "an IPv4 address missing"
                snap = netifc.snapshot()
                assert {i.index for i in snap} == links
                keys = addr_keys(snap.addrs)
                assert len(keys) == len(set(keys)), "an address listed twice"
                assert v4 <= set(keys), "an IPv4 address missing"
                n += 1
        assert n, "no call was made"
    finally:
        ns.delete()


def test_bench_churn_mode_prints_every_call():
    """python -m netifc.bench --interfaces N --churn RATE: each row quiet and
    under churn, the rate reached, no call raised."""
    out = subprocess.run(
        [sys.executable, "-m", "netifc.bench", "--interfaces", "20", "--churn", "500"]
        + ["--benchtime", "0.05"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    rows = {line.split()[0]: line for line in out.stdout.splitlines() if line.strip()}
    for name in ("Interfaces", "InterfaceAddrs", "Snapshot", "Routes", "Counters"):
        assert name in rows, f"no {name} row in:\n{out.stdout}"
        assert "raised" not in rows[name], rows[name]
    reached = re.search(r"churn: (\d+) address changes a second reached", out.stdout)
    assert reached and int(reached.group(1)) > 100, out.stdout


def test_bench_churn_needs_a_namespace_and_a_rate():
    for args, said in (
        (["--churn", "100"], "--churn needs --interfaces"),
        (["--interfaces", "2", "--churn", "0"], "--churn needs a positive rate"),
        (["--churn-links"], "--churn-links needs --churn"),
    ):
        out = subprocess.run(
            [sys.executable, "-m", "netifc.bench", *args], capture_output=True, text=True
        )
        assert out.returncode == 2 and said in out.stderr, (args, out.stderr)
