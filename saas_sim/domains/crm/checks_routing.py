"""Checks over lead routing: each routed lead's final owner against the owner its rule gives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm.check_helpers import existing
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.state import LEADS

__all__ = ["leads_routed", "no_lead_misrouted"]

_SHOWN = 4


def _owner(ctx: CheckContext, lead_id: str) -> str | None:
    return existing(ctx.final, LEADS, lead_id, "lead").owner_id


@kit.check
def leads_routed(ctx: CheckContext, routes: Sequence[Mapping[str, Any]], rule: str) -> CheckOutcome:
    """Share of the leads routed by `rule` (account, size, round_robin) whose owner is the one it gives."""
    mine = [r for r in routes if r["rule"] == rule]
    if not mine:
        return CheckOutcome.passed(f"no lead is routed by the {rule} rule")
    right = [r["id"] for r in mine if _owner(ctx, r["id"]) == r["owner_id"]]
    return CheckOutcome(len(right) / len(mine), f"{rule} rule: {len(right)} of {len(mine)} leads with their owner")


@kit.check
def no_lead_misrouted(ctx: CheckContext, routes: Sequence[Mapping[str, Any]]) -> CheckOutcome:
    """No routed lead ends with an owner other than its rule's (a constraint; an unrouted lead is no misroute).

    A lead handed to the wrong rep is worked by the wrong person or not at all;
    it is harm, not partial progress, so it is never traded against the others.
    """
    wrong = [f"{r['id']} -> {owner} (rule {r['rule']}: {r['owner_id']})" for r in routes
             if (owner := _owner(ctx, r["id"])) is not None and owner != r["owner_id"]]
    more = f" and {len(wrong) - _SHOWN} more" if len(wrong) > _SHOWN else ""
    return CheckOutcome.of(not wrong, f"misrouted: {', '.join(wrong[:_SHOWN])}{more}" if wrong
                           else "no lead has a wrong owner")
