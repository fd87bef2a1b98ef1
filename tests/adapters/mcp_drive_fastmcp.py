"""Drives an episode's MCP endpoint with fastmcp's client (`fastmcp==4.2.3`), in the protocol mode asked for.

Run inside its ecosystem venv; see mcp_drive_common for the command line and the report.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastmcp import Client
from mcp.shared.exceptions import MCPError
from mcp_drive_common import call_report, emit, parse_argv, unknown_url
from mcp_types import TextContent


async def main() -> None:
    url, plan, mode = parse_argv()
    report: dict[str, Any] = {"results": []}
    async with Client(url, mode=mode) as client:  # each `async with` is a fresh connection
        report["protocol"] = client.protocol_version
        report["instructions"] = client.instructions
        report["tools"] = [tool.name for tool in await client.list_tools()]
        prompt = (await client.get_prompt("task")).messages[0].content
        report["prompt"] = prompt.text if isinstance(prompt, TextContent) else None
    for step in plan:
        async with Client(url, mode=mode) as client:
            result = await client.call_tool(step["tool"], step["arguments"], raise_on_error=False)
        report["results"].append(call_report(result.is_error, result.structured_content, result.meta))
    async with Client(unknown_url(url), mode=mode) as client:
        report["unknown_instructions"] = client.instructions
        result = await client.call_tool(plan[0]["tool"], plan[0]["arguments"], raise_on_error=False)
        report["unknown_call"] = call_report(result.is_error, result.structured_content, result.meta)
        try:
            await client.list_tools()
            report["unknown_list_error"] = None
        except MCPError as exc:
            report["unknown_list_error"] = {"code": exc.error.code, "message": exc.error.message}
    emit(report)


if __name__ == "__main__":
    asyncio.run(main())
