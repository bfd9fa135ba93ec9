"""The Python API's contract: types, bad input, immutability, Go's invariants."""

import copy
import errno
import ipaddress
import os
import pickle
import resource
import socket

import pytest

import netifc
from nslab import in_new_thread


@pytest.fixture
def lo():
    for i in netifc.interfaces():
        if i.flags & netifc.Flags.LOOPBACK:
            return i
    pytest.skip("this host has no loopback interface")


# ---- bad input ---------------------------------------------------------------


@pytest.mark.parametrize("bad", ["1", None, 1.5, b"1", True, [1]])
def test_by_index_type_error(bad):
    with pytest.raises(TypeError):
        netifc.interface_by_index(bad)


@pytest.mark.parametrize("bad", [0, -1, -(2**63), -(2**100)])
def test_by_index_not_positive_is_no_such_interface(bad):
    # No interface has it: the one lookup rule (docs/rules.rst), not ValueError.
    with pytest.raises(netifc.NoSuchInterface, match=str(bad)) as e:
        netifc.interface_by_index(bad)
    assert type(e.value) is netifc.NoSuchInterface


@pytest.mark.parametrize("big", [2**31 - 1, 2**31, 2**32 + 1, 2**64, 2**200])
@pytest.mark.backends
def test_by_index_too_big_is_no_such_interface(big):
    with pytest.raises(netifc.NoSuchInterface, match=str(big)):
        netifc.interface_by_index(big)


@pytest.mark.parametrize("bad", [b"lo", None, 1, bytearray(b"lo")])
def test_by_name_type_error(bad):
    with pytest.raises(TypeError):
        netifc.interface_by_name(bad)


@pytest.mark.parametrize("bad", ["", "lo\0", "\0", "a\0b"])
def test_by_name_no_link_can_have_is_no_such_interface(bad):
    with pytest.raises(netifc.NoSuchInterface) as e:
        netifc.interface_by_name(bad)
    assert repr(bad) in str(e.value)


@pytest.mark.parametrize(
    "name", ["no-such-if-xyz", "x" * 16, "x" * 4096, "\udcff\udcfe", "tun/0", "a b"]
)
@pytest.mark.backends
def test_unknown_name_is_no_such_interface(name):
    with pytest.raises(netifc.NoSuchInterface) as e:
        netifc.interface_by_name(name)
    assert repr(name)[:40] in str(e.value)
    assert isinstance(e.value, LookupError)


def test_lone_surrogate_name_is_no_such_interface():
    with pytest.raises(netifc.NoSuchInterface):
        netifc.interface_by_name("\ud800")


# The steps a call can fail at, as the error names them.
STEPS = {
    "netlink socket",
    "netlink RTM_GETLINK dump",
    "netlink RTM_GETLINK request",
    "netlink RTM_GETADDR dump",
    "netlink RTM_GETMULTICAST dump",
    "SIOCGIFNAME",
    "/proc/net/igmp",
    "/proc/net/igmp6",
    "getifaddrs",
}


@pytest.mark.backends
def test_emfile_names_the_step_and_recovers(lo):
    """With no descriptor left every call raises OSError(EMFILE); then all works again."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    calls = [
        netifc.interfaces,
        netifc.interface_addrs,
        netifc.snapshot,
        lambda: netifc.interface_by_index(lo.index),
        lambda: netifc.interface_by_name(lo.name),
        lo.addrs,
        lo.multicast_addrs,
    ]
    for call in calls:
        lowest_free = os.dup(0)
        os.close(lowest_free)
        resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free, hard))
        try:
            with pytest.raises(OSError) as e:
                in_new_thread(call)
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        assert e.value.errno == errno.EMFILE
        step = e.value.strerror.rpartition(": ")[0]
        assert step in STEPS, e.value.strerror
        call()  # here, not in a new thread: a thread's socket closes after join()


def test_types_cannot_be_made_or_subclassed():
    for tp in (netifc.Interface, netifc.Addr):
        with pytest.raises(TypeError):
            tp()
        with pytest.raises(TypeError):
            type("Sub", (tp,), {})


def test_interface_is_immutable(lo):
    for attr in ("index", "name", "mtu", "flags", "hardware_addr", "operstate", "link_type"):
        with pytest.raises(AttributeError):
            setattr(lo, attr, getattr(lo, attr))
    with pytest.raises(AttributeError):
        lo.extra = 1
    with pytest.raises(AttributeError):
        del lo.name


def test_addr_is_immutable(lo):
    a = lo.addrs()[0]
    for attr in ("family", "address", "prefixlen", "zone", "index", "peer", "broadcast"):
        with pytest.raises(AttributeError):
            setattr(a, attr, None)
    with pytest.raises(AttributeError):
        a.extra = 1


# ---- value semantics -----------------------------------------------------------


@pytest.mark.backends
def test_interface_value_semantics(lo):
    again = netifc.interface_by_index(lo.index)
    assert again == lo and not (again != lo) and hash(again) == hash(lo)
    assert again is not lo
    assert lo != object() and lo != lo.index
    assert len({lo, again}) == 1
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(lo, proto))
        assert back == lo and type(back) is netifc.Interface
    assert copy.copy(lo) == lo and copy.deepcopy(lo) == lo
    r = repr(lo)
    assert r.startswith("Interface(") and f"index={lo.index}" in r and f"name={lo.name!r}" in r
    assert f"flags={lo.flags!r}" in r and f"raw_flags={lo.raw_flags!r}" in r


@pytest.mark.backends
def test_addr_value_semantics(lo):
    for a in lo.addrs() + lo.multicast_addrs():
        again = pickle.loads(pickle.dumps(a))
        assert again == a and hash(again) == hash(a) and type(again) is netifc.Addr
        assert repr(a).startswith("Addr(") and f"address={a.address!r}" in repr(a)
        assert ipaddress.ip_interface(str(a)) == a.interface
        # ipaddress drops the scope from an interface's .ip; compare without it.
        assert a.interface.ip == ipaddress.ip_address(a.address)
        assert getattr(a.ip, "scope_id", None) == (a.zone or None)
        assert a.network == a.interface.network and a.ip in a.network


def test_unpickling_checks_fields():
    make_if = netifc._netifc._interface
    assert make_if(1, "lo", 1500, 0, b"", 1, 0, b"", ("alt",)).altnames == ("alt",)
    with pytest.raises(ValueError):
        make_if(0, "lo", 1500, 0, b"", 1, 0, b"", ())
    with pytest.raises(ValueError):
        make_if(1, "x" * 16, 1500, 0, b"", 1, 0, b"", ())
    with pytest.raises(ValueError):
        make_if(1, "lo", 1500, 0, b"\1" * 33, 1, 0, b"", ())
    with pytest.raises(ValueError):
        make_if(1, "lo", 1500, 0, b"", 1, 0, b"\1" * 33, ())
    with pytest.raises(ValueError):
        make_if(1, "lo", 1500, 0, b"", 1, 0, b"", ("x" * 128,))
    with pytest.raises(ValueError):
        make_if(1, "lo", 1500, 0, b"", 1, 0, b"", ("a\0b",))
    with pytest.raises(TypeError):
        make_if(1, "lo", 1500, 0, b"", 1, 0, b"", ["alt"])
    make_addr = netifc._netifc._addr
    with pytest.raises(ValueError):
        make_addr(socket.AF_INET, b"\1\2\3", 8, 1, None, None, 0, 0, None, None, "")
    with pytest.raises(ValueError):
        make_addr(socket.AF_INET, b"\1\2\3\4", 33, 1, None, None, 0, 0, None, None, "")
    with pytest.raises(ValueError):
        make_addr(99, b"\1\2\3\4", 8, 1, None, None, 0, 0, None, None, "")
    with pytest.raises(ValueError):
        make_addr(socket.AF_INET, b"\1\2\3\4", 8, 1, None, None, 0, 0, 5, None, "")
    with pytest.raises(ValueError):
        make_addr(socket.AF_INET, b"\1\2\3\4", 8, 1, None, None, 0, 0, -1, 5, "")
    with pytest.raises(TypeError):
        make_addr(socket.AF_INET, b"\1\2\3\4", 8, 1, None, None, 0, 0, "5", 5, "")
    # What no backend ever gives: a zone on IPv4, none on link-local IPv6, a
    # peer that is the address itself.
    link_local = b"\xfe\x80" + bytes(13) + b"\1"
    for bad in (
        (socket.AF_INET, b"\1\2\3\4", 24, 1, None, None, 0, 0, None, None, "eth0"),
        (socket.AF_INET6, link_local, 64, 1, None, None, 0, 0, None, None, ""),
        (socket.AF_INET, b"\1\2\3\4", 24, 1, b"\1\2\3\4", None, 0, 0, None, None, ""),
    ):
        with pytest.raises(ValueError):
            make_addr(*bad)
    assert (
        make_addr(socket.AF_INET6, link_local, 64, 1, None, None, 0, 0, None, None, "eth0").zone
        == "eth0"
    )
    # a /32 the kernel gave a broadcast (addr add ... /32 brd X) keeps it
    slash32 = make_addr(
        socket.AF_INET, b"\1\2\3\4", 32, 1, None, b"\1\2\3\xff", 0, 0, None, None, ""
    )
    assert slash32.broadcast == "1.2.3.255"
    # The label: IPv4 only, at most 15 bytes, "" when left out (an older pickle).
    v4 = (socket.AF_INET, b"\1\2\3\4", 24, 1, None, None, 0, 0, None, None, "")
    assert make_addr(*v4, "eth0:1").label == "eth0:1" and make_addr(*v4).label == ""
    assert make_addr(*v4, "eth0:1") != make_addr(*v4, "eth0:2")
    for label in ("x" * 16, "a\0b"):
        with pytest.raises(ValueError):
            make_addr(*v4, label)
    with pytest.raises(TypeError):
        make_addr(*v4, b"eth0")
    with pytest.raises(ValueError):
        make_addr(socket.AF_INET6, link_local, 64, 1, None, None, 0, 0, None, None, "eth0", "x")


def test_flags_text_like_go():
    F = netifc.Flags
    assert str(F.UP | F.BROADCAST | F.MULTICAST | F.RUNNING) == "up|broadcast|multicast|running"
    assert str(F(0)) == "0"
    assert f"{F.LOOPBACK}" == "loopback"
    assert [
        int(f) for f in (F.UP, F.BROADCAST, F.LOOPBACK, F.POINTTOPOINT, F.MULTICAST, F.RUNNING)
    ] == [1, 2, 4, 8, 16, 32]
    A = netifc.AddrFlags
    assert (
        A.SECONDARY,
        A.NODAD,
        A.OPTIMISTIC,
        A.DADFAILED,
        A.HOMEADDRESS,
        A.DEPRECATED,
        A.TENTATIVE,
        A.PERMANENT,
    ) == (1, 2, 4, 8, 16, 32, 64, 128)
    assert netifc.Addr6Flags.TEMPORARY == A.SECONDARY
    assert str(A.PERMANENT | A.NODAD) == "nodad|permanent"


@pytest.mark.backends
def test_backend_is_named(backend):
    assert netifc.backend == backend.split("-")[0]


def test_bad_backend_name():
    with pytest.raises(ValueError, match="unknown netifc backend"):
        netifc._netifc._set_backend("carrier-pigeon")


# ---- Go's invariants (net/interface_test.go) ------------------------------------


@pytest.mark.backends
def test_every_interface_equals_its_lookups():
    for i in netifc.interfaces():
        assert netifc.interface_by_index(i.index) == i
        assert netifc.interface_by_name(i.name) == i
        assert i.index > 0 and i.name


@pytest.mark.backends
def test_addr_invariants():
    for i in netifc.interfaces():
        for a in i.addrs():
            assert a.index == i.index
            if a.family == socket.AF_INET:
                assert 0 <= a.prefixlen <= 32 and a.ip.version == 4
            else:
                assert 0 <= a.prefixlen <= 128 and a.ip.version == 6
            if i.flags & netifc.Flags.LOOPBACK and a.family == socket.AF_INET:
                assert a.prefixlen >= 8 and a.ip.is_loopback
            assert (a.zone == i.name) == (a.family == socket.AF_INET6 and a.ip.is_link_local)


@pytest.mark.backends
def test_loopback_invariants(lo):
    addrs = lo.addrs()
    v6 = [a for a in addrs if a.family == socket.AF_INET6]
    if lo.flags & netifc.Flags.UP and v6:
        assert any(str(a) == "::1/128" for a in v6)
        assert any(g.family == socket.AF_INET6 for g in lo.multicast_addrs())


@pytest.mark.backends
def test_snapshot_lookups(lo):
    snap = netifc.snapshot()
    assert snap.by_index(lo.index) == lo == snap.by_name(lo.name)
    assert snap.addrs_of(lo) == snap.addrs_of(lo.index) == lo.addrs()
    assert len(snap) == len(snap.interfaces) and list(snap) == list(snap.interfaces)
    assert f"{len(snap)} interfaces" in repr(snap)
    for bad, exc in (("1", TypeError), (True, TypeError), (2**31 - 1, netifc.NoSuchInterface)):
        with pytest.raises(exc):
            snap.by_index(bad)
        with pytest.raises(exc):
            snap.addrs_of(bad)
    for bad, exc in ((b"lo", TypeError), (None, TypeError), ("nfc-none0", netifc.NoSuchInterface)):
        with pytest.raises(exc):
            snap.by_name(bad)
