"""netifc route as ip route users type it: route get, route show, the options
before or after route, --help; and the flags --watch cannot honour refused.

Compared with iproute2 in the routes lab of test_routes.py, line by line
(text, without the space ip leaves at the end of its lines) and object by
object (-j), through ip -n NAME and netifc -n NAME from the host.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import require_namespaces
from netifc import _netifc
from test_routes import GET, build_routes_lab, ip_text

if not hasattr(_netifc, "_routes"):
    pytest.skip("routes are read on Linux only", allow_module_level=True)


@pytest.fixture(scope="module")
def rtlab():
    require_namespaces()
    ns = build_routes_lab()
    yield ns
    ns.delete()


def netifc_cmd(*args, check=True):
    """python -m netifc ARGS from "/" (the installed package), on the host."""
    r = subprocess.run(
        [sys.executable, "-m", "netifc", *args], capture_output=True, text=True, cwd="/"
    )
    if check:
        assert r.returncode == 0, r.stderr
    return r


def _get_args(dst):
    address, _, zone = dst.partition("%")
    return ["route", "get", address] + (["oif", zone] if zone else [])


@pytest.mark.parametrize("dst", GET)
def test_route_get_is_ip_route_get(rtlab, dst):
    ours = netifc_cmd("-n", rtlab.name, "route", "get", dst).stdout
    assert ours == ip_text(rtlab, *_get_args(dst))


@pytest.mark.parametrize("dst", GET)
def test_route_get_json_is_ip_j_route_get(rtlab, dst):
    ours = json.loads(netifc_cmd("route", "get", dst, "-j", "-n", rtlab.name).stdout)
    assert ours == rtlab.ipj(*_get_args(dst))


def test_route_get_as_another_user(rtlab):
    """The uid ip route get shows is the requester's."""
    if os.geteuid() != 0:
        pytest.skip("needs root to change user")
    # Once as root (every module imported: the interpreter's own files may be
    # out of the other user's reach), then as nobody.
    code = (
        "import os, sys; from netifc.__main__ import main; main(sys.argv[1:]); "
        "os.setuid(65534); sys.exit(main(sys.argv[1:]))"
    )
    r = rtlab.run(
        [sys.executable, "-c", code, "route", "get", "11.1.1.1"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.split("    cache\n")[:2]
    assert first.endswith(" uid 0\n") and second.endswith(" uid 65534\n")


@pytest.mark.parametrize(
    "dst,message",
    [
        ("10.60.1.1", os.strerror(22)),
        ("10.61.1.1", os.strerror(113)),
        ("2001:db8:62::1", os.strerror(13)),
    ],
)
def test_route_get_errors(rtlab, dst, message):
    r = netifc_cmd("-n", rtlab.name, "route", "get", dst, check=False)
    assert r.returncode == 1 and r.stdout == ""
    assert message in r.stderr and message in rtlab.ip("route", "get", dst, check=False).stderr


@pytest.mark.parametrize(
    "args",
    [
        ["route", "get"],
        ["route", "get", "10.1.0.1", "10.1.0.2"],
        ["route", "get", "10.0.0.0/8"],
        ["-4", "route", "get", "::1"],
        ["route", "-6", "get", "127.0.0.1"],
        ["route", "get", "127.0.0.1", "--table", "local"],
        ["route", "frob"],
        ["route", "show", "table"],
        ["route", "table", "main", "--table", "local"],
    ],
)
def test_route_usage_errors(args):
    r = netifc_cmd(*args, check=False)
    if args[-1] == "10.0.0.0/8":  # not an address: route_get's ValueError
        assert r.returncode == 1 and "route_get" in r.stderr
        return
    assert r.returncode == 2 and "usage:" in r.stderr and r.stdout == ""


@pytest.mark.parametrize(
    "ours,theirs",
    [
        (["route", "show"], ["route", "show"]),
        (["route", "list"], ["route", "list"]),
        (["-4", "route"], ["-4", "route"]),
        (["-6", "route", "show"], ["-6", "route", "show"]),
        (["route", "-6"], ["-6", "route"]),
        (["route", "show", "table", "all"], ["route", "show", "table", "all"]),
        (["-6", "route", "show", "table", "100"], ["-6", "route", "show", "table", "100"]),
        (["route", "show", "-6", "--table", "local"], ["-6", "route", "show", "table", "local"]),
    ],
)
def test_route_show_is_ip_route_show(rtlab, ours, theirs):
    assert netifc_cmd("-n", rtlab.name, *ours).stdout == ip_text(rtlab, *theirs)


@pytest.mark.parametrize(
    "ours",
    [
        ["-j", "-6", "-n", "{ns}", "route"],
        ["-6", "route", "-j", "-n", "{ns}"],
        ["-n", "{ns}", "route", "show", "-6", "-j"],
        ["-6j", "--netns={ns}", "route"],
        ["route", "-j", "--netns", "{ns}", "-6", "show"],
    ],
)
def test_options_before_or_after_route(rtlab, ours):
    args = [a.format(ns=rtlab.name) for a in ours]
    assert json.loads(netifc_cmd(*args).stdout) == rtlab.ipj("-6", "route", "show")


@pytest.mark.parametrize("flag", ["-s", "-b", "-m", "--stats", "-w", "--color", "lo"])
def test_what_route_cannot_take_is_a_usage_error(flag):
    args = [flag, "never", "route"] if flag == "--color" else [flag, "route"]
    r = netifc_cmd(*args, check=False)
    if flag == "lo":  # netifc lo route: an interface name, then an extra word
        assert r.returncode == 2 and "unrecognized arguments: route" in r.stderr
        return
    if flag == "--color":  # taken, and meaningless for route: refused too
        assert r.returncode == 2 and "--color: not with route" in r.stderr
        return
    assert r.returncode == 2 and f"{flag}: not with route" in r.stderr


def test_an_interface_named_route():
    """netifc -- route: the interface named route, not the command."""
    r = netifc_cmd("--", "route", check=False)
    assert r.returncode == 1 and "no such network interface: 'route'" in r.stderr


def test_help_shows_route():
    out = netifc_cmd("--help").stdout
    assert "route [show]" in out and "route get ADDRESS" in out
    assert "like ip route get" in out
    sub = netifc_cmd("route", "--help").stdout
    assert "get ADDRESS" in sub and "--table" in sub


@pytest.mark.parametrize("flags", [["-s"], ["-b"], ["-m"], ["--stats"], ["--brief"], ["-m", "-j"]])
def test_watch_refuses_what_it_cannot_honour(flags):
    """--watch prints changes as they come: it cannot show counters, the brief
    form or groups only, and says so instead of ignoring the flag."""
    r = subprocess.run(
        [sys.executable, "-m", "netifc", "--watch", *flags],
        capture_output=True,
        text=True,
        cwd="/",
        timeout=60,
    )
    assert r.returncode == 2 and "usage:" in r.stderr and "-w/--watch: not with" in r.stderr
    assert r.stdout == ""
