"""netifc: network interfaces, their addresses and multicast groups, from the kernel.

Go's ``net`` interface API on a C core::

    >>> import netifc
    >>> lo = netifc.interface_by_name("lo")
    >>> str(lo.flags)
    'up|loopback|running'
    >>> [str(a) for a in lo.addrs()]
    ['127.0.0.1/8', '::1/128']
"""
import enum as _enum
import os as _os

from . import _netifc
from ._netifc import (
    Addr,
    Interface,
    NoSuchInterface,
    interface_addrs,
    interface_by_index,
    interface_by_name,
    interfaces,
)
from .render import render_brief, render_json, render_text, to_json

__all__ = [
    "Addr",
    "Addr6Flags",
    "AddrFlags",
    "FOREVER",
    "Flags",
    "Interface",
    "NoSuchInterface",
    "Snapshot",
    "backend",
    "interface_addrs",
    "interface_by_index",
    "interface_by_name",
    "interfaces",
    "multicast_snapshot",
    "render_brief",
    "render_json",
    "render_text",
    "snapshot",
    "to_json",
]

__version__ = "0.1.0"


class _TextFlag(_enum.IntFlag):
    """An IntFlag whose text is its set members' names, lower case, joined by
    "|" in value order ("0" when none): Go's form for net.Flags."""

    def __str__(self):
        value = int(self)
        names = [name.lower() for name, member in type(self).__members__.items()
                 if member.name == name and value & int(member)]
        return "|".join(names) if names else "0"

    def __format__(self, spec):
        return format(str(self), spec)


class Flags(_TextFlag):
    """Interface flags, with Go's bit values and Go's text form."""

    UP = 1
    BROADCAST = 2
    LOOPBACK = 4
    POINTTOPOINT = 8
    MULTICAST = 16
    RUNNING = 32


class AddrFlags(_TextFlag):
    """Address flags: the kernel's IFA_F_* bit values."""

    SECONDARY = 0x01
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


class Addr6Flags(_TextFlag):
    """IPv6 address flags: the kernel's IFA_F_* bit values (0x01 is TEMPORARY)."""

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


FOREVER = 0xFFFFFFFF

_netifc._register(Flags, AddrFlags, Addr6Flags)
if _os.environ.get("NETIFC_BACKEND"):
    _netifc._set_backend(_os.environ["NETIFC_BACKEND"])


class Snapshot:
    """Every interface with its addresses, from one link dump and one address dump.

    Each address's ``index`` names an interface of the same snapshot.
    """

    __slots__ = ("interfaces", "addrs", "_by_index", "_by_name", "_addrs_of")

    def __init__(self, interfaces, addrs):
        self.interfaces = interfaces
        self.addrs = addrs
        self._by_index = {i.index: i for i in interfaces}
        self._by_name = {i.name: i for i in interfaces}
        grouped = {i.index: [] for i in interfaces}
        for a in addrs:
            grouped.setdefault(a.index, []).append(a)
        self._addrs_of = {k: tuple(v) for k, v in grouped.items()}

    def by_index(self, index):
        """The interface with this index; NoSuchInterface if it has none."""
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"interface index must be int, not {type(index).__name__}")
        try:
            return self._by_index[index]
        except KeyError:
            raise NoSuchInterface(f"no such network interface: {index!r}") from None

    def by_name(self, name):
        """The interface with this name; NoSuchInterface if it has none."""
        if not isinstance(name, str):
            raise TypeError(f"interface name must be str, not {type(name).__name__}")
        try:
            return self._by_name[name]
        except KeyError:
            raise NoSuchInterface(f"no such network interface: {name!r}") from None

    def addrs_of(self, interface):
        """The addresses of an Interface or interface index, in kernel order."""
        index = interface.index if isinstance(interface, Interface) else interface
        return self._addrs_of[self.by_index(index).index]

    def __iter__(self):
        return iter(self.interfaces)

    def __len__(self):
        return len(self.interfaces)

    def __repr__(self):
        return f"<netifc.Snapshot: {len(self.interfaces)} interfaces, {len(self.addrs)} addresses>"


def snapshot():
    """Every interface and every unicast address, consistent with each other."""
    return Snapshot(*_netifc._snapshot(False))


def multicast_snapshot():
    """Every interface and every multicast group, consistent with each other."""
    return Snapshot(*_netifc._snapshot(True))


def __getattr__(name):
    if name == "backend":
        return _netifc._backend()
    raise AttributeError(f"module 'netifc' has no attribute {name!r}")
