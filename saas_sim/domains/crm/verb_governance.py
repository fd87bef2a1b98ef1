"""Whether a negation or an intent governs a claim's verb: "not yet signed", "will be signed", "once signed".

A claim of a free text (`text_claims`) is read at its cue, the verb ("signed",
"merged", "moved"), and is cancelled only by what governs that verb, never by a
word elsewhere in the clause ("Contract signed before the deadline" and "signed
with no redlines" claim a signature). What governs it (`governed`):

- a negation near the verb, not in a prepositional phrase: "not yet signed",
  "No contract has been signed", "n'est pas signé" (but not "with no redlines");
- an intent cue (`INTENT`, `_SUBORDINATORS`, `_REQUESTS`) in the verb's own
  auxiliary chain: "will be signed", "needs to be signed", "ne sera signé";
- before the verb, one that frames it: with no finite auxiliary of its own
  ("once signed", "get the contract signed", "Sobald der Vertrag
  unterschrieben ist") or a present one ("make sure the contract is signed"),
  any intent cue; with a perfect one ("once the contract has been signed"),
  only a conjunction or a request; with a past one ("after legal review the
  contract was signed"), only a condition ("if it were signed"): a past tense
  states a fact;
- a German auxiliary right after it ("unterschrieben werden").

Intent cues after the verb ("signed after legal review") govern nothing. Cues
are matched on folded words (lowercase, no accents), as whole words or runs of
whole words (`cues`, `spans`), so "assigned" is not "signed".
"""

from __future__ import annotations

from typing import Final

from saas_sim.domains.crm.matching import fold

__all__ = ["INTENT", "Span", "cues", "governed", "has", "spans", "states"]

Span = tuple[int, int]
"""A run of words of a clause: (start, end) positions."""


def cues(*phrases: str) -> tuple[tuple[str, ...], ...]:
    """Returns folded phrases as word tuples, longest first (a longer run is the more specific cue)."""
    return tuple(sorted({tuple(fold(p).replace("-", " ").split()) for p in phrases}, key=lambda t: (-len(t), t)))




INTENT: Final = cues(
    # en: plans, conditions, requests and questions
    "once", "when", "after", "until", "before", "if", "pending", "awaiting", "await", "waiting", "will", "ll",
    "shall", "would", "should", "could", "can", "may", "might", "to be", "going to", "need", "needs", "plan",
    "planned", "expect", "expected", "hope", "get", "please", "ready to", "want", "wants", "able to", "soon",
    # progressive and gerund forms of the same plans ("looking forward to getting this signed")
    "getting", "planning", "hoping", "expecting", "aiming", "trying", "looking forward", "about to",
    # de
    "sobald", "wenn", "nachdem", "bis", "bevor", "falls", "werden", "wird", "werde", "soll", "sollen", "muss",
    "mussen", "bitte", "noch zu", "ausstehend",
    # fr
    "des que", "une fois", "quand", "apres", "avant", "jusqu a", "si", "sera", "seront", "va", "vais", "allons",
    "doit", "devra", "merci de", "en attente", "a signer",
    # es
    "cuando", "despues", "antes", "hasta", "si", "sera", "va a", "pendiente",
)
"""Folded cues that make a clause a plan or a condition, not a statement of fact."""

_DENIAL_REACH = 4
"""How many words before a verb's chain a negation still denies it ("Never got the contract signed")."""

_CONDITIONS: Final = cues("if", "unless", "whether", "wenn", "falls", "ob", "si")
"""Folded conjunctions of a condition: the verb after them is no fact in any tense ("if it were signed")."""

_SUBORDINATORS: Final = cues(
    "if", "unless", "whether", "wenn", "falls", "ob", "si",
    "once", "when", "whenever", "after", "until", "till", "before", "as soon as",
    "sobald", "nachdem", "bis", "bevor",
    "des que", "une fois", "quand", "lorsque", "apres", "avant", "jusqu a",
    "cuando", "despues", "antes", "hasta", "en cuanto",
)
"""Folded conjunctions that make the verb after them a condition or a time to come."""

_REQUESTS: Final = cues(
    "make sure", "ensure", "check", "verify", "confirm", "chase", "request", "remind", "being",
    "sicherstellen", "prufen", "uberprufen", "verifier", "confirmer", "relancer", "verificar", "confirmar",
)
"""Folded verbs that ask for a fact rather than state it ("make sure the contract is signed"); "being"
marks a verb still under way ("is being signed")."""

_GOVERNING: Final = tuple(sorted({*INTENT, *_SUBORDINATORS, *_REQUESTS}, key=lambda t: (-len(t), t)))

_NEGATIONS: Final = frozenset({
    "not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "cannot", "without",
    "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "nichts", "weder", "ohne",
    "ne", "n", "pas", "jamais", "aucun", "aucune", "ni", "non", "sans", "rien",
    "nunca", "ningun", "ninguno", "ninguna", "sin", "nada",
})
"""Folded words that deny the verb they stand near."""

_WITH: Final = frozenset({"with", "mit", "avec", "con"})
"""A negation right after one of these is a prepositional phrase ("signed with no redlines"), no denial."""

_COORDINATORS: Final = frozenset({"and", "und", "et", "y"})
"""A negation before one of these denies the verb before it, not the one after ("no questions and signed")."""

_CONTRASTS: Final = frozenset({"but", "however", "though", "although", "aber", "jedoch", "mais", "pero", "sino"})
"""Words that start a new statement inside a clause: nothing before them governs a verb after them."""

_PAST: Final = frozenset({"was", "were", "had", "wurde", "wurden", "war", "waren", "fut", "furent", "fue",
                          "fueron", "etait"})
_PERFECT: Final = frozenset({"has", "have", "ve", "hat", "haben", "ont", "ete", "ha", "han", "hemos"})
_PRESENT: Final = frozenset({"is", "are", "am", "be", "been", "ist", "sind", "est", "sont", "esta", "estan",
                             "es"})
_ADVERBS: Final = frozenset({
    "yet", "already", "still", "just", "now", "fully", "finally", "all", "also", "officially", "formally", "today",
    "successfully", "electronically", "digitally", "both", "to", "going", "noch", "schon", "bereits", "jetzt", "nun",
    "endlich", "heute", "deja", "encore", "bien", "maintenant", "enfin", "ya", "todavia", "aun", "hoy", "ahora",
})
_CHAIN: Final = _PAST | _PERFECT | _PRESENT | _ADVERBS | _NEGATIONS | {c[0] for c in _GOVERNING if len(c) == 1}
"""Folded words of a verb's auxiliary chain: auxiliaries, adverbs, negations and one-word intent cues."""

_AFTER_AUX: Final = frozenset({"werden", "sein", "wird", "werde"})
"""German auxiliaries that, right after a participle, make it a plan ("muss unterschrieben werden")."""



def has(words: tuple[str, ...], cues: tuple[tuple[str, ...], ...]) -> bool:
    return bool(spans(words, cues))


def spans(words: tuple[str, ...], cues: tuple[tuple[str, ...], ...]) -> list[Span]:
    """The (start, end) word positions where a cue of `cues` occurs, in text order."""
    n = len(words)
    return sorted((i, i + len(c)) for c in cues for i in range(n - len(c) + 1) if words[i:i + len(c)] == c)




def _scope_start(words: tuple[str, ...], start: int) -> int:
    """Where the statement holding the word at `start` begins: after the last contrast word before it."""
    return max((i + 1 for i in range(start) if words[i] in _CONTRASTS), default=0)


def _chain_start(words: tuple[str, ...], lo: int, start: int) -> int:
    """Where the auxiliary chain of the verb at `start` begins ("will not yet be" before "signed")."""
    i = start
    while i > lo and words[i - 1] in _CHAIN:
        i -= 1
    return i


def _denied(words: tuple[str, ...], lo: int, chain: int, start: int) -> bool:
    """Whether a negation in the verb's chain or the `_DENIAL_REACH` words before it denies the verb.

    A negation after "with" is a prepositional phrase ("with no redlines was signed"), and one before
    "and" denies an earlier verb ("had no questions and signed").
    """
    for j in range(max(lo, chain - _DENIAL_REACH), start):
        if words[j] not in _NEGATIONS or (j > 0 and words[j - 1] in _WITH):
            continue
        if not any(w in _COORDINATORS for w in words[j + 1:start]):
            return True
    return False


def governed(words: tuple[str, ...], span: Span) -> bool:
    """Whether a negation or an intent governs the claim verb at `span` (rules in the module docstring)."""
    start, end = span
    if end < len(words) and words[end] in _AFTER_AUX:
        return True
    lo = _scope_start(words, start)
    chain = _chain_start(words, lo, start)
    if _denied(words, lo, chain, start) or has(words[chain:start], _GOVERNING):
        return True
    auxiliaries, before = set(words[chain:start]), words[lo:chain]
    if auxiliaries & _PAST:
        return has(before, _CONDITIONS)
    if auxiliaries & _PERFECT:
        return has(before, _SUBORDINATORS) or has(before, _REQUESTS)
    return has(before, _GOVERNING)


def states(words: tuple[str, ...], cues: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a cue of `cues` occurs in `words` with no negation or intent governing it."""
    return any(not governed(words, span) for span in spans(words, cues))


