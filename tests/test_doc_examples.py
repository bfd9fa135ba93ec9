"""Every example in README.rst and docs/ runs, and prints what the page says.

Each page's examples run in a child process with network and mount
namespaces of its own (``unshare --net --mount``), where this file first
builds the same small world every time, so that what an example prints is
fixed and a page cannot go stale:

- ``lo``, and ``eth0`` (MAC 02:fc:00:00:00:01; 192.0.2.2/24,
  2001:db8::2/64), one end of a veth pair whose other end, ``uplink``
  (02:fc:00:00:00:02; 192.0.2.1/24, 2001:db8::1/64), is in the network
  namespace ``blue`` (the mount namespace is the child's own, so the name
  cannot meet another run's);
- the main table's default routes via 192.0.2.1 and fe80::1, and a
  multipath route to 10.50.0.0/16;
- no duplicate address detection and no router solicitations, so no
  address is tentative and nothing is sent unasked.

Python examples (``>>>``) run with doctest, one namespace of names per page;
console examples (``.. code-block:: console``, a ``$ `` line and its output)
run in a shell in the same world.  Output is compared exactly, except where
an example's text says ``...`` (doctest's ELLIPSIS), which the pages use
only for output the world cannot fix (times, the version).
"""

import doctest
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
ALL_PAGES = sorted(
    [ROOT / "README.rst", *(p for p in ROOT.glob("docs/**/*.rst") if "_build" not in p.parts)]
)
WORLD = [
    "sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0"
    " net.ipv6.conf.all.router_solicitations=0 net.ipv6.conf.default.router_solicitations=0",
    "ip link set lo up",
    "ip netns add blue",
    "ip -n blue link set lo up",
    "ip netns exec blue sysctl -qw net.ipv6.conf.all.accept_dad=0"
    " net.ipv6.conf.default.accept_dad=0",
    "ip link add eth0 address 02:fc:00:00:00:01 type veth"
    " peer name uplink address 02:fc:00:00:00:02 netns blue",
    "ip addr add 192.0.2.2/24 brd + dev eth0",
    "ip addr add 2001:db8::2/64 dev eth0",
    "ip link set eth0 up",
    "ip -n blue addr add 192.0.2.1/24 brd + dev uplink",
    "ip -n blue addr add 2001:db8::1/64 dev uplink",
    "ip -n blue link set uplink up",
    "ip route add default via 192.0.2.1 dev eth0",
    "ip -6 route add default via fe80::1 dev eth0",
    "ip route add 10.50.0.0/16 nexthop via 192.0.2.1 weight 1 nexthop via 192.0.2.3 weight 3",
]
CONSOLE = re.compile(r"\.\. code-block:: console\n\n((?:(?:    .*)?\n)+)")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def console_examples(text):
    """[(line number, command, expected output)] of the page's console blocks."""
    out = []
    for m in CONSOLE.finditer(text):
        lineno = text.count("\n", 0, m.start(1)) + 1
        lines = [line[4:] for line in m.group(1).rstrip("\n").split("\n")]
        for i, line in enumerate(lines):
            if line.startswith("$ "):
                expected = []
                for later in lines[i + 1 :]:
                    if later.startswith("$ "):
                        break
                    expected.append(later)
                while expected and not expected[-1].strip():
                    expected.pop()
                out.append((lineno + i, line[2:], "\n".join(expected) + "\n" if expected else ""))
    return out


def python_examples(path, text):
    return doctest.DocTestParser().get_doctest(text, {}, path.name, str(path), 0)


def has_examples(path):
    text = path.read_text()
    return bool(python_examples(path, text).examples or console_examples(text))


# iproute2 is not ours: it runs without the sanitizer runtime that CI's ASan
# step preloads (as in nslab.py).
TOOL_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


# ---- the child: build the world, run one page --------------------------------


def build_world():
    os.makedirs("/run/netns", exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "docs-netns", "/run/netns"], check=True)
    for line in WORLD:
        subprocess.run(line, shell=True, check=True, env=TOOL_ENV)
    # A veth's carrier comes up a moment after the link: wait for both ends,
    # on the kernel's notifications.
    import netifc

    netifc.wait_link("eth0", operstate="up", timeout=30)
    with netifc.NetNS("blue") as blue:
        netifc.wait_link("uplink", operstate="up", timeout=30, netns=blue)


def run_page(path):
    """Run one page's examples here; a list of failure reports."""
    text = path.read_text()
    failures = []
    test = python_examples(path, text)
    if test.examples:
        report = []
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        runner.run(test, out=report.append)
        failures += report
    env = dict(
        os.environ,
        PATH=f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}",
        NO_COLOR="1",
        COLUMNS="80",
    )
    for lineno, command, expected in console_examples(text):
        # outside the source tree, so that python -m finds the installed netifc
        r = subprocess.run(
            command,
            shell=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=tempfile.gettempdir(),
        )
        got = "\n".join(line.rstrip() for line in r.stdout.split("\n"))
        checker = doctest.OutputChecker()
        if not checker.check_output(expected, got, FLAGS):
            failures.append(
                f"{path.name}:{lineno}: $ {command}\n--- expected\n{expected}--- got\n{got}"
            )
    return failures


def child(page):
    build_world()
    print(json.dumps(run_page(pathlib.Path(page))))


# ---- the tests -----------------------------------------------------------------


def test_the_readme_has_examples_to_run():
    """The runner finds the README's examples, of both kinds."""
    readme = (ROOT / "README.rst").read_text()
    assert python_examples(ROOT / "README.rst", readme).examples
    assert console_examples(readme)


PAGES = [p for p in ALL_PAGES if has_examples(p)]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_examples(page):
    from conftest import require_namespaces

    require_namespaces()
    if not shutil.which("unshare"):
        pytest.fail("the examples need util-linux's unshare")
    # the default backend, whatever this run chose
    env = {k: v for k, v in os.environ.items() if k != "NETIFC_BACKEND"}
    r = subprocess.run(
        [
            "unshare",
            "--net",
            "--mount",
            "--propagation",
            "private",
            sys.executable,
            __file__,
            str(page),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    failures = json.loads(r.stdout.splitlines()[-1])
    assert not failures, "\n".join(failures)


if __name__ == "__main__":
    child(sys.argv[1])
