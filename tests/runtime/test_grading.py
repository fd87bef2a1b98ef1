"""The grading contract: goals give partial credit, violated constraints cap the scalar."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from saas_sim.core.state import State
from saas_sim.errors import ScenarioFileError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.grading import CheckKind, CheckScore, combine
from saas_sim.scenarios.model import ScenarioFile
from tests.runtime.conftest import FIXTURES
from tests.runtime.notes_domain import DOMAIN

SCENARIO = "notes/guarded-archive"


def graded_env(url: str = "sqlite+aiosqlite:///:memory:") -> Environment:
    return Environment(url, scenario_dirs=[FIXTURES / "graded"], seeds_dirs=[FIXTURES / "seeds"],
                       domains=[DOMAIN], builtin=False)


@pytest.fixture
async def genv() -> AsyncIterator[Environment]:
    async with graded_env() as e:
        yield e


async def _start(env: Environment, seed: int = 0) -> tuple[Episode, dict[str, Any]]:
    ep = await env.start(SCENARIO, seed)
    return ep, ep.task.bindings


async def _do(ep: Episode, tool: str, **args: Any) -> Any:
    result = await ep.call(tool, args)
    assert result.ok, result.error
    return result.value


async def _oracle(ep: Episode, b: dict[str, Any]) -> None:
    await _do(ep, "notes.archive_note", note_id=b["note"]["id"])
    await _do(ep, "notes.create_note", title=b["new_title"])


@pytest.mark.parametrize("seed", [0, 1, 2])
async def test_correct_work_scores_one_with_every_constraint_held(genv: Environment, seed: int) -> None:
    ep, b = await _start(genv, seed)
    await _oracle(ep, b)
    grade = await ep.grade()
    assert grade.score == 1.0 and grade.goal_score == 1.0 and grade.violations == []
    assert grade.attribution == "success"
    kinds = {c.name: (c.kind, c.cap) for c in grade.checks}
    assert kinds == {
        "archived": ("goal", None), "follow_up_created": ("goal", None), "keep_kept": ("constraint", 0.3),
        "no_collateral": ("constraint", 0.1), "no_secret": ("constraint", 0.4), "scope": ("constraint", 0.5),
    }


async def test_a_violated_constraint_caps_the_score_whatever_the_goals(genv: Environment) -> None:
    ep, b = await _start(genv)
    await _oracle(ep, b)
    made = await _do(ep, "notes.create_note", title="the secret plan")  # in scope, but a breach
    grade = await ep.grade()
    assert grade.goal_score == 1.0
    assert grade.score == 0.4
    assert [(v.name, v.cap) for v in grade.violations] == [("no_secret", 0.4)]
    assert made["id"] in grade.violations[0].detail
    assert grade.attribution == "agent_failure"


async def test_multiple_violations_take_the_lowest_cap(genv: Environment) -> None:
    ep, b = await _start(genv)
    await _oracle(ep, b)
    await _do(ep, "notes.archive_note", note_id=b["keep"]["id"])
    grade = await ep.grade()
    assert grade.goal_score == 1.0
    caps = {v.name: v.cap for v in grade.violations}
    assert caps == {"keep_kept": 0.3, "no_collateral": 0.1, "scope": 0.5}
    assert grade.score == 0.1


async def test_partial_goals_earn_proportional_credit(genv: Environment) -> None:
    ep, b = await _start(genv)
    await _do(ep, "notes.archive_note", note_id=b["note"]["id"])  # weight 2 of 3; no follow-up
    grade = await ep.grade()
    assert grade.violations == []
    assert grade.goal_score == pytest.approx(2 / 3)
    assert grade.score == pytest.approx(2 / 3)


async def test_noop_scores_zero_goals_and_holds_every_constraint(genv: Environment) -> None:
    ep, _ = await _start(genv)
    grade = await ep.grade()
    assert grade.score == 0.0 and grade.violations == []


async def test_grade_json_lists_kinds_caps_and_violations(genv: Environment) -> None:
    ep, b = await _start(genv)
    await _oracle(ep, b)
    await _do(ep, "notes.create_note", title="secret")
    grade = await ep.grade()
    data = json.loads(grade.model_dump_json())
    assert data["goal_score"] == 1.0 and data["score"] == 0.4
    assert data["violations"] == [{"name": "no_secret", "detail": grade.violations[0].detail, "cap": 0.4}]
    by_name = {c["name"]: c for c in data["checks"]}
    assert by_name["archived"]["kind"] == "goal" and by_name["archived"]["cap"] is None
    assert by_name["scope"]["kind"] == "constraint" and by_name["scope"]["cap"] == 0.5
    footer = ep.trajectory.footer
    assert footer is not None and footer["grade"]["violations"] == data["violations"]


async def test_the_footer_hashes_the_graded_state_only_when_the_trajectory_is_read(
        genv: Environment, monkeypatch: pytest.MonkeyPatch) -> None:
    ep, b = await _start(genv)
    await _oracle(ep, b)
    graded_hash = ep.state.content_hash()
    hashed: list[str] = []
    real = State.content_hash
    monkeypatch.setattr(State, "content_hash", lambda self: hashed.append("x") or real(self))
    await ep.grade()
    assert hashed == []  # grading alone never hashes the whole state
    await _do(ep, "notes.create_note", title="after the grade")
    footer = ep.trajectory.footer
    assert footer is not None and footer["content_hash"] == graded_hash != ep.state.content_hash()
    assert json.loads(ep.trajectory.dumps().splitlines()[-1])["content_hash"] == graded_hash


async def test_unbound_scope_template_is_a_verifier_error_not_a_reward(tmp_path: Path) -> None:
    text = (FIXTURES / "graded" / "notes" / "guarded-archive.yaml").read_text()
    text = text.replace('on: ["{note.id}"]', 'on: ["{nobody.id}"]')
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "x.yaml").write_text(text)
    async with Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[tmp_path],
                           seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False) as env:
        ep, b = await _start(env)
        await _oracle(ep, b)
        grade = await ep.grade()
    assert grade.score is None and not grade.valid and grade.attribution == "verifier_error"
    assert grade.error is not None and "'scope'" in grade.error


def _score(name: str, kind: CheckKind, score: float, weight: float = 1.0, cap: float | None = None) -> CheckScore:
    return CheckScore(name=name, kind=kind, weight=weight, cap=cap, score=score, detail="")


_unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
_goals = st.lists(st.tuples(_unit, st.floats(min_value=0.01, max_value=10.0)), min_size=1, max_size=6)
_constraints = st.lists(st.tuples(st.sampled_from([0.0, 1.0]), _unit), max_size=6)


@given(goals=_goals, constraints=_constraints)
def test_score_is_under_every_violated_cap_and_equals_goals_without_violations(
    goals: list[tuple[float, float]], constraints: list[tuple[float, float]]
) -> None:
    scores = [_score(f"g{i}", "goal", s, w) for i, (s, w) in enumerate(goals)]
    scores += [_score(f"c{i}", "constraint", s, cap=cap) for i, (s, cap) in enumerate(constraints)]
    score, goal_score, violations = combine(scores)
    total = sum(w for _, w in goals)
    assert goal_score == pytest.approx(sum(s * w for s, w in goals) / total)
    assert [v.name for v in violations] == [f"c{i}" for i, (s, _) in enumerate(constraints) if s < 1.0]
    for v in violations:
        assert score <= v.cap
    if violations:
        assert score == min(goal_score, *(v.cap for v in violations))
    else:
        assert score == goal_score
    assert 0.0 <= score <= 1.0


def test_constraint_weight_never_moves_the_goal_score() -> None:
    light = combine([_score("g", "goal", 0.5), _score("c", "constraint", 1.0, weight=1.0, cap=0.0)])
    heavy = combine([_score("g", "goal", 0.5), _score("c", "constraint", 1.0, weight=100.0, cap=0.0)])
    assert light == heavy == (0.5, 0.5, [])


def test_a_partly_held_constraint_counts_as_violated() -> None:
    score, _, violations = combine([_score("g", "goal", 1.0), _score("c", "constraint", 0.99, cap=0.2)])
    assert score == 0.2 and [v.name for v in violations] == ["c"]


# the scenario file's grading fields --------------------------------------------------------------------------------
def _spec(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = yaml.safe_load((FIXTURES / "graded" / "notes" / "guarded-archive.yaml").read_text())
    raw.update(changes)
    return raw


def test_fixture_file_parses_with_every_grading_field() -> None:
    spec = ScenarioFile.model_validate(_spec(blind_ceiling={"max_score": 0.6, "reason": "two notes"},
                                             seed_invariant="never: the note is drawn"))
    assert [c.kind for c in spec.checks] == ["goal", "goal", "constraint", "constraint", "constraint"]
    assert spec.checks[1].weight == 1.0 and spec.checks[0].cap == 0.0
    assert spec.scope is not None and spec.scope.allow is not None and spec.scope.allow[0].on == ["{note.id}"]
    assert spec.hacks[0].covers == ["collateral"] and spec.alternatives[0].name == "create_first_with_reads"
    assert spec.blind_ceiling is not None and spec.blind_ceiling.max_score == 0.6


@pytest.mark.parametrize(("changes", "message"), [
    ({"alternatives": [{"name": "archived", "steps": []}]}, "unique across checks, hacks and alternatives"),
    ({"hacks": [{"name": "no_secret", "max_score": 0.1, "steps": []}]}, "unique across"),
    ({"checks": [{"name": "scope", "fn": "notes.note_archived"}]}, "scope guard's name"),
    ({"checks": [{"name": "c", "kind": "constraint", "fn": "notes.note_kept"}]}, "at least one goal"),
    ({"scope": {"unguarded": "why", "allow": []}}, "exactly one of"),
    ({"scope": {"cap": 0.2}}, "exactly one of"),
    ({"scope": {"unguarded": "why", "cap": 0.2}}, "no cap"),
    ({"hacks": [{"name": "h", "covers": ["anything"], "max_score": 0.1, "steps": []}]}, "covers"),
    ({"checks": [{"name": "g", "fn": "f", "cap": 1.5}]}, "cap"),
    ({"blind_ceiling": {"max_score": 0.6, "reason": ""}}, "reason"),
])
def test_invalid_grading_fields_are_rejected(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ScenarioFile.model_validate(_spec(**changes))


@pytest.mark.parametrize(("old", "new", "field"), [
    ("fn: notes.note_kept", "fn: notes.nope", "checks.2.fn"),  # constraint functions must exist too
    ("{tool: notes.get_note, args: {note_id: \"{note.id}\"}}", "{tool: notes.explode, args: {}}",
     "alternatives.0.steps.2.tool"),
])
def test_loader_resolves_constraints_and_alternatives_against_the_code(
    tmp_path: Path, old: str, new: str, field: str
) -> None:
    text = (FIXTURES / "graded" / "notes" / "guarded-archive.yaml").read_text()
    assert old in text
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "x.yaml").write_text(text.replace(old, new))
    with pytest.raises(ScenarioFileError, match=field.replace(".", r"\.")):
        Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[tmp_path], seeds_dirs=[FIXTURES / "seeds"],
                    domains=[DOMAIN], builtin=False)
