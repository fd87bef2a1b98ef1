"""Cross-app incident setups in the support desk: questions whose true answer is in the company's code.

* `sla_question`: a VIP customer asks how fast a ticket of some priority is first answered. A
  help-centre article, written before the code changed, states an old VIP factor and its figure; the
  SLA code's figure (from the IDE's setup `ide.code_sla_target`) is the truth.

The ticket and the article get seed-drawn ids; the customer writes in English.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import KbArticle
from saas_sim.domains.support.setup_helpers import ago, customer_b, random_mess, skip_ids, stage, ticket_b
from saas_sim.domains.support.state import CUSTOMERS
from saas_sim.domains.support.ticket_factory import TicketSpec
from saas_sim.errors import ScenarioError

__all__ = ["sla_question"]

_ASK = ("We are one of your VIP customers. If we open a {priority}-priority ticket, how quickly will your team "
        "first respond? Your help centre says {stale} minutes for VIPs; is that still right?")
_ARTICLE = ("VIP customers get faster first responses: their target is {pct}% of the standard target for the "
            "ticket's priority. For example, a {priority}-priority ticket from a VIP is first answered within "
            "{stale} minutes.")


@kit.setup
def sla_question(ctx: SetupContext) -> Setup:
    """A VIP customer asks for the first-response target of a priority; the help centre's figure is stale.

    Params:
        priority, stale_pct, stale_minutes, vip_minutes: From `ide.code_sla_target`.

    Bindings: ticket (id, subject), customer, article (id: the stale article), reply (an answer with the
    code's figure).
    """
    priority, stale = str(ctx.params["priority"]), int(ctx.params["stale_minutes"])
    vips = sorted((c for c in ctx.state.table(CUSTOMERS) if c.tier == "vip" and c.language == "en"),
                  key=lambda c: c.id)
    if not vips:
        raise ScenarioError("this desk has no English-speaking VIP customer")
    customer = vips[ctx.rng.randrange(len(vips))]
    skip_ids(ctx, "kb")
    article = KbArticle(
        id=ctx.ids.next("kb"), title="Response times for VIP customers",
        body=_ARTICLE.format(pct=int(ctx.params["stale_pct"]), priority=priority, stale=stale),
        category="account", tags=("sla", "vip", "response-times"), product_id=None,
        updated_at=ctx.now - timedelta(days=ctx.rng.randint(200, 600)))
    ticket, events = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="howto", resolution="reply", created_at=ago(ctx, 5, 60),
        priority="normal", group="general", mess=random_mess(ctx.rng, vague_subject=False),
        body_core=_ASK.format(priority=priority, stale=stale)), [ev.KbArticlePublished(article=article)])
    ticket = ticket.model_copy(update={"subject": "How fast do you answer VIP tickets?", "tags": ("sla",)})
    events = [ev.TicketCreated(ticket=ticket) if isinstance(e, ev.TicketCreated) else e for e in events]
    vip = int(ctx.params["vip_minutes"])
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket), "customer": customer_b(customer), "article": {"id": article.id},
        "reply": (f"Hello {customer.first_name}, thanks for asking. The help centre article is out of date: our "
                  f"first-response target for a {priority}-priority ticket from a VIP customer is {vip} minutes."),
    }
    return Setup(bindings=bindings, events=events)
