"""Measured rates of each kind of mess in a CRM world (`saas-sim data-report PROFILE --seed N`).

Every rate is measured from the state (and its ground truth), never read back
from the profile's knobs, so the report shows what a world really contains.
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal
from typing import Any

from saas_sim.core.state import State
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.matching import norm_company
from saas_sim.domains.crm.state import (
    ACCOUNT_TRUTH,
    ACCOUNTS,
    COMPANY_TRUTH,
    CONTACTS,
    DEALS,
    LEAD_TRUTH,
    LEADS,
    LINE_ITEMS,
    PERSON_TRUTH,
)

__all__ = ["PHONE_PATTERNS", "data_report", "phone_format"]

PHONE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("e164", re.compile(r"^\+\d{8,15}$")),
    ("intl_spaced", re.compile(r"^\+\d{1,3} \d{3} \d{3} \d{4}$")),
    ("parens", re.compile(r"^\(\d{3}\) \d{3}-\d{4}$")),
    ("dotted", re.compile(r"^\d{3}\.\d{3}\.\d{4}$")),
    ("dashed", re.compile(r"^\d{3}-\d{3}-\d{4}$")),
    ("digits", re.compile(r"^\d{10}$")),
    ("ext", re.compile(r"^\+\d{1,3} \d{3}-\d{3}-\d{4} ext\. \d+$")),
)
"""Phone styles the report recognises, in the order they are tried."""


def phone_format(phone: str) -> str:
    """Returns the name of a phone number's style, or "other"."""
    for name, pattern in PHONE_PATTERNS:
        if pattern.match(phone):
            return name
    return "other"


def _rate(n: int, d: int) -> float:
    return round(n / d, 4) if d else 0.0


def data_report(state: State) -> dict[str, Any]:
    """Returns the measured mess of a world: rates in [0, 1] plus counts.

    Keys: counts; near_duplicate_rate (contacts that are a second record of a
    person); false_friend_rate; missing_optional_rate (empty optional cells of
    contacts and accounts); phone_formats (count per style) and phone_format_count;
    countries (one Faker locale each); non_ascii_name_rate; messy_company_name_rate (stray whitespace
    or odd casing); stale_contact_rate (old title or departed); lead_conflict_rate
    (leads that are an existing contact with different data); lead_existing_account_rate;
    stale_deal_amount_rate (open deals whose amount differs from their line items);
    renamed_account_rate (accounts whose company went by another name before) and
    duplicated_company_rate (real companies filed as more than one account), from the hidden truth.
    """
    contacts = list(state.table(CONTACTS))
    accounts = list(state.table(ACCOUNTS))
    truth = state.table(PERSON_TRUTH)
    n = len(contacts)
    dups = sum(1 for c in contacts if (t := truth.get(c.id)) is not None and t.variant_of)
    ff = sum(1 for c in contacts if (t := truth.get(c.id)) is not None and t.false_friend_of)
    stale = sum(1 for c in contacts if (t := truth.get(c.id)) is not None and (t.departed or t.current_title))
    contact_cells = [(c.phone, c.title) for c in contacts]
    account_cells = [(a.domain, a.industry, a.employees, a.city, a.phone) for a in accounts]
    cells = [v for row in contact_cells for v in row] + [v for row in account_cells for v in row]
    missing = sum(1 for v in cells if v is None)
    phones = [c.phone for c in contacts if c.phone] + [a.phone for a in accounts if a.phone]
    formats = Counter(phone_format(p) for p in phones)
    non_ascii = sum(1 for c in contacts if not (c.first_name + c.last_name).isascii())
    messy = 0
    for a in accounts:
        at = state.get(ACCOUNT_TRUTH, a.id)
        canonical = at.canonical_name if at else a.name
        if a.name != canonical and norm_company(a.name) == norm_company(canonical):
            messy += 1
    leads = list(state.table(LEADS))
    lead_truth = state.table(LEAD_TRUTH)
    conflicts = sum(
        1 for ld in leads if (lt := lead_truth.get(ld.id)) is not None and lt.contact_id is not None and lt.conflicts
    )
    at_accounts = sum(1 for ld in leads if (lt2 := lead_truth.get(ld.id)) is not None and lt2.account_id is not None)
    items = state.table(LINE_ITEMS)
    open_with_items = [d for d in state.table(DEALS)
                       if d.line_item_ids and d.stage not in ("closed_won", "closed_lost") and d.amount is not None]
    drifted = 0
    for d in open_with_items:
        lines = [items.get(x) for x in d.line_item_ids]
        total = sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in lines if i), Decimal(0))
        if total != d.amount:
            drifted += 1
    companies = state.table(COMPANY_TRUTH).values()
    keys = Counter(t.company_key for t in companies)
    return {
        "counts": {"accounts": len(accounts), "contacts": n, "leads": len(leads),
                   "deals": len(state.table(DEALS))},
        "near_duplicate_rate": _rate(dups, n),
        "false_friend_rate": _rate(ff, n),
        "missing_optional_rate": _rate(missing, len(cells)),
        "phone_formats": dict(sorted(formats.items())),
        "phone_format_count": sum(1 for k in formats if k != "other"),
        "countries": sorted({a.country for a in accounts}),
        "non_ascii_name_rate": _rate(non_ascii, n),
        "messy_company_name_rate": _rate(messy, len(accounts)),
        "stale_contact_rate": _rate(stale, n),
        "lead_conflict_rate": _rate(conflicts, len(leads)),
        "lead_existing_account_rate": _rate(at_accounts, len(leads)),
        "stale_deal_amount_rate": _rate(drifted, len(open_with_items)),
        "renamed_account_rate": _rate(sum(1 for t in companies if t.former_names), len(accounts)),
        "duplicated_company_rate": _rate(sum(1 for k in keys.values() if k > 1),
                                         len(accounts) - sum(1 for t in companies if t.duplicate_of)),
    }
