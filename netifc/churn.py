"""Address churn in a network namespace, for the benchmark's ``--churn`` and the tests.

``python -m netifc.churn RATE`` (run inside the namespace, root) adds and
removes addresses at about RATE changes a second, round-robin over the
namespace's links other than loopback: IPv4 ``10.250.0.0/16`` and IPv6
``fd77::/64`` host addresses, at most ``ALIVE`` of them at a time.  It asks
for no acknowledgements (one send per change), so its own cost stays small.
It prints ``ready`` once started; on SIGTERM or SIGINT it prints ``changes N seconds T`` and ends.

``Churn(ns, rate)`` runs it in namespace ``ns`` for a ``with`` block, and
``is_churn(text)`` tells its addresses from the namespace's own.
"""

import ipaddress
import signal
import socket
import struct
import subprocess
import sys
import time
from collections import deque
from types import FrameType, TracebackType
from typing import Callable, Deque, List, Optional, Tuple, Type

RTM_NEWADDR, RTM_DELADDR = 20, 21
NLM_F_REQUEST, NLM_F_EXCL, NLM_F_CREATE = 0x1, 0x200, 0x400
IFA_ADDRESS, IFA_LOCAL = 1, 2
ALIVE = 64  # churn addresses present at a time
NET4 = ipaddress.ip_network("10.250.0.0/16")
NET6 = ipaddress.ip_network("fd77::/64")


def is_churn(address: str) -> bool:
    """Whether address (text, no prefix or zone) is one this module adds."""
    a = ipaddress.ip_address(address.split("%")[0])
    return a in (NET4 if a.version == 4 else NET6)


def _message(kind: int, family: int, index: int, address: str, seq: int) -> bytes:
    raw = socket.inet_pton(family, address)
    types = (IFA_LOCAL, IFA_ADDRESS) if family == socket.AF_INET else (IFA_ADDRESS,)
    attrs = b"".join(struct.pack("HH", 4 + len(raw), t) + raw for t in types)
    prefixlen = 32 if family == socket.AF_INET else 128
    body = struct.pack("BBBBI", family, prefixlen, 0, 0, index) + attrs
    flags = NLM_F_REQUEST | (NLM_F_CREATE | NLM_F_EXCL if kind == RTM_NEWADDR else 0)
    return struct.pack("IHHII", 16 + len(body), kind, flags, seq, 0) + body


def _address(k: int) -> Tuple[int, str]:
    if k % 2:
        return socket.AF_INET, str(NET4[1 + k // 2 % 65000])
    return socket.AF_INET6, str(NET6[1 + k // 2])


class _Stop(Exception):
    pass


def _stop(signum: int, frame: Optional[FrameType]) -> None:
    raise _Stop


def _paced(rate: float, change: Callable[[int], None]) -> Tuple[int, float]:
    """change(k) for k = 0, 1, ... at `rate` a second until SIGTERM/SIGINT:
    (changes made, seconds)."""
    made = 0
    start = time.monotonic()
    try:
        while True:
            due = int((time.monotonic() - start) * rate)
            while made < due:
                change(made)
                made += 1
            time.sleep(0.0005)
    except _Stop:
        return made, time.monotonic() - start


def run(rate: float) -> Tuple[int, float]:
    """Addresses added and removed until SIGTERM/SIGINT: (changes, seconds)."""
    links = [i for i, name in socket.if_nameindex() if name != "lo"]
    if not links:
        raise SystemExit("netifc.churn: no link but loopback to change")
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_NONBLOCK, 0)
    alive: Deque[Tuple[int, int, str]] = deque()
    added = [0]

    def change(k: int) -> None:
        if len(alive) < ALIVE:
            family, address = _address(added[0])
            alive.append((links[added[0] % len(links)], family, address))
            index, kind = alive[-1][0], RTM_NEWADDR
            added[0] += 1
        else:
            index, family, address = alive.popleft()
            kind = RTM_DELADDR
        try:
            s.send(_message(kind, family, index, address, k + 1))
        except BlockingIOError:
            pass
        try:
            while s.recv(65536):  # errors only (no acknowledgements asked)
                pass
        except BlockingIOError:
            pass

    try:
        return _paced(rate, change)
    finally:
        s.setblocking(True)  # what it leaves goes: the namespace as it was
        for index, family, address in alive:
            s.send(_message(RTM_DELADDR, family, index, address, 0))
        s.close()


def run_links(rate: float) -> Tuple[int, float]:
    """Veth pairs added and removed until SIGTERM/SIGINT: (changes, seconds)."""
    ip = subprocess.Popen(["ip", "-force", "-batch", "-"], stdin=subprocess.PIPE, text=True)
    assert ip.stdin is not None
    out = ip.stdin

    def change(k: int) -> None:
        pair = k // 2
        out.write(
            f"link add ch{pair} type veth peer name cp{pair}\n"
            if k % 2 == 0
            else f"link del ch{pair}\n"
        )
        out.flush()

    made = 0
    try:
        made, seconds = _paced(rate, change)
        return made, seconds
    finally:
        if made % 2:  # the last pair added goes too
            out.write(f"link del ch{made // 2}\n")
        out.close()
        ip.wait()


class Churn:
    """``python -m netifc.churn [--links] rate`` in namespace ns (a name
    under /run/netns) for a with block; ``rate`` after it: the changes a
    second it reached."""

    def __init__(self, ns: str, rate: float, links: bool = False) -> None:
        self.ns, self.asked, self.rate, self.links = ns, rate, 0.0, links
        self._proc: Optional[subprocess.Popen[str]] = None

    def __enter__(self) -> "Churn":
        cmd = ["ip", "netns", "exec", self.ns, sys.executable, "-m", "netifc.churn"]
        cmd += ["--links"] * self.links + [str(self.asked)]
        self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        if self._proc.stdout.readline() != "ready\n":  # its signal handlers are set
            self._proc.kill()
            self._proc.communicate()
            raise RuntimeError(f"netifc.churn did not start in namespace {self.ns}")
        return self

    def __exit__(
        self,
        tp: Optional[Type[BaseException]],
        value: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        assert self._proc is not None
        self._proc.send_signal(signal.SIGTERM)
        try:
            out, _ = self._proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.communicate()
            raise RuntimeError("netifc.churn did not end within 30 s of SIGTERM") from None
        words = out.split()
        if self._proc.returncode != 0 or len(words) != 4:
            raise RuntimeError(f"netifc.churn failed ({self._proc.returncode}): {out!r}")
        self.changes, self.seconds = int(words[1]), float(words[3])
        self.rate = self.changes / self.seconds if self.seconds else 0.0


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    links = args[:1] == ["--links"]
    args = args[1:] if links else args
    if len(args) != 1:
        print("usage: python -m netifc.churn [--links] RATE", file=sys.stderr)
        return 2
    try:
        rate = float(args[0])
    except ValueError:
        rate = -1.0
    if not rate > 0 or rate == float("inf"):
        print(f"netifc.churn: RATE must be a positive number, not {args[0]!r}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    print("ready", flush=True)
    changes, seconds = run_links(rate) if links else run(rate)
    print(f"changes {changes} seconds {seconds:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
