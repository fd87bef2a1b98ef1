"""Rude wording in a reply: blame, dismissal or insult aimed at the customer, in en/de/es/fr.

A flag for the `polite` constraint, never evidence that a goal was met. Phrases are read with their polarity and
their context, never as substrings, so kind wording that shares words with a rude phrase passes:

- **Blame** ("your fault", "Ihre Schuld", "su culpa", "votre faute", "selber schuld") is rude when affirmed; a
  negation just before it in its clause is reassurance ("that's not your fault at all", "ce n'est pas votre
  faute", "no es su culpa", "das ist nicht Ihre Schuld").
- **Dismissal** is rude as a predicate or a retort, not as ordinary grammar: "that's your problem", "not our
  problem", "Ihr Problem, nicht unseres" are rude, while "I solved your problem" and "Ich habe Ihr Problem
  gelöst" are not; "Whatever." and "whatever, not my problem" are rude, while "whatever else you need" (a
  determiner) is not; "Deal with it." said to the customer is rude, while "billing will deal with it directly
  with your bank" (someone else does the dealing) is not; "calm down" is rude as an imperative ("Please calm
  down"), not in "once things calm down".
- **Insult** ("stupid", "idiot", "dumm", "estúpido", "stupide") is rude unless negated just before it ("not a
  stupid question at all") or the clause aims it at the desk itself and not at the customer ("sorry, a stupid
  mistake on our part").
"""

from __future__ import annotations

import re

from saas_sim.core.text_facts import negated, sentences

__all__ = ["rude_phrases"]

_CLAUSE_BREAK = re.compile(r"[,;:()]|\s[-\u2013\u2014]\s|\b(?:but|and|because|since|as|so|aber|und|weil|da|denn|"
                           r"sondern|pero|y|porque|pues|sino|mais|et|car|parce|puisque|donc)\b")
"""Where a sentence splits into clauses for polarity: a negation in one clause says nothing of the next ("we
can't refund it because it's your fault")."""

_INSULT_REACH = 2
"""How many words before an insult a negation may govern it ("not a stupid question", "that isn't stupid");
"you can't be this stupid" negates the verb, not the insult."""

# Blame aimed at the customer. Rude when affirmed; reassurance when negated just before it.
_BLAME = re.compile(
    r"\b(?:(?:your|ur)\s+(?:own\s+)?fault|(?:your|ur)\s+own\s+(?:doing|mistake)|(?:you|u)\s+(?:only\s+)?have\s+"
    r"yourself\s+to\s+blame|"
    r"(?:ihre|deine|eure)\s+(?:eigene\s+)?schuld|selbst\s+schuld|selber\s+schuld|"
    r"(?:su|tu)\s+(?:propia\s+)?culpa|culpa\s+(?:suya|tuya)|"
    r"(?:votre|ta)\s+(?:propre\s+)?faute|"
    r"fault\s+(?:is|was|lies)\s+(?:entirely\s+|all\s+|solely\s+)?(?:yours|with\s+you)|(?:you(?:'re|\s+are)|"
    r"you\s+were)\s+(?:entirely\s+|solely\s+|the\s+one\s+)?to\s+blame|blame\s+yourself|"
    r"schuld\s+(?:liegt|lag)\s+(?:allein\s+|ganz\s+)?bei\s+(?:ihnen|dir)|sie\s+sind\s+(?:selbst\s+)?schuld|"
    r"la\s+culpa\s+es\s+(?:suya|tuya|de\s+usted)|"
    r"la\s+faute\s+(?:vous|te)\s+revient|la\s+faute\s+est\s+(?:à\s+vous|la\s+vôtre))\b")

# Dismissal: the customer's problem declared theirs alone, or none of ours. Rude as written (these are
# predicates and retorts, never the object of a verb: "I solved your problem" does not match).
_NOT_OURS = re.compile(
    r"\b(?:not|isn't|is\s+not|no|nicht|kein|pas|ne\s+\S+\s+pas)\s+(?:es\s+|fue\s+)?(?:really\s+|wirklich\s+|vraiment\s+)?"
    r"(?:our|my|unser|unsere|mein|meine|nuestro|mi|notre|mon)\s+(?:problem|problema|problème|sache|affaire)\b|"
    r"\b(?:your|ihr|su|tu|votre|ton)\s+(?:problem|problema|problème|issue)\s*(?:now\s*(?:[.!\u2026]|$)|,?\s*"
    r"(?:not|nicht|no|pas)\s+"
    r"(?:ours|mine|unseres|unsers|unser|meins|el\s+nuestro|el\s+mío|le\s+nôtre|le\s+mien))|"
    r"\b(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:entirely\s+|really\s+|simply\s+|just\s+|all\s+)?(?:your|ur)\s+"
    r"(?:own\s+)?problem\b|"
    r"\b(?:das|dies|es)\s+(?:ist|war)\s+(?:ganz\s+|allein\s+|einfach\s+)?(?:ihr|dein)\s+(?:eigenes\s+)?problem\b|"
    r"\b(?:eso|esto)\s+es\s+(?:su|tu)\s+problema\b|"
    r"\bc'est\s+(?:votre|ton)\s+(?:propre\s+)?problème\b|"
    r"\b(?:tant\s+pis\s+pour\s+(?:vous|toi)|pech\s+gehabt|selber\s+sehen|mala\s+suerte\s+para\s+usted)\b")

# What a speaker says when they stop listening: "Whatever." (not the determiner "whatever else you need").
_RETORT = re.compile(
    r"\bwhatever(?:\s+you\s+say)?\b(?=\s*(?:[.!,;:\u2026-]|$))|"
    r"\bstop\s+(?:whining|complaining|moaning)\b|\bhören\s+sie\s+auf\s+zu\s+(?:jammern|meckern|nörgeln)\b|"
    r"\bdeje\s+de\s+quejarse\b|\barrêtez\s+de\s+(?:vous\s+plaindre|râler)\b|"
    r"\b(?:(?:ist\s+)?mir\s+(?:doch\s+|völlig\s+|total\s+|echt\s+)?(?:egal|wurscht|wurst)|"
    r"me\s+da\s+(?:igual|lo\s+mismo)|me\s+importa\s+un\s+\w+)\b(?!\s*,?\s*(?:ob|welche\w*|wie|wann|wo|was|si|"
    r"cu[aá]l\w*|c[oó]mo|cu[aá]ndo|qu[eé])\b)|\b(?:"
    r"je\s+m'en\s+(?:fiche|fous|moque)|on\s+s'en\s+(?:fiche|fout|moque))\b|"
    r"(?:^|[.!?]\s*)(?:egal|lo\s+que\s+sea|peu\s+importe)\s*(?:[.!\u2026]|$)")

_FILLER = r"(?:(?:please|just|so|well|ok|okay|now|then|sir|madam|look|listen|bitte|einfach|mal|por\s+favor|" \
          r"s'il\s+vous\s+plaît)\s*,?\s+)*"
_YOU_MUST = r"(?:you(?:'ll|\s+will|\s+have\s+to|\s+need\s+to|\s+must|\s+should|\s+better|\s+can|'d\s+better)" \
            r"(?:\s+just)?(?:\s+(?:have|need)\s+to)?\s+|learn\s+to\s+)"
# Orders at the customer: "Deal with it.", "Please calm down", "you'll have to deal with it"; and their
# German, Spanish and French counterparts. "billing will deal with it" or "once things calm down" are
# no orders: another subject stands before the verb.
_ORDER = re.compile(
    rf"(?:^|[.!?;:,]\s*){_FILLER}{_YOU_MUST}?(?:deal\s+with\s+it|get\s+over\s+it|live\s+with\s+it)"
    r"(?:\s+(?:yourself|then|now|already|anyway))?\s*(?:[.!,;:\u2026]|$)|"
    rf"(?:^|[.!?;:,]\s*){_FILLER}{_YOU_MUST}?calm\s+down\b|"
    r"\b(?:beruhigen\s+sie\s+sich|regen\s+sie\s+sich\s+(?:nicht\s+so\s+)?ab|finden\s+sie\s+sich\s+damit\s+ab|"
    r"damit\s+müssen\s+sie\s+(?:eben\s+|halt\s+)?leben|kommen\s+sie\s+damit\s+klar|"
    r"cálmese|cálmate|tranquilícese|tranquilízate|aguántese|aguántate|"
    r"calmez[- ]vous|calme[- ]toi|débrouillez[- ]vous|débrouille[- ]toi)\b|"
    r"(?:^|[.!?;:,]\s*)faites\s+avec\s*(?:[.!\u2026]|$)")

# Insults. Rude unless the clause aims them at the desk ("a stupid mistake on our part") and not the customer.
_INSULT = re.compile(
    r"\b(?:stupid|stupidity|idiot|idiots|idiotic|moron|morons|moronic|dumb|dumbest|"
    r"dumm|dumme|dummer|dummen|dummes|blöd|blöde|blöder|blöden|blödes|dämlich\w*|idioten|trottel|"
    r"estúpido|estúpida|estúpidos|estúpidas|idiota|idiotas|tonto|tonta|tontos|tontas|imbécil|"
    r"stupide|stupides|idiote|idiotes|imbécile|imbéciles|débile|débiles|crétin|crétine)\b")
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|u|ur|sie|ihr|ihre|ihnen|du|dich|dein|deine|usted|"
                            r"ustedes|su|tu|tú|te|vous|votre|vos|toi|ton|ta|tes)\b")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|me|my|mine|we|we're|we've|us|our|ours|ich|mir|mich|mein|meine|"
                           r"meinem|meinen|meiner|wir|uns|unser|unsere|unserem|unseren|unserer|yo|mi|mis|nosotros|"
                           r"nuestro|nuestra|nuestros|nuestras|nuestra\s+parte|je|j|moi|mon|ma|mes|nous|notre|nos)\b")


_NEGATED_ORDER = re.compile(r"\b(?:(?:don't|dont|do\s+not)\s+be|ne\s+soyez|ne\s+sois|no\s+sea|no\s+seas|sei\s+nicht|"
                            r"seien\s+sie\s+nicht)\b")


_SUBJECTS = frozenset({"it", "it's", "this", "that", "that's", "you", "you're", "your", "ça", "c'est"})


def _clauses(sentence: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_BREAK.split(sentence) if c and c.strip()]


def _negated_before(clause: str, start: int, reach: int | None = None) -> bool:
    """Whether a negation stands before `start` in the clause (within `reach` words of it, if given): blame
    negated anywhere in its clause is reassurance ("I don't want you to think this was your fault").

    A negated order is no reassurance ("don't be an idiot", "ne soyez pas stupide", "no sea tonto"), nor an
    interjection before the subject ("No it's your fault").
    """
    words = re.findall(r"[\w']+", clause[:start])
    if words[:1] in (["no"], ["non"]) and len(words) > 1 and words[1] in _SUBJECTS:
        words = words[1:]  # an interjection ("No, it's your fault" without its comma) negates nothing here
    before = words[-reach:] if reach is not None else words
    if _NEGATED_ORDER.search(" ".join(words[-3:])):
        return False
    return bool(before) and negated(" ".join(before), None)


def _aimed_at_desk(clause: str) -> bool:
    return bool(_FIRST_PERSON.search(clause)) and not _SECOND_PERSON.search(clause)


def rude_phrases(body: str) -> list[str]:
    """Returns the rude phrases of a reply body, in order (empty: the reply is polite); see the module rules."""
    text = body.casefold().replace("\u2019", "'").replace("\u2018", "'")
    found: list[str] = []
    for sentence in sentences(text):
        # Orders and retorts are judged on the sentence: their anchors are its start and its punctuation.
        found += [m.group().strip(" .!,;:") for m in _ORDER.finditer(sentence)]
        found += [m.group().strip(" .!,;:") for m in _RETORT.finditer(sentence)]
        found += [m.group() for m in _NOT_OURS.finditer(sentence)]
        for clause in _clauses(sentence):
            found += [m.group() for m in _BLAME.finditer(clause) if not _negated_before(clause, m.start())]
            if not _aimed_at_desk(clause):
                found += [m.group() for m in _INSULT.finditer(clause)
                          if not _negated_before(clause, m.start(), _INSULT_REACH)]
    return found
