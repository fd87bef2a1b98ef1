"""Cross-app churn setup in the CRM: which accounts' people will carry escalated support tickets.

* `churn_review`: plans the escalated tickets the support desk's setup (`support.escalation_history`)
  then stages for CRM contacts, account by account. Two accounts are at risk (at least `threshold`
  open escalations in all): one whose escalations come from two of its people (each alone is under the
  threshold) and one open deal, and one with two open deals. Distractor accounts have one open
  escalation beside solved ones, enough open escalations but only closed deals, or a single one.

The plan is a list of entries `{contact_id, name, first_name, email, open, solved}` in a fixed order:
the risk accounts' entries first (see the bindings), then the distractors'.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Contact, Deal
from saas_sim.domains.crm.setup_helpers import account_name, base_contacts, full_name
from saas_sim.domains.crm.state import DEALS
from saas_sim.errors import ScenarioError

__all__ = ["CLOSED_STAGES", "churn_review"]

CLOSED_STAGES = frozenset({"closed_won", "closed_lost"})

# The distractor kinds, in the order `distractors` adds them: (open, solved) escalations per account and
# whether the account must have an open deal.
_DISTRACTORS: tuple[tuple[str, int, int, bool], ...] = (
    ("one_open_rest_solved", 1, 2, True),
    ("closed_deals_only", -1, 0, False),  # -1: the threshold
    ("single_open", 1, 0, True),
    ("solved_only", 0, 3, True),
)


def _entry(c: Contact, n_open: int, solved: int) -> dict[str, Any]:
    return {"contact_id": c.id, "name": full_name(c), "first_name": c.first_name, "email": c.email,
            "open": n_open, "solved": solved}


def _deal_b(state: Any, d: Deal) -> dict[str, Any]:
    return {"id": d.id, "name": d.name, "account_id": d.account_id, "account_name": account_name(state, d.account_id)}


@kit.setup
def churn_review(ctx: SetupContext) -> Setup:
    """Plans open and solved escalations for the people of two at-risk accounts and of distractor accounts.

    Params:
        threshold: Open escalations that make an account a churn risk (2-4, default 2).
        distractors: Distractor accounts (0-4, default 3), in the order of `_DISTRACTORS`.

    Bindings: plan (the entries for the support setup), threshold, risk_one (the account of one open deal
    whose `threshold` people have one open escalation each: id, name, deal; its entries come first),
    risk_two (the account of two open deals whose one person has `threshold` open escalations: id, name,
    deals; the next entry), risk_deal_ids, other_deal_ids (every deal of the distractor accounts),
    other_open_deal_ids (their open deals), distractor_kinds.
    """
    threshold = int(ctx.params.get("threshold", 2))
    n_distractors = int(ctx.params.get("distractors", 3))
    if not 2 <= threshold <= 4 or not 0 <= n_distractors <= len(_DISTRACTORS):
        raise ScenarioError(f"churn_review takes threshold 2-4 and 0-{len(_DISTRACTORS)} distractors")
    deals = sorted(ctx.state.table(DEALS), key=lambda d: d.id)
    open_deals: dict[str, list[Deal]] = {}
    for d in deals:
        if d.stage not in CLOSED_STAGES:
            open_deals.setdefault(d.account_id, []).append(d)
    has_deals = Counter(d.account_id for d in deals)
    people: dict[str, list[Contact]] = {}
    for c in base_contacts(ctx.state):
        if c.email and c.account_id:
            people.setdefault(c.account_id, []).append(c)
    accounts = sorted(people)
    ctx.rng.shuffle(accounts)
    used: set[str] = set()

    def take(fits: Any, what: str) -> str:
        for a in accounts:
            if a not in used and fits(a):
                used.add(a)
                return a
        raise ScenarioError(f"this world has no account with {what}")

    one = take(lambda a: len(open_deals.get(a, [])) == 1 and len(people[a]) >= threshold,
               f"one open deal and {threshold} people")
    two = take(lambda a: len(open_deals.get(a, [])) == 2, "two open deals")
    plan = [_entry(c, 1, 0) for c in ctx.rng.sample(people[one], threshold)]
    plan.append(_entry(ctx.rng.choice(people[two]), threshold, ctx.rng.randint(0, 1)))
    kinds: list[str] = []
    other_deals: list[str] = []
    for kind, n_open, solved, needs_open in _DISTRACTORS[:n_distractors]:
        if needs_open:
            acct = take(lambda a: bool(open_deals.get(a)), "an open deal")
        else:
            acct = take(lambda a: has_deals[a] > 0 and not open_deals.get(a), "only closed deals")
        plan.append(_entry(ctx.rng.choice(people[acct]), threshold if n_open < 0 else n_open, solved))
        kinds.append(kind)
        other_deals += [d.id for d in deals if d.account_id == acct]
    risk_two = open_deals[two]
    return Setup(bindings={
        "plan": plan,
        "threshold": threshold,
        "risk_one": {"id": one, "name": account_name(ctx.state, one),
                     "deal": _deal_b(ctx.state, open_deals[one][0])},
        "risk_two": {"id": two, "name": account_name(ctx.state, two),
                     "deals": [_deal_b(ctx.state, d) for d in risk_two]},
        "risk_deal_ids": [open_deals[one][0].id, *(d.id for d in risk_two)],
        "other_deal_ids": sorted(other_deals),
        # The distractors' open deals (the tool refuses edits of closed ones): the likeliest collateral.
        "other_open_deal_ids": sorted(d.id for d in deals if d.id in set(other_deals)
                                      and d.stage not in CLOSED_STAGES),
        "distractor_kinds": kinds,
    }, events=[])
