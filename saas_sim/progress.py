"""Progress bars for long CLI work: a rich bar on a terminal, silence when piped or asked for JSON.

    with progress_bar("auditing", total=len(items), quiet=as_json) as advance:
        for item in items:
            work(item)
            advance(description=item.name)

Only the command line draws one; the runtime accepts a plain callback where a long
loop lives and never prints. The bar goes to stderr, so stdout stays clean for data,
and it is shown only when stdout is a terminal: a pipe or a file gets no bar at all.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["Advance", "progress_bar", "progress_messages", "wants_progress", "world_bar"]


class _BuildsWorlds(Protocol):
    """What `world_bar` needs of an `Environment`: its world-build callback."""

    world_progress: Callable[[str], None] | None


class Advance(Protocol):
    """Moves a bar on: `advance()`, `advance(3)`, `advance(description="seed 2")`, `advance(0, total=9)`."""

    def __call__(self, steps: int = 1, *, description: str | None = None, total: int | None = None) -> None:
        """Advances by `steps`, optionally renaming the bar or changing its total."""


def wants_progress(*, quiet: bool = False) -> bool:
    """Returns whether a bar should be drawn: stdout is a terminal and the caller is not quiet (`--json`)."""
    if quiet:
        return False
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty and isatty())


def _noop(steps: int = 1, *, description: str | None = None, total: int | None = None) -> None:
    """Advances nothing: the bar is off."""


@contextmanager
def progress_bar(
    description: str,
    total: int | None = None,
    *,
    quiet: bool = False,
    console: Console | None = None,
    enabled: bool | None = None,
    auto_refresh: bool = True,
) -> Iterator[Advance]:
    """Shows a transient progress bar while the block runs, and yields its `advance`.

    Args:
        description: The bar's first label.
        total: The number of steps, or None for an open-ended count.
        quiet: Draw nothing (a command's `--json`).
        console: Where to draw (default: a stderr console).
        enabled: Force the bar on or off; by default `wants_progress(quiet=quiet)`.
        auto_refresh: Redraw ten times a second from a thread (the elapsed time ticks); False redraws
            only when `advance` is called, so a benchmark shares no CPU with its bar.

    Yields:
        A thread-safe `advance` (world builds call it from a worker thread). With the bar off, it does nothing.
    """
    on = wants_progress(quiet=quiet) if enabled is None else enabled and not quiet
    if not on:
        yield _noop
        return
    target = console if console is not None else Console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=target, transient=True, auto_refresh=auto_refresh) as bar:
        task = bar.add_task(description, total=total)

        def advance(steps: int = 1, *, description: str | None = None, total: int | None = None) -> None:
            bar.update(task, advance=steps, description=description, total=total, refresh=not auto_refresh)

        yield advance


@contextmanager
def progress_messages(
    description: str,
    *,
    quiet: bool = False,
    log: Callable[[str], None] | None = None,
    console: Console | None = None,
    enabled: bool | None = None,
) -> Iterator[Callable[[str], None]]:
    """A bar for work that reports what it is doing rather than how far it is (a benchmark's stages).

    Each message advances an open-ended bar by one and becomes its label; the bar is redrawn
    only then (no refresh thread competes with what is measured). With the bar off (piped,
    or quiet), each message goes to `log` instead, if given: a log line, never a bar.

    Args:
        description: The bar's first label.
        quiet: Draw nothing (a command's `--json`).
        log: Where messages go while no bar is drawn.
        console: Where to draw (default: a stderr console).
        enabled: Force the bar on or off; by default `wants_progress(quiet=quiet)`.

    Yields:
        The callback to hand the work (thread-safe).
    """
    on = wants_progress(quiet=quiet) if enabled is None else enabled and not quiet
    if not on:
        yield log or (lambda _m: None)
        return
    with progress_bar(description, console=console, enabled=True, auto_refresh=False) as advance:
        yield lambda message: advance(description=message)


@contextmanager
def world_bar(env: _BuildsWorlds, *, quiet: bool = False) -> Iterator[None]:
    """Shows the worlds an `Environment` builds or loads while the block runs (a bar without a count).

    Args:
        env: The environment; its `world_progress` is set for the block and cleared after.
        quiet: Draw nothing (a command's `--json`).
    """
    with progress_bar("world", quiet=quiet) as advance:
        env.world_progress = lambda message: advance(0, description=message)
        try:
            yield
        finally:
            env.world_progress = None
