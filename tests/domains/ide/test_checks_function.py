"""The function check compares the sandbox's tagged results with strict types."""

from __future__ import annotations

from typing import Any

from saas_sim.core.effects import EffectOutcome
from saas_sim.domains.ide.checks_function import constant_matches, function_matches
from saas_sim.domains.ide.checks_tests import HIDDEN_RUN
from saas_sim.domains.ide.sandbox import call_function, plain_value
from saas_sim.domains.ide.setups_implement import STUB_LINE, stub_function
from tests.domains.ide.tasks import check_ctx, edit, files_of, report_outcome, staged

STATE, SETUP, TASK = staged(stub_function, 1, {"units": ["late_fee"]})
assert TASK.function is not None
SPEC = TASK.function


def _results(values: list[Any]) -> dict[str, EffectOutcome]:
    return {HIDDEN_RUN: EffectOutcome(status="ok", value={"status": "ok", "results": values, "tamper": []})}


def test_all_matching_values_score_one() -> None:
    out = function_matches(check_ctx(STATE, STATE, _results([{"value": plain_value(v)} for v in SPEC.expected])))
    assert out.score == 1.0


def test_a_float_or_bool_for_an_int_does_not_match() -> None:
    wrong = [{"value": {"__float__": repr(float(v))}} if k % 2 and isinstance(v, int) else {"value": plain_value(v)}
             for k, v in enumerate(SPEC.expected)]
    out = function_matches(check_ctx(STATE, STATE, _results(wrong)))
    good, total, floor = (len(SPEC.expected) + 1) // 2, len(SPEC.expected), constant_matches(SPEC.expected)
    assert out.score == max(0.0, (good - floor) / (total - floor))
    assert "different value" in out.detail


def test_errors_and_missing_results_do_not_match() -> None:
    out = function_matches(check_ctx(STATE, STATE, _results([{"error": "NotImplementedError"}])))
    assert out.score == 0.0 and "raised" in out.detail


def test_sandboxed_oracle_matches_and_an_always_equal_object_does_not() -> None:
    path = SETUP.bindings["module_path"]
    stub = files_of(STATE)[path]
    oracle = edit(STATE, {path: stub.replace(STUB_LINE, SETUP.bindings["oracle_body"])})
    always = edit(STATE, {path: stub.replace(STUB_LINE, "    class _Any(int):\n"
                                                         "        def __eq__(self, other):\n            return True\n"
                                                         "    return _Any(0)\n")})
    for final, want in ((oracle, 1.0), (always, 0.0)):
        report = call_function(files_of(final), module=SPEC.module, function=SPEC.function, inputs=SPEC.inputs,
                               timeout_s=60)
        out = function_matches(check_ctx(STATE, final, {HIDDEN_RUN: report_outcome(report)}))
        assert out.score == want, out.detail


def test_the_most_common_value_for_every_call_earns_nothing() -> None:
    # `return 0` matched every call whose documented result is 0: credit is for calls beyond a constant's.
    for units in (["late_fee"], ["refund_amount"], ["breach_status"]):
        state, _, task = staged(stub_function, 1, {"units": units})
        assert task.function is not None
        spec = task.function
        keys = [repr(plain_value(v)) for v in spec.expected]
        common = spec.expected[max(range(len(keys)), key=keys.count)]
        out = function_matches(check_ctx(state, state, _results([{"value": plain_value(common)}] * len(keys))))
        assert constant_matches(spec.expected) > 1 and out.score == 0.0, (units, out.detail)


def test_credit_grows_with_the_calls_beyond_a_constant() -> None:
    floor, total = constant_matches(SPEC.expected), len(SPEC.expected)
    outs = []
    for k in range(total + 1):
        values = [{"value": plain_value(v)} if j < k else {"error": "NotImplementedError"}
                  for j, v in enumerate(SPEC.expected)]
        outs.append(function_matches(check_ctx(STATE, STATE, _results(values))).score)
    assert outs == sorted(outs) and outs[0] == 0.0 and outs[-1] == 1.0
    assert floor < total
