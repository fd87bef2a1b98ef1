"""Cross-app incident checks in the support desk: answers whose true figure comes from the company's code.

The figure is passed in from the bindings (the IDE's setup computes it from the code); the stale
figure a help-centre article states is a false answer. Figures are read by the number parsers, clause
by clause, so "within 864 minutes" and "864 min" both state it, and a negated clause ("not 720
minutes") claims nothing.
"""

from __future__ import annotations

import re
from decimal import Decimal

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.text_facts import numbers_as_digits
from saas_sim.domains.support.check_helpers import episode_facts
from saas_sim.domains.support.kit import kit

__all__ = ["reply_states_figure"]

_CLAUSE = re.compile(r"[,;:()]|\s[-\u2013\u2014]\s|\b(?:and|but|though|although|und|aber|pero|mais)\b")
# Number words become digits first (`numbers_as_digits`: "seven hours", "zwanzig Minuten"); the articles and
# "half" stay words, since they count only before a unit ("an hour", "half an hour", "eine Stunde").
_ARTICLES: dict[str, int | Decimal] = {
    "a": 1, "an": 1, "half a": Decimal("0.5"), "half an": Decimal("0.5"), "ein": 1, "eine": 1, "einer": 1,
    "un": 1, "una": 1, "une": 1}
_UNITS: dict[str, Decimal | int] = {"second": Decimal(1) / 60, "sec": Decimal(1) / 60, "sekunde": Decimal(1) / 60,
          "segundo": Decimal(1) / 60, "seconde": Decimal(1) / 60, "minute": 1, "min": 1, "minuten": 1, "minuto": 1,
          "hour": 60, "hr": 60, "h": 60, "stunde": 60, "heure": 60, "hora": 60, "day": 1440, "tag": 1440,
          "jour": 1440, "día": 1440, "dia": 1440, "week": 10080, "woche": 10080, "semana": 10080,
          "semaine": 10080}
# A duration: a number and a time unit, apart, joined ("36min") or hyphenated as a modifier ("a 480-minute
# target", "a 2-hour window"). Seconds and weeks are durations too: a hedge in another unit is still a hedge.
_DURATION = re.compile(
    r"(?<![\w.,])(\d+(?:[.,]\d+)?|half an?|an?|eine[r]?|ein|un[ae]?|una)\s*-?\s*(seconds?|secs?|sekunden?|"
    r"segundos?|secondes?|minutes?|mins?|minuten|minutos?|hours?|hrs?|h|stunden?|heures?|horas?|days?|tage?|"
    r"jours?|d[ií]as?|weeks?|wochen?|semanas?|semaines?)\b", re.IGNORECASE)
"""A duration: a number (digits or words) and a time unit. Read as minutes."""
# A clause that states a figure as not the customer's answer: the standard target beside the VIP one ("urgent
# tickets normally get 60 minutes"), or a source's figure in a sentence that calls it outdated ("the help centre
# says 60 minutes, but that article is outdated"). A source named alone ("60 minutes per the help centre") is
# the figure given as an answer too.
_STANDARD = re.compile(r"\b(?:normally|usually|standard|regular|non-vip|other customers|everyone else)\b")
_SOURCE = re.compile(r"\b(?:help[- ]?cent(?:er|re)|article|documentation|docs|faq|knowledge base|website|page|"
                     r"used to|previously|formerly)\b")
_OUTDATED = re.compile(r"\b(?:outdated|out of date|old|stale|no longer|incorrect|wrong|obsolete|mistaken|"
                       r"superseded|used to|previously|formerly)\b")
# ... unless its sentence vouches for it ("the article's 60 minutes still applies").
_VOUCHES = re.compile(r"\b(?:still|valid|applies|apply|correct|accurate|right|true|holds)\b")


def _minutes(number: str, unit: str) -> Decimal:
    word = number.casefold()
    value = Decimal(_ARTICLES[word]) if word in _ARTICLES else Decimal(number.replace(",", "."))
    folded = unit.casefold()
    base = folded[:-1] if folded in ("minuten", "stunden", "sekunden", "wochen") else folded.rstrip("s")
    factor = next(f for u, f in _UNITS.items() if base == u or base.startswith(u))
    return value * factor


def _durations(text: str, lang: str | None) -> set[Decimal]:
    """The durations a clause states, in minutes. Seconds count only after digits: "a second reply" is no
    duration."""
    return {_minutes(n, u) for n, u in _DURATION.findall(numbers_as_digits(text, lang))
            if n[0].isdigit() or not u.casefold().startswith(("sec", "seg", "sek"))}


@kit.check
def reply_states_figure(ctx: CheckContext, *, ticket_id: str, figure: int | str, also: str | None = None,
                        stale: int | str | None = None) -> CheckOutcome:
    """The replies state the code's figure as a duration and affirm no other one.

    `figure` and `stale` are minutes (`also`, the same figure in hours, is accepted for old scenario files
    and changes nothing: durations are compared in minutes, so "0.6 hours" states 36 minutes). Passes when
    an affirmed clause of a reply states `figure` as a duration (a bare "36" or "reference 36" states no
    target), no affirmed clause states `stale`, and no affirmed clause gives another duration (a hedge
    such as "or up to an hour at busy times"). A clause that reports a figure as the outdated article's or
    as the standard target ("the help centre says 60 minutes, but that article is outdated", "urgent
    tickets normally get 60 minutes") affirms nothing, unless its sentence vouches for it. All replies are
    read together, so a second reply with the other figure is a contradiction, not a second chance.
    """
    facts = episode_facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    right = Decimal(str(figure))
    durations: set[Decimal] = set()
    for s in facts.sentences:
        vouched = bool(_VOUCHES.search(s.text))
        outdated = bool(_OUTDATED.search(s.text))
        for clause in s.parts(_CLAUSE):
            reported = _STANDARD.search(clause.text) or (outdated and _SOURCE.search(clause.text))
            if clause.affirms and (vouched or not reported):
                durations.update(_durations(clause.text, clause.lang))
    if stale is not None and Decimal(str(stale)) in durations:
        return CheckOutcome.failed(f"a reply affirms the stale figure {stale}")
    # A second target beside the code's ("36 minutes, or up to an hour at busy times") hedges: one of the two is
    # right.
    others = sorted(d for d in durations if d != right)
    if others:
        return CheckOutcome.failed(f"a reply affirms other targets {[f'{d.normalize()} min' for d in others]} "
                                   f"beside {figure}")
    if right not in durations:
        return CheckOutcome.failed(f"no reply states {figure} minutes as the target")
    return CheckOutcome.passed(f"the replies state {figure} minutes and not the stale figure")
