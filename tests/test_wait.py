"""netifc's waits (netifc.wait_*, async_wait_*, netifc wait) against ip in
namespaces: a link-local counts once it has left DAD (a socket can bind
it), an address added later is met as soon as it is added, a default route
when the kernel tells of it, a timeout says what was missing; and bad
arguments name themselves."""

import asyncio
import decimal
import json
import math
import os
import platform
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

import netifc
import netifc.__main__ as cli
import netifc.wait
from conftest import require_namespaces
from nslab import Netns

TIMEOUT = 20  # seconds a wait may take before the test fails (DAD is 1-2 s)
TENTATIVE, OPTIMISTIC, DADFAILED = 0x40, 0x04, 0x08


pytestmark = pytest.mark.usefixtures("netlink_backend")  # live tables are netlink's


@pytest.fixture
def ns():
    """A namespace with DAD on (one probe, as a new namespace has it) and a
    veth pair a0-a1, both down."""
    require_namespaces()
    n = Netns("wait")
    try:
        for conf in ("all", "default"):
            n.sysctl(f"net.ipv6.conf.{conf}.accept_dad", 1)
        n.ip("link", "add", "a0", "type", "veth", "peer", "name", "a1")
        yield n
    finally:
        n.delete()


@pytest.fixture
def netns(ns):
    with netifc.NetNS(ns.name) as n:
        yield n


def ip_addr(ns, dev, address):
    """ip -j's record of address on dev, or None."""
    for link in ns.ipj("addr", "show", "dev", dev):
        for a in link.get("addr_info", []):
            if a["local"] == address:
                return a
    return None


def can_bind(ns, address, index):
    """Whether a socket in the namespace can bind the IPv6 address (a
    tentative one cannot: EADDRNOTAVAIL)."""
    with ns.entered():
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
            try:
                s.bind((address, 0, 0, index))
            except OSError as e:
                return e.errno
    return 0


def in_thread(fn):
    """fn() started in a thread; the returned call gives its result (or raises)."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # handed back to the test
            out["error"] = e
        out["at"] = time.monotonic()

    t = threading.Thread(target=run, daemon=True)
    t.start()

    def result():
        t.join(TIMEOUT + 5)
        assert not t.is_alive(), "the wait did not return"
        if "error" in out:
            raise out["error"]
        return out["value"], out["at"]

    return result


def netifc_cmd(*args):
    return [sys.executable, "-m", "netifc", *args]


# ---- the link-up window: a link-local counts once it has left DAD ----------------------


def test_cli_wait_6_returns_once_the_link_local_left_dad(ns):
    """netifc wait -i a0 -6, started while a0 is down: it returns once a0's
    link-local is out of DAD, which a socket can then bind."""
    p = subprocess.Popen(
        netifc_cmd("wait", "-n", ns.name, "-i", "a0", "-6", "-j", "--timeout", str(TIMEOUT)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ns.ip("link", "set", "a1", "up")
        ns.ip("link", "set", "a0", "up")
        out, err = p.communicate(timeout=TIMEOUT + 10)
    finally:
        p.kill()
        p.wait()
    assert p.returncode == 0, err
    met = json.loads(out)
    (link,) = met["links"]
    (addr,) = link["addrs"]
    assert link["name"] == "a0" and addr["scope"] == "link" and addr["family"] == "inet6"
    assert "tentative" not in addr["flags"]
    truth = ip_addr(ns, "a0", addr["address"])
    assert truth is not None and not truth.get("tentative") and not truth.get("dadfailed")
    assert can_bind(ns, addr["address"], link["index"]) == 0


def test_the_tables_list_the_link_local_in_dad_and_the_wait_does_not_take_it(ns, netns):
    """Through the window: while ip shows the link-local tentative (a socket
    cannot bind it), the live tables may list it, but wait_addr() has not
    returned it; it returns it out of DAD."""
    ns.sysctl("net.ipv6.conf.a0.dad_transmits", 3)  # a window of 3 s, to look into
    wait = in_thread(lambda: netifc.wait_addr("a0", 6, timeout=TIMEOUT, netns=netns))
    ns.ip("link", "set", "a1", "up")
    ns.ip("link", "set", "a0", "up")
    index = netns.interface_by_name("a0").index
    seen_tentative = netifc.wait_until(
        lambda lv: next(
            (a for a in lv.addrs_of(index) if a.family == socket.AF_INET6 and a.scope == 253),
            None,
        ),
        what="a0's link-local listed",
        timeout=TIMEOUT,
        netns=netns,
    )
    truth = ip_addr(ns, "a0", seen_tentative.address)
    if truth is not None and truth.get("tentative"):
        assert int(seen_tentative.flags) & TENTATIVE
        assert can_bind(ns, seen_tentative.address, index) != 0  # tentative: not bindable
    got, _ = wait()
    assert got.address == seen_tentative.address
    assert not int(got.flags) & (TENTATIVE | DADFAILED)
    assert not ip_addr(ns, "a0", got.address).get("tentative")
    assert can_bind(ns, got.address, index) == 0


def test_optimistic_counts_only_when_asked(ns, netns):
    """An optimistic address is usable while its DAD runs (the kernel makes
    the link-local optimistic with optimistic_dad): wait_addr() takes it with
    optimistic=True, not without, and then says it is tentative."""
    ns.sysctl("net.ipv6.conf.a0.optimistic_dad", 1)
    ns.sysctl("net.ipv6.conf.a0.dad_transmits", 100)  # DAD for 100 s: the test's whole run
    ns.ip("link", "set", "a1", "up")
    ns.ip("link", "set", "a0", "up")
    got = netifc.wait_addr("a0", 6, optimistic=True, timeout=TIMEOUT, netns=netns)
    assert int(got.flags) & OPTIMISTIC and int(got.flags) & TENTATIVE
    truth = ip_addr(ns, "a0", got.address)
    assert truth.get("optimistic") and truth.get("tentative")
    assert can_bind(ns, got.address, got.index) == 0
    with pytest.raises(TimeoutError, match=f"{got.address} tentative"):
        netifc.wait_addr("a0", 6, timeout=0.2, netns=netns)


# ---- met as soon as it is there -----------------------------------------------------------


@pytest.mark.parametrize(
    "address,flags", [("192.0.2.9", ()), ("2001:db8:9::9", ("nodad",))], ids=["inet", "inet6"]
)
def test_an_address_added_later_is_met_when_added(ns, netns, address, flags):
    ns.ip("link", "set", "a0", "up")
    wait = in_thread(lambda: netifc.wait_addr("a0", address=address, timeout=TIMEOUT, netns=netns))
    prefix = 24 if "." in address else 64
    ns.ip("addr", "add", f"{address}/{prefix}", "dev", "a0", *flags)
    added = time.monotonic()
    got, at = wait()
    assert got.address == address and got.prefixlen == prefix
    assert ip_addr(ns, "a0", address) is not None
    # Loose: a notification's way is milliseconds; the bench measures it (docs/wait.rst).
    assert at - added < 2, f"met {at - added:.3f} s after ip addr add returned"


def test_a_default_route_is_met_when_the_kernel_tells_of_it(ns, netns):
    ns.ip("link", "set", "a1", "up")
    ns.ip("link", "set", "a0", "up")
    ns.ip("addr", "add", "192.0.2.1/24", "dev", "a0")
    with pytest.raises(TimeoutError, match="no IPv4 default route"):
        netifc.wait_default_route(4, timeout=0.1, netns=netns)
    wait = in_thread(lambda: netifc.wait_default_route(4, timeout=TIMEOUT, netns=netns))
    ns.ip("route", "add", "default", "via", "192.0.2.254", "dev", "a0", "metric", "7")
    added = time.monotonic()
    got, at = wait()
    (truth,) = ns.ipj("-4", "route", "show", "default")
    assert (got.gateway, got.ifname, got.metric) == (truth["gateway"], truth["dev"], 7)
    assert got.route.family == socket.AF_INET
    assert at - added < 2, f"met {at - added:.3f} s after ip route add returned"


def test_wait_link_states(ns, netns):
    with pytest.raises(TimeoutError, match="no link b0"):
        netifc.wait_link("b0", timeout=0.1, netns=netns)
    with pytest.raises(TimeoutError, match="a0 is down"):
        netifc.wait_link("a0", up=True, timeout=0.1, netns=netns)
    wait = in_thread(
        lambda: netifc.wait_link("a0", carrier=True, operstate="up", timeout=TIMEOUT, netns=netns)
    )
    ns.ip("link", "set", "a0", "up")
    ns.ip("link", "set", "a1", "up")
    got, _ = wait()
    (truth,) = ns.ipj("link", "show", "dev", "a0")
    assert got.name == "a0" and got.index == truth["ifindex"]
    assert truth["operstate"] == "UP" and "LOWER_UP" in truth["flags"]
    assert netifc.wait_link(got.index, up=True, timeout=0, netns=netns) == got


def test_wait_until_a_predicate(ns, netns):
    index = netns.interface_by_name("a0").index
    wait = in_thread(
        lambda: netifc.wait_until(
            lambda lv: lv.by_index(index) if lv.by_index(index).mtu == 1400 else None,
            what="a0's MTU 1400",
            timeout=TIMEOUT,
            netns=netns,
        )
    )
    ns.ip("link", "set", "a0", "mtu", "1400")
    got, _ = wait()
    assert got.mtu == 1400 == ns.ipj("link", "show", "dev", "a0")[0]["mtu"]
    with pytest.raises(TimeoutError, match="a0's MTU 1500"):
        netifc.wait_until(
            lambda lv: lv.by_index(index).mtu == 1500,
            what="a0's MTU 1500",
            timeout=0.1,
            netns=netns,
        )


# ---- asyncio ------------------------------------------------------------------------------


def test_async_waits(ns, netns):
    async def main():
        loop = asyncio.get_running_loop()
        link = asyncio.ensure_future(
            netifc.async_wait_link("a0", up=True, timeout=TIMEOUT, netns=netns)
        )
        addr = asyncio.ensure_future(netifc.async_wait_addr("a0", 6, timeout=TIMEOUT, netns=netns))
        route = asyncio.ensure_future(
            netifc.async_wait_default_route(6, timeout=TIMEOUT, netns=netns)
        )
        await loop.run_in_executor(None, ns.ip, "link", "set", "a1", "up")
        await loop.run_in_executor(None, ns.ip, "link", "set", "a0", "up")
        up = await link
        ll = await addr
        await loop.run_in_executor(
            None, ns.ip, "route", "add", "default", "via", "fe80::1", "dev", "a0"
        )
        gw = await route
        with pytest.raises(TimeoutError, match="no IPv4 default route"):
            await netifc.async_wait_default_route(4, timeout=0.1, netns=netns)
        return up, ll, gw

    (up, ll, gw), gap, _ = _loop_gaps(main)  # the loop runs while the waits wait
    assert gap < 0.5, f"the loop stalled {gap:.3f} s"
    assert up.name == "a0" and up.raw_flags & 1
    assert ll.scope == 253 and not int(ll.flags) & TENTATIVE
    assert not ip_addr(ns, "a0", ll.address).get("tentative")
    assert can_bind(ns, ll.address, up.index) == 0
    (truth,) = ns.ipj("-6", "route", "show", "default")
    assert (gw.gateway, gw.ifname) == (f"{truth['gateway']}%a0", truth["dev"])


def test_an_async_wait_cancelled_closes_its_sockets(netns):
    before = len(os.listdir("/proc/self/fd"))

    async def main():
        task = asyncio.ensure_future(netifc.async_wait_link("b0", netns=netns))
        await asyncio.sleep(0)  # (a yield: the task runs to its first wait)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert len(os.listdir("/proc/self/fd")) == before


# ---- the command -------------------------------------------------------------------------


def test_cli_timeout_exits_non_zero_after_about_that_long(ns):
    t0 = time.monotonic()
    r = subprocess.run(
        netifc_cmd("wait", "-n", ns.name, "-i", "a0", "-4", "--timeout", "1"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    took = time.monotonic() - t0
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.splitlines() == ["netifc wait: timed out after 1 s: a0 is down"]
    assert 1 <= took < 1 + 5, took  # (5 s: the interpreter's start on a loaded host)


def test_cli_any_route_and_operational_state(ns):
    ns.ip("link", "set", "a1", "up")
    ns.ip("link", "set", "a0", "up")
    ns.ip("addr", "add", "192.0.2.1/24", "dev", "a0")
    ns.ip("route", "add", "default", "via", "192.0.2.254")
    r = subprocess.run(
        netifc_cmd(
            *("wait", "-n", ns.name, "-i", "b0", "-i", "a0", "--any", "-4", "-o", "up"),
            *("--route", "default", "-j", "--timeout", str(TIMEOUT)),
        ),
        capture_output=True,
        text=True,
        timeout=TIMEOUT + 10,
    )
    assert r.returncode == 0, r.stderr
    met = json.loads(r.stdout)
    assert [link["name"] for link in met["links"]] == ["a0"]
    assert [a["address"] for a in met["links"][0]["addrs"]] == ["192.0.2.1"]
    (truth,) = ns.ipj("link", "show", "dev", "a0")
    assert met["gateways"] == [
        {
            "family": "inet",
            "gateway": "192.0.2.254",
            "ifname": "a0",
            "index": truth["ifindex"],
            "metric": 0,
        }
    ]
    r = subprocess.run(
        netifc_cmd("wait", "-n", ns.name, "-i", "b0", "-i", "a0", "--timeout", "0.2"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert r.returncode == 1
    assert r.stderr.splitlines() == ["netifc wait: timed out after 0.2 s: no link b0"]


def test_cli_without_interface_waits_for_any_link_but_loopback(ns):
    r = subprocess.run(
        netifc_cmd("wait", "-n", ns.name, "--timeout", "0.2"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    names = [link["ifname"] for link in ns.ipj("link", "show") if link["ifname"] != "lo"]
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "netifc wait: timed out after 0.2 s: no link online: "
        + ", ".join(f"{n} is down" for n in names)
    ]


def test_cli_ctrl_c_ends_it_with_130(ns, monkeypatch, capsys):
    """SIGINT while the command blocks: exit status 130, nothing printed."""
    block = netifc.wait._block

    def interrupted(fds, left):
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        return block(fds, left)

    monkeypatch.setattr(netifc.wait, "_block", interrupted)
    assert cli.main(["wait", "-n", ns.name, "-i", "b0", "--timeout", "0"]) == 130
    out, err = capsys.readouterr()
    assert (out, err) == ("", "")


@pytest.mark.parametrize(
    "args,words",
    [
        (["--timeout=-1"], "--timeout: must be 0 or more"),
        (["--timeout", "-1"], "--timeout: must be 0 or more seconds, not -1"),
        (["-6", "--timeout", "-0.5", "-4"], "--timeout: must be 0 or more seconds, not -0.5"),
        (["--timeout", "nan"], "--timeout: must be 0 or more"),
        (["-o", "bogus"], "invalid choice: 'bogus'"),
        (["-i", ""], "'' is no interface name (1 to 15 bytes, no NUL)"),
        (["-i", "a" * 16], f"{'a' * 16!r} is no interface name"),
        (["-i", "a\0b"], "'a\\x00b' is no interface name"),
        (["--any"], "--any: with -i"),
        (["--route", "all"], "invalid choice: 'all'"),
    ],
)
def test_cli_usage_errors(args, words, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["wait", *args])
    assert e.value.code == 2
    assert words in capsys.readouterr().err


# ---- bad arguments -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,kind,words",
    [
        (lambda: netifc.wait_link("lo", timeout=-1), ValueError, "timeout"),
        (lambda: netifc.wait_link("lo", timeout=math.nan), ValueError, "timeout"),
        (lambda: netifc.wait_link("lo", timeout="1"), TypeError, "timeout"),
        (lambda: netifc.wait_link("lo", timeout=True), TypeError, "timeout"),
        (lambda: netifc.wait_link("lo", operstate="running"), ValueError, "operstate"),
        (lambda: netifc.wait_link("lo", operstate=1), TypeError, "operstate"),
        (lambda: netifc.wait_link("lo", up=1), TypeError, "up"),
        (lambda: netifc.wait_link(1.5), TypeError, "link"),
        (lambda: netifc.wait_link(""), ValueError, "link"),
        (lambda: netifc.wait_link("x" * 16), ValueError, "link"),
        (lambda: netifc.wait_link(0), ValueError, "link"),
        (lambda: netifc.wait_link("lo", netns="blue"), TypeError, "netns"),
        (lambda: netifc.wait_addr("lo", 5), ValueError, "family"),
        (lambda: netifc.wait_addr("lo", socket.AF_PACKET), ValueError, "family"),
        (lambda: netifc.wait_addr("lo", "6"), TypeError, "family"),
        (lambda: netifc.wait_addr("lo", 4, address="::1"), ValueError, "family IPv4"),
        (lambda: netifc.wait_addr(address="10.0.0.0/8"), ValueError, "address"),
        (lambda: netifc.wait_addr(address=b"\x7f\0\0\1"), TypeError, "address"),
        (lambda: netifc.wait_addr(optimistic=None), TypeError, "optimistic"),
        (lambda: netifc.wait_default_route(0), ValueError, "family"),
        (lambda: netifc.wait_until(42), TypeError, "predicate"),
        (lambda: asyncio.run(netifc.async_wait_addr(timeout=-0.5)), ValueError, "timeout"),
        (
            lambda: asyncio.run(netifc.async_wait_link("lo", operstate="UPP")),
            ValueError,
            "operstate",
        ),
    ],
)
def test_bad_arguments_name_themselves(call, kind, words):
    with pytest.raises(kind, match=words):
        call()


# ---- a wait sleeps in the kernel, not on a clock ---------------------------------------------
#
# Each test below fails for a wait that polls: one that sleeps between
# checks (time.sleep, asyncio.sleep), one that wakes every so often (a poll
# in short slices), one whose asyncio form blocks the loop, one whose zero
# timeout checks twice. The truth is the kernel's: /proc's record of the
# waiting thread, strace's of the process, ip's change and its return.

IDLE = 3.0  # seconds an idle wait lasts in the tests that watch it sleep
LATE = 0.25  # seconds after ip's return a wait may take, beyond ip's own time


def thread_state(tid):
    """(the system call thread tid is in, with its arguments, as
    /proc/self/task/<tid>/syscall lists them; its voluntary context
    switches): a thread asleep in one poll() keeps both."""
    with open(f"/proc/self/task/{tid}/syscall") as f:
        call = f.read().split()
    with open(f"/proc/self/task/{tid}/status") as f:
        switches = next(int(line.split()[1]) for line in f if line.startswith("voluntary_ctxt"))
    return call, switches


IDLE_WAITS = {
    "link": lambda netns, t: netifc.wait_link("b0", timeout=t, netns=netns),
    "addr": lambda netns, t: netifc.wait_addr("a0", 6, timeout=t, netns=netns),
    "route": lambda netns, t: netifc.wait_default_route(timeout=t, netns=netns),
    "until": lambda netns, t: netifc.wait_until(
        lambda lv: None, routes=True, timeout=t, netns=netns
    ),
}


@pytest.mark.parametrize("which", sorted(IDLE_WAITS))
def test_an_idle_wait_sleeps_in_one_poll_to_its_deadline(ns, netns, which):
    """While nothing changes, the waiting thread sleeps in one poll() whose
    timeout is the wait's deadline, and never wakes: /proc shows it in poll
    and its voluntary context switches unchanged from when it fell asleep
    to shortly before its deadline (a sleep between checks, or a poll in
    slices, wakes every so often)."""
    from nslab import blocked, recheck_until

    mine = {}

    def run():
        mine["tid"] = threading.get_native_id()
        mine["t0"] = time.monotonic()
        with pytest.raises(TimeoutError):
            IDLE_WAITS[which](netns, IDLE)
        return True

    wait = in_thread(run)
    recheck_until(
        lambda: "t0" in mine and (blocked(mine["tid"]) or time.monotonic() - mine["t0"] > IDLE),
        "the wait asleep in poll",
        TIMEOUT,
    )
    try:
        first = thread_state(mine["tid"])
    except OSError:  # ended: it never slept in a poll
        first = None
    seen = [first]
    while first is not None and time.monotonic() < mine["t0"] + IDLE - 0.5:
        time.sleep(0.05)  # (sampling the thread's state; nothing is awaited)
        seen.append(thread_state(mine["tid"]))
    wait()
    assert first is not None, "the wait never slept in a poll"
    assert all(s == first for s in seen), f"the waiting thread woke: {seen[0]} then {seen[-1]}"
    call, _ = first
    if platform.machine() == "x86_64" and call[0] == "7":  # poll(fds, nfds, timeout ms)
        ms = int(call[3], 16)
        assert 1000 * (IDLE - 1) < ms <= 1000 * IDLE, f"poll() for {ms} ms, not to the deadline"
    assert len(seen) >= 5, f"only {len(seen)} samples: too short a look to tell"


def _mtu_rounds(ns, netns, wait_for):
    """Five MTUs in turn: for each, a wait for it (wait_for(index, mtu,
    checked), in the form the test asks) whose predicate's first call
    sets checked; once it is set, ip sets the MTU. The latencies (from ip's
    return to the wait's) and ip's own times, measured in the same run."""
    index = netns.interface_by_name("a0").index
    late, ip_took = [], []
    for mtu in (1400, 1401, 1402, 1403, 1404):
        checked = threading.Event()
        wait = in_thread(lambda mtu=mtu, checked=checked: wait_for(index, mtu, checked))
        assert checked.wait(TIMEOUT), "the wait did not check"
        t0 = time.monotonic()
        ns.ip("link", "set", "a0", "mtu", str(mtu))
        set_at = time.monotonic()
        got, at = wait()
        assert got.mtu == mtu == ns.ipj("link", "show", "dev", "a0")[0]["mtu"]
        late.append(at - set_at)
        ip_took.append(set_at - t0)
    return sorted(late), sorted(ip_took)


def _mtu_is(index, mtu, checked):
    def predicate(tables):
        checked.set()
        i = tables.by_index(index)
        return i if i.mtu == mtu else None

    return predicate


@pytest.mark.parametrize("form", ["blocking", "asyncio"])
def test_a_wait_returns_as_soon_as_the_kernel_tells(ns, netns, form):
    """Once a wait has checked, ip makes the change: the wait returns within
    LATE of ip's return (a notification takes milliseconds), beyond twice
    ip's own time in the same run (a loaded host slows both); the median of
    five. A wait that slept 0.5 s between checks would be ~0.5 s late."""

    def blocking(index, mtu, checked):
        return netifc.wait_until(_mtu_is(index, mtu, checked), timeout=TIMEOUT, netns=netns)

    def in_a_loop(index, mtu, checked):
        return asyncio.run(
            netifc.async_wait_until(_mtu_is(index, mtu, checked), timeout=TIMEOUT, netns=netns)
        )

    late, ip_took = _mtu_rounds(ns, netns, blocking if form == "blocking" else in_a_loop)
    bound = LATE + 2 * ip_took[2]
    assert late[2] < bound, f"met {late} s after ip returned (ip took {ip_took} s)"


def _loop_gaps(coro_fn, every=0.01):
    """Runs coro_fn() on a new loop with a callback every `every` seconds
    beside it: (its result, the longest gap between two of the callback's
    runs, how many ran)."""
    ticks = []

    async def main():
        loop = asyncio.get_running_loop()

        def tick():
            ticks.append(loop.time())
            handle[0] = loop.call_later(every, tick)

        handle = [loop.call_soon(tick)]
        try:
            return await coro_fn()
        finally:
            handle[0].cancel()
            ticks.append(loop.time())

    got = asyncio.run(main())
    return got, max(b - a for a, b in zip(ticks, ticks[1:])), len(ticks)


def test_an_async_wait_keeps_the_loop_running(ns, netns):
    """Beside an async wait of 2 s that times out, and one that ip's change
    ends, a callback every 10 ms keeps running: no gap past 0.5 s (a wait
    that blocked the loop would leave one as long as the wait)."""

    async def idle():
        with pytest.raises(TimeoutError, match="no link b0"):
            await netifc.async_wait_link("b0", timeout=2, netns=netns)

    _, gap, ran = _loop_gaps(idle)
    assert gap < 0.5 and ran > 20, f"the loop stalled {gap:.3f} s ({ran} ticks)"

    async def woken():
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(
            netifc.async_wait_link("a0", up=True, timeout=TIMEOUT, netns=netns)
        )
        await asyncio.sleep(0.2)  # (the loop runs on meanwhile: that is what is measured)
        await loop.run_in_executor(None, ns.ip, "link", "set", "a0", "up")
        return await task

    got, gap, _ = _loop_gaps(woken)
    assert got.name == "a0" and "UP" in ns.ipj("link", "show", "dev", "a0")[0]["flags"]
    assert gap < 0.5, f"the loop stalled {gap:.3f} s"


ZERO_SCRIPT = r"""
import os, sys
import netifc
with netifc.NetNS(sys.argv[1]) as netns:
    calls = []
    def once(lv):
        calls.append(1)
        lv.snapshot()  # (a read of the tables, as the control's)
        return None
    waits = {
        "control": lambda: netifc.live(netns).snapshot(),
        "link": lambda: netifc.wait_link("b0", timeout=0, netns=netns),
        "until": lambda: netifc.wait_until(once, timeout=0, netns=netns),
    }
    for name in sys.argv[2:]:
        os.access(f"/netifc-mark-begin-{name}", os.F_OK)
        try:
            waits[name]()
        except TimeoutError as e:
            print(name, e)
        os.access(f"/netifc-mark-end-{name}", os.F_OK)
    print("predicate", len(calls))
"""

TRACED = "poll,ppoll,select,pselect6,epoll_wait,epoll_pwait,nanosleep,clock_nanosleep"
TRACED += ",sendto,sendmsg,recvfrom,recvmsg,access,faccessat,faccessat2"


WAITING = {"ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "nanosleep"}
WAITING.add("clock_nanosleep")


def traced_between(lines, name):
    """The traced calls (name, timeout argument of a poll) between the
    script's markers for `name`."""
    out, inside = [], False
    for line in lines:
        if f"netifc-mark-begin-{name}" in line:
            inside = True
        elif f"netifc-mark-end-{name}" in line:
            inside = False
        elif inside and "(" in line and "resumed>" not in line:
            call = line.split("(", 1)[0].split()[-1]
            if call in ("access", "faccessat", "faccessat2"):
                continue
            arg = line.rsplit(",", 1)[-1].split(")")[0].strip() if call == "poll" else None
            out.append((call, arg))
    return out


def test_a_zero_timeout_checks_once(ns, tmp_path):
    """timeout=0 reads the tables once and does not wait: under strace, a
    wait_link(timeout=0) makes the very calls of one read of a live table
    (the control, in the same process), no sleep and no poll with a
    timeout; wait_until(timeout=0) calls its predicate once."""
    from nslab import require_strace

    require_strace("the zero timeout's test")
    log = tmp_path / "strace"
    r = subprocess.run(
        ["strace", "-f", "-qq", "-o", str(log), "-e", f"trace={TRACED}", sys.executable, "-c"]
        + [ZERO_SCRIPT, ns.name, "control", "link", "until"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "link wait_link: timed out after 0 s: no link b0",
        "until wait_until: timed out after 0 s: the condition",
        "predicate 1",
    ]
    lines = log.read_text().splitlines()
    control = traced_between(lines, "control")
    assert control and not [c for c, a in control if c in WAITING or c == "poll" and a != "0"]
    for name in ("link", "until"):
        calls = traced_between(lines, name)
        waited = [(c, a) for c, a in calls if c in WAITING or c == "poll" and a != "0"]
        assert waited == [], f"{name}: waited: {calls}"
        assert sorted(calls) == sorted(control), f"{name}: {calls}, where one read makes {control}"


def test_zero_timeout_met_at_once(netns):
    lo = netifc.wait_link("lo", up=True, timeout=0, netns=netns)
    assert lo.name == "lo"
    assert netifc.wait_addr("lo", 4, timeout=0, netns=netns).address == "127.0.0.1"
    with pytest.raises(TimeoutError, match="timed out after 0 s: no usable IPv6 address on any"):
        netifc.wait_addr(family=6, timeout=0, netns=netns)


# ---- one timeout rule ----------------------------------------------------------------------

BAD_TIMEOUTS = [
    ("1", TypeError),
    (b"1", TypeError),
    (True, TypeError),
    (False, TypeError),
    (decimal.Decimal(1), TypeError),
    (1j, TypeError),
    (-1, ValueError),
    (-0.001, ValueError),
    (float("-inf"), ValueError),
    (-(10**400), ValueError),
    (math.nan, ValueError),
]


@pytest.mark.parametrize("bad,kind", BAD_TIMEOUTS, ids=lambda v: repr(v)[:12])
def test_every_wait_refuses_a_bad_timeout_by_one_rule(ns, netns, bad, kind):
    """The waits, their asyncio forms, Watcher.poll() and the ifaddr
    drop-in's AdapterChanges.poll() refuse a bad timeout alike: the same
    exception, the same words after the caller's name, naming timeout; the
    command refuses the values it can be given (a negative one, NaN) as a
    usage error."""
    import netifc.compat.ifaddr as drop_in

    said = {}
    with netns.Watcher() as w, ns.entered(), drop_in.watch_adapters() as changes:
        callers = {
            "wait_link": lambda: netifc.wait_link("lo", timeout=bad, netns=netns),
            "wait_default_route": lambda: netifc.wait_default_route(timeout=bad, netns=netns),
            "async_wait_addr": lambda: asyncio.run(
                netifc.async_wait_addr(timeout=bad, netns=netns)
            ),
            "poll": lambda: w.poll(bad),
            "AdapterChanges.poll": lambda: changes.poll(bad),
        }
        for name, call in callers.items():
            with pytest.raises(kind, match="timeout") as e:
                call()
            said[name] = str(e.value).split(": ", 1)[1]
    assert len(set(said.values())) == 1, said
    if isinstance(bad, (int, float)) and not isinstance(bad, bool):
        with pytest.raises(SystemExit) as e:
            cli.main(["wait", f"--timeout={bad!r}"])
        assert e.value.code == 2


@pytest.mark.parametrize(
    "timeout",
    [None, math.inf, 1e308, 2**1100, 10**400],
    ids=["None", "inf", "1e308", "2**1100", "10**400"],
)
@pytest.mark.parametrize("form", ["blocking", "asyncio"])
def test_a_timeout_past_any_wait_is_no_end(ns, netns, form, timeout):
    """None, infinity, a float as large as floats go and ints past their
    range: a wait without end, which ip's new link ends (no OverflowError,
    at once or when the wait blocks)."""
    from nslab import blocked, recheck_until

    mine = {}

    def run():
        mine["tid"] = threading.get_native_id()
        wait = netifc.wait_link if form == "blocking" else netifc.async_wait_link
        got = wait("b0", timeout=timeout, netns=netns)
        return got if form == "blocking" else asyncio.run(got)

    wait = in_thread(run)
    recheck_until(lambda: "tid" in mine and blocked(mine["tid"]), "the wait asleep", TIMEOUT)
    ns.ip("link", "add", "b0", "type", "veth", "peer", "name", "b1")
    got, _ = wait()
    (truth,) = ns.ipj("link", "show", "dev", "b0")
    assert (got.name, got.index) == ("b0", truth["ifindex"])


@pytest.mark.parametrize("timeout", ["0", "inf"])
def test_cli_timeout_0_or_inf_is_no_limit(ns, timeout):
    """netifc wait --timeout 0 (systemd-networkd-wait-online's meaning) and
    --timeout inf wait without limit -- where Python's timeout=0 checks
    once: asleep in its poll, the command ends when ip adds the link."""
    from nslab import until_watching

    p = subprocess.Popen(
        netifc_cmd("wait", "-n", ns.name, "-i", "b0", "-o", "down", "--timeout", timeout),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        until_watching(p, ns=ns)
        ns.ip("link", "add", "b0", "type", "veth", "peer", "name", "b1")
        out, err = p.communicate(timeout=TIMEOUT)
    finally:
        p.kill()
        p.wait()
    assert (p.returncode, out, err) == (0, "", "")
    assert ns.ipj("link", "show", "dev", "b0")[0]["operstate"] == "DOWN"
