"""Checks of flaky-test tasks: the fixed module reads no clock and no unseeded randomness.

The hidden tests (run at grade time, judged by the test checks) enumerate seeds,
call orders and instants; this check adds what they cannot see: a module that
still calls the global `random` or reads the wall clock is not fixed, even if it
happens to pass every enumerated case (a fix that seeds `random` inside the
function, or compares against `datetime.now()` within a tolerance). Calls are
resolved through the module's imports, so `from datetime import datetime as dt;
dt.now()` is found and a local function named `now` is not.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.ide.checks_refactor import CodeIndex, module_name
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.state import TASK
from saas_sim.domains.ide.task_model import load_task
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import HarnessError

__all__ = ["CLOCK_CALLS", "RANDOM_CALLS", "flaky_source_deterministic", "nondeterministic_calls"]

CLOCK_CALLS: frozenset[str] = frozenset({
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today",
    "time.time", "time.time_ns", "time.monotonic", "time.monotonic_ns", "time.perf_counter",
    "time.perf_counter_ns", "time.localtime", "time.gmtime", "time.ctime", "time.asctime", "time.strftime",
})
"""Calls that read the wall clock (or a clock that moves between runs)."""

RANDOM_CALLS: frozenset[str] = frozenset({
    *(f"random.{n}" for n in ("random", "randint", "randrange", "choice", "choices", "sample", "shuffle",
                              "uniform", "gauss", "normalvariate", "getrandbits", "randbytes", "triangular",
                              "betavariate", "expovariate", "seed", "SystemRandom")),
    "os.urandom", "uuid.uuid1", "uuid.uuid4", "secrets.choice", "secrets.randbelow", "secrets.token_hex",
    "secrets.token_bytes", "secrets.token_urlsafe", "secrets.randbits",
})
"""Calls that draw from a stream no test controls (the process's global `random` included:
seeding it inside library code changes every other caller's stream)."""

_KINDS: Mapping[str, frozenset[str]] = {"clock": CLOCK_CALLS, "random": RANDOM_CALLS}


def nondeterministic_calls(files: Mapping[str, str], path: str, kinds: Sequence[str]) -> list[str]:
    """The calls of the forbidden kinds in the `.py` file `path`, as `line <n>: <dotted name>`, in source order.

    An unseeded `random.Random()` (no argument) counts as randomness too. A file that is
    missing or does not parse yields one finding saying so.
    """
    index = CodeIndex({path: files[path]} if path in files else {})
    f = index.files.get(path)
    if f is None:
        return [f"{path} is missing or does not parse"]
    forbidden = frozenset().union(*(_KINDS[k] for k in kinds))
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(f.tree):
        if not isinstance(node, ast.Call):
            continue
        name = index.dotted(f, node.func)
        if name is None:
            continue
        if name in forbidden or ("random" in kinds and name == "random.Random" and not node.args
                                 and not node.keywords):
            found.append((node.lineno, node.col_offset, name))
    return [f"line {line}: {name}" for line, _, name in sorted(found)]


@kit.check
def flaky_source_deterministic(ctx: CheckContext) -> CheckOutcome:
    """The task's module no longer calls the clock or unseeded randomness the task forbids."""
    staged = ctx.final.value(TASK)
    task = load_task(staged.task if staged else None)
    if task is None or task.family != "flaky":
        raise HarnessError("flaky_source_deterministic runs on a state without a staged flaky task")
    path = str(task.details["module"])
    forbid = task.details.get("forbid") or []
    if not isinstance(forbid, list) or module_name(path) is None:
        raise HarnessError(f"flaky task details are malformed: {task.details!r}")
    found = nondeterministic_calls(tree_files(ctx.final), path, [str(k) for k in forbid])
    if found:
        return CheckOutcome.failed(f"{path} still calls " + "; ".join(found[:5]))
    return CheckOutcome.passed(f"{path} reads no {' or '.join(map(str, forbid)) or 'forbidden source'}")
