"""python -m netifc against iproute2, in the lab namespace and on the host."""

import json
import os
import re
import subprocess
import sys

import pytest

import netifc
from nslab import FOREVER, SCOPES, ip_addrs, ip_groups, ip_links

FALLBACKS = {
    "netlink": 0,
    "netlink-nostrict": 1,
    "netlink-procmcast4": 2,
    "netlink-procmcast": 4,
    "getifaddrs": 0,
}


def cli(where, backend, *args, env=None):
    code = (
        "import sys, netifc._netifc as m; m._set_backend(sys.argv[1], int(sys.argv[2]));"
        "from netifc.__main__ import main; sys.exit(main(sys.argv[3:]))"
    )
    argv = [sys.executable, "-c", code, backend.split("-")[0], str(FALLBACKS[backend]), *args]
    e = dict(os.environ, **(env or {}))
    # From "/": the installed netifc, never the source tree's.
    return where.run(argv, capture_output=True, text=True, errors="surrogateescape", env=e, cwd="/")


def _ip_j_links(where):
    return {link["ifindex"]: link for link in where.ipj("link", "show")}


def _close(got, want, slack=5):
    """A lifetime read by ip and by netifc at slightly different times."""
    if want == FOREVER or got is None:
        return got == want
    return want - slack <= got <= want + slack


@pytest.mark.backends
def test_json_matches_ip(where, backend):
    r = cli(where, backend, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    links, addrs, ipj = ip_links(where), ip_addrs(where), _ip_j_links(where)
    labels = {
        link["ifindex"]: sorted(
            (a["local"], a["prefixlen"], a.get("label", "")) for a in link.get("addr_info", [])
        )
        for link in where.ipj("addr", "show")
    }
    assert sorted(d["index"] for d in doc) == sorted(links)
    for d in doc:
        want = links[d["index"]]
        assert (d["name"], d["mtu"], d["hardware_addr"]) == (want["name"], want["mtu"], want["hw"])
        assert ("up" in d["flags"]) == ("UP" in want["flags"])
        assert ("running" in d["flags"]) == want["running"]
        j = ipj[d["index"]]
        if backend != "getifaddrs":
            # ip -j's flags are the kernel's IFF_* word in ip's words (M-DOWN
            # is about the lower link, not this one's flags).
            assert d["ip_flags"] == [f for f in j["flags"] if f != "M-DOWN"]
            assert d["altnames"] == j.get("altnames", [])
            assert d["hardware_broadcast"] == j.get("broadcast", "")
        assert d["raw_flags"] & 1 == ("UP" in j["flags"])
        got = sorted(
            (a["family"], a["address"], a["prefixlen"], a["peer"], a["broadcast"], a["zone"])
            for a in d["addrs"]
        )
        exp = sorted(
            (w["family"], w["address"], w["prefixlen"], w["peer"], w["broadcast"], w["zone"])
            for w in addrs.get(d["index"], [])
        )
        assert got == exp
        # the label: ip -j's for IPv4 (the link's name, or v0:1), none for IPv6
        shown = sorted((a["address"], a["prefixlen"], a["label"]) for a in d["addrs"])
        assert shown == labels.get(d["index"], []), d["name"]
        for a in d["addrs"]:
            w = [w for w in addrs[d["index"]] if w["address"] == a["address"]][0]
            if backend == "getifaddrs":
                # It does not know lifetimes: unknown (null), never forever.
                assert a["valid_lifetime"] is None and a["preferred_lifetime"] is None
                continue
            assert SCOPES[a["scope"]] == w["scope"]
            assert ("tentative" in a["flags"]) == w["tentative"]
            assert _close(a["valid_lifetime"], w["valid"]), (a, w)
            assert _close(a["preferred_lifetime"], w["preferred"]), (a, w)


@pytest.mark.parametrize("family", ["-4", "-6"])
@pytest.mark.backends
def test_json_one_family_matches_ip(where, backend, family):
    """Only the interfaces with an address of that family, and only those
    addresses, as ip -4 / ip -6 list them."""
    r = cli(where, backend, "--json", family)
    assert r.returncode == 0, r.stderr
    want = {
        link["ifindex"]: sorted(a["local"] for a in link["addr_info"])
        for link in where.ipj(family, "addr", "show")
    }
    got = {d["index"]: sorted(a["address"] for a in d["addrs"]) for d in json.loads(r.stdout)}
    assert got == want


@pytest.mark.backends
def test_json_multicast_matches_ip(where, backend):
    r = cli(where, backend, "--json", "--multicast")
    assert r.returncode == 0, r.stderr
    want = ip_groups(where)
    for d in json.loads(r.stdout):
        got = sorted((g["family"], g["address"], g["zone"]) for g in d["multicast"])
        assert got == want.get(d["index"], [])


@pytest.mark.backends
def test_multicast_text_matches_ip(where, backend):
    """-m: each interface's block lists ip maddr's groups, without zones."""
    r = cli(where, backend, "--multicast")
    assert r.returncode == 0, r.stderr
    want = ip_groups(where)
    blocks = re.split(r"(?m)^(?=\d+: )", r.stdout)[1:]
    assert blocks
    for block in blocks:
        index = int(block.split(":")[0])
        got = sorted(
            tuple(line.split())
            for line in block.splitlines()
            if line.startswith(("    inet ", "    inet6 "))
        )
        assert got == sorted((family, address) for family, address, _ in want.get(index, []))


@pytest.mark.backends
def test_brief_matches_ip(lab, backend):
    r = cli(lab, backend, "--brief", "-4")
    assert r.returncode == 0, r.stderr
    lines = {l.split()[0]: l.split()[1:] for l in r.stdout.splitlines()}
    links, addrs = ip_links(lab), ip_addrs(lab)
    with_ipv4 = {
        i: l for i, l in links.items() if any(w["family"] == "inet" for w in addrs.get(i, []))
    }
    assert set(lines) == {l["name"] for l in with_ipv4.values()}
    for index, l in with_ipv4.items():
        state, *shown = lines[l["name"]]
        if backend != "getifaddrs":
            assert state == l["operstate"].upper()
        want = [
            w["address"] + (f" peer {w['peer']}" if w["peer"] else "") + f"/{w['prefixlen']}"
            for w in addrs.get(index, [])
            if w["family"] == "inet"
        ]
        assert sorted(" ".join(shown).split()) == sorted(" ".join(want).split())


@pytest.mark.backends
def test_text_shows_every_address(lab, backend):
    """Every address, without its zone (ip prints none; JSON keeps it)."""
    r = cli(lab, backend, "v0")
    assert r.returncode == 0, r.stderr
    (index,) = [k for k, v in ip_links(lab).items() if v["name"] == "v0"]
    assert r.stdout.startswith(f"{index}: v0: <")
    for w in ip_addrs(lab)[index]:
        assert f" {w['address']}/{w['prefixlen']} " in r.stdout
    assert "%" not in r.stdout
    assert "brd 192.0.2.255 scope global" in r.stdout
    if backend != "getifaddrs":
        assert "inet6 2001:db8:2::1/64 scope global deprecated dynamic" in r.stdout
    tun = cli(lab, backend, "tun0").stdout
    assert "inet 10.9.0.1 peer 10.9.0.2/32 scope global" in tun
    assert "\n    link/none\n" in tun
    zones = [
        a["zone"] for d in json.loads(cli(lab, backend, "--json", "v0").stdout) for a in d["addrs"]
    ]
    assert "v0" in zones


@pytest.mark.backends
def test_unknown_interface_exits_1(host, backend):
    r = cli(host, backend, "no-such-if0")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip() == "netifc: no such network interface: 'no-such-if0'"


@pytest.mark.backends
def test_usage_error_exits_2(host, backend):
    r = cli(host, backend, "--no-such-option")
    assert r.returncode == 2 and "usage:" in r.stderr


@pytest.mark.backends
def test_color(host, backend):
    plain = cli(host, backend, "lo", "--color", "never").stdout
    painted = cli(host, backend, "lo", "--color", "always").stdout
    auto = cli(host, backend, "lo").stdout  # a pipe: no colour
    assert "\x1b[" not in plain and "\x1b[" in painted and auto == plain
    assert cli(host, backend, "lo", "--color", "auto", env={"NO_COLOR": "1"}).stdout == plain


def test_renderers_are_public():
    snap = netifc.snapshot()
    text = netifc.render_text(snap.interfaces, snap.addrs)
    assert all(f"{i.index}: {i.name}: <" in text for i in snap.interfaces)
    assert json.loads(netifc.render_json(snap.interfaces, snap.addrs)) == netifc.to_json(
        snap.interfaces, snap.addrs
    )
    assert len(netifc.render_brief(snap.interfaces, snap.addrs).splitlines()) == len(snap)


def test_installed_command(host):
    exe = os.path.join(os.path.dirname(sys.executable), "netifc")
    if not os.path.exists(exe):
        pytest.skip("the netifc command is not installed next to this Python")
    r = subprocess.run([exe, "--brief", "lo"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("lo ")
