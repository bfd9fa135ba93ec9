"""Concurrency: a NetNS closed and opened again while several threads call it;
the extension in a subinterpreter.  The answers are compared with
`ip -n NAME -j` and sysfs; the only error a call may raise is the closed
namespace's ValueError.  (Live tables read under churn from several threads:
tests/test_live.py.)  .ci/tsan.sh runs these under ThreadSanitizer."""

import json
import os
import random
import subprocess
import sys
import threading
import time

import pytest

import netifc
from conftest import require_namespaces
from nslab import TOOL_ENV, Netns

SECONDS = float(os.environ.get("NETIFC_RACE_SECONDS", "3"))
TIMEOUT = 60


@pytest.fixture(scope="module")
def racens():
    require_namespaces()
    ns = Netns("race")
    try:
        ns.batch(
            [
                "link add r0 type veth peer name r1",
                "addr add 192.0.2.7/24 dev r0",
                "link set r0 up",
                "link set r1 up",
            ]
        )
        yield ns
    finally:
        ns.delete()


def ip_names(ns):
    return sorted(link["ifname"] for link in ns.ipj("link", "show"))


def ip_inet(ns):
    return sorted(
        a["local"] for link in ns.ipj("-4", "addr", "show") for a in link.get("addr_info", [])
    )


def test_netns_closed_and_reopened_while_threads_call(racens):
    """One thread opens the namespace, hands it out, closes it, over and over;
    four threads call whichever NetNS is handed out: each answer is the
    namespace's (ip -n NAME -j), or ValueError for a closed NetNS; nothing
    else, no crash, no descriptor left behind."""
    names, inet = ip_names(racens), ip_inet(racens)
    assert names == ["lo", "r0", "r1"] and inet == ["127.0.0.1", "192.0.2.7"]
    fds_before = len(os.listdir("/proc/self/fd"))
    current = [netifc.NetNS(racens.name)]
    stop = threading.Event()
    problems, answered, refused = [], [0] * 4, [0] * 4
    made, tick = [0], threading.Condition()  # the callers' calls, told as each returns

    def one_more():
        with tick:
            made[0] += 1
            tick.notify_all()

    def calls(n):
        yield lambda: sorted(i.name for i in n.interfaces()), names
        yield lambda: sorted(a.address for a in n.interface_addrs() if a.family == 2), inet
        yield lambda: n.interface_by_name("r0").name, "r0"
        yield (
            lambda: sorted(a.address for a in n.interface_by_name("r0").addrs() if a.family == 2),
            ["192.0.2.7"],
        )
        yield lambda: sorted(i.name for i in n.snapshot().interfaces), names
        yield lambda: sorted(c.ifname for c in n.counters()), names

    def caller(k):
        try:
            while not stop.is_set():
                for call, want in calls(current[0]):
                    try:
                        got = call()
                    except ValueError as e:
                        if "closed network namespace" not in str(e):
                            raise
                        refused[k] += 1
                        one_more()
                        continue
                    if got != want:
                        problems.append((k, got, want))
                    answered[k] += 1
                    one_more()
        except BaseException as e:  # reported by the main thread
            problems.append((k, repr(e)))
            one_more()

    def live_reader():
        """A live table of each NetNS handed out: opened (its watch made in
        the namespace) and read while the NetNS may be closing."""
        try:
            while not stop.is_set():
                n = current[0]
                try:
                    lv = n.live()
                    try:
                        got = sorted(i.name for i in lv.interfaces)
                    finally:
                        lv.close()
                except ValueError as e:
                    if "closed" not in str(e):
                        raise
                    continue
                if got != names:
                    problems.append(("live", got))
        except BaseException as e:
            problems.append(("live", repr(e)))

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
    threads.append(threading.Thread(target=live_reader))
    for t in threads:
        t.start()
    deadline = time.monotonic() + SECONDS
    rounds = 0
    try:
        while time.monotonic() < deadline and not problems:
            # Each swap after a random number of the callers' calls (0 to
            # 12), so the close comes at some point of their work, not on a
            # clock; callers that stop calling fail the test.
            with tick:
                goal = made[0] + random.randint(0, 12)
                if not tick.wait_for(lambda goal=goal: made[0] >= goal or problems, TIMEOUT):
                    problems.append(
                        f"the callers made {goal - made[0]} calls too few in {TIMEOUT} s"
                    )
                    break
            old, current[0] = current[0], netifc.NetNS(racens.name)
            old.close()
            rounds += 1
    finally:
        stop.set()
        for t in threads:
            t.join(TIMEOUT)
        current[0].close()
    assert not any(t.is_alive() for t in threads), "a caller did not stop"
    assert problems == []
    assert rounds > 5 and min(answered) > 0, (rounds, answered, refused)
    assert len(os.listdir("/proc/self/fd")) <= fds_before + 1  # (listdir's own)


SUBINTERP_CODE = """
import json, netifc._netifc as m
with open({out!r}, "w") as f:
    json.dump(sorted(i.name for i in m.interfaces()), f)
"""


def run_in_subinterpreter(code):
    """Run code in a new subinterpreter: 3.13's _interpreters, 3.12's
    _xxsubinterpreters, else _testcapi.run_in_subinterp (3.11 too)."""
    for name in ("_interpreters", "_xxsubinterpreters"):
        try:
            mod = __import__(name)
        except ImportError:
            continue
        interp = mod.create()
        try:
            if hasattr(mod, "exec"):
                err = mod.exec(interp, code)
                assert err is None, err
            else:
                mod.run_string(interp, code)
        finally:
            mod.destroy(interp)
        return name
    try:
        import _testcapi
    except ImportError:
        pytest.skip(
            "neither _interpreters, _xxsubinterpreters nor _testcapi is here: "
            "no subinterpreter can be made"
        )
    assert _testcapi.run_in_subinterp(code) == 0
    return "_testcapi.run_in_subinterp"


def sysfs_names():
    return sorted(os.listdir("/sys/class/net"))


def ip_host_names():
    p = subprocess.run(
        ["ip", "-j", "link", "show"], capture_output=True, text=True, env=TOOL_ENV, check=True
    )
    return sorted(link["ifname"] for link in json.loads(p.stdout))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="compared with sysfs and ip")
def test_interfaces_in_a_subinterpreter(tmp_path):
    """netifc._netifc imports in a subinterpreter (its own module state) and
    interfaces() there gives this namespace's links, as sysfs and ip list them
    (tried again while other processes change the host's links)."""
    out = tmp_path / "names.json"
    for _ in range(5):
        before = ip_host_names()
        how = run_in_subinterpreter(SUBINTERP_CODE.format(out=str(out)))
        got = json.loads(out.read_text())
        if got == before == ip_host_names() == sysfs_names():
            break
    else:
        pytest.fail(f"{how}: {got} != {before}")
