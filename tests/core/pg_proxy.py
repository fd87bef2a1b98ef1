"""A TCP proxy in front of PostgreSQL that a test can cut and restore: an outage without touching the server.

Cutting aborts every proxied connection and stops listening, so the client sees
exactly what a server restart shows it (dropped connections, then refused
connects); restoring listens again on the same port.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit, urlunsplit


class PgProxy:
    """Forwards 127.0.0.1:<port> to the server of a store URL.

    Args:
        url: The store URL whose host and port are proxied.
    """

    def __init__(self, url: str) -> None:
        self._scheme, rest = url.split("://", 1)
        parts = urlsplit("postgresql://" + rest)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._parts = parts
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        """The store URL with the proxy in place of the server."""
        user = f"{self._parts.username}@" if self._parts.username else ""
        netloc = f"{user}127.0.0.1:{self.port}"
        rest = urlunsplit(("", netloc, self._parts.path, self._parts.query, ""))
        return f"{self._scheme}:{rest}"

    async def start(self) -> None:
        """Listens (again) on the proxy's port."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        """Drops every proxied connection and refuses new ones until `start()`."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def close(self) -> None:
        """Cuts and waits for every forwarding task to end."""
        await self.cut()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(*self._target)
        except OSError:
            client_w.transport.abort()
            return
        self._writers.update((client_w, server_w))
        for src, dst in ((client_r, server_w), (server_r, client_w)):
            task = asyncio.create_task(self._pipe(src, dst))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        try:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            dst.transport.abort()
            self._writers.discard(dst)
