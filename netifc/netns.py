"""Another network namespace, looked into without moving the calling thread.

``NetNS(name)`` opens the namespace ``ip netns`` calls ``name``
(/run/netns/NAME), or one given by path (/proc/PID/ns/net) or by an open
descriptor. Its methods are the module's functions by name, answered for
that namespace: the netlink socket they use was made inside it by a helper
thread and answers for it from any thread.
"""
from __future__ import annotations

import errno
import os
import sys
import ipaddress
import socket
from typing import TYPE_CHECKING, Dict, Optional, Tuple, Union

from . import _netifc
from ._netifc import Addr, Interface

if TYPE_CHECKING:
    from . import Counters, Snapshot
    from ._netifc import _NetNS
    from .routing import Gateway, Route
    from .watch import Live, Watcher

__all__ = ["NetNS"]

NETNS_RUN_DIR = "/run/netns"
"""Where ``ip netns add NAME`` mounts the namespace it names."""


def _where(netns: Union[str, "os.PathLike[str]"]) -> Tuple[Optional[str], str]:
    """(name, path) of a namespace given by name or by path."""
    if isinstance(netns, str) and "/" not in netns:
        if netns in ("", ".", "..") or "\0" in netns:
            raise ValueError(f"invalid network namespace name {netns!r}")
        return netns, os.path.join(NETNS_RUN_DIR, netns)
    path = os.fspath(netns)
    if not isinstance(path, str):
        raise TypeError(f"network namespace path must be str, not {type(path).__name__}")
    if "\0" in path:
        raise ValueError(f"network namespace path must not contain NUL: {path!r}")
    return None, path


def _entered(fd: int, what: str, path: Optional[str]) -> _NetNS:
    """The C namespace record for fd, its socket made there; errors name `what`."""
    try:
        return _netifc._NetNS(fd)
    except OSError as e:
        if e.errno == errno.EPERM:
            raise PermissionError(e.errno, f"cannot enter network namespace {what}"
                                  " (setns needs CAP_SYS_ADMIN)", path) from None
        if e.errno == errno.EINVAL:
            raise OSError(e.errno, f"not a network namespace: {what}", path) from None
        raise OSError(e.errno, f"network namespace {what}: {e.strerror}", path) from None


class NetNS:
    """A network namespace other than the calling thread's (or the same one, by
    path): ``NetNS("blue")`` as ``ip netns`` names it (/run/netns/blue), a path
    such as ``/proc/PID/ns/net``, or an open descriptor (duplicated: the
    caller keeps and closes its own).

    Its methods are the module's, for that namespace; the calling thread never
    moves. Interfaces it returns ask it for their ``addrs()`` and
    ``multicast_addrs()``. Safe to share between threads (one kernel request
    at a time per NetNS; several NetNS work at once). A context manager;
    ``close()`` closes its socket and descriptor. While open it keeps the
    namespace alive, even after ``ip netns del``. A forked child makes its
    own socket at its first call.

    Raises FileNotFoundError for a missing namespace, PermissionError without
    the privilege to enter it (CAP_SYS_ADMIN), OSError(EINVAL) for a file that
    is no network namespace, ValueError for an invalid name, TypeError for
    another type, NotImplementedError where the backend (getifaddrs) or the
    platform cannot look into another namespace.
    """

    __slots__ = ("name", "path", "_ns", "__weakref__")

    name: Optional[str]
    """The name it was opened by (as ``ip netns`` lists it), else None."""
    path: Optional[str]
    """The file it was opened from, None when given a descriptor."""

    def __init__(self, netns: Union[str, "os.PathLike[str]", int]) -> None:
        if not hasattr(_netifc, "_NetNS"):
            raise NotImplementedError(
                f"netifc: network namespaces are Linux's; {sys.platform} has none")
        if _netifc._backend() != "netlink":
            raise NotImplementedError(
                f"netifc: the {_netifc._backend()} backend cannot look into another network"
                " namespace (the netlink backend can)")
        if isinstance(netns, bool) or not isinstance(netns, (str, int, os.PathLike)):
            raise TypeError("network namespace must be a name, a path or a file descriptor,"
                            f" not {type(netns).__name__}")
        if isinstance(netns, int):
            self.name, self.path = None, None
            self._ns = _entered(netns, f"fd {netns}", None)
            return
        self.name, self.path = _where(netns)
        what = repr(self.name if self.name is not None else self.path)
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            raise FileNotFoundError(errno.ENOENT, f"no such network namespace: {what}",
                                    self.path) from None
        except OSError as e:
            raise type(e)(e.errno, f"network namespace {what}: {e.strerror}",
                          self.path) from None
        try:
            self._ns = _entered(fd, what, self.path)
        finally:
            os.close(fd)

    # -- the module's calls, in this namespace ------------------------------------

    def interfaces(self) -> Tuple[Interface, ...]:
        """Every interface of the namespace, in kernel order (one link dump).

        Raises OSError when the kernel fails; ValueError once closed.
        """
        return self._ns.interfaces()

    def interface_by_index(self, index: int) -> Interface:
        """The namespace's interface with this index (one request for that link).

        Raises TypeError, ValueError, NoSuchInterface and OSError as
        netifc.interface_by_index() does; ValueError once closed.
        """
        return self._ns.interface_by_index(index)

    def interface_by_name(self, name: str) -> Interface:
        """The namespace's interface with this (primary) name.

        Raises TypeError, ValueError, NoSuchInterface and OSError as
        netifc.interface_by_name() does; ValueError once closed.
        """
        return self._ns.interface_by_name(name)

    def interface_addrs(self) -> Tuple[Addr, ...]:
        """Every unicast address of the namespace.

        Raises OSError when the kernel fails; ValueError once closed.
        """
        return self._ns.interface_addrs()

    def snapshot(self) -> Snapshot:
        """Every interface and unicast address of the namespace, consistent
        with each other (as netifc.snapshot()).

        Raises OSError when the kernel fails; ValueError once closed.
        """
        from . import Snapshot
        return Snapshot(*self._ns._snapshot(False))

    def multicast_snapshot(self) -> Snapshot:
        """Every interface and multicast group of the namespace.

        Raises OSError when the kernel fails; ValueError once closed.
        """
        from . import Snapshot
        return Snapshot(*self._ns._snapshot(True))

    def _snapshot(self, multicast: bool) -> Tuple[Tuple[Interface, ...], Tuple[Addr, ...]]:
        return self._ns._snapshot(multicast)

    def counters(self) -> Tuple[Counters, ...]:
        """Every interface's counters in the namespace (as netifc.counters()).

        Raises OSError when the kernel fails; ValueError once closed.
        """
        return self._ns.counters()

    def routes(self, family: Optional[int] = None,
               table: Union[int, str] = "main") -> Tuple[Route, ...]:
        """The namespace's routes (as netifc.routes()).

        Raises TypeError, ValueError and OSError as netifc.routes() does;
        ValueError once closed.
        """
        from .routing import _family_number, _table_number
        return _netifc._routes(_family_number(family), _table_number(table), self._ns)

    def route_get(self, destination: Union[str, ipaddress.IPv4Address,
                                           ipaddress.IPv6Address]) -> Route:
        """The route the namespace's kernel would choose (as netifc.route_get());
        a zone names one of the namespace's interfaces.

        Raises TypeError, ValueError and OSError as netifc.route_get() does;
        ValueError once closed.
        """
        from .routing import _destination
        family, packed, index = _destination(destination, self.interface_by_name)
        return _netifc._route_get(family, packed, index, self._ns)

    def default_gateways(self) -> Dict[socket.AddressFamily, Tuple[Gateway, ...]]:
        """The namespace's default gateways (as netifc.default_gateways()).

        Raises OSError when the kernel fails; ValueError once closed.
        """
        from .routing import _gateways
        return _gateways(self.routes(None, "main"))

    def Watcher(self) -> Watcher:  # noqa: N802 -- named as the class it makes
        """A netifc.Watcher of this namespace's changes."""
        from .watch import Watcher
        return Watcher(netns=self)

    def live(self) -> Live:
        """netifc.live() tables of this namespace."""
        from .watch import Live
        return Live(netns=self)

    # -- the namespace itself ----------------------------------------------------------

    def fileno(self) -> int:
        """The namespace's descriptor (the NetNS's own; valid until close())."""
        return self._ns.fileno()

    @property
    def closed(self) -> bool:
        return self._ns.closed

    def close(self) -> None:
        """Close the socket and the descriptor; calls then raise ValueError.
        Closing again does nothing."""
        self._ns.close()

    def __enter__(self) -> NetNS:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        where = f"name={self.name!r}" if self.name is not None else \
            f"path={self.path!r}" if self.path is not None else "fd"
        state = "closed" if self.closed else f"fd {self.fileno()}"
        return f"<netifc.NetNS {where}: {state}>"
