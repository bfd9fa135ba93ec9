"""Snapshot: every interface with its addresses (or groups), consistent
with each other, as the module's ``snapshot()``, a NetNS's and a live
table's ``snapshot()`` return it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, Optional, Tuple

from . import _netifc
from ._netifc import Addr, Interface, NoSuchInterface

if TYPE_CHECKING:
    from ._netifc import _NetNS

__all__ = ["Snapshot", "snapshot", "multicast_snapshot"]


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
        self._by_index: Optional[Dict[int, Interface]] = None
        self._by_name: Optional[Dict[str, Interface]] = None
        self._addrs_of: Optional[Dict[int, Tuple[Addr, ...]]] = None

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
    return _snapshot_in(None, False)


def multicast_snapshot() -> Snapshot:
    """Every interface and every multicast group, consistent with each other.

    Raises OSError when the kernel or the OS fails.
    """
    return _snapshot_in(None, True)


def _snapshot_in(ns: Optional[_NetNS], multicast: bool) -> Snapshot:
    """A Snapshot of the caller's namespace (ns None) or of ns."""
    return Snapshot(*(_netifc._snapshot(multicast) if ns is None else ns._snapshot(multicast)))
