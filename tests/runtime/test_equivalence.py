"""The equivalence harness records what agents see and names the first path that moved."""

from __future__ import annotations

import json
from pathlib import Path

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.equivalence import compare_recordings, read_recording, record_behaviour, write_recording


async def test_two_recordings_of_the_same_code_are_equivalent(env: Environment, tmp_path: Path) -> None:
    scenarios = env.scenarios("*")
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_recording(await record_behaviour(env, scenarios, range(2)), first)
    write_recording(await record_behaviour(env, scenarios, range(2)), second)
    before, after = read_recording(first), read_recording(second)
    per_seed = {s.spec.id: 3 + len(s.spec.hacks) + len(s.spec.alternatives) for s in scenarios}
    assert len(before) == sum(1 + 2 * n for n in per_seed.values())
    assert list(compare_recordings(before, after)) == []


async def test_a_changed_result_is_reported_with_its_path(env: Environment, tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    write_recording(await record_behaviour(env, env.scenarios("*")[:1], range(1)), path)
    before = read_recording(path)
    after = json.loads(json.dumps(before))
    key = next(k for k, r in after.items() if k.endswith("#oracle") and r["steps"])
    after[key]["steps"][0]["ok"] = not after[key]["steps"][0]["ok"]
    del after[next(k for k in after if k.endswith("#schemas"))]
    diffs = list(compare_recordings(before, after))
    assert any(d.startswith(f"{key}: .steps[0].ok") for d in diffs)
    assert any(d.endswith("missing after") for d in diffs)
