"""Tool schemas encoded once per (scenario, flavor), with an ETag, for the HTTP app.

A scenario's toolkit is immutable, so its schemas are too: exporting and
encoding them on every `POST /episodes` cost more than starting the episode.
The cache holds the encoded JSON list and its ETag; an answer splices the bytes
in, and `GET /scenarios/{ref}/tools` answers 304 to a matching If-None-Match.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Literal

from saas_sim.runtime.toolkit import Toolkit

__all__ = ["Flavor", "SchemaCache", "ToolSchemasBody"]

Flavor = Literal["openai", "anthropic", "mcp"]


@dataclass(frozen=True, slots=True)
class ToolSchemasBody:
    """One scenario's tools in one flavor, encoded.

    Attributes:
        tools: The JSON list of tool schemas (UTF-8).
        etag: Its strong ETag, quoted as the header carries it.
    """

    tools: bytes
    etag: str

    def matches(self, if_none_match: str | None) -> bool:
        """Whether an If-None-Match header names this version (`*` or a list of tags, weak or strong)."""
        if if_none_match is None:
            return False
        tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
        return "*" in tags or self.etag in tags


class SchemaCache:
    """Encoded tool schemas by (scenario ref, flavor); unbounded, since scenarios are few and fixed."""

    def __init__(self) -> None:
        self._bodies: dict[tuple[str, str], ToolSchemasBody] = {}

    def get(self, scenario_ref: str, toolkit: Toolkit, flavor: Flavor) -> ToolSchemasBody:
        """Returns the encoded schemas, exporting them the first time."""
        key = (scenario_ref, flavor)
        body = self._bodies.get(key)
        if body is None:
            export = {"openai": toolkit.openai, "anthropic": toolkit.anthropic, "mcp": toolkit.mcp}[flavor]
            tools = json.dumps(export(), ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
            etag = f'"{flavor}-{hashlib.sha256(tools).hexdigest()[:32]}"'
            body = self._bodies[key] = ToolSchemasBody(tools, etag)
        return body
