"""Change events and live tables, kept by the kernel's notifications.

A ``Watcher`` opens a netlink socket subscribed to link, address and
multicast-group changes FIRST, then reads the tables (a link, address and
group dump), then applies every notification to them in order. Applying is
idempotent: a notification that tells what the tables already hold changes
nothing and makes no event, so what happened between the socket's opening and
the dump is harmless. When the kernel drops notifications (its queue for the
socket overflowed), the tables are read again and a ``Resync`` event says so.

``live()`` keeps the same tables without events: each read first applies what
is pending (one zero-timeout poll() when nothing is), so a change made before
the read is always in it. The tables themselves are C's (``_netifc._Tables``,
csrc/python/live.c): this module makes the events' classes and the Python API.
"""

from __future__ import annotations

import asyncio
import math
import os
import select
import sys
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    AsyncIterator,
    Deque,
    Dict,
    Iterator,
    List,
    Optional,
    Set,
    Tuple,
    cast,
)

from . import _netifc
from ._netifc import Addr, Interface
from .closing import Closing
from .namespace import Namespace, _ns_of
from .snapshot import Snapshot

if TYPE_CHECKING:
    from ._netifc import _Tables

__all__ = [
    "Event",
    "LinkAdded",
    "LinkChanged",
    "LinkRemoved",
    "AddrAdded",
    "AddrChanged",
    "AddrRemoved",
    "GroupJoined",
    "GroupLeft",
    "Resync",
    "Watcher",
    "Live",
    "live",
    "timeout_seconds",
]

# ---- events --------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """A change of the tables, as the kernel told it. Immutable, equal by value,
    picklable."""

    __slots__ = ()

    def __setstate__(self, state: Tuple[None, Dict[str, object]]) -> None:
        """Unpickling: the fields a frozen event is made with."""
        for name, value in state[1].items():
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class LinkAdded(Event):
    """A new interface."""

    __slots__ = ("link",)
    link: Interface


@dataclass(frozen=True)
class LinkChanged(Event):
    """An interface whose fields changed (flags, name, MTU, address, ...)."""

    __slots__ = ("old", "new")
    old: Interface
    new: Interface


@dataclass(frozen=True)
class LinkRemoved(Event):
    """An interface that is gone (deleted, or moved to another namespace): its
    last record. Its addresses and groups went before it."""

    __slots__ = ("link",)
    link: Interface


@dataclass(frozen=True)
class AddrAdded(Event):
    """A new unicast address."""

    __slots__ = ("addr",)
    addr: Addr


@dataclass(frozen=True)
class AddrChanged(Event):
    """An address whose flags, scope, broadcast or lifetimes changed (a
    secondary promoted to primary, DAD done, lifetimes renewed)."""

    __slots__ = ("old", "new")
    old: Addr
    new: Addr


@dataclass(frozen=True)
class AddrRemoved(Event):
    """An address that is gone: its last record."""

    __slots__ = ("addr",)
    addr: Addr


@dataclass(frozen=True)
class GroupJoined(Event):
    """A multicast group an interface joined."""

    __slots__ = ("group",)
    group: Addr


@dataclass(frozen=True)
class GroupLeft(Event):
    """A multicast group an interface left."""

    __slots__ = ("group",)
    group: Addr


@dataclass(frozen=True)
class Resync(Event):
    """The kernel dropped notifications, so the tables were read again; here
    they are, as the read found them. Events go on from there."""

    __slots__ = ("interfaces", "addrs", "groups")
    interfaces: Tuple[Interface, ...]
    addrs: Tuple[Addr, ...]
    groups: Tuple[Addr, ...]


# ---- the tables ----------------------------------------------------------------------


def _kind(cls: type) -> Tuple[type, Tuple[str, ...]]:
    """An event class and its fields' slot names, in order: what the C tables
    make its events with."""
    return cls, cast(Tuple[str, ...], getattr(cls, "__slots__"))  # noqa: B009 (mypy: type has none)


_EVENTS = tuple(
    _kind(cls)
    for cls in (
        LinkAdded,
        LinkChanged,
        LinkRemoved,
        AddrAdded,
        AddrChanged,
        AddrRemoved,
        GroupJoined,
        GroupLeft,
        Resync,
    )
)

if TYPE_CHECKING:
    _Base = _netifc._Tables
else:
    _Base = getattr(_netifc, "_Tables", object)  # Linux only


def _no_netlink() -> NotImplementedError:
    return NotImplementedError(
        f"netifc: change notifications need Linux's rtnetlink, which {sys.platform} lacks"
    )


def _tables(live: bool, netns: Optional[Namespace] = None) -> _Tables:
    """The C tables: a socket subscribed to changes first, then the dumps (in
    the thread's network namespace, or in netns)."""
    ns = _ns_of(netns, "Watcher")
    if not hasattr(_Base, "by_index"):
        raise _no_netlink()
    return _Base(live) if ns is None else _Base(live, netns=ns)


# ---- Watcher ----------------------------------------------------------------------


_LOCK = threading.RLock()
"""Every wake's descriptors and counts are changed under this one lock, and
the thread that forks holds it across the fork: so a child never closes a
number that a thread of the parent has closed and reused meanwhile (a wake
made, closed or finalized in another thread as the fork came), and, being
one, it is never taken while another is held (a finalizer that the cyclic
collector runs inside a wake's work takes it again, which an RLock allows;
so does a signal handler's close())."""


class _Wake:
    """What ends a Watcher's waits when it is closed, from any thread: a pipe
    whose write end ``close()`` closes. A wait polls the read end beside the
    socket; once the write end is closed the read end is readable (end of
    file) for good, so a wait begun before the close or after ends at once.
    The read end is closed by whichever comes last of ``close()`` and the
    last blocking wait, and an event loop is given copies (``dup``) that its
    wait closes after removing them: no wait ever polls a descriptor number
    that a close may have freed for reuse. A forked child closes the pipe
    (its Watcher is closed there, as the socket is)."""

    __slots__ = ("_r", "_w", "_waits", "_copies", "closing", "__weakref__")

    def __init__(self) -> None:
        self._r = self._w = -1
        self._waits = 0
        self._copies: Set[Tuple[int, int]] = set()
        self.closing = False
        with _LOCK:  # no fork between the pipe and its listing
            self._r, self._w = os.pipe()  # not inherited by exec (O_CLOEXEC)
            _WAKES.add(self)

    def enter(self) -> Optional[int]:
        """The read end, for one blocking wait, which leave()s after; None once closing."""
        with _LOCK:
            self._waits += 1  # first: a close() from a signal handler keeps the read end then
            if not self.closing:
                return self._r
        self.leave()
        return None

    def leave(self) -> None:
        with _LOCK:
            self._waits -= 1
            if self.closing and not self._waits:
                self._close_read_end()

    def copies(self, fd: int) -> Optional[Tuple[int, int]]:
        """Copies of the socket fd and of the read end, for an event loop's
        readers (uncopy() when removed); None once closing (or fd closed)."""
        with _LOCK:
            try:
                sock = os.dup(fd)  # fd closed meanwhile, and reused: then the read end ends it
            except OSError:
                return None
            if not self.closing:
                pair = (sock, os.dup(self._r))
                self._copies.add(pair)
                return pair
            os.close(sock)
            return None

    def uncopy(self, pair: Tuple[int, int]) -> None:
        with _LOCK:
            if pair in self._copies:  # (not when a fork closed them)
                self._copies.discard(pair)
                for fd in pair:
                    os.close(fd)

    def set(self) -> None:
        """Closing: every wait ends, now and from now on."""
        with _LOCK:
            self.closing = True
            if self._w >= 0:
                os.close(self._w)
                self._w = -1
            if not self._waits:
                self._close_read_end()

    def _close_read_end(self) -> None:
        if self._r >= 0:
            os.close(self._r)
            self._r = -1

    def _close_copies(self) -> None:
        for pair in self._copies:
            for fd in pair:
                os.close(fd)
        self._copies = set()

    def _end(self) -> None:
        """Every descriptor closed, each marked closed as it is (for a fork to
        come), where no wait can be under way: in a forked child, whose only
        thread waits on none of it, or in the finalizer. Under _LOCK."""
        self._waits = 0
        self._close_copies()
        self.set()

    def __del__(self) -> None:
        with _LOCK:
            self._end()


_WAKES: weakref.WeakSet[_Wake] = weakref.WeakSet()


def _before_fork() -> None:
    """No wake made, closed or finalized at the fork (see _LOCK)."""
    _LOCK.acquire()


def _after_fork_in_parent() -> None:
    _LOCK.release()


def _forked() -> None:
    try:
        for wake in list(_WAKES):
            wake._end()
    finally:
        _LOCK.release()  # this thread's, taken before the fork


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_forked
    )

_POLL_MAX_MS = 2**31 - 1
"""The longest wait one select.poll() takes (its timeout is a C int of
milliseconds, about 24.8 days); a longer one waits again until its deadline."""


def timeout_seconds(timeout: Optional[float], who: str = "timeout") -> Optional[float]:
    """netifc's one rule for a ``timeout`` argument, which every call that
    waits applies (``Watcher.poll()``, the ``wait_*()`` and ``async_wait_*()``
    calls, ifaddr's ``AdapterChanges.poll()``, ``netifc wait --timeout``):
    the seconds to wait as a float, 0 for not at all, or None for no end --
    for None, infinity, and an int too large for a float (``10**400``);
    any other number is a deadline, however far.

    TypeError, naming ``who``, for anything but an int, a float or None (a
    bool too: ``True`` is no number of seconds); ValueError for a negative
    number (``-inf`` too) or NaN."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(
            f"{who}: timeout must be a number of seconds or None, not {type(timeout).__name__}"
        )
    if timeout != timeout or timeout < 0:
        raise ValueError(f"{who}: timeout must be 0 or more seconds, or None, not {timeout!r}")
    try:
        seconds = float(timeout)
    except OverflowError:  # an int past float's range: longer than any wait
        return None
    return None if seconds == float("inf") else seconds


def _poll_ms(left: Optional[float]) -> Optional[int]:
    """select.poll()'s timeout for left seconds (None: no end): rounded up to
    a millisecond, at most _POLL_MAX_MS (a far deadline, 1e308 s, included)."""
    if left is None:
        return None
    if left >= _POLL_MAX_MS / 1000:
        return _POLL_MAX_MS
    return max(0, math.ceil(left * 1000))


class Watcher(Closing):
    """Change events of the network interfaces, addresses and multicast groups.

    ``poll(timeout)`` returns the events that happened; iterating blocks for the
    next one; ``async for`` waits on asyncio's loop (``add_reader``, no thread).
    Works unprivileged. A context manager, whose exit calls ``close()``.
    A Watcher belongs to the process that made it: a forked
    child finds it closed. It watches the network namespace of the thread that
    made it, or the ``netns`` given (a ``netifc.NetNS``, which it needs open to
    read its tables again). Not to be shared between threads (``live()`` is),
    but ``close()`` may come from any thread: it ends a ``for``, an ``async
    for`` and a ``poll()`` waiting (which returns ``[]``) at once; ``poll()``
    on a closed Watcher raises ValueError.
    On kernels that tell of no group changes (older kernels refuse to join
    their notification groups), each read of events compares the groups
    with a dump, and tells the differences as GroupJoined and GroupLeft then.

    Raises NotImplementedError where the platform has no netlink; OSError when
    the socket cannot be made or the tables read.
    """

    def __init__(self, netns: Optional[Namespace] = None) -> None:
        self._tables = _tables(False, netns)
        self._pending: Deque[Event] = deque()
        self._wake = _Wake()

    def fileno(self) -> int:
        """The socket's descriptor: readable when notifications are pending."""
        return int(self._tables.fileno())

    @property
    def closed(self) -> bool:
        return self._wake.closing or bool(self._tables.closed)

    @property
    def interfaces(self) -> Tuple[Interface, ...]:
        """The interfaces, with every event read applied (after poll(): as of
        its last event; iterating, also those still queued)."""
        return self._tables.interfaces

    @property
    def addrs(self) -> Tuple[Addr, ...]:
        """The unicast addresses, with every event read applied (after poll(): as of
        its last event; iterating, also those still queued)."""
        return self._tables.addrs

    @property
    def groups(self) -> Tuple[Addr, ...]:
        """The multicast groups, with every event read applied (after poll(): as of
        its last event; iterating, also those still queued)."""
        return self._tables.groups

    def close(self) -> None:
        """Close the socket, from any thread: iteration (``for``, ``async for``)
        then ends, and a poll() waiting returns []. Closing again does nothing."""
        self._tables.close()
        self._wake.set()

    def _take(self) -> bool:
        """What is pending now, without blocking, onto the queue; False when
        the Watcher is closed (perhaps by another thread meanwhile)."""
        if self.closed:
            return False
        try:
            self._pending.extend(cast(List[Event], self._tables._events(_EVENTS)))
        except ValueError:
            if self.closed:
                return False
            raise
        return True

    def _wait(self, timeout: Optional[float]) -> None:
        """Block until the socket is readable, the Watcher closed, or timeout seconds pass."""
        try:
            fd = self.fileno()
        except ValueError:  # closed meanwhile
            return
        wake = self._wake.enter()
        if wake is None:
            return
        try:
            p = select.poll()
            p.register(fd, select.POLLIN)  # (closed and reused meanwhile: wake ends it)
            p.register(wake, select.POLLIN)
            p.poll(_poll_ms(timeout))
        finally:
            self._wake.leave()

    def poll(self, timeout: Optional[float] = None) -> List[Event]:
        """The events that happened, in order, waiting up to timeout seconds (None,
        infinity or an int past float's range: as long as it takes; 0: not at
        all) for the first. [] when none came, or when close() came while it
        waited. ValueError once closed, and for a timeout below 0 or NaN;
        TypeError for one not int or float (see timeout_seconds())."""
        seconds = timeout_seconds(timeout, "poll")
        if self.closed:
            raise ValueError("I/O operation on a closed netlink watch")
        deadline = None if seconds is None else time.monotonic() + seconds
        while True:
            if not self._pending and not self._take():
                return []
            if self._pending:
                out = list(self._pending)
                self._pending.clear()
                return out
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return []
            self._wait(left)

    def __iter__(self) -> Iterator[Event]:
        return self

    def __next__(self) -> Event:
        while not self._pending or self.closed:
            if not self._take():
                raise StopIteration
            if not self._pending:
                self._wait(None)
        return self._pending.popleft()

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __anext__(self) -> Event:
        while not self._pending or self.closed:
            if not self._take():
                raise StopAsyncIteration
            if not self._pending:
                await self._readable()
        return self._pending.popleft()

    async def _readable(self) -> None:
        """Until the socket is readable or the Watcher closed, on the running loop."""
        try:
            fd = self.fileno()
        except ValueError:  # closed meanwhile
            return
        fds = self._wake.copies(fd)
        if fds is None:
            return
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            for each in fds:
                loop.add_reader(each, wake)
            await ready
        finally:
            for each in fds:
                loop.remove_reader(each)
            self._wake.uncopy(fds)

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"fd {self.fileno()}"
        return f"<netifc.Watcher: {state}>"


# ---- live tables ----------------------------------------------------------------------


class Live(Closing, _Base):
    """Snapshot's read API, always current: every read first applies the
    notifications pending (one zero-timeout poll() when there are none), so
    a change made before the read is in it. Safe to share between threads:
    each read sees one consistent table (every address's index names an
    interface of the same read). A forked child, or a read after close(),
    opens its own socket and reads the tables again. A context manager,
    whose exit calls close(). ``Live(netns)`` keeps
    those of a ``netifc.NetNS`` (which it needs open to read them again).

    ``interfaces``, ``addrs``, ``by_index()``, ``by_name()``, ``addrs_of()``
    and ``groups_of()`` are the C tables' own; ``groups`` and ``groups_of()``
    keep the groups from their first call on (one more dump then). On
    kernels that tell of no group changes (older kernels refuse to join
    their notification groups), each read of ``groups`` or ``groups_of()``
    dumps the groups instead: current, at the cost of a dump.

    What the kernel lists before it tells is in the tables too: when a link
    changes (up, carrier, MTU), or an address's solicited-node group is
    joined, the link's addresses (and kept groups) are asked for at once,
    one filtered request each, so an address still in DAD (listed, told
    only when DAD ends) is in them as a fresh dump has it.
    """

    __slots__ = ("__weakref__",)

    def __new__(cls, netns: Optional[Namespace] = None) -> Live:
        ns = _ns_of(netns, "live")
        if not hasattr(_Base, "by_index"):
            raise _no_netlink()
        if ns is None:
            return _Base.__new__(cls, True)
        return _Base.__new__(cls, True, netns=ns)

    def snapshot(self) -> Snapshot:
        """The interfaces and addresses of one read, as a Snapshot (made once
        per change): every address's index names one of its interfaces."""
        interfaces, addrs, kept = self._current()
        if isinstance(kept, Snapshot) and kept.interfaces is interfaces and kept.addrs is addrs:
            return kept
        snap = Snapshot(interfaces, addrs)
        self._cache = snap
        return snap

    def __iter__(self) -> Iterator[Interface]:
        return iter(self.interfaces)

    def __len__(self) -> int:
        return len(self.interfaces)

    def __repr__(self) -> str:
        interfaces, addrs, _ = self._current()
        return f"<netifc.Live: {len(interfaces)} interfaces, {len(addrs)} addresses>"


def live(netns: Optional[Namespace] = None) -> Live:
    """Live tables of the interfaces, addresses and groups of this thread's
    network namespace, or of ``netns`` (a ``netifc.NetNS``; see Live).

    Raises NotImplementedError where the platform has no netlink; OSError when
    the socket cannot be made or the tables read.
    """
    return Live(netns)
