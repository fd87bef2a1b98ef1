"""uvicorn's httptools protocol, bounded (a client that pipelines or sends an endless head cannot grow memory)
and answering in one write.

httptools parses 20-30 % cheaper than h11 per request (measured with `saas-sim bench http`), but uvicorn's
`HttpToolsProtocol` has two gaps h11 does not:

* After every answer it resumes reading, so a client that pipelines requests and never reads the answers
  gets a whole read of requests parsed and queued each time: 138,572 queued after 5 s, still growing.
  Here reading stays paused while answers are owed (at most one read's worth is ever queued).
* llhttp keeps a request head of any length. Here a head past `MAX_HEAD_BYTES` is answered 400.

It also writes an answer's head and body to the socket together (`_JoinedWrites`): uvicorn writes them with
two `transport.write` calls, and each is a `send` system call that, on loopback, also runs the receiver's
TCP path (uvicorn's `send` was about 10 % of the server's GIL time in a py-spy profile of `saas-sim bench http`;
one joined write costs the sender about half the CPU of two).

The subclass leans on uvicorn's internals (`pipeline`, `flow`, the parser callbacks), so uvicorn is pinned
below its next minor release in pyproject.toml, and tests/adapters/test_network_edge.py runs both cases
against it.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

__all__ = ["MAX_HEAD_BYTES", "http_protocol"]

MAX_HEAD_BYTES = 64 * 1024
"""The longest request line plus headers read; h11's own bound is 16 KiB."""


def http_protocol(name: str) -> str | type:
    """What to pass as uvicorn's `http`: `h11`, or the bounded httptools protocol for `httptools`.

    `auto` picks httptools when it is installed, else h11.

    Raises:
        ValueError: An unknown name, or httptools asked for and not installed.
    """
    if name == "auto":
        name = "httptools" if importlib.util.find_spec("httptools") is not None else "h11"
    if name == "h11":
        return "h11"
    if name != "httptools":
        raise ValueError(f"unknown HTTP implementation {name!r}; use auto, h11 or httptools")
    if importlib.util.find_spec("httptools") is None:
        raise ValueError("httptools is not installed (pip install httptools), or use --http h11")
    return _bounded_httptools()


def _bounded_httptools() -> type:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class BoundedHttpToolsProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol with a bounded pipeline and a bounded request head."""

        _head_bytes = 0
        _in_head = False

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_head = True

        def on_headers_complete(self) -> None:
            self._in_head = False
            self._head_bytes = 0
            super().on_headers_complete()
            cycle = self.cycle
            if cycle is not None and cycle.transport is self.transport:  # None: the request was an upgrade
                cycle.transport = _JoinedWrites(self.transport)  # type: ignore[assignment]

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._in_head and not self.transport.is_closing():
                self._head_bytes += len(data)
                if self._head_bytes > MAX_HEAD_BYTES:
                    self.send_400_response("Request head too large.")

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.pipeline:  # answers are still owed: read no further until they are sent
                self.flow.pause_reading()

    return BoundedHttpToolsProtocol


class _JoinedWrites:
    """One answer's view of its connection's transport: a write is held until the next one or the loop's
    next turn, and the two go out in one `write`.

    The fast lane and starlette send a head and its body in the same turn of the loop, so both leave in one
    system call. A held head is flushed on the loop's next turn anyway: a streamed answer (server-sent events)
    whose first chunk comes later still shows its head at once.
    """

    __slots__ = ("_held", "_transport")

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        """Holds the first write of a turn; writes it together with the next."""
        held = self._held
        if held is None:
            self._held = bytes(data)
            asyncio.get_running_loop().call_soon(self.flush)
        else:
            self._held = None
            self._transport.write(held + data)

    def flush(self) -> None:
        """Writes what is held, if anything."""
        held = self._held
        if held is not None:
            self._held = None
            self._transport.write(held)

    def close(self) -> None:
        """Flushes, then closes the transport (its buffer is still written before the socket closes)."""
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)
