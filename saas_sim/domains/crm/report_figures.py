"""What each amount of a report's notes is stated as: a total, or the figure of the deals it stands beside.

A report's notes may break the answer down ("dl_000171: 35,500.00 EUR") or sum it up
("12,345.00 USD in total"). A figure is only true as what it is stated as, so the
reader ties each amount to its labels before a check judges it (`checks_reports`):

* A **deal reference** is a deal's id as the tools write it ("dl_000171", any case)
  or, for the deals the caller names, the deal's name ("Acme Corp - Renewal 2026").
  Each reference is told of the amount nearest to it in its sentence, before or after
  it ("dl_000171 (35,500.00 EUR)", "35,500.00 EUR for dl_000171"); at equal distance,
  of both ("100.00 (dl_1) 200.00 (dl_2)").
* A **total cue** ("total", "in total", "sum", "overall", "combined", "altogether",
  "comes to", "insgesamt", "au total", "en total", ...) is, the same way, told of the
  amount nearest to it, unless a deal reference stands between them: that amount is
  stated as the total. A cue whose **scope** leads to the amount states it as the total
  whatever deals the scope names: a scope phrase after the cue that ends in an introducer
  right before the amount ("Total for dl_1 and others: 35,500.00", "The total across
  dl_1, dl_2 and dl_3 comes to ...", "Total (dl_1, dl_2) = ...", "Total for the window,
  dl_1 included, is ..."), or one between the amount and a cue that ends it ("35,500.00
  for dl_1 and others in total"). The deals it names are what the total covers, not the
  figure's own. A scope that is one deal alone ("Total for dl_000171: ...") is that
  deal's own total; a scope per deal ("Total per deal: ...") states no total; a figure
  followed by "+" is a term of a sum, not the sum. A cue right after a deal reference ("dl_000171 total",
  "dl_000171's total") is that deal's own and states no total, unless the reference
  ends a list ("dl_000170 and dl_000171 total ...").
* A deal reference is **tight** to its amount when only punctuation stands between them
  ("dl_000171: 35,500.00", "dl_000171 (35,500.00)"): the figure is that deal's alone.

Distances are counted in characters of the text with number words written as digits.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Container, Mapping
from dataclasses import dataclass
from decimal import Decimal

from saas_sim.core.text_facts import AmountMention, located_amounts

__all__ = ["StatedFigure", "figure_is_true", "stated_figures"]

_RECORD_ID = re.compile(r"\b[a-z]{2,5}_\d+\b", re.IGNORECASE)
_TOTAL_CUE = re.compile(
    r"\b(?:grand total|totals?|totall?ing|sum|summed|sums to|overall|combined|altogether|in all|all told|"
    r"aggregate|adds? up to|comes? to|amounts? to|insgesamt|gesamt\w*|summe|au total|en tout|somme|en total|suma|"
    r"totale|in tutto|totaal|soma)\b",
    re.IGNORECASE,
)
# What may join a deal reference to a cue that is its own ("dl_000171 total", "dl_000171's total: ...").
_OWN_CUE_GAP = re.compile(r"(?:['\u2019]s)?[\s:,\-\u2013\u2014]{0,3}")
# What joins deal references into a list ("dl_1, dl_2 and dl_3"): a cue after the last one is the list's total.
_LIST_GAP = re.compile(r"\s*(?:,|&|\+|/|,?\s*(?:and|und|et|y|e|en)\b)\s*", re.IGNORECASE)
# What may stand between a deal reference and a figure for the figure to be that deal's alone.
_TIGHT_GAP = re.compile(r"[\s:(),=@\-\u2013\u2014]{0,4}")


@dataclass(frozen=True, slots=True)
class StatedFigure:
    """One amount of a text and what it is stated as.

    Attributes:
        value: The amount.
        as_total: A total cue is told of it: it claims to be a total.
        deals: The ids of the deals whose references are told of it, in text order.
        tight: Exactly one deal is told of it, with only punctuation between: it is that deal's own figure.
    """

    value: Decimal
    as_total: bool
    deals: tuple[str, ...]
    tight: bool


_SCOPE_PREP = (r"(?:for|of|across|over|from|covering|including|excluding|without|except|among|within|during|"
               r"on|in|f\u00fcr|pour|para|per)")
_PREP_WORD = re.compile(rf"\b{_SCOPE_PREP}\b", re.IGNORECASE)
# The start of a cue's scope: a preposition or a bracket ("total for ...", "total (...)"), not a comma: "Overall,
# dl_1 stands at 35,500.00" is a sentence adverb before a clause of the deal's own.
_SCOPE_START = re.compile(rf"\s*(?:\(|{_SCOPE_PREP}\b)", re.IGNORECASE)
# A scope per deal breaks a total down ("Total per deal: ...", "totals by deal").
_DISTRIBUTIVE = re.compile(r"\s*(?:per|by|each|for each|of each|pro|je)\b", re.IGNORECASE)
# What introduces the figure right after a scope: a colon, an equals sign, a dash or a copula.
_INTRODUCER = re.compile(
    r"(?:[:=]|[-\u2013\u2014]|\b(?:is|was|are|were|comes? to|came to|amounts? to|equals?|stands? at|ist|est|es))"
    r"\s*(?:about|approximately|roughly|around|~)?\s*$", re.IGNORECASE)
# A scope is one phrase: a sentence break or a subordinate clause ends it.
_SCOPE_BREAK = re.compile(r"[;!?]|\.\s|\b(?:which|while|whereas|but|whose)\b", re.IGNORECASE)
# Words that may stand beside the one deal of a scope that is that deal alone ("total for the dl_1 deal only").
_ALONE = frozenset({"the", "deal", "only", "alone", "itself", "its", "own", "is", "was", "comes", "to", "at",
                    "amounts", "equals", "stands"})
# A figure followed by "+" (after its own bracketed label) is a term of a sum the text goes on to state.
_TERM = re.compile(r"\s*(?:\([^()]{0,40}\)\s*)?\+")
_WORDS = re.compile(r"[^\W\d_]+")
# A cue that ends a scope after the figure ("35,500.00 for dl_1 and others in total").
_TRAILING_SCOPE = re.compile(rf"\s*{_SCOPE_PREP}\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Label:
    start: int
    end: int
    deal_id: str | None  # None: a total cue


def _labels(text: str, deal_ids: Container[str], names: Mapping[str, str]) -> list[_Label]:
    refs = [_Label(m.start(), m.end(), m.group().lower()) for m in _RECORD_ID.finditer(text)
            if m.group().lower() in deal_ids]
    for name, deal_id in names.items():
        refs += [_Label(m.start(), m.end(), deal_id)
                 for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE)]
    listed = {r for r in refs if any(o.end <= r.start and _LIST_GAP.fullmatch(text[o.end:r.start]) for o in refs)}
    cues = [_Label(m.start(), m.end(), None) for m in _TOTAL_CUE.finditer(text)
            if not any(r not in listed and r.end <= m.start() and _OWN_CUE_GAP.fullmatch(text[r.end:m.start()])
                       for r in refs)]
    return sorted(refs + cues, key=lambda x: (x.start, x.end))


def _nearest(label: _Label, amounts: list[AmountMention]) -> list[int]:
    """Indexes of the amounts `label` is told of: the nearest before or after it, both at equal distance."""
    before = [i for i, a in enumerate(amounts) if a.end <= label.start]
    after = [i for i, a in enumerate(amounts) if a.start >= label.end]
    gaps: list[tuple[int, int]] = []
    if before:
        gaps.append((label.start - amounts[before[-1]].end, before[-1]))
    if after:
        gaps.append((amounts[after[0]].start - label.end, after[0]))
    if not gaps:
        return []
    best = min(g for g, _ in gaps)
    return [i for g, i in gaps if g == best]


def _scope_refs(text: str, lo: int, hi: int, labels: list[_Label]) -> list[_Label] | None:
    """The deal references of a cue's scope text[lo:hi], or None when it is no scope (a break in it), or the
    scope is one deal alone (its own total: the plain rules read it)."""
    gap = text[lo:hi]
    if _SCOPE_BREAK.search(gap):
        return None
    refs = [x for x in labels if x.deal_id is not None and lo <= x.start and x.end <= hi]
    if len({x.deal_id for x in refs}) == 1:
        rest = "".join(ch if not any(x.start <= lo + i < x.end for x in refs) else " " for i, ch in enumerate(gap))
        words = {w.lower() for w in _WORDS.findall(rest)} - {m.lower() for m in _PREP_WORD.findall(rest)}
        if words <= _ALONE:
            return None
    return refs


def _scoped(
    text: str, cue: _Label, amounts: list[AmountMention], labels: list[_Label],
) -> tuple[int, list[_Label]] | None:
    """The amount a cue's scope leads to and the deal references of that scope, or None (see the module rules)."""
    after = next((i for i, a in enumerate(amounts) if a.start >= cue.end), None)
    if after is not None:
        gap = text[cue.end:amounts[after].start]
        if (_SCOPE_START.match(gap) and not _DISTRIBUTIVE.match(gap) and _INTRODUCER.search(gap)
                and not _TERM.match(text[amounts[after].end:])
                and (refs := _scope_refs(text, cue.end, amounts[after].start, labels)) is not None):
            return after, refs
    before = [i for i, a in enumerate(amounts) if a.end <= cue.start]
    if before:
        gap = text[amounts[before[-1]].end:cue.start]
        if (_TRAILING_SCOPE.match(gap) and not _DISTRIBUTIVE.match(gap)
                and (refs := _scope_refs(text, amounts[before[-1]].end, cue.start, labels)) is not None):
            return before[-1], refs
    return None


def stated_figures(
    sentence: str, lang: str | None, deal_ids: Container[str], names: Mapping[str, str] | None = None,
) -> list[StatedFigure]:
    """Returns the amounts one sentence states, each with what it is stated as (see the module rules).

    Args:
        sentence: One sentence of the notes.
        lang: Its language, for the number format.
        deal_ids: The ids (lowercase) of the deals that exist: another id is no deal reference.
        names: Deal names (as written in the CRM) that count as references, to the deal id.
    """
    text, amounts = located_amounts(sentence, lang)
    told: list[list[_Label]] = [[] for _ in amounts]
    labels = _labels(text, deal_ids, names or {})
    scoped = {c: s for c in labels if c.deal_id is None and (s := _scoped(text, c, amounts, labels)) is not None}
    # The deals of a total's scope are what it covers: they vouch for no figure of their own there.
    covering = {(r, i) for i, refs in scoped.values() for r in refs}
    for label in labels:
        if label in scoped:
            told[scoped[label][0]].append(label)
            continue
        for i in _nearest(label, amounts):
            if (label, i) in covering:
                continue
            lo, hi = min(label.end, amounts[i].end), max(label.start, amounts[i].start)
            if label.deal_id is None and any(x.deal_id and lo <= x.start and x.end <= hi for x in labels):
                continue  # "Overall, dl_000171 is at 35,500.00": the deal stands between, the figure is its own
            told[i].append(label)
    out = []
    for amount, labels in zip(amounts, told, strict=True):
        refs = [x for x in labels if x.deal_id is not None]
        deals = tuple(dict.fromkeys(x.deal_id for x in refs if x.deal_id is not None))
        tight = len(deals) == 1 and any(
            _TIGHT_GAP.fullmatch(text[x.end:amount.start] if x.end <= amount.start else text[amount.end:x.start])
            for x in refs)
        out.append(StatedFigure(amount.value, any(x.deal_id is None for x in labels), deals, tight))
    return out


def figure_is_true(figure: StatedFigure, totals: Collection[Decimal], own: Collection[Decimal]) -> bool:
    """Whether a figure is true as what it is stated as.

    A figure stated as a total must be a true total. Otherwise it may be the own amount
    of a deal told of it (`own`), or a true total unless it is tight to one deal: a
    per-deal figure must stand beside its deal, and a deal's figure must be its own.

    Args:
        figure: The figure, from `stated_figures`.
        totals: The true totals.
        own: The amounts of the deals in `figure.deals`.
    """
    if figure.as_total:
        return figure.value in totals
    return figure.value in own or (figure.value in totals and not figure.tight)
