"""The README's Quickstart and agent-loop example keep working."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_quickstart_block_holds_exactly_two_commands() -> None:
    block = README.split("## Quickstart", 1)[1].split("```", 2)[1]
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 2
    assert "saas-sim run" in lines[0]
    assert "--agent oracle" in lines[0]
    assert "pytest" in lines[1]


def test_agent_loop_example_runs_and_grades(tmp_path: Path) -> None:
    match = re.search(r"## An agent loop\n\n```python\n(.*?)```", README, re.S)
    assert match is not None
    script = tmp_path / "example.py"
    script.write_text(match.group(1), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "agent_failure" in proc.stdout or "success" in proc.stdout
    assert (tmp_path / ".saas_sim" / "events.db").exists()
