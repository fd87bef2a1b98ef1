"""The equivalence harness: record everything agents can see, then compare two recordings.

A refactor must not move what agents observe. `record` runs every scripted
agent of every scenario (oracle, no-op, each hack, each alternative, a random
agent) on a few seeds and keeps, per run: the tool schemas of each flavor,
the world hash, the instructions, every step's tool, arguments, result or
error, and the grade. `compare` lists every key whose value differs, with the
first differing path, so a reviewer sees exactly what moved:

    saas-sim equivalence record before.jsonl
    ... refactor ...
    saas-sim equivalence record after.jsonl
    saas-sim equivalence compare before.jsonl after.jsonl
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from saas_sim.runtime.agents import Agent, NoopAgent, RandomAgent, ScriptedAgent
from saas_sim.runtime.environment import Environment
from saas_sim.scenarios.loader import Scenario

__all__ = ["compare_recordings", "read_recording", "record_behaviour", "write_recording"]

FLAVORS = ("openai", "anthropic", "mcp")


def _agents(scenario: Scenario) -> list[tuple[str, Callable[[], Agent]]]:
    spec = scenario.spec
    agents: list[tuple[str, Callable[[], Agent]]] = [
        ("oracle", lambda: ScriptedAgent("oracle", spec.oracle)),
        ("noop", NoopAgent),
        ("random:0", lambda: RandomAgent(0)),
    ]
    scripts = [(f"hack:{h.name}", h.steps) for h in spec.hacks]
    scripts += [(f"alt:{a.name}", a.steps) for a in spec.alternatives]
    agents += [(name, partial(ScriptedAgent, name, steps)) for name, steps in scripts]
    return agents


async def record_behaviour(
    env: Environment,
    scenarios: Sequence[Scenario],
    seeds: Iterable[int],
    progress: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Runs every scripted agent of `scenarios` on `seeds`; returns one record per (scenario, seed, agent).

    The first record of each scenario holds its tool schemas (`agent: "schemas"`).
    """
    say = progress or (lambda _m: None)
    seeds = list(seeds)
    out: list[dict[str, Any]] = []
    for scenario in scenarios:
        say(scenario.ref)
        first = await env.start(scenario, seeds[0] if seeds else 0)
        out.append({"key": f"{scenario.spec.id}#schemas", "schemas": {f: first.tool_schemas(f) for f in FLAVORS}})
        await first.close()
        for seed in seeds:
            for name, make in _agents(scenario):
                episode = await env.start(scenario, seed)
                try:
                    await make().run(episode)
                    grade = await episode.grade()
                    out.append({
                        "key": f"{scenario.spec.id}#{seed}#{name}",
                        "world_hash": episode.task.world.world_hash,
                        "instructions": episode.instructions,
                        "steps": [
                            {"tool": s.tool, "args": s.args, "ok": s.ok, "result": s.result, "error": s.error}
                            for s in episode.trajectory.steps
                        ],
                        "grade": grade.model_dump(mode="json"),
                    })
                finally:
                    await episode.close()
    return out


def write_recording(records: Sequence[dict[str, Any]], path: Path) -> None:
    """Writes records as JSONL (one per line, `\\n` only)."""
    text = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records)
    path.write_bytes(text.encode("utf-8"))


def read_recording(path: Path) -> dict[str, dict[str, Any]]:
    """Reads a recording, keyed by record key."""
    lines = path.read_bytes().decode("utf-8").split("\n")
    records = (json.loads(line) for line in lines if line.strip())
    return {r["key"]: r for r in records}


def _first_diff(a: Any, b: Any, path: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{path or '.'}: {type(a).__name__} {_short(a)} vs {type(b).__name__} {_short(b)}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in the {'second' if k not in a else 'first'} recording"
            found = _first_diff(a[k], b[k], f"{path}.{k}")
            if found:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _first_diff(x, y, f"{path}[{i}]")
            if found:
                return found
        return None if len(a) == len(b) else f"{path}: {len(a)} items vs {len(b)}"
    return None if a == b else f"{path or '.'}: {_short(a)} vs {_short(b)}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def compare_recordings(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> Iterator[str]:
    """Yields one line per key that is missing or differs, with its first differing path."""
    for key in sorted(set(before) | set(after)):
        if key not in after:
            yield f"{key}: missing after"
        elif key not in before:
            yield f"{key}: new after"
        else:
            found = _first_diff(before[key], after[key])
            if found:
                yield f"{key}: {found}"
