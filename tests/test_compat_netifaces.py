"""netifc.compat.netifaces against netifaces 0.11 itself, in namespaces.

Both answer in the same thread, inside the same namespace: nslab's lab
(veth pairs, a bridge, a tun with point-to-point peers, link-local zones,
secondary and labelled addresses, a down link, tentative and deprecated
addresses, a 15-byte and a non-ASCII name) with a few more kinds added here,
and the routes lab of test_routes.py (defaults by metric, multipath,
another table's default, gateways of the other family). Every answer must
be equal, value for value and in order. What ifaddresses() asks the kernel
is read with strace: one link and its addresses, no ioctl per address, never a
table dump.
"""

import ast
import os
import re
import subprocess
import sys

import pytest

from conftest import require_namespaces
from netifc import _netifc
from nslab import BYTES_NAME, TOOL_ENV, build_lab, require_strace

if os.environ.get("NETIFC_ASAN"):
    pass  # netifaces asked in a child process (_InChild, below)
elif os.environ.get("CI") and sys.platform == "linux" and sys.version_info < (3, 14):
    import netifaces  # the test extra installs it there: CI must compare
else:
    netifaces = pytest.importorskip("netifaces")
ours = pytest.importorskip("netifc.compat.netifaces")


class _InChild:
    """netifaces asked in a child process (of this thread's network namespace,
    without the ASan runtime), each answer read back from its repr: under CI's
    LeakSanitizer run (NETIFC_ASAN), where netifaces' own module set-up leaves
    31 strings unreachable in the process that imports it."""

    def __getattr__(self, name):
        def ask(*args):
            code = f"import netifaces; print(repr(netifaces.{name}(*{args!r})))"
            r = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, env=TOOL_ENV
            )
            if r.returncode:
                kind, _, said = r.stderr.strip().splitlines()[-1].partition(": ")
                known = {"ValueError": ValueError, "TypeError": TypeError}
                if kind not in known:
                    raise OSError(r.stderr)
                raise known[kind](said)
            return ast.literal_eval(r.stdout)

        if name.startswith("AF_") or name in ("address_families", "version"):
            return ast.literal_eval(
                subprocess.run(
                    [sys.executable, "-c", f"import netifaces; print(repr(netifaces.{name}))"],
                    capture_output=True,
                    text=True,
                    env=TOOL_ENV,
                    check=True,
                ).stdout
            )
        return ask


if os.environ.get("NETIFC_ASAN"):
    netifaces = _InChild()

if not hasattr(_netifc, "_routes"):
    pytest.skip("netifc.compat.netifaces answers on Linux only", allow_module_level=True)

# The name netifaces cannot read: it is not UTF-8, and netifaces' interfaces()
# crashes the interpreter on it. The lab's link of that name is renamed here.
RENAMED = "vbytes0"


# ifaddresses() asks for one link: with the kernel's strict checking, and
# without (the addresses filtered in C).
pytestmark = pytest.mark.backends("netlink", "netlink-nostrict")


@pytest.fixture(scope="module")
def nflab():
    require_namespaces()
    ns = build_lab()
    try:
        ns.ip("link", "set", BYTES_NAME, "name", RENAMED)
        ns.batch(
            [
                "link add vx0 type veth peer name vx1",
                "addr add 169.254.7.7/16 brd + dev vx0",
                "addr add 10.40.0.1 peer 10.40.0.9/24 dev vx0",
                "addr add 2001:db8:40::1 peer 2001:db8:40::9 dev vx0",
                "addr add 2001:db8:41::1/65 dev vx0 nodad",
                "addr add 2001:db8:42::1/0 dev vx0 nodad",
                "addr add 10.41.0.1/8 dev vx0 label vx0:a",
                "addr add 10.41.0.2/8 dev vx0 label vx0:a",
                "addr add 10.42.0.1/24 brd 10.42.0.127 dev vx0 label vx0:b",
                "addr add 10.43.0.1/0 dev vx1",
                # links whose order by index is not the order they were made in
                "link add vy0 index 300 type veth peer name vy1",
                "link add vz0 index 200 type veth peer name vz1",
                "addr add 10.44.0.1/24 dev vy0 label vy0:x",
                "addr add 10.45.0.1/24 dev vz0 label vz0:x",
                # one address under three labels: each listed under its own
                "addr add 10.46.0.1/24 dev vx1 label vx1:p",
                "addr add 10.46.0.1/25 dev vx1 label vx1:q",
                "addr add 10.46.0.1/26 dev vx1 label vx1:r",
                # no IFA_ADDRESS from the kernel: netifaces gives no broadcast key
                "addr add 10.47.0.1 peer 0.0.0.0 dev vx1",
                "addr add 10.47.1.1 peer 0.0.0.0/24 brd 10.47.1.255 dev vx1",
                "addr add 10.47.0.2 peer 0.0.0.0 dev tun0",
                # an IPv6 peer that is link-local: with its zone
                "addr add 2001:db8:48::1 peer fe80::9 dev vx1 nodad",
                "addr add 2001:db8:49::1 peer fe80::a dev tun0 nodad",
                "link set vx0 up",
            ]
        )
        yield ns
    finally:
        ns.delete()


def test_interfaces_equal_netifaces(nflab):
    with nflab.entered():
        theirs = netifaces.interfaces()
        assert ours.interfaces() == theirs
    assert {"v0:1", "vx0:a", "vx0:b", RENAMED, "tun0"} <= set(theirs)
    assert theirs.index("vz0:x") < theirs.index("vy0:x")


def test_ifaddresses_equal_netifaces(nflab):
    with nflab.entered():
        names = netifaces.interfaces()
        for name in names:
            assert ours.ifaddresses(name) == netifaces.ifaddresses(name), name
        # The order of the families too (dicts compare without it).
        for name in names:
            assert list(ours.ifaddresses(name)) == list(netifaces.ifaddresses(name)), name


def test_both_paths_equal_netifaces(nflab):
    """A link's answer comes from C on the netlink backend (_link_c: the
    core's records made into dicts) and from the Python rules elsewhere
    (_link: of Addr objects): each equals netifaces', families in order; a
    label is no link's name to either (None: ifaddresses asks for labels)."""
    with nflab.entered():
        names = netifaces.interfaces()
        theirs = {n: netifaces.ifaddresses(n) for n in names}
        got = {path.__name__: {n: path(n) for n in names} for path in (ours._link_c, ours._link)}
    links = {i["ifname"] for i in nflab.ipj("link", "show")}
    assert links <= set(names)
    for path, answers in got.items():
        for name in names:
            if name not in links:
                assert answers[name] is None, (path, name)
                continue
            assert answers[name] == theirs[name], (path, name)
            assert list(answers[name]) == list(theirs[name]), (path, name)


def test_the_kinds_are_there(nflab):
    """The comparison above met every kind of entry it is meant to."""
    with nflab.entered():
        got = {n: ours.ifaddresses(n) for n in ours.interfaces()}
    lo, tun, vx0 = got["lo"], got["tun0"], got["vx0"]
    assert lo[ours.AF_LINK] == [{"addr": "00:00:00:00:00:00", "peer": "00:00:00:00:00:00"}]
    assert lo[ours.AF_INET] == [{"addr": "127.0.0.1", "netmask": "255.0.0.0", "peer": "127.0.0.1"}]
    assert ours.AF_LINK not in tun
    assert {
        "addr": "2001:db8:9::1",
        "peer": "2001:db8:9::2",
        "netmask": "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128",
    } in tun[ours.AF_INET6]
    assert {"addr": "169.254.7.7", "netmask": "255.255.0.0"} in vx0[ours.AF_INET]
    assert {"addr": "2001:db8:41::1", "netmask": "ffff:ffff:ffff:ffff:8000::/65"} in vx0[
        ours.AF_INET6
    ]
    assert {"addr": "2001:db8:42::1", "netmask": "::/0"} in vx0[ours.AF_INET6]
    assert any(e["addr"].endswith("%v0") for e in got["v0"][ours.AF_INET6])
    assert [e["addr"] for e in got["vx0:a"][ours.AF_INET]] == ["10.41.0.1", "10.41.0.2"]
    assert got["vx0:b"] == {
        ours.AF_INET: [
            {"addr": "10.42.0.1", "netmask": "255.255.255.0", "broadcast": "10.42.0.127"}
        ]
    }
    assert "10.41.0.1" not in str(vx0)
    assert got["vd0"][ours.AF_INET]  # a down link's address
    for name, prefix in (("vx1:p", "255.255.255.0"), ("vx1:q", "255.255.255.128")):
        assert got[name] == {
            ours.AF_INET: [{"addr": "10.46.0.1", "netmask": prefix, "broadcast": "10.46.0.1"}]
        }
    assert "10.46.0.1" not in str(got["vx1"])
    vx1 = got["vx1"]
    assert {"addr": "10.47.0.1", "netmask": "255.255.255.255"} in vx1[ours.AF_INET]
    assert {"addr": "10.47.0.2", "netmask": "255.255.255.255"} in tun[ours.AF_INET]
    assert {
        "addr": "10.47.1.1",
        "netmask": "255.255.255.0",
        "broadcast": "10.47.1.255",
    } in vx1[ours.AF_INET]
    assert {
        "addr": "2001:db8:48::1",
        "netmask": "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128",
        "broadcast": "fe80::9%vx1",
    } in vx1[ours.AF_INET6]
    assert {
        "addr": "2001:db8:49::1",
        "netmask": "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128",
        "peer": "fe80::a%tun0",
    } in tun[ours.AF_INET6]


def test_a_32_with_its_broadcast():
    """/32 brd X: netifaces gives X, as ip -j does; a lab of its own, which
    waits (skips) while the core drops a /31's or /32's broadcast."""
    require_namespaces()
    ns = build_lab()
    try:
        ns.batch(
            [
                "addr add 10.48.0.5/32 brd 10.48.0.255 dev v1",
                "addr add 10.48.1.4/31 brd 10.48.1.255 dev v1 label v1:w",
            ]
        )
        with ns.entered():
            import netifc

            kept = {a.address: a.broadcast for a in netifc.interface_by_name("v1").addrs()}
            mine = {n: ours.ifaddresses(n) for n in ("v1", "v1:w")}
            theirs = {n: netifaces.ifaddresses(n) for n in ("v1", "v1:w")}
        ipj = {
            a["local"]: a.get("broadcast")
            for a in ns.ipj("addr", "show", "dev", "v1")[0]["addr_info"]
        }
        assert ipj["10.48.0.5"] == "10.48.0.255" and ipj["10.48.1.4"] == "10.48.1.255"
        if kept["10.48.0.5"] is None:
            pytest.skip("the core drops a /31's or /32's broadcast (issue 20, item 3)")
        assert mine == theirs
        assert {"addr": "10.48.0.5", "netmask": "255.255.255.255", "broadcast": "10.48.0.255"} in (
            theirs["v1"][ours.AF_INET]
        )
    finally:
        ns.delete()


def test_many_addresses_on_one_link():
    """2,000 addresses on a link, a third under labels: every one where
    netifaces lists it, in its order (the per-address ioctl made this
    quadratic)."""
    require_namespaces()
    ns = build_lab()
    try:
        ns.ip("link", "set", BYTES_NAME, "name", RENAMED)
        cmds = []
        for n in range(2000):
            label = f" label v1:{n % 3}" if n % 3 else ""
            cmds.append(f"addr add 10.{50 + n // 250}.{n % 250}.1/16 dev v1{label}")
        ns.batch(cmds)
        with ns.entered():
            names = netifaces.interfaces()
            assert ours.interfaces() == names
            for name in ("v1", "v1:1", "v1:2"):
                assert ours.ifaddresses(name) == netifaces.ifaddresses(name), name
            assert len(ours.ifaddresses("v1:1")[ours.AF_INET]) == 667
    finally:
        ns.delete()


@pytest.mark.parametrize("bad", ["nosuch0", "", "v0:9", "vx0:", ":1", "x" * 40])
def test_unknown_names_raise_as_netifaces(nflab, bad):
    with nflab.entered():
        with pytest.raises(ValueError) as theirs:
            netifaces.ifaddresses(bad)
        with pytest.raises(ValueError) as mine:
            ours.ifaddresses(bad)
    assert str(mine.value) == str(theirs.value) == "You must specify a valid interface name."


@pytest.mark.parametrize("bad", [None, 1, b"lo", ["lo"]])
def test_wrong_types_raise_as_netifaces(bad):
    with pytest.raises(TypeError) as theirs:
        netifaces.ifaddresses(bad)
    with pytest.raises(TypeError) as mine:
        ours.ifaddresses(bad)
    assert str(mine.value) == str(theirs.value)
    with pytest.raises(ValueError, match="embedded null character"):
        ours.ifaddresses("lo\0")


def test_a_name_that_is_not_utf8():
    """netifaces crashes on it; netifc gives it surrogate-escaped, as ip names it."""
    require_namespaces()
    ns = build_lab()
    try:
        with ns.entered():
            assert BYTES_NAME in ours.interfaces()
            got = ours.ifaddresses(BYTES_NAME)
        mac = ns.ipj("link", "show", "dev", BYTES_NAME)[0]["address"]
        assert got == {ours.AF_LINK: [{"addr": mac, "broadcast": "ff:ff:ff:ff:ff:ff"}]}
    finally:
        ns.delete()


@pytest.mark.skipif(
    bool(os.environ.get("NETIFC_ASAN")),
    reason="under ASan netifaces is asked in a child process, not its module introspected"
    " (every other run checks its constants and docstrings)",
)
def test_constants_equal_netifaces():
    names = [n for n in dir(netifaces) if n.startswith("AF_")]
    assert {n: getattr(ours, n) for n in names} == {n: getattr(netifaces, n) for n in names}
    # netifaces lists only the families its C compiler knew: the manylinux1
    # wheel of CPython 3.9, built on an old glibc, has no AF_ISDN. Ours lists
    # them all, in netifaces' order; the ones a build lacks are left out.
    theirs = list(netifaces.address_families.items())
    mine = [(v, n) for v, n in ours.address_families.items() if hasattr(netifaces, n)]
    assert mine == theirs
    assert {n for n in ours.address_families.values() if not hasattr(netifaces, n)} <= {"AF_ISDN"}
    assert ours.version == netifaces.version
    for fn in ("interfaces", "ifaddresses", "gateways"):
        assert getattr(ours, fn).__doc__.startswith(getattr(netifaces, fn).__doc__.split("\n")[0])


def test_host_equals_netifaces():
    """The machine's own links and routes, whatever they are. Other programs
    may change them between the two reads: a difference must last three
    reads to fail."""

    def both():
        names = netifaces.interfaces()
        theirs = (names, [netifaces.ifaddresses(n) for n in names], netifaces.gateways())
        mine = (ours.interfaces(), [ours.ifaddresses(n) for n in names], ours.gateways())
        return mine, theirs

    mine, theirs = None, "links kept vanishing between the calls"
    for _ in range(3):
        try:
            mine, theirs = both()
        except ValueError:  # a link gone between interfaces() and ifaddresses()
            continue
        if mine == theirs:
            break
    assert mine == theirs


@pytest.fixture(scope="module")
def gwlab():
    require_namespaces()
    from test_routes import build_routes_lab

    ns = build_routes_lab()
    try:
        ns.batch(
            [
                # another table's default, with a lower metric than main's
                "route add default via 10.2.0.1 dev vc table 100 metric 10",
                "route add default via 10.1.0.1 dev va table 1000",
                "route add 0.0.0.0/1 via 10.2.0.1 dev vc metric 300",
                "route add default via 10.2.0.1 dev vc metric 3000000000 table 200",
                "route add ::/1 via fe80::2 dev vc metric 400",
                "route add default via 2001:db8:1::1 dev va table 100",
            ]
        )
        yield ns
    finally:
        ns.delete()


def test_gateways_equal_netifaces(gwlab):
    with gwlab.entered():
        theirs = netifaces.gateways()
        mine = ours.gateways()
    assert mine == theirs
    assert list(mine) == list(theirs)
    assert theirs["default"]  # the lab has default gateways of both families
    assert len(theirs[ours.AF_INET]) >= 4 and len(theirs[ours.AF_INET6]) >= 3


def test_no_gateway_equals_netifaces(nflab):
    with nflab.entered():
        assert ours.gateways() == netifaces.gateways() == {"default": {}}


def test_ifaddresses_asks_for_one_link(nflab):
    """What the kernel is asked, seen by strace: the link by name (no dump),
    its addresses by index; no ioctl of the drop-in's own, nothing else."""
    require_strace("the drop-in's request test")
    code = (
        "import os, netifc.compat.netifaces as n\n"
        "n.ifaddresses('lo')\n"  # the socket made, the imports done
        "os.write(1, b'compat-mark\\n')\n"
        "n.ifaddresses('v1')\n"
    )
    r = nflab.run(
        [
            "strace",
            "-f",
            "-e",
            "trace=socket,sendto,sendmsg,ioctl,write",
            "-o",
            "/dev/stderr",
            sys.executable,
            "-c",
            code,
        ],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert r.returncode == 0, r.stderr[-2000:]
    calls = r.stderr.split("compat-mark", 1)[1].splitlines()[1:]
    sends = [c for c in calls if "sendto(" in c or "sendmsg(" in c]
    assert len(sends) == 2, sends
    assert "RTM_GETLINK" in sends[0] and "NLM_F_DUMP" not in sends[0]
    assert "RTM_GETADDR" in sends[1] and re.search(
        r"ifa_index=(if_nametoindex\(\"v1\"\)|[1-9])", sends[1]
    )
    assert nflab.ipj("-4", "addr", "show", "dev", "v1")[0]["addr_info"]  # it has some
    # No ioctl per address; the core may name the link's zone (SIOCGIFNAME), once.
    ioctls = [c for c in calls if "ioctl(" in c]
    assert len(ioctls) <= 1 and all("SIOCGIFNAME" in c for c in ioctls), ioctls
    assert not any("RTM_GETROUTE" in c for c in calls), calls


@pytest.mark.soak
def test_no_leak(nflab):
    """Descriptors and memory stay flat over many calls."""
    import gc
    import tracemalloc

    with nflab.entered():
        for _ in range(50):
            ours.ifaddresses("v0:1")
            ours.ifaddresses("v0")
        fds = len(os.listdir("/proc/self/fd"))
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(500):
            ours.ifaddresses("v0")
            ours.ifaddresses("v0:1")
            ours.interfaces()
            ours.gateways()
            with pytest.raises(ValueError):
                ours.ifaddresses("v0:9")
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert len(os.listdir("/proc/self/fd")) == fds
    assert grown < 64 * 1024, grown
