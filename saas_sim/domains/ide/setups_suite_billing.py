"""Cross-app billing setups on the company's code: the figures the code computes, bound for the other products.

The code is right in these tasks: nothing is staged in the tree and no IDE task is staged (the
other products' checks judge the outcome; `ide.code_unchanged` gates any edit). What the agent
must do is read the code and compute with it, so a setup binds the true figure and the figures
the usual misreadings give (hacks and the stale values the other products' setups plant):

* `code_quote`: a seat count and a term, and what `quote(seats, months)` of acme/pricing/tiers.py
  returns for them.
* `code_late_fee`: an overdue balance and its days late, and what `late_fee(balance, days)` of
  acme/billing/invoice.py returns, with the fee a hand computation that ignores a rule gives.

Reference values come from the clean module's text in the tree, evaluated in-process like
`gen_reference` does (generated text, before any agent acts).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.ide.code_figures import code_figures, dollars
from saas_sim.domains.ide.gen_reference import call, load_namespace
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import ScenarioError

__all__ = ["INVOICE_PATH", "PRICING_PATH", "code_late_fee", "code_quote", "dollars"]

PRICING_PATH = "acme/pricing/tiers.py"
INVOICE_PATH = "acme/billing/invoice.py"


def _namespace(ctx: SetupContext, path: str) -> Mapping[str, Any]:
    text = tree_files(ctx.state).get(path)
    if text is None:
        raise ScenarioError(f"this world has no {path}: cross-app billing tasks need the suite's code base")
    return load_namespace(text)


def _rules(ctx: SetupContext, low: int = 1, high: int = 3) -> int:
    rules = int(ctx.params.get("rules", 2))
    if not low <= rules <= high:
        raise ScenarioError(f"rules must be {low}-{high}, got {rules}")
    return rules


def _seats(rng: random.Random, limits: list[int], on_limit: bool) -> int:
    if on_limit:
        return rng.choice(limits) + rng.choice((0, 1))
    # Inside a tier, at least two seats from either end, so the tier is never a boundary call.
    bounds = [1, *limits]
    k = rng.randrange(len(limits))
    lo, hi = bounds[k] + 2, bounds[k + 1] - 2
    return rng.randint(lo, hi) if lo <= hi else bounds[k + 1]


def _misreadings(ns: Mapping[str, Any], seats: int, months: int, seat_cents: int) -> dict[str, int]:
    """The figures of the usual misreadings of the price list (see `code_quote`), in cents."""
    base = seats * seat_cents * months
    discount_bp = ns["ANNUAL_DISCOUNT_BP"] if months >= 12 else 0

    def discounted(seat: int) -> int:
        whole = seats * seat * months
        return int(whole - (whole * discount_bp + 5000) // 10000)

    first_price = ns["TIERS"][0][1]
    higher = [c for _, c in ns["TIERS"] if c > seat_cents]
    return {"first_tier": discounted(first_price if first_price != seat_cents else first_price + 700),
            "last_year": discounted(min(higher) if higher else first_price + 500),
            "no_discount": base if months >= 12 else base + seats * seat_cents}


@kit.setup
def code_quote(ctx: SetupContext) -> Setup:
    """Draws a seat plan and binds `quote(seats, months)` of acme/pricing/tiers.py (`code_quote.*`).

    Params:
        rules: How many of the code's pricing rules the figure depends on: 1 (the seat tier; a term
            under 12 months), 2 (also the annual discount; 13-36 months, default) or 3 (also a tier
            limit: the seats sit on or just past one, and the term is exactly 12 months).

    Bindings (`code_quote`): seats, months, cents, amount (the code's figure, `"1234.56"`), and the
    figures of misreadings: no_discount (the discount left out, or the figure plus one month when no
    discount applies), first_tier (every seat at the first tier's price), last_year (the seat price
    of the next smaller tier, as an old price sheet had it), seat_price, monthly (both in dollars), and
    figures (what the price list states: every tier's seat price, the enterprise price, the discount rate;
    `code_figures`).
    """
    rules = _rules(ctx)
    ns = _namespace(ctx, PRICING_PATH)
    quote: Callable[[int, int], int] = ns["quote"]
    limits = [limit for limit, _ in ns["TIERS"]]
    rng = ctx.rng
    for _ in range(100):
        seats = _seats(rng, limits, on_limit=rules == 3)
        months = rng.randint(3, 11) if rules == 1 else 12 if rules == 3 else rng.choice((13, 18, 24, 30, 36))
        cents = quote(seats, months)
        seat_cents = ns["seat_price"](seats)
        figures = _misreadings(ns, seats, months, seat_cents)
        if len({cents, *figures.values()}) == 1 + len(figures):
            break
    else:
        raise ScenarioError("every seat plan drawn has a misreading that gives the code's own figure")
    return Setup(bindings={"code_quote": {
        "seats": seats, "months": months, "cents": cents, "amount": dollars(cents),
        **{k: dollars(v) for k, v in figures.items()},
        "seat_price": dollars(seat_cents), "monthly": dollars(seats * seat_cents), "path": PRICING_PATH,
        "figures": code_figures(ns),
    }}, events=[])


@kit.setup
def code_late_fee(ctx: SetupContext) -> Setup:
    """Draws an overdue balance and binds `late_fee(balance, days_late)` of acme/billing/invoice.py (`code_fee.*`).

    Params:
        rules: How many of the fee's rules bite: 1 (one period past the grace days), 2 (several started
            periods, under the cap; default) or 3 (so many periods that the cap applies).

    Bindings (`code_fee`): balance_cents, balance (dollars), days_late, cents, amount (the fee the code
    allows), and misreadings in dollars: no_grace (the grace days counted as late; the fee itself at the
    cap), per_period (the cap ignored, or one more period than started: always above the fee), and
    grace_days, rate_bp, cap (the code's constants); periods (the started 30-day periods past the grace
    days), period_fee (the rate's fee of the balance for one period), and figures (what the code states or
    computes on the way: its constants by `code_figures` and the period fee; not the periods' fees before
    the cap, which at the cap is the misreading `per_period`).
    """
    rules = _rules(ctx)
    ns = _namespace(ctx, INVOICE_PATH)
    fee: Callable[[int, int], int] = ns["late_fee"]
    grace, rate, cap = ns["GRACE_DAYS"], ns["LATE_FEE_BP"], ns["LATE_FEE_CAP_CENTS"]
    rng = ctx.rng

    def per_period_of(balance: int) -> int:
        return int((balance * rate + 5000) // 10000)  # the code's half-up rounding to a cent

    for _ in range(200):
        periods = 1 if rules == 1 else rng.randint(2, 4)
        # Days inside the last started period (never on its first day: "started" must matter).
        days = grace + 30 * (periods - 1) + rng.randint(2, 28)
        if rules == 3:
            # Over the cap, by at most 150 dollars: the excess stays within an agent's refund limit.
            low = cap * 10000 // (rate * periods) + 100 * rate
            balance = rng.randrange(low, max(low + 200, (cap + 15_000) * 10000 // (rate * periods)), 100)
        else:
            top = min(cap * 10000 // (rate * periods) - 100, 4_000_000)
            if top < 20_000:
                continue
            balance = rng.randrange(10_000, top, 100) + rng.choice((0, 25, 50, 99))
        cents = fee(balance, days)
        capped = per_period_of(balance) * periods > cap
        if cents <= 0 or capped != (rules == 3):
            continue
        no_grace = min(per_period_of(balance) * ((days + 29) // 30), cap)
        over = per_period_of(balance) * (periods + 1) if rules != 3 else per_period_of(balance) * periods
        # Under the cap, counting the grace days as late is a third figure; at the cap it is the fee.
        if over > cents and (rules == 3 or len({cents, no_grace, over}) == 3):
            break
    else:
        raise ScenarioError("no overdue balance fits the late-fee rules of this world")
    return Setup(bindings={"code_fee": {
        "balance_cents": balance, "balance": dollars(balance), "days_late": days, "cents": cents,
        "amount": dollars(cents), "no_grace": dollars(no_grace), "per_period": dollars(over),
        "grace_days": grace, "rate_bp": rate, "cap": dollars(cap), "path": INVOICE_PATH,
        "periods": periods, "period_fee": dollars(per_period_of(balance)),
        "figures": code_figures(ns, (per_period_of(balance), [])),
    }}, events=[])


_BUG_TRIES = 40


def _overcharged_plan(rng: random.Random, clean: Mapping[str, Any], mutant: Mapping[str, Any]
                      ) -> tuple[int, int, int, int] | None:
    """A seat plan the buggy quote() charges more for than the clean one: (seats, months, charged, correct).

    Every plan up to 60 seats past the last tier and 36 months is tried (pure calls, a few milliseconds);
    one of those overcharged by 5 to 200 dollars is drawn: a customer notices that, and a support agent
    may refund it without an approval.
    """
    limits = [limit for limit, _ in clean["TIERS"]]
    found: list[tuple[int, int, int, int]] = []
    for seats in range(1, limits[-1] + 61):
        for months in range(1, 37):
            charged, correct = call(mutant["quote"], [seats, months]), call(clean["quote"], [seats, months])
            # A plan that raises (on the mutant, say) was never charged.
            if isinstance(charged, int) and isinstance(correct, int) and 500 <= charged - correct <= 20_000:
                found.append((seats, months, charged, correct))
    return rng.choice(found) if found else None


@kit.setup
def overcharging_bug(ctx: SetupContext) -> Setup:
    """A seeded bug in quote() of acme/pricing/tiers.py that overcharged a customer's seat plan (`bug.*`).

    It stages an `ide.inject_bugs` task on the unit `quote` (hidden tests, visible tests, its bindings)
    and draws a plan the buggy code charges more for than the documented rules: the customer's order.
    Mutants that never overcharge by a refundable amount are drawn again.

    Params:
        depth: Call depth of the bug below quote() (0-2: quote, monthly_price, seat_price; default 0).

    Bindings: inject_bugs' (module_path, old_region, new_region, clean_text, ...) and `bug`: seats,
    months, charged, correct, excess (dollars; charged minus correct), charged_cents, correct_cents, and
    figures (what the clean price list states, by `code_figures`, and the seat and monthly price the buggy
    code gave the plan).
    """
    from saas_sim.domains.ide.setups_bugfix import inject_bugs
    from saas_sim.domains.ide.state import PROJECTION

    depth = int(ctx.params.get("depth", 0))
    clean = _namespace(ctx, PRICING_PATH)
    for _ in range(_BUG_TRIES):
        sub = replace(ctx, params={"bugs": 1, "depth": depth, "units": ["quote"], "report": "vague",
                                                    "visible_failing": True},
                           rng=random.Random(ctx.rng.getrandbits(64)))
        out = inject_bugs(sub)
        mutant = load_namespace(tree_files(PROJECTION.fold(ctx.state, out.events))[PRICING_PATH])
        plan = _overcharged_plan(ctx.rng, clean, mutant)
        if plan is not None:
            seats, months, charged, correct = plan
            # What the buggy code priced the plan's seats at is true of the charge, beside the clean figures.
            buggy = [(call(mutant[f], [seats]), per) for f, per in (("seat_price", ["seat", "month"]),
                                                                    ("monthly_price", ["month"])) if f in mutant]
            return Setup(bindings={**out.bindings, "bug": {
                "seats": seats, "months": months, "charged": dollars(charged), "correct": dollars(correct),
                "excess": dollars(charged - correct), "charged_cents": charged, "correct_cents": correct,
                "excess_less_cent": dollars(charged - correct - 1),
                "figures": code_figures(clean, *((c, per) for c, per in buggy if isinstance(c, int)))}},
                events=out.events)
    raise ScenarioError("no seeded bug in quote() overcharges a seat plan by a refundable amount")
