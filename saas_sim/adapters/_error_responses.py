"""Error answers that can echo whatever a client sent.

A JSON body may carry a lone surrogate (`"\\ud800"`): valid JSON, but no UTF-8 text. An error that
echoes it back (a validation error's `input`, a message naming the value) cannot be encoded as UTF-8,
and Starlette's `JSONResponse` then fails while answering, a 500 for a client's typo. These answers
escape every non-ASCII character instead, which JSON allows and every client decodes.

Python's JSON parser also reads `NaN`, `Infinity` and `1e999` (an infinity), which no strict JSON
may hold: echoed as numbers they made the answer's encoding fail, another 500. They are echoed as
the text of their literal (`"NaN"`, `"Infinity"`, `"-Infinity"`).
"""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

__all__ = ["AsciiJSONResponse", "finite_json", "validation_error"]


class AsciiJSONResponse(JSONResponse):
    """A JSON answer written in ASCII (`\\uXXXX` escapes), so any text a client sent can be echoed."""

    def render(self, content: Any) -> bytes:
        try:
            text = json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
        except ValueError:  # a NaN or an infinity a client sent, echoed
            text = json.dumps(finite_json(content), ensure_ascii=True, allow_nan=False, separators=(",", ":"))
        return text.encode("ascii")


def finite_json(value: Any) -> Any:
    """A copy of `value` (JSON data) with every NaN or infinite float written as the text of its JSON literal.

    Iterative: an echoed input nests as deep as the client's body did (Python's parser takes hundreds of levels).
    """
    root = [value]
    todo: list[tuple[Any, Any]] = [(root, 0)]
    while todo:
        holder, key = todo.pop()
        item = holder[key]
        if isinstance(item, float) and not math.isfinite(item):
            holder[key] = "NaN" if math.isnan(item) else ("Infinity" if item > 0 else "-Infinity")
        elif isinstance(item, dict):
            holder[key] = copied = dict(item)
            todo.extend((copied, k) for k in copied)
        elif isinstance(item, list | tuple):
            holder[key] = listed = list(item)
            todo.extend((listed, i) for i in range(len(listed)))
    return root[0]


async def validation_error(request: Request, exc: RequestValidationError) -> AsciiJSONResponse:
    """FastAPI's 422 answer (`{"detail": [...]}`), written so that an echoed input cannot break it."""
    return AsciiJSONResponse({"detail": jsonable_encoder(exc.errors())}, status_code=422)
