"""Refactor tasks: rename or move a helper used across N call sites of a seeded `acme.subscriptions` package.

The builders are pure functions of an rng: they return the files to stage, the
hidden task and the bindings (`Staged`). The code is messy on purpose: callers
reach the helper through a plain import, an alias, a module attribute, a
relative import and a local call; a docstring and a comment still name it; and
an unrelated function of the *same name* lives in `acme/reports`, so a blind
search-and-replace breaks something the task did not ask to touch.

Hidden tests (`_grader/test_refactor_hidden.py`) check the new name's values
(fail-to-pass) and every caller's values (pass-to-pass), with strict types;
checks_refactor.py judges the AST.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.ide import events as ev
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.setup_helpers import attic_copies, decoy_count
from saas_sim.domains.ide.task_model import HIDDEN_DIR, PROTECTED_GLOBS, IdeTask, TaskScope
from saas_sim.domains.ide.workspace import TreeWriter
from saas_sim.errors import HarnessError

__all__ = ["HELPERS", "Helper", "Staged", "build_move", "build_rename", "refactor_move", "refactor_rename", "stage"]

PACKAGE = "acme/subscriptions"
DISTRACTOR = "acme/reports/usage_digest.py"
HIDDEN_TEST = f"{HIDDEN_DIR}/test_refactor_hidden.py"


@dataclass
class Staged:
    """What a builder stages: files to write (path -> text), the hidden task and the scenario's bindings."""

    files: dict[str, str]
    task: IdeTask
    bindings: dict[str, Any]
    deleted: list[str] = field(default_factory=list)
    oracle: dict[str, str] = field(default_factory=dict)
    """The oracle's text of every file it writes (for tests and the scenario's bindings)."""


@dataclass(frozen=True)
class Helper:
    """A helper function the task renames or moves: its text (with `$name`), reference and input drawer."""

    params: tuple[str, ...]
    body: str
    doc: str
    old_names: tuple[str, ...]
    new_names: tuple[str, ...]
    ref: Callable[..., int]
    draw: Callable[[random.Random], list[int]]

    def source(self, name: str) -> str:
        """The helper's `def`, named `name`."""
        sig = ", ".join(self.params)
        return f'def {name}({sig}):\n    """{self.doc}"""\n{self.body}'


def _prorate(amount_cents: int, used_days: int, period_days: int) -> int:
    left = max(period_days - used_days, 0)
    q, r = divmod(amount_cents * left, period_days)
    return q + 1 if 2 * r >= period_days else q


def _overage(units: int, quota: int, step: int, step_cents: int) -> int:
    if units <= quota:
        return 0
    return -(-(units - quota) // step) * step_cents


def _seats(seats: int, included: int, unit_cents: int) -> int:
    return max(seats - included, 0) * unit_cents


HELPERS: tuple[Helper, ...] = (
    Helper(
        params=("amount_cents", "used_days", "period_days"),
        body=("    left = max(period_days - used_days, 0)\n"
              "    q, r = divmod(amount_cents * left, period_days)\n"
              "    if 2 * r >= period_days:  # half up\n"
              "        q += 1\n"
              "    return q\n"),
        doc="Unused share of a period's charge, in cents, rounded half up.",
        old_names=("calc_amt", "do_prorate", "prorate2", "compute_credit_x"),
        new_names=("prorated_credit", "unused_period_credit", "credit_for_unused_days"),
        ref=_prorate,
        draw=lambda rng: [rng.randint(0, 90000), rng.randint(0, 40), rng.choice([28, 30, 31, 365])],
    ),
    Helper(
        params=("units", "quota", "step", "step_cents"),
        body=("    if units <= quota:\n"
              "        return 0\n"
              "    blocks = -(-(units - quota) // step)  # ceil\n"
              "    return blocks * step_cents\n"),
        doc="Overage charge in cents: each started block of `step` units past the quota costs `step_cents`.",
        old_names=("ovg", "calc_over", "overage_tmp", "do_overage"),
        new_names=("overage_charge", "usage_overage_cents", "charge_for_overage"),
        ref=_overage,
        draw=lambda rng: [rng.randint(0, 5000), rng.choice([0, 100, 1000]), rng.choice([1, 50, 100]),
                          rng.randint(1, 900)],
    ),
    Helper(
        params=("seats", "included", "unit_cents"),
        body=("    extra = seats - included\n"
              "    if extra < 0:\n"
              "        extra = 0\n"
              "    return extra * unit_cents\n"),
        doc="Charge in cents for the seats beyond the plan's included ones.",
        old_names=("seat_calc", "xtra", "calc_seats_old", "do_seats"),
        new_names=("extra_seat_charge", "charge_extra_seats", "seats_over_plan_cents"),
        ref=_seats,
        draw=lambda rng: [rng.randint(0, 80), rng.choice([1, 5, 10, 25]), rng.randint(100, 4000)],
    ),
)
"""The helpers a refactor task can target; the seed picks one and its names."""

_CALLERS = ("renewals", "upgrades", "downgrades", "invoicing_hooks", "credits", "plan_changes")


def _caller(style: str, helper_mod: str, name: str, fn: str, params: tuple[str, ...], k: int) -> tuple[str, str]:
    """One caller's import line and function; each style reaches the helper another way."""
    sig = ", ".join(params)
    if style == "from":
        imp, ref = f"from acme.subscriptions.{helper_mod} import {name}\n", name
    elif style == "alias":
        imp, ref = f"from acme.subscriptions.{helper_mod} import {name} as _h\n", "_h"
    elif style == "module":
        imp, ref = f"from acme.subscriptions import {helper_mod}\n", f"{helper_mod}.{name}"
    else:
        imp, ref = f"from .{helper_mod} import {name}\n", name
    body = (f"def {fn}({sig}):\n"
            f'    """Charge for one account, plus {k} cent(s) of rounding reserve per call (see SUB-{40 + k})."""\n'
            f"    # TODO: stop calling {name} twice once the ledger is fixed\n"
            f"    first = {ref}({sig})\n"
            f"    again = {ref}({sig})\n"
            f"    return max(first, again) + {k}\n")
    return imp, body


def _cases(rng: random.Random, helper: Helper, n: int) -> list[list[int]]:
    return [helper.draw(rng) for _ in range(n)]


def _hidden_test(mod: str, new: str, helper: Helper, cases: list[list[int]],
                 callers: list[tuple[str, str, int]]) -> tuple[str, list[str], list[str]]:
    """The hidden test file and its fail-to-pass and pass-to-pass ids."""
    lines = ['"""Hidden refactor tests (grader only)."""\n', f"CASES = {cases!r}\n"]
    f2p = [f"test_{new}_keeps_values"]
    lines.append(
        f"\n\ndef test_{new}_keeps_values():\n"
        f"    from acme.subscriptions.{mod} import {new}\n"
        f"    expected = {[helper.ref(*c) for c in cases]!r}\n"
        f"    got = [{new}(*c) for c in CASES]\n"
        f"    assert [type(g) for g in got] == [int] * len(got)\n"
        f"    assert got == expected\n")
    p2p = []
    for cmod, fn, k in callers:
        p2p.append(f"test_caller_{cmod}_{fn}")
        lines.append(
            f"\n\ndef test_caller_{cmod}_{fn}():\n"
            f"    from acme.subscriptions.{cmod} import {fn}\n"
            f"    expected = {[helper.ref(*c) + k for c in cases]!r}\n"
            f"    got = [{fn}(*c) for c in CASES]\n"
            f"    assert [type(g) for g in got] == [int] * len(got)\n"
            f"    assert got == expected\n")
    return "".join(lines), _ids(f2p), _ids(p2p)


def _ids(names: list[str]) -> list[str]:
    return sorted(f"{HIDDEN_TEST}::{n}" for n in names)


def _distractor(old: str) -> str:
    # Same name, other meaning: a blind search-and-replace renames it too.
    return (f'"""Weekly usage digest for the reports page."""\n\n\n'
            f"def {old}(rows):\n"
            f'    """Counts the rows with a positive amount."""\n'
            f"    return sum(1 for r in rows if r > 0)\n\n\n"
            f"def digest(rows):\n"
            f"    return {{'positive': {old}(rows), 'total': len(rows)}}\n")


def _visible_test(callers: list[tuple[str, str, int]], helper: Helper, cases: list[list[int]]) -> str:
    out = ['"""Tests of the subscription charges."""\n']
    for cmod, fn, _ in callers:
        out.append(f"from acme.subscriptions.{cmod} import {fn}\n")
    for _, fn, k in callers:
        c = cases[0]
        out.append(f"\n\ndef test_{fn}_charges_once():\n    assert {fn}(*{c!r}) == {helper.ref(*c) + k}\n")
    return "".join(out)


def _package(helper: Helper, name: str, src_mod: str, dst_mod: str, callers: list[tuple[str, str, int]],
             styles: list[str], moved: bool) -> dict[str, str]:
    """The package's files with the helper called `name`, living in `dst_mod` when `moved` else `src_mod`."""
    home = dst_mod if moved else src_mod
    files: dict[str, str] = {}
    for i, (cmod, fn, k) in enumerate(callers):
        imp, body = _caller(styles[i % len(styles)], home, name, fn, helper.params, k)
        files[f"{PACKAGE}/{cmod}.py"] = f'"""{cmod.replace("_", " ").capitalize()}."""\n\n{imp}\n\n{body}'
    head = '"""Charge arithmetic for subscriptions (all amounts in cents)."""\n\n\n'
    helper_text = f"# {name} is used all over the place -- careful\n{helper.source(name)}"
    sig = ", ".join(helper.params)
    if src_mod != dst_mod:
        # The grab-bag keeps an unrelated helper: a move takes one function, not the module.
        cents = "\n\ndef format_cents(cents):\n    return f'${cents // 100}.{cents % 100:02d}'\n"
        files[f"{PACKAGE}/{src_mod}.py"] = head + (cents.lstrip("\n") if moved else helper_text + cents)
        if moved:
            files[f"{PACKAGE}/{dst_mod}.py"] = '"""Proration and metering arithmetic (cents)."""\n\n\n' + helper_text
    else:
        # The helper's own module calls it too: a local call site.
        files[f"{PACKAGE}/{src_mod}.py"] = (head + helper_text
                                            + f"\n\ndef preview_charge({sig}):\n    return str({name}({sig}))\n")
    return files


def _diff_lines(before: str, after: str) -> int:
    return sum(1 for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---")))


def _build(rng: random.Random, move: bool, n: int) -> Staged:
    helper = HELPERS[rng.randrange(len(HELPERS))]
    old = rng.choice(helper.old_names)
    new = old if move else rng.choice(helper.new_names)
    src_mod = "utils" if move else rng.choice(["billing_math", "charges", "calc"])
    dst_mod = rng.choice(["proration", "metering", "seat_math"]) if move else src_mod
    styles = ["from", "alias", "module", "relative"]
    rng.shuffle(styles)
    callers = [(c, f"{c.rstrip('s')}_charge", rng.randint(0, 3)) for c in sorted(rng.sample(_CALLERS, n))]
    files = {f"{PACKAGE}/__init__.py": '"""Subscriptions: plan changes and their charges."""\n',
             **_package(helper, old, src_mod, dst_mod, callers, styles, moved=False),
             DISTRACTOR: _distractor(old), "acme/reports/__init__.py": '"""Reports."""\n'}
    oracle = _package(helper, new, src_mod, dst_mod, callers, styles, moved=move)
    cases = _cases(rng, helper, 12)
    visible = "tests/test_subscription_charges.py"
    files[visible] = _visible_test(callers, helper, cases)
    hidden, f2p, p2p = _hidden_test(dst_mod, new, helper, cases, callers)
    src_path, dst_path = f"{PACKAGE}/{src_mod}.py", f"{PACKAGE}/{dst_mod}.py"
    sites: list[dict[str, str | int]] = [
        {"path": f"{PACKAGE}/{c}.py", "function": fn, "calls": 2} for c, fn, _ in callers]
    if not move:
        sites.append({"path": src_path, "function": "preview_charge", "calls": 1})
    allowed = sorted(oracle)
    task = IdeTask(
        family="refactor",
        hidden_files={HIDDEN_TEST: hidden},
        fail_to_pass=f2p,
        pass_to_pass=p2p,
        protected=list(PROTECTED_GLOBS),
        scope=TaskScope(allowed=allowed,
                        oracle_diff_lines=sum(_diff_lines(files.get(p, ""), t) for p, t in oracle.items())),
        details={
            "kind": "move" if move else "rename",
            "old": {"module": src_path, "name": old},
            "new": {"module": dst_path, "name": new},
            "call_sites": sorted(sites, key=lambda s: (str(s["path"]), str(s["function"]))),
            "unrelated": [{"module": DISTRACTOR, "name": old}],
        },
    )
    edited = sorted(p for p in oracle if p in files)
    bindings: dict[str, Any] = {
        "old_name": old, "new_name": new, "old_module": src_path.removesuffix(".py").replace("/", "."),
        "new_module": dst_path.removesuffix(".py").replace("/", "."), "old_path": src_path, "new_path": dst_path,
        "call_site_count": len(sites), "allowed_paths": allowed, "test_path": visible,
        "distractor_path": DISTRACTOR, "first_caller": f"{PACKAGE}/{callers[0][0]}.py",
        "first_caller_fn": callers[0][1],
        # Line counts, so scripted agents can append (insert_text after the last line).
        "old_path_lines": len(files[src_path].splitlines()),
        "first_caller_lines": len(files[f"{PACKAGE}/{callers[0][0]}.py"].splitlines()),
    }
    for k, path in enumerate(edited):
        bindings.update({f"edit_{k}_path": path, f"edit_{k}_old": files[path], f"edit_{k}_new": oracle[path]})
    if move:
        bindings["new_text"] = oracle[dst_path]
    return Staged(files=files, task=task, bindings=bindings, oracle=oracle)


def build_rename(rng: random.Random, callers: int = 4) -> Staged:
    """A rename of a helper with a stale name, called from `callers` modules and its own (seeded).

    Bindings `edit_<k>_path/old/new` give the oracle's new text of each file it edits, in path order.
    """
    return _build(rng, move=False, n=_callers(callers))


def build_move(rng: random.Random, callers: int = 4) -> Staged:
    """A move of a helper out of the grab-bag `utils` module into a new module, called from `callers` modules."""
    return _build(rng, move=True, n=_callers(callers))


def _callers(n: int) -> int:
    if not 1 <= n <= len(_CALLERS):
        raise HarnessError(f"a refactor task takes 1 to {len(_CALLERS)} callers, not {n}")
    return n


def stage(ctx: SetupContext, staged: Staged) -> Setup:
    """Writes the staged files over the world's tree, marks the base, and stages the hidden task.

    The base is marked after the writes, so the agent's diff, the protected paths and the
    scope guard all start from the staged tree. A `decoys` param (default 0) adds that many stale
    copies of the staged modules (`attic_copies`) as distractors.
    """
    files = {**staged.files, **attic_copies(staged.files, decoy_count(ctx))}
    writer = TreeWriter(ctx.state)
    for path in sorted(files):
        writer.write(path, files[path], operation="setup")
    for path in sorted(staged.deleted):
        writer.delete(path, operation="setup")
    events: list[Event] = [*writer.events, ev.BaseMarked(), ev.TaskStaged(task=staged.task.model_dump(mode="json"))]
    return Setup(bindings=staged.bindings, events=events)


@kit.setup
def refactor_rename(ctx: SetupContext) -> Setup:
    """Stages a rename of a stale-named subscriptions helper across its call sites."""
    return stage(ctx, build_rename(ctx.rng, int(ctx.params.get("callers", 4))))


@kit.setup
def refactor_move(ctx: SetupContext) -> Setup:
    """Stages a move of a subscriptions helper out of `utils` into a new module."""
    return stage(ctx, build_move(ctx.rng, int(ctx.params.get("callers", 4))))
