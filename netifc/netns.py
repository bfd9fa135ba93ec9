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
from typing import TYPE_CHECKING, Optional, Tuple, Union

from . import _netifc
from .closing import Closing
from .namespace import Namespace
from .watch import Live, Watcher

if TYPE_CHECKING:
    from ._netifc import _NetNS

__all__ = ["NetNS"]

NETNS_RUN_DIR = "/run/netns"
"""Where ``ip netns add NAME`` mounts the namespace it names."""


def _where(netns: Union[str, os.PathLike[str]]) -> Tuple[Optional[str], str]:
    """(name, path) of a namespace given by name or by path."""
    if isinstance(netns, str) and "/" not in netns:
        if netns in ("", ".", "..") or "\0" in netns:
            raise ValueError(
                "NetNS: netns must be a network namespace name (not empty, '.' or '..',"
                f" holding no NUL), not {netns!r}"
            )
        return netns, os.path.join(NETNS_RUN_DIR, netns)
    path = os.fspath(netns)
    if not isinstance(path, str):
        raise TypeError(f"NetNS: netns as a path must be str, not {type(path).__name__}")
    if "\0" in path:
        raise ValueError(f"NetNS: netns as a path must hold no NUL, not {path!r}")
    return None, path


def _said(text: str, what: Optional[str]) -> str:
    """text naming the namespace once: what is its name or fd, None where the
    OSError's filename (the path) is all there is to say."""
    return f"{text} {what}" if what else text


def _entered(source: Union[int, str], what: Optional[str], path: Optional[str]) -> _NetNS:
    """The C namespace record for a descriptor or for the file at a path,
    which C opens under its fork registry's lock (a child forked meanwhile
    gets no copy of it); its socket made there; errors name `what`."""
    try:
        if isinstance(source, int):
            return _netifc._NetNS(source)
        return _netifc._NetNS(path=source)
    except OSError as e:
        opened: Optional[str] = e.filename  # set only when the open() failed
        if not isinstance(source, int) and opened is not None:
            if isinstance(e, FileNotFoundError):
                raise FileNotFoundError(
                    errno.ENOENT, _said("no such network namespace", what), path
                ) from None
            text = _said("network namespace", what)
            raise type(e)(e.errno, f"{text}: {e.strerror}", path) from None
        if e.errno == errno.EPERM:
            text = _said("cannot enter network namespace", what)
            raise PermissionError(e.errno, f"{text} (setns needs CAP_SYS_ADMIN)", path) from None
        if e.errno == errno.EINVAL:
            raise OSError(e.errno, _said("not a network namespace", what), path) from None
        # the extension says "network namespace (its step): strerror": said once
        detail = e.strerror or ""
        step = "network namespace"
        detail = detail[len(step) :] if detail.startswith(step) else f": {detail}"
        raise OSError(e.errno, _said(step, what) + detail, path) from None


class NetNS(Closing, Namespace):
    """A network namespace other than the calling thread's (or the same one, by
    path): ``NetNS("blue")`` as ``ip netns`` names it (/run/netns/blue), a path
    such as ``/proc/PID/ns/net``, or an open descriptor (duplicated: the
    caller keeps and closes its own).

    Its methods are the module's, for that namespace (a Namespace's); the
    calling thread never moves. Interfaces it returns ask it for their ``addrs()`` and
    ``multicast_addrs()``. Safe to share between threads (one kernel request
    at a time per NetNS; several NetNS work at once). A context manager;
    ``close()`` closes its socket and descriptor. While open it keeps the
    namespace alive, even after ``ip netns del``. A forked child makes its
    own socket at its first call.

    Raises FileNotFoundError for a missing namespace, PermissionError without
    the privilege to enter it (CAP_SYS_ADMIN), OSError(EINVAL) for a file that
    is no network namespace, ValueError for an invalid namespace name (empty,
    ".", "..", or holding a NUL) or a descriptor number below 0 or past
    2147483647, OSError(EBADF) for a descriptor that is not open, TypeError for another type, NotImplementedError where the backend (getifaddrs) or the
    platform cannot look into another namespace.
    """

    __slots__ = ("name", "path", "__weakref__")

    name: Optional[str]
    """The name it was opened by (as ``ip netns`` lists it), else None."""
    path: Optional[str]
    """The file it was opened from, None when given a descriptor."""
    _ns: _NetNS

    def __init__(self, netns: Union[str, os.PathLike[str], int]) -> None:
        if isinstance(netns, bool) or not isinstance(netns, (str, int, os.PathLike)):
            raise TypeError(
                "NetNS: netns must be a name, a path or a file descriptor,"
                f" not {type(netns).__name__}"
            )
        if not hasattr(_netifc, "_NetNS"):
            raise NotImplementedError(
                f"netifc: network namespaces are Linux's; {sys.platform} has none"
            )
        if _netifc._backend() != "netlink":
            raise NotImplementedError(
                f"netifc: the {_netifc._backend()} backend cannot look into another network"
                " namespace (the netlink backend can)"
            )
        if isinstance(netns, int):
            if not 0 <= netns <= 0x7FFFFFFF:
                raise ValueError(
                    f"NetNS: netns as a file descriptor must be 0 to 2147483647, not {netns}"
                )
            self.name, self.path = None, None
            self._in(_entered(netns, f"fd {netns}", None))
            return
        self.name, self.path = _where(netns)
        what = repr(self.name) if self.name is not None else None
        self._in(_entered(self.path, what, self.path))

    # -- its live tables (the module's calls are Namespace's) ----------------------

    def Watcher(self) -> Watcher:  # noqa: N802 -- named as the class it makes
        """A netifc.Watcher of this namespace's changes."""
        return Watcher(self)

    def live(self) -> Live:
        """netifc.live() tables of this namespace."""
        return Live(self)

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

    def __repr__(self) -> str:
        where = (
            f"name={self.name!r}"
            if self.name is not None
            else f"path={self.path!r}"
            if self.path is not None
            else "fd"
        )
        state = "closed" if self.closed else f"fd {self.fileno()}"
        return f"<netifc.NetNS {where}: {state}>"
