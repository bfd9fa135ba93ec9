"""Test hosts in network namespaces, and iproute2 as the source of truth."""

import contextlib
import ctypes
import ipaddress
import json
import os
import platform
import select
import shutil
import subprocess
import threading
import time
import traceback
import uuid
import warnings

import pytest

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)

LINK_TYPES = {"ether": 1, "loopback": 772, "none": 65534}
SCOPES = {"global": 0, "site": 200, "link": 253, "host": 254, "nowhere": 255}
FOREVER = 4294967295
REPORTS = []  # lines the tests want shown at the end of the run (conftest.py)
# iproute2 is not ours: it runs without the sanitizer runtime that CI's ASan
# step preloads into every process (its route printing trips ASan's own
# strncpy check); Python children keep it, for the extension they import.
TOOL_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def why_no_namespaces():
    """None when this process can build network namespaces, else why not."""
    if os.geteuid() != 0:
        return "network namespace tests need root"
    if not shutil.which("ip"):
        return "network namespace tests need iproute2's ip"
    return None


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


# The namespaces' names begin with this (NETIFC_TEST_NETNS_PREFIX, for runs
# that share a host and tell their namespaces apart by name).
NETNS_PREFIX = os.environ.get("NETIFC_TEST_NETNS_PREFIX", "nfc-")


class Netns:
    """A namespace of the tests' own, with a unique name; delete() removes it."""

    def __init__(self, tag):
        self.name = f"{NETNS_PREFIX}{tag}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        subprocess.run(["ip", "netns", "add", self.name], check=True)
        self.ip("link", "set", "lo", "up")

    def ip(self, *args, check=True):
        return subprocess.run(
            ["ip", "-n", self.name, *args],
            check=check,
            env=TOOL_ENV,
            capture_output=True,
            text=True,
            errors="surrogateescape",
        )

    def batch(self, lines):
        subprocess.run(
            ["ip", "-n", self.name, "-batch", "-"],
            input="\n".join(lines) + "\n",
            check=True,
            text=True,
            errors="surrogateescape",
            env=TOOL_ENV,
        )

    def ipj(self, *args):
        out = self.ip("-j", *args).stdout
        return json.loads(out) if out.strip() else []

    def sysctl(self, key, value):
        subprocess.run(
            ["ip", "netns", "exec", self.name, "sysctl", "-qw", f"{key}={value}"], check=True
        )

    def run(self, argv, **kw):
        return subprocess.run(["ip", "netns", "exec", self.name, *argv], **kw)

    @contextlib.contextmanager
    def entered(self):
        """This thread in the namespace for the block; back where it was after."""
        home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(f"/run/netns/{self.name}", os.O_RDONLY)
        try:
            _setns(target)
            try:
                yield self
            finally:
                _setns(home)
        finally:
            os.close(target)
            os.close(home)

    def delete(self):
        subprocess.run(["ip", "netns", "del", self.name], check=False)


# ---- iproute2's view, in netifc's terms -------------------------------------


def ip_links(ns):
    """{index: dict} from `ip -j -d link show`."""
    out = {}
    for l in ns.ipj("-d", "link", "show"):
        flags = set(l["flags"])
        hw = l.get("address", "")
        if hw and not any(int(x, 16) for x in hw.split(":")):
            hw = ""
        out[l["ifindex"]] = dict(
            index=l["ifindex"],
            name=l["ifname"],
            mtu=l["mtu"],
            hw=hw,
            operstate=l["operstate"].lower(),
            flags=flags,
            link_type=LINK_TYPES.get(l.get("link_type")),
            running="UP" in flags and l["operstate"] in ("UP", "UNKNOWN"),
        )
    return out


def needs_zone(family, address):
    if family != "inet6":
        return False
    ip = ipaddress.IPv6Address(address)
    return ip.is_link_local or (ip.is_multicast and (ip.packed[1] & 0x0F) in (1, 2))


def ip_addrs(ns):
    """{index: [dict, ...]} from `ip -j addr show`, per interface in kernel order."""
    out = {}
    for l in ns.ipj("addr", "show"):
        rows = []
        for a in l.get("addr_info", []):
            peer = a.get("address") if a.get("address") not in (None, a["local"]) else None
            rows.append(
                dict(
                    family=a["family"],
                    address=a["local"],
                    prefixlen=a["prefixlen"],
                    peer=peer,
                    broadcast=a.get("broadcast"),
                    index=l["ifindex"],
                    zone=l["ifname"] if needs_zone(a["family"], a["local"]) else "",
                    scope=SCOPES.get(a["scope"], a["scope"]),
                    secondary=bool(a.get("secondary")),
                    tentative=bool(a.get("tentative")),
                    deprecated=bool(a.get("deprecated")),
                    nodad=bool(a.get("nodad")),
                    dynamic=bool(a.get("dynamic")),
                    valid=a.get("valid_life_time"),
                    preferred=a.get("preferred_life_time"),
                )
            )
        out[l["ifindex"]] = rows
    return out


def ip_groups(ns):
    """{index: sorted [(family, address, zone)]} from `ip -j maddr show`."""
    out = {}
    for l in ns.ipj("maddr", "show"):
        out[l["ifindex"]] = sorted(
            (
                m["family"],
                m["address"],
                l["ifname"] if needs_zone(m["family"], m["address"]) else "",
            )
            for m in l.get("maddr", [])
            if "family" in m
        )
    return out


class Host(Netns):
    """The namespace the tests run in, seen through the same methods."""

    def __init__(self):
        self.name = None

    def ip(self, *args, check=True):
        return subprocess.run(
            ["ip", *args],
            check=check,
            capture_output=True,
            text=True,
            errors="surrogateescape",
            env=TOOL_ENV,
        )

    def run(self, argv, **kw):
        return subprocess.run(argv, **kw)

    @contextlib.contextmanager
    def entered(self):
        yield self

    def delete(self):
        pass


LONG_NAME = "abcdefghijklmno"  # 15 bytes, the most a name may have
ODD_NAME = "v\u00e90"  # not ASCII: UTF-8 bytes to the kernel
BYTES_NAME = "v\udcff1"  # not UTF-8: the byte 0xff, as surrogateescape reads it


def solicited_node(address):
    """The solicited-node group (ff02::1:ffXX:XXXX) of an IPv6 address."""
    low = ipaddress.IPv6Address(address).packed[13:]
    return str(ipaddress.IPv6Address(bytes.fromhex("ff02" + "00" * 9 + "01ff") + low))


def _ipv6_on(ns, link):
    """Whether IPv6 runs on the link: its MTU at least 1280 and IPv6 not
    disabled there (its sysctl, read in the namespace)."""
    if link["mtu"] < 1280:
        return False
    try:
        with ns.entered():
            with open(f"/proc/sys/net/ipv6/conf/{link['ifname']}/disable_ipv6") as f:
                return f.read().strip() == "0"
    except FileNotFoundError:  # gone meanwhile, or IPv6 off in the whole kernel
        return False


def pending_work(ns):
    """What the kernel still has to do by itself, as ip -j shows it (nothing
    the tests wait for is left out, nothing is guessed from time): [] once
    it is done, else one line per thing pending.  For each link that is up
    (loopback aside):

    - its operstate agrees with its carrier (a carrier change shows in a
      dump at once, as LOWER_UP; its operstate follows when the kernel's
      link watch runs, up to a second later, and so do the link-local and
      the notifications that come of it);
    - where IPv6 runs on it (MTU 1280 or more, not disabled) and its
      address generation mode is not none, with carrier: it has an IPv6
      link-local address;
    - each of its IPv6 addresses (those whose DAD failed aside) is out of
      DAD -- not tentative -- and its solicited-node group is joined: the
      kernel joins it when the address's DAD work starts, which is also
      when it tells of an address added with nodad or optimistic (listed
      at once, told only then), and when DAD ends it tells of the others.

    A bridge waiting for its ports' forwarding (no carrier yet) is not seen
    here: a test that waits for it says so."""
    return [f"{name}: {what}" for name, what in _pending(ns)]


def _pending(ns):
    """pending_work(ns) as (link name, what) pairs."""
    links = ns.ipj("-d", "link", "show")
    addrs = {l["ifindex"]: l.get("addr_info", []) for l in ns.ipj("addr", "show")}
    groups = {
        l["ifindex"]: {m["address"] for m in l.get("maddr", []) if m.get("family") == "inet6"}
        for l in ns.ipj("maddr", "show")
    }
    out = []
    for l in links:
        flags, name = set(l["flags"]), l["ifname"]
        if "UP" not in flags or "LOOPBACK" in flags:
            continue
        carrier, oper = "LOWER_UP" in flags, l["operstate"]
        if carrier != (oper in ("UP", "UNKNOWN")):
            out.append((name, f"carrier {'on' if carrier else 'off'}, operstate {oper}"))
            continue
        if not carrier or not _ipv6_on(ns, l):
            continue
        six = [a for a in addrs.get(l["ifindex"], []) if a["family"] == "inet6"]
        if l.get("inet6_addr_gen_mode") != "none" and not any(a["scope"] == "link" for a in six):
            out.append((name, "no IPv6 link-local address yet"))
        for a in six:
            if a.get("dadfailed"):
                continue
            if a.get("tentative"):
                out.append((name, f"{a['local']} tentative (in DAD)"))
            elif solicited_node(a["local"]) not in groups.get(l["ifindex"], ()):
                out.append((name, f"{a['local']}'s solicited-node group not joined yet"))
    return out


def until_kernel_done(ns, check, what, timeout):
    """Until check() -- ip -j's view, a list of what is still to come -- is
    empty: it runs at once, then again each time the kernel tells the
    namespace of a change of its links or addresses (netifc.wait_until on
    the namespace's live tables; no sleep, no poll of ip). Fails at the
    deadline with what check() said last. This thread is in the namespace
    for the wait, so the tables are netlink's whatever the backend."""
    import netifc

    left = {}

    def done(_tables):
        left["now"] = check()
        return not left["now"]

    with ns.entered():
        try:
            netifc.wait_until(done, what=what, timeout=timeout)
        except TimeoutError:
            raise AssertionError(f"{what} after {timeout} s: {left.get('now')}") from None


def told_until(fd, read, check, what, timeout=10):
    """Until check(new) returns something true, which it returns: check is
    called with read() at once (what is there now), then again each time
    descriptor fd is readable (select(), blocking until then or the
    deadline: no sleep, no poll on a clock) -- a netlink socket, where the
    kernel's notifications are the sign. Fails at the deadline, saying what
    was missing: `what`, or what(), when a callable, says it then."""
    deadline = time.monotonic() + timeout
    new = read()
    while True:
        got = check(new)
        if got:
            return got
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"{what() if callable(what) else what}: not within {timeout} s")
        new = read() if select.select([fd], [], [], left)[0] else []


def watch_until(w, check, what, timeout=10):
    """told_until() on Watcher w: check(new) with the events w has now, then
    with each batch it tells (w.poll(0) once its socket is readable; a read
    is also when a Watcher on a kernel that tells of no groups compares
    them with a dump)."""
    return told_until(w.fileno(), lambda: w.poll(0), check, what, timeout)


def recheck_until(check, what, timeout=10, every=0.01):
    """Until check() returns something true, which it returns, read again
    every `every` seconds; fails at the deadline, saying what was missing.

    The one wait of the suite on a clock, for what nothing can be waited on,
    as no one is told when it comes:

    - a thread asleep in a system call (poll, select): the kernel tells no
      one when a thread enters one; /proc/self/task/TID/syscall shows it to
      whoever reads it then;
    - a process's netlink socket subscribed to its groups (``ip monitor``,
      ``netifc --watch`` before it prints anything): binding a socket and
      joining groups is announced to no one; /proc/PID/net/netlink shows it
      when read;
    - an address's lifetimes counting down: the kernel works them out at
      each dump from the time, and tells nothing as they fall (only when
      one ends).

    Everything else the suite waits for is told, and waited on where it is
    told: the network's state on netifc's waits (until_kernel_done) or a
    Watcher (watch_until), a thread's progress on an Event or a Condition,
    a process on its output (printed_until) or its exit."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"{what() if callable(what) else what}: not within {timeout} s")
        time.sleep(min(every, left))


RTMGRP_LINK, RTMGRP_IPV4_IFADDR = 0x1, 0x10


def subscribed(pid, groups=RTMGRP_LINK, ns=None):
    """True once process pid holds a netlink socket subscribed to one of
    groups: its row in /proc/net/netlink shows the groups -- that of the
    process's own network namespace, or of ns (a Netns) when given, for a
    socket the process made there."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(int(target[8:-1]))
        where = contextlib.nullcontext() if ns is None else ns.entered()
        with (
            where,
            open("/proc/thread-self/net/netlink" if ns else f"/proc/{pid}/net/netlink") as f,
        ):
            head = f.readline().split()
            at, inode = head.index("Groups"), head.index("Inode")
            return any(
                int(cols[inode]) in inodes and int(cols[at], 16) & groups
                for cols in (line.split() for line in f)
            )
    except OSError:
        return False


# The system calls a thread sleeps in while it waits for a descriptor: poll,
# ppoll, epoll_wait, epoll_pwait (and on aarch64, ppoll and epoll_pwait).
WAITING_CALLS = {"x86_64": {7, 271, 232, 281}, "aarch64": {73, 22}}


def blocked(tid, pid="self"):
    """Whether thread tid (of process pid) is asleep in a poll (or an event
    loop's wait), as /proc tells."""
    calls = WAITING_CALLS.get(platform.machine())
    try:
        if calls is not None:
            with open(f"/proc/{pid}/task/{tid}/syscall") as f:
                return int(f.read().split()[0]) in calls
        with open(f"/proc/{pid}/task/{tid}/stat") as f:  # elsewhere: asleep at least
            return f.read().rsplit(")", 1)[1].split()[0] == "S"
    except (OSError, ValueError, IndexError):  # "running", or the thread gone
        return False


def until_watching(p, groups=RTMGRP_LINK, timeout=10, ns=None):
    """Until ``netifc --watch`` (process p, a Popen) is subscribed to one of
    groups and its main thread asleep in its Watcher's poll: its tables are
    read, so that every change from then on is printed (one made while a
    Watcher still reads its tables is in them, and is not an event).  By
    recheck_until: no one is told of either."""

    def ready():
        if p.poll() is not None:
            out = p.communicate() if p.stdout or p.stderr else ()
            pytest.fail(f"{p.args} ended (status {p.returncode}) before it watched: {out}")
        return subscribed(p.pid, groups, ns) and blocked(p.pid, p.pid)

    try:
        recheck_until(ready, f"{p.args} subscribed to groups {groups:#x}, asleep in poll", timeout)
    except BaseException:
        p.kill()
        raise


def until_subscribed(p, groups=RTMGRP_LINK, timeout=10, ns=None):
    """Until process p (a Popen) is subscribed to one of groups (in ns, when
    given: see subscribed()), by recheck_until: no one is told. Fails, with
    what it printed, if it ends first or at the deadline (p killed then)."""

    def ready():
        if p.poll() is not None:
            out = p.communicate() if p.stdout or p.stderr else ()
            pytest.fail(f"{p.args} ended (status {p.returncode}) before subscribing: {out}")
        return subscribed(p.pid, groups, ns)

    try:
        recheck_until(ready, f"{p.args} subscribed to groups {groups:#x}", timeout)
    except BaseException:
        p.kill()
        raise


def wait_link_locals(ns, names, timeout=10):
    """Until each of the links `names` has its IPv6 link-local address and
    nothing of pending_work() is left on them, as ip -j shows it: the kernel
    adds it when the link's carrier comes up, which it tells a moment (up
    to a second, more on a loaded host) after ``link set up``, lists it
    tentative, and makes it final (and joins its solicited-node group) when
    its DAD work runs -- at once where DAD is off, when DAD ends where it is
    on; each of those steps is told, and wakes the wait."""

    def left():
        have = {
            l["ifname"] for l in ns.ipj("-6", "addr", "show", "scope", "link") if l.get("addr_info")
        }
        out = [f"{n}: no link-local address" for n in sorted(set(names) - have)]
        return out + [f"{n}: {what}" for n, what in _pending(ns) if n in names]

    until_kernel_done(ns, left, "the links' link-locals", timeout)


def settle(ns, timeout=15):
    """Until pending_work(ns) is empty (as until_kernel_done waits); fails,
    naming what is still pending, after timeout seconds."""
    until_kernel_done(ns, lambda: pending_work(ns), "the kernel's own work", timeout)


def build_lab():
    """One namespace with every kind of link and address the tests compare."""
    ns = Netns("lab")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            [
                "link add v0 type veth peer name v1",
                "link add vt0 type veth peer name vt1",
                "link add vd0 type veth peer name vd1",
                f"link add {LONG_NAME} type veth peer name {ODD_NAME}",
                f"link add {BYTES_NAME} type veth peer name vb1",
                "link add br0 type bridge",
                "tuntap add dev tun0 mode tun",
            ]
        )
        # vt0 keeps its IPv6 addresses tentative for the whole run.
        ns.sysctl("net.ipv6.conf.vt0.accept_dad", 1)
        ns.sysctl("net.ipv6.conf.vt0.dad_transmits", 250)
        lines = [
            "addr add 192.0.2.1/24 brd + dev v0",
            "addr add 192.0.2.2/24 dev v0 label v0:1",
            "addr add 2001:db8:1::1/64 dev v0",
            "addr add 2001:db8:2::1/64 dev v0 preferred_lft 0 valid_lft 3600",
            "addr add 2001:db8:3::1/64 dev v0 preferred_lft 1800 valid_lft 3600",
            "addr add 10.31.0.0/31 brd + dev v1",
            "addr add 10.32.0.1/32 dev v1",
            "addr add 10.9.0.1 peer 10.9.0.2 dev tun0",
            "addr add 2001:db8:9::1 peer 2001:db8:9::2 dev tun0",
            "addr add 203.0.113.1/24 dev br0",
            "addr add 198.18.0.1/24 dev vd0",
            f"addr add 198.19.0.1/24 dev {LONG_NAME}",
            "link set vd0 down",
        ]
        lines += [f"addr add 198.51.100.{i}/24 dev v1" for i in range(1, 61)]
        lines += [
            f"link set {n} up"
            for n in ("v0", "v1", "vt0", "vt1", "tun0", "br0", LONG_NAME, ODD_NAME)
        ]
        ns.batch(lines)
        ns.ip("addr", "add", "2001:db8:7::1/64", "dev", "vt0")
        return ns
    except BaseException:
        ns.delete()
        raise


def in_new_thread(fn, timeout=None, what="the call"):
    """fn() in a thread of its own (no socket kept yet); its result or exception.
    With a timeout, a call still running after it fails the test (a blocking
    read must fail the run, not hang it)."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # handed back to the caller
            out["error"] = e

    t = threading.Thread(target=run, daemon=timeout is not None)
    t.start()
    t.join(timeout)
    if t.is_alive():
        pytest.fail(f"{what} did not return in {timeout} s (a read blocked)")
    if "error" in out:
        raise out["error"]
    return out["value"]


# CI's ASan step preloads GCC 12's runtime, which takes none of its allocator's
# locks around fork(): a child forked while another thread holds one -- in
# malloc or free, or draining its cache as it ends, after join() has returned
# -- waits for it forever (seen: gdb shows such children in
# SizeClassAllocator64::GetFromAllocator).  Every other run of the suite
# forks, ThreadSanitizer's (whose runtime does lock) among them.
ASAN_FORK = (
    "ASan's runtime (GCC 12) does not lock its allocator around fork(): a child "
    "forked after other threads ran can wait forever on a lock one of them held"
)


def soak_rounds(n):
    """n rounds of a leak test; under LeakSanitizer (CI's ASan step) a tenth,
    at least 500: LSan reports a lost block at the process's exit however few
    the rounds were, and what it cannot see (a descriptor or an object kept a
    call) the tests count exactly, which 500 rounds show as well as 50,000."""
    return max(n // 10, 500) if os.environ.get("NETIFC_ASAN") else n


def require_strace(what):
    """strace, which a test reads what is asked of the kernel with: skips
    without it, but on CI (which installs it), where it fails."""
    if not shutil.which("strace"):
        if os.environ.get("CI"):
            pytest.fail(f"CI must run {what}: strace is missing")
        pytest.skip(f"{what} needs strace (apt-get install strace)")


def require_fork():
    """Skips the test where a forked child can hang for reasons not netifc's."""
    if os.environ.get("NETIFC_ASAN"):
        pytest.skip(ASAN_FORK)


def in_forked_child(fn, timeout=60, what="the forked child"):
    """fn() in a child this process forks; what it returns (JSON's types), or
    what it raised as the test's failure.  A child that has not answered in
    timeout seconds is shown (its threads' kernel stacks) and killed: a stuck
    child fails the test, never hangs the run."""
    require_fork()
    r, w = os.pipe()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads
            pid = os.fork()
    except BaseException:
        os.close(r)
        os.close(w)
        raise
    if pid == 0:
        try:
            os.close(r)
            try:
                payload = json.dumps({"value": fn()})
            except BaseException:  # handed to the parent, with what could not be sent
                payload = json.dumps({"error": traceback.format_exc()})
            os.write(w, payload.encode())
        finally:
            os._exit(0)
    os.close(w)
    data, deadline, answered = b"", time.monotonic() + timeout, False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([r], [], [], left)[0]:
                try:
                    stuck = child_stacks(pid)
                except Exception as e:  # the child is killed all the same
                    stuck = f"  (its stacks could not be read: {e!r})"
                pytest.fail(f"{what} (pid {pid}) did not answer in {timeout} s:\n{stuck}")
            chunk = os.read(r, 65536)
            if not chunk:
                answered = True
                break
            data += chunk
    finally:
        os.close(r)
        if not answered:
            os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
    out = json.loads(data or b"{}")
    if "error" in out:
        pytest.fail(f"{what} raised:\n{out['error']}")
    if "value" not in out:
        pytest.fail(f"{what} ended without an answer (wait status {status:#x})")
    return out["value"]


def child_stacks(pid):
    """Each thread of a process: where the kernel has it waiting (and gdb's
    backtraces, where gdb is installed)."""
    lines = []
    for tid in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
        try:
            with open(f"/proc/{pid}/task/{tid}/stack") as f:
                stack = " <- ".join(l.split()[-1].split("+")[0] for l in f if l.strip())
        except OSError as e:
            stack = f"({e.strerror})"
        lines.append(f"  thread {tid}: {stack}")
    if shutil.which("gdb"):  # and in user space, where gdb is installed
        bt = subprocess.run(
            ["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 40"],
            env=TOOL_ENV,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        lines += [l for l in bt.stdout.splitlines() if l.startswith(("#", "Thread"))]
    return "\n".join(lines)


# ---- netlink sockets as /proc shows them ---------------------------------------

NETLINK_ROUTE = 0


def socket_inodes():
    """The inodes of every socket this process holds, from /proc/self/fd."""
    out = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed meanwhile (the listing's own descriptor)
            continue
        if target.startswith("socket:["):
            out.add(int(target[8:-1]))
    return out


def netlink_ports(protocol=NETLINK_ROUTE):
    """{inode: port id} of the netlink sockets of the calling thread's network
    namespace, from /proc/thread-self/net/netlink (every process's, not only ours)."""
    out = {}
    with open("/proc/thread-self/net/netlink") as f:
        head = f.readline().split()
        eth, pid, inode = head.index("Eth"), head.index("Pid"), head.index("Inode")
        for line in f:
            cols = line.split()
            if len(cols) > inode and int(cols[eth]) == protocol:
                out[int(cols[inode])] = int(cols[pid])
    return out


def own_netlink_ports():
    """{inode: port id} of the NETLINK_ROUTE sockets this process holds in the
    calling thread's network namespace."""
    mine = socket_inodes()
    return {i: p for i, p in netlink_ports().items() if i in mine}


def ip_altnames(ns):
    """{link name: [altname, ...]} from `ip -j link show`, in the kernel's order."""
    return {l["ifname"]: l.get("altnames", []) for l in ns.ipj("link", "show")}


def printed_until(p, done, timeout=10):
    """The lines process p prints (stdout a pipe), read as they come until
    done(lines) holds: (those lines, any part of the next one read).  p's
    stdout is read by descriptor, so communicate() reads on after them.
    Fails after timeout seconds, or when p ends first."""
    fd = p.stdout.fileno()
    lines, rest = [], b""
    deadline = time.monotonic() + timeout
    while not done(lines):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            pytest.fail(f"{p.args} printed only {lines} in {timeout} s")
        chunk = os.read(fd, 65536)
        if not chunk:
            pytest.fail(f"{p.args} ended after printing {lines}")
        *whole, rest = (rest + chunk).split(b"\n")
        lines += [line.decode("utf-8", "surrogateescape") for line in whole]
    return lines, rest.decode("utf-8", "surrogateescape")
