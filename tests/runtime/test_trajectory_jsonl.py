"""Trajectory JSONL: one object per `\\n`-terminated line, whatever line breaks its strings hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from saas_sim.errors import UsageError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.trajectory import parse_trajectory, read_trajectory

SCENARIO = "notes/archive-and-follow-up"
# Every character str.splitlines breaks on that json.dumps(ensure_ascii=False) leaves raw in a string.
BREAKS = "line\u2028separator\u2029paragraph\x85next\x1c\x1d\x1e\x0b\x0c end"


async def recorded(env: Environment) -> str:
    """Runs one call whose arguments and result hold every raw Unicode line break; returns the JSONL."""
    episode = await env.start(SCENARIO, 0)
    try:
        result = await episode.call("notes.create_note", {"title": BREAKS, "body": BREAKS}, call_id="c1")
        assert result.ok, result.error
        await episode.grade()
        return episode.trajectory.dumps()
    finally:
        await episode.close()


async def test_dumps_keeps_the_unicode_line_breaks_raw_and_ends_lines_with_newline_only(env: Environment) -> None:
    text = await recorded(env)
    assert "\u2028" in text and "\u2029" in text and "\x85" in text  # what made splitlines cut lines
    assert len(text.splitlines()) > len(text.split("\n")) - 1       # the old reader's miscount
    assert text.endswith("\n") and "\r" not in text


async def test_a_file_with_unicode_line_breaks_reads_back_to_the_same_trajectory(
    env: Environment, tmp_path: Path
) -> None:
    text = await recorded(env)
    path = tmp_path / "t.jsonl"
    original = parse_trajectory(text)
    original.write(path)
    assert path.read_bytes() == text.encode("utf-8")
    back = read_trajectory(path)
    assert back.dumps() == text
    assert back.steps[0].args == {"title": BREAKS, "body": BREAKS}
    assert back.steps[0].result["title"] == BREAKS
    assert back.footer is not None and back.footer["grade"]["attribution"] in ("success", "agent_failure")


def test_a_trajectory_with_a_garbled_line_is_a_usage_error_naming_the_source() -> None:
    with pytest.raises(UsageError, match="cannot read trajectory body"):
        parse_trajectory('{"kind": "header"}\n{not json\n', source="body")
