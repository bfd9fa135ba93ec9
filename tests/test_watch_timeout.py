"""Watcher.poll()'s timeout as docs/rules.rst gives it: None, infinity and
numbers too large for one wait (1e300, 1e308, 2**64, past a float) wait until an
event comes, which `ip` makes after a pause in a namespace of the test's
own; 0 and a short timeout return [] when nothing comes; a negative
timeout or NaN is a ValueError naming timeout (select.poll() would wait
forever for a negative one)."""

import threading
import time

import pytest

import netifc
from conftest import require_namespaces
from nslab import Netns, in_new_thread

TIMEOUT = 10  # seconds a poll may take before the test fails (it hung)
PAUSE = 0.3  # seconds before ip makes the event a waiting poll must see


@pytest.fixture
def ns():
    require_namespaces()
    if netifc.backend != "netlink":
        pytest.skip("a Watcher is the netlink backend's")
    n = Netns("wtime")
    try:
        yield n
    finally:
        n.delete()


@pytest.mark.parametrize(
    "timeout",
    [None, float("inf"), 1e300, 1e308, 2**64, 2**1100, 10**400],
    ids=["None", "inf", "1e300", "1e308", "2**64", "2**1100", "10**400"],
)
def test_a_timeout_past_any_wait_waits_for_the_event(ns, timeout):
    with netifc.NetNS(ns.name) as net, net.Watcher() as w:
        address = "192.0.2.77/32"
        later = threading.Timer(PAUSE, ns.ip, ("addr", "add", address, "dev", "lo"))
        start = time.monotonic()
        later.start()
        try:
            events = in_new_thread(lambda: w.poll(timeout), TIMEOUT, f"poll({timeout!r})")
        finally:
            later.join()
        waited = time.monotonic() - start
    kernel = [
        f"{a['local']}/{a['prefixlen']}"
        for a in ns.ipj("addr", "show", "dev", "lo")[0]["addr_info"]
    ]
    assert address in kernel, kernel
    added = [e for e in events if isinstance(e, netifc.AddrAdded)]
    assert [str(e.addr) for e in added] == [address], events
    assert waited >= PAUSE * 0.9, waited


@pytest.mark.parametrize("timeout", [0, 0.0, 0.05, 1])
def test_a_short_timeout_returns_nothing_when_nothing_comes(ns, timeout):
    with netifc.NetNS(ns.name) as net, net.Watcher() as w:
        start = time.monotonic()
        assert in_new_thread(lambda: w.poll(timeout), TIMEOUT, f"poll({timeout!r})") == []
        waited = time.monotonic() - start
    assert timeout * 0.9 <= waited < timeout + 2, waited


@pytest.mark.parametrize("timeout", [-1, -0.001, -(10**400), float("-inf"), float("nan")])
def test_a_negative_or_nan_timeout_is_refused_by_name(ns, timeout):
    with netifc.NetNS(ns.name) as net, net.Watcher() as w:
        with pytest.raises(ValueError, match="timeout"):
            w.poll(timeout)
