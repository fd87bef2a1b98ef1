"""Cross-app incident setups on the company's code: the SLA figures the code gives, bound for the desk.

The code is right in these tasks: nothing is staged in the tree and no IDE task is staged. What the
agent must do is read the code, so a setup binds the true figure and a stale one for the other
products' setups to plant (a help-centre article written before the code changed):

* `code_sla_target`: a ticket priority, and what `target_minutes(priority, vip=True)` of
  acme/sla/timers.py returns for it, beside the standard target and a stale VIP factor's figure.

Reference values come from the module's text in the tree, evaluated in-process like `gen_reference`
does (generated text, before any agent acts).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.ide import events as ev
from saas_sim.domains.ide.gen_reference import load_namespace
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.setup_helpers import decoy_count
from saas_sim.domains.ide.workspace import TreeWriter, file_text
from saas_sim.errors import ScenarioError

__all__ = ["SLA_PATH", "code_sla_target"]

SLA_PATH = "acme/sla/timers.py"
_PRIORITIES = ("urgent", "high", "normal", "low")
_FACTORS = (50, 60, 75, 80, 100)
"""VIP factors (percent) a stale article may state; 100 is "no faster than anyone"."""


def _hours(minutes: int) -> str | None:
    """Minutes as hours when that is a short decimal (`90` -> `"1.5"`), else None."""
    hours = Decimal(minutes) / 60
    return f"{hours.normalize():f}" if hours == hours.quantize(Decimal("0.1")) else None


@kit.setup
def code_sla_target(ctx: SetupContext) -> Setup:
    """A priority and the first-response targets acme/sla/timers.py gives a VIP and anyone for it.

    Params:
        priority: `urgent`, `high`, `normal`, `low` or `any` (default: drawn).
        decoys: Stale copies of the SLA module under `attic/v<k>/` that still carry the help centre's
            old VIP factor, so a search for the factor finds the stale figure too (default 0: none; no
            rng draw either way).

    Bindings: sla (priority, vip_minutes, vip_hours (or null), standard_minutes, vip_pct, stale_pct,
    stale_minutes: what a stale VIP factor gives, differing from the code's figure).
    """
    text = file_text(ctx.state, SLA_PATH)
    if text is None:
        raise ScenarioError(f"this world's code base has no {SLA_PATH}")
    ns = load_namespace(text)
    priority = str(ctx.params.get("priority", "any"))
    if priority == "any":
        priority = ctx.rng.choice(_PRIORITIES)
    if priority not in _PRIORITIES:
        raise ScenarioError(f"code_sla_target takes a priority of {_PRIORITIES}, got {priority!r}")
    vip, standard, pct = int(ns["target_minutes"](priority, True)), int(ns["target_minutes"](priority, False)), \
        int(ns["VIP_FACTOR_PCT"])
    stale_pcts = [f for f in _FACTORS if f != pct and standard * f // 100 != vip]
    stale_pct = ctx.rng.choice(stale_pcts)
    sla: dict[str, Any] = {
        "priority": priority, "vip_minutes": vip, "vip_hours": _hours(vip), "standard_minutes": standard,
        "vip_pct": pct, "stale_pct": stale_pct, "stale_minutes": standard * stale_pct // 100,
    }
    return Setup(bindings={"sla": sla}, events=_stale_copies(ctx, text, stale_pct))


def _stale_copies(ctx: SetupContext, text: str, stale_pct: int) -> list[Event]:
    """The `decoys` attic copies of the SLA module with the stale factor, and a new base that holds them."""
    n = decoy_count(ctx)
    if n == 0:
        return []
    stale = re.sub(r"^VIP_FACTOR_PCT = \d+", f"VIP_FACTOR_PCT = {stale_pct}", text, count=1, flags=re.M)
    writer = TreeWriter(ctx.state)
    for k in range(1, n + 1):
        writer.write(f"attic/v{k}/{SLA_PATH}", stale, operation="setup")
    return [*writer.events, ev.BaseMarked()]
