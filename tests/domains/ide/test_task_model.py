"""Reading a staged IDE task back: validated once per staged value, and only from that value."""

from __future__ import annotations

from typing import Any

from saas_sim.domains.ide.setups_bugfix import inject_bugs
from saas_sim.domains.ide.state import TASK
from saas_sim.domains.ide.task_model import load_task, task_of
from tests.domains.ide.tasks import staged


def _staged_value() -> dict[str, Any]:
    state, _, _ = staged(inject_bugs, 0)
    value = state.value(TASK)
    assert value is not None
    return value.task


def test_a_staged_value_is_validated_once_and_read_back_equal() -> None:
    value = _staged_value()
    task = task_of(value)
    assert task_of(value) is task
    assert load_task(value) is task
    assert task.model_dump(mode="json") == value


def test_an_equal_but_distinct_staged_value_is_validated_on_its_own() -> None:
    value = _staged_value()
    copy = {**value, "fail_to_pass": list(value["fail_to_pass"])}
    assert task_of(copy) is not task_of(value)
    assert task_of(copy) == task_of(value)


def test_no_staged_value_is_no_task() -> None:
    assert load_task(None) is None
