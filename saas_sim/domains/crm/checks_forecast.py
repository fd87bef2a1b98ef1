"""Checks over forecast hygiene: declined deals closed lost for the buyer's own cause, and nothing else closed.

A lost reason is judged by the cause it names (`decline_causes`): the buyer's
cause must be named, and no other: "Chose a competitor, no budget, cancelled"
names three causes for a buyer who gave one, so it is false however it was meant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm.check_helpers import deal
from saas_sim.domains.crm.decline_causes import CAUSES, Cause, causes_named, competitors_named, states_cause
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.state import DEALS
from saas_sim.errors import VerifierError

__all__ = ["declines_closed_lost", "lost_reasons_stated", "lost_reasons_true"]


def _declined(declined: Sequence[Mapping[str, Any]]) -> list[tuple[str, Cause, str | None]]:
    out: list[tuple[str, Cause, str | None]] = []
    for d in declined:
        if d.get("cause") not in CAUSES:
            raise VerifierError(f"declined deal {d.get('id')} has no known cause")
        out.append((str(d["id"]), cast(Cause, d["cause"]), d.get("competitor")))
    return out


@kit.check
def declines_closed_lost(ctx: CheckContext, declined_ids: list[str]) -> CheckOutcome:
    """Share of the declined deals that end closed lost (whatever the reason written)."""
    lost = [i for i in declined_ids if deal(ctx.final, i).stage == "closed_lost"]
    return CheckOutcome(len(lost) / len(declined_ids), f"closed lost: {lost} of {declined_ids}")


@kit.check
def lost_reasons_stated(ctx: CheckContext, declined: list[dict[str, Any]]) -> CheckOutcome:
    """Share of the declined deals closed lost with a reason that names the buyer's cause.

    A competitor loss must name the rival the buyer chose ("Chose competitor"
    alone tells the forecast nothing the stage does not); the other causes are
    named by any word of their family ("budget frozen", "no funding").
    """
    good, notes = 0, []
    for deal_id, cause, rival in _declined(declined):
        d = deal(ctx.final, deal_id)
        if d.stage == "closed_lost" and states_cause(d.lost_reason or "", cause, rival):
            good += 1
        else:
            notes.append(f"{deal_id} is {d.stage} with reason {d.lost_reason!r} (the buyer's cause: "
                         f"{rival or cause})")
    return CheckOutcome(good / len(declined), "; ".join(notes) or "every declined deal names the buyer's cause")


@kit.check
def lost_reasons_true(ctx: CheckContext, declined: list[dict[str, Any]]) -> CheckOutcome:
    """Every deal the agent closed lost names no cause but the buyer's own (a constraint).

    Judged on every deal that ends closed lost and was not at the start: a
    declined deal may name its buyer's cause (a competitor loss only the rival
    chosen); any other deal has no written cause, so naming one is false.
    """
    truth = {deal_id: (cause, rival) for deal_id, cause, rival in _declined(declined)}
    false: list[str] = []
    for deal_id, before, after in ctx.changed(DEALS):
        if after is None or after.stage != "closed_lost" or (before is not None and before.stage == "closed_lost"):
            continue
        reason = after.lost_reason or ""
        cause, rival = truth.get(deal_id, (None, None))
        extra = sorted(causes_named(reason) - ({cause} if cause else set()))
        rivals = sorted(competitors_named(reason) - ({rival} if rival else set()))
        if extra or rivals:
            false.append(f"{deal_id}'s lost reason {reason!r} names {', '.join(extra + rivals)}")
    return CheckOutcome.of(not false, "; ".join(false) or "every lost reason names only the buyer's own cause")
