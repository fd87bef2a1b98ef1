"""The refused calls the grade sees: what a tool refused, read only from the recorded steps."""

from __future__ import annotations

from typing import Any

from saas_sim.runtime.refusals import refused_calls
from saas_sim.runtime.step_outcome import StepOutcome
from saas_sim.runtime.trajectory import StepRecord

_DENIED = {"code": "permission_denied", "message": "policy", "retryable": False,
           "details": {"contact_ids": ["ct_000001"]}}


def _step(index: int, args: Any, *, error: dict[str, Any] | None = _DENIED, fault: str | None = None) -> StepRecord:
    return StepRecord(index=index, call_id=f"c{index}", tool="crm.enroll_in_sequence", args=args,
                      ok=error is None, result=None if error else {"ok": True}, error=error, events=[],
                      state_hash="h", sim_time="2026-01-01T00:00:00+00:00", fault=fault)


def test_refused_calls_keep_tool_args_code_and_details() -> None:
    (call,) = refused_calls([_step(3, {"sequence_id": "seq_1", "contact_ids": ["ct_000001"]})])
    assert (call.step, call.tool, call.code) == (3, "crm.enroll_in_sequence", "permission_denied")
    assert call.args == {"sequence_id": "seq_1", "contact_ids": ["ct_000001"]}
    assert call.details == {"contact_ids": ["ct_000001"]}


def test_successful_calls_and_injected_faults_are_not_refusals() -> None:
    fault = {"code": "unavailable", "message": "503", "retryable": True, "details": {}}
    steps = [_step(0, {}, error=None), _step(1, {}, error=fault, fault="unavailable")]
    assert refused_calls(steps) == ()


def test_arguments_sent_as_json_text_are_read_as_an_object() -> None:
    (call,) = refused_calls([_step(0, '{"contact_ids": ["ct_000001"]}')])
    assert call.args == {"contact_ids": ["ct_000001"]}


def test_arguments_that_are_no_object_or_nest_too_deep_read_as_empty() -> None:
    steps = [_step(0, "[" * 5000), _step(1, "not json"), _step(2, ["a"]), _step(3, '{"limit": NaN}'),
             _step(4, '{"n": -Infinity}'), _step(5, '{"rate": 1e999}')]
    assert [c.args for c in refused_calls(steps)] == [{}, {}, {}, {}, {}, {}]


def test_a_step_read_back_from_the_log_gives_the_same_refusal() -> None:
    live = StepOutcome(index=0, call_id="c0", tool="crm.send_email", args={"contact_id": "ct_1", "n": 1.5},
                       fingerprint="", ok=False, result=None, error=_DENIED, fault=None, replayed=False,
                       sim_time="2026-01-01T00:00:00+00:00")
    restored = StepOutcome.from_event(live.to_event(), ())
    assert refused_calls([live.trajectory_step([], "h")]) == refused_calls([restored.trajectory_step([], "h")])
