"""The route rows of python -m netifc.bench, with their peers in the same groups.

The bodies are netifc.bench's: routes() (the main table), default_gateways()
and route_get("127.0.0.1"); pyroute2's and netifaces' calls beside them,
skipped when not installed (``pip install '.[bench]'``).
"""

import pytest

from netifc import bench

if not bench.route_bodies():
    pytest.skip("routes are read on Linux only", allow_module_level=True)


@pytest.mark.parametrize("name", bench.ROUTES)
def BenchmarkRoutes(benchmark, name):
    benchmark.group = name
    benchmark(bench.route_bodies()[name])


@pytest.mark.parametrize(
    "name,peer",
    [
        ("Routes", "pyroute2.get_routes(table=254)"),
        ("DefaultGateways", "netifaces.gateways"),
        ("RouteGet", "pyroute2.route(get)"),
    ],
)
def BenchmarkRoutePeer(benchmark, peers, name, peer):
    if peer not in peers.get(name, {}):
        pytest.skip(f"{peer.split('.')[0]} is not installed")
    benchmark.group = name
    benchmark(peers[name][peer])
