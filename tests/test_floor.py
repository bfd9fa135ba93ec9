"""netifc._floor, the benchmark harness's kernel floor: its arguments, its
requests, its two sockets.  The links come from iproute2."""

import errno
import os
import re
import subprocess
import sys
import threading

import pytest

from nslab import ip_links, require_strace

if not sys.platform.startswith("linux"):
    pytest.skip("the floor timer is built on Linux only", allow_module_level=True)

from netifc import _floor  # noqa: E402

TIMERS = {"fresh": _floor.fresh, "kept": _floor.kept}


@pytest.fixture(scope="module")
def links(host):
    return ip_links(host)


@pytest.fixture(scope="module")
def lo(links):
    return next(l for l in links.values() if "LOOPBACK" in l["flags"])


def requests(lo, links):
    """Each op with the arguments netifc.bench gives it."""
    return {
        "links": (),
        "link_index": (lo["index"],),
        "link_name": (0, lo["name"]),
        "addrs": (0, None, sorted(links)),
        "link_addrs": (lo["index"],),
        "link_groups": (lo["index"],),
        "snapshot": (),
    }


# A child that makes one benchmark's calls between markers (getppid): netifc's
# body ROUNDS times, after two calls that make its kept socket; then the
# floor's kept timer, ROUNDS rounds with the namespace check.
CHILD = r"""
import os, sys
from netifc import _floor, bench
lo = bench.loopback()
body, request = bench.bodies(lo)[sys.argv[1]], bench.floor_requests(lo)[sys.argv[1]]
body(); body()
os.getppid()
for _ in range(int(sys.argv[2])):
    body()
os.getppid()
_floor.kept(request[0], int(sys.argv[2]), *request[1:], nscheck=True)
os.getppid()
"""
ROUNDS = 3
CALL = re.compile(r"^(\w+)\((?:\d+, )?(.*)\) += ")
SEQ = re.compile(r"nlmsg_seq=\d+")


def what_is_asked(name):
    """The requests of netifc's body and of the floor, as strace decodes
    them: each netlink message sent (its sequence number left out), each
    ioctl with what it names, each readlinkat; descriptors left out.  The floor's first
    readlinkat, which reads the namespace before its clock starts, is dropped."""
    require_strace("the floor's request test")
    r = subprocess.run(
        [
            "strace",
            "-qq",
            "-e",
            "signal=none",
            "-s",
            "65536",
            "-e",
            "trace=getppid,sendto,sendmsg,ioctl,readlinkat",
            sys.executable,
            "-c",
            CHILD,
            name,
            str(ROUNDS),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    parts, seen = [], []
    for line in r.stderr.splitlines():
        m = CALL.match(line)
        if not m:
            continue
        call, rest = m.group(1), m.group(2)
        if call == "getppid":
            parts.append(seen)
            seen = []
            continue
        seen.append((call, SEQ.sub("nlmsg_seq=N", rest)))
    assert len(parts) == 3, r.stderr[-2000:]
    ours, floor = parts[1], parts[2]
    assert floor[:1] and floor[0][0] == "readlinkat", floor[:3]
    return ours, floor[1:]


@pytest.mark.parametrize(
    "name",
    [
        "BenchmarkInterfaces",
        "BenchmarkInterfaceByIndex",
        "BenchmarkInterfaceByName",
        "BenchmarkInterfaceAddrs",
        "BenchmarkInterfacesAndAddrs",
        "BenchmarkInterfacesAndMulticastAddrs",
        "Snapshot",
        "Routes",
        "RouteGet",
        "Counters",
        "InterfaceCounters",
    ],
)
def test_the_floor_asks_what_netifc_asks(name):
    """Each bench row's kept floor with the namespace check makes, round for
    round, the very requests netifc's call makes: the same netlink messages,
    the same ioctls, the same namespace check."""
    ours, floor = what_is_asked(name)
    sent = [r for r in ours if r[0] in ("sendto", "sendmsg")]
    assert len(sent) >= ROUNDS, ours
    assert [r[0] for r in ours].count("readlinkat") == ROUNDS, ours
    assert ours == floor


@pytest.mark.parametrize("timer", TIMERS)
def test_the_kernel_answers(timer, links):
    """The requests reach the kernel: a link ip does not list is refused by it."""
    absent = max(links) + 1000
    taken = {l["name"] for l in links.values()}
    name = next(f"nfcabsent{i}" for i in range(100) if f"nfcabsent{i}" not in taken)
    with pytest.raises(OSError) as e:
        TIMERS[timer]("link_index", 3, absent)
    assert e.value.errno == errno.ENODEV
    with pytest.raises(OSError) as e:
        TIMERS[timer]("link_name", 3, 0, name)
    assert e.value.errno == errno.ENODEV


BAD = [
    # (args, kwargs, exception, message part)
    (("nosuchop", 1), {}, ValueError, "unknown floor op 'nosuchop'"),
    (("", 1), {}, ValueError, "unknown floor op"),
    (("links", 0), {}, ValueError, "n must be positive"),
    (("links", -5), {}, ValueError, "n must be positive"),
    (("links", 2**70), {}, OverflowError, None),
    ((b"links", 1), {}, TypeError, None),
    ((1, 1), {}, TypeError, None),
    (("links", "1"), {}, TypeError, None),
    (("links", 1.0), {}, TypeError, None),
    (("link_index", 1, "1"), {}, TypeError, None),
    (("link_index", 1, 2**40), {}, OverflowError, None),
    (("link_index", 1), {}, ValueError, "needs a link index"),
    (("link_index", 1, -1), {}, ValueError, "needs a link index"),
    (("link_addrs", 1, 0), {}, ValueError, "needs a link index"),
    (("link_groups", 1), {}, ValueError, "needs a link index"),
    (("link_name", 1), {}, ValueError, "needs a name"),
    (("link_name", 1, 0, b"lo"), {}, TypeError, "name must be a str"),
    (("link_name", 1, 0, ""), {}, ValueError, "non-empty"),
    (("link_name", 1, 0, "l\0o"), {}, ValueError, "without NUL"),
    (("link_name", 1, 0, "\udcff"), {}, UnicodeEncodeError, None),
    (("addrs", 1, 0, None, 5), {}, TypeError, "sequence"),
    (("addrs", 1, 0, None, ["1"]), {}, TypeError, "zones must be ints"),
    (("addrs", 1, 0, None, [True]), {}, TypeError, "zones must be ints"),
    (("addrs", 1, 0, None, [0]), {}, ValueError, "out of range"),
    (("addrs", 1, 0, None, [2**31]), {}, ValueError, "out of range"),
    (("addrs", 1, 0, None, [2**80]), {}, OverflowError, None),
    (("links",), {}, TypeError, None),
    ((), {}, TypeError, None),
    (("links", 1), {"bogus": 1}, TypeError, "bogus"),
    (("links", 1, 0, None, (), True), {}, TypeError, None),  # nscheck: keyword only
    (("link_counters", 1), {}, ValueError, "needs a link index"),
]


@pytest.mark.parametrize("timer", TIMERS)
@pytest.mark.parametrize("args,kwargs,exc,part", BAD)
def test_bad_arguments(timer, args, kwargs, exc, part):
    with pytest.raises(exc, match=part and re.escape(part)):
        TIMERS[timer](*args, **kwargs)


def test_keywords_and_signature(lo):
    import inspect

    for fn in TIMERS.values():
        assert list(inspect.signature(fn).parameters) == [
            "op",
            "n",
            "index",
            "name",
            "zones",
            "nscheck",
        ]
        assert fn(op="link_index", n=3, index=lo["index"]) > 0


def netlink_inodes():
    """Socket inodes of this process's NETLINK_ROUTE sockets, from /proc."""
    ours = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        m = re.fullmatch(r"socket:\[(\d+)\]", target)
        if m:
            ours.add(m.group(1))
    with open("/proc/self/net/netlink") as f:
        route = {line.split()[-1] for line in f.readlines()[1:] if line.split()[1] == "0"}
    return ours & route


def sockets_seen_during(fn):
    """The NETLINK_ROUTE sockets another thread sees open while fn runs
    (it can run only if fn releases the GIL), those open before left out."""
    before = netlink_inodes()
    seen = set()
    samples = 0
    running = threading.Event()
    done = threading.Event()

    def watch():
        nonlocal samples
        running.set()
        while not done.is_set():
            seen.update(netlink_inodes() - before)
            samples += 1

    t = threading.Thread(target=watch)
    t.start()
    running.wait()
    try:
        fn()
    finally:
        done.set()
        t.join()
    return seen, samples


def test_kept_asks_on_one_socket_fresh_on_many(lo):
    """kept() keeps one socket for every round, fresh() opens one per round;
    both let another thread run meanwhile."""
    seen, samples = sockets_seen_during(lambda: _floor.kept("link_index", 100_000, lo["index"]))
    assert samples > 5 and len(seen) == 1, (samples, seen)
    seen, samples = sockets_seen_during(lambda: _floor.fresh("link_index", 30_000, lo["index"]))
    assert samples > 5 and len(seen) > 5, (samples, seen)


@pytest.mark.soak
def test_no_leak_of_memory_or_descriptors(lo, links):
    """Every path, good and bad, many times: memory and descriptors held steady."""
    import tracemalloc

    absent = max(links) + 1000

    def every_path():
        for fn in TIMERS.values():
            fn("addrs", 2, 0, None, sorted(links))
            fn("link_index", 2, lo["index"])
            for args, exc in (
                (("addrs", 1, 0, None, [1, "x"]), TypeError),
                (("addrs", 1, 0, None, [1, 0]), ValueError),
                (("link_name", 1, 0, "l\0o"), ValueError),
                (("nosuchop", 1), ValueError),
                (("link_index", 2, absent), OSError),
            ):
                try:  # not pytest.raises: it keeps what it caught
                    fn(*args)
                except exc:
                    pass
                else:
                    raise AssertionError(f"{args} raised nothing")

    every_path()
    fds = len(os.listdir("/proc/self/fd"))
    if os.environ.get("NETIFC_ASAN"):
        # (tracemalloc's count grows under ASan with PYTHONMALLOC=malloc over
        # these calls, which make no Python object; LeakSanitizer judges there)
        for _ in range(2000):
            every_path()
        assert len(os.listdir("/proc/self/fd")) == fds
        return
    tracemalloc.start()
    try:
        for _ in range(200):
            every_path()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(2000):
            every_path()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 4096, grown
    assert len(os.listdir("/proc/self/fd")) == fds
