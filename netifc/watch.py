"""Change events and live tables, kept by the kernel's notifications.

A ``Watcher`` opens a netlink socket subscribed to link, address and
multicast-group changes FIRST, then reads the tables (a link, address and
group dump), then applies every notification to them in order. Applying is
idempotent: a notification that tells what the tables already hold changes
nothing and makes no event, so what happened between the socket's opening and
the dump is harmless. When the kernel drops notifications (its queue for the
socket overflowed), the tables are read again and a ``Resync`` event says so.

``live()`` keeps the same tables without events: each read first applies what
is pending (one non-blocking receive when nothing is), so a change made before
the read is always in it.
"""
from __future__ import annotations

import asyncio
import os
import select
import socket
import sys
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import (TYPE_CHECKING, AsyncIterator, Deque, Dict, Iterator, List, Optional, Tuple,
                    Union, cast)

from . import _netifc
from ._netifc import Addr, Interface, NoSuchInterface

if TYPE_CHECKING:
    from . import Snapshot
    from ._netifc import _Watch

__all__ = [
    "Event", "LinkAdded", "LinkChanged", "LinkRemoved", "AddrAdded", "AddrChanged",
    "AddrRemoved", "GroupJoined", "GroupLeft", "Resync", "Watcher", "Live", "live",
]

# What _Watch.read() pairs a record with (enum nl_event_kind, then "lost").
_LINK_NEW, _LINK_DEL, _ADDR_NEW, _ADDR_DEL, _GROUP_NEW, _GROUP_DEL, _LOST = range(7)

_Batch = List[Tuple[int, Union[Interface, Addr, None]]]


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

    __slots__ = ("interface",)
    interface: Interface


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

    __slots__ = ("interface",)
    interface: Interface


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

# What an address (index, family, address, prefix length, peer) or a group is
# keyed by: its identity packed in C, a few bytes.
_addr_key = _group_key = _netifc._key


def _packed(a: Addr, text: Optional[str]) -> Optional[bytes]:
    return None if text is None else socket.inet_pton(a.family, text)


def _rezoned(a: Addr, name: str) -> Addr:
    """The same address with the zone of a renamed link."""
    return _netifc._addr(a.family, socket.inet_pton(a.family, a.address), a.prefixlen, a.index,
                         _packed(a, a.peer), _packed(a, a.broadcast), a.scope, a.flags,
                         a.preferred_lifetime, a.valid_lifetime, name)


def _family_order(addrs: List[Addr]) -> Tuple[Addr, ...]:
    """IPv4 before IPv6, as a dump lists them; each in the order learned."""
    v4: List[Addr] = [a for a in addrs if a.family == socket.AF_INET]
    if len(v4) == len(addrs):
        return tuple(v4)
    return (*v4, *(a for a in addrs if a.family != socket.AF_INET))


def _index_of(i: Interface) -> int:
    return i.index


def _open_watch() -> _Watch:
    if not hasattr(_netifc, "_Watch"):
        raise NotImplementedError(
            f"netifc: change notifications need Linux's rtnetlink, which {sys.platform} lacks")
    return _netifc._Watch()


def _netns() -> Optional[str]:
    try:
        return os.readlink("/proc/thread-self/ns/net")
    except OSError:
        return None


class _Tables:
    """Links by index, and each link's addresses and groups, applied to one
    notification at a time in O(1) (O(k) to drop a link with k addresses)."""

    __slots__ = ("links", "by_name", "addrs", "groups", "netns", "stale", "_links_t",
                 "_addrs_t", "_groups_t", "_snap")

    def __init__(self) -> None:
        self.netns = _netns()
        self.stale = False      # notifications were lost and the tables not read since
        self.links: Dict[int, Interface] = {}
        self.by_name: Dict[str, Interface] = {}
        self.addrs: Dict[int, Dict[bytes, Addr]] = {}
        self.groups: Dict[int, Dict[bytes, Addr]] = {}
        self.load()

    def load(self) -> None:
        """Read every table again (netlink dumps, whichever backend calls use)."""
        if self.netns is not None and _netns() != self.netns:
            raise RuntimeError("netifc: live tables are read again from the network namespace"
                               " they watch; this thread is in another one")
        links, addrs = _netifc._snapshot(False, "netlink")
        _, groups = _netifc._snapshot(True, "netlink")
        self.links = {i.index: i for i in links}
        self.by_name = {i.name: i for i in links}
        self.addrs = {}
        for a in addrs:
            self.addrs.setdefault(a.index, {})[_addr_key(a)] = a
        self.groups = {}
        for g in groups:
            self.groups.setdefault(g.index, {})[_group_key(g)] = g
        self.changed()

    def changed(self) -> None:
        self._links_t: Optional[Tuple[Interface, ...]] = None
        self._addrs_t: Optional[Tuple[Addr, ...]] = None
        self._groups_t: Optional[Tuple[Addr, ...]] = None
        self._snap: Optional[Snapshot] = None

    # -- reads: tuples made once per change ---------------------------------------

    def interfaces(self) -> Tuple[Interface, ...]:
        if self._links_t is None:
            self._links_t = tuple(sorted(self.links.values(), key=_index_of))
        return self._links_t

    def _flat(self, table: Dict[int, Dict[bytes, Addr]]) -> Tuple[Addr, ...]:
        """Every link's records, IPv4 then IPv6, links in index order; only those
        of links in the table (a group can come just before its link)."""
        order: List[Dict[bytes, Addr]] = [table[i.index] for i in self.interfaces()
                                          if i.index in table]
        v4: List[Addr] = [a for d in order for a in d.values() if a.family == socket.AF_INET]
        return (*v4, *(a for d in order for a in d.values() if a.family != socket.AF_INET))

    def all_addrs(self) -> Tuple[Addr, ...]:
        if self._addrs_t is None:
            self._addrs_t = self._flat(self.addrs)
        return self._addrs_t

    def all_groups(self) -> Tuple[Addr, ...]:
        if self._groups_t is None:
            self._groups_t = self._flat(self.groups)
        return self._groups_t

    def snapshot(self) -> Snapshot:
        if self._snap is None:
            from . import Snapshot
            self._snap = Snapshot(self.interfaces(), self.all_addrs())
        return self._snap

    def resync(self) -> Resync:
        self.stale = True       # until a read succeeds: a failed one is tried again
        self.load()
        self.stale = False
        return Resync(self.interfaces(), self.all_addrs(), self.all_groups())

    # -- notifications ---------------------------------------------------------------

    def apply(self, batch: _Batch, out: Optional[List[Event]]) -> None:
        """Apply one read's notifications in order; their events go to out (None:
        none are made). A batch that lost some is replaced by a new read (and
        so is any batch, or none, while that read has not succeeded)."""
        if self.stale or batch[-1][0] == _LOST:
            event = self.resync()
            if out is not None:
                out.append(event)
            return
        self.changed()
        for kind, rec in batch:
            if kind == _LINK_NEW:
                self._link_new(cast(Interface, rec), out)
            elif kind == _LINK_DEL:
                self._link_del(cast(Interface, rec), out)
            elif kind == _ADDR_NEW:
                self._addr_new(cast(Addr, rec), out)
            elif kind == _ADDR_DEL:
                a = cast(Addr, rec)
                old = self.addrs.get(a.index, {}).pop(_addr_key(a), None)
                if old is not None and out is not None:
                    out.append(AddrRemoved(old))
            elif kind == _GROUP_NEW:
                self._group_new(cast(Addr, rec), out)
            elif kind == _GROUP_DEL:
                g = cast(Addr, rec)
                old = self.groups.get(g.index, {}).pop(_group_key(g), None)
                if old is not None and out is not None:
                    out.append(GroupLeft(old))

    def _group_new(self, new: Addr, out: Optional[List[Event]]) -> None:
        key = _group_key(new)
        mine = self.groups.setdefault(new.index, {})
        if key not in mine and out is not None:
            out.append(GroupJoined(new))
        mine[key] = new

    def _link_new(self, new: Interface, out: Optional[List[Event]]) -> None:
        old = self.links.get(new.index)
        if old == new:
            return
        self.links[new.index] = new
        if old is not None and old.name != new.name:
            if self.by_name.get(old.name) is old:
                del self.by_name[old.name]
            self._rename_zones(new.index, new.name)
        self.by_name[new.name] = new
        if out is not None:
            out.append(LinkAdded(new) if old is None else LinkChanged(old, new))

    def _rename_zones(self, index: int, name: str) -> None:
        addrs = self.addrs.get(index, {})
        for key, a in addrs.items():
            if a.zone:
                addrs[key] = _rezoned(a, name)
        groups = self.groups.get(index, {})
        for gkey, g in groups.items():
            if g.zone:
                groups[gkey] = _rezoned(g, name)

    def _link_del(self, rec: Interface, out: Optional[List[Event]]) -> None:
        old = self.links.pop(rec.index, None)
        self.addrs.pop(rec.index, None)
        self.groups.pop(rec.index, None)
        if old is None:
            return
        if self.by_name.get(old.name) is old:
            del self.by_name[old.name]
        if out is not None:
            out.append(LinkRemoved(old))

    def _addr_new(self, new: Addr, out: Optional[List[Event]]) -> None:
        key = _addr_key(new)
        mine = self.addrs.setdefault(new.index, {})
        old = mine.get(key)
        if old is not None and old == new and \
                (old.preferred_lifetime, old.valid_lifetime) == \
                (new.preferred_lifetime, new.valid_lifetime):
            return
        mine[key] = new
        if out is not None:
            out.append(AddrAdded(new) if old is None else AddrChanged(old, new))


# ---- Watcher ----------------------------------------------------------------------

class Watcher:
    """Change events of the network interfaces, addresses and multicast groups.

    ``poll(timeout)`` returns the events that happened; iterating blocks for the
    next one; ``async for`` waits on asyncio's loop (``add_reader``, no thread).
    Works unprivileged. A Watcher belongs to the process that made it: a forked
    child finds it closed. It watches the network namespace of the thread that
    made it. Not to be shared between threads (``live()`` is).

    Raises NotImplementedError where the platform has no netlink; OSError when
    the socket cannot be made or the tables read.
    """

    def __init__(self) -> None:
        self._watch = _open_watch()     # first: nothing that happens after the dump is missed
        try:
            self._tables = _Tables()
        except BaseException:
            self._watch.close()
            raise
        self._pending: Deque[Event] = deque()

    def fileno(self) -> int:
        """The socket's descriptor: readable when notifications are pending."""
        return int(self._watch.fileno())

    @property
    def closed(self) -> bool:
        return bool(self._watch.closed)

    @property
    def interfaces(self) -> Tuple[Interface, ...]:
        """The interfaces, with every event read applied (after poll(): as of
        its last event; iterating, also those still queued)."""
        return self._tables.interfaces()

    @property
    def addrs(self) -> Tuple[Addr, ...]:
        """The unicast addresses, with every event read applied (after poll(): as of
        its last event; iterating, also those still queued)."""
        return self._tables.all_addrs()

    @property
    def groups(self) -> Tuple[Addr, ...]:
        """The multicast groups, with every event read applied (after poll(): as of
        its last event; iterating, also those still queued)."""
        return self._tables.all_groups()

    def close(self) -> None:
        """Close the socket; iteration then ends. Closing again does nothing."""
        self._watch.close()

    def __enter__(self) -> Watcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _take(self) -> None:
        """What is pending now, without blocking, onto the queue."""
        batch = self._watch.read(self._tables.links)
        if batch or self._tables.stale:
            out: List[Event] = []
            self._tables.apply(batch, out)
            self._pending.extend(out)

    def _wait(self, timeout: Optional[float]) -> bool:
        """Block until the socket is readable or timeout seconds pass."""
        p = select.poll()
        p.register(self.fileno(), select.POLLIN)
        return bool(p.poll(None if timeout is None else max(0, int(timeout * 1000 + 0.999))))

    def poll(self, timeout: Optional[float] = None) -> List[Event]:
        """The events that happened, in order, waiting up to timeout seconds (None:
        as long as it takes; 0: not at all) for the first. [] when none came."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if not self._pending:
                self._take()
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
        while not self._pending:
            if self.closed:
                raise StopIteration
            self._take()
            if not self._pending:
                self._wait(None)
        return self._pending.popleft()

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __anext__(self) -> Event:
        while not self._pending:
            if self.closed:
                raise StopAsyncIteration
            self._take()
            if not self._pending:
                await self._readable()
        return self._pending.popleft()

    async def _readable(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        fd = self.fileno()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        loop.add_reader(fd, wake)
        try:
            await ready
        finally:
            loop.remove_reader(fd)

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"fd {self.fileno()}"
        return f"<netifc.Watcher: {state}>"


# ---- live tables ----------------------------------------------------------------------

class Live:
    """Snapshot's read API, always current: every read first applies the
    notifications pending (one non-blocking receive when there are none), so
    a change made before the read is in it. Safe to share between threads:
    each read sees one consistent table (every address's index names an
    interface of the same read). A forked child opens its own socket and reads
    the tables again at its first read.
    """

    __slots__ = ("_lock", "_watch", "_tables", "__weakref__")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        _every_live.add(self)
        self._watch = _open_watch()
        try:
            self._tables = _Tables()
        except BaseException:
            self._watch.close()
            raise

    def _sync(self) -> _Tables:
        """Under the lock: the tables with every pending notification applied."""
        try:
            batch = self._watch.read(self._tables.links)
        except ValueError:
            if not self._watch.closed:
                raise
            self._reopen()      # closed by a fork (or by close(): reopening is honest too)
            return self._tables
        if batch or self._tables.stale:
            self._tables.apply(batch, None)
        return self._tables

    def _reopen(self) -> None:
        self._watch = _open_watch()
        self._tables.resync()

    @property
    def interfaces(self) -> Tuple[Interface, ...]:
        with self._lock:
            return self._sync().interfaces()

    @property
    def addrs(self) -> Tuple[Addr, ...]:
        with self._lock:
            return self._sync().all_addrs()

    @property
    def groups(self) -> Tuple[Addr, ...]:
        """Every multicast group (see README for kernels that do not tell of them)."""
        with self._lock:
            return self._sync().all_groups()

    def snapshot(self) -> Snapshot:
        """The interfaces and addresses of one read, as a Snapshot (made once
        per change): every address's index names one of its interfaces."""
        with self._lock:
            return self._sync().snapshot()

    def by_index(self, index: int) -> Interface:
        """The interface with this index.

        Raises TypeError unless index is an int (bool is refused);
        NoSuchInterface when no interface has it.
        """
        if index.__class__ is not int and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"interface index must be int, not {type(index).__name__}")
        with self._lock:    # _sync() written out: this is the read to keep fast
            t = self._tables
            try:
                batch = self._watch.read(t.links)
            except ValueError:
                batch = None
                t = self._sync()
            if batch or t.stale:
                t.apply(batch or [], None)
            found = t.links.get(index)
        if found is None:
            raise NoSuchInterface(f"no such network interface: {index!r}")
        return found

    def by_name(self, name: str) -> Interface:
        """The interface with this (primary) name.

        Raises TypeError unless name is a str; NoSuchInterface when no
        interface has it.
        """
        if not isinstance(name, str):
            raise TypeError(f"interface name must be str, not {type(name).__name__}")
        with self._lock:
            found = self._sync().by_name.get(name)
        if found is None:
            raise NoSuchInterface(f"no such network interface: {name!r}")
        return found

    def _of(self, interface: Union[Interface, int], groups: bool) -> Tuple[Addr, ...]:
        index = interface.index if isinstance(interface, Interface) else interface
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"interface index must be int, not {type(index).__name__}")
        with self._lock:
            t = self._sync()
            if index not in t.links:
                raise NoSuchInterface(f"no such network interface: {index!r}")
            if groups:
                return _family_order(list(t.groups.get(index, {}).values()))
            return _family_order(list(t.addrs.get(index, {}).values()))

    def addrs_of(self, interface: Union[Interface, int]) -> Tuple[Addr, ...]:
        """The addresses of an Interface or interface index: IPv4, then IPv6.

        Raises TypeError and NoSuchInterface as by_index() does.
        """
        return self._of(interface, False)

    def groups_of(self, interface: Union[Interface, int]) -> Tuple[Addr, ...]:
        """The multicast groups of an Interface or interface index."""
        return self._of(interface, True)

    def close(self) -> None:
        """Close the socket (a later read opens another and reads the tables again)."""
        with self._lock:
            self._watch.close()

    def __iter__(self) -> Iterator[Interface]:
        return iter(self.interfaces)

    def __len__(self) -> int:
        return len(self.interfaces)

    def __repr__(self) -> str:
        with self._lock:
            t = self._sync()
            return (f"<netifc.Live: {len(t.links)} interfaces,"
                    f" {len(t.all_addrs())} addresses>")


_every_live: weakref.WeakSet[Live] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    """A lock another thread held at the fork is held forever in the child."""
    for t in list(_every_live):
        t._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def live() -> Live:
    """Live tables of the interfaces, addresses and groups of this thread's
    network namespace (see Live).

    Raises NotImplementedError where the platform has no netlink; OSError when
    the socket cannot be made or the tables read.
    """
    return Live()
