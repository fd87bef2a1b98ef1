"""Why a buyer declines a deal, and which of those causes a free text (a lost reason) names.

A lost reason is judged by the cause it names, never by a phrase: a cause is a
competitor (named: "chose Copperleaf" or "went with Orbital" names that
competitor, and only it), a frozen budget, a cancelled project or a tool built
in-house. `causes_named` returns every cause a text names, in any sense, so a
reason that lists several ("competitor, budget, cancelled") names causes the
buyer never gave. `states_cause` asks more: that the text affirms the cause as
the decline, with its polarity ("Budget frozen", "No budget", "Project killed
in a restructuring", "developing their own solution"), and nowhere affirms the
opposite ("Budget approved", "Initiative still running"). A cause named only in
denial ("not a price issue", "no competitor involved") is named by neither.
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

_GENERIC: Final = frozenset({"app", "apps", "crm", "software", "systems", "system", "suite", "cloud", "labs",
                             "solutions", "technologies", "tech", "group", "inc", "the"})
"""Words of a vendor's name that name no vendor alone ("a CRM", "software")."""

_FAMILIES: Final[dict[Cause, frozenset[str]]] = {
    "competitor": frozenset({"competitor", "competitors", "competition", "competing", "rival", "vendor",
                             "vendors"}),
    "budget": frozenset({"budget", "budgets", "funding", "funds", "money", "afford", "affordable", "unaffordable",
                         "price", "pricing", "priced", "cost", "costs", "costly", "expensive", "pricey", "spend",
                         "spending", "frozen", "freeze"}),
    "cancelled": frozenset({"cancel", "cancelled", "canceled", "cancellation", "shelved", "scrapped", "axed",
                            "abandoned", "discontinued", "reorganisation", "reorganization", "reorg", "restructuring",
                            "restructured", "deprioritised", "deprioritized", "initiative"}),
    "in_house": frozenset({"inhouse", "homegrown", "build", "building", "built"}),
}
"""Folded words that name each cause in any sense; a competitor is also named by its own name. "Internal" and
"internally" alone name no tool built in-house ("cancelled internally", "an internal reorganisation"); with what
was built they do (`_DECLINE`: "an internal tool", "developed internally")."""

_PEOPLE = r"(?:lead|leads|manager|managers|team|teams|owner|owners|holder|holders|sponsor|sponsors|contact|champion)"
_GAP = rf"(?! {_PEOPLE}\b)(?: (?!(?:not|never|no)\b)\w+){{0,4}}"
"""Up to four words, none a negation, between a cause's subject and its state ("budget for the project was
frozen"); a negation there is the state's own ("budget was not approved"). A person after the subject makes
the state theirs, not the cause's ("project lead stopped answering")."""

_BUDGET = r"(?:budgets?|funding|funds|money|spend|spending|capex|opex)"
_PROJECT = (r"(?:projects?|initiatives?|programs?|programmes?|rollout|efforts?|plans?|purchase|evaluation|"
            r"transformation|migration|implementation)")
_DENIAL = r"(?:not|never|no longer)(?: \w+)?"
"""A denial just before a state: "not cancelled", "was never shelved", "no longer building"."""

_DECLINE: Final[dict[Cause, re.Pattern[str]]] = {
    "budget": re.compile(
        rf"\b{_BUDGET}{_GAP} (?:frozen|froze|freeze|cut|cuts|slashed|reduced|pulled|withdrawn|exhausted|gone|spent|"
        r"used up|tight|unavailable|lacking|insufficient|denied|rejected|blocked|on hold|constrained|dried up|"
        r"ran out|run out|(?:not|never)(?: been)? (?:approved|available|allocated|granted|secured|signed off|there))\b"
        r"|\b(?:frozen|freezing|cut|cutting|slashed|reduced|limited|tight|lost|pulled|withdrew|insufficient|lack of|"
        r"lacking|no|not enough|without|zero|out of|short of|ran out of|run out of|no more|no remaining)(?: \w+)? "
        rf"{_BUDGET}\b(?! (?:issues?|problems?|concerns?|questions?)\b)"
        r"|\b(?:too (?:expensive|costly|pricey)|unaffordable|(?:can not|cannot|could not|unable to) afford|"
        r"not affordable|over budget|(?:price|pricing|cost|costs)(?: \w+)? too high|cost cutting|cost cuts|"
        r"(?:budget|spending) freeze)\b"
        r"|(?<!no )\b(?:budget|budgets|funding|pricing|price|cost|costs) (?:issues?|problems?|constraints?|"
        r"limitations?|concerns?|reasons?)\b"
        r"|^(?:(?:lost|reason|lost reason|lost on|lost over|due to|because of|over)(?: the)? )?"
        r"(?:budget|budgets|funding|pricing|price|cost|costs)$"),
    "cancelled": re.compile(
        rf"\b{_PROJECT}{_GAP} (?:killed|dropped|axed|ended|terminated|stopped|halted|paused|canned|binned|pulled|"
        r"called off|wound down|shut down|put on hold|on hold|put on ice|not going ahead|will not go ahead|"
        r"did not go ahead|never went ahead|not proceeding|no longer (?:going ahead|happening|proceeding|running|"
        r"a priority))\b"
        r"|\b(?:cancel|cancelled|canceled|cancellation|shelved|scrapped|abandoned|axed|discontinued|descoped|"
        r"deprioriti[sz]ed|deprioriti[sz]ation|de prioriti[sz]ed|reorg|reorgani[sz]ation|reorgani[sz]ed|"
        r"restructuring|restructured|restructure|called off|no longer a priority)\b"),
    "in_house": re.compile(
        r"\b(?:inhouse|homegrown|diy|build|building|built|builds)\b"
        r"|\b(?:develop\w*|made|making|creat\w*|cod\w*|writ\w*|solv\w*|handl\w*)(?: \w+){0,2} internally\b"
        r"|\binternally (?:developed|made|created|written|coded)\b"
        r"|\b(?:develop|developing|developed|develops|create|creating|created|write|writing|code|"
        r"coding)(?: \w+){0,3} (?:(?:their|its|our|his|her) own|themselves|itself|from scratch)\b"
        r"|\b(?:own|internal|bespoke|proprietary)(?: \w+)? (?:tool|tools|solution|system|platform|software|"
        r"app|application|crm|version|product|stack)\b"),
}
"""Phrases that state each cause as the decline (the subject with a state that means it); a clause that is
only the budget's label ("Budget", "Lost on price") states it as a lost-reason picklist does."""

_OPPOSITE: Final[dict[Cause, re.Pattern[str]]] = {
    "budget": re.compile(
        rf"\b{_BUDGET}{_GAP} (?:approved|available|secured|confirmed|allocated|granted|in place|fine|ok|okay|"
        r"increased|released|unfrozen|signed off|not an issue|not the issue|not a problem|no issue|no problem)\b"),
    "cancelled": re.compile(
        rf"\b{_PROJECT}{_GAP} (?:still \w+|going ahead|went ahead|goes ahead|go ahead|continuing|continues|"
        r"continued|proceeding|proceeds|approved|alive|on track|live|active|underway|under way|running|ongoing|"
        r"funded)\b"),
    "in_house": re.compile(r"\b(?:not|never|no longer)(?: \w+)? (?:build|building|built|develop|developing)\b"),
}
"""Phrases that affirm the opposite of each cause: the budget is there, the project goes on, nothing is built."""

_CONTRACTION = re.compile(r"\b(\w+?)n't\b")
_CONTRACTED: Final = {"wo": "will", "ca": "can", "sha": "shall"}
_WORD = re.compile(r"[^\W\d_]+")


def _normal(text: str) -> str:
    """`text` folded to single-spaced words, "n't" as " not" and "in-house"/"home-grown" as one word."""
    folded = fold(text).replace("\u2019", "'")
    folded = _CONTRACTION.sub(lambda m: f"{_CONTRACTED.get(m.group(1), m.group(1))} not", folded)
    words = " ".join(_WORD.findall(folded.replace("-", " ")))
    return words.replace("in house", "inhouse").replace("home grown", "homegrown")


def _tokens(name: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(fold(name)))


def _distinctive(rival: str) -> frozenset[str]:
    """The words of `rival`'s name that name it alone: no generic word, no word of another rival's name."""
    others = {t for c in COMPETITORS if c != rival for t in _tokens(c)}
    return frozenset(t for t in _tokens(rival) if t not in _GENERIC and t not in others)


_DISTINCTIVE: Final = {c: _distinctive(c) for c in COMPETITORS}
_RIVAL_WORDS: Final = frozenset().union(*_DISTINCTIVE.values())

_COINED: Final = frozenset({"copperleaf", "northwind"})
"""Distinctive words of rivals' names that are no everyday word: wherever they stand, they name the rival.

Every other distinctive word ("vantage", "halcyon", "kestrel", "orbital", or a future "summit" or "apex") is
taken for an everyday word, which names its rival only where the text uses it as a name (`_as_name`): "from
our vantage point" names no vendor. A rival added to `COMPETITORS` is so strict until its word is listed here."""

_CHOICE: Final = tuple(tuple(p.split()) for p in (
    "went with", "go with", "goes with", "going with", "gone with", "stay with", "stayed with", "staying with",
    "chose", "choose", "chooses", "chosen", "choosing", "picked", "pick", "selected", "select", "preferred",
    "prefer", "prefers", "signed with", "switched to", "switching to", "switch to", "moved to", "moving to",
    "migrated to", "migrating to", "lost to", "lost out to", "losing to", "opted for", "in favour of",
    "in favor of", "bought", "buying", "purchased", "renewed with", "sticking with", "stuck with", "competitor",
    "competitors", "rival", "vendor", "entschieden fur", "choisi", "eligieron",
))
"""Word runs after which a word is the thing chosen ("went with Vantage", "lost to the rival halcyon")."""

_NAME_CLAUSE = re.compile(r"[^,;.:!?()\n]+")
"""A clause for `_as_name`: text between punctuation ("Competitor: vantage" has the clause " vantage")."""
_LIST_PART = re.compile(r"[^;.:!?()\n]+")
"""A sentence part whose rivals stand beside each other: commas join a list ("Copperleaf, Vantage and Halcyon")."""


_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n]|\s[-\u2013\u2014*\u2022])[\s\"'\u2018\u201c(*\u2022-]*$")
"""What ends right before a sentence's first word: the text's start, a stop, a colon, a line break, a bullet."""

_VERBS: Final = frozenset({
    "is", "was", "are", "were", "be", "been", "has", "had", "have", "does", "did", "do", "will", "would", "can",
    "could", "may", "might", "should", "must", "won", "wins", "win", "beat", "beats", "undercut", "undercuts",
    "underbid", "underbids", "offer", "offers", "got", "gets", "took", "takes", "came", "comes", "gave", "gives",
    "made", "makes", "sold", "sells", "bid", "bids", "quoted", "quotes", "provides", "provide", "includes",
    "include", "costs", "cost", "charges", "charge", "matched", "matches", "also", "just", "then", "still",
    "already", "simply", "clearly", "ist", "hat", "war", "est", "es", "fue", "ha"})
"""Words that start a predicate: a name is followed by what it did ("Vantage won", "Kestrel undercut us")."""


def _starts_sentence(text: str, token: re.Match[str]) -> bool:
    """Whether `token` is the first word of a sentence, where every word is capitalized."""
    return bool(_SENTENCE_START.search(text[:token.start()]))


def _predicate_next(after: list[str]) -> bool:
    """Whether the word after a sentence's first word starts its predicate, or nothing follows in its clause.

    A sentence's first word is capitalized whatever it is. It is a name when what follows is what it did
    ("Vantage won", "Orbital offered 20% off"), its possessive, or a clause break ("Vantage: we lost to
    them"); an everyday word there is followed by the noun it modifies ("Vantage point", "Halcyon days",
    "Orbital period").
    """
    if not after:
        return True
    nxt = after[0]
    return nxt in _VERBS or nxt.endswith("ed") or nxt in ("s", "and", "or")


def _as_name(text: str, token: re.Match[str], before: list[str], after: list[str], rival: str) -> bool:
    """Whether the everyday word `token` of `text` names `rival`; `before` and `after` are the folded words
    around it.

    It does when it is capitalized as a name ("Vantage"; not "VANTAGE", where every letter is; at a
    sentence's start only before a predicate, see `_predicate_next`), when a
    choice frames it ("went with vantage", "chose the Halcyon"), when another rival's word stands within
    two words of it in its part of the sentence ("copperleaf or vantage": rivals listed or compared), or when
    its clause holds nothing but the words of the rival's name and an article ("Competitor: vantage",
    "halcyon"): a reason that is a name.
    """
    word = token.group()
    if word[:1].isupper() and not word.isupper() and (not _starts_sentence(text, token) or _predicate_next(after)):
        return True
    # Only rivals of its own sentence part are beside it: "Chose Copperleaf; no orbital launch this year" names
    # Copperleaf alone.
    part = next(m for m in _LIST_PART.finditer(text) if m.start() <= token.start() < m.end())
    near = (*_WORD.findall(fold(text[part.start():token.start()]))[-2:],
            *_WORD.findall(fold(text[token.end():part.end()]))[:2])
    if any(w in _RIVAL_WORDS and w not in _DISTINCTIVE[rival] for w in near):
        return True
    frame = [w for w in before[-4:] if w not in ("the", "a", "an")]
    if any(len(frame) >= len(p) and tuple(frame[-len(p):]) == p for p in _CHOICE):
        return True
    clause = next(m.group() for m in _NAME_CLAUSE.finditer(text) if m.start() <= token.start() < m.end())
    own = set(_tokens(rival)) | _GENERIC | {"a", "an"}
    return all(w in own for w in _WORD.findall(fold(clause)))


def competitors_named(text: str) -> set[str]:
    """Returns the rival vendors of `COMPETITORS` that `text` names (case and accents ignored).

    A rival is named by its full name or by a word of it that names it alone ("Orbital" for Orbital Apps);
    a generic word of a name ("CRM", "Apps", "Software") names no rival. A word that names a rival alone
    but is also an everyday word (not in `_COINED`) names it only where it is used as a name (`_as_name`):
    "went with Vantage" names Vantage Suite, "from our vantage point" nothing.
    """
    folded_text = f" {' '.join(_WORD.findall(fold(text)))} "
    tokens = list(_WORD.finditer(text))
    folded = [fold(t.group()) for t in tokens]
    named = {c for c in COMPETITORS if f" {' '.join(_tokens(c))} " in folded_text}
    for i, (token, word) in enumerate(zip(tokens, folded, strict=True)):
        for c in COMPETITORS:
            if c not in named and word in _DISTINCTIVE[c] and (
                    word in _COINED or _as_name(text, token, folded[:i], folded[i + 1:], c)):
                named.add(c)
    return named


_ISSUE = (r"(?:issues?|factors?|problems?|reasons?|concerns?|drivers?|causes?|objections?|blockers?|involved|"
          r"related|relevant|at play|in play)")
_NEG = r"(?:not|never|no|without|nor)"
_ART = r"(?: (?:a|an|the|any|their|its|our|his|her))?"
_NOT_AUX = r"(?: (?!(?:and|or|but|nor|while|whereas)\b)\w+){0,3}?"


def _denied(cause: Cause) -> re.Pattern[str]:
    word = "(?:" + "|".join(sorted(_FAMILIES[cause], key=len, reverse=True)) + ")"
    return re.compile(
        rf"\b{_NEG}{_ART}(?: \w+ (?:or|and|nor))? {word}(?: (?:or|and|nor) \w+)? {_ISSUE}\b"
        rf"|\b{word}{_NOT_AUX} (?:not|never)(?! (?:the |a |an )?(?:only|sole|just|main)\b)(?: \w+){{0,2}}? "
        rf"{_ISSUE}\b"
        rf"|\b(?:not because of|not due to|not for|not over|rather than|instead of|other than|except)"
        rf"(?: \w+){{0,2}}? {word}\b"
        + ("" if cause == "budget" else rf"|\b{_NEG}{_ART} {word}\b"))


_DENIED: Final[dict[Cause, re.Pattern[str]]] = {c: _denied(c) for c in CAUSES}
"""Phrases that deny a cause in its clause: "not a price or competitor issue", "no competitor involved", "price
was not the deciding factor", "not because of the budget", "rather than cancelled". "No budget" is no denial but
the budget cause itself, so a bare "no" denies only the other causes ("no competitor")."""


def _undenied(clause: str) -> str:
    """The folded `clause` without the phrases that deny a cause in it, nor those that affirm a cause's opposite
    ("budget was fine") unless the clause also states that cause as the decline."""
    normal = _normal(clause)
    spans = [m.span() for c in CAUSES for m in _DENIED[c].finditer(normal)]
    spans += [m.span() for c, p in _OPPOSITE.items() if not _DECLINE[c].search(normal) for m in p.finditer(normal)]
    kept = [ch if not any(a <= i < b for a, b in spans) else " " for i, ch in enumerate(normal)]
    return " ".join("".join(kept).split())


def causes_named(text: str) -> set[Cause]:
    """Returns every cause `text` names, in any sense but in denial: by a word of its family or a phrase
    stating it, or (a competitor) by a rival's name.

    A cause denied in its clause ("not a price or competitor issue", "budget was fine", "no competitor involved",
    "price was not the deciding factor") is not named: the reason says it was not the cause. A list of causes
    ("competitor, budget, cancelled") names every one.
    """
    clauses = [_undenied(c) for c in _CLAUSE.split(text)]
    words = {w for n in clauses for w in n.split()}
    named: set[Cause] = {c for c in CAUSES if words & _FAMILIES[c]}
    named |= {c for c, p in _DECLINE.items() if any(p.search(n) for n in clauses)}
    if competitors_named(text):
        named.add("competitor")
    return named


_CLAUSE = re.compile(r"[,;.:!?()\n]+|\s[-\u2013\u2014]\s|\s(?:but|however|though)\s", re.IGNORECASE)
_CONTRAST = re.compile(r"\b(?:rather than|instead of|other than|except|not because|not due to|not for|not over)\b",
                       re.IGNORECASE)
"""Phrases after which a clause names what the cause was not ("budget frozen, not because of the price")."""
_RIVAL_DENIAL = re.compile(r"\b(?:not|never|neither|nor|without)\b|\w+n['\u2019]t\b", re.IGNORECASE)
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
        if rival and (denial := _RIVAL_DENIAL.search(clause)):
            clause = clause[: denial.start()]
        parts.append(clause)
    return parts


def _declines(part: str, cause: Cause) -> bool:
    """Whether `part` states `cause` as the decline, and not in denial ("not cancelled", "not building")."""
    normal = _normal(part)
    return any(not re.search(rf"\b{_DENIAL} $", normal[: m.start()]) for m in _DECLINE[cause].finditer(normal))


def _opposes(part: str, cause: Cause) -> bool:
    """Whether `part` affirms the opposite of `cause` ("Budget approved"), unless it also states the decline."""
    return not _declines(part, cause) and _OPPOSITE[cause].search(_normal(part)) is not None


def states_cause(text: str, cause: Cause, competitor: str | None) -> bool:
    """Returns whether `text` affirms `cause` (for a competitor: the very rival `competitor`, as chosen).

    A cause named only as what it was not ("Not Copperleaf", "budget frozen rather than cancelled" for
    the cancellation, "did not choose Halcyon CRM") is not stated, and neither is one the text also
    contradicts ("Budget approved, buyer went quiet", "Initiative still running"). `causes_named` lists a
    cause named only as what it was not when the clause does not deny it as the cause ("Not Budget frozen"),
    but not one the clause denies ("not a price issue", "budget was fine", "no competitor involved").
    """
    if cause == "competitor":
        return competitor is not None and any(competitor in competitors_named(p) for p in _affirmed(text, True))
    parts = _affirmed(text, False)
    return any(_declines(p, cause) for p in parts) and not any(_opposes(p, cause) for p in parts)
