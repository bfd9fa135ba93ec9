"""Link counters and link settings, against /proc/net/dev, sysfs, ethtool and
traffic the tests send between two namespaces over a veth pair."""

import json
import os
import pickle
import re
import shutil
import socket
import sys

import pytest

import netifc
from conftest import BACKENDS, MORE_PATHS, require_namespaces
from netifc import _netifc
from nslab import Netns, in_forked_child, in_new_thread

# Every backend, and the link settings' ioctl path (SIOCETHTOOL, not ethtool netlink).
pytestmark = pytest.mark.backends("netlink", "netlink-nostrict", "netlink-ioctl", "getifaddrs")
WRAP = 2**32  # the getifaddrs backend's counters are the kernel's 32-bit ones


# /proc/net/dev's columns, each the sum of these counters (the kernel's
# dev_seq_printf_stats).
PROC_COLUMNS = (
    ("rx_bytes",),
    ("rx_packets",),
    ("rx_errors",),
    ("rx_dropped", "rx_missed_errors"),
    ("rx_fifo_errors",),
    ("rx_length_errors", "rx_over_errors", "rx_crc_errors", "rx_frame_errors"),
    ("rx_compressed",),
    ("multicast",),
    ("tx_bytes",),
    ("tx_packets",),
    ("tx_errors",),
    ("tx_dropped",),
    ("tx_fifo_errors",),
    ("collisions",),
    ("tx_carrier_errors", "tx_aborted_errors", "tx_window_errors", "tx_heartbeat_errors"),
    ("tx_compressed",),
)


def proc_net_dev():
    """{name: 16 ints} from this thread's namespace's /proc/net/dev."""
    out = {}
    with open("/proc/thread-self/net/dev") as f:
        for line in f.readlines()[2:]:
            name, _, rest = line.partition(":")
            out[name.strip()] = [int(x) for x in rest.split()]
    return out


def rise(before, now, wrap):
    """How much a counter rose from before to now; the 32-bit ones wrap."""
    return (now - before) % WRAP if wrap else now - before


def check_against_proc(read, wrap):
    """Every counter /proc/net/dev shows, read between two reads of it."""
    before = proc_net_dev()
    got = read()
    after = proc_net_dev()
    assert {c.ifname for c in got} == set(before) == set(after)
    for c in got:
        for col, fields in enumerate(PROC_COLUMNS):
            values = [getattr(c, f) for f in fields]
            assert None not in values, (c.ifname, fields)
            lo, hi = before[c.ifname][col], after[c.ifname][col]
            assert rise(lo, sum(values), wrap) <= hi - lo, (c.ifname, fields, lo, values, hi)


def test_counters_match_proc_net_dev_on_the_host(backend):
    check_against_proc(netifc.counters, backend == "getifaddrs")


def test_one_interfaces_counters_match_proc_net_dev(backend):
    links = netifc.interfaces()
    check_against_proc(lambda: [i.counters() for i in links], backend == "getifaddrs")


def test_counters_name_each_interface_by_its_index(backend):
    by_index = {i.index: i.name for i in netifc.interfaces()}
    assert {c.index: c.ifname for c in netifc.counters()} == by_index


def test_counters_fields_are_the_kernels(backend):
    c = netifc.interface_by_name("lo").counters()
    assert _netifc._counter_fields[:4] == ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes")
    assert list(c.as_dict()) == list(_netifc._counter_fields)
    known = [v for v in c.as_dict().values() if v is not None]
    if backend == "getifaddrs":
        # struct rtnl_link_stats: the 23 fields every kernel sends
        assert len(known) == 23 and c.rx_nohandler is None and c.rx_otherhost_dropped is None
    else:
        assert len(known) >= 24


def test_counters_are_values(backend):
    c = netifc.interface_by_name("lo").counters()
    again = pickle.loads(pickle.dumps(c))
    assert again == c and hash(again) == hash(c) and repr(again) == repr(c)
    assert repr(c).startswith(f"Counters(index={c.index}, ifname='lo', rx_bytes=")
    with pytest.raises(AttributeError):
        c.rx_bytes = 0
    with pytest.raises(TypeError):
        netifc.Counters()
    values = tuple(c.as_dict().values())
    assert _netifc._counters(c.index, "lo", values) == c
    changed = (values[0] + 1,) + values[1:]
    assert _netifc._counters(c.index, "lo", changed) != c


@pytest.mark.parametrize(
    "args, error",
    [
        ((0, "lo", (0,) * 25), ValueError),
        ((1, "", (0,) * 25), ValueError),
        ((1, "x" * 16, (0,) * 25), ValueError),
        ((1, "a\0b", (0,) * 25), ValueError),
        ((1, "lo", (0,) * 24), ValueError),
        ((1, "lo", (None,) + (0,) * 24), ValueError),
        ((1, "lo", (-1,) + (0,) * 24), OverflowError),
        ((1, "lo", (2**64,) + (0,) * 24), OverflowError),
        ((1, "lo", ("1",) + (0,) * 24), TypeError),
        ((1, "lo", (True,) + (0,) * 24), TypeError),
        ((1, "lo", [0] * 25), TypeError),
        (("1", "lo", (0,) * 25), TypeError),
    ],
)
def test_rebuilt_counters_refuse_bad_values(backend, args, error):
    with pytest.raises(error):
        _netifc._counters(*args)


# ---- in namespaces of the tests' own ---------------------------------------


@pytest.fixture(scope="module")
def pair():
    """Two namespaces joined by a veth pair: ca (192.0.2.1) in one, cb
    (192.0.2.2) in the other, without IPv6 (no ND or MLD noise)."""
    require_namespaces()
    a, b = Netns("cta"), Netns("ctb")
    try:
        for ns in (a, b):
            ns.sysctl("net.ipv6.conf.all.disable_ipv6", 1)
            ns.sysctl("net.ipv6.conf.default.disable_ipv6", 1)
        a.ip("link", "add", "ca", "type", "veth", "peer", "name", "cb", "netns", b.name)
        a.batch(["addr add 192.0.2.1/24 dev ca", "link set ca up"])
        b.batch(["addr add 192.0.2.2/24 dev cb", "link set cb up"])
        # Static neighbours: no ARP between the counts.
        mac_a = a.ipj("link", "show", "ca")[0]["address"]
        mac_b = b.ipj("link", "show", "cb")[0]["address"]
        a.ip("neigh", "replace", "192.0.2.2", "lladdr", mac_b, "dev", "ca", "nud", "permanent")
        b.ip("neigh", "replace", "192.0.2.1", "lladdr", mac_a, "dev", "cb", "nud", "permanent")
        yield a, b
    finally:
        a.delete()
        b.delete()


def counters_of(ns, name):
    with ns.entered():
        return {c.ifname: c for c in netifc.counters()}[name]


def test_counters_match_proc_net_dev_in_a_namespace(backend, pair):
    for ns in pair:
        with ns.entered():
            check_against_proc(netifc.counters, backend == "getifaddrs")


N, PAYLOAD = 200, 1000
FRAME = PAYLOAD + 8 + 20 + 14  # UDP, IPv4 and Ethernet headers, as veth counts it
SLACK = 5  # packets not of the test's own (none expected)


def test_counters_rise_by_the_traffic_sent(backend, pair):
    a, b = pair
    wrap = backend == "getifaddrs"
    with b.entered():
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with a.entered():
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        rx.bind(("192.0.2.2", 0))
        rx.settimeout(5)
        before_a, before_b = counters_of(a, "ca"), counters_of(b, "cb")
        with a.entered():
            one_before = netifc.interface_by_name("ca").counters()
        for _ in range(N):  # each read before the next is sent: none dropped at rx
            tx.sendto(b"x" * PAYLOAD, rx.getsockname())
            assert len(rx.recv(2048)) == PAYLOAD
        after_a, after_b = counters_of(a, "ca"), counters_of(b, "cb")
        with a.entered():
            one_after = netifc.interface_by_name("ca").counters()
    finally:
        rx.close()
        tx.close()
    for before, after, direction in (
        (before_a, after_a, "tx"),
        (before_b, after_b, "rx"),
        (one_before, one_after, "tx"),
    ):
        packets = rise(
            getattr(before, f"{direction}_packets"), getattr(after, f"{direction}_packets"), wrap
        )
        sent = rise(
            getattr(before, f"{direction}_bytes"), getattr(after, f"{direction}_bytes"), wrap
        )
        assert N <= packets <= N + SLACK, (direction, packets)
        assert N * FRAME <= sent <= N * FRAME + SLACK * 1514, (direction, sent)
    assert after_b.rx_errors == before_b.rx_errors and after_b.rx_dropped == before_b.rx_dropped


def test_a_vanished_interfaces_counters_raise(backend, pair):
    a, _ = pair
    with a.entered():
        a.ip("link", "add", "ctgone", "type", "veth", "peer", "name", "ctgone1")
        gone = netifc.interface_by_name("ctgone")
        assert gone.counters().ifname == "ctgone"
        a.ip("link", "del", "ctgone")
        with pytest.raises(netifc.NoSuchInterface, match="ctgone"):
            gone.counters()
        assert "ctgone" not in {c.ifname for c in netifc.counters()}


def names_agree(ns):
    """counters() names each link as ip -j link and /proc/net/dev do, at one moment."""
    got = {(c.index, c.ifname) for c in netifc.counters()}
    links = {(l["ifindex"], l["ifname"]) for l in ns.ipj("link")}
    assert got == links, got ^ links
    assert {name for _, name in got} == set(proc_net_dev())


def test_counters_names_follow_renames_and_removals(backend, pair):
    """The names kept between calls follow every rename, new link and
    removal, and a burst of changes larger than the kernel will queue."""
    a, _ = pair
    with a.entered():
        names_agree(a)
        a.batch([f"link add ctr{i} type veth peer name ctq{i}" for i in range(4)])
        names_agree(a)
        for _ in range(3):  # renamed one way and back: each call sees the last name
            a.batch([f"link set ctr{i} name ctn{i}" for i in range(4)])
            names_agree(a)
            a.batch([f"link set ctn{i} name ctr{i}" for i in range(4)])
            names_agree(a)
        a.batch(
            ["link del ctr1", "link set ctr2 name ctn2", "link add ctr5 type veth peer name ctq5"]
        )
        names_agree(a)
        # Many more notifications than a socket's queue holds: some are lost.
        renames = [("ctr0", "ct0x")] + [(f"ct{j % 2}x", f"ct{(j + 1) % 2}x") for j in range(400)]
        a.batch(
            [f"link set {old} name {new}" for old, new in renames]
            + [f"link set ctq{i} name ctp{i}" for i in (0, 3)]
        )
        names_agree(a)
        a.batch(["link del ct0x", "link del ctp3", "link del ctn2", "link del ctr5"])
        names_agree(a)


def test_counters_names_survive_fork(backend, pair):
    """A child of a process that has called counters() shares nothing with
    it: the parent's names still follow a rename the child makes."""
    a, _ = pair
    with a.entered():
        a.ip("link", "add", "ctf0", "type", "veth", "peer", "name", "ctf1")
        try:
            names_agree(a)

            def child():  # a call of its own, a rename, another call
                netifc.counters()
                a.ip("link", "set", "ctf0", "name", "ctf2")
                return sorted(c.ifname for c in netifc.counters())

            assert "ctf2" in in_forked_child(child)
            names_agree(a)
            assert "ctf2" in {c.ifname for c in netifc.counters()}
        finally:
            a.ip("link", "del", "ctf2", check=False)
            a.ip("link", "del", "ctf0", check=False)


def test_counters_in_a_thread_follow_its_namespace(backend, pair):
    a, b = pair

    def names():
        with b.entered():
            return {c.ifname for c in netifc.counters()}

    assert in_new_thread(names, timeout=30) == {"lo", "cb"}
    with a.entered():
        assert {c.ifname for c in netifc.counters()} == {"lo", "ca"}


# ---- link settings -----------------------------------------------------------


def sysfs_settings(ns, name):
    """(speed or None, duplex or None) as sysfs tells them in ns."""

    def read(what):
        r = ns.run(["cat", f"/sys/class/net/{name}/{what}"], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else None

    speed, duplex = read("speed"), read("duplex")
    speed = int(speed) if speed and int(speed) > 0 else None
    return speed, duplex if duplex in ("full", "half") else None


def test_veth_link_settings_match_sysfs_and_ethtool(backend, pair):
    a, _ = pair
    with a.entered():
        ls = netifc.interface_by_name("ca").link_settings()
        lo = netifc.interface_by_name("lo").link_settings()
    assert isinstance(ls, netifc.LinkSettings)
    assert (ls.speed, ls.duplex) == tuple(ls) == sysfs_settings(a, "ca") == (10000, "full")
    assert lo is None and sysfs_settings(a, "lo") == (None, None)
    if shutil.which("ethtool"):
        out = a.run(["ethtool", "ca"], capture_output=True, text=True, check=True).stdout
        assert "Speed: 10000Mb/s" in out and "Duplex: Full" in out
    elif os.environ.get("CI"):
        pytest.fail("CI must compare link settings with ethtool: it is not installed")


def test_host_link_settings_match_sysfs(backend):
    from nslab import Host

    host = Host()
    for i in netifc.interfaces():
        ls = i.link_settings()
        want = sysfs_settings(host, i.name)
        assert (None if ls is None else tuple(ls)) == (None if want == (None, None) else want), i


def test_link_settings_of_a_vanished_interface_raise(backend, pair):
    a, _ = pair
    with a.entered():
        a.ip("link", "add", "ctgone2", "type", "veth", "peer", "name", "ctgone3")
        gone = netifc.interface_by_name("ctgone2")
        assert tuple(gone.link_settings()) == (10000, "full")
        a.ip("link", "del", "ctgone2")
        with pytest.raises(netifc.NoSuchInterface, match="'ctgone2'"):
            gone.link_settings()


# ---- netifc -s ---------------------------------------------------------------


def cli(ns, backend, *args):
    name, options = {**BACKENDS, **MORE_PATHS}[backend]
    code = (
        "import sys, netifc._netifc as m; m._set_backend(sys.argv[1], int(sys.argv[2]));"
        "from netifc.__main__ import main; sys.exit(main(sys.argv[3:]))"
    )
    return ns.run(
        [sys.executable, "-c", code, name, str(options), *args],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        cwd="/",
    )


def ip_stats(ns, *args):
    """`ip -s link` text less what netifc -s leaves out: what `netifc` leaves
    out of `ip addr` (test_cli_ip.strip_ip), and `mode` on the first line."""
    from test_cli_ip import strip_ip

    text = ns.ip("-s", "link", "show", *args).stdout
    text = re.sub(r"(?m)^(\d+: .*) mode \S+", r"\1", text)
    return strip_ip(text, ns.ipj("link", "show", *args))


def test_cli_stats_is_ip_s_link(backend, pair):
    for ns in pair:  # small counts: the 32-bit ones (getifaddrs) read the same
        for args in ((), (("ca" if ns is pair[0] else "cb"),)):
            want = ip_stats(ns, *args)
            r = cli(ns, backend, "-s", *args)
            assert r.returncode == 0 and r.stderr == "", r.stderr
            assert ip_stats(ns, *args) == want, "counters moved while compared"
            if backend == "getifaddrs":  # its operstate is derived from the flags
                want = re.sub(r"(?m)^(\d+: .*) state \S+", r"\1", want)
                r.stdout = re.sub(r"(?m)^(\d+: .*) state \S+", r"\1", r.stdout)
            assert r.stdout == want


def test_cli_stats_json_has_every_counter(backend, pair):
    a, _ = pair
    r = cli(a, backend, "-s", "-j", "ca")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [(d["index"], d["name"]) for d in doc] == [
        (l["ifindex"], "ca") for l in a.ipj("link", "show", "ca")
    ]
    assert list(doc[0]["counters"]) == list(_netifc._counter_fields)
    ip = a.ipj("-s", "link", "show", "ca")[0]["stats64"]
    for field, key in (("rx_bytes", ("rx", "bytes")), ("tx_packets", ("tx", "packets"))):
        got = doc[0]["counters"][field]
        assert got is not None and got % WRAP == ip[key[0]][key[1]] % WRAP


def test_cli_stats_refuses_other_forms(backend):
    from nslab import Host

    for args in (("-s", "-b"), ("-s", "-m"), ("-s", "-4")):
        r = cli(Host(), backend, *args)
        assert r.returncode == 2 and "-s/--stats" in r.stderr
    r = cli(Host(), backend, "-s", "nfc-none0")
    assert r.returncode == 1 and "nfc-none0" in r.stderr
