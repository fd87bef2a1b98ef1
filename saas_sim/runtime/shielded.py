"""Store writes awaited to their outcome, even when the caller is cancelled meanwhile."""

from __future__ import annotations

import asyncio
from typing import TypeVar

__all__ = ["to_the_end"]

T = TypeVar("T")


async def to_the_end(write: asyncio.Future[T]) -> tuple[T, bool]:
    """Awaits a store write to its outcome, even if the caller is cancelled meanwhile.

    A queued append commits whatever its caller does. Abandoning it at a
    cancellation (an adapter's timeout, a client that went away) would leave
    the live state, version, head and trajectory behind the log: the episode
    would be graded on a state its own log contradicts. So the write is
    shielded and awaited to its end; the second value tells whether the
    caller was cancelled, for it to re-raise once its bookkeeping is done.
    """
    cancelled = False
    while True:
        try:
            return await asyncio.shield(write), cancelled
        except asyncio.CancelledError:
            if write.cancelled():  # the write itself was cancelled (loop shutdown): nothing to finish
                raise
            cancelled = True
