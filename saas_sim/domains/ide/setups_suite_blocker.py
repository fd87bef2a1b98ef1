"""Cross-app setup on the company's code: a seeded bug in a money helper a prospect ran into.

* `money_display_bug`: stages an `ide.inject_bugs` task restricted to `format_cents` of
  acme/utils/money.py (hidden tests, visible tests) and draws an amount the buggy helper renders
  wrong: the figure the prospect's support ticket quotes, with what it shows and what it should show.

Reference values come from the clean and the mutated module text, evaluated in-process like
`gen_reference` does (generated text, before any agent acts).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.ide.gen_reference import call, load_namespace
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import ScenarioError

__all__ = ["MONEY_PATH", "money_display_bug"]

MONEY_PATH = "acme/utils/money.py"
_BUG_TRIES = 40


def _wrong_amount(rng: random.Random, clean: Mapping[str, Any], mutant: Mapping[str, Any]
                  ) -> tuple[int, str, str] | None:
    """An amount in cents a buyer would bill (10 to 90,000 dollars) that the mutant renders wrong."""
    found: list[tuple[int, str, str]] = []
    for _ in range(400):
        # Any cents, or a round figure ending in 05 or 50 (where a dropped zero shows).
        cents = rng.choice((rng.randint(1_000, 9_000_000),
                            rng.randint(1_000, 90_000) * 100 + rng.choice((5, 50))))
        shown, right = call(mutant["format_cents"], [cents]), call(clean["format_cents"], [cents])
        # A rendering that raises is no display a customer saw; one must differ visibly.
        if isinstance(shown, str) and isinstance(right, str) and shown != right:
            found.append((cents, shown, right))
    return rng.choice(found) if found else None


@kit.setup
def money_display_bug(ctx: SetupContext) -> Setup:
    """A seeded bug in format_cents() of acme/utils/money.py that shows a prospect's amounts wrong (`bug.*`).

    Params:
        report: How the IDE task's report names the bug (`vague`, `symptom` or `specific`; default vague).

    Bindings: inject_bugs' (module_path, function, old_region, new_region, clean_text, test_path, ...) and
    `bug`: cents (the prospect's amount), shown (what the buggy code displays), correct (what the fixed
    code displays), dollars (the amount as a plain figure, `"1234.05"`).
    """
    from saas_sim.domains.ide.setups_bugfix import inject_bugs
    from saas_sim.domains.ide.state import PROJECTION

    files = tree_files(ctx.state)
    if MONEY_PATH not in files:
        raise ScenarioError(f"this world has no {MONEY_PATH}: the task needs the suite's code base")
    clean = load_namespace(files[MONEY_PATH])
    report = str(ctx.params.get("report", "vague"))
    for _ in range(_BUG_TRIES):
        sub = replace(ctx, params={"bugs": 1, "units": ["format_cents"], "report": report,
                                                    "visible_failing": True},
                           rng=random.Random(ctx.rng.getrandbits(64)))
        out = inject_bugs(sub)
        mutant = load_namespace(tree_files(PROJECTION.fold(ctx.state, out.events))[MONEY_PATH])
        amount = _wrong_amount(ctx.rng, clean, mutant)
        if amount is not None:
            cents, shown, right = amount
            return Setup(bindings={**out.bindings, "bug": {
                "cents": cents, "shown": shown, "correct": right,
                "dollars": f"{cents // 100}.{cents % 100:02d}"}}, events=out.events)
    raise ScenarioError("no seeded bug in format_cents() shows a customer's amount wrong")
