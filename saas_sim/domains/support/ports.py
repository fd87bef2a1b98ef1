"""The views the support desk offers other domains of a world (`saas_sim.core.links`).

* `support.policy_terms` (`Terms`), in id order:
  - `refunds`: `window_days` (a change-of-mind return is refunded within this many days, policy 3),
    `full_refund_days` (the whole item price is refunded up to this day: the desk charges no
    restocking fee, so it equals the window) and `restocking_fee_bp` (0);
  - `sla_first_response_minutes` and `sla_resolution_minutes`: the SLA targets per priority;
  - `sla_warning`: `at_risk_minutes`, how close to a deadline a ticket counts as `at_risk`.

The terms are the desk's policy, the same in every world, so a product built on them (the IDE's
refund and SLA code) states what the desk does.
"""

from __future__ import annotations

from decimal import Decimal

from saas_sim.core.links import Port, Terms
from saas_sim.core.state import State
from saas_sim.domains.support.state import AT_RISK_WINDOW
from saas_sim.domains.support.ticket_factory import FIRST_RESPONSE_HOURS, RESOLUTION_HOURS

__all__ = ["PORTS", "RETURN_WINDOW_DAYS", "policy_terms"]

RETURN_WINDOW_DAYS = 30
"""Policy 3's change-of-mind window, in days after delivery (the judge and reply readers use the same)."""


def _minutes(hours: dict[str, int]) -> dict[str, Decimal]:
    return {priority: Decimal(h * 60) for priority, h in hours.items()}


def policy_terms(state: State) -> tuple[Terms, ...]:
    """Returns the desk's policy terms (see the module docstring); the same for every state."""
    del state  # the policy is the desk's, not the world's
    return (
        Terms(id="refunds", values={"window_days": Decimal(RETURN_WINDOW_DAYS),
                                    "full_refund_days": Decimal(RETURN_WINDOW_DAYS),
                                    "restocking_fee_bp": Decimal(0)}),
        Terms(id="sla_first_response_minutes", values=_minutes(FIRST_RESPONSE_HOURS)),
        Terms(id="sla_resolution_minutes", values=_minutes(RESOLUTION_HOURS)),
        Terms(id="sla_warning", values={"at_risk_minutes": Decimal(int(AT_RISK_WINDOW.total_seconds()) // 60)}),
    )


PORTS: tuple[Port, ...] = (
    Port("support.policy_terms", Terms, policy_terms,
         "The desk's refund and SLA terms: refunds, sla_first_response_minutes, sla_resolution_minutes, "
         "sla_warning."),
)
"""The support desk's ports, registered on its `Domain`."""
