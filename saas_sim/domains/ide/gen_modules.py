"""The core modules of a generated `acme` project: billing, pricing, refund policy and SLA code.

Each `CoreModule` is a `string.Template` of real Python whose constants are drawn from the
world's seed, plus the `Unit`s (functions) tasks may target: the chain of calls from the
symptom down to the cause (for the call-depth knob) and a seeded generator of inputs that
hits every boundary (for hidden tests and function tasks).

The modules are self-contained (only the standard library): a task's reference values come
from the clean module alone, so nothing an agent edits elsewhere can move them. Every unit
returns plain JSON values (ints in cents or minutes, strings, booleans), so function tasks
compare results out of process with strict types. No unit loops without a bound.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CORE_MODULES", "CoreModule", "InputGen", "Unit", "draw_constants"]

InputGen = Callable[[random.Random, Mapping[str, Any], float], list[list[Any]]]
"""`gen(rng, namespace_of_the_clean_module, edge_share) -> [positional args per call]`."""


@dataclass(frozen=True)
class Unit:
    """A function tasks can target.

    Attributes:
        function: Its name in the module.
        chain: The functions from the symptom (`chain[0]`, this unit) down to its deepest
            callee in the module; a bug at depth d sits in `chain[d]`.
        inputs: Draws call arguments; about `edge_share` of them sit on a boundary.
    """

    function: str
    chain: tuple[str, ...]
    inputs: InputGen


@dataclass(frozen=True)
class CoreModule:
    """One core module: its path, its template and its units."""

    path: str
    template: str
    constants: Callable[[random.Random], dict[str, str]]
    units: tuple[Unit, ...]

    @property
    def module(self) -> str:
        """The dotted import name (`acme.billing.invoice`)."""
        return self.path.removesuffix(".py").replace("/", ".")

    def render(self, consts: Mapping[str, str]) -> str:
        """The module's text with its constants filled in."""
        return string.Template(self.template).substitute(consts)


def _edge(rng: random.Random, share: float) -> bool:
    return rng.random() < share


# --- acme/billing/invoice.py -------------------------------------------------------------

_INVOICE = '''"""Invoice totals and late fees.

All amounts are integer cents. (The old float code lives in acme/legacy; do not use it.)
"""

# sales tax in basis points, i.e. $tax_pct_stale% -- see FIN-212
TAX_RATE_BP = $tax_bp
LATE_FEE_BP = $late_bp  # per started 30-day period
GRACE_DAYS = $grace
LATE_FEE_CAP_CENTS = $cap
BULK_QTY = $bulk_qty
BULK_DISCOUNT_BP = $bulk_bp


def _round_half_up(numerator, denominator):
    # copy of acme.utils.money.round_half_up (circular import when billing imported utils)
    q, r = divmod(numerator, denominator)
    if 2 * r >= denominator:
        q += 1
    return q


def line_amount(qty, unit_cents):
    """Returns the amount of one invoice line, in cents.

    A line of at least BULK_QTY units gets BULK_DISCOUNT_BP basis points off its
    amount (the discount rounded half up to a cent).
    """
    amount = qty * unit_cents
    if qty >= BULK_QTY:
        amount = amount - _round_half_up(amount * BULK_DISCOUNT_BP, 10000)
    return amount


def subtotal(lines):
    """Sums the amounts of the lines ([qty, unit_cents] pairs); lines with qty <= 0 are skipped."""
    total_dollars = 0  # NB: cents, despite the name
    for qty, unit_cents in lines:
        if qty <= 0:
            continue
        total_dollars += line_amount(qty, unit_cents)
    return total_dollars


def invoice_total(lines, tax_exempt=False):
    """Returns the invoice total in cents: the subtotal plus tax.

    Tax is TAX_RATE_BP basis points of the subtotal, rounded half up to a cent;
    a tax-exempt customer pays the subtotal only.
    """
    sub = subtotal(lines)
    if tax_exempt:
        return sub
    return sub + _round_half_up(sub * TAX_RATE_BP, 10000)


def late_fee(balance_cents, days_late):
    """Returns the late fee in cents for an unpaid balance.

    No fee within GRACE_DAYS days or on a balance of zero or less. Past the grace
    period, each started 30-day period costs LATE_FEE_BP basis points of the balance
    (rounded half up to a cent); the fee never exceeds LATE_FEE_CAP_CENTS.
    """
    if balance_cents <= 0 or days_late <= GRACE_DAYS:
        return 0
    periods = (days_late - GRACE_DAYS + 29) // 30
    fee = _round_half_up(balance_cents * LATE_FEE_BP, 10000) * periods
    return min(fee, LATE_FEE_CAP_CENTS)
'''


def _invoice_constants(rng: random.Random) -> dict[str, str]:
    tax_bp = rng.choice([625, 700, 725, 800, 825, 875, 950])
    return {
        "tax_bp": str(tax_bp),
        "tax_pct_stale": f"{(tax_bp - 25) / 100:.2f}",  # a stale comment: the rate moved since
        "late_bp": str(rng.choice([100, 150, 200, 250])),
        "grace": str(rng.choice([5, 7, 10, 14, 15])),
        "cap": str(rng.choice([2500, 5000, 7500, 10000])),
        "bulk_qty": str(rng.choice([10, 12, 20, 25])),
        "bulk_bp": str(rng.choice([300, 500, 750, 1000])),
    }


def _lines(rng: random.Random, ns: Mapping[str, Any], share: float) -> list[list[int]]:
    out: list[list[int]] = []
    for _ in range(rng.randint(1, 4)):
        if _edge(rng, share):
            qty = rng.choice([ns["BULK_QTY"] - 1, ns["BULK_QTY"], ns["BULK_QTY"] + 1, 0, -1, 1])
        else:
            qty = rng.randint(1, 40)
        out.append([qty, rng.choice([99, 1250, 4999, rng.randint(1, 20000)])])
    return out


def _invoice_total_inputs(rng: random.Random, ns: Mapping[str, Any], share: float) -> list[list[Any]]:
    calls: list[list[Any]] = [[[[ns["BULK_QTY"], 1999], [1, 1001]], False], [[[3, 3333]], True]]
    for _ in range(22):
        calls.append([_lines(rng, ns, share), rng.random() < 0.2])
    return calls


def _late_fee_inputs(rng: random.Random, ns: Mapping[str, Any], share: float) -> list[list[Any]]:
    grace = ns["GRACE_DAYS"]
    calls: list[list[Any]] = [[100000, grace], [100000, grace + 1], [100000, grace + 30], [100000, grace + 31],
                              [0, grace + 40], [-500, grace + 40], [10**7, grace + 200]]
    for _ in range(18):
        days = rng.choice([grace - 1, grace, grace + 1, grace + 30, grace + 31]) if _edge(rng, share) \
            else rng.randint(0, 200)
        calls.append([rng.choice([rng.randint(1, 500000), 1, 49, 12345]), days])
    return calls


# --- acme/pricing/tiers.py ---------------------------------------------------------------

_TIERS = '''"""Seat pricing with volume tiers.

Prices are cents per seat per month.
"""

# (up to N seats, cents per seat) -- marketing changed these again, check the wiki
TIERS = (($t1, $p1), ($t2, $p2), ($t3, $p3))
ENTERPRISE_SEAT_CENTS = $p4
ANNUAL_DISCOUNT_BP = $annual_bp
MIN_SEATS = 1


def _round_half_up(numerator, denominator):
    q, r = divmod(numerator, denominator)
    if 2 * r >= denominator:
        q += 1
    return q


def seat_price(seats):
    """Returns the per-seat monthly price in cents for a plan of `seats` seats.

    The first tier whose limit is at least `seats` applies; above the last tier,
    ENTERPRISE_SEAT_CENTS.
    """
    for limit, cents in TIERS:
        if seats <= limit:
            return cents
    return ENTERPRISE_SEAT_CENTS


def monthly_price(seats):
    """Returns the monthly price in cents (all seats at the plan's seat price).

    Raises:
        ValueError: fewer than MIN_SEATS seats.
    """
    if seats < MIN_SEATS:
        raise ValueError("a plan needs at least one seat")
    return seats * seat_price(seats)


def quote(seats, months):
    """Returns the price in cents of `months` months of a `seats`-seat plan.

    A commitment of 12 months or more gets ANNUAL_DISCOUNT_BP basis points off the
    whole amount (rounded half up to a cent).
    """
    base = monthly_price(seats) * months
    if months >= 12:
        base -= _round_half_up(base * ANNUAL_DISCOUNT_BP, 10000)
    return base
'''


def _tiers_constants(rng: random.Random) -> dict[str, str]:
    t1 = rng.choice([5, 10, 15])
    t2 = t1 + rng.choice([20, 35, 40])
    t3 = t2 + rng.choice([100, 150, 200])
    p1 = rng.choice([4900, 5900, 6900])
    p2 = p1 - rng.choice([700, 1000, 1200])
    p3 = p2 - rng.choice([500, 800, 1000])
    p4 = p3 - rng.choice([300, 500, 700])
    return {"t1": str(t1), "t2": str(t2), "t3": str(t3), "p1": str(p1), "p2": str(p2), "p3": str(p3),
            "p4": str(p4), "annual_bp": str(rng.choice([1000, 1500, 1667, 2000]))}


def _quote_inputs(rng: random.Random, ns: Mapping[str, Any], share: float) -> list[list[Any]]:
    limits = [limit for limit, _ in ns["TIERS"]]
    calls: list[list[Any]] = [[limits[0], 1], [limits[0] + 1, 1], [limits[-1], 12], [limits[-1] + 1, 11], [1, 12]]
    for _ in range(20):
        if _edge(rng, share):
            seats = rng.choice(limits) + rng.choice([-1, 0, 1])
            months = rng.choice([11, 12, 13])
        else:
            seats, months = rng.randint(1, limits[-1] + 60), rng.randint(1, 36)
        calls.append([seats, months])
    return calls


# --- acme/refunds/policy.py --------------------------------------------------------------

_REFUNDS = '''"""Refund policy (see the support desk's policy page; keep the two in sync!)."""

REFUND_WINDOW_DAYS = $window
FULL_REFUND_DAYS = $full_days
RESTOCKING_FEE_BP = $restock_bp  # 10% -- TODO(legal): confirm for EU customers


def _round_half_up(numerator, denominator):
    q, r = divmod(numerator, denominator)
    if 2 * r >= denominator:
        q += 1
    return q


def refundable(days_since_purchase, final_sale):
    """Whether an order can be refunded at all.

    Final-sale orders never are; others are within 0..REFUND_WINDOW_DAYS days inclusive.
    """
    if final_sale:
        return False
    return 0 <= days_since_purchase <= REFUND_WINDOW_DAYS


def restocking_fee(paid_cents, days_since_purchase):
    """The restocking fee in cents: none within FULL_REFUND_DAYS days, else RESTOCKING_FEE_BP of the price."""
    if days_since_purchase <= FULL_REFUND_DAYS:
        return 0
    return _round_half_up(paid_cents * RESTOCKING_FEE_BP, 10000)


def refund_amount(paid_cents, days_since_purchase, final_sale=False):
    """Returns how many cents to refund: the price minus the restocking fee, or 0 if not refundable."""
    if not refundable(days_since_purchase, final_sale):
        return 0
    return paid_cents - restocking_fee(paid_cents, days_since_purchase)
'''


def _refund_constants(rng: random.Random) -> dict[str, str]:
    full = rng.choice([3, 5, 7, 10])
    return {"window": str(full + rng.choice([14, 20, 23, 50])), "full_days": str(full),
            "restock_bp": str(rng.choice([500, 1000, 1250, 1500]))}


def _refund_inputs(rng: random.Random, ns: Mapping[str, Any], share: float) -> list[list[Any]]:
    w, f = ns["REFUND_WINDOW_DAYS"], ns["FULL_REFUND_DAYS"]
    calls: list[list[Any]] = [[10000, f, False], [10000, f + 1, False], [10000, w, False], [10000, w + 1, False],
                              [10000, 0, False], [10000, -1, False], [10000, 2, True]]
    for _ in range(18):
        days = rng.choice([f - 1, f, f + 1, w - 1, w, w + 1]) if _edge(rng, share) else rng.randint(0, w + 30)
        calls.append([rng.choice([rng.randint(100, 300000), 999, 12345]), days, rng.random() < 0.15])
    return calls


# --- acme/sla/timers.py ------------------------------------------------------------------

_SLA = '''"""SLA timers for the support desk: first-response targets and breach states."""

# minutes to first response, per priority
TARGET_MINUTES = {"urgent": $urgent, "high": $high, "normal": $normal, "low": $low}
VIP_FACTOR_PCT = $vip_pct  # VIPs get a shorter target (integer minutes, rounded down)
WARN_MINUTES = $warn


def target_minutes(priority, vip):
    """The first-response target in minutes; a VIP's is VIP_FACTOR_PCT percent of it, rounded down."""
    base = TARGET_MINUTES[priority]
    if vip:
        base = base * VIP_FACTOR_PCT // 100
    return base


def minutes_left(priority, vip, elapsed_minutes):
    """Minutes left before the target (negative once breached)."""
    return target_minutes(priority, vip) - elapsed_minutes


def breach_status(priority, vip, elapsed_minutes):
    """Returns "breached" past the target, "at_risk" within WARN_MINUTES of it (inclusive), else "ok"."""
    left = minutes_left(priority, vip, elapsed_minutes)
    if left < 0:
        return "breached"
    if left <= WARN_MINUTES:
        return "at_risk"
    return "ok"
'''


def _sla_constants(rng: random.Random) -> dict[str, str]:
    urgent = rng.choice([30, 60, 90])
    return {"urgent": str(urgent), "high": str(urgent * rng.choice([3, 4])), "normal": str(rng.choice([480, 600, 720])),
            "low": str(rng.choice([1440, 2880])), "vip_pct": str(rng.choice([50, 60, 75])),
            "warn": str(rng.choice([10, 15, 20, 30]))}


def _sla_inputs(rng: random.Random, ns: Mapping[str, Any], share: float) -> list[list[Any]]:
    prios = sorted(ns["TARGET_MINUTES"])
    warn = ns["WARN_MINUTES"]
    calls: list[list[Any]] = []
    for prio in prios:
        target = ns["TARGET_MINUTES"][prio]
        calls += [[prio, False, target], [prio, False, target + 1], [prio, False, target - warn],
                  [prio, False, target - warn - 1]]
    for _ in range(16):
        prio, vip = rng.choice(prios), rng.random() < 0.3
        target = ns["target_minutes"](prio, vip)
        elapsed = rng.choice([target, target + 1, target - warn, target - warn - 1]) if _edge(rng, share) \
            else rng.randint(0, 3000)
        calls.append([prio, vip, elapsed])
    return calls


# --- acme/utils/money.py -----------------------------------------------------------------

_MONEY = '''"""Money helpers shared by billing and the reports. Amounts are integer cents."""

CURRENCY_SYMBOL = "$currency"


def round_half_up(numerator, denominator):
    """Divides two non-negative ints, rounding half up."""
    q, r = divmod(numerator, denominator)
    if 2 * r >= denominator:
        q += 1
    return q


def format_cents(cents):
    """Formats cents as money: "-$$1,234.05" for -123405 (thousands separated by commas)."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{CURRENCY_SYMBOL}{cents // 100:,}.{cents % 100:02d}"


def parse_cents(text):
    """Parses "$$1,234.5", "1234.50" or "-$$3" into cents; at most two decimals.

    Raises:
        ValueError: anything else (empty text, letters, three decimals).
    """
    s = text.strip().replace(",", "")
    negative = s.startswith("-")
    if negative:
        s = s[1:]
    s = s.removeprefix(CURRENCY_SYMBOL)
    whole, _, frac = s.partition(".")
    if not whole.isdigit() or len(frac) > 2 or (frac and not frac.isdigit()):
        raise ValueError(f"not an amount: {text!r}")
    cents = int(whole) * 100 + int(frac.ljust(2, "0") or "0")
    return -cents if negative else cents
'''


def _money_constants(rng: random.Random) -> dict[str, str]:
    del rng  # one currency for now; the company bills in dollars
    return {"currency": "$"}


def _format_inputs(rng: random.Random, ns: Mapping[str, Any], share: float) -> list[list[Any]]:
    calls: list[list[Any]] = [[0], [5], [-5], [100], [99999], [100000], [-123405], [10**9]]
    for _ in range(16):
        calls.append([rng.choice([rng.randint(-10**8, 10**8), rng.randint(0, 999)]) if _edge(rng, share)
                      else rng.randint(-10**7, 10**7)])
    return calls


CORE_MODULES: tuple[CoreModule, ...] = (
    CoreModule("acme/billing/invoice.py", _INVOICE, _invoice_constants, (
        Unit("invoice_total", ("invoice_total", "subtotal", "line_amount"), _invoice_total_inputs),
        Unit("late_fee", ("late_fee",), _late_fee_inputs),
    )),
    CoreModule("acme/pricing/tiers.py", _TIERS, _tiers_constants, (
        Unit("quote", ("quote", "monthly_price", "seat_price"), _quote_inputs),
    )),
    CoreModule("acme/refunds/policy.py", _REFUNDS, _refund_constants, (
        Unit("refund_amount", ("refund_amount", "restocking_fee"), _refund_inputs),
    )),
    CoreModule("acme/sla/timers.py", _SLA, _sla_constants, (
        Unit("breach_status", ("breach_status", "minutes_left", "target_minutes"), _sla_inputs),
    )),
    CoreModule("acme/utils/money.py", _MONEY, _money_constants, (
        Unit("format_cents", ("format_cents",), _format_inputs),
    )),
)
"""The core modules, in path order."""


def draw_constants(rng: random.Random) -> dict[str, dict[str, str]]:
    """Draws every core module's constants: module path -> placeholder -> text."""
    return {m.path: m.constants(rng) for m in CORE_MODULES}
