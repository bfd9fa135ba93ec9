"""The drop-ins' rows of python -m netifc.bench, each with its peer's own
call in the same group: netifaces' ifaddresses() of the loopback interface,
ifaddr's get_adapters() (a peer skipped when not installed, ``pip install
'.[bench]'``).
"""

import pytest

from netifc import bench


@pytest.fixture(scope="module")
def bodies(lo):
    found = bench.compat_bodies(lo)
    if not found:
        pytest.skip("netifc.compat.netifaces answers on Linux only")
    return found


@pytest.mark.parametrize("name", bench.COMPAT)
def BenchmarkCompat(benchmark, bodies, name):
    benchmark.group = name
    benchmark(bodies[name])


@pytest.mark.parametrize(
    "name, peer",
    [
        ("NetifacesIfaddresses", "netifaces.ifaddresses"),
        ("IfaddrGetAdapters", "ifaddr.get_adapters"),
    ],
)
def BenchmarkCompatPeer(benchmark, peers, bodies, name, peer):
    fn = peers[name].get(peer)
    if fn is None:
        pytest.skip(f"{peer.split('.')[0]} is not installed (pip install '.[bench]')")
    benchmark.group = name
    benchmark(fn)
