"""Go's six interface benchmarks, with the Python peers in the same groups.

Run with ``pytest benchmarks/``; ``--benchmark-disable`` runs each body once.
The bodies are netifc.bench's, so the CLI harness and this suite time the
same calls.  A peer that is not installed is skipped (``pip install '.[bench]'``).
"""

import pytest

from netifc import bench


def run(benchmark, lo, name):
    benchmark.group = name
    benchmark(bench.bodies(lo)[name])


@pytest.mark.benchmark(group="BenchmarkInterfaces")
def BenchmarkInterfaces(benchmark, lo):
    run(benchmark, lo, "BenchmarkInterfaces")


@pytest.mark.benchmark(group="BenchmarkInterfaceByIndex")
def BenchmarkInterfaceByIndex(benchmark, lo):
    run(benchmark, lo, "BenchmarkInterfaceByIndex")


@pytest.mark.benchmark(group="BenchmarkInterfaceByName")
def BenchmarkInterfaceByName(benchmark, lo):
    run(benchmark, lo, "BenchmarkInterfaceByName")


@pytest.mark.benchmark(group="BenchmarkInterfaceAddrs")
def BenchmarkInterfaceAddrs(benchmark, lo):
    run(benchmark, lo, "BenchmarkInterfaceAddrs")


@pytest.mark.benchmark(group="BenchmarkInterfacesAndAddrs")
def BenchmarkInterfacesAndAddrs(benchmark, lo):
    run(benchmark, lo, "BenchmarkInterfacesAndAddrs")


@pytest.mark.benchmark(group="BenchmarkInterfacesAndMulticastAddrs")
def BenchmarkInterfacesAndMulticastAddrs(benchmark, lo):
    run(benchmark, lo, "BenchmarkInterfacesAndMulticastAddrs")


@pytest.mark.benchmark(group="Snapshot")
def BenchmarkSnapshot(benchmark, lo):
    run(benchmark, lo, bench.SNAPSHOT)


def run_live(benchmark, lo, name):
    """A read of live tables with nothing pending, in the group of the call it saves."""
    import netifc

    lv = netifc.live()
    try:
        benchmark.group = bench.LIVE[name]
        benchmark(bench.bodies(lo, lv)[name])
    finally:
        lv.close()


@pytest.mark.benchmark(group="BenchmarkInterfaceByIndex")
def BenchmarkLiveInterfaceByIndex(benchmark, lo):
    run_live(benchmark, lo, "LiveInterfaceByIndex")


@pytest.mark.benchmark(group="BenchmarkInterfaces")
def BenchmarkLiveInterfaces(benchmark, lo):
    run_live(benchmark, lo, "LiveInterfaces")


@pytest.mark.benchmark(group="BenchmarkInterfaceAddrs")
def BenchmarkLiveInterfaceAddrs(benchmark, lo):
    run_live(benchmark, lo, "LiveInterfaceAddrs")


PEER_CASES = [
    ("BenchmarkInterfaces", "psutil.net_if_stats"),
    ("BenchmarkInterfaces", "netifaces.interfaces"),
    ("BenchmarkInterfaces", "ifaddr.get_adapters"),
    ("BenchmarkInterfaces", "pyroute2.get_links"),
    ("BenchmarkInterfaces", "socket.if_nameindex"),
    ("BenchmarkInterfaceByIndex", "pyroute2.link(get,index)"),
    ("BenchmarkInterfaceByIndex", "socket.if_indextoname"),
    ("BenchmarkInterfaceByName", "pyroute2.link(get,ifname)"),
    ("BenchmarkInterfaceByName", "socket.if_nametoindex"),
    ("BenchmarkInterfaceAddrs", "psutil.net_if_addrs"),
    ("BenchmarkInterfaceAddrs", "netifaces.ifaddresses(each)"),
    ("BenchmarkInterfaceAddrs", "ifaddr.get_adapters"),
    ("BenchmarkInterfaceAddrs", "pyroute2.get_addr"),
    ("BenchmarkInterfacesAndAddrs", "netifaces.ifaddresses"),
    ("BenchmarkInterfacesAndAddrs", "pyroute2.get_addr(index)"),
    (bench.SNAPSHOT, "psutil.net_if_addrs+net_if_stats"),
    (bench.SNAPSHOT, "pyroute2.get_links+get_addr"),
    ("Counters", "psutil.net_io_counters(pernic)"),
]


@pytest.mark.parametrize("group,peer", PEER_CASES, ids=[f"{g}-{p}" for g, p in PEER_CASES])
def BenchmarkPeer(benchmark, peers, group, peer):
    fn = peers[group].get(peer)
    if fn is None:
        pytest.skip(f"{peer.split('.')[0]} is not installed (pip install '.[bench]')")
    benchmark.group = group
    benchmark(fn)


@pytest.mark.benchmark(group="Counters")
def BenchmarkCounters(benchmark, lo):
    run(benchmark, lo, "Counters")


@pytest.mark.benchmark(group="InterfaceCounters")
def BenchmarkInterfaceCounters(benchmark, lo):
    run(benchmark, lo, "InterfaceCounters")
