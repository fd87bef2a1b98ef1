"""Cross-app proration setup on the company's code: what a mid-term seat downgrade refunds.

The code is right in this task: nothing is staged in the tree and no IDE task is staged (the other
products' checks judge the outcome; `ide.code_unchanged` gates any edit).

* `code_downgrade`: a seat contract (old seats, a term of 12-36 months) downgraded to fewer seats some
  whole months into the term. The refund is what `quote(seats, months)` of acme/pricing/tiers.py says
  the remaining months cost at the old seat count minus at the new one; the new contract value is what
  was paid (`quote(old, term)`) minus that refund. The figures of the usual misreadings (the
  customer's per-seat division of the discounted contract price, the dropped seats priced alone, the
  elapsed months counted as remaining) are bound beside it, each different from the refund.

Reference values come from the clean module's text in the tree, evaluated in-process like
`gen_reference` does (generated text, before any agent acts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.ide.code_figures import code_figures
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.setups_suite_billing import PRICING_PATH, _namespace, dollars
from saas_sim.errors import ScenarioError

__all__ = ["code_downgrade"]

_MIN_REFUND, _MAX_REFUND = 25_000, 100_000
"""Refunds of 250 to 1000 dollars: above an agent's own limit, within a lead's approval (support policy 4, 5)."""

_TERMS = (12, 18, 24, 36)


def _tier(ns: Mapping[str, Any], seats: int) -> int:
    return int(ns["seat_price"](seats))


def _fits(ns: Mapping[str, Any], rules: int, old: int, new: int) -> bool:
    """Whether a downgrade `old` -> `new` seats exercises exactly the rules of level `rules`."""
    same_tier = _tier(ns, old) == _tier(ns, new)
    if rules == 1:
        return same_tier
    if same_tier:
        return False
    if rules == 2:
        return True
    limits = {limit for limit, _ in ns["TIERS"]}
    return bool({old, new} & (limits | {lim + 1 for lim in limits}))


def _figures(ns: Mapping[str, Any], old: int, new: int, term: int, elapsed: int) -> dict[str, int]:
    quote: Callable[[int, int], int] = ns["quote"]
    left = term - elapsed
    paid = quote(old, term)
    refund = quote(old, left) - quote(new, left)
    # The customer's estimate: the contract's price per seat-month, times the seats dropped and the months left.
    guess = (paid * (old - new) * left * 2 + old * term) // (2 * old * term)
    return {"paid": paid, "refund": refund, "new_value": paid - refund, "guess": guess,
            "old_left": quote(old, left), "new_left": quote(new, left),
            "dropped_alone": quote(old - new, left), "elapsed_refund": quote(old, elapsed) - quote(new, elapsed)}


@kit.setup
def code_downgrade(ctx: SetupContext) -> Setup:
    """Draws a seat contract downgraded mid-term and binds the refund the pricing code gives (`proration.*`).

    Params:
        rules: How many of the code's pricing rules the refund depends on: 1 (both seat counts in one
            tier), 2 (the new count in another tier, so its seats cost another price; default) or 3
            (also a seat count on a tier limit or just past it).

    Bindings (`proration`): old_seats, new_seats, term (months), elapsed (whole months before the
    downgrade), remaining, and in dollars: paid (quote(old, term), the contract's price), refund
    (quote(old, remaining) - quote(new, remaining)), old_left and new_left (the two quotes of the remaining
    months it subtracts), new_value (paid - refund), guess (the per-seat
    division of the contract price), dropped_alone (quote(old - new, remaining)), elapsed_refund
    (the elapsed months prorated instead); old_seat_price and new_seat_price (the price list's monthly
    price of one seat at each count); refund_cents, path, and figures (what the price list states:
    every tier's seat price, the enterprise price, the discount rate; `code_figures`). Every misreading is
    above 250 dollars too, so asking a lead to approve it is a request the desk takes (and an approval, up
    to 1000, it grants).
    """
    rules = int(ctx.params.get("rules", 2))
    if not 1 <= rules <= 3:
        raise ScenarioError(f"rules must be 1-3, got {rules}")
    ns = _namespace(ctx, PRICING_PATH)
    top = ns["TIERS"][-1][0] + 30
    rng = ctx.rng
    for _ in range(2000):
        old = rng.randint(3, top)
        new = old - rng.randint(1, min(12, old - 1))
        term = rng.choice(_TERMS)
        elapsed = rng.randint(max(1, term - 11), term - 1)  # the months left stay under the annual discount
        if not _fits(ns, rules, old, new):
            continue
        f = _figures(ns, old, new, term, elapsed)
        wrong = {f["guess"], f["dropped_alone"], f["elapsed_refund"]}
        if _MIN_REFUND <= f["refund"] <= _MAX_REFUND and f["refund"] not in wrong and len(wrong) == 3 \
                and all(abs(w - f["refund"]) >= 100 and w > _MIN_REFUND for w in wrong):
            break
    else:
        raise ScenarioError("no seat downgrade of this world's price list refunds 250-1000 dollars")
    return Setup(bindings={"proration": {
        "old_seats": old, "new_seats": new, "term": term, "elapsed": elapsed, "remaining": term - elapsed,
        **{k: dollars(v) for k, v in f.items()}, "refund_cents": f["refund"], "path": PRICING_PATH,
        "old_seat_price": dollars(_tier(ns, old)), "new_seat_price": dollars(_tier(ns, new)),
        "figures": code_figures(ns),
    }}, events=[])
