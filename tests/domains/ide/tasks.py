"""Helpers of C's IDE tests: worlds, staged tasks, agent edits and check contexts built from events."""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from saas_sim.core.domain import CheckContext, GenerateContext, Setup, SetupContext, SetupFn
from saas_sim.core.effects import EffectOutcome
from saas_sim.core.ids import IdFactory
from saas_sim.core.rng import SeedTree
from saas_sim.core.state import State
from saas_sim.domains.ide.checks_tests import HiddenRun, read_hidden_run
from saas_sim.domains.ide.generate import generate
from saas_sim.domains.ide.grade_runs import hidden_effect
from saas_sim.domains.ide.sandbox import RunReport
from saas_sim.domains.ide.state import PROJECTION, TASK
from saas_sim.domains.ide.task_model import IdeTask
from saas_sim.domains.ide.workspace import TreeWriter, tree_files

NOW = datetime(2026, 3, 2, 9, tzinfo=UTC)


def world(seed: int = 0, files: int = 10) -> State:
    """The state of a generated IDE world."""
    ctx = GenerateContext(params={"files": files}, seed=SeedTree(seed), state=State(), now=NOW, ids=IdFactory())
    return PROJECTION.fold(State(), generate(ctx))


def staged(setup: SetupFn, seed: int, params: Mapping[str, Any] | None = None,
           base: State | None = None) -> tuple[State, Setup, IdeTask]:
    """Runs a setup on a world; returns the state after it, its output and the staged task."""
    start = base if base is not None else world()
    out = setup(SetupContext(state=start, params=dict(params or {}), rng=random.Random(seed), now=NOW,
                             ids=IdFactory()))
    state = PROJECTION.fold(start, out.events)
    task = state.value(TASK)
    assert task is not None
    return state, out, IdeTask.model_validate(task.task)


def edit(state: State, changes: Mapping[str, str | None]) -> State:
    """The state after the agent writes (text) or deletes (None) some paths."""
    writer = TreeWriter(state)
    for path, text in changes.items():
        if text is None:
            writer.delete(path, operation="delete")
        else:
            writer.write(path, text, operation="edit" if writer.entry(path) else "create")
    return PROJECTION.fold(state, writer.events)


def hidden_report(task: IdeTask, files: Mapping[str, str]) -> HiddenRun:
    """Runs the task's hidden selection on `files` as the grader does (hidden files or hidden cases), in the
    sandbox, and reads it as the checks do."""
    effect = hidden_effect(task, dict(files))
    assert effect is not None
    return read_hidden_run(task, effect.run(effect.inputs, effect.timeout_s))


def check_ctx(initial: State, final: State, effects: Mapping[str, EffectOutcome] | None = None) -> CheckContext:
    """A check context over two states with the given grade-effect outcomes."""
    return CheckContext(initial=initial, final=final, bindings={}, events=[], now=NOW, effects=dict(effects or {}))


def report_outcome(report: RunReport) -> EffectOutcome:
    """A grade-effect outcome carrying a run report."""
    return EffectOutcome(status="ok" if report.status == "ok" else "failed", value=report.model_dump(mode="json"))


def files_of(state: State) -> dict[str, str]:
    """The state's tree."""
    return tree_files(state)
