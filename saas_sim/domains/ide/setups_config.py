"""Config and dependency tasks, offline: a stale import path, an unregistered pytest marker, a bad pin.

* **stale import**: `acme/payouts/<old>.py` moved to `acme/payouts/rules/<new>.py`; some callers still
  import the old path (through a plain, a module and a relative import) and the package no longer
  imports. Hidden tests check the callers' values; checks_config.py checks that every `acme` import of
  the callers resolves to a module of the tree that binds the imported names.
* **markers**: CI runs with `--strict-markers` and the tests use a marker the pytest configuration
  does not register. The sandbox's runner never reads the tree's configuration (`-c /dev/null`), so
  the fix is judged statically: the configuration parses, every marker the tests use is registered,
  `--strict-markers` stays, and nothing else of `pyproject.toml` changed.
* **pin**: `requirements.txt` pins an internal package to a version the offline mirror's index
  (`wheelhouse/INDEX.txt`) does not have, or that conflicts with another pin's requirement. The
  fix is the newest indexed version every other pin accepts; judged with `packaging`.
"""

from __future__ import annotations

import random
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.setups_refactor import Staged, stage
from saas_sim.domains.ide.task_model import HIDDEN_DIR, PROTECTED_GLOBS, IdeTask, TaskScope
from saas_sim.errors import HarnessError

__all__ = [
    "BUILTIN_MARKERS",
    "build_markers",
    "build_pin",
    "build_stale_import",
    "config_markers",
    "config_pin",
    "config_stale_import",
]

BUILTIN_MARKERS = frozenset({"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings"})
"""Markers pytest registers itself."""


# --- stale import path --------------------------------------------------------------------

_RULES = '''"""Payout fee schedule (moved here from acme/payouts/$old.py in PAY-88)."""

FEE_BP = {"ach": $ach_bp, "wire": $wire_bp, "card": $card_bp}
MIN_FEE_CENTS = $min_fee
HOLD_DAYS = {"ach": $ach_hold, "wire": 1, "card": $card_hold}


def payout_fee(amount_cents, method):
    """Fee in cents for paying out `amount_cents` by `method`, rounded half up, at least MIN_FEE_CENTS."""
    q, r = divmod(amount_cents * FEE_BP[method], 10000)
    if 2 * r >= 10000:
        q += 1
    return max(q, MIN_FEE_CENTS)


def hold_days(method):
    """Days a payout by `method` is held before it is released."""
    return HOLD_DAYS[method]
'''

_STALE_CALLERS: dict[str, tuple[str, str]] = {
    # module -> (how it imports the old path, its function)
    "statement": ("from acme.payouts.{old} import payout_fee\n",
                  "def net_payout(amount_cents, method):\n"
                  '    """What the merchant receives, in cents."""\n'
                  "    return amount_cents - payout_fee(amount_cents, method)\n"),
    "batch": ("from acme.payouts import {old}\n",
              "def release_day(day_number, method):\n"
              '    """The day number a payout created on `day_number` is released."""\n'
              "    return day_number + {old}.hold_days(method)\n"),
    "preview": ("from .{old} import hold_days, payout_fee\n",
                "def preview_line(amount_cents, method):\n"
                '    """One line of the payout preview."""\n'
                "    return f'{{method}}: fee {{payout_fee(amount_cents, method)}}c, held {{hold_days(method)}}d'\n"),
    "reconcile": ("from acme.payouts.{old} import payout_fee as _fee\n",
                  "def fees_total(amounts, method):\n"
                  '    """Total fees of several payouts, in cents."""\n'
                  "    return sum(_fee(a, method) for a in amounts)\n"),
}


def _stale_caller(name: str, old: str, new: str, *, stale: bool) -> str:
    """A payouts module importing the fee schedule from its old path (`stale`) or from where it lives now."""
    imp, body = _STALE_CALLERS[name]
    if stale:
        imp_line, ref = imp.format(old=old), old
    elif imp.startswith("from acme.payouts import"):
        imp_line, ref = f"from acme.payouts.rules import {new}\n", new
    else:
        imp_line, ref = imp.format(old=f"rules.{new}"), f"rules.{new}"
    return f'"""Payouts: {name}."""\n\n{imp_line}\n\n' + body.replace("{old}.", f"{ref}.").format()


def build_stale_import(rng: random.Random, broken: int = 3) -> Staged:
    """`broken` of the four payouts modules still import the fee schedule from where it was before the move.

    Bindings `edit_<k>_path/old/new` give the oracle's text of each broken module, in path order.
    """
    if not 1 <= broken <= len(_STALE_CALLERS):
        raise HarnessError(f"a stale-import task breaks 1 to {len(_STALE_CALLERS)} modules, not {broken}")
    old = rng.choice(["fees", "fee_table", "pricing_rules"])
    new = rng.choice(["fee_schedule", "schedule", "payout_fees"])
    nums = {"ach_bp": rng.choice([25, 40, 80]), "wire_bp": rng.choice([90, 120, 150]),
              "card_bp": rng.choice([180, 250, 290]), "min_fee": rng.choice([25, 50, 100]),
              "ach_hold": rng.choice([2, 3, 4]), "card_hold": rng.choice([5, 7])}
    rules_text = _RULES.replace("$old", old)
    for k, v in nums.items():
        rules_text = rules_text.replace(f"${k}", str(v))
    fee_bp = {"ach": nums["ach_bp"], "wire": nums["wire_bp"], "card": nums["card_bp"]}
    hold = {"ach": nums["ach_hold"], "wire": 1, "card": nums["card_hold"]}

    def fee(a: int, m: str) -> int:
        q, r = divmod(a * fee_bp[m], 10000)
        return max(q + 1 if 2 * r >= 10000 else q, nums["min_fee"])

    names = sorted(_STALE_CALLERS)
    stale = sorted(rng.sample(names, broken))
    files: dict[str, str] = {
        "acme/payouts/__init__.py": '"""Merchant payouts."""\n',
        "acme/payouts/rules/__init__.py": '"""Payout rules."""\n',
        f"acme/payouts/rules/{new}.py": rules_text,
    }
    oracle: dict[str, str] = {}
    for name in names:
        files[f"acme/payouts/{name}.py"] = _stale_caller(name, old, new, stale=name in stale)
        if name in stale:
            oracle[f"acme/payouts/{name}.py"] = _stale_caller(name, old, new, stale=False)
    methods = ["ach", "wire", "card"]
    cases = [(rng.randint(0, 2_000_000), rng.choice(methods)) for _ in range(8)]
    expect: dict[str, Any] = {
        "statement": ("net_payout", [[a, m] for a, m in cases], [a - fee(a, m) for a, m in cases]),
        "batch": ("release_day", [[d, m] for d, (_, m) in enumerate(cases)],
                  [d + hold[m] for d, (_, m) in enumerate(cases)]),
        "preview": ("preview_line", [[a, m] for a, m in cases],
                    [f"{m}: fee {fee(a, m)}c, held {hold[m]}d" for a, m in cases]),
        "reconcile": ("fees_total", [[[a for a, _ in cases], m] for m in methods],
                      [sum(fee(a, m) for a, _ in cases) for m in methods]),
    }
    hidden_path = f"{HIDDEN_DIR}/test_config_payouts.py"
    lines = ['"""Hidden config-task checks: the payouts package imports and keeps its values."""\n']
    f2p: list[str] = []
    p2p: list[str] = []
    for name in names:
        fn, args, want = expect[name]
        test = f"test_{name}_{fn}"
        lines.append(f"\n\ndef {test}():\n    from acme.payouts.{name} import {fn}\n"
                     f"    got = [{fn}(*a) for a in {args!r}]\n"
                     f"    assert [type(g) for g in got] == [type(w) for w in {want!r}]\n"
                     f"    assert got == {want!r}\n")
        (f2p if name in stale else p2p).append(f"{hidden_path}::{test}")
    visible_names = [n for n in names if n in ("statement", "batch")] or names[:1]
    vis = ['"""Tests of payouts."""\n\n']
    vis += [f"from acme.payouts.{n} import {expect[n][0]}\n" for n in visible_names]
    for n in visible_names:
        fn, args, want = expect[n]
        vis.append(f"\n\ndef test_{fn}():\n    assert {fn}(*{args[0]!r}) == {want[0]!r}\n")
    files["tests/test_payouts.py"] = "".join(vis)
    allowed = sorted(f"acme/payouts/{n}.py" for n in stale)
    task = IdeTask(family="config", hidden_files={hidden_path: "".join(lines)}, fail_to_pass=sorted(f2p),
                   pass_to_pass=sorted(p2p), protected=list(PROTECTED_GLOBS),
                   scope=TaskScope(allowed=allowed, oracle_diff_lines=2 * len(stale) + 2),
                   details={"kind": "stale_import", "paths": allowed, "old_module": f"acme.payouts.{old}",
                            "new_module": f"acme.payouts.rules.{new}"})
    bindings: dict[str, Any] = {"old_module": f"acme.payouts.{old}", "new_path": f"acme/payouts/rules/{new}.py",
                                "new_module": f"acme.payouts.rules.{new}", "broken": allowed,
                                "old_path": f"acme/payouts/{old}.py", "test_path": "tests/test_payouts.py",
                                "package": "acme/payouts", "first_broken": allowed[0]}
    for i, path in enumerate(allowed):
        bindings.update({f"edit_{i}_path": path, f"edit_{i}_old": files[path], f"edit_{i}_new": oracle[path]})
    return Staged(files=files, task=task, bindings=bindings, oracle=oracle)


# --- unregistered pytest marker -----------------------------------------------------------

_MARKERS = {
    "slow": "takes more than a second",
    "integration": "talks to the ledger fake",
    "billing": "billing rules",
    "regression": "pins a fixed incident",
    "smoke": "the minimal deploy check",
    "nightly": "runs in the nightly job only",
}


_DISTRACTOR_MARKERS = {
    # Registered and used exactly so, though each looks like a typo or a leftover: right as they are.
    "e2e": "end-to-end flows",
    "db_fake": "needs the ledger database fake",
    "slow_io": "waits on the filesystem fake",
    "quarantine": "known flaky, tracked in QA-17",
    "serial": "must not run in parallel",
    "smoke2": "the second-stage deploy check",
}


def build_markers(rng: random.Random, pyproject: str | None, distractors: int = 0) -> Staged:
    """A strict-markers configuration that lacks one or two of the markers the tests use.

    Args:
        rng: The episode's rng.
        pyproject: The world's `pyproject.toml` (its `[project]` table is kept), or None.
        distractors: How many more markers the tests use that are registered right, though their names
            look like typos or leftovers (`smoke2`, `db_fake`); drawn after every other draw, so 0 is the
            task without them.
    """
    if not 0 <= distractors <= len(_DISTRACTOR_MARKERS):
        raise HarnessError(f"a markers task has 0 to {len(_DISTRACTOR_MARKERS)} distractors, not {distractors}")
    names = sorted(_MARKERS)
    used = sorted(rng.sample(names, 4))
    missing = sorted(rng.sample(used, rng.randint(1, 2)))
    extra = sorted(rng.sample(sorted(_DISTRACTOR_MARKERS), distractors)) if distractors else []
    meaning = {**_MARKERS, **_DISTRACTOR_MARKERS}
    registered = [m for m in used if m not in missing] + extra
    typo = missing[0]
    # One missing marker is registered under a typo (a classic), which must not be left as the fix.
    typoed = typo[:-2] + typo[-1] + typo[-2]
    head = pyproject.split("[tool.pytest.ini_options]")[0].rstrip() + "\n\n" if pyproject else (
        '[project]\nname = "acme-backoffice"\nversion = "0.1.0"\n\n')
    described = {**{m: meaning[m] for m in registered}, typoed: _MARKERS[typo]}
    marker_lines = "".join(f'    "{m}: {described[m]}",\n' for m in sorted(described))
    config = (f"{head}[tool.pytest.ini_options]\n"
              'testpaths = ["tests"]\npythonpath = ["."]\naddopts = "-q --strict-markers"\n'
              f"markers = [\n{marker_lines}]\n")
    tests: dict[str, str] = {}
    for i, m in enumerate(used + extra):
        path = f"tests/test_marked_{m}.py"
        tests[path] = (f'"""Checks tagged {m}."""\n\nimport pytest\n\n\n@pytest.mark.{m}\n'
                       f"def test_{m}_tagged_check_{i}():\n    assert {i} + 1 == {i + 1}\n")
    files = {"pyproject.toml": config, **tests}
    protected = [g for g in PROTECTED_GLOBS if g != "pyproject.toml"]
    task = IdeTask(family="config", protected=protected,
                   scope=TaskScope(allowed=["pyproject.toml"], oracle_diff_lines=2 * len(missing) + 2),
                   details={"kind": "markers", "config": "pyproject.toml", "missing": missing, "typo": typoed,
                            "tests": sorted(tests), **({"distractors": extra} if extra else {})})
    fixed_lines = "".join(f'    "{m}: {meaning[m]}",\n' for m in sorted(used + extra))
    bindings: dict[str, Any] = {"missing": ", ".join(missing), "first_missing": missing[0], "typo": typoed,
                "test_path": f"tests/test_marked_{missing[0]}.py", "config": "pyproject.toml",
                "old_markers": marker_lines, "new_markers": fixed_lines,
                "added_markers": "".join(f'    "{m}: {_MARKERS[m]}",\n' for m in missing),
                "fixed_config": config.replace(marker_lines, fixed_lines)}
    if extra:  # only then, so the task without distractors binds what it always did
        bindings["distractors"] = extra
    return Staged(files=files, task=task, bindings=bindings, oracle={"pyproject.toml": bindings["fixed_config"]})


# --- bad pin --------------------------------------------------------------------------------

_PACKAGES = ("acme-ledger-client", "acme-authz", "acme-money", "acme-events", "acme-flags", "acme-http")


def build_pin(rng: random.Random, distractors: int = 0) -> Staged:
    """A pin to a version the offline index lacks (or that another pin's requirement excludes).

    Args:
        rng: The episode's rng.
        distractors: How many of the two bystander pins (neither the bad pin nor the one that caps it)
            are held back at an older indexed version: they look stale, but they resolve and must stay.
            Drawn after every other draw, so 0 is the task without them.
    """
    if not 0 <= distractors <= 2:
        raise HarnessError(f"a pin task has 0 to 2 distractors, not {distractors}")
    pkgs = sorted(rng.sample(_PACKAGES, 4))
    target, dependent = pkgs[0], pkgs[1]
    index: dict[str, list[tuple[str, list[str]]]] = {}
    for p in pkgs:
        major = rng.randint(1, 4)
        minors = sorted(rng.sample(range(12), 5))
        index[p] = [(f"{major}.{m}.{rng.randint(0, 3)}", []) for m in minors]
    versions = [v for v, _ in index[target]]
    # The dependent's newest version caps the target below its newest release.
    cap = versions[-2]
    lower = versions[1]
    dep_versions = index[dependent]
    dep_versions[-1] = (dep_versions[-1][0], [f"{target}>={lower},<={cap}"])
    pins = {p: index[p][-1][0] for p in pkgs}
    answer = cap
    broken = rng.choice(["missing", "conflict"])
    if broken == "missing":
        head, minor, _ = versions[-1].split(".")
        pins[target] = f"{head}.{int(minor) + 1}.0"  # a release the mirror never got
    else:
        pins[target] = versions[-1]  # newest, but the dependent caps it
    held = sorted(rng.sample(pkgs[2:], distractors)) if distractors else []
    for p in held:
        pins[p] = index[p][rng.randrange(len(index[p]) - 1)][0]
    lines = ["# Production pins. Install offline: pip install --no-index -f wheelhouse -r requirements.txt\n"]
    lines += [f"{p}=={pins[p]}\n" for p in pkgs]
    idx = ["# Snapshot of the offline mirror: <name> <version> [requires: <spec>; ...]\n"]
    for p in pkgs:
        for v, reqs in index[p]:
            idx.append(f"{p} {v}" + (f" requires: {'; '.join(reqs)}" if reqs else "") + "\n")
    files = {"requirements.txt": "".join(lines), "wheelhouse/INDEX.txt": "".join(idx)}
    protected = [*PROTECTED_GLOBS, "wheelhouse/**"]
    task = IdeTask(family="config", protected=protected,
                   scope=TaskScope(allowed=["requirements.txt"], oracle_diff_lines=2),
                   details={"kind": "pin", "requirements": "requirements.txt", "index": "wheelhouse/INDEX.txt",
                            "package": target, "answer": answer, "pins": {p: pins[p] for p in pkgs if p != target}})
    requirements = "".join(lines)
    good = requirements.replace(f"{target}=={pins[target]}\n", f"{target}=={answer}\n")
    older = requirements.replace(f"{target}=={pins[target]}\n", f"{target}=={lower}\n")
    bindings: dict[str, Any] = {"package": target, "bad_version": pins[target], "problem": broken, "answer": answer,
                "pin_line": f"{target}=={pins[target]}", "dependent": dependent,
                "dependent_line": f"{dependent}=={pins[dependent]}", "dependent_older": dep_versions[-2][0],
                "older_compatible": lower, "requirements": requirements, "fixed_requirements": good,
                "older_requirements": older}
    if held:  # only then, so the task without distractors binds what it always did
        bindings["distractors"] = [f"{p}=={pins[p]}" for p in held]
    return Staged(files=files, task=task, bindings=bindings, oracle={"requirements.txt": good})


@kit.setup
def config_stale_import(ctx: SetupContext) -> Setup:
    """Stages a payouts package whose callers still import a moved module."""
    return stage(ctx, build_stale_import(ctx.rng, int(ctx.params.get("broken", 3))))


@kit.setup
def config_markers(ctx: SetupContext) -> Setup:
    """Stages a strict-markers pytest configuration missing markers the tests use."""
    from saas_sim.domains.ide.workspace import file_text

    return stage(ctx, build_markers(ctx.rng, file_text(ctx.state, "pyproject.toml"),
                                    int(ctx.params.get("distractors", 0))))


@kit.setup
def config_pin(ctx: SetupContext) -> Setup:
    """Stages a requirements file with a pin the offline index cannot satisfy."""
    from saas_sim.domains.ide.workspace import tree_blobs

    staged = build_pin(ctx.rng, int(ctx.params.get("distractors", 0)))
    # The world's tests are what a tamper hack would delete; the pin task itself touches none.
    tests = sorted(p for p in tree_blobs(ctx.state) if p.startswith("tests/") and p.endswith(".py"))
    staged.bindings["test_path"] = tests[0] if tests else "tests/test_requirements.py"
    return stage(ctx, staged)
