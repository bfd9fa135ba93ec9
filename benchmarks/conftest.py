import pytest

from netifc import bench


@pytest.fixture(scope="session")
def lo():
    """The loopback interface, found once before timing, as Go's benchmarks do."""
    return bench.loopback()


@pytest.fixture(scope="session")
def peers(lo):
    return bench.peer_bodies(lo)
