"""python -m netifc.bench: Go's interface benchmarks, for netifc, Go, the peers and the kernel.

The six benchmarks mirror Go's ``net`` package (``interface_test.go``): the
loopback interface is found once, before timing; "InterfacesAndAddrs" and
"InterfacesAndMulticastAddrs" time loopback's ``Addrs()`` and
``MulticastAddrs()`` only, as Go's do.  Output is Go's own line format::

    BenchmarkInterfaces-2   20000   11234 ns/op

Options add, in the same run: ``--floor`` (the kernel floor: the same
requests, nothing built, on a fresh socket each time, on one kept socket
like netifc's, and on the kept socket with netifc's check that the thread
is still in the socket's namespace before each round: "/kept+ns"),
``--go`` (Go's own benchmarks, when a Go toolchain is installed),
``--peers`` (psutil, netifaces, ifaddr, pyroute2, socket, where installed;
the others are named on standard error)
and ``--interfaces N`` (everything inside a temporary namespace with N
veth pairs; root).  ``--interfaces N --churn RATE`` times instead the
table calls in that namespace quiet, then while ``netifc.churn`` adds and
removes RATE addresses a second there, and prints each call's slowdown
beside the link dump's (which address changes do not interrupt).

``--compat`` times instead the netifaces drop-in against netifaces itself
at 2 links and at 10,000 addresses on one link, and the ifaddr drop-in's
``get_adapters()`` against ifaddr's at 4 links and at 1,000 veth pairs,
each in a namespace of its own (root).

``--plot PATH`` draws instead how the cost grows with the number of links:
netifc per call, netifc's live tables, Go, psutil and the kernel floor, for
interfaces, lookups and addresses, each measured in namespaces of
``--sizes`` veth pairs, into a log-log PNG (needs matplotlib:
``pip install 'netifc[plot]'``).
"""

import argparse
import contextlib
import ctypes
import importlib
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from types import FrameType, ModuleType
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import netifc
from netifc import _netifc

_floor: Optional[ModuleType]
try:
    from netifc import _floor  # the floor timer: Linux builds only
except ImportError:
    _floor = None

GO_NAMES = (
    "BenchmarkInterfaces",
    "BenchmarkInterfaceByIndex",
    "BenchmarkInterfaceByName",
    "BenchmarkInterfaceAddrs",
    "BenchmarkInterfacesAndAddrs",
    "BenchmarkInterfacesAndMulticastAddrs",
)
SNAPSHOT = "Snapshot"  # netifc.snapshot() against psutil's net_if_addrs()+net_if_stats()
# Reads of netifc.live() with nothing pending, each beside the call it saves.
LIVE = {
    "LiveInterfaceByIndex": "BenchmarkInterfaceByIndex",
    "LiveInterfaces": "BenchmarkInterfaces",
    "LiveInterfaceAddrs": "BenchmarkInterfaceAddrs",
}
# Counters: every link's (one RTM_GETSTATS dump) against psutil's
# net_io_counters(pernic=True); loopback's own (one request).
COUNTERS = ("Counters", "InterfaceCounters")
# Routes: the main table's routes (both families), its default gateways (the
# same dump) and the route to 127.0.0.1.
ROUTES = ("Routes", "DefaultGateways", "RouteGet")
# netifc.compat.netifaces.ifaddresses(loopback) against netifaces' own (Linux).
# netifc.compat.ifaddr.get_adapters() against ifaddr's own.
COMPAT = ("NetifacesIfaddresses", "IfaddrGetAdapters")
# With --compat: the drop-in against netifaces in namespaces of their own, at
# 2 links (lo and a veth end with an IPv4 and an IPv6 address) and with
# 10,000 IPv4 addresses on one link, all under its name; {row: addresses}.
COMPAT_SIZES = {"NetifacesIfaddresses2Links": 1, "NetifacesIfaddresses10000Addrs": 10000}
# With --compat: the ifaddr drop-in against ifaddr, in a namespace of 4 links
# (lo, a veth pair and a bridge; a0 and the bridge with an IPv4 and an IPv6 address)
# and in one of 1,000 veth pairs; {row: veth pairs}.
IFADDR_SIZES = {"IfaddrGetAdapters4Links": 1, "IfaddrGetAdapters1000Pairs": 1000}
COMPAT_ROUNDS = 5  # turns of the drop-in and netifaces, with --compat
ROUNDS = 3  # turns of netifc and floor timing, with --floor
# Result keys: a socket per round; one socket kept; one kept, checked
# before each round to belong to the thread's namespace, as netifc's is.
FLOORS = ("fresh_floor", "kept_floor", "kept_ns_floor")


def loopback() -> netifc.Interface:
    """The loopback interface, found once before timing (as Go's benchmarks do)."""
    for i in netifc.interfaces():
        if i.flags & netifc.Flags.LOOPBACK:
            return i
    raise RuntimeError("no loopback interface to benchmark")


def bodies(
    lo: netifc.Interface, lv: Optional[netifc.Live] = None
) -> Dict[str, Callable[[], object]]:
    """{benchmark name: zero-argument callable} for netifc; the live rows too
    when given live tables."""
    live_rows: Dict[str, Callable[[], object]] = {}
    if lv is not None:
        live_rows = {
            "LiveInterfaceByIndex": lambda: lv.by_index(lo.index),
            "LiveInterfaces": lambda: lv.interfaces,
            "LiveInterfaceAddrs": lambda: lv.addrs,
        }
    return {
        "BenchmarkInterfaces": netifc.interfaces,
        "BenchmarkInterfaceByIndex": lambda: netifc.interface_by_index(lo.index),
        "BenchmarkInterfaceByName": lambda: netifc.interface_by_name(lo.name),
        "BenchmarkInterfaceAddrs": netifc.interface_addrs,
        "BenchmarkInterfacesAndAddrs": lo.addrs,
        "BenchmarkInterfacesAndMulticastAddrs": lo.multicast_addrs,
        SNAPSHOT: netifc.snapshot,
        **route_bodies(),
        **compat_bodies(lo),
        **live_rows,
        "Counters": netifc.counters,
        "InterfaceCounters": lo.counters,
    }


def route_bodies() -> Dict[str, Callable[[], object]]:
    """The route rows (Linux): netifc.routes() and netifc.route_get()."""
    if not hasattr(_netifc, "_routes"):
        return {}
    return {
        "Routes": netifc.routes,
        "DefaultGateways": netifc.default_gateways,
        "RouteGet": lambda: netifc.route_get("127.0.0.1"),
    }


def compat_bodies(lo: netifc.Interface) -> Dict[str, Callable[[], object]]:
    """The netifaces drop-in's row (Linux): one link's ifaddresses()."""
    if not hasattr(_netifc, "_routes"):
        return {}
    from netifc.compat import ifaddr, netifaces

    return {
        "NetifacesIfaddresses": lambda: netifaces.ifaddresses(lo.name),
        "IfaddrGetAdapters": ifaddr.get_adapters,
    }


def floor_requests(lo: netifc.Interface) -> Dict[str, Tuple[Any, ...]]:
    """{benchmark name: arguments of _floor.fresh and _floor.kept after the count}."""
    zones = sorted({a.index for a in netifc.interface_addrs() if a.zone})
    return {
        "BenchmarkInterfaces": ("links",),
        "BenchmarkInterfaceByIndex": ("link_index", lo.index),
        "BenchmarkInterfaceByName": ("link_name", 0, lo.name),
        "BenchmarkInterfaceAddrs": ("addrs", 0, None, zones),
        "BenchmarkInterfacesAndAddrs": ("link_addrs", lo.index),
        "BenchmarkInterfacesAndMulticastAddrs": ("link_groups", lo.index),
        SNAPSHOT: ("snapshot",),
        **route_floors(),
        "Counters": ("counters",),
        "InterfaceCounters": ("link_counters", lo.index),
    }


def route_floors() -> Dict[str, Tuple[Any, ...]]:
    """The route rows' requests, and the links whose names netifc asks for."""
    if not hasattr(_netifc, "_routes"):
        return {}
    links = sorted(
        {i for r in netifc.routes() for i in [r.index, *(h.index for h in r.nexthops)] if i}
    )
    return {
        "Routes": ("routes", 0, None, links),
        "DefaultGateways": ("routes", 0, None, links),
        "RouteGet": ("route_get", 0, None, [netifc.route_get("127.0.0.1").index]),
    }


def _installed(name: str) -> Any:
    """The peer module ``name``, or None where it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


_Bodies = Dict[str, Dict[str, Callable[[], object]]]  # {benchmark name: {peer: callable}}


def _socket_bodies(m: Any, lo: netifc.Interface) -> _Bodies:
    """The standard library's name and index calls."""
    return {
        "BenchmarkInterfaces": {"socket.if_nameindex": m.if_nameindex},
        "BenchmarkInterfaceByIndex": {"socket.if_indextoname": lambda: m.if_indextoname(lo.index)},
        "BenchmarkInterfaceByName": {"socket.if_nametoindex": lambda: m.if_nametoindex(lo.name)},
    }


def _psutil_bodies(m: Any, lo: netifc.Interface) -> _Bodies:
    return {
        "BenchmarkInterfaces": {"psutil.net_if_stats": m.net_if_stats},
        "BenchmarkInterfaceAddrs": {"psutil.net_if_addrs": m.net_if_addrs},
        SNAPSHOT: {
            "psutil.net_if_addrs+net_if_stats": lambda: (m.net_if_addrs(), m.net_if_stats())
        },
        "Counters": {"psutil.net_io_counters(pernic)": lambda: m.net_io_counters(pernic=True)},
    }


def _netifaces_bodies(m: Any, lo: netifc.Interface) -> _Bodies:
    def each() -> object:
        return [m.ifaddresses(n) for n in m.interfaces()]

    return {
        "BenchmarkInterfaces": {"netifaces.interfaces": m.interfaces},
        "BenchmarkInterfaceAddrs": {"netifaces.ifaddresses(each)": each},
        "BenchmarkInterfacesAndAddrs": {"netifaces.ifaddresses": lambda: m.ifaddresses(lo.name)},
        SNAPSHOT: {"netifaces.ifaddresses(each)": each},
        "DefaultGateways": {"netifaces.gateways": m.gateways},
        "NetifacesIfaddresses": {"netifaces.ifaddresses": lambda: m.ifaddresses(lo.name)},
    }


def _ifaddr_bodies(m: Any, lo: netifc.Interface) -> _Bodies:
    return {
        name: {"ifaddr.get_adapters": m.get_adapters}
        for name in (
            "BenchmarkInterfaces",
            "BenchmarkInterfaceAddrs",
            SNAPSHOT,
            "IfaddrGetAdapters",
        )
    }


def _pyroute2_bodies(m: Any, lo: netifc.Interface) -> _Bodies:
    ipr = m.IPRoute()  # one socket, kept, as netifc keeps its own
    return {
        "BenchmarkInterfaces": {"pyroute2.get_links": ipr.get_links},
        "BenchmarkInterfaceByIndex": {
            "pyroute2.link(get,index)": lambda: ipr.link("get", index=lo.index)
        },
        "BenchmarkInterfaceByName": {
            "pyroute2.link(get,ifname)": lambda: ipr.link("get", ifname=lo.name)
        },
        "BenchmarkInterfaceAddrs": {"pyroute2.get_addr": ipr.get_addr},
        "BenchmarkInterfacesAndAddrs": {
            "pyroute2.get_addr(index)": lambda: ipr.get_addr(index=lo.index)
        },
        SNAPSHOT: {"pyroute2.get_links+get_addr": lambda: (ipr.get_links(), ipr.get_addr())},
        "Routes": {"pyroute2.get_routes(table=254)": lambda: ipr.get_routes(table=254)},
        "RouteGet": {"pyroute2.route(get)": lambda: ipr.route("get", dst="127.0.0.1")},
    }


# The peers by module name, in the order their rows are printed.
_PEERS: Tuple[Tuple[str, Callable[[Any, netifc.Interface], _Bodies]], ...] = (
    ("socket", _socket_bodies),
    ("psutil", _psutil_bodies),
    ("netifaces", _netifaces_bodies),
    ("ifaddr", _ifaddr_bodies),
    ("pyroute2", _pyroute2_bodies),
)


def peer_bodies(lo: netifc.Interface) -> _Bodies:
    """{benchmark name: {peer: callable}} for the peers that are installed
    (imported by name: type checkers need none of them)."""
    peers: _Bodies = {name: {} for name in GO_NAMES + (SNAPSHOT,) + COUNTERS + ROUTES + COMPAT}
    for name, bodies in _PEERS:
        module = _installed(name)
        if module is not None:
            for benchmark, calls in bodies(module, lo).items():
                peers[benchmark].update(calls)
    return peers


def missing_peers() -> List[str]:
    """The peers that are not installed (or do not import), in _PEERS' order."""
    return [name for name, _ in _PEERS if _installed(name) is None]


def missing_peers_note(missing: Sequence[str]) -> str:
    """The line --peers prints when some peers are not installed."""
    return (
        f"python -m netifc.bench: --peers: not installed, so not timed: {', '.join(missing)}"
        " (pip install 'netifc[bench]' brings them)"
    )


def grow(run: Callable[[int], float], benchtime: float) -> Tuple[float, int]:
    """Go's b.N loop: run(n) times n operations in ns; n grows until that takes benchtime."""
    n = 1
    while True:
        elapsed = run(n)
        if elapsed >= benchtime * 1e9 or n >= 1_000_000_000:
            return elapsed / n, n
        per = max(elapsed / n, 1)
        n = int(min(max(benchtime * 1e9 / per * 1.2, n + 1), n * 100))


def measure(fn: Callable[[], object], benchtime: float) -> Tuple[float, int]:
    """ns/op of fn and the count it took."""

    def run(n: int) -> float:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        return time.perf_counter_ns() - t0

    return grow(run, benchtime)


def measure_floor(kind: str, request: Tuple[Any, ...], benchtime: float) -> Tuple[float, int]:
    """ns/op of the kernel floor for one benchmark's requests, timed in C;
    kind is one of FLOORS."""
    assert _floor is not None
    timer = _floor.fresh if kind == "fresh_floor" else _floor.kept
    nscheck = kind == "kept_ns_floor"
    return grow(lambda n: timer(request[0], n, *request[1:], nscheck=nscheck) * n, benchtime)


def object_bytes() -> Dict[str, float]:
    """Bytes per Interface and per Addr, as tracemalloc counts them."""
    out = {}
    for kind, fn in (("Interface", netifc.interfaces), ("Addr", netifc.interface_addrs)):
        out[kind] = round(_bytes_of(fn) / max(len(fn()), 1), 1)
    out["snapshot"] = _bytes_of(netifc.snapshot)
    if hasattr(_netifc, "_Tables"):
        out["live"] = _bytes_of(_live_closed)
    return out


def _live_closed() -> object:
    lv = netifc.live()
    lv.close()  # its tables stay; only the socket goes
    return lv


def _bytes_of(make: Callable[[], object]) -> float:
    """Bytes held by what make() returns (made once before, so caches are warm)."""
    make()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = make()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del kept
    return float(after - before)


# ---- Go's own benchmarks ---------------------------------------------------

GO_LINE = re.compile(r"^(Benchmark\w+)-\d+\s+(\d+)\s+([\d.]+) ns/op")


def run_go(
    benchtime: str,
    netns: Optional[str] = None,
    pattern: str = "^BenchmarkInterface",
    count: int = 1,
) -> Optional[Dict[str, float]]:
    """{name: ns/op} from Go's net package (the benchmarks `pattern` matches,
    each run `count` times, the best kept), or None when no Go toolchain is here."""
    go = shutil.which("go")
    if not go:
        return None
    goroot = subprocess.run(
        [go, "env", "GOROOT"], capture_output=True, text=True, check=True
    ).stdout.strip()
    argv = [
        go,
        "test",
        "-run",
        "NONE",
        "-bench",
        pattern,
        "-benchtime",
        benchtime,
        "-count",
        str(count),
        ".",
    ]
    if netns:
        argv = ["ip", "netns", "exec", netns] + argv
    env = dict(os.environ, GOFLAGS="-mod=mod")
    r = subprocess.run(
        argv, cwd=os.path.join(goroot, "src", "net"), capture_output=True, text=True, env=env
    )
    out: Dict[str, float] = {}
    for line in r.stdout.splitlines():
        m = GO_LINE.match(line)
        if m:
            ns = float(m.group(3))
            out[m.group(1)] = min(ns, out.get(m.group(1), ns))
    if not out:
        raise RuntimeError(f"go test printed no benchmark: {r.stdout[-400:]}{r.stderr[-400:]}")
    return out


# ---- a namespace with N veth pairs -------------------------------------------

CLONE_NEWNET = 0x40000000


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def pair_batches(pairs: int) -> Tuple[List[str], List[str]]:
    """The ``ip -batch`` lines of a namespace of `pairs` veth pairs: the
    links, then each first end's IPv4 and IPv6 address and both ends up."""
    lines = []
    for i in range(pairs):
        lines += [
            f"addr add 10.{i // 250}.{i % 250}.1/24 dev a{i}",
            f"addr add fd00:{i:x}::1/64 dev a{i}",
            f"link set a{i} up",
            f"link set b{i} up",
        ]
    return [f"link add a{i} type veth peer name b{i}" for i in range(pairs)], lines


def _enter(name: str) -> None:
    """This thread into the namespace named `name` (under /run/netns)."""
    target = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        _setns(target)
    finally:
        os.close(target)


@contextlib.contextmanager
def scale_namespace(pairs: int) -> Iterator[str]:
    """A namespace holding `pairs` veth pairs, each first end with an IPv4 and
    an IPv6 address; this thread inside it for the block; always removed."""
    prefix = os.environ.get("NETIFC_BENCH_NETNS_PREFIX", "netifc-bench-")
    name = f"{prefix}{os.getpid()}-{uuid.uuid4().hex[:6]}"
    home_fd = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    old_term = signal.signal(signal.SIGTERM, _raise_exit)
    try:
        subprocess.run(["ip", "netns", "add", name], check=True)
        links, lines = pair_batches(pairs)
        _batch(name, ["link set lo up"] + links)
        if lines:
            _batch(name, lines)
        _enter(name)
        try:
            _settle(2 * pairs)
            yield name
        finally:
            _setns(home_fd)
    finally:
        os.close(home_fd)
        subprocess.run(["ip", "netns", "del", name], check=False)
        signal.signal(signal.SIGTERM, old_term)


def _settle(links: int, seconds: float = 120) -> None:
    """Wait (up to seconds; TimeoutError after) until the kernel's work on new
    links is done: `links` links besides lo, each with carrier and an IPv6
    link-local address, and no address tentative (IPv6 duplicate address
    detection) -- checked on each change the kernel tells
    (netifc.wait_until), never on a clock."""

    def done(tables: netifc.Live) -> bool:
        snap = tables.snapshot()
        others = [i for i in snap.interfaces if i.name != "lo"]
        if len(others) != links or any(not i.raw_flags & _IFF_LOWER_UP for i in others):
            return False
        six = [a for a in snap.addrs if a.family == socket.AF_INET6]
        local = {a.index for a in six if a.address.startswith("fe80:")}
        tentative = any(a.flags & netifc.Addr6Flags.TENTATIVE for a in six)
        return not tentative and all(i.index in local for i in others)

    netifc.wait_until(done, what=f"{links} links with carrier, out of DAD", timeout=seconds)


_IFF_LOWER_UP = 0x10000  # carrier, in the kernel's link flags (raw_flags)


def _raise_exit(signum: int, frame: Optional[FrameType]) -> None:
    raise SystemExit(128 + signum)


def _batch(ns: str, lines: List[str]) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".ip") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        subprocess.run(["ip", "-n", ns, "-batch", f.name], check=True)


@contextlib.contextmanager
def compat_namespace(addrs: int) -> Iterator[str]:
    """A namespace with lo and one veth end (its peer in a second namespace),
    the end with `addrs` IPv4 addresses and one IPv6 address; this thread
    inside it for the block; both always removed."""
    name = f"netifc-bench-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    far = name + "-far"
    home_fd = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    old_term = signal.signal(signal.SIGTERM, _raise_exit)
    try:
        for n in (name, far):
            subprocess.run(["ip", "netns", "add", n], check=True)
        lines = ["link set lo up", "link add c0 type veth peer name c1", f"link set c1 netns {far}"]
        for i in range(addrs):
            lines.append(f"addr add 10.{i // 250 % 250}.{i % 250}.1/16 dev c0")
        _batch(name, lines + ["addr add fd00:c::1/64 dev c0 nodad", "link set c0 up"])
        _enter(name)
        try:
            yield name
        finally:
            _setns(home_fd)
    finally:
        os.close(home_fd)
        for n in (name, far):
            subprocess.run(["ip", "netns", "del", n], check=False)
        signal.signal(signal.SIGTERM, old_term)


def compat_sizes(benchtime: float) -> Dict[str, Dict[str, float]]:
    """The COMPAT_SIZES rows: ns/op of the drop-in's and of netifaces'
    ifaddresses("c0") (netifaces' where installed), printed with the ratio."""
    from netifc.compat import netifaces as ours

    theirs: Optional[ModuleType]
    try:
        theirs = importlib.import_module("netifaces")
    except ImportError:
        theirs = None
    procs = os.cpu_count() or 1
    out: Dict[str, Dict[str, float]] = {}
    for row, addrs in COMPAT_SIZES.items():
        with compat_namespace(addrs):
            fns = {"netifc.compat": lambda: ours.ifaddresses("c0")}
            if theirs is not None:
                assert ours.ifaddresses("c0") == theirs.ifaddresses("c0")
                fns["netifaces"] = lambda: theirs.ifaddresses("c0")
            # In turns, the best of each kept: a ratio from one moment of a
            # machine that may be busy with other work.
            got: Dict[str, float] = {}
            for _ in range(COMPAT_ROUNDS):
                for name, fn in fns.items():
                    ns = measure(fn, benchtime / COMPAT_ROUNDS)[0]
                    got[name] = min(ns, got.get(name, ns))
        out[row] = got
        line = f"{row}-{procs}\t{got['netifc.compat']:12.0f} ns/op"
        if "netifaces" in got:
            ratio = got["netifaces"] / got["netifc.compat"]
            line += f"\tnetifaces {got['netifaces']:12.0f} ns/op\t{ratio:.1f}x faster"
        print(line, flush=True)
    if theirs is None:
        print("netifaces is not installed (pip install 'netifc[bench]'): no comparison")
    return out


def ifaddr_sizes(benchtime: float) -> Dict[str, Dict[str, float]]:
    """The IFADDR_SIZES rows: ns/op of the drop-in's and of ifaddr's
    get_adapters() (ifaddr's where installed), printed with the ratio."""
    from netifc.compat import ifaddr as ours

    theirs: Optional[ModuleType]
    try:
        theirs = importlib.import_module("ifaddr")
    except ImportError:
        theirs = None
    procs = os.cpu_count() or 1
    out: Dict[str, Dict[str, float]] = {}
    for row, pairs in IFADDR_SIZES.items():
        with scale_namespace(pairs) as name:
            if pairs == 1:  # lo, a0, b0 and a bridge: 4 links
                _batch(
                    name,
                    [
                        "link add d0 type bridge",
                        "addr add 10.255.0.1/24 dev d0",
                        "addr add fd00:ff::1/64 dev d0 nodad",
                        "link set d0 up",
                    ],
                )
            fns: Dict[str, Callable[[], object]] = {"netifc.compat": ours.get_adapters}
            if theirs is not None:
                assert [repr(a) for a in ours.get_adapters()] == [
                    repr(a) for a in theirs.get_adapters()
                ]
                fns["ifaddr"] = theirs.get_adapters
            got: Dict[str, float] = {}
            for _ in range(COMPAT_ROUNDS):
                for peer, fn in fns.items():
                    ns = measure(fn, benchtime / COMPAT_ROUNDS)[0]
                    got[peer] = min(ns, got.get(peer, ns))
            ours._CACHE.forget()  # its live table holds the namespace
        out[row] = got
        line = f"{row}-{procs}\t{got['netifc.compat']:12.0f} ns/op"
        if "ifaddr" in got:
            ratio = got["ifaddr"] / got["netifc.compat"]
            line += f"\tifaddr {got['ifaddr']:12.0f} ns/op\t{ratio:.1f}x faster"
        print(line, flush=True)
    if theirs is None:
        print("ifaddr is not installed (pip install 'netifc[bench]'): no comparison")
    return out


# ---- applying notifications ------------------------------------------------------

SO_RCVBUFFORCE = 33  # Linux: SO_RCVBUF above net.core.rmem_max (root)
APPLIED = 10000


def apply_cost(ns: str, changes: int = APPLIED) -> Dict[str, float]:
    """Milliseconds to apply `changes` pending address notifications: to
    live() (its next read), and to a Watcher with its events made; beside
    the best of three snapshot() of the state before and of the state after.
    In namespace ns (root:
    the sockets' queues are made large enough to hold them all)."""
    lv, w = netifc.live(), netifc.Watcher()
    try:
        for fd in (lv.fileno(), w.fileno()):
            with socket.socket(fileno=os.dup(fd)) as s:
                s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 256 << 20)
        snap = min(timed(netifc.snapshot) for _ in range(3))
        before = len(lv.addrs)
        links = [i.name for i in lv.interfaces if not i.flags & netifc.Flags.LOOPBACK]
        _batch(
            ns,
            [
                f"addr add 172.{16 + k // 62500}.{k // 250 % 250}.{k % 250 + 1}/32"
                f" dev {links[k % len(links)]}"
                for k in range(changes)
            ],
        )
        live_ms = timed(lambda: lv.addrs)
        watcher_ms = timed(lambda: w.poll(0))
        if len(lv.addrs) != before + changes or len(w.addrs) != before + changes:
            raise RuntimeError("the notifications were not all applied (a queue overflowed?)")
        after = min(timed(netifc.snapshot) for _ in range(3))
    finally:
        lv.close()
        w.close()
    return {
        "changes": changes,
        "live": live_ms,
        "watcher": watcher_ms,
        "snapshot": snap,
        "snapshot_after": after,
    }


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1e3


# ---- cost against the number of links (--plot) --------------------------------

PLOT_SIZES = (0, 5, 50, 500, 2000)  # veth pairs: 1, 11, 101, 1001 and 4001 links
# (key, panel title, Go's benchmark)
PLOT_PANELS = (
    ("interfaces", "every interface", "BenchmarkInterfaces"),
    ("lookup", "one interface, by index", "BenchmarkInterfaceByIndex"),
    ("addrs", "every address", "BenchmarkInterfaceAddrs"),
)
PLOT_GO = "^BenchmarkInterface(s|ByIndex|Addrs)$"
PLOT_SERIES = ("netifc", "netifc live()", "Go", "psutil", "kernel floor")


def plot_sizes(text: str) -> List[int]:
    """ "0,5,50" -> [0, 5, 50]: counts of veth pairs, each 0 or more."""
    try:
        sizes = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a comma-separated list of counts: {text!r}"
        ) from None
    if not sizes or sizes[0] < 0:
        raise argparse.ArgumentTypeError(f"counts of veth pairs must be 0 or more: {text!r}")
    return sizes


PLOT_ROUNDS = 7  # short turns of every series, the best of each kept


def scaling_point(benchtime: float, netns: str, go: bool) -> Dict[str, Any]:
    """The figures of one namespace, this thread inside it:
    {"links", "addrs", "ns": {panel: {series: ns/op}}}.  The series of a
    panel are timed in turns, PLOT_ROUNDS short turns each, and the best
    turn of each is kept: on a shared machine that is the one least
    disturbed, and the series compared met the same moments."""
    assert _floor is not None
    floor_timer = _floor.kept
    lo = loopback()
    floors = floor_requests(lo)
    lv = netifc.live()
    try:
        lv._current()  # what the kernel told while the namespace settled
        calls: Dict[str, Dict[str, Callable[[], object]]] = {
            "interfaces": {"netifc": netifc.interfaces, "netifc live()": lambda: lv.interfaces},
            "lookup": {
                "netifc": lambda: netifc.interface_by_index(lo.index),
                "netifc live()": lambda: lv.by_index(lo.index),
            },
            "addrs": {"netifc": netifc.interface_addrs, "netifc live()": lambda: lv.addrs},
        }
        psutil = _installed("psutil")
        if psutil is not None:  # psutil has no lookup of one interface
            calls["interfaces"]["psutil"] = psutil.net_if_stats
            calls["addrs"]["psutil"] = psutil.net_if_addrs
        turn = benchtime / PLOT_ROUNDS
        out: Dict[str, Dict[str, float]] = {}

        def timed_call(fn: Callable[[], object]) -> Callable[[], float]:
            return lambda: measure(fn, turn)[0]

        def timed_floor(request: Tuple[Any, ...]) -> Callable[[], float]:
            return lambda: grow(lambda n: floor_timer(request[0], n, *request[1:]) * n, turn)[0]

        for key, _, go_name in PLOT_PANELS:
            timers = {series: timed_call(fn) for series, fn in calls[key].items()}
            timers["kernel floor"] = timed_floor(floors[go_name])
            out[key] = {}
            for _ in range(PLOT_ROUNDS):
                for series, timer in timers.items():
                    ns = timer()
                    out[key][series] = min(ns, out[key].get(series, ns))
    finally:
        lv.close()
    if go:
        times = run_go(f"{benchtime / PLOT_ROUNDS:.3f}s", netns, PLOT_GO, PLOT_ROUNDS) or {}
        for key, _, go_name in PLOT_PANELS:
            if go_name in times:
                out[key]["Go"] = times[go_name]
    return {"links": len(netifc.interfaces()), "addrs": len(netifc.interface_addrs()), "ns": out}


def scaling(sizes: Sequence[int], benchtime: float, go: bool) -> List[Dict[str, Any]]:
    """scaling_point() in a new namespace of each size (veth pairs)."""
    points = []
    for pairs in sizes:
        t = time.monotonic()
        with scale_namespace(pairs) as ns:
            point = scaling_point(benchtime, ns, go)
        point["pairs"] = pairs
        points.append(point)
        row = "  ".join(
            f"{key} " + " ".join(f"{s}={ns / 1e3:.1f}" for s, ns in point["ns"][key].items())
            for key, _, _ in PLOT_PANELS
        )
        print(
            f"{pairs} pairs, {point['links']} links ({time.monotonic() - t:.0f} s), us/op: {row}",
            flush=True,
        )
    return points


def draw(points: Sequence[Dict[str, Any]], path: str, note: str) -> None:
    """A PNG at path: one log-log panel per call, microseconds against links."""
    # matplotlib is the optional plot extra: a type check without it passes too
    import matplotlib  # type: ignore[import-not-found, unused-ignore]

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]

    styles = {
        "netifc": ("C0", "o", "-"),
        "netifc live()": ("C2", "s", "-"),
        "Go": ("C3", "^", "--"),
        "psutil": ("C1", "v", "--"),
        "kernel floor": ("k", ".", ":"),
    }
    fig, axes = plt.subplots(1, len(PLOT_PANELS), figsize=(13, 4.6), sharey=True)
    for ax, (key, title, go_name) in zip(axes, PLOT_PANELS):
        for series in PLOT_SERIES:
            xy = [
                (p["links"], p["ns"][key][series] / 1e3) for p in points if series in p["ns"][key]
            ]
            if not xy:
                continue
            color, marker, line = styles[series]
            ax.plot(
                [x for x, _ in xy],
                [y for _, y in xy],
                color=color,
                marker=marker,
                linestyle=line,
                label=series,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{title}\n(Go's {go_name[len('Benchmark') :]})", fontsize=10)
        ax.set_xlabel("links in the namespace")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("microseconds per call")
    axes[0].legend(loc="upper left", fontsize=8)
    fig.text(0.5, 0.005, note, ha="center", va="bottom", fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot(p: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """--plot PATH: measure in a namespace of each size, then draw."""
    if _installed("matplotlib") is None:
        p.exit(
            2,
            f"{p.prog}: error: --plot needs matplotlib, which is not installed:"
            " pip install 'netifc[plot]'\n",
        )
    if _floor is None or not hasattr(_netifc, "_Tables"):
        p.error("--plot needs the Linux build (the kernel floor, live tables, namespaces)")
    if os.geteuid() != 0:
        p.error("--plot needs root (it builds network namespaces)")
    go = not args.no_go and shutil.which("go") is not None
    if not go and not args.no_go:
        print("go: no Go toolchain on PATH; the plot has no Go series", file=sys.stderr)
    points = scaling(args.sizes, args.benchtime, go)
    notes = [
        f"best of {PLOT_ROUNDS} turns per point (Go: go test -count {PLOT_ROUNDS})",
        f"{os.cpu_count()} CPUs",
        f"CPython {sys.version.split()[0]}",
    ]
    if not go:
        notes.append("Go not shown: " + ("--no-go" if args.no_go else "no Go toolchain on PATH"))
    if importlib.util.find_spec("psutil") is None:
        notes.append("psutil not shown: not installed")
    else:
        notes.append("psutil has no lookup by index")
    draw(points, args.plot, "; ".join(notes))
    print(f"wrote {args.plot}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "sizes": list(args.sizes),
                    "benchtime": args.benchtime,
                    "go": go,
                    "points": points,
                },
                f,
                indent=1,
            )
    return 0


# ---- under churn (--churn) -------------------------------------------------------


def churn_bodies() -> Dict[str, Callable[[], object]]:
    """The table calls timed quiet and under churn, on the first link that
    is not loopback for the calls of one link."""
    one = next(i for i in netifc.interfaces() if not i.flags & netifc.Flags.LOOPBACK)
    return {
        "Interfaces": netifc.interfaces,
        "InterfaceByIndex": lambda: netifc.interface_by_index(one.index),
        "InterfaceAddrs": netifc.interface_addrs,
        "Snapshot": netifc.snapshot,
        "Addrs": one.addrs,
        "MulticastAddrs": one.multicast_addrs,
        "MulticastSnapshot": netifc.multicast_snapshot,
        "Routes": netifc.routes,
        "Counters": netifc.counters,
    }


def churn_cost(ns: str, rate: float, benchtime: float, links: bool = False) -> Dict[str, Any]:
    """Each table call's ns/op with the namespace quiet, then while
    netifc.churn changes its addresses (links: adds and removes veth pairs)
    at `rate` a second; the calls that raised (none should), and the rate
    the churn reached."""
    from netifc.churn import Churn

    calls = churn_bodies()
    failed: Dict[str, List[str]] = {}

    def counted(name: str, fn: Callable[[], object]) -> Callable[[], object]:
        def call() -> object:
            try:
                return fn()
            except OSError as e:
                failed.setdefault(name, []).append(str(e))
                return None

        return call

    def floor(request: Tuple[Any, ...]) -> Optional[float]:
        try:
            return measure_floor("kept_floor", request, benchtime)[0]
        except OSError:  # the floor asks again only NETIFC_TRIES times
            return None

    requests = churn_floors() if _floor is not None else {}
    quiet = {name: measure(fn, benchtime)[0] for name, fn in calls.items()}
    quiet_floor = {name: floor(q) for name, q in requests.items()}
    with Churn(ns, rate, links) as churn:
        busy = {name: measure(counted(name, fn), benchtime)[0] for name, fn in calls.items()}
        busy_floor = {name: floor(q) for name, q in requests.items()}
    return {
        "kind": "link" if links else "address",
        "asked": rate,
        "rate": churn.rate,
        "quiet": quiet,
        "churn": busy,
        "failed": failed,
        "quiet_floor": quiet_floor,
        "churn_floor": busy_floor,
    }


def churn_floors() -> Dict[str, Tuple[Any, ...]]:
    """The kernel floor's requests for the churn rows that have one."""
    zones = sorted({a.index for a in netifc.interface_addrs() if a.zone})
    return {
        "Interfaces": ("links",),
        "InterfaceAddrs": ("addrs", 0, None, zones),
        "Snapshot": ("snapshot",),
        **({"Routes": route_floors()["Routes"]} if route_floors() else {}),
        "Counters": ("counters",),
    }


def churn_report(c: Dict[str, Any]) -> None:
    print()
    print(f"churn: {c['rate']:.0f} {c['kind']} changes a second reached ({c['asked']:.0f} asked)")
    print(
        f"{'call':20s} {'quiet ns/op':>12s} {'churn ns/op':>12s} {'slowdown':>9s} {'/links':>7s}"
        f" {'floor slowdown':>15s}"
    )
    base = c["churn"]["Interfaces"] / c["quiet"]["Interfaces"]
    for name, quiet in c["quiet"].items():
        slow = c["churn"][name] / quiet
        fails = len(c["failed"].get(name, ()))
        line = f"{name:20s} {quiet:12.0f} {c['churn'][name]:12.0f} {slow:8.2f}x {slow / base:6.2f}x"
        if name in c["quiet_floor"]:
            q, b = c["quiet_floor"][name], c["churn_floor"][name]
            line += f" {b / q:14.2f}x" if q and b else f" {'EBUSY':>15s}"
        print(line + (f"  {fails} raised: {c['failed'][name][0]}" if fails else ""))
    print(
        "(/links: the slowdown over the link dump's, which no address change interrupts;"
        " floor: the kernel's own for the same requests, nothing built, asked again"
        " whole when interrupted)"
    )


# ---- the run and its report -----------------------------------------------------


def run(args: argparse.Namespace, netns: Optional[str] = None) -> Dict[str, Any]:
    lo = loopback()
    procs = os.cpu_count() or 1
    result: Dict[str, Any] = {
        "procs": procs,
        "links": len(netifc.interfaces()),
        "addrs": len(netifc.interface_addrs()),
        "netifc": {},
        "fresh_floor": {},
        "kept_floor": {},
        "kept_ns_floor": {},
        "go": {},
        "peers": {},
        "bytes": object_bytes(),
    }
    lv = netifc.live() if hasattr(_netifc, "_Tables") else None
    names = (
        GO_NAMES
        + (SNAPSHOT,)
        + tuple(route_bodies())
        + tuple(compat_bodies(lo))
        + (tuple(LIVE) if lv is not None else ())
        + COUNTERS
    )
    floors = floor_requests(lo) if args.floor else {}
    for name, fn in bodies(lo, lv).items():
        # With --floor netifc and the three floors are timed in turns, ROUNDS
        # times, and the best of each kept: ratios from one moment of this
        # noisy machine.
        rounds = ROUNDS if name in floors else 1
        if name in LIVE and lv is not None:
            lv._current()  # what the kernel told meanwhile, applied before the timing
        for _ in range(rounds):
            ns, n = measure(fn, args.benchtime / rounds)
            result["netifc"][name] = min(ns, result["netifc"].get(name, ns))
            for kind in FLOORS if name in floors else ():
                fl, _ = measure_floor(kind, floors[name], args.benchtime / rounds)
                result[kind][name] = min(fl, result[kind].get(name, fl))
        print(f"{name}-{procs}\t{n:10d}\t{result['netifc'][name]:12.0f} ns/op", flush=True)
    if args.peers:
        missing = missing_peers()
        if missing:
            print(missing_peers_note(missing), file=sys.stderr, flush=True)
        for name, peers in peer_bodies(lo).items():
            for peer, fn in peers.items():
                result["peers"].setdefault(name, {})[peer], _ = measure(fn, args.benchtime)
    if args.go:
        go = run_go(args.gobenchtime, netns)
        if go is None:
            print("go: no Go toolchain on PATH; --go skipped", file=sys.stderr)
        else:
            result["go"] = go
    if netns is not None and lv is not None:
        result["apply"] = apply_cost(netns)
    report(result, names)
    return result


def report(result: Dict[str, Any], names: Sequence[str]) -> None:
    print()
    print(
        f"{result['links']} links, {result['addrs']} addresses; "
        f"bytes per Interface {result['bytes']['Interface']}, "
        f"per Addr {result['bytes']['Addr']}"
    )
    if "live" in result["bytes"]:
        print(
            f"bytes of live() {result['bytes']['live']:.0f}, "
            f"of snapshot() {result['bytes']['snapshot']:.0f}"
        )
    if "apply" in result:
        a = result["apply"]
        print(
            f"{a['changes']} address notifications applied: by live() in {a['live']:.1f} ms, "
            f"by a Watcher (events made) in {a['watcher']:.1f} ms; "
            f"one snapshot() {a['snapshot']:.1f} ms before them, "
            f"{a['snapshot_after']:.1f} ms after"
        )
    head = f"{'benchmark':40s} {'netifc ns/op':>13s}"
    if result["kept_floor"]:
        head += f" {'fresh floor':>12s} {'kept floor':>11s} {'/kept':>6s}"
        head += f" {'kept+ns':>9s} {'/kept+ns':>8s}"
    if result["go"]:
        head += f" {'Go ns/op':>12s} {'Go/netifc':>9s}"
    print(head)
    for name in names:
        ours = result["netifc"][name]
        line = f"{name:40s} {ours:13.0f}"
        if result["kept_floor"]:
            fresh, kept = result["fresh_floor"].get(name), result["kept_floor"].get(name)
            checked = result["kept_ns_floor"].get(name)
            line += (
                f" {fresh:12.0f} {kept:11.0f} {ours / kept:6.2f}"
                f" {checked:9.0f} {ours / checked:8.2f}"
                if kept and checked
                else f" {'':12s} {'':11s} {'':6s} {'':9s} {'':8s}"
            )
        if result["go"]:
            g = result["go"].get(name)
            line += f" {g:12.0f} {g / ours:8.1f}x" if g else ""
        print(line)
        for peer, ns in sorted(result["peers"].get(name, {}).items()):
            print(f"  {peer:38s} {ns:13.0f}  ({ns / ours:.1f}x netifc's time)")
        if name in LIVE:
            print(f"  {LIVE[name] + ' / this':38s} {result['netifc'][LIVE[name]] / ours:13.1f}x")


def load_run(path: str) -> Dict[str, float]:
    """netifc's {benchmark: ns/op} from a run saved with --json; ValueError
    (its message names the file) when it cannot be read or is not one."""
    try:
        with open(path) as f:
            saved = json.load(f)
        times = saved["netifc"]
        return {str(name): float(ns) for name, ns in times.items()}
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ValueError(f"{path}: not a run saved with --json") from None


def compare(old_path: str, new_path: str) -> None:
    old, new = load_run(old_path), load_run(new_path)
    print(f"{'benchmark':40s} {'old ns/op':>12s} {'new ns/op':>12s} {'delta':>9s}")
    for name in old:
        if name in new:
            delta = (new[name] - old[name]) / old[name] * 100
            print(f"{name:40s} {old[name]:12.0f} {new[name]:12.0f} {delta:+8.2f}%")


def seconds(text: str) -> float:
    """--benchtime's value: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < float("inf"):  # (NaN too)
        raise argparse.ArgumentTypeError(f"a positive, finite number of seconds, not {text}")
    return value


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m netifc.bench", description=__doc__.split("\n")[0])
    p.add_argument(
        "--benchtime",
        type=seconds,
        default=1.0,
        metavar="SECONDS",
        help="time each benchmark at least this long (default 1)",
    )
    p.add_argument(
        "--floor",
        action="store_true",
        help="also time the kernel floor: on a fresh socket, on a kept one, "
        "and on a kept one with the namespace check",
    )
    p.add_argument("--go", action="store_true", help="also run Go's own benchmarks")
    p.add_argument("--gobenchtime", default="1s", help="Go's -benchtime (default 1s)")
    p.add_argument("--peers", action="store_true", help="also time the Python peers")
    p.add_argument(
        "--interfaces",
        type=int,
        metavar="N",
        help="run in a temporary namespace with N veth pairs (root)",
    )
    p.add_argument(
        "--compat",
        action="store_true",
        help="time the netifaces drop-in against netifaces at 2 links and at 10,000 "
        "addresses on one link, each in a namespace of its own (root)",
    )
    p.add_argument("--json", metavar="FILE", help="save the run")
    p.add_argument(
        "--compare",
        nargs=2,
        metavar=("OLD", "NEW"),
        help="compare two saved runs, as Go's benchcmp does",
    )
    p.add_argument(
        "--plot",
        metavar="PATH",
        help="write a PNG of cost against the number of links (root, matplotlib)",
    )
    p.add_argument(
        "--sizes",
        type=plot_sizes,
        default=list(PLOT_SIZES),
        metavar="N,N,...",
        help="with --plot, the namespaces' counts of veth pairs (default "
        + ",".join(map(str, PLOT_SIZES))
        + ": 1 to 4001 links)",
    )
    p.add_argument("--no-go", action="store_true", help="with --plot, leave Go out")
    p.add_argument(
        "--churn",
        type=float,
        metavar="RATE",
        help="with --interfaces, time the table calls quiet and while RATE addresses "
        "a second are added and removed in the namespace (root)",
    )
    p.add_argument(
        "--churn-links",
        action="store_true",
        help="with --churn, add and remove RATE veth pairs a second instead of addresses",
    )
    p.add_argument(
        "--wait",
        type=int,
        nargs="?",
        const=1,
        metavar="PAIRS",
        help="the latency of netifc's waits, from the kernel's change to their return,"
        " in a namespace of PAIRS veth pairs (default 1; root)",
    )
    words = list(sys.argv[1:] if argv is None else argv)
    for i, word in enumerate(words[:-1]):
        if word == "--benchtime":  # (argparse takes a -inf after it for an option)
            words[i : i + 2] = [f"--benchtime={words[i + 1]}"]
            break
    args = p.parse_args(words)
    if args.churn_links and args.churn is None:
        p.error("--churn-links needs --churn RATE")
    if args.plot:
        return plot(p, args)
    if args.compare:
        try:
            compare(*args.compare)
        except ValueError as e:
            p.exit(2, f"{p.prog}: error: --compare: {e}\n")
        return 0
    if args.compat:
        if os.geteuid() != 0:
            p.error("--compat needs root (it builds network namespaces)")
        if not hasattr(_netifc, "_routes"):
            p.error("--compat needs Linux (the drop-in answers there only)")
        result = {
            "compat_sizes": compat_sizes(args.benchtime),
            "ifaddr_sizes": ifaddr_sizes(args.benchtime),
        }
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=1)
        return 0
    if args.wait is not None:
        from . import bench_wait

        if args.wait < 1 or os.geteuid() != 0:
            p.error("--wait needs a positive count of pairs, and root (it builds a namespace)")
        with scale_namespace(args.wait) as ns:
            waits = bench_wait.latency(ns)
        bench_wait.report(args.wait, waits)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"wait_latency": {str(args.wait): waits}}, f, indent=1)
        return 0
    if args.churn is not None and args.interfaces is None:
        p.error("--churn needs --interfaces N (the churn is made in that namespace)")
    if args.floor and _floor is None:
        p.error("--floor needs the Linux build")
    if args.interfaces is not None:
        if args.interfaces < 1:
            p.error("--interfaces needs a positive count")
        if os.geteuid() != 0:
            p.error("--interfaces needs root (it builds a network namespace)")
        if args.churn is not None and not 0 < args.churn < float("inf"):
            p.error("--churn needs a positive rate")
        with scale_namespace(args.interfaces) as ns:
            if args.churn is not None:
                result = churn_cost(ns, args.churn, args.benchtime, args.churn_links)
                churn_report(result)
            else:
                result = run(args, ns)
    else:
        result = run(args)
    result["interfaces_arg"] = args.interfaces
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
