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

import os as _os
import warnings as _warnings
from typing import TYPE_CHECKING, Final

try:
    from . import _netifc
except ImportError:
    # A source tree holds netifc/ without the compiled extension until it is
    # built; Python's own message would speak of a circular import.
    import importlib.util as _util

    if _util.find_spec(f"{__name__}._netifc") is not None:
        raise  # built, but it does not load: its own message says why
    raise ModuleNotFoundError(
        f"netifc's C extension netifc._netifc is not built in {_os.path.dirname(__file__)}"
        " (a source tree?). Build it there with `pip install -e .` (in a venv) or"
        " `python setup.py build_ext --inplace` (setuptools>=77,<85), or run from outside"
        " the source tree to import an installed netifc.",
        name=f"{__name__}._netifc",
    ) from None
from ._netifc import (
    Addr,
    Counters,
    Interface,
    LinkSettings,
    NoSuchInterface,
    counters,
    interface_addrs,
    interface_by_index,
    interface_by_name,
    interfaces,
)
from .enums import (
    Addr6Flags,
    AddrFlags,
    Flags,
    LinkType,
    RouteFlags,
    RouteProtocol,
    RouteType,
    Scope,
)
from .netns import NetNS
from .render import render_brief, render_json, render_text, to_json
from .routing import Gateway, NextHop, Route, default_gateways, route_get, routes
from .snapshot import Snapshot, multicast_snapshot, snapshot
from .wait import (
    async_wait_addr,
    async_wait_default_route,
    async_wait_link,
    async_wait_until,
    wait_addr,
    wait_default_route,
    wait_link,
    wait_until,
)
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

__all__ = [
    "FOREVER",
    "Gateway",
    "NextHop",
    "Route",
    "RouteFlags",
    "RouteProtocol",
    "RouteType",
    "Scope",
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
    "LinkType",
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
    "async_wait_addr",
    "async_wait_default_route",
    "async_wait_link",
    "async_wait_until",
    "wait_addr",
    "wait_default_route",
    "wait_link",
    "wait_until",
]

__version__ = "1.0.0"

FOREVER: Final[int] = 0xFFFFFFFF
"""An address lifetime that never runs out (what ``ip -j`` prints as 4294967295)."""


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


backend: str
"""The backend in use: "netlink" (Linux) or "getifaddrs" (read on each access)."""

if not TYPE_CHECKING:
    # Hidden from type checkers, which would otherwise type every unknown
    # name of the module as what this returns; they see ``backend: str``.
    def __getattr__(name: str) -> str:
        """``netifc.backend``, read on each access: "netlink" (Linux) or
        "getifaddrs"."""
        if name == "backend":
            return _netifc._backend()
        raise AttributeError(f"module 'netifc' has no attribute {name!r}")

    def __dir__() -> list[str]:
        """The module's names, ``backend`` among them."""
        return sorted([*globals(), "backend"])
