"""Live tables against what the kernel does behind their back, each checked with
iproute2 in a namespace of the test's own: the groups a deleted (or moved)
link leaves untold, lifetimes that count down untold, and tables read from a
thread that moved to another namespace."""

import os
import socket
import threading

import pytest

import netifc
from conftest import NO_DAD, own_netns
from nslab import Netns, ip_groups, recheck_until, told_until, wait_link_locals, watch_until

TIMEOUT = 10  # seconds any one wait may take before the test fails
NO_WATCH_MCAST = 16  # _set_backend's option: as a kernel that tells of no groups
FAMILY = {socket.AF_INET: "inet", socket.AF_INET6: "inet6"}


@pytest.fixture(params=[0, NO_WATCH_MCAST], ids=["groups-told", "groups-untold"])
def path(request):
    """Each test on the netlink backend, once as the kernel tells of groups and
    once as one that does not (the tables then compare groups with a dump)."""
    netifc._netifc._set_backend("netlink", request.param)
    yield request.param
    netifc._netifc._set_backend(os.environ.get("NETIFC_BACKEND", ""), 0)


@pytest.fixture
def ns():
    """A namespace of this test's own without DAD; the calling thread in it."""
    with own_netns("livek", NO_DAD) as n:
        yield n


def group_keys(groups, index):
    return sorted((FAMILY[g.family], g.address, g.zone) for g in groups if g.index == index)


# ---- a link's groups, told gone before the link ----------------------------------


@pytest.mark.parametrize("how", ["deleted", "moved"])
def test_every_group_left_before_the_link_is_removed(ns, path, how):
    ns.ip("link", "add", "g0", "type", "veth", "peer", "name", "g1")
    ns.ip("link", "set", "g0", "up")
    ns.ip("link", "set", "g1", "up")
    wait_link_locals(ns, ["g0", "g1"])
    index = ns.ipj("link", "show", "g0")[0]["ifindex"]
    other = Netns("livek-to") if how == "moved" else None
    try:
        with netifc.Watcher() as w:
            # the kernel's groups of g0 (ff01::1 among them), and the Watcher's the
            # same: checked again on each batch of events (a group joined is told)
            def agree(_new):
                kernel = ip_groups(ns).get(index)
                return kernel if kernel and group_keys(w.groups, index) == kernel else None

            told = watch_until(w, agree, "the Watcher's groups of g0 those of ip maddr", TIMEOUT)
            assert ("inet6", "ff01::1", "g0") in told, told
            if other:
                ns.ip("link", "set", "g0", "netns", other.name)
            else:
                ns.ip("link", "del", "g0")
            events = []

            def removed(new):
                events.extend(new)
                return any(
                    isinstance(e, netifc.LinkRemoved) and e.link.index == index for e in events
                )

            watch_until(w, removed, lambda: f"LinkRemoved of g0 (told: {events})", TIMEOUT)
        end = next(
            i
            for i, e in enumerate(events)
            if isinstance(e, netifc.LinkRemoved) and e.link.index == index
        )
        left = [e.group for e in events[:end] if isinstance(e, netifc.GroupLeft)]
        assert group_keys(left, index) == told, events
        assert not any(
            isinstance(e, (netifc.GroupLeft, netifc.GroupJoined)) and e.group.index == index
            for e in events[end:]
        ), events
        assert index not in ip_groups(ns)
    finally:
        if other:
            other.delete()


# ---- lifetimes, counted down as a dump's are ---------------------------------------


def ip_lifetimes(ns, address):
    """(preferred, valid) of the address as `ip -j addr` shows them now."""
    for l in ns.ipj("addr", "show"):
        for a in l.get("addr_info", []):
            if a["local"] == address:
                return a["preferred_life_time"], a["valid_life_time"]
    raise AssertionError(f"{address} not listed by ip addr")


def test_lifetimes_count_down(ns, path):
    ns.ip("link", "add", "l0", "type", "veth", "peer", "name", "l1")
    ns.ip("link", "set", "l0", "up")
    with netifc.live() as lv, netifc.Watcher() as w:
        ns.ip(
            "addr",
            "add",
            "2001:db8:5::1/64",
            "dev",
            "l0",
            "valid_lft",
            "100",
            "preferred_lft",
            "50",
        )
        ns.ip(
            "addr", "add", "198.51.100.7/24", "dev", "l0", "valid_lft", "90", "preferred_lft", "40"
        )
        ns.ip("addr", "add", "2001:db8:6::1/64", "dev", "l0")  # forever

        def told(addrs, address):
            return next((a for a in addrs if a.address == address), None)

        def watched(_new):
            return all(told(w.addrs, x) for x in ("2001:db8:5::1", "198.51.100.7", "2001:db8:6::1"))

        watch_until(w, watched, "the Watcher told of the three addresses", TIMEOUT)
        # the kernel's count is down by two seconds (it tells nothing as it
        # falls: recheck_until): the tables' must be too
        recheck_until(
            lambda: ip_lifetimes(ns, "2001:db8:5::1")[1] < 99,
            "ip's valid lifetime below 99",
            TIMEOUT,
            every=0.1,
        )
        for address in ("2001:db8:5::1", "198.51.100.7"):
            for tables in (lv, w):
                before = ip_lifetimes(ns, address)
                a = told(tables.addrs, address)
                after = ip_lifetimes(ns, address)
                got = (a.preferred_lifetime, a.valid_lifetime)
                for k in (0, 1):
                    assert after[k] - 1 <= got[k] <= before[k] + 1, (
                        address,
                        tables,
                        before,
                        got,
                        after,
                    )
        forever = told(lv.addrs, "2001:db8:6::1")
        assert (forever.preferred_lifetime, forever.valid_lifetime) == (
            netifc.FOREVER,
            netifc.FOREVER,
        )
        assert ip_lifetimes(ns, "2001:db8:6::1") == (netifc.FOREVER, netifc.FOREVER)
        # an address's records by link are counted down the same way
        a = told(lv.addrs_of(lv.by_name("l0")), "2001:db8:5::1")
        before = ip_lifetimes(ns, "2001:db8:5::1")
        assert abs(a.valid_lifetime - before[1]) <= 1, (a, before)


# ---- tables read from a thread in another namespace ---------------------------------


def in_thread_inside(other, fn):
    """fn() in a new thread that moved into the namespace other: what it returned or raised."""
    out = {}

    def run():
        with other.entered():
            try:
                out["value"] = fn()
            except Exception as e:  # handed back to the test
                out["error"] = e

    t = threading.Thread(target=run)
    t.start()
    t.join(TIMEOUT)
    assert not t.is_alive(), "the read did not return"
    return out


def test_a_thread_in_another_namespace_is_refused_by_every_path(ns):
    netifc._netifc._set_backend("netlink", NO_WATCH_MCAST)
    other = Netns("livek-b")
    try:
        ns.ip("link", "add", "n0", "type", "veth", "peer", "name", "n1")
        other.ip("link", "add", "o0", "type", "veth", "peer", "name", "o1")
        with netifc.live() as lv, netifc.live() as fresh:
            lv.groups  # kept from now on: each read of them compares them with a dump
            # regroup (the groups' dump of every read, where the kernel tells of none)
            got = in_thread_inside(other, lambda: lv.groups)
            assert isinstance(got.get("error"), RuntimeError), got
            message = str(got["error"])
            assert "another one" in message, message
            # reload (the first read of the groups)
            got = in_thread_inside(other, lambda: fresh.groups)
            assert isinstance(got.get("error"), RuntimeError), got
            assert str(got["error"]) == message
            # reconcile (a link's change asks for its addresses)
            ns.ip("link", "set", "n0", "mtu", "1400")
            got = in_thread_inside(other, lambda: lv.interfaces)
            assert isinstance(got.get("error"), RuntimeError), got
            assert str(got["error"]) == message
            # from the namespace they watch: its groups, as ip maddr lists them
            kernel = {i: rows for i, rows in ip_groups(ns).items() if rows}
            mine = {
                i.index: group_keys(lv.groups, i.index)
                for i in lv.interfaces
                if group_keys(lv.groups, i.index)
            }
            assert mine == kernel
            assert lv.by_name("n0").mtu == 1400
    finally:
        other.delete()
        netifc._netifc._set_backend(os.environ.get("NETIFC_BACKEND", ""), 0)


# ---- events made from the classes given, whatever they are --------------------------


def test_events_are_made_from_any_classes_safely(ns):
    from netifc.watch import _EVENTS

    class Plain:  # no slots, a __dict__: made and filled all the same
        pass

    class OnDict(dict):  # a builtin base: object.__new__ refuses to make one
        __slots__ = ("addr",)

    ns.ip("link", "add", "e0", "type", "veth", "peer", "name", "e1")
    with netifc.Watcher() as w:
        ns.ip("addr", "add", "192.0.2.9/24", "dev", "e0")
        kinds = list(_EVENTS)
        kinds[3] = (OnDict, ("addr",))
        with pytest.raises(TypeError):
            w._tables._events(tuple(kinds))
        assert [type(e).__name__ for e in w.poll(0)] == ["Resync"]
        ns.ip("addr", "add", "192.0.2.10/24", "dev", "e0")
        kinds[3] = (Plain, ("addr",))
        made = []  # the events read as Watcher.poll() reads them, made from kinds
        told_until(
            w.fileno(),
            lambda: w._tables._events(tuple(kinds)),
            lambda new: made.extend(new) or made,
            "the address told",
            TIMEOUT,
        )
        (e,) = [e for e in made if isinstance(e, Plain)]
        assert (e.addr.address, e.addr.prefixlen) == ("192.0.2.10", 24)
        index = ns.ipj("link", "show", "e0")[0]["ifindex"]
        assert e.addr.index == index
