import os
import shutil

import pytest

from netifc import _netifc
from nslab import REPORTS, Host, build_lab, why_no_namespaces

# Every test runs against each backend and each Linux fallback path.
BACKENDS = {
    "netlink": ("netlink", 0),
    "netlink-nostrict": ("netlink", 1),       # one link's addresses filtered in C
    "netlink-procmcast4": ("netlink", 2),     # IPv4 groups from /proc/net/igmp
    "netlink-procmcast": ("netlink", 4),      # all groups from /proc/net/igmp{,6}
    "getifaddrs": ("getifaddrs", 0),
}


@pytest.fixture(params=list(BACKENDS), autouse=True)
def backend(request):
    name, fallbacks = BACKENDS[request.param]
    _netifc._set_backend(name, fallbacks)
    try:
        yield request.param
    finally:
        _netifc._set_backend(os.environ.get("NETIFC_BACKEND", ""), 0)


def require_namespaces():
    reason = why_no_namespaces()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the namespace tests: {reason}")
    pytest.skip(reason)


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


def pytest_terminal_summary(terminalreporter):
    for line in REPORTS:
        terminalreporter.write_line(line)
