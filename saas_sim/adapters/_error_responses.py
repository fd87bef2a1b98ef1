"""Error answers that can echo whatever a client sent.

A JSON body may carry a lone surrogate (`"\\ud800"`): valid JSON, but no UTF-8 text. An error that
echoes it back (a validation error's `input`, a message naming the value) cannot be encoded as UTF-8,
and Starlette's `JSONResponse` then fails while answering, a 500 for a client's typo. These answers
escape every non-ASCII character instead, which JSON allows and every client decodes.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

__all__ = ["AsciiJSONResponse", "validation_error"]


class AsciiJSONResponse(JSONResponse):
    """A JSON answer written in ASCII (`\\uXXXX` escapes), so any text a client sent can be echoed."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


async def validation_error(request: Request, exc: RequestValidationError) -> AsciiJSONResponse:
    """FastAPI's 422 answer (`{"detail": [...]}`), written so that an echoed input cannot break it."""
    return AsciiJSONResponse({"detail": jsonable_encoder(exc.errors())}, status_code=422)
