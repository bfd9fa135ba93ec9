"""netifc.Flags, AddrFlags and Addr6Flags: int formatting, text, the kernel's
bit values, and which class an address's flags are."""

import os
import pathlib
import re
import socket

import pytest

import netifc
from conftest import BACKENDS, require_namespaces
from netifc import _netifc
from nslab import Netns, wait_link_locals

FLAG_CLASSES = (netifc.Flags, netifc.AddrFlags, netifc.Addr6Flags)
SPECS = ("x", "#x", "X", "#06x", "d", "b", "o", "08b", ">6", "<6", "^7", "+d", ",", "_x", "n")


@pytest.mark.parametrize("cls", FLAG_CLASSES)
@pytest.mark.parametrize("spec", SPECS)
def test_a_format_spec_formats_the_int(cls, spec):
    for value in (0, 1, 0x21, 0x80, 0x41, 0xFFF, 0x1000, 0xFFFFFFFF):
        flags = cls(value)
        assert format(flags, spec) == format(value, spec)
        assert f"{flags:{spec}}" == format(value, spec)


@pytest.mark.parametrize("cls", FLAG_CLASSES)
def test_no_format_spec_is_the_text(cls):
    for value in (0, 1, 0x21, 0x1000):
        assert f"{cls(value)}" == format(cls(value)) == str(cls(value))
    assert f"{netifc.Flags.UP | netifc.Flags.LOOPBACK}" == "up|loopback"


def parse_text(cls, text):
    """The value a flags text stands for: names of cls, then at most one hex number."""
    if text == "0":
        return 0
    value, words = 0, text.split("|")
    if words[-1].startswith("0x"):
        value = int(words.pop(), 16)
    names = [m.name.lower() for m in cls]
    assert words == sorted(words, key=names.index), f"not in value order: {text}"
    for w in words:
        value |= int(cls[w.upper()])
    return value


@pytest.mark.parametrize(
    "cls,top", [(netifc.Flags, 1 << 8), (netifc.AddrFlags, 1 << 13), (netifc.Addr6Flags, 1 << 13)]
)
def test_text_names_every_bit_and_reads_back(cls, top):
    known = 0
    for m in cls:
        known |= int(m)
    for value in list(range(top)) + [0xFFFFFFFF, 0x80000000, known | 0x10000]:
        text = str(cls(value))
        assert (text == "0") == (value == 0)
        assert parse_text(cls, text) == value
        unknown = value & ~known
        assert (
            text.endswith(f"|{unknown:#x}") or text == f"{unknown:#x}"
            if unknown
            else "0x" not in text
        )


def test_text_examples():
    F, A, A6 = netifc.Flags, netifc.AddrFlags, netifc.Addr6Flags
    assert str(F.UP | F.BROADCAST | F.MULTICAST | F.RUNNING) == "up|broadcast|multicast|running"
    assert str(F(0)) == "0"
    assert str(F(0x401)) == "up|0x400"
    assert str(F(0x40)) == "0x40"
    assert str(A(0x81)) == "secondary|permanent"
    assert str(A6(0x81)) == "temporary|permanent"
    assert str(A6(0x1080)) == "permanent|0x1000"


def test_repr_is_the_same_on_every_cpython():
    """Members in value order, unnamed bits as a number, ``<Cls: N>`` when no
    member is set: the form CPython 3.11 and later give, on 3.9 and 3.10 too
    (whose own order is reversed and whose zero is ``<Cls.0: 0>``)."""
    F, R = netifc.Flags, netifc.RouteFlags
    assert repr(F.RUNNING | F.LOOPBACK | F.UP) == "<Flags.UP|LOOPBACK|RUNNING: 37>"
    assert repr(F(0)) == "<Flags: 0>"
    assert repr(R(0)) == "<RouteFlags: 0>"
    assert repr(F(0x401)) == "<Flags.UP|1024: 1025>"
    assert repr(F(0x40)) == "<Flags: 64>"


def kernel_ifa_flags():
    """{NAME: value} of the IFA_F_* macros in the kernel's uapi header."""
    header = pathlib.Path("/usr/include/linux/if_addr.h")
    if not header.exists():
        pytest.skip("the kernel's uapi headers are not installed (linux-libc-dev)")
    defs = dict(re.findall(r"#define\s+IFA_F_(\w+)\s+(\w+)", header.read_text()))
    return {
        name: int(v, 16) if v.startswith("0x") else int(defs[v.replace("IFA_F_", "")], 16)
        for name, v in defs.items()
    }


def test_addr_flags_are_the_kernels_ifa_f_bits():
    kernel = kernel_ifa_flags()
    v4 = {m.name: int(m) for m in netifc.AddrFlags}
    v6 = {m.name: int(m) for m in netifc.Addr6Flags}
    assert v4 == {k: v for k, v in kernel.items() if k != "TEMPORARY"}
    assert v6 == {k: v for k, v in kernel.items() if k != "SECONDARY"}


def test_flag_values_are_gos():
    F = netifc.Flags
    assert [(m.name, int(m)) for m in F] == [
        ("UP", 1),
        ("BROADCAST", 2),
        ("LOOPBACK", 4),
        ("POINTTOPOINT", 8),
        ("MULTICAST", 16),
        ("RUNNING", 32),
    ]


def test_forever_is_what_ip_prints_for_forever():
    assert netifc.FOREVER == 0xFFFFFFFF == 4294967295


@pytest.fixture(scope="module")
def privacy_ns():
    """A namespace with an IPv4 secondary address and an IPv6 address whose
    temporary (privacy) address the kernel made."""
    require_namespaces()
    ns = Netns("flags")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.sysctl("net.ipv6.conf.default.use_tempaddr", 2)
        ns.batch(
            [
                "link add d0 type veth peer name d1",
                "link set d0 up",
                "link set d1 up",
                "addr add 192.0.2.1/24 dev d0",
                "addr add 192.0.2.9/24 dev d0",
                "addr add 2001:db8:5::1/64 dev d0 mngtmpaddr",
            ]
        )
        # their link-local addresses come with the carrier, a moment later:
        # before the tests compare with ip, not between ip's read and theirs
        wait_link_locals(ns, ["d0", "d1"])
        yield ns
    finally:
        ns.delete()


def ip_flag_words(ns):
    """{(address, prefixlen): set of ip -j's flag keys} for every address."""
    words = {"secondary", "temporary", "mngtmpaddr", "deprecated", "tentative", "dynamic"}
    return {
        (a["local"], a["prefixlen"]): {w for w in words if a.get(w)}
        for link in ns.ipj("addr", "show")
        for a in link.get("addr_info", [])
    }


@pytest.mark.parametrize("backend_name", list(BACKENDS))
def test_address_flags_class_and_text_follow_the_family(privacy_ns, backend_name):
    want = ip_flag_words(privacy_ns)
    assert any("temporary" in w for w in want.values()), (
        f"the kernel made no temporary address: {want}"
    )
    assert any("secondary" in w for w in want.values())
    _netifc._set_backend(*BACKENDS[backend_name])
    try:
        with privacy_ns.entered():
            addrs = netifc.interface_addrs()
    finally:
        _netifc._set_backend(os.environ.get("NETIFC_BACKEND", ""), 0)
    seen = set()
    for a in addrs:
        if a.index == 1:
            continue
        seen.add((a.address, a.prefixlen))
        words = set(str(a.flags).split("|"))
        if a.family == socket.AF_INET6:
            assert type(a.flags) is netifc.Addr6Flags
            assert "secondary" not in words
        else:
            assert type(a.flags) is netifc.AddrFlags
            assert "temporary" not in words
        if BACKENDS[backend_name][0] == "getifaddrs":
            continue  # it knows no address flags
        ip = want[(a.address, a.prefixlen)]
        for w in ("secondary", "temporary", "mngtmpaddr", "deprecated", "tentative"):
            name = "managetempaddr" if w == "mngtmpaddr" else w
            assert (name in words) == (w in ip), (a, ip, backend_name)
        assert ("permanent" in words) == ("dynamic" not in ip)
    assert seen == {k for k in want if not k[0].startswith(("127.", "::1"))}
