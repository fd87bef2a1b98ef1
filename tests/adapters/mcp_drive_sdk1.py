"""Drives an episode's MCP endpoint with the official SDK 1.x (`mcp==1.30.0`: the initialize handshake).

Run inside its ecosystem venv; see mcp_drive_common for the command line and the report.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from mcp.types import InitializeResult, TextContent
from mcp_drive_common import call_report, emit, parse_argv, unknown_url


@asynccontextmanager
async def connect(url: str) -> AsyncIterator[tuple[ClientSession, InitializeResult]]:
    """A fresh connection: its own HTTP client, transport, session and handshake."""
    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        yield session, await session.initialize()


async def main() -> None:
    url, plan, _ = parse_argv()
    report: dict[str, Any] = {"results": []}
    async with connect(url) as (session, init):
        report["protocol"] = init.protocolVersion
        report["instructions"] = init.instructions
        report["tools"] = [tool.name for tool in (await session.list_tools()).tools]
        prompt = (await session.get_prompt("task")).messages[0].content
        report["prompt"] = prompt.text if isinstance(prompt, TextContent) else None
    for step in plan:
        async with connect(url) as (session, _):
            result = await session.call_tool(step["tool"], step["arguments"])
        report["results"].append(call_report(result.isError, result.structuredContent, result.meta))
    async with connect(unknown_url(url)) as (session, init):
        report["unknown_instructions"] = init.instructions
        result = await session.call_tool(plan[0]["tool"], plan[0]["arguments"])
        report["unknown_call"] = call_report(result.isError, result.structuredContent, result.meta)
        try:
            await session.list_tools()
            report["unknown_list_error"] = None
        except McpError as exc:
            report["unknown_list_error"] = {"code": exc.error.code, "message": exc.error.message}
    emit(report)


if __name__ == "__main__":
    asyncio.run(main())
