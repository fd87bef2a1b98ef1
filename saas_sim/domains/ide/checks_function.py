"""The function-task check: the agent's function against the oracle's results on hidden inputs.

The grade effect `ide.hidden_tests` calls `module.function(*args)` for each hidden input in the
sandbox (`sandbox.call_function`); the child prints type-tagged JSON and nothing the agent's code
defines takes part in the comparison, which happens here with strict types (`sandbox.strict_equal`):
an always-equal object, a forged log line, `os._exit(0)` or a patched runner yields no matching value.
"""

from __future__ import annotations

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.ide.checks_tests import hidden_run, staged_task
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.sandbox import plain_value, strict_equal
from saas_sim.errors import HarnessError

__all__ = ["function_matches"]


@kit.check
def function_matches(ctx: CheckContext) -> CheckOutcome:
    """The fraction of hidden inputs on which the function returns exactly the oracle's value (same types)."""
    task = staged_task(ctx)
    spec = task.function
    if spec is None or not spec.inputs:
        raise HarnessError("function_matches needs a function task with hidden inputs")
    run = hidden_run(ctx)
    total = len(spec.inputs)
    if run.void:
        return CheckOutcome(0.0, f"0 of {total} hidden calls match; {run.void}")
    results = run.results
    good = 0
    first_bad = ""
    for k, want in enumerate(spec.expected):
        got = results[k] if k < len(results) else None
        if got is not None and "value" in got and strict_equal(got["value"], plain_value(want)):  # type: ignore[arg-type]
            good += 1
        elif not first_bad:
            first_bad = "no result" if got is None else ("raised " + str(got.get("error"))[:80] if "error" in got
                                                         else "a different value")
    detail = f"{good} of {total} hidden calls of {spec.module}.{spec.function} match"
    if first_bad:
        detail += f"; the first mismatch: {first_bad}"
    return CheckOutcome(good / total, detail + run.weaker)
