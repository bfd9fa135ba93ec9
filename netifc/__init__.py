"""netifc: network interfaces, their addresses and multicast groups, from the kernel.

Go's ``net`` interface API on a C core::

    >>> import netifc
    >>> lo = netifc.interface_by_name("lo")
    >>> str(lo.flags)
    'up|loopback|running'
    >>> [str(a) for a in lo.addrs()]
    ['127.0.0.1/8', '::1/128']
"""
from __future__ import annotations

import enum as _enum
import os as _os
import warnings as _warnings
from typing import TYPE_CHECKING, Final, Iterator

try:
    from . import _netifc
except ImportError:
    # A source tree holds netifc/ without the compiled extension until it is
    # built; Python's own message would speak of a circular import.
    import importlib.util as _util

    if _util.find_spec(f"{__name__}._netifc") is not None:
        raise   # built, but it does not load: its own message says why
    raise ModuleNotFoundError(
        f"netifc's C extension netifc._netifc is not built in {_os.path.dirname(__file__)}"
        " (a source tree?). Build it there with `pip install -e .` (in a venv) or"
        " `python setup.py build_ext --inplace` (setuptools>=77), or run from outside"
        " the source tree to import an installed netifc.",
        name=f"{__name__}._netifc",
    ) from None
from ._netifc import (
    Addr,
    Interface,
    NoSuchInterface,
    interface_addrs,
    interface_by_index,
    interface_by_name,
    interfaces,
)
from ._netifc import Counters, LinkSettings, counters
from .watch import (
    AddrAdded,
    AddrChanged,
    AddrRemoved,
    Event,
    GroupJoined,
    GroupLeft,
    LinkAdded,
    LinkChanged,
    LinkRemoved,
    Live,
    Resync,
    Watcher,
    live,
)
from .render import render_brief, render_json, render_text, to_json
from .routing import Gateway, NextHop, Route, RouteType, default_gateways, route_get, routes
from .netns import NetNS

__all__ = [
    "FOREVER",
    "Gateway",
    "NextHop",
    "Route",
    "RouteType",
    "default_gateways",
    "route_get",
    "routes",
    "Addr",
    "Addr6Flags",
    "AddrAdded",
    "AddrChanged",
    "AddrFlags",
    "AddrRemoved",
    "Counters",
    "Event",
    "Flags",
    "GroupJoined",
    "GroupLeft",
    "Interface",
    "LinkAdded",
    "LinkChanged",
    "LinkSettings",
    "LinkRemoved",
    "Live",
    "NetNS",
    "NoSuchInterface",
    "Resync",
    "Snapshot",
    "Watcher",
    "backend",
    "counters",
    "interface_addrs",
    "interface_by_index",
    "interface_by_name",
    "interfaces",
    "live",
    "multicast_snapshot",
    "render_brief",
    "render_json",
    "render_text",
    "snapshot",
    "to_json",
]

__version__ = "0.2.0"

FOREVER: Final[int] = 0xFFFFFFFF
"""An address lifetime that never runs out (what ``ip -j`` prints as 4294967295)."""


class _TextFlag(_enum.IntFlag):
    """An IntFlag whose text is its set members' names, lower case, joined by
    "|" in value order, then any bits without a name as one hex number
    ("up|0x400"); "0" when no bit is set: Go's form for net.Flags.

    A format spec formats the int (``f"{flags:#x}"``); an empty one, the text.
    """

    def __str__(self) -> str:
        value = int(self)
        words = []
        for member in type(self):
            if value & member.value:
                words.append(str(member.name).lower())
                value &= ~member.value
        if value:
            words.append(hex(value))
        return "|".join(words) if words else "0"

    def __format__(self, spec: str) -> str:
        return format(int(self), spec) if spec else str(self)


class Flags(_TextFlag):
    """Interface flags, with Go's bit values and Go's text form."""

    UP = 1
    BROADCAST = 2
    LOOPBACK = 4
    POINTTOPOINT = 8
    MULTICAST = 16
    RUNNING = 32


class AddrFlags(_TextFlag):
    """Flags of an IPv4 address or of a multicast group: the kernel's IFA_F_* bits."""

    SECONDARY = 0x01
    NODAD = 0x02
    OPTIMISTIC = 0x04
    DADFAILED = 0x08
    HOMEADDRESS = 0x10
    DEPRECATED = 0x20
    TENTATIVE = 0x40
    PERMANENT = 0x80
    MANAGETEMPADDR = 0x100
    NOPREFIXROUTE = 0x200
    MCAUTOJOIN = 0x400
    STABLE_PRIVACY = 0x800


class Addr6Flags(_TextFlag):
    """Flags of an IPv6 address: the kernel's IFA_F_* bits, where 0x01 means
    a temporary (privacy) address, not a secondary one."""

    TEMPORARY = 0x01
    NODAD = 0x02
    OPTIMISTIC = 0x04
    DADFAILED = 0x08
    HOMEADDRESS = 0x10
    DEPRECATED = 0x20
    TENTATIVE = 0x40
    PERMANENT = 0x80
    MANAGETEMPADDR = 0x100
    NOPREFIXROUTE = 0x200
    MCAUTOJOIN = 0x400
    STABLE_PRIVACY = 0x800


_netifc._register(Flags, AddrFlags, Addr6Flags)


def _choose_backend() -> None:
    """NETIFC_BACKEND names the backend; a wrong name warns and keeps the default."""
    name = _os.environ.get("NETIFC_BACKEND", "")
    if not name:
        return
    names = _netifc._backend_names()
    if name in names:
        _netifc._set_backend(name)
        return
    _warnings.warn(
        f"NETIFC_BACKEND={name!r} is not a netifc backend (valid: {', '.join(names)});"
        f" using {_netifc._backend()!r}",
        RuntimeWarning,
        stacklevel=2,
    )


_choose_backend()


class Snapshot:
    """Every interface with its addresses, from one link dump and one address dump.

    Each address's ``index`` names an interface of the same snapshot.
    """

    __slots__ = ("interfaces", "addrs", "_by_index", "_by_name", "_addrs_of")

    interfaces: tuple[Interface, ...]
    addrs: tuple[Addr, ...]

    def __init__(self, interfaces: tuple[Interface, ...], addrs: tuple[Addr, ...]) -> None:
        self.interfaces = interfaces
        self.addrs = addrs
        # The lookup tables are made on first use: a snapshot that is only
        # listed costs nothing more than its two dumps.
        self._by_index: dict[int, Interface] | None = None
        self._by_name: dict[str, Interface] | None = None
        self._addrs_of: dict[int, tuple[Addr, ...]] | None = None

    def _index(self) -> dict[int, Interface]:
        if self._by_index is None:
            self._by_index = {i.index: i for i in self.interfaces}
        return self._by_index

    def _names(self) -> dict[str, Interface]:
        if self._by_name is None:
            self._by_name = {i.name: i for i in self.interfaces}
        return self._by_name

    def _grouped(self) -> dict[int, tuple[Addr, ...]]:
        if self._addrs_of is None:
            grouped: dict[int, list[Addr]] = {i.index: [] for i in self.interfaces}
            for a in self.addrs:
                grouped.setdefault(a.index, []).append(a)
            self._addrs_of = {k: tuple(v) for k, v in grouped.items()}
        return self._addrs_of

    def by_index(self, index: int) -> Interface:
        """The interface with this index.

        Raises TypeError unless index is an int (bool is refused);
        NoSuchInterface when the snapshot has no interface with it.
        """
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"interface index must be int, not {type(index).__name__}")
        try:
            return self._index()[index]
        except KeyError:
            raise NoSuchInterface(f"no such network interface: {index!r}") from None

    def by_name(self, name: str) -> Interface:
        """The interface with this name.

        Raises TypeError unless name is a str; NoSuchInterface when the
        snapshot has no interface with it.
        """
        if not isinstance(name, str):
            raise TypeError(f"interface name must be str, not {type(name).__name__}")
        try:
            return self._names()[name]
        except KeyError:
            raise NoSuchInterface(f"no such network interface: {name!r}") from None

    def addrs_of(self, interface: Interface | int) -> tuple[Addr, ...]:
        """The addresses of an Interface or interface index, in kernel order.

        Raises TypeError and NoSuchInterface as by_index() does.
        """
        index = interface.index if isinstance(interface, Interface) else interface
        return self._grouped()[self.by_index(index).index]

    def __iter__(self) -> Iterator[Interface]:
        return iter(self.interfaces)

    def __len__(self) -> int:
        return len(self.interfaces)

    def __repr__(self) -> str:
        return f"<netifc.Snapshot: {len(self.interfaces)} interfaces, {len(self.addrs)} addresses>"


def snapshot() -> Snapshot:
    """Every interface and every unicast address, consistent with each other.

    Raises OSError when the kernel or the OS fails.
    """
    return Snapshot(*_netifc._snapshot(False))


def multicast_snapshot() -> Snapshot:
    """Every interface and every multicast group, consistent with each other.

    Raises OSError when the kernel or the OS fails.
    """
    return Snapshot(*_netifc._snapshot(True))


backend: str
"""The backend in use: "netlink" (Linux) or "getifaddrs" (read on each access)."""

if not TYPE_CHECKING:
    # Hidden from type checkers, which would otherwise type every unknown
    # name of the module as what this returns; they see ``backend: str``.
    def __getattr__(name: str) -> str:
        if name == "backend":
            return _netifc._backend()
        raise AttributeError(f"module 'netifc' has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted([*globals(), "backend"])
