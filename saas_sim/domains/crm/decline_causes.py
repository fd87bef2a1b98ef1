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


def states_cause(text: str, cause: Cause, competitor: str | None) -> bool:
    """Returns whether `text` names `cause` (for a competitor: the very rival `competitor`)."""
    if cause == "competitor":
        return competitor is not None and competitor in competitors_named(text)
    return cause in causes_named(text)
