"""Rude wording in a reply: blame, dismissal or insult aimed at the customer, in en/de/es/fr.

A flag for the `polite` constraint, never evidence that a goal was met. Phrases are read with their polarity and
their context, never as substrings, so kind wording that shares words with a rude phrase passes:

- **Blame** ("your fault", "Ihre Schuld", "su culpa", "votre faute", "selber schuld") is rude when affirmed; a
  negation just before it in its clause is reassurance ("that's not your fault at all", "ce n'est pas votre
  faute", "no es su culpa", "das ist nicht Ihre Schuld"). A denial of that denial restores it: "I'm not
  saying it isn't your fault", "it's not as if this weren't your own fault", "no digo que no sea su culpa"
  are rude, while a denial frame over affirmed blame ("I'm not saying it's your fault", "it's not as if this
  were your fault", "ich sage nicht, dass es Ihre Schuld ist") reassures.
- **Dismissal** is rude as a predicate or a retort, not as ordinary grammar: "that's your problem", "not our
  problem", "Ihr Problem, nicht unseres" are rude, while "I solved your problem" and "Ich habe Ihr Problem
  gelöst" are not; "not my job", "that's not our job to fix", "nicht meine Aufgabe", "pas mon boulot" disown the
  request, while "it's not your job to chase this" relieves the customer; "Whatever." and "whatever, not my
  problem" are rude, while "whatever else you need" (a determiner) is not; "Deal with it." said to the customer
  is rude, while "billing will deal with it directly with your bank" (someone else does the dealing) is not;
  "calm down" is rude as an imperative ("Please calm down"), not in "once things calm down".
- **Scorn** at the customer's reading ("Obviously you didn't read the email", "did you even read it", "as I
  already told you", "können Sie nicht lesen") is rude; a plain reference back ("as I mentioned", "wie bereits
  erwähnt") or "apparently you didn't receive it" is not.
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

# A denial of a denial: "I'm not saying it isn't your fault", "it's not as if this weren't your own fault", "ich
# sage nicht, dass es nicht Ihre Schuld ist", "no digo que no sea su culpa", "je ne dis pas que ce n'est pas
# votre faute". The frame negates the speaker's saying (or an "as if"), and a second negation then negates the
# blame: together they affirm it. A frame over affirmed blame ("I'm not saying it's your fault") reassures.
_DENIAL_FRAME = re.compile(
    r"(?:\b(?:not|never)|n't)\s+(?:\w+\s+){0,2}?(?:saying|say|said|suggesting|suggest|claiming|claim|implying|"
    r"imply|pretending|pretend|denying|deny)\b|(?:\bnot|n't)\s+(?:\w+\s+)?(?:as\s+if|as\s+though|like|that)\b|"
    r"\b(?:sage|sagen|behaupte|behaupten|meine)\s+(?:\w+\s+){0,2}?nicht\b|\bnicht\s+(?:gesagt|behauptet)\b|"
    r"\bnicht\s*,?\s*(?:dass|als\s+ob|als\s+wäre)\b|\b(?:es\s+ist|das\s+ist)\s+nicht\s+so\b|"
    r"\bno\s+(?:le\s+|les\s+|te\s+)?(?:digo|decimos|estoy\s+diciendo|quiero\s+decir|es\s+que|es\s+como\s+si)\b|"
    r"\bne\s+(?:\w+\s+){0,2}?(?:dis|disons|prétends|prétendons)\s+pas\b|\bn'est\s+pas\s+(?:que|comme\s+si)\b")
_FRAME_END = re.compile(r"(?:\s*,?\s*(?:that|dass|als\s+ob|als\s+wäre|que|qu'))?")
_DENIAL_REACH = re.compile(r"[.!?;:,()]|\s[-\u2013\u2014]\s|\b(?:and|but|or|so|because|und|aber|oder|weil|denn|"
                           r"sondern|y|pero|o|porque|sino|et|mais|ou|car|donc)\b")
"""Where a frame's reach ends: the blame it restores stands in the same stretch of the sentence."""

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

_JOB = (r"(?:job|department|aufgabe|trabajo|asunto|travail|boulot)\b(?=\s*(?:[.!,;:\u2026]|$|either\b|anymore\b|"
        r"to\s+(?:deal|handle|fix|sort|chase|solve|look|help|care|worry|track|follow|babysit|"
        r"clean)\b))")
"""A job the desk disowns: the word, then the end of the predicate or what the request asks of the desk."""

# Dismissal: the customer's problem declared theirs alone, or none of ours. Rude as written (these are
# predicates and retorts, never the object of a verb: "I solved your problem" does not match).
_NOT_OURS = re.compile(
    r"\b(?:not|isn't|is\s+not|no|nicht|kein|pas|ne\s+\S+\s+pas)\s+(?:es\s+|fue\s+)?(?:really\s+|wirklich\s+|vraiment\s+)?"
    r"(?:our|my|unser|unsere|mein|meine|nuestro|mi|notre|mon)\s+(?:problem|problema|problème|sache|affaire)\b|"
    # the request declared none of the desk's job: "not my job", "that's not our job to fix", "nicht meine
    # Aufgabe", "no es mi trabajo", "pas mon boulot"; "it's not your job to chase this" relieves the customer,
    # and "not our job to judge" is no dismissal of the request
    r"\b(?:not|isn't|is\s+not|nicht|kein|keine|no\s+es|pas)\s+(?:really\s+|wirklich\s+|vraiment\s+)?"
    rf"(?:our|my|unser|unsere|mein|meine|nuestro|mi|notre|mon)\s+{_JOB}|"
    r"\b(?:your|ihr|su|tu|votre|ton)\s+(?:problem|problema|problème|issue)\s*(?:now\s*(?:[.!\u2026]|$)|,?\s*"
    r"(?:not|nicht|no|pas)\s+"
    r"(?:ours|mine|unseres|unsers|unser|meins|el\s+nuestro|el\s+mío|le\s+nôtre|le\s+mien))|"
    r"\b(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:entirely\s+|really\s+|simply\s+|just\s+|all\s+)?(?:your|ur)\s+"
    r"(?:own\s+)?problem\b|"
    r"\b(?:das|dies|es)\s+(?:ist|war)\s+(?:ganz\s+|allein\s+|einfach\s+)?(?:ihr|dein)\s+(?:eigenes\s+)?problem\b|"
    r"\b(?:eso|esto)\s+es\s+(?:su|tu)\s+problema\b|"
    r"\bc'est\s+(?:votre|ton)\s+(?:propre\s+)?problème\b|"
    r"\b(?:tant\s+pis\s+pour\s+(?:vous|toi)|pech\s+gehabt|selber\s+sehen|mala\s+suerte\s+para\s+usted|"
    r"an?\s+(?:you|u)\s+(?:problem|issue))\b")

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

# Scorn: the customer told they cannot or did not read, or that they were told already ("Obviously you didn't
# read the tracking email", "as I already told you", "did you even read it", "können Sie nicht lesen"). A plain
# reference back ("as I mentioned", "wie bereits erwähnt") and "apparently you didn't receive it" are kind.
_SCORN = re.compile(
    r"\b(?:obviously|clearly|evidently|apparently)\s*,?\s+you\s+(?:didn't|did\s+not|don't|do\s+not|haven't|"
    r"have\s+not|never|can't|cannot|couldn't|failed\s+to)\s+(?:even\s+|bother(?:ed)?\s+to\s+)?(?:read|look|check|"
    r"listen|pay\s+attention|understand)\b|"
    r"\bdid\s+you\s+even\s+(?:read|look|check|bother|listen|try)\b|\b(?:can't|cannot)\s+you\s+read\b|"
    r"\bcan\s+you\s+not\s+read\b|\blearn\s+(?:how\s+)?to\s+read\b|"
    r"\bif\s+you\s+(?:had|'d)\s+(?:bothered\s+to\s+|actually\s+|just\s+)?read\b|"
    r"\b(?:as|like)\s+i(?:'ve|\s+have)?\s+already\s+(?:told|said\s+to|explained\s+to)\s+you\b|"
    r"\bi(?:'ve|\s+have)?\s+(?:already\s+)?told\s+you\s+(?:twice|several\s+times|many\s+times|multiple\s+times|"
    r"repeatedly|a\s+dozen\s+times)\b|\bhow\s+many\s+times\s+(?:do|must|should|have)\s+i\b|"
    r"\bkönnen\s+sie\s+nicht\s+lesen\b|\b(?:haben\s+sie|hast\s+du)\s+(?:das\s+|es\s+)?überhaupt\s+gelesen\b|"
    r"\bno\s+sabe\s+leer\b|\b(?:acaso|siquiera)\s+(?:lo\s+|la\s+)?(?:leyó|ha\s+leído)\b|"
    r"\b(?:vous\s+ne\s+savez|tu\s+ne\s+sais)\s+pas\s+lire\b|\bvous\s+n'avez\s+même\s+pas\s+lu\b")

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
    if reach is not None and _NEGATED_ORDER.search(" ".join(words[-3:])):
        return False  # an order, for an insult only: "no sea su culpa" is a subjunctive, no order
    return bool(before) and negated(" ".join(before), None)


def _framed_blame(sentence: str) -> tuple[list[str], str]:
    """Blame under a denial frame, judged on the frame's reach: a second negation restores it ("I'm not saying
    it isn't your fault" is rude), none leaves it reassurance ("I'm not saying it's your fault", "it's not as
    if this were your fault"). Returns the restored blame, and the sentence with each judged stretch blanked
    so the clause reading (which splits "as" and "dass" off the frame) does not judge it again."""
    found: list[str] = []
    masked = sentence
    for frame in _DENIAL_FRAME.finditer(sentence):
        start = frame.end()
        if (tail := _FRAME_END.match(sentence, start)) is not None:
            start = tail.end()
        end = len(sentence)
        if (cut := _DENIAL_REACH.search(sentence, start)) is not None:
            end = cut.start()
        blame = _BLAME.search(sentence, start, end)
        if blame is None:
            continue
        if negated(sentence[start:blame.start()], None):
            found.append(blame.group())
        masked = masked[:frame.start()] + " " * (end - frame.start()) + masked[end:]
    return found, masked


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
        found += [m.group() for m in _SCORN.finditer(sentence)]
        restored, rest = _framed_blame(sentence)
        found += restored
        for clause in _clauses(rest):
            found += [m.group() for m in _BLAME.finditer(clause) if not _negated_before(clause, m.start())]
            if not _aimed_at_desk(clause):
                found += [m.group() for m in _INSULT.finditer(clause)
                          if not _negated_before(clause, m.start(), _INSULT_REACH)]
    return found
