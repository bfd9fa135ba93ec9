"""python -m netifc.bench --wait: how long a wait takes to return after the
kernel's change, at a namespace of a few links and at one of many.

Each round blocks a wait in a thread of its own (wait_until() on a link's
MTU, wait_addr() on an IPv4 address), then, once it blocks on the kernel's
notifications, makes the change from this thread by one ioctl
(SIOCSIFMTU, SIOCSIFADDR): the latency is from just before the ioctl to
the wait's return, as the waiting thread sees it. The ioctl returns after
the kernel has queued its notification, so the figure covers the whole way:
the notification, the live table's read, the check, the thread's wake-up.
"""

from __future__ import annotations

import fcntl
import socket
import statistics
import struct
import threading
import time
from typing import Callable, Dict, List, Optional

import netifc
import netifc.wait

SIOCSIFADDR = 0x8916
SIOCSIFMTU = 0x8922
ROUNDS = 50


def _ifreq_mtu(name: str, mtu: int) -> bytes:
    return struct.pack("16si20x", name.encode(), mtu)


def _ifreq_addr(name: str, address: str) -> bytes:
    sin = struct.pack("HH4s8x", socket.AF_INET, 0, socket.inet_aton(address))
    return struct.pack("16s16s8x", name.encode(), sin)


def _round(
    wait: Callable[[], object], change: Callable[[], None], blocked: threading.Event
) -> float:
    """Seconds from the change to the wait's return."""
    out: Dict[str, float] = {}
    failed: List[BaseException] = []

    def run() -> None:
        try:
            wait()
            out["at"] = time.perf_counter()
        except BaseException as e:  # handed to the caller
            failed.append(e)

    blocked.clear()
    t = threading.Thread(target=run)
    t.start()
    if not blocked.wait(30):
        raise RuntimeError("the wait did not block within 30 s")
    t0 = time.perf_counter()
    change()
    t.join(60)
    if failed:
        raise failed[0]
    return out["at"] - t0


def latency(netns: str, link: str = "a0", rounds: int = ROUNDS) -> Dict[str, Dict[str, float]]:
    """{kind: {median_ms, p90_ms, max_ms, rounds}} in the namespace named
    netns, which this thread is in (its ioctls are made there)."""
    blocked = threading.Event()
    block = netifc.wait._block

    def marked(fds: List[int], left: Optional[float]) -> None:
        blocked.set()  # the wait checked, and now blocks on the notifications
        block(fds, left)

    netifc.wait._block = marked
    found: Dict[str, List[float]] = {"link_mtu": [], "addr_added": []}
    try:
        with netifc.NetNS(netns) as ns, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            index = ns.interface_by_name(link).index
            for i in range(rounds):
                mtu = 1400 if ns.interface_by_index(index).mtu != 1400 else 1500
                address = f"198.18.{i // 250}.{i % 250 + 1}"

                def mtu_is(lv: netifc.Live, want: int = mtu) -> bool:
                    return lv.by_index(index).mtu == want

                def wait_mtu() -> object:
                    return netifc.wait_until(mtu_is, timeout=30, netns=ns)

                def set_mtu(want: int = mtu) -> None:
                    fcntl.ioctl(s, SIOCSIFMTU, _ifreq_mtu(link, want))

                def wait_addr(want: str = address) -> object:
                    return netifc.wait_addr(index, 4, address=want, timeout=30, netns=ns)

                def set_addr(want: str = address) -> None:
                    fcntl.ioctl(s, SIOCSIFADDR, _ifreq_addr(link, want))

                found["link_mtu"].append(_round(wait_mtu, set_mtu, blocked))
                found["addr_added"].append(_round(wait_addr, set_addr, blocked))
    finally:
        netifc.wait._block = block
    return {kind: _summary(v) for kind, v in found.items()}


def _summary(seconds: List[float]) -> Dict[str, float]:
    ms = sorted(x * 1000 for x in seconds)
    return {
        "median_ms": round(statistics.median(ms), 3),
        "p90_ms": round(ms[int(len(ms) * 0.9) - 1], 3),
        "max_ms": round(ms[-1], 3),
        "rounds": len(ms),
    }


def report(pairs: int, result: Dict[str, Dict[str, float]]) -> None:
    for kind, s in result.items():
        print(
            f"wait {kind:<10} at {pairs:>5} veth pairs: median {s['median_ms']:.2f} ms,"
            f" p90 {s['p90_ms']:.2f} ms, max {s['max_ms']:.2f} ms ({s['rounds']:.0f} rounds)"
        )
