"""The function-task check: the agent's function against the oracle's results on hidden inputs.

The grade effect `ide.hidden_tests` calls `module.function(*args)` for each hidden input in the
sandbox (`sandbox.call_function`); the child prints type-tagged JSON and nothing the agent's code
defines takes part in the comparison, which happens here with strict types (`sandbox.strict_equal`):
an always-equal object, a forged log line, `os._exit(0)` or a patched runner yields no matching value.

Credit is corrected for chance. Hidden inputs lean toward common results (a fee of 0 inside the grace period),
so `return 0` matched a third or more of them with no work done. A function earns credit only for the calls
it gets right beyond the best constant function, the one returning the most common expected value:
(matches - constant's matches) / (calls - constant's matches), at least 0.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.ide.checks_tests import hidden_run, staged_task
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.sandbox import plain_value, strict_equal
from saas_sim.errors import HarnessError

__all__ = ["constant_matches", "function_matches"]


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
    floor = constant_matches(spec.expected)
    if good == total:
        return CheckOutcome(1.0, detail + run.weaker)
    score = max(0.0, (good - floor) / (total - floor)) if total > floor else 0.0
    return CheckOutcome(score, f"{detail} (a constant matches {floor}: credit is for calls beyond it)" + run.weaker)


def _result_key(value: Any) -> str:
    """One expected value as a comparable text; its type is part of it, as in `strict_equal` (1, 1.0, True)."""
    plain = plain_value(value)
    return f"{type(value).__name__}:{json.dumps(plain, sort_keys=True, default=repr)}"


def constant_matches(expected: Any) -> int:
    """How many hidden calls the best constant function matches: the count of the most common expected value."""
    counts = Counter(_result_key(v) for v in expected)
    return max(counts.values(), default=0)
