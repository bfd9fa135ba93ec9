"""Waiting for network state: a link, a usable address, a default route.

Each wait checks its condition on the current tables, and while it does not
hold blocks on the kernel's notifications -- a ``live()`` table's socket
(links and addresses) and, for routes, a netlink socket subscribed to the
route groups -- then checks again: no polling, no sleeps. The sockets are
opened before the first check, so no change between the check and the
block is missed. An IPv6 address counts once it has left DAD (neither
tentative nor dadfailed; optimistic ones only when asked), as a socket can
bind it: the kernel lists a link's new link-local address while DAD runs
and tells of it when DAD ends, and the wait returns then.

Every wait has a blocking form (``wait_link()``) and an asyncio one
(``async_wait_link()``, on the running loop's ``add_reader``, no thread),
takes ``timeout`` (seconds; 0: check once, not wait; None, infinity or an
int past float's range: no limit -- ``netifc.watch.timeout_seconds()``, the
rule every netifc call that waits applies) and ``netns`` (a
``netifc.NetNS``), returns what it waited for, and raises TimeoutError
saying what was still missing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import select
import socket
import time
from typing import (
    TYPE_CHECKING,
    Callable,
    Dict,
    Generator,
    List,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
)

from . import _netifc
from ._netifc import Addr, Interface, NoSuchInterface
from .enums import AddrFlags, Flags
from .namespace import Namespace, _ns_of
from .routing import Gateway
from .snapshot import Snapshot
from .watch import Live, _poll_ms, timeout_seconds

if TYPE_CHECKING:
    from ._netifc import _NetNS

__all__ = [
    "OPERSTATES",
    "wait_link",
    "wait_addr",
    "wait_default_route",
    "wait_until",
    "async_wait_link",
    "async_wait_addr",
    "async_wait_default_route",
    "async_wait_until",
]

T = TypeVar("T")

OPERSTATES = ("unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up")
"""The kernel's operational states (RFC 2863), as ``Interface.operstate`` says them."""

Link = Union[str, int, Interface]
"""A link as a wait names it: its name, its index, or an Interface (its index)."""

_IFF_LOWER_UP = 0x10000
"""Carrier: the kernel's IFF_LOWER_UP, in ``raw_flags`` only (Flags, Go's
net.Flags, has no such bit; render.py names it LOWER_UP as ip prints it)."""
_FAMILY_WORD: Dict[int, str] = {socket.AF_INET: "IPv4", socket.AF_INET6: "IPv6"}

# ---- the arguments -----------------------------------------------------------------


def _family_arg(who: str, family: Optional[int]) -> Optional[int]:
    """AF_INET or AF_INET6 for 4, 6, AF_INET or AF_INET6; None for None."""
    if family is None:
        return None
    if isinstance(family, bool) or not isinstance(family, int):
        raise TypeError(
            f"{who}: family must be 4, 6, AF_INET, AF_INET6 or None, not {type(family).__name__}"
        )
    if family in (4, socket.AF_INET):
        return socket.AF_INET
    if family in (6, socket.AF_INET6):
        return socket.AF_INET6
    raise ValueError(f"{who}: family must be 4, 6, AF_INET, AF_INET6 or None, not {family!r}")


def _link_arg(who: str, link: Optional[Link], optional: bool = False) -> Optional[Union[str, int]]:
    """A link's name or index (an Interface: its index)."""
    if link is None and optional:
        return None
    if isinstance(link, Interface):
        return link.index
    if isinstance(link, str):
        if not link or len(link.encode("utf-8", "surrogateescape")) > 15 or "\0" in link:
            raise ValueError(
                f"{who}: link must be an interface name (1 to 15 bytes, no NUL), not {link!r}"
            )
        return link
    if isinstance(link, int) and not isinstance(link, bool):
        if not 0 < link <= 0x7FFFFFFF:
            raise ValueError(f"{who}: link as an index must be 1 to 2147483647, not {link}")
        return link
    kinds = "a name, an index or an Interface" + (", or None" if optional else "")
    raise TypeError(f"{who}: link must be {kinds}, not {type(link).__name__}")


def _operstate_arg(who: str, operstate: Optional[str]) -> Optional[str]:
    if operstate is None:
        return None
    if not isinstance(operstate, str):
        raise TypeError(f"{who}: operstate must be a str or None, not {type(operstate).__name__}")
    word = operstate.lower()
    if word not in OPERSTATES:
        raise ValueError(
            f"{who}: operstate must be one of {', '.join(OPERSTATES)}, not {operstate!r}"
        )
    return word


def _bool_arg(who: str, name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{who}: {name} must be a bool, not {type(value).__name__}")
    return value


def _address_arg(
    who: str,
    address: Union[None, str, ipaddress.IPv4Address, ipaddress.IPv6Address],
    family: Optional[int],
) -> Tuple[Optional[bytes], Optional[int]]:
    """(packed address, its family), or (None, family) for no address."""
    if address is None:
        return None, family
    if isinstance(address, str):
        try:
            ip: Union[ipaddress.IPv4Address, ipaddress.IPv6Address] = ipaddress.ip_address(
                address.split("%", 1)[0].strip()
            )
        except ValueError:
            raise ValueError(
                f"{who}: address must be an IPv4 or IPv6 address (no prefix length),"
                f" not {address!r}"
            ) from None
    elif isinstance(address, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
        ip = address
    else:
        raise TypeError(
            f"{who}: address must be str, IPv4Address, IPv6Address or None,"
            f" not {type(address).__name__}"
        )
    own = socket.AF_INET if ip.version == 4 else socket.AF_INET6
    if family is not None and family != own:
        raise ValueError(f"{who}: address {str(ip)!r} is not of family {_FAMILY_WORD[family]}")
    return ip.packed, own


# ---- what a wait reads ------------------------------------------------------------------


class _Sources:
    """The tables (a live() table) and the route notifications a wait reads,
    each opened before the first check; closed when the wait ends."""

    def __init__(self, who: str, netns: Optional[Namespace], tables: bool, routes: bool) -> None:
        ns: Optional[_NetNS] = _ns_of(netns, who)
        self._routes: Optional[_netifc._RouteWatch] = None
        self._live: Optional[Live] = None
        self._calls: Namespace = netns if netns is not None else Namespace()
        self._gateways: Optional[Dict[socket.AddressFamily, Tuple[Gateway, ...]]] = None
        self._snap: Optional[Snapshot] = None
        try:
            if routes:
                if not hasattr(_netifc, "_RouteWatch"):
                    raise NotImplementedError("netifc: route notifications need Linux's rtnetlink")
                self._routes = _netifc._RouteWatch(ns)
            if tables:
                self._live = Live(netns)
        except BaseException:
            self.close()
            raise

    def fds(self) -> List[int]:
        out = [] if self._live is None else [self._live.fileno()]
        if self._routes is not None:
            out.append(self._routes.fileno())
        return out

    def check(self) -> None:
        """A check begins: its first snapshot() reads the tables (once: what
        the check found unmet is what its TimeoutError then says)."""
        self._snap = None

    def snapshot(self) -> Snapshot:
        assert self._live is not None
        if self._snap is None:
            self._snap = self._live.snapshot()
        return self._snap

    @property
    def live(self) -> Live:
        assert self._live is not None
        return self._live

    def gateways(self) -> Dict[socket.AddressFamily, Tuple[Gateway, ...]]:
        """The default gateways, read again only after a route notification."""
        if self._gateways is None:
            self._gateways = self._calls.default_gateways()
        return self._gateways

    def woken(self) -> None:
        """After a wake-up: the route notifications pending taken (each one,
        or the kernel's word that it dropped some, means read them again)."""
        if self._routes is not None and self._routes.drain():
            self._gateways = None

    def close(self) -> None:
        if self._routes is not None:
            self._routes.close()
        if self._live is not None:
            self._live.close()


# ---- conditions -------------------------------------------------------------------------


class _Condition:
    """What a wait waits for: met() is what it returns (None while unmet);
    missing() says, in a few words, why it is not met."""

    tables = True
    routes = False

    def met(self, src: _Sources) -> object:
        raise NotImplementedError

    def missing(self, src: _Sources) -> str:
        raise NotImplementedError


def _find(snap: Snapshot, link: Union[str, int]) -> Optional[Interface]:
    try:
        return snap.by_name(link) if isinstance(link, str) else snap.by_index(link)
    except NoSuchInterface:
        return None


def _said(link: Union[str, int]) -> str:
    return link if isinstance(link, str) else f"link {link}"


class _LinkIs(_Condition):
    def __init__(
        self, link: Union[str, int], up: bool, carrier: bool, operstate: Optional[str]
    ) -> None:
        self.link, self.up, self.carrier, self.operstate = link, up, carrier, operstate

    def _lacks(self, i: Interface) -> Optional[str]:
        if self.up and not i.flags & Flags.UP:
            return f"{i.name} is down"
        if self.carrier and not i.raw_flags & _IFF_LOWER_UP:
            return f"{i.name} has no carrier"
        if self.operstate is not None and i.operstate != self.operstate:
            return f"{i.name}'s operstate is {i.operstate}, not {self.operstate}"
        return None

    def met(self, src: _Sources) -> Optional[Interface]:
        i = _find(src.snapshot(), self.link)
        return i if i is not None and self._lacks(i) is None else None

    def missing(self, src: _Sources) -> str:
        i = _find(src.snapshot(), self.link)
        if i is None:
            return f"no link {_said(self.link)}"
        return self._lacks(i) or "nothing"


def _usable(a: Addr, optimistic: bool) -> bool:
    """Left DAD: neither tentative (unless optimistic, when asked) nor dadfailed."""
    flags = int(a.flags)  # (IPv4's AddrFlags and IPv6's Addr6Flags: the same DAD bits)
    if flags & AddrFlags.DADFAILED:
        return False
    if flags & AddrFlags.TENTATIVE:
        return optimistic and bool(flags & AddrFlags.OPTIMISTIC)
    return True


def _why_not(a: Addr) -> str:
    if int(a.flags) & AddrFlags.DADFAILED:
        return f"{a.address} failed DAD"
    return f"{a.address} tentative (in DAD)"


class _AddrOn(_Condition):
    def __init__(
        self,
        link: Optional[Union[str, int]],
        family: Optional[int],
        packed: Optional[bytes],
        optimistic: bool,
    ) -> None:
        self.link, self.family, self.packed, self.optimistic = link, family, packed, optimistic

    def _links(self, snap: Snapshot) -> Optional[Sequence[Interface]]:
        """The links whose addresses count (None: the named one is missing)."""
        if self.link is not None:
            i = _find(snap, self.link)
            return None if i is None else (i,)
        if self.packed is not None:
            return snap.interfaces
        return [i for i in snap.interfaces if not i.flags & Flags.LOOPBACK]

    def _candidates(self, snap: Snapshot) -> Optional[List[Addr]]:
        links = self._links(snap)
        if links is None:
            return None
        out: List[Addr] = []
        for i in links:
            for a in snap.addrs_of(i):
                if self.family is not None and a.family != self.family:
                    continue
                if self.packed is not None and socket.inet_pton(a.family, a.address) != self.packed:
                    continue
                out.append(a)
        return out

    def met(self, src: _Sources) -> Optional[Addr]:
        for a in self._candidates(src.snapshot()) or ():
            if _usable(a, self.optimistic):
                return a
        return None

    def _what(self) -> str:
        if self.packed is not None:
            assert self.family is not None
            return f"address {socket.inet_ntop(self.family, self.packed)}"
        return f"usable {_FAMILY_WORD[self.family]} address" if self.family else "usable address"

    def missing(self, src: _Sources) -> str:
        found = self._candidates(src.snapshot())
        if found is None:
            assert self.link is not None
            return f"no link {_said(self.link)}"
        where = f"on {_said(self.link)}" if self.link is not None else "on any link but loopback"
        if self.packed is not None and self.link is None:
            where = "on any link"
        text = f"no {self._what()} {where}"
        pending = [_why_not(a) for a in found if not _usable(a, self.optimistic)]
        return f"{text} ({', '.join(pending)})" if pending else text


class _Online(_Condition):
    """What ``netifc wait`` asks of a link (None: of any link but loopback):
    up with carrier, or in ``operstate``; and a usable address of each of
    ``families``. Met: (the Interface, its addresses found, by family)."""

    def __init__(
        self, link: Optional[Union[str, int]], operstate: Optional[str], families: Sequence[int]
    ) -> None:
        self.link, self.operstate, self.families = link, operstate, tuple(families)
        self._state = _LinkIs(link or 0, self.operstate is None, self.operstate is None, operstate)

    def _lacks(self, snap: Snapshot, i: Interface) -> Tuple[Optional[str], Tuple[Addr, ...]]:
        why = self._state._lacks(i)
        if why is not None:
            return why, ()
        found: List[Addr] = []
        for family in self.families:
            mine = [a for a in snap.addrs_of(i) if a.family == family]
            usable = [a for a in mine if _usable(a, False)]
            if not usable:
                pending = [_why_not(a) for a in mine]
                text = f"{i.name} has no usable {_FAMILY_WORD[family]} address"
                return (f"{text} ({', '.join(pending)})" if pending else text), ()
            found.append(usable[0])
        return None, tuple(found)

    def _links(self, snap: Snapshot) -> Sequence[Interface]:
        if self.link is None:
            return [i for i in snap.interfaces if not i.flags & Flags.LOOPBACK]
        i = _find(snap, self.link)
        return () if i is None else (i,)

    def met(self, src: _Sources) -> Optional[Tuple[Interface, Tuple[Addr, ...]]]:
        snap = src.snapshot()
        for i in self._links(snap):
            why, found = self._lacks(snap, i)
            if why is None:
                return i, found
        return None

    def missing(self, src: _Sources) -> str:
        snap = src.snapshot()
        links = self._links(snap)
        if self.link is not None and not links:
            return f"no link {_said(self.link)}"
        if not links:
            return "no link but loopback"
        whys = [self._lacks(snap, i)[0] or "" for i in links]
        return whys[0] if self.link is not None else "no link online: " + ", ".join(whys)


class _DefaultRoute(_Condition):
    tables = False
    routes = True

    def __init__(self, family: Optional[int], link: Optional[Union[str, int]]) -> None:
        self.family, self.link = family, link

    def met(self, src: _Sources) -> Optional[Gateway]:
        found = src.gateways()
        for family in (self.family,) if self.family is not None else sorted(found):
            for g in found.get(socket.AddressFamily(family), ()):
                if self.link is None or self.link in (g.ifname, g.index):
                    return g
        return None

    def missing(self, src: _Sources) -> str:
        fam = f"{_FAMILY_WORD[self.family]} " if self.family is not None else ""
        via = f" via {_said(self.link)}" if self.link is not None else ""
        return f"no {fam}default route{via}"


class _Predicate(_Condition):
    def __init__(self, predicate: Callable[[Live], object], what: str, routes: bool) -> None:
        self.predicate, self.what, self.routes = predicate, what, routes

    def met(self, src: _Sources) -> object:
        return self.predicate(src.live) or None

    def missing(self, src: _Sources) -> str:
        return self.what


class _All(_Condition):
    """Every one of conditions (a tuple of what each met), or any one (what it met)."""

    def __init__(self, conditions: Sequence[_Condition], any_one: bool = False) -> None:
        self.conditions, self.any_one = tuple(conditions), any_one
        self.tables = any(c.tables for c in conditions)
        self.routes = any(c.routes for c in conditions)

    def met(self, src: _Sources) -> object:
        found = []
        for c in self.conditions:
            got = c.met(src)
            if got is not None and self.any_one:
                return got
            if got is None and not self.any_one:
                return None
            found.append(got)
        return None if self.any_one else tuple(found)

    def missing(self, src: _Sources) -> str:
        lacking = [c.missing(src) for c in self.conditions if c.met(src) is None]
        return (" or " if self.any_one else "; ").join(lacking)


# ---- the waits ---------------------------------------------------------------------------


def _timed_out(who: str, seconds: float, cond: _Condition, src: _Sources) -> TimeoutError:
    return TimeoutError(f"{who}: timed out after {seconds:g} s: {cond.missing(src)}")


def _block(fds: List[int], left: Optional[float]) -> None:
    p = select.poll()
    for fd in fds:
        p.register(fd, select.POLLIN)
    p.poll(_poll_ms(left))


def _steps(
    who: str, cond: _Condition, timeout: Optional[float], netns: Optional[Namespace]
) -> Generator[Tuple[List[int], Optional[float]], None, object]:
    """A wait's steps, for its blocking and its asyncio form alike: check cond;
    until it holds, yield (the descriptors, the seconds left) to block on for
    the next notification, then check again.  Its return value is what was met;
    closing it closes its sources."""
    seconds = timeout_seconds(timeout, who)
    src = _Sources(who, netns, cond.tables, cond.routes)
    try:
        deadline = None if seconds is None else time.monotonic() + seconds
        while True:
            src.check()
            got = cond.met(src)
            if got is not None:
                return got
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                assert seconds is not None
                raise _timed_out(who, seconds, cond, src)
            yield src.fds(), left
            src.woken()
    finally:
        src.close()


def _run(
    who: str, cond: _Condition, timeout: Optional[float], netns: Optional[Namespace]
) -> object:
    steps = _steps(who, cond, timeout, netns)
    try:
        while True:
            _block(*next(steps))
    except StopIteration as done:
        return done.value
    finally:
        steps.close()


async def _readable(fds: List[int], left: Optional[float]) -> None:
    """Until one of fds is readable or left seconds pass, on the running loop."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    timer = None if left is None else loop.call_later(left, wake)
    try:
        for fd in fds:
            loop.add_reader(fd, wake)
        await ready
    finally:
        for fd in fds:
            loop.remove_reader(fd)
        if timer is not None:
            timer.cancel()


async def _run_async(
    who: str, cond: _Condition, timeout: Optional[float], netns: Optional[Namespace]
) -> object:
    steps = _steps(who, cond, timeout, netns)
    try:
        while True:
            await _readable(*next(steps))
    except StopIteration as done:
        return done.value
    finally:
        steps.close()  # (cancelled too: its sources closed)


def _link_condition(
    who: str, link: Link, up: bool, carrier: bool, operstate: Optional[str]
) -> _LinkIs:
    name = _link_arg(who, link)
    assert name is not None
    return _LinkIs(
        name,
        _bool_arg(who, "up", up),
        _bool_arg(who, "carrier", carrier),
        _operstate_arg(who, operstate),
    )


def _addr_condition(
    who: str,
    link: Optional[Link],
    family: Optional[int],
    address: Union[None, str, ipaddress.IPv4Address, ipaddress.IPv6Address],
    optimistic: bool,
) -> _AddrOn:
    name = _link_arg(who, link, optional=True)
    fam = _family_arg(who, family)
    packed, fam = _address_arg(who, address, fam)
    return _AddrOn(name, fam, packed, _bool_arg(who, "optimistic", optimistic))


def _route_condition(who: str, family: Optional[int], link: Optional[Link]) -> _DefaultRoute:
    return _DefaultRoute(_family_arg(who, family), _link_arg(who, link, optional=True))


def _predicate_condition(
    who: str, predicate: Callable[[Live], object], what: str, routes: bool
) -> _Predicate:
    if not callable(predicate):
        raise TypeError(f"{who}: predicate must be callable, not {type(predicate).__name__}")
    if not isinstance(what, str):
        raise TypeError(f"{who}: what must be a str, not {type(what).__name__}")
    return _Predicate(predicate, what, _bool_arg(who, "routes", routes))


def wait_link(
    link: Link,
    *,
    up: bool = False,
    carrier: bool = False,
    operstate: Optional[str] = None,
    timeout: Optional[float] = None,
    netns: Optional[Namespace] = None,
) -> Interface:
    """Wait until the link exists -- and, as asked, is up (administratively),
    has carrier, or is in the operational state ``operstate`` (one of
    OPERSTATES) -- and return it as it then is.

    ``link`` is a name (the primary one), an index, or an Interface (its
    index). Carrier and operstate count as the kernel tells them (its link
    watch, up to a second after the driver's change). Raises TimeoutError
    after ``timeout`` seconds, saying what was missing; TypeError and
    ValueError for bad arguments, naming them; OSError when the kernel fails.
    """
    cond = _link_condition("wait_link", link, up, carrier, operstate)
    got = _run("wait_link", cond, timeout, netns)
    assert isinstance(got, Interface)
    return got


def wait_addr(
    link: Optional[Link] = None,
    family: Optional[int] = None,
    *,
    address: Union[None, str, ipaddress.IPv4Address, ipaddress.IPv6Address] = None,
    optimistic: bool = False,
    timeout: Optional[float] = None,
    netns: Optional[Namespace] = None,
) -> Addr:
    """Wait until ``link`` (None: any link but loopback) has a usable unicast
    address of ``family`` (4 or AF_INET, 6 or AF_INET6; None: either) --
    ``address`` itself, when given -- and return it.

    Usable: out of DAD, neither tentative nor dadfailed (an address a socket
    can bind); with ``optimistic``, an optimistic address counts while its
    DAD runs. IPv4 addresses have no DAD and count when added. Given an
    ``address`` and no link, any link counts, loopback too. Raises
    TimeoutError, TypeError, ValueError and OSError as wait_link().
    """
    cond = _addr_condition("wait_addr", link, family, address, optimistic)
    got = _run("wait_addr", cond, timeout, netns)
    assert isinstance(got, Addr)
    return got


def wait_default_route(
    family: Optional[int] = None,
    *,
    link: Optional[Link] = None,
    timeout: Optional[float] = None,
    netns: Optional[Namespace] = None,
) -> Gateway:
    """Wait until the main table has a default route through a gateway, of
    ``family`` (None: either; IPv4 first) and out of ``link`` when given,
    and return its Gateway as ``default_gateways()`` gives it (the lowest
    metric first). Woken by the kernel's route notifications. Raises
    TimeoutError, TypeError, ValueError and OSError as wait_link().
    """
    cond = _route_condition("wait_default_route", family, link)
    got = _run("wait_default_route", cond, timeout, netns)
    assert isinstance(got, Gateway)
    return got


def wait_until(
    predicate: Callable[[Live], Optional[T]],
    *,
    what: str = "the condition",
    routes: bool = False,
    timeout: Optional[float] = None,
    netns: Optional[Namespace] = None,
) -> T:
    """Wait until ``predicate(tables)`` returns something true, and return it.

    ``tables`` is a ``live()`` table (read ``tables.snapshot()`` for one
    consistent read); the predicate is called once at first and again after
    each change the kernel tells of links and addresses, and with
    ``routes`` of routes too (read them in the predicate). ``what`` names
    the condition in the TimeoutError. Raises TypeError, ValueError and
    OSError as wait_link(), and whatever the predicate raises.
    """
    cond = _predicate_condition("wait_until", predicate, what, routes)
    return _run("wait_until", cond, timeout, netns)  # type: ignore[return-value]


async def async_wait_link(
    link: Link,
    *,
    up: bool = False,
    carrier: bool = False,
    operstate: Optional[str] = None,
    timeout: Optional[float] = None,
    netns: Optional[Namespace] = None,
) -> Interface:
    """wait_link() on the running asyncio loop (its add_reader; no thread)."""
    cond = _link_condition("async_wait_link", link, up, carrier, operstate)
    got = await _run_async("async_wait_link", cond, timeout, netns)
    assert isinstance(got, Interface)
    return got


async def async_wait_addr(
    link: Optional[Link] = None,
    family: Optional[int] = None,
    *,
    address: Union[None, str, ipaddress.IPv4Address, ipaddress.IPv6Address] = None,
    optimistic: bool = False,
    timeout: Optional[float] = None,
    netns: Optional[Namespace] = None,
) -> Addr:
    """wait_addr() on the running asyncio loop (its add_reader; no thread)."""
    cond = _addr_condition("async_wait_addr", link, family, address, optimistic)
    got = await _run_async("async_wait_addr", cond, timeout, netns)
    assert isinstance(got, Addr)
    return got


async def async_wait_default_route(
    family: Optional[int] = None,
    *,
    link: Optional[Link] = None,
    timeout: Optional[float] = None,
    netns: Optional[Namespace] = None,
) -> Gateway:
    """wait_default_route() on the running asyncio loop (its add_reader; no thread)."""
    cond = _route_condition("async_wait_default_route", family, link)
    got = await _run_async("async_wait_default_route", cond, timeout, netns)
    assert isinstance(got, Gateway)
    return got


async def async_wait_until(
    predicate: Callable[[Live], Optional[T]],
    *,
    what: str = "the condition",
    routes: bool = False,
    timeout: Optional[float] = None,
    netns: Optional[Namespace] = None,
) -> T:
    """wait_until() on the running asyncio loop (its add_reader; no thread)."""
    cond = _predicate_condition("async_wait_until", predicate, what, routes)
    return await _run_async("async_wait_until", cond, timeout, netns)  # type: ignore[return-value]
