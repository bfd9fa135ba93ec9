"""Closing: what holds a kernel socket or descriptor until ``close()``
(``NetNS``, ``Watcher``, ``Live``) is a context manager whose exit closes it."""

from __future__ import annotations

from typing import Protocol, TypeVar

__all__ = ["Closing"]


class _Closes(Protocol):
    def close(self) -> None: ...


_C = TypeVar("_C", bound=_Closes)


class Closing:
    """``with x:`` hands x itself to the block and calls ``x.close()`` when the
    block ends, however it ends. The class that mixes it in has the close()
    (a C base's, for Live)."""

    __slots__ = ()

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self: _Closes, *exc: object) -> None:
        self.close()
