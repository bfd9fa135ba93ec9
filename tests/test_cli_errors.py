"""The command line's failures, each run as a user runs it (python -m netifc
in a process of its own): the exit status and the one line on stderr."""

import errno
import os
import subprocess
import sys

import pytest

from conftest import require_namespaces
from nslab import RTMGRP_IPV4_IFADDR, Netns, until_watching

FULL = "/dev/full"
ENOSPC_LINE = f"netifc: writing the output: {os.strerror(errno.ENOSPC)}"
TABLE_LINE = (
    "netifc route: error: argument --table/-t: routing table {} out of range (1 to 4294967295)"
)


def netifc_cmd(*args, stdout=subprocess.PIPE, env=None, timeout=60):
    # From "/": the installed netifc, never the source tree's.
    return subprocess.run(
        [sys.executable, "-m", "netifc", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd="/",
        env=dict(os.environ, **(env or {})),
        timeout=timeout,
    )


def full():
    if not os.path.exists(FULL):
        pytest.skip(f"{FULL} is missing: no device that fails every write with ENOSPC")
    return open(FULL, "w")


@pytest.fixture(scope="module")
def ns():
    require_namespaces()
    n = Netns("clierr")
    yield n
    n.delete()


@pytest.mark.parametrize(
    "args", [(), ("-j",), ("-b",), ("-s",), ("-m",), ("route",), ("route", "get", "127.0.0.1")]
)
def test_full_disk_is_one_line_and_exit_1(args):
    with full() as out:
        r = netifc_cmd(*args, stdout=out)
    assert (r.returncode, r.stderr.splitlines()) == (1, [ENOSPC_LINE]), r.stderr


def test_full_disk_ends_a_watch(ns):
    """-w writes each change as it comes: the first write that fails ends it."""
    with full() as out:
        p = subprocess.Popen(
            [sys.executable, "-m", "netifc", "-w", "-n", ns.name],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            cwd="/",
        )
    try:
        # once it watches, its tables read (nslab.until_watching), one change
        # is heard, and the write of it fails
        until_watching(p, RTMGRP_IPV4_IFADDR, 30, ns=ns)
        ns.ip("addr", "add", "10.77.0.1/32", "dev", "lo")
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("netifc -w went on writing to a full disk")
        assert (p.returncode, p.stderr.read().splitlines()) == (1, [ENOSPC_LINE])
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        p.stderr.close()


def test_closed_pipe_stays_quiet():
    """A reader that goes away (netifc | head -1) ends the output with no word."""
    r = subprocess.run(
        f"{sys.executable} -m netifc -s | head -c 1",
        shell=True,
        capture_output=True,
        text=True,
        cwd="/",
        executable="/bin/bash",
    )
    assert r.returncode == 0 and len(r.stdout) == 1 and r.stderr == ""


def test_netns_error_says_netifc_once(ns):
    r = netifc_cmd("-n", ns.name, env={"NETIFC_BACKEND": "getifaddrs"})
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "netifc: the getifaddrs backend cannot look into another network namespace"
        " (the netlink backend can)"
    ]


@pytest.mark.parametrize(
    "args",
    [
        ("--table", "-5"),
        ("-t", "-5"),
        ("table", "-5"),
        ("--table=-5",),
        ("show", "-t", "-5"),
        ("--table", "0"),
        ("--table", "4294967296"),
    ],
)
def test_table_out_of_range_is_a_usage_error(args):
    """A negative table, which argparse took for an option, and the numbers
    past either end: exit 2 and the range, in the library's words."""
    r = netifc_cmd("route", *args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines()[-1] == TABLE_LINE.format(args[-1].split("=")[-1])


def test_table_at_the_ends_of_the_range_is_taken():
    """The first and last table numbers are tables: netifc prints routes of
    each where ip route show table N does (none, commonly: ip then says
    the table does not exist)."""
    for table in ("1", "4294967295"):
        r = netifc_cmd("route", "--table", table)
        want = subprocess.run(
            ["ip", "route", "show", "table", table], capture_output=True, text=True
        )
        assert (r.returncode, r.stderr) == (0, ""), r.stderr
        assert (r.stdout == "") == (want.stdout == ""), r.stdout


def test_help_points_at_the_json_schema():
    r = netifc_cmd("--help")
    assert r.returncode == 0
    assert "JSON (its schema: docs/cli.rst)" in r.stdout and "README" not in r.stdout
    docs = os.path.join(os.path.dirname(__file__), "..", "docs", "cli.rst")
    if not os.path.exists(docs):
        pytest.skip("docs/cli.rst is not beside the tests (an installed copy of the suite)")
    with open(docs) as f:
        assert "JSON schema" in f.read()
