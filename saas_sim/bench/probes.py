"""The bench's fixed calls: the repeatable CRM write, the READ, and one search per domain, with their scenarios.

Every probe goes through `Episode.call`, the path an agent's call takes (validation, the
handler, events, the store, result serialization), on an episode started without faults, so a
figure never includes an injected error. Scenario limits are lifted for timing loops only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from saas_sim.bench.sustained import WriteProbe
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.world import WorldProfile
from saas_sim.scenarios.loader import Scenario
from saas_sim.scenarios.model import Limits
from saas_sim.scenarios.templating import render

__all__ = [
    "BENCH_SCENARIO", "READ_PROBE", "SEARCH_PROBES", "WRITE_PROBE", "CallProbe", "on_profile", "unlimited",
]

BENCH_SCENARIO = "crm/advance-qualified-deal"
"""The scenario whose episodes the write, read and reset figures use (its world is crm-smb)."""


def _deal_id(episode: Episode) -> str:
    return str(render("{deal.id}", episode.task.bindings))


WRITE_PROBE = WriteProbe(
    "crm.update_deal",
    lambda episode, k: {"deal_id": _deal_id(episode), "next_step": f"Bench follow-up {k}"},
)
"""`crm.update_deal` setting the task's deal's next step to a new text each time: one `DealUpdated` per call."""


@dataclass(frozen=True)
class CallProbe:
    """A READ call whose arguments are templates over the task's bindings.

    Attributes:
        scenario: The scenario that provides the bindings and the tools.
        tool: The tool.
        args: Templated arguments (`{contact.name}`).
        name: The figure's name part (`crm_contacts`).
    """

    scenario: str
    tool: str
    args: dict[str, Any]
    name: str

    def render(self, episode: Episode) -> dict[str, Any]:
        """The call's arguments for this episode."""
        rendered = render(self.args, episode.task.bindings)
        assert isinstance(rendered, dict)
        return rendered


READ_PROBE = CallProbe(BENCH_SCENARIO, "crm.get_deal", {"deal_id": "{deal.id}"}, "read_get_deal")
"""`crm.get_deal` on the task's deal."""

SEARCH_PROBES: dict[str, CallProbe] = {
    "crm": CallProbe(BENCH_SCENARIO, "crm.search_contacts", {"query": "{contact.name}"}, "crm_contacts"),
    "support": CallProbe("support/refund-damaged-item", "support.search_tickets", {"query": "{customer.email}"},
                         "support_tickets"),
    "ide": CallProbe("ide/fix-reported-bug", "ide.search_code", {"query": "{function}"}, "ide_code"),
}
"""One search per domain: a contact by full name, tickets by the requester's e-mail, code by a function name.

Each is what an agent types, and each scans its whole table unless the domain indexes it."""


def unlimited(scenario: Scenario) -> Scenario:
    """The scenario with its step and sim-time limits lifted, for timing loops of thousands of calls."""
    limits = Limits(max_steps=10_000, sim_time_s=1e9)
    return dataclasses.replace(scenario, spec=scenario.spec.model_copy(update={"limits": limits}))


def on_profile(scenario: Scenario, profile: WorldProfile) -> Scenario:
    """The scenario on another world profile (its setup picks its entities in that world)."""
    return dataclasses.replace(scenario, profile=profile)
