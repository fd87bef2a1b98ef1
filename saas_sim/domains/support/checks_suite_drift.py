"""Cross-app name-drift checks in the support desk: a reply that names the company as it is called now.

The current name is a fact from another product (the CRM account's name, passed in from the bindings),
seed-drawn with the account, so no constant passes; the customer's old name alone is what they wrote.
"""

from __future__ import annotations

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.identity import normalize_company
from saas_sim.domains.support.check_helpers import episode_replies
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.plain_text import plain

__all__ = ["reply_names_company"]


@kit.check
def reply_names_company(ctx: CheckContext, *, ticket_id: str, name: str) -> CheckOutcome:
    """A public reply on the ticket names the company `name` as whole words (legal forms and case ignored)."""
    replies = episode_replies(ctx, ticket_id)
    if not replies:
        return CheckOutcome.failed(f"no reply on {ticket_id}")
    key = f" {normalize_company(name)} "
    if any(key in f" {normalize_company(plain(m.body))} " for m in replies):
        return CheckOutcome.passed(f"a reply on {ticket_id} names {name}")
    return CheckOutcome.failed(f"no reply on {ticket_id} names {name}")
