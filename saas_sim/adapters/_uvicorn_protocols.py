"""uvicorn's httptools protocol, bounded: a client that pipelines or sends an endless head cannot grow memory.

httptools parses 20-30 % cheaper than h11 per request (measured with `saas-sim bench http`), but uvicorn's
`HttpToolsProtocol` has two gaps h11 does not:

* After every answer it resumes reading, so a client that pipelines requests and never reads the answers
  gets a whole read of requests parsed and queued each time: 138,572 queued after 5 s, still growing.
  Here reading stays paused while answers are owed (at most one read's worth is ever queued).
* llhttp keeps a request head of any length. Here a head past `MAX_HEAD_BYTES` is answered 400.

The subclass leans on uvicorn's internals (`pipeline`, `flow`, the parser callbacks), so uvicorn is pinned
below its next minor release in pyproject.toml, and tests/adapters/test_network_edge.py runs both cases
against it.
"""

from __future__ import annotations

import importlib.util

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
