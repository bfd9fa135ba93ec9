"""The kernel floor of netifc's benchmarks (Linux builds only)."""

from collections.abc import Sequence

def fresh(
    op: str,
    n: int,
    index: int = 0,
    name: str | None = None,
    zones: Sequence[int] = (),
    *,
    nscheck: bool = False,
) -> float: ...
def kept(
    op: str,
    n: int,
    index: int = 0,
    name: str | None = None,
    zones: Sequence[int] = (),
    *,
    nscheck: bool = False,
) -> float: ...
