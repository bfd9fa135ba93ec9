"""Values that mean what they say: equality and hash on exactly the exposed
fields, the kernel's whole flag word, altnames, lifetimes, flag names, reprs."""

import pickle
import re
import socket

import pytest

import netifc
from conftest import require_namespaces
from nslab import Netns, in_new_thread, recheck_until

# What each record exposes as its fields (derived views such as
# hardware_addr_str or Addr.ip are computed from these).
IFACE_FIELDS = (
    "index",
    "name",
    "flags",
    "raw_flags",
    "mtu",
    "hardware_addr",
    "hardware_broadcast",
    "operstate",
    "link_type",
    "altnames",
)
ADDR_FIELDS = (
    "family",
    "address",
    "prefixlen",
    "zone",
    "index",
    "peer",
    "broadcast",
    "label",
    "scope",
    "flags",
    "preferred_lifetime",
    "valid_lifetime",
)
LIFETIMES = ("preferred_lifetime", "valid_lifetime")

# The kernel's IFF_* bits by the names `ip link` prints (linux/if.h).
IFF = {
    "UP": 0x1,
    "BROADCAST": 0x2,
    "DEBUG": 0x4,
    "LOOPBACK": 0x8,
    "POINTOPOINT": 0x10,
    "NOTRAILERS": 0x20,
    "RUNNING": 0x40,
    "NOARP": 0x80,
    "PROMISC": 0x100,
    "ALLMULTI": 0x200,
    "MASTER": 0x400,
    "SLAVE": 0x800,
    "MULTICAST": 0x1000,
    "PORTSEL": 0x2000,
    "AUTOMEDIA": 0x4000,
    "DYNAMIC": 0x8000,
    "LOWER_UP": 0x10000,
    "DORMANT": 0x20000,
    "ECHO": 0x40000,
}
# What ifi_flags carries beyond dev->flags (/sys/class/net/X/flags): the state bits.
STATE_BITS = IFF["RUNNING"] | IFF["LOWER_UP"] | IFF["DORMANT"]

# Longer than a name may be; short; not ASCII; not UTF-8 (the byte 0xff).
ALTNAMES = ("vp0-alternative-name-longer-than-ifnamsiz", "vp0alt", "vp0\u00e9", "vp0\udcff")


@pytest.fixture(scope="module")
def vals():
    """A namespace with a veth pair whose one end has altnames, IPv4 primary and
    secondary addresses, an IPv6 prefix with kernel-made temporary addresses, an
    address with finite lifetimes, and a tun link (no hardware broadcast)."""
    require_namespaces()
    ns = Netns("vals")
    try:
        ns.sysctl("net.ipv6.conf.all.accept_dad", 0)  # no address changes state
        ns.sysctl("net.ipv6.conf.default.accept_dad", 0)
        ns.batch(
            ["link add vp0 type veth peer name vp1", "tuntap add dev vtun0 mode tun"]
            + [f"link property add dev vp0 altname {a}" for a in ALTNAMES]
            + ["link set vp0 up", "link set vp1 up", "link set vtun0 up"]
        )
        ns.sysctl("net.ipv6.conf.vp0.use_tempaddr", 2)
        ns.batch(
            [
                "addr add 192.0.2.1/24 dev vp0",
                "addr add 192.0.2.2/24 dev vp0",
                "addr add 2001:db8:7::1/64 dev vp0 mngtmpaddr",
                "addr add 2001:db8:8::1/64 dev vp0 valid_lft 100 preferred_lft 50",
                "addr add 2001:db8:9::1/64 dev vp0",
            ]
        )
        yield ns
    finally:
        ns.delete()


def inside(ns, fn):
    """fn() from a fresh thread in ns."""

    def run():
        with ns.entered():
            return fn()

    return in_new_thread(run)


def fields(obj, names):
    return {f: getattr(obj, f) for f in names}


def sysfs_flags(ns, name):
    out = ns.run(
        ["cat", f"/sys/class/net/{name}/flags"], capture_output=True, text=True, check=True
    ).stdout
    return int(out, 16)


def ip_raw_flags(link):
    """The IFF_* word `ip -j link` shows: its flag names, and RUNNING, which ip
    leaves out but tells by printing NO-CARRIER for an up link without it."""
    bits = 0
    for name in link["flags"]:
        if name in ("NO-CARRIER", "M-DOWN"):
            continue
        assert name in IFF, f"ip printed a flag this test does not know: {name}"
        bits |= IFF[name]
    if bits & IFF["UP"] and "NO-CARRIER" not in link["flags"]:
        bits |= IFF["RUNNING"]
    return bits


def mac_bytes(text):
    return bytes.fromhex(text.replace(":", "")) if text else b""


# ---- equality and hash -------------------------------------------------------------


def test_same_link_read_twice_is_equal():
    lo = [i for i in netifc.interfaces() if i.flags & netifc.Flags.LOOPBACK][0]
    again = netifc.interface_by_index(lo.index)
    assert lo == again and hash(lo) == hash(again)
    assert fields(lo, IFACE_FIELDS) == fields(again, IFACE_FIELDS)
    assert not (lo != again)


@pytest.mark.backends
def test_promiscuous_mode_shows_in_raw_flags(backend, vals):
    """Promiscuous mode changes the kernel's flag word only: the object differs in
    raw_flags (0x100, as /sys says) and in nothing else, so it is unequal for a
    reason one can see; switched off, the link equals its first reading again."""

    def read():
        return inside(vals, lambda: netifc.interface_by_name("vp1"))

    before = read()
    assert before.raw_flags & IFF["PROMISC"] == 0
    vals.ip("link", "set", "vp1", "promisc", "on")
    try:
        during = read()
        sysfs = sysfs_flags(vals, "vp1")
    finally:
        vals.ip("link", "set", "vp1", "promisc", "off")
    after = read()
    assert sysfs & IFF["PROMISC"]
    assert during.raw_flags & IFF["PROMISC"]
    assert during.raw_flags & ~STATE_BITS == sysfs & ~STATE_BITS
    assert during != before and not (during == before)
    changed = [f for f in IFACE_FIELDS if getattr(during, f) != getattr(before, f)]
    assert changed == ["raw_flags"]
    assert during.raw_flags ^ before.raw_flags == IFF["PROMISC"]
    assert after == before and hash(after) == hash(before)


@pytest.mark.backends
def test_added_altname_shows_and_counts(backend, vals):
    """A new altname makes the link unequal through its altnames field alone (on
    the netlink backend; getifaddrs knows none, so nothing changes there)."""

    def read():
        return inside(vals, lambda: netifc.interface_by_name("vp1"))

    before = read()
    vals.ip("link", "property", "add", "dev", "vp1", "altname", "vp1-later")
    try:
        during = read()
    finally:
        vals.ip("link", "property", "del", "dev", "vp1", "altname", "vp1-later")
    after = read()
    if backend == "getifaddrs":
        assert during == before and during.altnames == ()
    else:
        assert during != before
        assert [f for f in IFACE_FIELDS if getattr(during, f) != getattr(before, f)] == ["altnames"]
        assert during.altnames == before.altnames + ("vp1-later",)
    assert after == before and hash(after) == hash(before)


@pytest.mark.backends
def test_records_equal_exactly_when_exposed_fields_are(backend, where):
    """Across every link and every address: equal exactly when the exposed fields
    (less an address's lifetimes) are equal, and equal ones hash alike."""
    links = inside(where, netifc.interfaces) if where.name else netifc.interfaces()
    again = inside(where, netifc.interfaces) if where.name else netifc.interfaces()
    for a in links:
        for b in again:
            same = fields(a, IFACE_FIELDS) == fields(b, IFACE_FIELDS)
            assert (a == b) == same, (a, b)
            if same:
                assert hash(a) == hash(b)
    addrs = inside(where, netifc.interface_addrs) if where.name else netifc.interface_addrs()
    keyed = [f for f in ADDR_FIELDS if f not in LIFETIMES]
    for a in addrs:
        for b in addrs:
            same = fields(a, keyed) == fields(b, keyed)
            assert (a == b) == same, (a, b)


@pytest.mark.backends
def test_labels_match_ip(backend, where, vals):
    """Addr.label is ip's IPv4 label (the link's name, or "v0:1"), "" for IPv6
    and for groups: on the host, in the lab, and with labels added here."""
    vals.ip("addr", "add", "10.77.0.1/24", "dev", "vp1", "label", "vp1:lb")
    vals.ip("addr", "add", "10.77.0.1/25", "dev", "vp1", "label", "vp1:lc")
    try:
        for ns in (where, vals):
            addrs = inside(ns, netifc.interface_addrs) if ns.name else netifc.interface_addrs()
            want = sorted(
                (l["ifindex"], a["local"], a["prefixlen"], a.get("label", ""))
                for l in ns.ipj("addr", "show")
                for a in l.get("addr_info", [])
                if a["family"] in ("inet", "inet6")
            )
            got = sorted((a.index, a.address, a.prefixlen, a.label) for a in addrs)
            assert got == want
            groups = [g for g in every_record(ns) if isinstance(g, netifc.Addr)][len(addrs) :]
            assert groups and all(g.label == "" for g in groups)
        assert {"vp1:lb", "vp1:lc"} <= {a.label for a in inside(vals, netifc.interface_addrs)}
    finally:
        vals.ip("addr", "del", "10.77.0.1/24", "dev", "vp1")
        vals.ip("addr", "del", "10.77.0.1/25", "dev", "vp1")


# ---- the kernel's flag word, hardware broadcast, altnames ------------------------------


@pytest.mark.backends
def test_raw_flags_match_ip(backend, where):
    links = inside(where, netifc.interfaces) if where.name else netifc.interfaces()
    want = {l["ifindex"]: l for l in where.ipj("link", "show")}
    assert sorted(i.index for i in links) == sorted(want)
    for i in links:
        assert i.raw_flags == ip_raw_flags(want[i.index]), (
            i.name,
            hex(i.raw_flags),
            want[i.index]["flags"],
        )
        # Go's six bits are the same facts
        for go, iff in (
            ("UP", "UP"),
            ("BROADCAST", "BROADCAST"),
            ("LOOPBACK", "LOOPBACK"),
            ("POINTTOPOINT", "POINTOPOINT"),
            ("MULTICAST", "MULTICAST"),
            ("RUNNING", "RUNNING"),
        ):
            assert bool(i.flags & netifc.Flags[go]) == bool(i.raw_flags & IFF[iff])


@pytest.mark.backends
def test_raw_flags_match_sysfs(backend, vals):
    """raw_flags is /sys/class/net/X/flags plus the state bits ip shows."""
    links = inside(vals, netifc.interfaces)
    want = {l["ifindex"]: l for l in vals.ipj("link", "show")}
    for i in links:
        state = ip_raw_flags(want[i.index]) & STATE_BITS
        assert i.raw_flags == sysfs_flags(vals, i.name) | state, i.name


def test_lo_flag_word():
    lo = [i for i in netifc.interfaces() if i.flags & netifc.Flags.LOOPBACK][0]
    assert lo.raw_flags == 0x10049  # UP|LOOPBACK|RUNNING|LOWER_UP
    assert isinstance(lo.raw_flags, int) and not isinstance(lo.raw_flags, netifc.Flags)


@pytest.mark.backends
def test_hardware_broadcast_matches_ip(backend, where):
    links = inside(where, netifc.interfaces) if where.name else netifc.interfaces()
    want = {l["ifindex"]: l for l in where.ipj("link", "show")}
    for i in links:
        assert isinstance(i.hardware_broadcast, bytes)
        assert i.hardware_broadcast == mac_bytes(want[i.index].get("broadcast", "")), i.name
        if want[i.index].get("link_type") == "loopback":
            assert i.hardware_broadcast == b"\0" * 6 and i.hardware_addr == b""


@pytest.mark.backends
def test_tun_has_no_hardware_broadcast(backend, vals):
    tun = inside(vals, lambda: netifc.interface_by_name("vtun0"))
    assert "broadcast" not in vals.ipj("link", "show", "vtun0")[0]
    assert tun.hardware_broadcast == b"" and tun.hardware_addr == b""


@pytest.mark.backends
def test_altnames_match_ip(backend, vals):
    links = inside(vals, netifc.interfaces)
    want = {l["ifindex"]: l for l in vals.ipj("link", "show")}
    assert want[inside(vals, lambda: netifc.interface_by_name("vp0")).index]["altnames"] == list(
        ALTNAMES
    )
    for i in links:
        assert isinstance(i.altnames, tuple)
        if backend == "getifaddrs":
            assert i.altnames == ()
        else:
            assert i.altnames == tuple(want[i.index].get("altnames", [])), i.name


@pytest.mark.backends
def test_lookup_by_altname_is_no_such_interface(backend, vals):
    """A name lookup matches the primary name only, like Go's InterfaceByName."""

    def work():
        out = {"primary": netifc.interface_by_name("vp0"), "snapshot": netifc.snapshot()}
        for alt in ALTNAMES:
            with pytest.raises(netifc.NoSuchInterface, match=re.escape(repr(alt))):
                netifc.interface_by_name(alt)
            with pytest.raises(netifc.NoSuchInterface, match=re.escape(repr(alt))):
                out["snapshot"].by_name(alt)
        return out

    got = inside(vals, work)
    vp0 = [l for l in vals.ipj("link", "show") if l["ifname"] == "vp0"][0]
    assert got["primary"].index == vp0["ifindex"] and got["primary"].name == "vp0"
    assert got["snapshot"].by_name("vp0") == got["primary"]


# ---- lifetimes --------------------------------------------------------------------


def ip_addr(ns, address):
    for l in ns.ipj("addr", "show"):
        for a in l.get("addr_info", []):
            if a["local"] == address:
                return a
    raise AssertionError(f"ip shows no {address}")


def addr_of(addrs, address):
    found = [a for a in addrs if a.address == address]
    assert len(found) == 1, (address, addrs)
    return found[0]


@pytest.mark.backends
def test_ticking_lifetimes_do_not_change_equality(backend, vals):
    """An address with finite lifetimes, read a second apart: its lifetimes count
    down (as ip shows), yet the two readings are equal and hash alike."""
    ip_first = ip_addr(vals, "2001:db8:8::1")
    first = addr_of(inside(vals, netifc.interface_addrs), "2001:db8:8::1")
    # Until the kernel has counted both lifetimes down (whole seconds) below
    # the first reading's, as ip shows them.
    below = {
        "valid_life_time": first.valid_lifetime,
        "preferred_life_time": first.preferred_lifetime,
    }
    below = {f: ip_first[f] if v is None else v for f, v in below.items()}
    # (the kernel tells nothing as they fall: nslab.recheck_until)
    recheck_until(
        lambda: all(ip_addr(vals, "2001:db8:8::1")[f] < v for f, v in below.items()),
        "the lifetimes counted down",
        10,
        every=0.05,
    )
    second = addr_of(inside(vals, netifc.interface_addrs), "2001:db8:8::1")
    ip_second = ip_addr(vals, "2001:db8:8::1")
    assert first == second and hash(first) == hash(second)
    if backend == "getifaddrs":
        assert first.valid_lifetime is None and first.preferred_lifetime is None
        return
    for f, ipf in (
        ("valid_lifetime", "valid_life_time"),
        ("preferred_lifetime", "preferred_life_time"),
    ):
        assert ip_first[ipf] > ip_second[ipf]
        assert ip_first[ipf] >= getattr(first, f) > getattr(second, f) >= ip_second[ipf]
    assert first.valid_lifetime <= 100 and first.preferred_lifetime <= 50


@pytest.mark.backends
def test_permanent_lifetimes(backend, vals):
    a = addr_of(inside(vals, netifc.interface_addrs), "2001:db8:9::1")
    ip_a = ip_addr(vals, "2001:db8:9::1")
    assert ip_a["valid_life_time"] == ip_a["preferred_life_time"] == 4294967295
    if backend == "getifaddrs":  # the C library does not tell
        assert a.valid_lifetime is None and a.preferred_lifetime is None
    else:
        assert a.valid_lifetime == a.preferred_lifetime == netifc.FOREVER == 4294967295
    for g in inside(vals, lambda: netifc.interface_by_name("vp0").multicast_addrs()):
        assert g.valid_lifetime is None and g.preferred_lifetime is None


# ---- family and flag names ------------------------------------------------------------


@pytest.mark.backends
def test_family_is_address_family(backend, where):
    def work():
        out = list(netifc.interface_addrs())
        for i in netifc.interfaces():
            out += i.multicast_addrs()
        return out

    addrs = inside(where, work) if where.name else work()
    assert addrs
    for a in addrs:
        assert type(a.family) is socket.AddressFamily
        assert a.family == (socket.AF_INET6 if ":" in a.address else socket.AF_INET)
        assert repr(a.family).startswith("<AddressFamily.AF_INET")


def test_flag_classes_name_bit_one_by_family():
    assert str(netifc.Addr6Flags(1)) == "temporary"
    assert str(netifc.AddrFlags(1)) == "secondary"


@pytest.mark.backends
def test_temporary_and_secondary_by_name(backend, vals):
    """An IPv6 temporary address (made by the kernel for a mngtmpaddr prefix) prints
    "temporary"; an IPv4 secondary prints "secondary"; as ip says."""
    if backend == "getifaddrs":
        pytest.skip("getifaddrs() tells no address flags")
    addrs = inside(vals, netifc.interface_addrs)
    temporary = [
        a["local"]
        for l in vals.ipj("addr", "show", "dev", "vp0")
        for a in l["addr_info"]
        if a.get("temporary")
    ]
    assert temporary, "the kernel made no temporary address"
    for address in temporary:
        a = addr_of(addrs, address)
        assert type(a.flags) is netifc.Addr6Flags
        assert a.flags & 0x01
        assert "temporary" in str(a.flags).split("|") and "secondary" not in str(a.flags)
        assert "TEMPORARY" in repr(a.flags) and "SECONDARY" not in repr(a.flags)
    secondary = addr_of(addrs, "192.0.2.2")
    assert ip_addr(vals, "192.0.2.2").get("secondary")
    assert type(secondary.flags) is netifc.AddrFlags
    assert "secondary" in str(secondary.flags).split("|")
    assert "temporary" not in str(secondary.flags)
    primary = addr_of(addrs, "192.0.2.1")
    assert not primary.flags & 0x01 and "secondary" not in str(primary.flags)
    managed = addr_of(addrs, "2001:db8:7::1")
    assert not managed.flags & 0x01 and "temporary" not in str(managed.flags)


# ---- repr and pickle ----------------------------------------------------------------


def every_record(where):
    def work():
        out = list(netifc.interfaces()) + list(netifc.interface_addrs())
        for i in netifc.interfaces():
            out += i.multicast_addrs()
        return out

    return inside(where, work) if where.name else work()


def field_names(obj):
    return IFACE_FIELDS if isinstance(obj, netifc.Interface) else ADDR_FIELDS


@pytest.mark.backends
def test_repr_shows_each_field_as_its_attribute(backend, where):
    """Each field as its attribute's repr, but a link-layer address (bytes)
    as the text ip writes, quoted, in one form whether there is one or none:
    hardware_addr='02:fc:00:00:00:01', hardware_addr=''."""
    for obj in every_record(where):
        text = repr(obj)
        assert text.startswith(type(obj).__name__ + "(") and text.endswith(")")
        for f in field_names(obj):
            v = getattr(obj, f)
            shown = repr(":".join(f"{b:02x}" for b in v)) if isinstance(v, bytes) else repr(v)
            assert f"{f}={shown}" in text, (f, text)
        assert "=b'" not in text, text


@pytest.mark.backends
def test_repr_of_a_link_with_altnames(backend, vals):
    vp0 = inside(vals, lambda: netifc.interface_by_name("vp0"))
    for f in IFACE_FIELDS:
        v = getattr(vp0, f)
        shown = repr(":".join(f"{b:02x}" for b in v)) if isinstance(v, bytes) else repr(v)
        assert f"{f}={shown}" in repr(vp0)


@pytest.mark.backends
def test_pickle_round_trip(backend, vals):
    records = every_record(vals)
    assert (
        any(isinstance(r, netifc.Interface) and r.altnames for r in records)
        or backend == "getifaddrs"
    )
    for obj in records:
        back = pickle.loads(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL))
        assert type(back) is type(obj)
        assert back == obj and hash(back) == hash(obj)
        for f in field_names(obj):
            assert getattr(back, f) == getattr(obj, f), f
            assert type(getattr(back, f)) is type(getattr(obj, f)), f
        assert repr(back) == repr(obj)


def variants(value):
    """Values near `value` of its type, for a record's constructor to take or refuse."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int):
        return [value + 1, value ^ 0x100, value - 1]
    if isinstance(value, bytes):
        return [value[:-1] + bytes([value[-1] ^ 1])] if value else [b"\x02" * 6]
    if isinstance(value, str):
        return [value + "x", "x"]
    if isinstance(value, tuple):
        return [value + ("zz-alt",)]
    return []


@pytest.mark.backends
def test_every_constructor_argument_is_an_exposed_field(backend, vals):
    """Rebuild records (as pickle does) with one argument changed at a time: every
    change the constructor takes shows in an exposed field, and the records are
    equal exactly when their exposed fields (less lifetimes) are.  Nothing hidden
    decides equality."""
    tried = 0
    for obj in every_record(vals):
        make, args = obj.__reduce__()
        names = field_names(obj)
        keyed = [f for f in names if f not in LIFETIMES]
        for k, value in enumerate(args):
            for v in variants(value):
                try:
                    other = make(*args[:k], v, *args[k + 1 :])
                except (ValueError, TypeError, OverflowError):
                    continue
                tried += 1
                changed = [f for f in names if getattr(other, f) != getattr(obj, f)]
                assert changed, f"argument {k} of {make.__name__} is no exposed field"
                same = not [f for f in changed if f in keyed]
                assert (other == obj) == same, (k, v, changed)
                if same:
                    assert hash(other) == hash(obj)
    assert tried > 50
