"""The Windows backend (csrc/windows/iphlpapi.c), cross-compiled with mingw-w64 and run under Wine.

Wine answers the Windows API from the Linux host it runs on, so the C driver
(csrc/check/win_driver.c) prints what GetAdaptersAddresses, GetIfEntry2 and
the LUID calls tell through iphlpapi.c, and iproute2 tells the truth about the same
links: of the host, and of the lab namespace (Wine started inside it).

Wine 8 names an adapter after its Linux name (FriendlyName "eth0") and keeps
its Linux index, so links are matched by index and the names compared.  What
Wine does not report as Linux does is asserted as Wine reports it (each rule
is named where it is asserted; README.rst's "Windows" section lists them).
"""

import ipaddress
import json
import os
import shutil
import subprocess
from types import SimpleNamespace

import pytest

from conftest import require_namespaces
from nslab import REPORTS, ip_addrs, ip_groups, ip_links

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
CORE = ["windows/iphlpapi.c", "core/addr.c", "core/vec.c", "core/backend.c"]
CC = "x86_64-w64-mingw32-gcc"
FAMILIES = {2: "inet", 23: "inet6"}  # Windows' AF_INET, AF_INET6
IFF_UP, IFF_BROADCAST, IFF_LOOPBACK, IFF_POINTOPOINT, IFF_RUNNING = 0x1, 0x2, 0x8, 0x10, 0x40
ARPHRD = {1: "ether", 772: "loopback"}
ARPHRD_PPP, ARPHRD_NONE = 512, 65534  # IF_TYPE_PPP maps to ARPHRD_PPP
WINE_LIFETIME = 60000  # what Wine 8 says of every address


def tool(*names):
    for name in names:
        path = shutil.which(name) or (
            name if os.path.isabs(name) and os.access(name, os.X_OK) else None
        )
        if path:
            return path
    return None


def wine_tools():
    """(wine64, wineserver), or skip (fail under CI) saying what is missing."""
    # Debian 12's Wine 8, then Debian 13's and sid's Wine 10 (wine64-stable,
    # its server under the multiarch directory)
    wine = tool("wine64", "/usr/lib/wine/wine64", "wine64-stable")
    server = tool(
        "wineserver", "/usr/lib/wine/wineserver", "/usr/lib/x86_64-linux-gnu/wine/wineserver"
    )
    missing = [
        what
        for what, path in (
            (CC + " (Debian gcc-mingw-w64-x86-64)", tool(CC)),
            ("wine64 (Debian wine64)", wine),
            ("wineserver (Debian wine64)", server),
        )
        if not path
    ]
    if missing:
        reason = "the Windows backend's test needs " + ", ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(f"CI must run it: {reason}")
        if reason not in REPORTS:
            REPORTS.append(reason)
        pytest.skip(reason)
    return wine, server


def clean_env(**more):
    """This environment without a preloaded sanitizer runtime (CI's ASan run),
    which neither the cross compiler nor Wine can live with."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update(more)
    return env


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    """The driver as built for use, and built with a 64-byte first buffer
    (GAA_FIRST_SIZE) so that every listing must grow it."""
    wine, server = wine_tools()
    out = tmp_path_factory.mktemp("windows")
    sources = [os.path.join(CSRC, "check", "win_driver.c"), *[os.path.join(CSRC, f) for f in CORE]]
    builds = {}
    for name, extra in (("exe", []), ("small", ["-DGAA_FIRST_SIZE=64"])):
        exe = out / f"win_driver-{name}.exe"
        builds[name] = (
            exe,
            subprocess.Popen(
                [
                    CC,
                    "-std=c11",
                    "-pedantic",
                    "-O2",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-I",
                    CSRC,
                    *extra,
                    "-o",
                    str(exe),
                    *sources,
                    "-liphlpapi",
                    "-lws2_32",
                ],
                env=clean_env(),
            ),
        )
    for exe, proc in builds.values():
        assert proc.wait() == 0, f"{CC} failed to build {exe.name}"
    return dict(exe=builds["exe"][0], small=builds["small"][0], dir=out, wine=wine, server=server)


def run_driver(driver, where, tag, exe="exe"):
    """The driver's JSON, run in `where`'s namespace.  Its Wine (and the
    Wine services that read the network) are stopped after it, so the next
    run starts them in its own namespace."""
    env = clean_env(WINEPREFIX=str(driver["dir"] / "prefix"), WINEDEBUG="-all")
    try:
        res = where.run(
            [driver["wine"], str(driver[exe])], env=env, capture_output=True, timeout=120
        )
    finally:
        subprocess.run([driver["server"], "-k"], env=env, capture_output=True, check=False)
        subprocess.run(
            [driver["server"], "-w"], env=env, capture_output=True, check=False, timeout=60
        )
    assert res.returncode == 0, f"{tag}: " + res.stderr.decode(errors="replace")[-2000:]
    return json.loads(res.stdout.decode("utf-8", errors="surrogateescape"))


def labelled(where):
    """ip's IPv4 addresses whose label is not their link's name (aliases such as "v0:1")."""
    return {
        (l["ifindex"], "inet", a["local"], a["prefixlen"])
        for l in where.ipj("addr", "show")
        for a in l.get("addr_info", [])
        if a["family"] == "inet" and a.get("label", l["ifname"]) != l["ifname"]
    }


def truth(where):
    """iproute2's links, addresses (lifetimes aside: they count down), groups, aliases."""
    addrs = {
        i: [{k: v for k, v in a.items() if k not in ("valid", "preferred")} for a in rows]
        for i, rows in ip_addrs(where).items()
    }
    return dict(
        links=ip_links(where), addrs=addrs, groups=ip_groups(where), aliases=labelled(where)
    )


@pytest.fixture(scope="module")
def runs(driver, request):
    """A function of "host" or "lab": the driver's JSON ("got") and iproute2's view,
    each asked once; the driver's run falls between two equal answers of ip."""
    done = {}

    def get(name):
        if name not in done:
            where = request.getfixturevalue(name)
            for _ in range(5):
                before = truth(where)
                got = run_driver(driver, where, name)
                small = run_driver(driver, where, name, "small")
                if truth(where) == before:
                    break
            else:
                pytest.fail(f"the links of {name} kept changing while Wine ran")
            done[name] = SimpleNamespace(where=name, got=got, small=small, **before)
        return done[name]

    return get


@pytest.fixture(params=["host", "lab"])
def seen(request, runs):
    if request.param == "lab":
        require_namespaces()
    return runs(request.param)


def wine_name(name):
    """Wine decodes a Linux name as UTF-8, each byte that is not UTF-8 as U+FFFD."""
    raw = name.encode("utf-8", errors="surrogateescape")
    return raw.decode("utf-8", errors="replace")


def test_links(seen):
    got, links = seen.got, seen.links
    assert got["backend"] == "windows"
    mine = {l["index"]: l for l in got["links"]}
    assert sorted(mine) == sorted(links), "Wine lists every link, by its Linux index"
    for index, want in links.items():
        l = mine[index]
        assert l["name"] == wine_name(want["name"]), index
        assert l["mtu"] == want["mtu"], l["name"]
        assert l["hwaddr"] == want["hw"].replace(":", ""), l["name"]
        # Wine's OperStatus is up exactly when the link is administratively UP
        # (a tun without carrier too); Go's rule makes that up and running.
        up = "UP" in want["flags"]
        assert bool(l["flags"] & IFF_UP) == up and bool(l["flags"] & IFF_RUNNING) == up
        assert l["operstate"] == (6 if up else 2), l["name"]
        # Wine's IfType: ethernet for ARPHRD_ETHER, software loopback for lo,
        # for the rest IF_TYPE_OTHER (Wine 8: a tun gets no flag from the type)
        # or, Wine 10, IF_TYPE_PPP for a tun (ARPHRD_NONE): ARPHRD_PPP and
        # point-to-point, as Go has it.
        if want["link_type"] in ARPHRD:
            assert ARPHRD.get(l["type"]) == ARPHRD[want["link_type"]], l["name"]
        assert bool(l["flags"] & IFF_LOOPBACK) == ("LOOPBACK" in want["flags"]), l["name"]
        assert bool(l["flags"] & IFF_BROADCAST) == (want["link_type"] == 1), l["name"]
        ppp = l["type"] == ARPHRD_PPP
        assert not ppp or want["link_type"] == ARPHRD_NONE, (l["name"], l["type"])
        assert bool(l["flags"] & IFF_POINTOPOINT) == ppp, (l["name"], l["type"])
    REPORTS.append(
        f"windows ({seen.where}): Wine listed {len(mine)} links; "
        f"names, indexes, MTU, hardware addresses agree with ip"
    )


def test_lookups(seen):
    """GetIfEntry2 by LUID (from the index, from the alias) agrees with the listing."""
    got = seen.got
    assert got["by_index"] == got["links"]
    # A name Wine spelt with U+FFFD is not the Linux name: the alias finds it all the same.
    assert got["by_name"] == got["links"]
    assert got["snapshot_links"] == got["links"]
    by_index, by_name = got["missing"]
    assert (by_index["error"], by_index["step"]) == (19, "ConvertInterfaceIndexToLuid")  # ENODEV
    assert by_index["winerror"] == 2  # ERROR_FILE_NOT_FOUND
    assert (by_name["error"], by_name["step"]) == (19, "ConvertInterfaceAliasToLuid")
    assert by_name["winerror"] == 1168  # ERROR_NOT_FOUND
    assert got["missing_addrs"] == []


def key(a):
    return (a["index"], a["family"], a["address"], a["prefixlen"])


def wine_addrs(got):
    out = []
    for a in got["addrs"]:
        raw = bytes.fromhex(a["local"])
        address = str(ipaddress.ip_address(raw))
        out.append(dict(a, family=FAMILIES[a["family"]], address=address))
    return out


def test_addrs(seen):
    got, addrs = seen.got, seen.addrs
    mine = wine_addrs(got)
    ip_all = {key(a): a for rows in addrs.values() for a in rows}
    assert len({key(a) for a in mine}) == len(mine), "no address twice"
    for a in mine:
        assert key(a) in ip_all, f"Wine reports {key(a)}, ip does not"
        want = ip_all[key(a)]
        assert a["zone"] == wine_name(want["zone"]), key(a)
        assert a["scope"] == want["scope"], key(a)
        assert (a["has_broadcast"], a["has_peer"]) == (0, 0)
        # Wine's lifetimes are invented: the same number for every address;
        # its DadState is "preferred" for all, so no flag (ip may say
        # tentative or deprecated), nor IFA_F_PERMANENT (a finite lifetime).
        assert (a["valid"], a["preferred"], a["has_lifetimes"]) == (WINE_LIFETIME,) * 2 + (1,)
        assert a["flags"] == 0, key(a)
    v6 = lambda rows: {key(a) for a in rows if a["family"] == "inet6"}  # noqa: E731
    assert v6(mine) == {key(a) for a in ip_all.values() if a["family"] == "inet6"}, (
        "every IPv6 address, tentative and deprecated ones too"
    )
    by_link = {int(i): rows for i, rows in got["one_addrs"].items()}
    assert [a for rows in by_link.values() for a in rows] == got["addrs"], (
        "one link's addresses are its part of the listing"
    )
    v4_ip = sum(a["family"] == "inet" for a in ip_all.values())
    v4_wine = sum(a["family"] == "inet" for a in mine)
    REPORTS.append(
        f"windows ({seen.where}): Wine reported {len(mine)} addresses "
        f"({v4_wine} of ip's {v4_ip} IPv4), {len(got['groups'])} multicast groups"
    )


def test_ipv4_seen_by_wine(seen):
    """Wine lists the IPv4 addresses labelled with their link's name, secondary
    ones too, of links down too; an alias's ("v0:1") are missing."""
    mine = {key(a) for a in wine_addrs(seen.got) if a["family"] == "inet"}
    ip4 = {key(a) for rows in seen.addrs.values() for a in rows if a["family"] == "inet"}
    assert mine == ip4 - seen.aliases
    if seen.aliases:
        REPORTS.append(
            f"windows ({seen.where}): Wine leaves out the aliases' IPv4 addresses "
            f"{sorted(a[2] for a in seen.aliases)}"
        )


def test_groups(seen):
    """Wine 8 fills no FirstMulticastAddress: the groups must be none, not wrong ones."""
    assert seen.got["groups"] == []
    assert any(seen.groups.values()), "ip shows groups, so the empty answer is Wine's"


def test_buffer_grows(seen):
    """A first buffer of 64 bytes is grown and the call asked again: same answers."""
    got, small = dict(seen.got), dict(seen.small)
    assert all(n > 0 for n in small.pop("outgrown")), "both listings outgrew 64 bytes"
    got.pop("outgrown")
    assert small == got
