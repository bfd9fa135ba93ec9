"""The netifaces drop-in's row of python -m netifc.bench, with netifaces' own
call in the same group: ifaddresses() of the loopback interface (netifaces
skipped when not installed, ``pip install '.[bench]'``).
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


def BenchmarkCompatPeer(benchmark, peers, bodies):
    fn = peers["NetifacesIfaddresses"].get("netifaces.ifaddresses")
    if fn is None:
        pytest.skip("netifaces is not installed (pip install '.[bench]')")
    benchmark.group = "NetifacesIfaddresses"
    benchmark(fn)
