"""python -m netifc.bench's arguments, run as a user runs it: the exit status
and the line it says."""

import importlib.util
import subprocess
import sys

import pytest

USAGE = "python -m netifc.bench: error: argument --benchtime: "
PEERS = ("socket", "psutil", "netifaces", "ifaddr", "pyroute2")


def bench(*args, before=""):
    """The bench in a process of its own; ``before`` runs first in it."""
    code = f"{before}\nimport runpy, sys\nsys.argv[0] = 'bench'\nrunpy.run_module('netifc.bench', run_name='__main__')"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd="/", timeout=600
    )


@pytest.mark.parametrize(
    "args",
    [["--benchtime", v] for v in ("-1", "0", "-0.5", "nan", "inf", "-inf", "1e999")]
    + [["--benchtime=-1"]],
)
def test_benchtime_must_be_positive_and_finite(args):
    value = args[-1].split("=")[-1]
    r = bench(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines()[-1] == USAGE + f"a positive, finite number of seconds, not {value}"


def test_benchtime_must_be_a_number():
    r = bench("--benchtime", "1s")
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1] == USAGE + "not a number of seconds: '1s'"


def test_peers_says_which_are_missing():
    """psutil made unimportable in the run (a None in sys.modules, as for a
    module that is not installed), and whichever others this Python lacks:
    each named, in one line, with the extra that brings them."""
    r = bench("--peers", "--benchtime", "0.001", before="import sys; sys.modules['psutil'] = None")
    assert r.returncode == 0, r.stderr
    missing = [p for p in PEERS if p == "psutil" or importlib.util.find_spec(p) is None]
    assert r.stderr.splitlines() == [
        f"python -m netifc.bench: --peers: not installed, so not timed: {', '.join(missing)}"
        " (pip install 'netifc[bench]' brings them)"
    ]
    timed = {line.split()[0] for line in r.stdout.splitlines() if line.startswith("  ")}
    for peer in PEERS:
        assert any(t.startswith(peer + ".") for t in timed) == (peer not in missing), peer
