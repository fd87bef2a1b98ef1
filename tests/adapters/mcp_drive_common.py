"""What the MCP client drivers share: their command line and their report (no saas_sim, no SDK here).

A driver runs inside an ecosystem venv (`.ci/ecosystem.sh`), which holds its MCP client
and nothing of saas_sim:

    python mcp_drive_<client>.py URL PLAN_JSON [MODE]

It connects afresh for every request, as verifiers does: once to read the instructions,
the tools and the `task` prompt, once per planned call, then once to an unknown
episode's URL. It prints one JSON report on stdout (`Report`).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

UNKNOWN_EPISODE = "ep_000000000000"
"""An id no server hands out (ids are random): its URL names no episode."""


def parse_argv() -> tuple[str, list[dict[str, Any]], str]:
    """The episode's MCP URL, the calls to make (`[{tool, arguments}]`), and the client's protocol mode."""
    url, plan = sys.argv[1], json.loads(sys.argv[2])
    return url, plan, sys.argv[3] if len(sys.argv) > 3 else "auto"


def unknown_url(url: str) -> str:
    """The same server's URL for an episode that does not exist."""
    return re.sub(r"/episodes/[^/]+/mcp", f"/episodes/{UNKNOWN_EPISODE}/mcp", url)


def call_report(is_error: bool | None, structured: Any, meta: Any) -> dict[str, Any]:
    """One call's result as the report holds it."""
    return {"is_error": bool(is_error), "structured": structured, "meta": meta}


def emit(report: dict[str, Any]) -> None:
    """Prints the report: `{protocol, instructions, tools, prompt, results, unknown_instructions,
    unknown_call, unknown_list_error}`."""
    print(json.dumps(report, sort_keys=True))
