"""Fixtures shared by the tests.

Backends: a test runs once, on the default backend (NETIFC_BACKEND, else
the platform's), unless it is marked ``@pytest.mark.backends``; then it
runs once per entry of BACKENDS, each run with that backend (and fallback
path) set.  ``@pytest.mark.backends("netlink", "netlink-nostrict")`` names
the entries to run instead of all of them (MORE_PATHS' too); a module marks
every test of its own with ``pytestmark = pytest.mark.backends``.  Either way the
``backend`` fixture gives the entry's name (unmarked: the default
backend's, from ``_netifc._backend()``).  Mark exactly the tests whose
outcome the backend or a fallback path decides: reading links, addresses,
groups, counters and routes through it, or its failures.  Argument checks
made before any backend is asked, types, flags, packaging and docs stay
unmarked, so they run once.
"""

import collections
import contextlib
import os
import shutil

import pytest

from netifc import _netifc
from nslab import REPORTS, Host, Netns, build_lab, why_no_namespaces

# What @pytest.mark.backends runs a test on: each backend and each Linux fallback path.
BACKENDS = {
    "netlink": ("netlink", 0),
    "netlink-nostrict": ("netlink", 1),  # one link's addresses filtered in C
    "netlink-procmcast4": ("netlink", 2),  # IPv4 groups from /proc/net/igmp
    "netlink-procmcast": ("netlink", 4),  # all groups from /proc/net/igmp{,6}
    "getifaddrs": ("getifaddrs", 0),
}
# Paths a module names in its marker; not in every marked test's runs.
MORE_PATHS = {
    "netlink-ioctl": ("netlink", 8),  # link settings by SIOCETHTOOL, not ethtool netlink
}


def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("backends")
    if marker is None or "backend" not in metafunc.fixturenames:
        return
    names = list(marker.args) or list(BACKENDS)
    unknown = [n for n in names if n not in BACKENDS and n not in MORE_PATHS]
    if unknown:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: no backend {unknown}")
    metafunc.parametrize("backend", names, indirect=True)


@pytest.fixture(autouse=True)
def backend(request):
    name = getattr(request, "param", None)
    if name is None:  # not marked: the default backend, left as it is
        yield _netifc._backend()
        return
    _netifc._set_backend(*{**BACKENDS, **MORE_PATHS}[name])
    try:
        yield name
    finally:
        _netifc._set_backend(os.environ.get("NETIFC_BACKEND", ""), 0)


def require_namespaces():
    reason = why_no_namespaces()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the namespace tests: {reason}")
    pytest.skip(reason)


@pytest.fixture
def netlink_backend():
    """The netlink backend for the test, whatever the default one (live
    tables and Watchers are netlink's: each test runs once), put back after.
    A module takes it for each of its tests with
    ``pytestmark = pytest.mark.usefixtures("netlink_backend")``."""
    _netifc._set_backend("netlink", 0)
    yield "netlink"
    _netifc._set_backend(os.environ.get("NETIFC_BACKEND", ""), 0)


NO_DAD = {"net.ipv6.conf.all.accept_dad": 0, "net.ipv6.conf.default.accept_dad": 0}


@contextlib.contextmanager
def own_netns(tag, sysctls=None):
    """A namespace of the test's own (nslab.Netns(tag)), the sysctls given
    ({key: value}, e.g. NO_DAD) set in it, and the calling thread inside it
    for the block; removed after, whatever happened. For a module's ``ns``
    fixture: ``with own_netns("tag", NO_DAD) as n: yield n``."""
    require_namespaces()
    n = Netns(tag)
    try:
        for key, value in (sysctls or {}).items():
            n.sysctl(key, value)
        with n.entered():
            yield n
    finally:
        n.delete()


@pytest.fixture(scope="session")
def lab():
    require_namespaces()
    ns = build_lab()
    yield ns
    ns.delete()


@pytest.fixture(scope="session")
def host():
    if not shutil.which("ip"):
        if os.environ.get("CI"):
            pytest.fail("CI must run the conformance tests: iproute2's ip is missing")
        pytest.skip("conformance tests need iproute2's ip")
    return Host()


@pytest.fixture(params=["host", "lab"])
def where(request):
    """The host's own links, then the lab namespace's."""
    return request.getfixturevalue(request.param)


# Past this many items, two collections that differ are explained by what
# differs, not by pytest's own diff: difflib is quadratic, and a test that
# passes in seconds spent 23 minutes of a CI step failing on two lists of
# 10,000 routes, nearly all of it in that diff.
LONG = 1000


def pytest_assertrepr_compare(config, op, left, right):
    """left == right failed on a long list, tuple, set or dict: their sizes,
    the first index where two sequences differ, and a few of the items (or
    keys) each has that the other lacks, counted by repr."""
    kinds = (list, tuple, set, frozenset, dict)
    if op != "==" or not (isinstance(left, kinds) and isinstance(right, kinds)):
        return None
    if max(len(left), len(right)) <= LONG:
        return None
    lines = [f"{type(left).__name__} of {len(left)} != {type(right).__name__} of {len(right)}"]
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        at = next((i for i, (a, b) in enumerate(zip(left, right)) if a != b), None)
        if at is not None:
            lines += [f"first differing index {at}:", f"  {left[at]!r}", f"  {right[at]!r}"]
    if isinstance(left, dict) and isinstance(right, dict):
        changed = [k for k in left.keys() & right.keys() if left[k] != right[k]]
        lines += [f"{len(changed)} keys differ, among them:"]
        lines += [f"  {k!r}: {left[k]!r} != {right[k]!r}" for k in changed[:5]]
    ours, theirs = collections.Counter(map(repr, left)), collections.Counter(map(repr, right))
    for name, extra in (("left", ours - theirs), ("right", theirs - ours)):
        items = sorted(extra.elements())
        lines += [f"only in {name} ({len(items)}, by repr):"] + [f"  {x}" for x in items[:10]]
    return lines


def pytest_terminal_summary(terminalreporter):
    for line in REPORTS:
        terminalreporter.write_line(line)
