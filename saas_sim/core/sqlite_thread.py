"""A plain `sqlite3` connection owned by one thread, driven from the event loop in whole jobs.

aiosqlite hops to its thread once per statement, so a group commit of eight
statements paid eight hops (each a queue put, a thread wake-up and a loop
wake-up). Here a *job* is a function of the connection (a whole transaction,
a whole read) and crosses threads once each way:

    loop --SimpleQueue--> thread: fn(conn, *args) --call_soon_threadsafe--> loop

Jobs run one at a time in submission order, so a job never sees another
job's uncommitted rows and a transaction is never split across hops. The
connection is in autocommit mode (`isolation_level=None`): a job that needs a
transaction issues `BEGIN IMMEDIATE` and `COMMIT` itself.

The thread is a daemon: a store that is never closed cannot hang the
interpreter's exit (aiosqlite's does). Nothing acknowledged is at risk, since
a caller learns of a commit only after `COMMIT` returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = ["THREAD_NAME_PREFIX", "ThreadedConnection"]

T = TypeVar("T")

THREAD_NAME_PREFIX = "saas-sim-sqlite"
"""Every connection thread's name starts with this (tests count them)."""

Job = tuple[Callable[..., Any], tuple[Any, ...], asyncio.AbstractEventLoop, asyncio.Future[Any]]


def _settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    """Resolves a job's future on its loop (a cancelled waiter leaves it cancelled)."""
    if future.done():
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class ThreadedConnection:
    """One `sqlite3` connection and the thread that alone uses it.

    Args:
        path: The database file, or `:memory:`.
        name: The thread's name suffix ("writer", "reader").
    """

    def __init__(self, path: str, name: str) -> None:
        self.path = path
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=f"{THREAD_NAME_PREFIX}-{name}", daemon=True)
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        self.raw_uses = 0
        """How many statements ran through `execute`/`execute_fetchall`, outside any job:
        a cache of what the database holds must not trust itself past one."""

    @classmethod
    async def open(cls, path: str, name: str, setup: Sequence[str] = ()) -> ThreadedConnection:
        """Starts the thread, connects in it and runs the `setup` statements (pragmas).

        Raises:
            sqlite3.Error: The database cannot be opened or set up; the thread has stopped.
        """
        self = cls(path, name)
        self._thread.start()
        try:
            await self.run(self._connect, tuple(setup))
        except BaseException:
            await self.close()
            raise
        return self

    def _connect(self, _conn: sqlite3.Connection | None, setup: tuple[str, ...]) -> None:
        # check_same_thread stays on: only this thread ever touches the connection.
        conn = sqlite3.connect(self.path, isolation_level=None, cached_statements=256)
        try:
            for statement in setup:
                conn.execute(statement)
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            fn, args, loop, future = job
            try:
                ok, value = True, fn(self._conn, *args)
            except BaseException as exc:  # handed to the awaiting task, which decides
                ok, value = False, exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting
                loop.call_soon_threadsafe(_settle, future, ok, value)
            del job, fn, args, future, value  # nothing of a finished job outlives it here
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    def submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Queues `fn(conn, *args)` for the thread and returns the future of its result.

        The job runs to its end even if nobody awaits the future any more.
        """
        if self._closed:
            raise RuntimeError("connection thread is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((fn, args, loop, future))
        return future

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Runs `fn(conn, *args)` in the thread and returns its result (one hop each way)."""
        return await self.submit(fn, *args)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Runs one statement on its own (autocommit), outside the store's bookkeeping."""
        self.raw_uses += 1
        await self.run(_execute, sql, tuple(params))

    async def execute_fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Runs one query on its own and returns every row, outside the store's bookkeeping."""
        self.raw_uses += 1
        return await self.run(_fetchall, sql, tuple(params))

    async def close(self) -> None:
        """Lets queued jobs finish, closes the connection and joins the thread. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._jobs.put(None)
        if self._thread.is_alive():
            # The queued jobs finish first; joining off the loop keeps the loop serving their results.
            await asyncio.to_thread(self._thread.join)


def _execute(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> None:
    conn.execute(sql, params)


def _fetchall(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in conn.execute(sql, params).fetchall()]
