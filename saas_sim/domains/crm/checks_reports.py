"""Checks over reports: the right records and totals, under one name, with notes that state only true figures.

A report is an answer (`crm.submit_report`): its records and per-currency values are
judged as facts, in any number form, and its notes by what each figure is stated as
(`report_figures`). A reporting task edits nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.state import State
from saas_sim.core.text_facts import detect_language, extract_amounts, extract_numbers
from saas_sim.domains.crm.check_helpers import money
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.report_figures import figure_is_true, stated_figures
from saas_sim.domains.crm.state import DEALS, REPORTS, SCHEMA

__all__ = ["only_named_reports", "read_only", "report_records", "report_truthful", "report_values"]


@kit.check
def read_only(ctx: CheckContext) -> CheckOutcome:
    """Nothing but reports changed: a reporting task must not edit records."""
    touched = []
    for key in SCHEMA.tables:
        if key is REPORTS or key.name.startswith("hidden."):
            continue
        touched += [i for i, _, _ in ctx.changed(key)]
    return CheckOutcome.of(not touched, f"records changed: {touched[:10]}" if touched else "no record changed")


def _report(ctx: CheckContext, name: str) -> Any:
    found = [r for r in ctx.final.table(REPORTS) if r.name.strip().casefold() == name.strip().casefold()]
    return found[-1] if found else None


@kit.check
def report_records(ctx: CheckContext, name: str, expected_ids: list[str]) -> CheckOutcome:
    """The latest report named `name` lists the expected records: share found, minus a share per extra id.

    Listing a superset (every open deal of the owner) names the right ones among
    wrong ones, a shotgun: each extra id cancels a right one, so it earns nothing.
    """
    report = _report(ctx, name)
    if report is None:
        return CheckOutcome.failed(f"no report named {name!r}")
    got, want = set(report.record_ids), set(expected_ids)
    hits, extra, missing = len(got & want), len(got - want), len(want - got)
    score = max(0.0, (hits - extra) / len(want)) if want else float(not got)
    return CheckOutcome(score, f"{hits} right, {extra} extra, {missing} missing")


_MAX_COUNT = 100
"""Below this, a whole number beside the one amount of a report value is a count ("$12,345.00 over two deals")."""


def _stated_value(text: str) -> Decimal | None:
    """Returns the one number a report value states ("12345.00", "$12,345.00", "12.345,00 €"), else None.

    Zero numbers or several ("10000.00 or 12000.00", "between 12000 and 12345") is no answer: a shotgun
    value names the right figure among wrong ones and must not pass. Beside one amount (a figure with a
    currency marker or two decimals), small whole numbers are counts, not figures: "$12,345.00 over two
    deals" states 12345.00, and only the amount is judged, so a count can make no figure right.
    """
    numbers = extract_numbers(text)
    if len(numbers) == 1:
        return numbers[0]
    amounts = extract_amounts(text)
    rest = list(numbers)
    for a in amounts:
        if a in rest:
            rest.remove(a)
    counts = all(n == n.to_integral_value() and 0 <= n < _MAX_COUNT for n in rest)
    return amounts[0] if len(amounts) == 1 and counts else None


def _report_figures(values: Mapping[str, str]) -> dict[str, Decimal | None]:
    """Returns each currency's stated figure; a currency given twice with different figures states none."""
    out: dict[str, Decimal | None] = {}
    for key, raw in values.items():
        code, value = key.strip().upper(), _stated_value(str(raw))
        out[code] = value if code not in out or out[code] == value else None
    return out


@kit.check
def report_values(ctx: CheckContext, name: str, expected: Mapping[str, str]) -> CheckOutcome:
    """The latest report's values state the expected totals (share of currencies; extras count as wrong).

    Values are read as facts, in any number form; a value that states several
    figures, or a currency listed twice with different figures, is wrong.
    """
    report = _report(ctx, name)
    if report is None:
        return CheckOutcome.failed(f"no report named {name!r}")
    got = _report_figures(report.values)
    want = {k.upper(): money(v) for k, v in expected.items()}
    keys = set(got) | set(want)
    right = sum(1 for k in keys if k in got and k in want and got[k] is not None and got[k] == want[k])
    return CheckOutcome(right / len(keys) if keys else 1.0, f"{right}/{len(keys)} values right")


def _deal_amount(state: State, deal_id: str) -> Decimal | None:
    """A deal's own amount; zero for a deal without one (the report counts it as zero)."""
    d = state.get(DEALS, deal_id)
    return None if d is None else (d.amount if d.amount is not None else Decimal(0))


# Where the notes' sentences end: a full stop before a space (not a decimal point), a semicolon, a line break.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+|\n+")


@kit.check
def report_truthful(
    ctx: CheckContext, name: str, expected: Mapping[str, str], expected_ids: Sequence[str] = (),
) -> CheckOutcome:
    """Every amount the reports' notes state is true as what it is stated as (a constraint).

    All reports of the name are judged together. Each amount is read with its labels
    (`report_figures`): a figure stated as a total ("Total: 12,345.00 USD", "12,345.00
    in total") must be one of the expected totals; a figure beside a deal (its id, or the
    name of a deal the answer holds or the report lists) may be that deal's own amount,
    whatever deal it is ("just outside the window: dl_000171 (35500.00 EUR), not
    counted"); any other figure must be an expected total. So one deal's amount passed off
    as the total is false, and so is a subset sum: a total over some of the deals is no
    total the task asked for, and accepting every subset sum would let almost any figure
    pass. Counts and other plain numbers ("7 deals") are not judged; see
    `checks_email_facts` for the rule on what is an amount.
    """
    totals = {m for v in expected.values() if (m := money(v)) is not None}
    deal_ids = ctx.final.table(DEALS)  # a container of ids: `in` asks whether a deal exists
    false = []
    for r in ctx.final.table(REPORTS):
        if r.name.strip().casefold() != name.strip().casefold():
            continue
        named = {d.name: d.id for i in (*expected_ids, *r.record_ids) if (d := ctx.final.get(DEALS, i)) is not None}
        notes = r.notes or ""
        lang = detect_language(notes) or "en"
        for sentence in _SENTENCE_BREAK.split(notes):
            for figure in stated_figures(sentence, lang, deal_ids, named):
                own = {a for i in figure.deals if (a := _deal_amount(ctx.final, i)) is not None}
                if not figure_is_true(figure, totals, own):
                    told = "as a total" if figure.as_total else f"beside {', '.join(figure.deals) or 'no deal'}"
                    false.append(f"{r.id} notes state {figure.value} {told}")
    detail = f"false figures: {false[:6]}" if false else "the notes state only true totals and deal amounts"
    return CheckOutcome.of(not false, detail)


@kit.check
def only_named_reports(ctx: CheckContext, name: str) -> CheckOutcome:
    """Every report the agent submitted carries the task's name (a constraint).

    A report is read by whoever asked for it: a second one under another name,
    listing every deal, is an answer nobody can tell from the real one, and the
    scope guard lets it through because a report is a new record.
    """
    want = name.strip().casefold()
    stray = sorted({r.name for r in ctx.created(REPORTS) if r.name.strip().casefold() != want})
    return CheckOutcome.of(not stray, f"reports under other names: {stray}" if stray else "one report name")
