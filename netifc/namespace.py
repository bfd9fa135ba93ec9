"""Namespace: the calls of one network namespace, written once.

``Namespace()`` answers for the calling thread's own namespace, as the
module's functions do; ``netifc.NetNS`` (netifc/netns.py) is a Namespace
that opens another one. The module's C functions (``interfaces()``,
``interface_by_index()``, ...) are the same calls without a Python frame;
``snapshot()``, ``routes()``, ``route_get()`` and ``default_gateways()`` are
the functions these methods call, with no namespace.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import TYPE_CHECKING, Dict, Optional, Tuple, Union

from . import _netifc
from ._netifc import Addr, Counters, Interface
from .routing import Gateway, Route, _gateways, _route_get_in, _routes_in
from .snapshot import Snapshot, _snapshot_in

if TYPE_CHECKING:
    from typing import Protocol

    from ._netifc import _NetNS

    class _Calls(Protocol):
        """What answers a namespace's calls: the C module (the caller's own)
        or a _NetNS (another's)."""

        def interfaces(self) -> Tuple[Interface, ...]: ...
        def interface_by_index(self, index: int, /) -> Interface: ...
        def interface_by_name(self, name: str, /) -> Interface: ...
        def interface_addrs(self) -> Tuple[Addr, ...]: ...
        def counters(self) -> Tuple[Counters, ...]: ...


__all__ = ["Namespace"]


class Namespace:
    """The module's calls, answered for one network namespace: the calling
    thread's own (``Namespace()``, what the module's functions ask) or that
    of a ``netifc.NetNS``. Interfaces read through a NetNS ask it for their
    ``addrs()``, ``multicast_addrs()``, ``counters()`` and ``link_settings()``.
    """

    __slots__ = ("_ns", "_c")

    _ns: Optional[_NetNS]
    _c: _Calls

    def __init__(self) -> None:
        self._in(None)

    def _in(self, ns: Optional[_NetNS]) -> None:
        """Answer for ns (None: the caller's own namespace)."""
        self._ns = ns
        self._c = _netifc if ns is None else ns

    def interfaces(self) -> Tuple[Interface, ...]:
        """Every interface of the namespace, in kernel order (one link dump).

        Raises OSError when the kernel fails; ValueError once closed.
        """
        return self._c.interfaces()

    def interface_by_index(self, index: int) -> Interface:
        """The namespace's interface with this index (one request for that link).

        Raises TypeError unless index is an int; NoSuchInterface when no
        interface has it; OSError when the kernel fails; ValueError once closed.
        """
        return self._c.interface_by_index(index)

    def interface_by_name(self, name: str) -> Interface:
        """The namespace's interface with this (primary) name.

        Raises TypeError unless name is a str; NoSuchInterface when no
        interface has it; OSError when the kernel fails; ValueError once closed.
        """
        return self._c.interface_by_name(name)

    def interface_addrs(self) -> Tuple[Addr, ...]:
        """Every unicast address of the namespace.

        Raises OSError when the kernel fails; ValueError once closed.
        """
        return self._c.interface_addrs()

    def counters(self) -> Tuple[Counters, ...]:
        """Every interface's counters in the namespace (one stats dump).

        Raises OSError when the kernel fails; ValueError once closed.
        """
        return self._c.counters()

    def snapshot(self) -> Snapshot:
        """Every interface and unicast address of the namespace, consistent
        with each other.

        Raises OSError when the kernel fails; ValueError once closed.
        """
        return _snapshot_in(self._ns, False)

    def multicast_snapshot(self) -> Snapshot:
        """Every interface and multicast group of the namespace.

        Raises OSError when the kernel fails; ValueError once closed.
        """
        return _snapshot_in(self._ns, True)

    def routes(
        self, family: Optional[int] = None, table: Union[int, str] = "main"
    ) -> Tuple[Route, ...]:
        """The namespace's routes (as netifc.routes()).

        Raises TypeError, ValueError and OSError as netifc.routes() does;
        ValueError once closed.
        """
        return _routes_in(self._ns, family, table)

    def route_get(
        self, destination: Union[str, ipaddress.IPv4Address, ipaddress.IPv6Address]
    ) -> Route:
        """The route the namespace's kernel would choose (as netifc.route_get());
        a zone names one of the namespace's interfaces.

        Raises TypeError, ValueError and OSError as netifc.route_get() does;
        ValueError once closed.
        """
        return _route_get_in(self._ns, self.interface_by_name, destination)

    def default_gateways(self) -> Dict[socket.AddressFamily, Tuple[Gateway, ...]]:
        """The namespace's default gateways (as netifc.default_gateways()).

        Raises OSError when the kernel fails; ValueError once closed.
        """
        return _gateways(_routes_in(self._ns, None, "main"))


def _ns_of(netns: Optional[Namespace], what: str) -> Optional[_NetNS]:
    """The C namespace of a netns argument (None: the caller's own).

    Raises TypeError naming the argument for anything but a Namespace or None.
    """
    if netns is None:
        return None
    if not isinstance(netns, Namespace):
        raise TypeError(f"{what}: netns must be a netifc.NetNS or None, not {type(netns).__name__}")
    return netns._ns
