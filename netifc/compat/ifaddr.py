"""ifaddr 0.2's API, answered by netifc: ``import netifc.compat.ifaddr as
ifaddr`` and a program written for ifaddr runs unchanged.

``get_adapters(include_unconfigured=False)`` returns what ifaddr 0.2 returns
on Linux, adapter for adapter and in the same order: an ``Adapter`` per name
that has an address -- a link's name, or the label of IPv4 addresses listed
under one (``ip addr add ... label eth0:1``), which ifaddr lists as an adapter
of its own -- in the order of the first address of each (the kernel's: every
IPv4 address, then every IPv6 address); with ``include_unconfigured=True``
every link first, in the kernel's order, addresses or not, then the labels.
Each ``IP`` is ifaddr's: an IPv4 address as a ``str``, an IPv6 address as
``(address, 0, scope_id)`` with the link's index as scope id for a
link-local address (fe80::/10) and 0 for the others, the prefix length,
the adapter's name as ``nice_name``; the address of this end of a
point-to-point link; tentative, deprecated and DAD-failed addresses too, as
the kernel lists them all.  ``Adapter.index`` is the link's index; a
label's is that of the link its part before the colon names, as ifaddr's
``if_nametoindex()`` finds it (the kernel reads a name up to its colon),
None when no link has that name.  ``repr()`` and equality are ifaddr's
(each object equal only to itself).

What differs: ``get_adapters()`` returns a ``list`` (ifaddr: a dict's values
view; both iterate alike, a list also indexes), and a name that is not valid
UTF-8 comes back surrogate-escaped, as netifc gives it, where ifaddr raises
UnicodeDecodeError.

Each answer is a presentation of one ``netifc.snapshot()`` (one link dump
and one address dump), where ifaddr makes a ctypes structure of every
``getifaddrs()`` entry, an ``ipaddress`` object of every address and
netmask, and one ``if_nametoindex()`` call per adapter.  The snapshot is
kept between calls, with a ``netifc.live()`` table of the network namespace
of the last call: the kernel is read again only when that table has been
told of a change since (a change made before a call is in its answer, as
the live table's reads have it); otherwise a call costs the objects of its
answer.  The table holds its namespace while it is kept; a call from
another namespace closes it and opens that one's.

``watch_adapters()`` is what ifaddr lacks and its users poll for: the
adapters again each time they change, from the kernel's notifications (a
``netifc.Watcher``): by iteration, ``async for`` or ``poll(timeout)``.

``watch_adapters()`` is Linux's, as ``netifc.Watcher``; ``get_adapters()``
answers wherever ``netifc.snapshot()`` does, in ifaddr's order with
rtnetlink (netifc's getifaddrs backend lists the addresses link by link).
"""

from __future__ import annotations

import ipaddress
import os
import threading
import time
from typing import Dict, Iterator, List, Optional, Tuple, Union

import netifc
from netifc.watch import timeout_seconds

__all__ = ["IP", "Adapter", "AdapterChanges", "get_adapters", "watch_adapters"]

_IPv4Address = str
"""An IPv4 address, as ifaddr gives it: ``"192.0.2.1"``."""
_IPv6Address = Tuple[str, int, int]
"""An IPv6 address, as ifaddr gives it: ``(address, flowinfo, scope_id)``."""


class Adapter:
    """A network interface, or one label of IPv4 addresses on it, with its
    addresses (ifaddr's ``Adapter``).

    ``name`` and ``nice_name`` are the link's name or the label (``eth0:1``);
    ``ips`` its addresses (``IP``), in the kernel's order; ``index`` the
    link's index (a label's: that of the link its part before the colon names,
    None when none has that name).
    """

    def __init__(
        self, name: str, nice_name: str, ips: List[IP], index: Optional[int] = None
    ) -> None:
        self.name = name
        self.nice_name = nice_name
        self.ips = ips
        self.index = index

    def __repr__(self) -> str:
        return (
            f"Adapter(name={self.name!r}, nice_name={self.nice_name!r},"
            f" ips={self.ips!r}, index={self.index!r})"
        )


class IP:
    """An address of an adapter (ifaddr's ``IP``).

    ``ip``: an IPv4 address as a ``str``, an IPv6 address as ``(address,
    flowinfo, scope_id)``; ``network_prefix``: the prefix length;
    ``nice_name``: the adapter's name.
    """

    def __init__(
        self, ip: Union[_IPv4Address, _IPv6Address], network_prefix: int, nice_name: str
    ) -> None:
        self.ip = ip
        self.network_prefix = network_prefix
        self.nice_name = nice_name

    @property
    def is_IPv4(self) -> bool:  # noqa: N802 -- ifaddr's name
        """True for an IPv4 address, False for an IPv6 one."""
        return not isinstance(self.ip, tuple)

    @property
    def is_IPv6(self) -> bool:  # noqa: N802 -- ifaddr's name
        """True for an IPv6 address, False for an IPv4 one."""
        return isinstance(self.ip, tuple)

    def __repr__(self) -> str:
        return f"IP(ip={self.ip!r}, network_prefix={self.network_prefix!r}, nice_name={self.nice_name!r})"


def _link_local(text: str) -> bool:
    """Whether glibc gives this IPv6 address a scope id: link-local unicast
    (fe80::/10) or link-local multicast (ffx2::/16)."""
    first = text.split(":", 1)[0]
    return len(first) == 4 and (
        first[:3] in ("fe8", "fe9", "fea", "feb") or (first[:2] == "ff" and first[3] == "2")
    )


_Plan = List[Tuple[str, Optional[int], List[Tuple[Union[_IPv4Address, _IPv6Address], int]]]]
"""What an answer says: (name, index, [(ip, network_prefix)]) per adapter."""


def _plan(snap: netifc.Snapshot, include_unconfigured: bool) -> _Plan:
    """The adapters of one snapshot, as ifaddr makes them of getifaddrs()."""
    links: Dict[int, str] = {}
    indexes: Dict[str, int] = {}
    for iface in snap.interfaces:
        links[iface.index] = iface.name
        indexes[iface.name] = iface.index
    adapters: Dict[str, List[Tuple[Union[_IPv4Address, _IPv6Address], int]]] = {}
    if include_unconfigured:  # getifaddrs lists each link first, address or not
        for link in indexes:
            adapters[link] = []
    for a in snap.addrs:
        index = a.index
        name = a.label or links.get(index)  # (IPv4 only has a label)
        if name is None:
            continue
        text = a.address
        ip: Union[_IPv4Address, _IPv6Address]
        if ":" in text:
            if "." in text:  # IPv4 in its last 32 bits: ipaddress writes it its own way
                text = str(ipaddress.IPv6Address(text))
            ip = (text, 0, index if _link_local(text) else 0)
        else:
            ip = text
        ips = adapters.get(name)
        if ips is None:
            ips = adapters[name] = []
        ips.append((ip, a.prefixlen))
    # ifaddr asks if_nametoindex(name), whose ioctl reads a name up to its colon
    return [(name, indexes.get(name.split(":", 1)[0]), ips) for name, ips in adapters.items()]


def _build(plan: _Plan) -> List[Adapter]:
    """New Adapter and IP objects for each call, as ifaddr makes them."""
    return [
        Adapter(name, name, [IP(ip, prefix, name) for ip, prefix in ips], index)
        for name, index, ips in plan
    ]


class _Cache:
    """The live tables of the network namespace get_adapters() was last
    called in, and the plans of the last snapshot read there: an answer is
    made anew only when the kernel has told of a change since."""

    __slots__ = ("lock", "where", "live", "seen", "fresh", "plans")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.where: Optional[Tuple[int, int]] = None
        self.live: Optional[netifc.Live] = None
        self.seen: Optional[netifc.Snapshot] = None
        self.fresh: Optional[netifc.Snapshot] = None
        self.plans: Dict[bool, _Plan] = {}

    def plan(self, include: bool) -> _Plan:
        try:
            st = os.stat("/proc/thread-self/ns/net")
        except OSError:  # no procfs: no namespace to tell, no cache
            return _plan(netifc.snapshot(), include)
        where = (st.st_dev, st.st_ino)
        with self.lock:
            if self.where != where or self.live is None or self.live.closed:
                self.forget()
                try:
                    self.live = netifc.live()
                except NotImplementedError:  # no netlink (the getifaddrs backend too)
                    return _plan(netifc.snapshot(), include)
                self.where = where
            seen = self.live.snapshot()  # first applies what the kernel told
            if seen is not self.seen:
                # A fresh dump, in the kernel's order (the live tables keep
                # theirs as they were told)
                self.seen, self.plans = seen, {}
                self.fresh = netifc.snapshot()
            plan = self.plans.get(include)
            if plan is None:
                assert self.fresh is not None
                plan = self.plans[include] = _plan(self.fresh, include)
            return plan

    def forget(self) -> None:
        """Close the live tables (holding the namespace they read)."""
        if self.live is not None:
            self.live.close()
        self.where = self.live = self.seen = self.fresh = None
        self.plans = {}


_CACHE = _Cache()


def _forked() -> None:
    """In a forked child: a lock that another thread of the parent may have held
    (the live table reads its namespace again there by itself)."""
    _CACHE.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def get_adapters(include_unconfigured: bool = False) -> List[Adapter]:
    """The adapters of this thread's network namespace, with their addresses,
    as ifaddr 0.2 gives them on Linux (see the module's documentation).

    include_unconfigured: also the links without an address.
    Raises OSError when the kernel or the OS fails.
    """
    return _build(_CACHE.plan(bool(include_unconfigured)))


# ---- being told of changes -------------------------------------------------------------


class AdapterChanges:
    """The adapters, told again each time they change: ``get_adapters()``'s
    answer, taken afresh when the kernel tells of a change of links,
    addresses or groups (a ``netifc.Watcher``'s events), handed on only when
    it differs from the one before (a change that ifaddr's answer does not
    show -- an MTU, a link's flags, an address's lifetimes -- is not told).

    ``adapters``: the last answer (the first is taken when it is made, after
    its Watcher is, so that no change after it goes untold).  Iterating
    blocks until the next change and gives its adapters; ``async for`` waits
    on asyncio's loop; ``poll(timeout)`` returns the new adapters, or None
    when nothing changed in timeout seconds.  An IPv6 address in duplicate
    address detection is listed by the kernel at once but told when DAD
    ends (or when its solicited-node group is joined, on kernels that tell
    of groups): it is told then, as the answer of that moment has it.

    Not to be shared between threads; ``close()`` may come from any thread
    and ends the iteration. A context manager, whose exit calls close().
    """

    def __init__(self, include_unconfigured: bool = False, netns: Optional[netifc.NetNS] = None):
        self._include = bool(include_unconfigured)
        self._ns = netns
        self._watcher = netifc.Watcher(netns)
        try:
            self._last = self._read()
        except BaseException:
            self._watcher.close()
            raise
        self.adapters: List[Adapter] = _build(self._last)

    def _read(self) -> _Plan:
        snap = netifc.snapshot() if self._ns is None else self._ns.snapshot()
        return _plan(snap, self._include)

    def _changed(self) -> Optional[List[Adapter]]:
        """The adapters now, when they differ from the last told (then the last)."""
        plan = self._read()
        if plan == self._last:
            return None
        self._last, self.adapters = plan, _build(plan)
        return self.adapters

    @property
    def closed(self) -> bool:
        return self._watcher.closed

    def __enter__(self) -> AdapterChanges:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def fileno(self) -> int:
        """The Watcher's socket: readable when the kernel told of a change."""
        return self._watcher.fileno()

    def close(self) -> None:
        """Close the Watcher's socket, from any thread; closing again does nothing."""
        self._watcher.close()

    def poll(self, timeout: Optional[float] = None) -> Optional[List[Adapter]]:
        """The adapters once they change, waiting up to timeout seconds (None,
        infinity or an int past float's range: as long as it takes; 0: not at
        all); None when they did not change in that time, or when close()
        came. ValueError when closed, and for a timeout below 0 or NaN;
        TypeError for one not int or float (netifc.watch.timeout_seconds())."""
        seconds = timeout_seconds(timeout, "poll")
        if self._watcher.closed:
            raise ValueError("I/O operation on a closed AdapterChanges")
        deadline = None if seconds is None else time.monotonic() + seconds
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if self._watcher.closed or not self._watcher.poll(
                left
            ):  # nothing in time, or closed meanwhile
                return None
            now = self._changed()
            if now is not None:
                return now
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def __iter__(self) -> Iterator[List[Adapter]]:
        return self

    def __next__(self) -> List[Adapter]:
        while True:
            if self._watcher.closed or not self._watcher.poll(None):
                raise StopIteration
            now = self._changed()
            if now is not None:
                return now

    def __aiter__(self) -> AdapterChanges:
        return self

    async def __anext__(self) -> List[Adapter]:
        while True:
            await self._watcher.__anext__()  # StopAsyncIteration once closed
            if self._watcher.closed:
                raise StopAsyncIteration
            self._watcher.poll(0)  # the rest of what is pending, at once
            now = self._changed()
            if now is not None:
                return now

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self.adapters)} adapters"
        return f"<netifc.compat.ifaddr.AdapterChanges: {state}>"


def watch_adapters(
    include_unconfigured: bool = False, netns: Optional[netifc.NetNS] = None
) -> AdapterChanges:
    """The adapters of this thread's network namespace (or of ``netns``, a
    ``netifc.NetNS``), told again each time they change: see AdapterChanges.

    Raises NotImplementedError where the platform has no netlink; OSError when
    the socket cannot be made or the tables read.
    """
    return AdapterChanges(include_unconfigured, netns)
