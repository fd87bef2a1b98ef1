"""Which clauses of a reply a condition governs: one word list and one rule for every support reader.

A clause under a condition claims nothing done. "If it hasn't arrived by next week, we'll look into a refund"
offers a refund on a condition, and a customer reads it so; a reader that took "we'll look into a refund" for
a refund claimed would fail a correct reply. The rule, in the shop's languages (en, de, es, fr):

- A clause that opens with a condition ("if", "unless", "in case", "should it ...", "were it to ...", "had it
  ...", "otherwise", "falls", "sollte", "si", "au cas où", ...) is under it. The condition runs on up to a
  punctuation mark, and it governs the clause after that and those joined on to it by "and", "or" or "then"
  ("..., let me know and we'll send a replacement"). A clause that opens with a time to come ("once", "as soon
  as", "sobald", ...) governs the same way, but is itself no condition ("once the refund has gone through, ..."
  still speaks of a refund), and a time told of the past ("when I checked", "after reviewing") governs nothing.
- A condition that ends its sentence governs the clause before it ("Wir schicken Ihnen Ersatz, falls es nicht
  ankommt"), and one inside a clause governs what comes before it there ("we'll refund 25.00 if it doesn't
  arrive"). A precaution ("we'll send a replacement in case it doesn't arrive") is no such condition: the
  replacement is sent anyway.
- A governed clause that reports something done, in a past or perfect tense ("you'll see I refunded 25.00",
  "the refund of 25.00 has been issued", "dass ich 25,00 € erstattet habe"), still claims it: the condition
  only tells where to look. A future, modal or offered act ("we'll look into", "we can", "we'd be happy to
  send") or an instruction claims nothing done. This holds without a comma: "if it doesn't arrive we refunded
  you already" is split before the shop's own subject ("we", "haben wir", "ya le hemos", "nous"), so the
  consequence is a clause of its own and the condition's "not" does not negate it; "if it doesn't arrive we
  will refund you" stays an offer. A subject inside the condition ("if the item we sent ...", "if you think
  we ...") starts no consequence.
- A condition about the reader looking or wondering ("if you check your statement", "in case you were
  wondering") governs nothing: what it introduces is stated as fact. Nor does one on the customer's wish ("if
  you prefer, we can replace it": an offer they need only accept) or one in name only ("if that's OK", "if it
  helps", "unless I'm mistaken").

Readers ask `Sentence.governed` (reply_facts), which this module computes; the words are here only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["BEFORE_CONDITION", "CONDITIONAL", "CONDITION_OR_TIME", "QUESTION", "governed", "opens", "reports_done",
           "split_governed"]

# A condition, anywhere in a clause. Word-bounded: "ebenfalls", "définitif" and "gift" hold none.
_CONDITION_WORDS = (
    r"if|unless|in case|in the (?:unlikely )?event|otherwise|provided that|"
    r"wenn|falls|sofern|sonst|andernfalls|ansonsten|im fall(?:e)?|es sei denn|gegebenenfalls|"
    r"si|en caso|a menos que|salvo que|de lo contrario|de no ser así|en caso contrario|"
    r"s'ils?(?! vous pla)|au cas où|à moins qu|sinon|faute de quoi|dans le cas où|en cas de|si jamais")
# An inverted condition opens its clause: "Should it not turn up", "Were it to get lost", "Had it been lost",
# "Sollte es nicht ankommen".
_INVERTED = (r"should\s+(?:it|you|they|we|there|the|your|this|that|any|anything|something|anyone)\b|"
             r"were\s+(?:it|you|they|the\s+\w+|your\s+\w+)\s+(?:not\s+)?to\b|"
             r"had\s+(?:it|you|they|we|the\s+\w+|your\s+\w+)\s+(?:not\s+)?(?:been|arrived|gone|come|turned|reached|"
             r"known|told|asked|contacted|written)\b|"
             r"sollten?\b|"
             r"de\s+no\s+\w+r\b")
# A time to come that opens a clause: "once it is back with us, we'll refund you".
_TIME_WORDS = (r"once|when|whenever|after|until|till|before|as soon as|by the time|"
               r"sobald|nachdem|bis|cuando|una vez|hasta que|dès que|quand|lorsque|jusqu")
# Conditions that, after what they follow, are no condition on it: a precaution ("I'll send a spare in case it
# breaks" sends it) or the alternative ("we'll send it today, otherwise you'd wait weeks" sends it).
_PRECAUTION = re.compile(r"^\W*(?:in case|au cas où|otherwise|sonst|andernfalls|ansonsten|de lo contrario|"
                         r"en caso contrario|de no ser así|sinon|faute de quoi)\b")
_OPENS_CONDITION = re.compile(rf"^\W*(?:(?:{_CONDITION_WORDS})\b|{_INVERTED})")
_OPENS_TIME = re.compile(rf"^\W*(?:{_TIME_WORDS})\b")
# A time told of the past is no time to come: "when I checked, ...", "after reviewing your case, ...".
_NARRATIVE = re.compile(rf"^\W*(?:{_TIME_WORDS})\s+(?:\w+ing\b|(?:i|we)\s+(?:\w+ed|saw|got|found|heard|spoke|took|"
                        r"went|sent|did|had|was|were)\b)")
_CONDITION = re.compile(rf"\b(?:{_CONDITION_WORDS})\b")

BEFORE_CONDITION = re.compile(rf"(?=\b(?:{_CONDITION_WORDS})\b|\bshould\s+(?:it|you|they|the|your)\b|"
                              r"\bwere\s+(?:it|you|they)\s+(?:not\s+)?to\b)")
"""Where a clause splits before a condition inside it ("we'll refund you | if it doesn't arrive"), for the
readers of claims: the condition is then a clause of its own, and governs the one before it."""

CONDITION_OR_TIME = re.compile(rf"\b(?:{_CONDITION_WORDS})\b|(?:^|[,;:(]\s*)\W*(?:{_INVERTED}|(?:{_TIME_WORDS})\b)")
"""Whether a sentence may hold a clause a condition governs (then it is read clause by clause)."""

QUESTION = re.compile(r"[?¿]|\bwhether\b")
"""A question, or a clause asking whether: it claims nothing, whatever its tense."""

CONDITIONAL = re.compile(rf"{QUESTION.pattern}|\b(?:if|wenn|falls|si)\b")
"""`Sentence.conditional`: a question or an "if" in the clause, the narrow flag other readers judge by (their
sense of "affirmed"); which clauses a condition governs is `governed`'s, with every condition word."""

# The reader looking or wondering ("if you check your statement, ...", "in case you were wondering, ..."), or
# the customer's own wish ("if you prefer, we can replace it", "we can refund it if you'd like"): such a
# condition governs nothing. What it introduces is a fact, or an offer the customer need only accept.
_READER_ACTS = (r"check\w*|look\w*|log\w* in|open\w*|view\w*|see|visit\w*|glance\w*|compare\w*|wonder\w*|curious|"
                r"want to know|like to know|need to know|nachsehen|nachschauen|prüfen|schauen|sehen|einloggen|"
                r"vérifiez|regardez|consultez|jetez|prefer\w*|like|want|wish|agree|möchten|wünschen|wollen|mögen|"
                r"einverstanden|préférez|souhaitez|voulez|désirez")
_LOOKING = re.compile(
    rf"^\W*(?:{_CONDITION_WORDS}|{_TIME_WORDS}|should|sollten?)\s+"
    rf"(?:(?:you|you'd|you're|you've|you'll|sie|vous)\s+(?:[\w']+\s+){{0,3}}?(?:{_READER_ACTS})|(?:lo\s+|le\s+|usted\s+)?(?:revisa\w*|mira\w*|consulta\w*|comprueba\w*|verifica\w*|"
    r"prefiere|desea|quiere))\b|^\W*(?:falls|wenn|if)\s+(?:gewünscht|erwünscht|desired|preferred)\b|"
    # A condition only in name: leave to the customer ("if that's OK"), help ("if it helps"), or hedge the speaker's
    # memory ("unless I'm mistaken"): what it goes with is said anyway.
    r"^\W*(?:if|unless)\s+(?:(?:that|this|it)(?:'s|\s+is|\s+works)\s+(?:ok|okay|alright|all right|fine|good)|"
    r"(?:that|this|it)\s+helps|i(?:'m|\s+am)\s+(?:not\s+)?mistaken|i\s+(?:remember|recall)\s+(?:correctly|right))\b")
# Joined on to a governed consequence, so governed too: "..., let me know and we'll send a replacement", "...,
# melden Sie sich, dann schicken wir Ersatz".
_JOINED = re.compile(r"^[\s,]*(?:and|or|then|und|oder|dann|y|o|e|et|ou|puis)[\s,]*$")
_THEN = re.compile(r"^\W*(?:then|dann|entonces|luego|alors|puis)\b")
_PUNCTUATION = re.compile(r"[,;:()\u2013\u2014-]")

_ES_PRETERITE = (r"(?:(?:reembols|acredit|abon|anul|cancel|tramit|gestion|mand|envi|transfer|proces|reemplaz|cambi|"
                 r"aprob|complet|ingres|reintegr)(?:é|ó|aron)|(?:realic|modifiqu|actualic)é|(?:realiz|modific|actualiz)"
                 r"(?:ó|aron)|(?:devolv|emit|repus|sustitu|recib)(?:í|ió|imos|ieron|yó|yeron)|devolvimos|emitimos|"
                 r"hice|hizo|hicimos|hicieron)\b")
"""Spanish preterites of the shop's acts ("reembolsé", "le devolvimos", "se anuló"): a report of something done."""
# Something done, by language: a perfect or a past passive with its participle, a past of the shop's act, or
# "already". A modal before the perfect ("would have refunded") is a counterfactual, not a report.
_EN_PARTICIPLE = r"(?:\w+ed|sent|paid|made|done|put|set|got|gotten|taken|given|gone|written|seen|shown|been|known)"
_DONE = {
    "en": re.compile(
        r"(?<!will )(?<!'ll )(?<!would )(?<!'d )(?<!could )(?<!should )(?<!might )(?<!may )(?<!must )(?<!to )"
        rf"\b(?:have|has|'ve|had|was|were|'s been)\s+(?:\w+\s+){{0,2}}?{_EN_PARTICIPLE}\b|"
        r"\b(?:i|we)\s+(?:(?:already|just|also|then|now)\s+)?(?:\w+ed|sent|paid|made|put|gave|took|went|did)\b|"
        r"\b(?:it|they|the\s+\w+|your\s+\w+)\s+(?:went|came|arrived|reached|showed)\b|\balready\b"),
    "de": re.compile(
        r"\b(?:habe|hat|haben|habt|hatte|hatten|ist|sind|war|waren|wurde|wurden)\b.*"
        r"\b(?:ge\w+(?:t|en)|\w+iert|erstattet|überwiesen|zurückerstattet|versandt|verschickt|ersetzt|"
        r"veranlasst|worden)\b|\b(?:bereits|schon)\b"),
    "es": re.compile(
        r"\b(?:he|has|ha|hemos|habéis|han|había|habían|fue|fueron)\s+(?:\w+\s+){0,2}?\w+(?:ad|id)[oa]s?\b|"
        r"\b(?:devuelto|hecho|puesto|reembolsé|devolví|envié|transferí|emití|procesé|acredité)\b|\bya\b|"
        # The preterite of the shop's acts without "he"/"hemos" or "ya": "le devolvimos", "reembolsó", "se
        # reembolsó", "anularon". (The -amos of -ar verbs is also a present, "le reembolsamos si ...": no report.)
        rf"\b{_ES_PRETERITE}"),
    "fr": re.compile(
        r"\b(?:ai|as|a|avons|avez|ont|avait|avaient|est|sont|était|étaient)\s+(?:\w+\s+){0,2}?"
        r"\w+(?:é|ée|és|ées|is|it|ert|u|us)\b|\bdéjà\b"),
}


# Where the consequence of a condition starts when no comma marks it ("if it doesn't arrive we refunded you
# already"): the shop speaking of itself, with German's verb before its subject ("... haben wir bereits
# erstattet") and Spanish's dropped subject ("... ya le hemos reembolsado").
_CLITICS = r"(?:(?:le|les|se|lo|la|los|las|te|os)\s+)*"
_SHOP_SUBJECT = {
    "en": re.compile(r"\b(?:i|we)(?:['\u2019](?:ve|d|ll|m|re))?\b"),
    "de": re.compile(r"\b[^\W\d_]+\s+(?:ich|wir)\b"),
    "es": re.compile(rf"\b(?:ya\s+)?{_CLITICS}(?:he|hemos)\b|\bya\s+{_CLITICS}[^\W\d_]+[éí]\b|"
                     rf"\b{_CLITICS}{_ES_PRETERITE}"),
    "fr": re.compile(r"\b(?:je\b|j['\u2019]|nous\b)"),
}
# Before the shop's subject, a word that makes it part of the condition: what the customer thinks or saw ("if
# you think we refunded too little"), or a relative or complement clause ("if the item that we sent ...").
_WITHIN_CONDITION = frozenset({
    "that", "what", "how", "which", "who", "whom", "where", "when", "why", "whether", "if", "think", "thought",
    "believe", "feel", "suspect", "fear", "worry", "assume", "suppose", "guess", "mean", "say", "said", "says",
    "notice", "noticed", "see", "saw", "find", "found", "know", "knew", "hear", "heard", "realize", "realise",
    "remember", "recall", "understand", "sure", "claim", "wonder", "told", "tell", "us", "me",
    "dass", "ob", "was", "wie", "wo", "welche", "welcher", "welches", "den", "die", "das", "der", "dem", "denen",
    "que", "qué", "cómo", "cuándo", "donde", "dónde", "si", "quand", "où", "dont", "comment", "qu", "ce",
})
# A condition that is only a noun phrase has no verb yet: the shop's subject then opens a relative clause ("if
# the item we sent was damaged, ..."), not the consequence.
_NOUN_PHRASE = re.compile(r"^(?:the|your|my|our|a|an|this|that|these|those|any|der|die|das|den|ihr|ihre|el|"
                          r"la|los|las|su|sus|le|les|votre|vos|un|une)\s+\S+(?:\s+\S+)?$")


def _consequence_at(text: str, lang: str | None) -> int | None:
    """Where the consequence starts in a clause that opens with a condition and holds it with no comma between
    ("if it doesn't arrive | we refunded you already"), or None. Split there, the consequence is a clause of its
    own: governed if it offers ("we will refund you"), a claim if it reports something done, and the
    condition's "not" is no negation of it."""
    head = _OPENS_CONDITION.search(text)
    subject = _SHOP_SUBJECT.get(lang or "en")
    if head is None or subject is None or _LOOKING.search(text):
        return None
    for m in subject.finditer(text, head.end()):
        condition = text[head.end():m.start()].strip(" ,")
        before = re.findall(r"[^\W\d_]+", condition)
        if not before or before[-1] in _WITHIN_CONDITION or _NOUN_PHRASE.search(condition):
            continue  # the condition's own subject, or a clause inside the condition
        return m.start()
    return None


def _done(text: str, lang: str | None) -> bool:
    """Whether `text` reports something done (every language's forms when `lang` is unknown)."""
    if lang in _DONE:
        return bool(_DONE[lang].search(text))
    # Unknown language: the French "a" is also an English article ("a credit"), so only the other forms.
    return any(p.search(text) for k, p in _DONE.items() if k != "fr")


def reports_done(text: str, lang: str | None) -> bool:
    """Whether `text` reports something done: a perfect or past passive, a past of the shop's act, or "already"
    ("the refunds were issued", "wir haben erstattet"); a rule in the present ("refunds are available") does not."""
    return _done(text, lang)


def opens(text: str) -> str | None:
    """How a clause opens: "condition", "time" (a time to come), or None (neither, or the reader looking)."""
    if _LOOKING.search(text):
        return None
    if _OPENS_CONDITION.search(text):
        return "condition"
    return "time" if _OPENS_TIME.search(text) and not _NARRATIVE.search(text) else None


def _trailing(text: str, lang: str | None) -> bool:
    """Whether a condition inside the clause governs it: a condition word after its start, what comes before
    it reporting nothing done, and the condition neither a precaution nor the reader looking."""
    for m in _CONDITION.finditer(text):
        if not text[:m.start()].strip(" ,"):
            continue  # it opens the clause: see `opens`
        cond = text[m.start():]
        if _PRECAUTION.search(cond) or _LOOKING.search(cond):
            continue
        return not _done(text[:m.start()], lang)
    return False


def governed(clauses: Sequence[str], separators: Sequence[str], lang: str | None) -> list[bool]:
    """Which clauses of a sentence a condition governs (see the module's rule).

    Args:
        clauses: The sentence's clauses, in order, lowercased.
        separators: The text between each clause and the one before it (the first one's is empty).
        lang: The sentence's language, or None.
    """
    n = len(clauses)
    kinds = [opens(c) for c in clauses]
    out = [k == "condition" or (k is None and _trailing(c, lang)) for c, k in zip(clauses, kinds, strict=True)]
    for i, kind in enumerate(kinds):
        if kind is None:
            continue
        j = i + 1
        # The condition runs on up to a punctuation mark ("if it | still hasn't shown up by Friday, ..." is split
        # at "still"); then comes its consequence, and what is joined on to that ("... and we'll send one").
        while j < n and kinds[j] is None and not _PUNCTUATION.search(separators[j]):
            out[j] = out[j] or not _done(clauses[j], lang)
            j += 1
        k = j
        while k < n and kinds[k] is None and (k == j or _JOINED.match(separators[k]) or _THEN.match(clauses[k])):
            out[k] = out[k] or not _done(clauses[k], lang)
            k += 1
        if kind == "condition" and i == n - 1 and i > 0 and kinds[i - 1] is None \
                and not _PRECAUTION.search(clauses[i]):
            # A condition ending its sentence governs the clause before it.
            out[i - 1] = out[i - 1] or not _done(clauses[i - 1], lang)
    return out


def split_governed(text: str, splitter: re.Pattern[str], lang: str | None) -> list[tuple[str, bool]]:
    """Splits a sentence by `splitter` into its clauses, each with whether a condition governs it (`governed`).

    The separators are kept for the rule: a clause joined on by "and" to a governed one is governed too.
    """
    pieces: list[str] = []
    seps: list[str] = []
    at = 0
    sep = ""
    for m in splitter.finditer(text):
        piece = text[at:m.start()]
        if piece.strip():
            pieces.append(piece)
            seps.append(sep)
            sep = ""
        else:
            sep += piece
        sep += m.group(0)
        at = m.end()
    if text[at:].strip():
        pieces.append(text[at:])
        seps.append(sep)
    pieces, seps = _consequences_split(pieces, seps, lang)
    flags = governed([p.strip().lower() for p in pieces], [p.lower() for p in seps], lang)
    return list(zip(pieces, flags, strict=True))


def _consequences_split(pieces: list[str], seps: list[str], lang: str | None) -> tuple[list[str], list[str]]:
    """The pieces with each condition that holds its consequence without a comma split before it
    (`_consequence_at`): "if it doesn't arrive we refunded you already" is a condition and a claim."""
    out: list[str] = []
    out_seps: list[str] = []
    for piece, sep in zip(pieces, seps, strict=True):
        low = piece.lower()
        at = _consequence_at(low.strip(), lang) if len(low) == len(piece) and opens(low.strip()) == "condition" \
            else None
        if at is None:
            out.append(piece)
            out_seps.append(sep)
            continue
        at += len(low) - len(low.lstrip())
        out += [piece[:at], piece[at:]]
        out_seps += [sep, ""]
    return out, out_seps
