"""Implement setups: the stub fails every hidden call, the oracle and the alternative bodies pass them all."""

from __future__ import annotations

import pytest

from saas_sim.domains.ide.gen_reference import call_all, same
from saas_sim.domains.ide.sandbox import call_function, plain_value, strict_equal
from saas_sim.domains.ide.setups_implement import ALTERNATIVE_BODIES, STUB_LINE, stub_function
from saas_sim.domains.ide.task_model import FunctionSpec
from tests.domains.ide.tasks import files_of, staged, world


def _matches(files: dict[str, str], spec: FunctionSpec) -> int:
    report = call_function(files, module=spec.module, function=spec.function, inputs=spec.inputs, timeout_s=60)
    return sum(1 for r, want in zip(report.results, spec.expected, strict=False)
               if "value" in r and strict_equal(r["value"], plain_value(want)))


@pytest.mark.parametrize("seed", range(6))
def test_stub_fails_and_oracle_and_alternative_pass_every_hidden_call_in_the_sandbox(seed: int) -> None:
    state, setup, task = staged(stub_function, seed, {"units": [sorted(ALTERNATIVE_BODIES)[seed]]})
    spec = task.function
    assert spec is not None and len(spec.inputs) == len(spec.expected) >= 30
    files = files_of(state)
    path = setup.bindings["module_path"]
    assert _matches(files, spec) == 0
    for body in (setup.bindings["oracle_body"], setup.bindings["alternative_body"]):
        assert _matches({**files, path: files[path].replace(STUB_LINE, body)}, spec) == len(spec.inputs)


@pytest.mark.parametrize("seed", range(20))
def test_every_seed_stages_hidden_calls_the_oracle_and_alternative_match(seed: int) -> None:
    state, setup, task = staged(stub_function, seed, {"visible_examples": seed % 4}, base=world(seed % 3))
    spec = task.function
    assert spec is not None
    stub = files_of(state)[setup.bindings["module_path"]]
    assert stub.count(STUB_LINE) == 1
    for body in (setup.bindings["oracle_body"], setup.bindings["alternative_body"]):
        got = call_all(stub.replace(STUB_LINE, body), spec.function, spec.inputs)
        assert all(same(g, e) for g, e in zip(got, spec.expected, strict=True))
    assert stub.replace(STUB_LINE, setup.bindings["oracle_body"]) == setup.bindings["clean_text"]


def test_visible_examples_are_outside_the_hidden_inputs_and_counted() -> None:
    for n in (0, 2, 5):
        state, setup, task = staged(stub_function, 3, {"visible_examples": n})
        assert task.function is not None
        text = files_of(state)[setup.bindings["test_path"]]
        assert text.count("\ndef test_") == n
        hidden = {repr(tuple(a)) for a in task.function.inputs}
        assert not hidden & set(eval(setup.bindings["visible_lookup"]))  # a dict literal the setup rendered


def test_edge_share_moves_hidden_inputs_onto_boundaries() -> None:
    _, _, none = staged(stub_function, 2, {"units": ["late_fee"], "edge_share": 0.0})
    _, _, all_edges = staged(stub_function, 2, {"units": ["late_fee"], "edge_share": 1.0})
    assert none.function is not None and all_edges.function is not None
    assert none.function.inputs != all_edges.function.inputs


def test_same_seed_same_hidden_calls() -> None:
    assert staged(stub_function, 8, {})[2] == staged(stub_function, 8, {})[2]
