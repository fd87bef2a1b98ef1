"""Why a buyer declines a deal, and which of those causes a free text (a lost reason) names.

A lost reason is judged by the cause it names, never by a phrase: a cause is a
competitor (named: "chose Copperleaf" names that competitor, and only it), a
frozen budget, a cancelled project or a tool built in-house. `causes_named`
returns every cause a text names, so a reason that lists several ("competitor,
budget, cancelled") names causes the buyer never gave.
"""

from __future__ import annotations

import re
from typing import Final, Literal

from saas_sim.domains.crm.matching import fold

__all__ = ["CAUSES", "COMPETITORS", "Cause", "causes_named", "competitors_named", "states_cause"]

Cause = Literal["competitor", "budget", "cancelled", "in_house"]

CAUSES: Final[tuple[Cause, ...]] = ("competitor", "budget", "cancelled", "in_house")
"""Every decline cause, in a fixed order (setups draw from it by index)."""

COMPETITORS: Final[tuple[str, ...]] = (
    "Copperleaf", "Halcyon CRM", "Kestrel Software", "Northwind Systems", "Orbital Apps", "Vantage Suite",
)
"""Rival vendors a buyer may choose instead; none is a word of the other families."""

_FAMILIES: Final[dict[Cause, frozenset[str]]] = {
    "competitor": frozenset({"competitor", "competitors", "competition", "competing", "rival", "vendor",
                             "vendors"}),
    "budget": frozenset({"budget", "budgets", "funding", "funds", "money", "afford", "affordable", "price",
                         "pricing", "priced", "cost", "costs", "expensive", "spend", "spending", "frozen",
                         "freeze"}),
    "cancelled": frozenset({"cancel", "cancelled", "canceled", "cancellation", "shelved", "scrapped",
                            "abandoned", "reorganisation", "reorganization", "reorg", "deprioritised",
                            "deprioritized", "initiative"}),
    "in_house": frozenset({"inhouse", "internally", "internal", "homegrown", "build", "building", "built"}),
}
"""Folded words that name each cause; a competitor is also named by its own name."""

_WORD = re.compile(r"[^\W\d_]+")


def _words(text: str) -> set[str]:
    folded = fold(text).replace("-", "").replace("in house", "inhouse")
    return set(_WORD.findall(folded))


def competitors_named(text: str) -> set[str]:
    """Returns the rival vendors of `COMPETITORS` that `text` names (case and accents ignored)."""
    folded = f" {' '.join(_WORD.findall(fold(text)))} "
    return {c for c in COMPETITORS if f" {' '.join(_WORD.findall(fold(c)))} " in folded}


def causes_named(text: str) -> set[Cause]:
    """Returns every cause `text` names: by a word of its family, or (a competitor) by a rival's name."""
    words = _words(text)
    named: set[Cause] = {c for c in CAUSES if words & _FAMILIES[c]}
    if competitors_named(text):
        named.add("competitor")
    return named


_CLAUSE = re.compile(r"[,;.:!?()\n]+|\s(?:but|however|though)\s", re.IGNORECASE)
_CONTRAST = re.compile(r"\b(?:rather than|instead of|other than|except|not because|not due to|not for|not over)\b",
                       re.IGNORECASE)
"""Phrases after which a clause names what the cause was not ("budget frozen, not because of the price")."""
_DENIAL = re.compile(r"\b(?:not|never|neither|nor|without)\b|\w+n['\u2019]t\b", re.IGNORECASE)
"""Words that deny a choice: a rival after one of them was not chosen ("did not choose Copperleaf")."""
_DENIED_START = re.compile(r"^\s*(?:not|never)\b", re.IGNORECASE)


def _affirmed(text: str, rival: bool) -> list[str]:
    """The parts of `text`'s clauses that affirm something: each clause up to its first contrast (for a
    rival, also its first denial); a clause that opens with "not" or "never" affirms nothing.

    "No budget" and "budget not approved" still name a frozen budget (the negation is the cause), so
    only a rival, whose naming is a choice, is cut at a bare "not".
    """
    parts = []
    for clause in _CLAUSE.split(text):
        if _DENIED_START.match(clause):
            continue
        cut = _CONTRAST.search(clause)
        clause = clause[: cut.start()] if cut else clause
        if rival and (denial := _DENIAL.search(clause)):
            clause = clause[: denial.start()]
        parts.append(clause)
    return parts


def states_cause(text: str, cause: Cause, competitor: str | None) -> bool:
    """Returns whether `text` affirms `cause` (for a competitor: the very rival `competitor`, as chosen).

    A cause named only as what it was not ("Not Copperleaf", "budget frozen rather than cancelled" for
    the cancellation, "did not choose Halcyon CRM") is not stated; `causes_named` still lists it, so a
    reason cannot name a cause the buyer never gave even in denial.
    """
    if cause == "competitor":
        return competitor is not None and any(competitor in competitors_named(p) for p in _affirmed(text, True))
    return any(cause in causes_named(p) for p in _affirmed(text, False))
