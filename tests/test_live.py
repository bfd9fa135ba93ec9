"""Live tables and change events, in namespaces the tests build: after every
change, the Watcher's events explain exactly what changed and live() equals a
fresh snapshot() and iproute2's view; read-your-writes; overflow; an
unprivileged watcher; asyncio; forged multicast; threads."""

import asyncio
import contextlib
import errno
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

import netifc
from conftest import NO_DAD, own_netns
from nslab import (
    RTMGRP_IPV4_IFADDR,
    RTMGRP_LINK,
    TOOL_ENV,
    Netns,
    in_forked_child,
    in_new_thread,
    ip_addrs,
    ip_groups,
    ip_links,
    pending_work,
    printed_until,
    settle,
    until_kernel_done,
    until_subscribed,
    until_watching,
    watch_until,
)

TIMEOUT = 10  # seconds any one wait may take before the test fails


pytestmark = pytest.mark.usefixtures("netlink_backend")  # live tables are netlink's


@pytest.fixture
def ns():
    """A namespace of this test's own, without DAD, promoting IPv4 secondaries;
    the calling thread inside it for the test."""
    promote = {f"net.ipv4.conf.{c}.promote_secondaries": 1 for c in ("all", "default")}
    with own_netns("live", {**NO_DAD, **promote}) as n:
        yield n


def run_with_timeout(fn, seconds=TIMEOUT, what="the call"):
    return in_new_thread(fn, timeout=seconds, what=what)


# ---- the truth: a fresh dump, and ip -j ----------------------------------------------


def ip_view(ns):
    """Links, addresses and groups as iproute2 shows them, in netifc's terms."""
    links = {(l["index"], l["name"], l["mtu"], l["hw"]) for l in ip_links(ns).values()}
    addrs = {
        (a["index"], a["address"], a["prefixlen"], a["peer"], a["zone"])
        for rows in ip_addrs(ns).values()
        for a in rows
    }
    groups = {(i, fam, addr, zone) for i, rows in ip_groups(ns).items() for fam, addr, zone in rows}
    return links, addrs, groups


def netifc_view(interfaces, addrs, groups):
    family = {socket.AF_INET: "inet", socket.AF_INET6: "inet6"}
    return (
        {(i.index, i.name, i.mtu, i.hardware_addr_str) for i in interfaces},
        {(a.index, a.address, a.prefixlen, a.peer, a.zone) for a in addrs},
        {(g.index, family[g.family], g.address, g.zone) for g in groups},
    )


class State:
    """Links by index, addresses and groups by key: what the events are replayed
    on, and what a fresh dump gives."""

    def __init__(self, interfaces, addrs, groups):
        self.links = {i.index: i for i in interfaces}
        self.addrs = {(a.index, a.family, a.address, a.prefixlen, a.peer): a for a in addrs}
        self.groups = {(g.index, g.family, g.address): g for g in groups}

    @classmethod
    def now(cls):
        snap, msnap = netifc.snapshot(), netifc.multicast_snapshot()
        return cls(snap.interfaces, snap.addrs, msnap.addrs)

    def view(self):
        return netifc_view(self.links.values(), self.addrs.values(), self.groups.values())

    def __eq__(self, other):
        return (
            self.links == other.links
            and self.addrs == other.addrs
            and set(self.groups.values()) == set(other.groups.values())
        )

    def replay(self, events):
        """Apply the events, each of which must change something and agree with
        what came before it (old records as they were)."""
        for e in events:
            if isinstance(e, netifc.LinkAdded):
                assert e.link.index not in self.links, e
                self.links[e.link.index] = e.link
            elif isinstance(e, netifc.LinkChanged):
                assert self.links.get(e.old.index) == e.old and e.old != e.new, e
                self.links[e.new.index] = e.new
                self.rezone(e.new)
            elif isinstance(e, netifc.LinkRemoved):
                assert self.links.pop(e.link.index) == e.link, e
                self.addrs = {k: a for k, a in self.addrs.items() if a.index != e.link.index}
                self.groups = {k: g for k, g in self.groups.items() if g.index != e.link.index}
            elif isinstance(e, (netifc.AddrAdded, netifc.AddrChanged, netifc.AddrRemoved)):
                a = e.new if isinstance(e, netifc.AddrChanged) else e.addr
                key = (a.index, a.family, a.address, a.prefixlen, a.peer)
                if isinstance(e, netifc.AddrAdded):
                    assert key not in self.addrs, e
                    self.addrs[key] = a
                elif isinstance(e, netifc.AddrChanged):
                    assert self.addrs[key] == e.old, e
                    self.addrs[key] = a
                else:
                    assert self.addrs.pop(key) == a, e
            elif isinstance(e, (netifc.GroupJoined, netifc.GroupLeft)):
                g = e.group
                key = (g.index, g.family, g.address)
                if isinstance(e, netifc.GroupJoined):
                    assert key not in self.groups, e
                    self.groups[key] = g
                else:
                    assert self.groups.pop(key) == g, e
            else:
                pytest.fail(f"unexpected event {e!r}")

    def rezone(self, link):
        """A renamed link's zones follow its name (the kernel tells no address
        event of it); so does a fresh dump."""
        for table in (self.addrs, self.groups):
            for k, a in list(table.items()):
                if a.index == link.index and a.zone and a.zone != link.name:
                    *fields, _, label = a.__reduce__()[1]  # ..., zone, label
                    table[k] = netifc._netifc._addr(*fields, link.name, label)


def current(ns, lv, w):
    """live(), the Watcher's tables (as of its last event), a fresh dump and ip -j
    all equal. Returns the fresh state."""
    fresh = State.now()
    assert State(lv.interfaces, lv.addrs, lv.groups) == fresh
    assert State(w.interfaces, w.addrs, w.groups) == fresh
    assert fresh.view() == ip_view(ns)
    return fresh


@contextlib.contextmanager
def tables(ns):
    with netifc.Watcher() as w:
        lv = netifc.live()
        try:
            yield lv, w
        finally:
            lv.close()


def step(ns, lv, w, before, *commands, until=lambda state: True):
    """Run the commands, then collect the Watcher's events until they explain
    the fresh state, until(state) holds and the kernel's own work that the
    commands started (carrier, link-locals, DAD work: nslab.pending_work) is
    done, so that no event of this step comes in the next. Returns (events,
    fresh state)."""
    for c in commands:
        ns.ip(*c.split())
    events = []
    replayed = State(before.links.values(), before.addrs.values(), before.groups.values())

    def explained(new):
        # Reached, and no more to come: the kernel's delayed work (carrier,
        # DAD; a bridge's forwarding, which until() names) is done, and what
        # it changed was told before it showed (or is read here).
        replayed.replay(new)
        events.extend(new)
        fresh = State.now()
        if not (
            replayed == fresh
            and fresh.view() == ip_view(ns)
            and until(fresh)
            and not pending_work(ns)
        ):
            return None
        late = w.poll(0)
        return explained(late) if late else fresh

    def unexplained():
        fresh = State.now()
        return (
            f"{commands}: events {events} do not explain the change: "
            + diff(replayed.view(), fresh.view(), ip_view(ns))
            + f"; records: {set(replayed.links.values()) ^ set(fresh.links.values())}"
            f" {set(replayed.addrs.values()) ^ set(fresh.addrs.values())}"
            f" {set(replayed.groups.values()) ^ set(fresh.groups.values())}"
            f"; pending {pending_work(ns)}"
        )

    fresh = watch_until(w, explained, unexplained, TIMEOUT)
    assert current(ns, lv, w) == fresh
    return events, fresh


def diff(replayed, fresh, ip):
    out = []
    for what, r, f, i in zip(("links", "addrs", "groups"), replayed, fresh, ip):
        out.append(
            f"{what}: replayed-only {r - f}, dump-only {f - r}, ip-only {i - f},"
            f" dump-not-ip {f - i}"
        )
    return "; ".join(out)


def kinds(events):
    return [type(e).__name__ for e in events]


def test_scripted_sequence(ns):
    with tables(ns) as (lv, w):
        s = current(ns, lv, w)

        ev, s2 = step(ns, lv, w, s, "link add v0 type veth peer name v1")
        v0, v1 = lv.by_name("v0"), lv.by_name("v1")
        assert {e.link for e in ev if isinstance(e, netifc.LinkAdded)} == {v0, v1}
        assert set(kinds(ev)) == {"LinkAdded", "GroupJoined"}, ev
        s = s2

        ev, s = step(ns, lv, w, s, "link set v0 up", "link set v1 up")
        assert lv.by_name("v0").flags & netifc.Flags.UP
        assert any(isinstance(e, netifc.AddrAdded) and e.addr.zone == "v0" for e in ev), ev

        ev, s2 = step(ns, lv, w, s, "link set v0 mtu 1400")
        assert ev == [netifc.LinkChanged(s.links[v0.index], s2.links[v0.index])]
        assert lv.by_index(v0.index).mtu == 1400
        s = s2

        ev, s = step(ns, lv, w, s, "link set v0 address 02:00:00:00:00:01")
        assert [
            e.new.hardware_addr_str
            for e in ev
            if isinstance(e, netifc.LinkChanged) and e.new.index == v0.index
        ][-1] == "02:00:00:00:00:01"

        ev, s2 = step(ns, lv, w, s, "addr add 192.0.2.1/24 dev v0")
        a1 = [a for a in s2.addrs.values() if a.address == "192.0.2.1"][0]
        assert ev == [netifc.AddrAdded(a1)]
        s = s2

        ev, s2 = step(ns, lv, w, s, "addr add 192.0.2.2/24 dev v0")
        a2 = [a for a in s2.addrs.values() if a.address == "192.0.2.2"][0]
        assert ev == [netifc.AddrAdded(a2)] and a2.flags & netifc.AddrFlags.SECONDARY
        s = s2

        ev, s2 = step(
            ns, lv, w, s, "addr add 2001:db8::1/64 dev v0 valid_lft 600 preferred_lft 300 nodad"
        )
        a6 = [a for a in s2.addrs.values() if a.address == "2001:db8::1"][0]
        solicited = s2.groups[(v0.index, socket.AF_INET6, "ff02::1:ff00:1")]  # its group
        assert ev == [netifc.GroupJoined(solicited), netifc.AddrAdded(a6)]
        assert 590 <= ev[1].addr.valid_lifetime <= 600
        assert 290 <= ev[1].addr.preferred_lifetime <= 300
        s = s2

        # The primary goes: the secondary is promoted (one address changed).
        ev, s2 = step(ns, lv, w, s, "addr del 192.0.2.1/24 dev v0")
        promoted = [a for a in s2.addrs.values() if a.address == "192.0.2.2"][0]
        assert not promoted.flags & netifc.AddrFlags.SECONDARY
        assert ev == [netifc.AddrRemoved(a1), netifc.AddrChanged(a2, promoted)]
        s = s2

        ev, s2 = step(ns, lv, w, s, "addr del 2001:db8::1/64 dev v0")
        assert ev == [netifc.AddrRemoved(a6), netifc.GroupLeft(solicited)]
        s = s2

        ev, s = step(ns, lv, w, s, "link set v1 down")
        ev, s2 = step(ns, lv, w, s, "link set v1 name w1")
        assert kinds(ev) == ["LinkChanged"] and ev[0].new.name == "w1"
        assert all(a.zone == "w1" for a in lv.addrs_of(v1.index) if a.zone)
        assert all(g.zone == "w1" for g in lv.groups_of(v1.index) if g.zone)
        with pytest.raises(netifc.NoSuchInterface):
            lv.by_name("v1")
        s = s2
        ev, s = step(ns, lv, w, s, "link set w1 up")

        ev, s = step(ns, lv, w, s, "link add br0 type bridge forward_delay 0")
        br0 = lv.by_name("br0")
        assert netifc.LinkAdded(s.links[br0.index]) in ev or any(
            isinstance(e, netifc.LinkAdded) and e.link.index == br0.index for e in ev
        )
        ev, s = step(ns, lv, w, s, "link set v0 master br0")  # bridge port news: no event
        ev, s = step(
            ns,
            lv,
            w,
            s,
            "link set br0 up",  # until forwarding: carrier, link-local
            until=lambda st: (
                st.links[br0.index].flags & netifc.Flags.RUNNING
                and any(a.index == br0.index for a in st.addrs.values())
            ),
        )

        # Groups joined and left by a socket of this namespace.
        s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        try:
            before = s
            s4.setsockopt(
                socket.IPPROTO_IP,
                socket.IP_ADD_MEMBERSHIP,
                struct.pack("4s4si", socket.inet_aton("239.1.2.3"), bytes(4), v0.index),
            )
            s6.setsockopt(
                socket.IPPROTO_IPV6,
                socket.IPV6_JOIN_GROUP,
                socket.inet_pton(socket.AF_INET6, "ff05::1234") + struct.pack("I", v0.index),
            )
            ev, s = step(ns, lv, w, before)
            assert sorted((e.group.family, e.group.address, e.group.index) for e in ev) == [
                (socket.AF_INET, "239.1.2.3", v0.index),
                (socket.AF_INET6, "ff05::1234", v0.index),
            ]
            assert kinds(ev) == ["GroupJoined", "GroupJoined"]
        finally:
            s4.close()
            s6.close()
        ev, s = step(ns, lv, w, s)
        assert sorted(e.group.address for e in ev) == ["239.1.2.3", "ff05::1234"]
        assert kinds(ev) == ["GroupLeft", "GroupLeft"]

        # A link moved to another namespace is gone from this one.
        other = Netns("live-other")
        try:
            w1 = lv.by_name("w1")
            ev, s2 = step(ns, lv, w, s, f"link set w1 netns {other.name}")
            assert [
                (e.link.index, e.link.name) for e in ev if isinstance(e, netifc.LinkRemoved)
            ] == [(w1.index, "w1")]
            assert not [a for a in lv.addrs if a.index == w1.index]
            assert not [g for g in lv.groups if g.index == w1.index]
            s = s2
            ev, s2 = step(ns, lv, w, s, "link del v0")
            assert [
                (e.link.index, e.link.name) for e in ev if isinstance(e, netifc.LinkRemoved)
            ] == [(v0.index, "v0")]
            s = s2
        finally:
            other.delete()
        ev, s = step(ns, lv, w, s, "link del br0")
        assert [i.name for i in lv.interfaces] == ["lo"]


def test_read_your_writes(ns):
    """1,000 rounds of a change with ip and a read at once: no miss."""
    ns.ip("link", "add", "r0", "type", "veth", "peer", "name", "r1")
    lv = netifc.live()
    index = lv.by_name("r0").index
    misses = []
    for i in range(1000):
        what = i % 4
        if what == 0:
            ns.ip("addr", "add", f"198.51.100.{i % 250 + 1}/24", "dev", "r0")
            if not any(a.address == f"198.51.100.{i % 250 + 1}" for a in lv.addrs_of(index)):
                misses.append(i)
        elif what == 1:
            ns.ip("addr", "del", f"198.51.100.{(i - 1) % 250 + 1}/24", "dev", "r0")
            if any(a.address == f"198.51.100.{(i - 1) % 250 + 1}" for a in lv.addrs):
                misses.append(i)
        elif what == 2:
            ns.ip("link", "set", "r0", "mtu", str(1000 + i))
            if lv.by_index(index).mtu != 1000 + i:
                misses.append(i)
        else:
            ns.ip("link", "set", "r0", "name", f"r{i % 2}x")
            if lv.by_name(f"r{i % 2}x").index != index:
                misses.append(i)
            ns.ip("link", "set", f"r{i % 2}x", "name", "r0")
            if lv.snapshot().by_name("r0").index != index:
                misses.append(i)
    lv.close()
    assert misses == []


def test_pending_changes_agree_with_dumps(ns):
    """400 random changes -- addresses added, changed and deleted, links renamed,
    resized, brought up, deleted and made again with the same index -- with only
    lookups by index between most of them (the changes stay pending, and are
    merged in once they outnumber a table): every lookup agrees with the kernel's
    answer, and every whole read with a fresh dump and ip -j; the Watcher's events
    replay to the same tables."""
    import random

    rng = random.Random(8)
    names = ["p0", "p1", "p2"]
    for n in names:
        ns.ip("link", "add", n, "type", "veth", "peer", "name", "q" + n)
    with tables(ns) as (lv, w):
        lv.groups  # keep the groups too
        before = State.now()
        replayed = State(before.links.values(), before.addrs.values(), before.groups.values())
        index = {n: lv.by_name(n).index for n in names}
        added = []
        for step_no in range(400):
            op = rng.randrange(8)
            n = rng.choice(names)
            if op <= 2:
                a = f"10.{rng.randrange(4)}.{rng.randrange(250)}.{rng.randrange(1, 250)}"
                if rng.randrange(2):
                    a = f"2001:db8:{rng.randrange(16):x}::{rng.randrange(1, 999):x}"
                plen = "/64" if ":" in a else "/24"
                if ns.ip("addr", "add", a + plen, "dev", n, check=False).returncode == 0:
                    added.append((a + plen, n))
            elif op == 3 and added:
                a, on = added.pop(rng.randrange(len(added)))
                ns.ip("addr", "del", a, "dev", on, check=False)
            elif op == 4 and added:
                a, on = rng.choice(added)
                ns.ip(
                    "addr",
                    "change",
                    a,
                    "dev",
                    on,
                    "valid_lft",
                    str(rng.randrange(100, 900)),
                    "preferred_lft",
                    "50",
                    check=False,
                )
            elif op == 5:
                ns.ip("link", "set", n, "mtu", str(rng.randrange(1280, 9000)))
            elif op == 6:
                ns.ip("link", "set", n, rng.choice(["up", "down"]))
            else:
                ns.ip("link", "del", n)
                ns.ip(
                    "link",
                    "add",
                    n,
                    "index",
                    str(index[n]),
                    "type",
                    "veth",
                    "peer",
                    "name",
                    "q" + n,
                )
                added = [(a, on) for a, on in added if on != n]
            probe = rng.choice(list(index.values()) + [1, 999])
            try:
                truth = netifc.interface_by_index(probe)
            except netifc.NoSuchInterface:
                truth = None
            try:
                seen = lv.by_index(probe)
            except netifc.NoSuchInterface:
                seen = None
            assert seen == truth, (step_no, probe)
            if step_no % 80 == 79:  # the kernel's delayed work may still move them

                def apart(step_no=step_no):  # checked again on each change the kernel tells
                    seen_state, fresh = State(lv.interfaces, lv.addrs, lv.groups), State.now()
                    if seen_state == fresh and fresh.view() == ip_view(ns):
                        return []
                    return [step_no, diff(seen_state.view(), fresh.view(), ip_view(ns))]

                until_kernel_done(ns, apart, "live() as a dump and ip -j", TIMEOUT)
        # The links last brought up get carrier and link-locals by the
        # kernel's own work: done before the last comparisons.
        settle(ns, TIMEOUT)

        def replayed_fresh(new):
            replayed.replay(new)
            return replayed == State.now()

        watch_until(
            w,
            replayed_fresh,
            lambda: (
                "the events replayed: " + diff(replayed.view(), State.now().view(), ip_view(ns))
            ),
            TIMEOUT,
        )
        fresh = State.now()
        assert replayed == fresh, diff(replayed.view(), fresh.view(), ip_view(ns))
        assert State(w.interfaces, w.addrs, w.groups) == fresh
        assert State(lv.interfaces, lv.addrs, lv.groups) == fresh


def test_groups_told_before_their_link_are_kept(ns):
    """The kernel tells of a new link's groups before the link: a thread reading
    the groups without pause while 40 links are made (so reads fall between the
    two) leaves no group out, in live() and in a Watcher's tables."""
    with tables(ns) as (lv, w):
        lv.groups
        stop = threading.Event()

        def spin():
            while not stop.is_set():
                lv.groups
                w.poll(0)

        reader = threading.Thread(target=spin)
        reader.start()
        try:
            for i in range(40):
                ns.ip("link", "add", f"g{i}", "type", "veth", "peer", "name", f"h{i}")
        finally:
            stop.set()
            reader.join()

        def whole(_new):
            fresh = State.now()
            return (
                State(lv.interfaces, lv.addrs, lv.groups) == fresh
                and State(w.interfaces, w.addrs, w.groups) == fresh
            )

        watch_until(w, whole, "groups left out", TIMEOUT)


def test_a_batch_not_applied_is_followed_by_a_resync(ns):
    """An event that cannot be made fails the call after the socket was read: the
    next call is a Resync, and the tables are right again (nothing silently lost)."""
    from netifc.watch import _EVENTS

    ns.ip("link", "add", "d0", "type", "veth", "peer", "name", "d1")
    with netifc.Watcher() as w:
        ns.ip("addr", "add", "192.0.2.1/24", "dev", "d0")
        ns.ip("link", "set", "d0", "mtu", "1400")
        bad = list(_EVENTS)
        bad[3] = (bad[3][0], ("link",))  # AddrAdded with a field it lacks
        with pytest.raises(AttributeError):
            w._tables._events(tuple(bad))
        events = w.poll(0)
        assert kinds(events) == ["Resync"]
        assert State(w.interfaces, w.addrs, w.groups) == State.now()
        assert w._tables.by_name("d0").mtu == 1400


def test_overflow_resyncs(ns):
    """A tiny receive buffer and 10,000 changes unread: a Resync, the tables
    equal again, and no event lost after it."""
    ns.ip("link", "add", "o0", "type", "veth", "peer", "name", "o1")
    with netifc.Watcher() as w:
        lv = netifc.live()
        for fd in (w.fileno(), lv.fileno()):
            with socket.socket(fileno=os.dup(fd)) as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
        ns.batch(
            [f"addr add 10.{i // 250}.{i % 250}.1/32 dev o0" for i in range(7500)]
            + [f"addr del 10.{i // 250}.{i % 250}.1/32 dev o0" for i in range(0, 5000, 2)]
        )
        events = run_with_timeout(lambda: w.poll(TIMEOUT), what="poll")
        assert kinds(events) == ["Resync"]
        fresh = State.now()
        assert State(events[0].interfaces, events[0].addrs, events[0].groups) == fresh
        assert len([a for a in lv.addrs if a.address.startswith("10.")]) == 5000
        assert State(lv.interfaces, lv.addrs, lv.groups) == fresh
        # Every change was made before the first read: whatever is still
        # queued tells what the Resync's tables hold already (no event).
        assert w.poll(0) == []
        assert State(w.interfaces, w.addrs, w.groups) == State.now()
        ns.ip("addr", "add", "192.0.2.99/24", "dev", "o0")
        after = w.poll(TIMEOUT)
        assert kinds(after) == ["AddrAdded"] and after[0].addr.address == "192.0.2.99"
        lv.close()


def test_failed_resync_is_tried_again(ns, monkeypatch):
    """A read of the tables that fails after an overflow raises; the next read
    tries it again: the tables are never left behind."""
    ns.ip("link", "add", "s0", "type", "veth", "peer", "name", "s1")
    lv = netifc.live()
    with socket.socket(fileno=os.dup(lv.fileno())) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    ns.batch([f"addr add 10.1.{i // 250}.{i % 250}/32 dev s0" for i in range(2000)])
    real = netifc._netifc._snapshot

    def busy(*args):
        raise OSError(errno.EBUSY, "netlink RTM_GETADDR dump: asked 8 times")

    monkeypatch.setattr(netifc._netifc, "_snapshot", busy)
    with pytest.raises(OSError):
        lv.by_index(1)
    monkeypatch.setattr(netifc._netifc, "_snapshot", real)
    assert len([a for a in lv.addrs if a.address.startswith("10.1.")]) == 2000
    assert State(lv.interfaces, lv.addrs, lv.groups) == State.now()
    lv.close()


CHILD = r"""
import json, os, sys
import netifc   # first: the interpreter's own files may be unreadable to nobody
os.setgroups([]); os.setgid(65534); os.setuid(65534)
w = netifc.Watcher()
print("ready", os.getuid(), flush=True)
seen = []
while not any(e.get("address") == "192.0.2.55" for e in seen):
    events = w.poll(10)
    if not events:
        break
    for e in events:
        rec = getattr(e, "addr", None) or getattr(e, "link", None) or getattr(e, "new", None)
        seen.append({"kind": type(e).__name__, "address": getattr(rec, "address", None)})
print(json.dumps(seen), flush=True)
"""


def test_unprivileged_watcher_gets_events(ns):
    ns.ip("link", "add", "u0", "type", "veth", "peer", "name", "u1")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    p = subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd="/",
    )
    try:
        line = run_with_timeout(p.stdout.readline, what="the child's start")
        assert line.split() == ["ready", "65534"], line + p.stderr.read()
        ns.ip("addr", "add", "192.0.2.55/24", "dev", "u0")
        out, err = p.communicate(timeout=TIMEOUT)
    finally:
        p.kill()
        p.wait()
    assert {"kind": "AddrAdded", "address": "192.0.2.55"} in json.loads(out), err


def test_asyncio_consumer(ns):
    async def main():
        with netifc.Watcher() as w:
            nxt = asyncio.ensure_future(w.__anext__())
            await asyncio.sleep(0.05)
            assert not nxt.done()  # waiting on the loop, not spinning
            ns.ip("link", "add", "a0", "type", "veth", "peer", "name", "a1")  # the loop waits
            first = await asyncio.wait_for(nxt, TIMEOUT)
            seen = [first]
            while not {"a0", "a1"} <= {
                e.link.name for e in seen if isinstance(e, netifc.LinkAdded)
            }:
                seen.append(await asyncio.wait_for(w.__anext__(), TIMEOUT))
            return seen, threading.active_count()

    before = threading.active_count()
    seen, during = asyncio.run(main())
    assert during == before, "a thread was started"
    assert isinstance(seen[0], netifc.Event)


def forge(group, mtype, body):
    """A root socket's message to an rtnetlink multicast group."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    try:
        s.bind((0, 0))
        s.sendto(struct.pack("=IHHII", 16 + len(body), mtype, 0, 0, 0) + body, (0, group))
    finally:
        s.close()


def test_forged_multicast_is_ignored(ns):
    name = b"forged0\0"
    link = struct.pack("=BxHiII", 0, 1, 1, 0x1003, 0) + struct.pack("=HH", 4 + len(name), 3) + name
    addr = (
        struct.pack("=BBBBI", 2, 24, 0, 0, 1)
        + struct.pack("=HH", 8, 2)
        + socket.inet_aton("192.0.2.66")
    )
    # A plain subscriber sees the forgeries: they do reach the groups.
    spy = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    spy.bind((0, 1 | 0x10))
    spy.settimeout(TIMEOUT)
    with spy, netifc.Watcher() as w:
        lv = netifc.live()
        forge(1, 16, link)  # RTNLGRP_LINK, RTM_NEWLINK
        forge(0x10, 20, addr)  # RTNLGRP_IPV4_IFADDR, RTM_NEWADDR
        assert spy.recvfrom(65536)[1][0] != 0 and spy.recvfrom(65536)[1][0] != 0
        # The forgeries are queued to every subscriber before send() returns:
        # the events up to a real change made after them are that change's.
        ns.ip("addr", "add", "192.0.2.67/32", "dev", "lo")
        events = watch_until(w, lambda new: new, "no event of the real change", TIMEOUT)
        assert kinds(events) == ["AddrAdded"] and events[0].addr.address == "192.0.2.67"
        with pytest.raises(netifc.NoSuchInterface):
            lv.by_name("forged0")
        assert lv.by_index(1).name == "lo"
        assert not [a for a in lv.addrs if a.address == "192.0.2.66"]
        lv.close()


def test_threads_read_consistent_tables_under_churn(ns):
    lv = netifc.live()
    stop = threading.Event()
    errors = []
    reads = [0] * 8

    def reader(k):
        try:
            with ns.entered():
                while not stop.is_set():
                    snap = lv.snapshot()
                    names = {i.index for i in snap.interfaces}
                    bad = [a for a in snap.addrs if a.index not in names]
                    assert not bad, bad
                    for i in snap.interfaces:
                        assert snap.by_index(i.index) is i
                        assert all(a.index == i.index for a in snap.addrs_of(i))
                    reads[k] += 1
        except BaseException as e:  # handed to the test
            errors.append(e)

    threads = [threading.Thread(target=reader, args=(k,), daemon=True) for k in range(8)]
    for t in threads:
        t.start()
    end = time.monotonic() + 3  # churn for 3 s (a stretch of work, not a wait)
    n = 0
    while time.monotonic() < end and not errors:
        ns.batch(
            [
                f"link add c{n} type veth peer name d{n}",
                f"addr add 10.77.{n % 250}.1/24 dev c{n}",
                f"link set c{n} up",
                f"link set d{n} up",
            ]
        )
        if n >= 2:
            ns.ip("link", "del", f"c{n - 2}")
        n += 1
    stop.set()
    for t in threads:
        t.join(TIMEOUT)
        assert not t.is_alive(), "a reader did not stop"
    assert errors == []
    assert min(reads) > 0
    # The last links' carriers and link-locals come from the kernel's own
    # work, after the churn: once ip shows it done, live() equals a dump.
    settle(ns, TIMEOUT)
    assert State(lv.interfaces, lv.addrs, lv.groups) == State.now()
    lv.close()


def test_watcher_closed_in_a_forked_child(ns):
    with netifc.Watcher() as w:
        lv = netifc.live()
        lv.by_index(1)
        # the child: the watch closed, the tables reopened there
        assert in_forked_child(lambda: [w.closed, lv.by_index(1).name]) == [True, "lo"]
        assert not w.closed
        ns.ip("link", "add", "f0", "type", "veth", "peer", "name", "f1")
        assert lv.by_name("f0").name == "f0"
        lv.close()


def test_bad_input_and_closed():
    lv = netifc.live()
    with pytest.raises(TypeError):
        lv.by_index("1")
    with pytest.raises(TypeError):
        lv.by_index(True)
    with pytest.raises(netifc.NoSuchInterface):
        lv.by_index(2**31 - 1)
    with pytest.raises(TypeError):
        lv.by_name(1)
    with pytest.raises(netifc.NoSuchInterface):
        lv.addrs_of(2**31 - 1)
    lv.close()
    w = netifc.Watcher()
    w.close()
    w.close()
    assert w.closed and list(w) == []
    with pytest.raises(ValueError):
        w.fileno()
    with pytest.raises(TypeError):
        netifc._netifc._Tables(False)._events([])
    with pytest.raises(TypeError):
        lv.groups_of("lo")


def test_events_are_values():
    import pickle

    lo = netifc.interface_by_index(1)
    a = lo.addrs()[0]
    events = [
        netifc.LinkAdded(lo),
        netifc.LinkChanged(lo, lo),
        netifc.LinkRemoved(lo),
        netifc.AddrAdded(a),
        netifc.AddrChanged(a, a),
        netifc.AddrRemoved(a),
        netifc.GroupJoined(a),
        netifc.GroupLeft(a),
        netifc.Resync((lo,), (a,), ()),
    ]
    assert len(set(events)) == len(events)  # same record, another kind: not equal
    for e in events:
        assert pickle.loads(pickle.dumps(e)) == e and isinstance(e, netifc.Event)
        with pytest.raises(AttributeError):
            e.extra = 1
    with pytest.raises(AttributeError):
        events[0].link = lo


def test_no_netlink_names_the_platform(monkeypatch):
    monkeypatch.setattr(netifc.watch, "_Base", object)  # what a platform without _Tables has
    with pytest.raises(NotImplementedError, match=sys.platform):
        netifc.live()
    with pytest.raises(NotImplementedError, match=sys.platform):
        netifc.Watcher()


# ---- netifc --watch -------------------------------------------------------------------


def watch_cli(ns, *args):
    """netifc --watch ARGS in the namespace, once it watches (its tables read)."""
    p = subprocess.Popen(
        [sys.executable, "-m", "netifc", "--watch", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
    )
    until_watching(p, RTMGRP_LINK, TIMEOUT)
    return p


def stop(p):
    """Ctrl-C: exit status 0, and what it printed."""
    p.send_signal(2)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    finally:
        p.kill()
    assert p.returncode == 0, err
    return out


def test_watch_cli_json(ns):
    ns.ip("link", "add", "j0", "type", "veth", "peer", "name", "j1")
    index = netifc.interface_by_name("j0").index
    p = watch_cli(ns, "--json")
    ns.ip("addr", "add", "192.0.2.7/24", "dev", "j0")
    ns.ip("link", "set", "j0", "mtu", "1400")
    ns.ip("addr", "del", "192.0.2.7/24", "dev", "j0")
    # Until the last change is printed (events come in order).
    seen, rest = printed_until(
        p, lambda lines: any(json.loads(line)["event"] == "addr_removed" for line in lines), TIMEOUT
    )
    lines = [json.loads(line) for line in seen + (rest + stop(p)).splitlines()]
    assert [
        (d["event"], d.get("index"), d.get("addr", {}).get("address"))
        for d in lines
        if d["event"].startswith("addr")
    ] == [("addr_added", index, "192.0.2.7"), ("addr_removed", index, "192.0.2.7")]
    changed = [d for d in lines if d["event"] == "link_changed"]
    assert [(d["old"]["mtu"], d["new"]["mtu"], d["new"]["name"]) for d in changed] == [
        (1500, 1400, "j0")
    ]
    ip = [l for l in ns.ipj("link", "show", "j0")][0]
    # ip adds M-DOWN (the peer is down), which netifc leaves out (README).
    assert changed[0]["new"]["ip_flags"] == [f for f in ip["flags"] if f != "M-DOWN"]


def test_watch_cli_text_as_ip_monitor(ns):
    ns.ip("link", "add", "t0", "type", "veth", "peer", "name", "t1")
    p = watch_cli(ns, "t0")
    mon = subprocess.Popen(
        ["ip", "-n", ns.name, "monitor", "address"],
        stdout=subprocess.PIPE,
        text=True,
        env=TOOL_ENV,
    )
    until_subscribed(mon, RTMGRP_IPV4_IFADDR, TIMEOUT)
    ns.ip("addr", "add", "192.0.2.8/24", "brd", "+", "dev", "t0")
    ns.ip("addr", "add", "198.51.100.1/24", "dev", "t1")  # another link: not shown
    ns.ip("addr", "del", "192.0.2.8/24", "dev", "t0")
    # Until each has printed the removal, the last change it shows.
    removed = lambda lines: any(line.startswith("Deleted ") for line in lines)  # noqa: E731
    seen_mon, rest_mon = printed_until(mon, removed, TIMEOUT)
    seen_ours, rest_ours = printed_until(p, removed, TIMEOUT)
    mon.terminate()
    theirs = seen_mon + (rest_mon + mon.communicate(timeout=TIMEOUT)[0]).splitlines()
    ours = seen_ours + (rest_ours + stop(p)).splitlines()
    records = []  # ip's lines, one list per event
    for line in theirs:
        if not line.startswith(" "):
            records.append([])
        records[-1].append(line.rstrip())
    # Not t1's address.
    theirs = [line for r in records if "198.51.100.1" not in r[0] for line in r]
    assert ours == theirs and len(ours) == 4, (ours, theirs)
    assert ours[0].startswith(f"{netifc.interface_by_name('t0').index}: t0    inet 192.0.2.8/24")
    assert ours[2].startswith("Deleted ")


def test_watch_cli_unknown_interface(ns):
    r = subprocess.run(
        [sys.executable, "-m", "netifc", "--watch", "no-such0"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
    )
    assert r.returncode == 1 and "no-such0" in r.stderr


def fd_target(fd):
    """What /proc says descriptor fd is ("socket:[123]"), or None when it is closed."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except FileNotFoundError:
        return None


@pytest.mark.parametrize("make", ["live", "Watcher", "NetNS"])
def test_context_managers_close_what_they_hold(ns, make):
    """live(), a Watcher and a NetNS hand themselves to a with block and close
    their descriptor when it ends, by an exception too (as /proc/self/fd
    tells); live tables read after it open another socket and equal ip."""
    if make == "NetNS":
        opened = lambda: netifc.NetNS(ns.name)  # noqa: E731
    else:
        opened = getattr(netifc, make)
    with pytest.raises(RuntimeError, match="inside"):
        with opened() as held:
            fd = held.fileno()
            target = fd_target(fd)
            if make == "NetNS":  # the namespace's own file
                assert (
                    os.stat(f"/proc/self/fd/{fd}").st_ino == os.stat(f"/run/netns/{ns.name}").st_ino
                )
            else:
                assert target is not None and target.startswith("socket:")
            raise RuntimeError("inside")
    assert fd_target(fd) != target
    if make == "live":
        ns.ip("link", "add", "c0", "type", "veth", "peer", "name", "c1")
        assert netifc_view(held.interfaces, held.addrs, held.groups) == ip_view(ns)
        held.close()
    else:
        assert held.closed
