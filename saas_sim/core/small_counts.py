"""The words for one and two, read as numbers only where they count something (en/de/es/fr).

text2num leaves "one" and "two" alone (its threshold is 3), because most of them are no numbers: "no one",
"one of our team", "the one you ordered", "one moment please", and in German, Spanish and French the same
word is the indefinite article ("ein Ersatz", "un reembolso", "une erreur"). Yet "I've sent two new
backpacks" states a quantity. The rules, so a stray word reads as no number:

- **Two** ("two", "zwei", "dos", "deux") counts when a word that can be counted follows it: "two new
  backpacks", "zwei neue Rucksäcke", "two of the lamps". Not when a pronoun, verb or conjunction follows ("the
  two are on their way"), nor beside "or" ("one or two days" is no count), nor in a compound ("two-factor"),
  nor in "my two cents".
- **One** in English counts the same way, but for what a determiner before it or the word after it makes
  a pronoun or an idiom: "no one", "each one", "one of our team", "the one you ordered", "one moment",
  "one more thing", "at one point". "One replacement unit" counts.
- **One** in German, Spanish and French is the article unless something marks it as a count: "only" or
  "exactly" before it ("nur ein Artikel", "solo una unidad", "seulement un article"), "single" after it ("un
  seul", text2num's own reading), or a unit noun after it ("eine Einheit", "una unidad", "une unité").
  "Only one" and "exactly one" count in English too, whatever follows, as does a number word after a
  multiplication sign ("17.00 USD x two").

- **A new thing sent** counts one: "I've sent you a new backpack", "ein neuer Rucksack ist unterwegs", "le
  enviamos una mochila nueva", "je vous ai envoyé un sac à dos neuf" state 1. Only the article before "new"
  (or after which "nuevo", "neuf" follows the noun), and only in a sentence that sends, ships or replaces
  something: "a new ticket" elsewhere, and "a" or "ein" alone, stay words.

Words that only look like numbers are kept words (`kept_words`): the French "neuf" is "new" after its noun
("un sac à dos neuf", "remis à neuf", "quoi de neuf") and 9 before what it counts ("neuf articles", "neuf
euros", "les neuf"); the German "Acht" of "außer Acht lassen" or "in Acht nehmen" is care, not 8. (The
Spanish "nuevo" and the German "neu" are no number words, "nueve" and "neun" are.)

Amounts gain only money said in words: "two dollars" is an amount of 2 (a currency word follows), while
"two $25 items" and "two USD invoices" keep "two" a word (a figure or a currency code is nothing counted).
"""

from __future__ import annotations

import functools
import re

__all__ = ["counts_as_digits", "kept_words", "restored_words"]

_TWO = {"en": ("two",), "de": ("zwei",), "es": ("dos",), "fr": ("deux",)}
_ONE = {"en": ("one",), "de": ("ein", "eine", "einen", "einem", "einer", "eines"), "es": ("un", "uno", "una"),
        "fr": ("un", "une")}
_OR = frozenset({"or", "oder", "o", "u", "ou"})
_ONLY = frozenset({"only", "exactly", "nur", "genau", "lediglich", "bloß", "solo", "sólo", "solamente",
                   "únicamente", "exactamente", "seulement", "exactement", "uniquement", "qu"})
_UNIT_NOUNS = frozenset({"unit", "piece", "item", "stück", "einheit", "exemplar", "artikel", "unidad", "pieza",
                         "ejemplar", "artículo", "unité", "pièce", "exemplaire", "article",
                         "einzige", "einziger", "einziges", "einzigen", "sola", "solo", "seul", "seule"})
# What cannot be counted: a pronoun, a verb, a conjunction or a word that ends the noun phrase. After such
# a word the number word is a pronoun itself ("the two are on their way", "one is enough").
_NOT_COUNTED = frozenset({
    "and", "to", "by", "you", "your", "we", "i", "he", "she", "they", "it", "its", "is", "are", "was", "were",
    "be", "been", "will", "would", "can", "could", "should", "may", "might", "must", "has", "have", "had", "do",
    "does", "did", "that", "which", "who", "whom", "whose", "what", "where", "when", "as", "than", "so", "but",
    "if", "please", "thanks", "too", "here", "there", "now", "then", "yet", "both", "each", "at", "in", "on",
    "for", "with", "from", "about", "after", "before",
    "und", "sie", "wir", "ich", "er", "es", "ist", "sind", "war", "waren", "wird", "werden", "haben", "hat",
    "y", "e", "que", "son", "fue", "usted", "nosotros", "está", "están",
    "et", "qui", "est", "sont", "vous", "nous", "il", "elle",
})
# After "one": what makes it a pronoun or an idiom ("one of our team", "one moment", "one more thing").
_NOT_COUNTED_AFTER_ONE = frozenset({
    "of", "another", "other", "others", "more", "last", "such", "like", "moment", "second", "sec", "minute",
    "day", "time", "way", "thing", "point", "hand", "quick", "final", "the", "a", "an", "my", "our", "us",
})
_NOT_COUNTED_AFTER_TWO = frozenset({"cents"})
_MONEY_AFTER_ONE = frozenset({"dollar", "euro", "cent", "pound", "buck", "penny", "franc"})
"""After "one", money is an idiom ("not one cent", "we didn't charge you one euro extra"), not an amount of 1."""
# Before "one": a determiner that makes it a pronoun ("no one", "each one", "this one", "which one").
_PRONOUN_BEFORE_ONE = frozenset({"no", "any", "every", "each", "this", "that", "which", "another", "some", "the", "a",
                                 "at", "last"})
_WORD = r"[^\W\d_][\w'\u2019]*"
_NEXT = re.compile(rf"[ \u00a0]+({_WORD})")
_PREV = re.compile(r"([^\W\d_]+)(?:[ \u00a0]+|['\u2019])$")
"""The word before: after a space, or elided onto it ("qu'un", "n'importe")."""


def _neighbours(text: str, start: int, end: int) -> tuple[str | None, str | None]:
    """The words right before and after text[start:end], lowercased; None across punctuation or a figure."""
    before = _PREV.search(text[max(0, start - 40):start])
    after = _NEXT.match(text, end)
    return (before.group(1).lower() if before else None), (after.group(1).lower() if after else None)


_CURRENCY_CODES = frozenset({"aud", "cad", "chf", "eur", "gbp", "jpy", "usd"})
"""After a currency code the word counts records, not money ("two USD invoices"): money in words has a
currency word ("two dollars")."""


_TIMES = frozenset({"x", "times", "mal"})
"""After a multiplication sign or word a number word counts whatever follows ("17.00 USD x two")."""


def _counts_two(prev: str | None, nxt: str | None) -> bool:
    if prev in _TIMES:
        return True
    return (nxt is not None and nxt not in _NOT_COUNTED and nxt not in _OR and nxt not in _NOT_COUNTED_AFTER_TWO
            and nxt not in _CURRENCY_CODES and prev not in _OR)


def _counts_one(lang: str, prev: str | None, nxt: str | None) -> bool:
    if prev in _OR or nxt in _OR:
        return False
    if prev in _ONLY or prev in _TIMES:
        return True
    if lang != "en":
        return nxt in _UNIT_NOUNS
    return (nxt is not None and prev not in _PRONOUN_BEFORE_ONE and nxt not in _NOT_COUNTED
            and nxt not in _NOT_COUNTED_AFTER_ONE and nxt not in _CURRENCY_CODES and nxt not in _MONEY_AFTER_ONE)


@functools.cache
def _words(lang: str) -> tuple[dict[str, str], re.Pattern[str]]:
    """`lang`'s words for one and two with their digits, and the pattern that finds them (built once)."""
    words = dict.fromkeys(_TWO[lang], "2") | dict.fromkeys(_ONE[lang], "1")
    return words, re.compile(rf"(?<![\w-])(?:{'|'.join(words)})(?![\w-])", re.IGNORECASE)


# "A new X" sent: the article before "new" (or before a noun that "nuevo"/"neuf" follows), in a sentence that
# sends, ships, replaces or has the customer receive goods.
_NEW_THING = {
    "en": re.compile(r"\b(?:a|an)(?=\s+(?:brand[\s-]+)?new\s+[^\W\d_])", re.IGNORECASE),
    "de": re.compile(r"\b(?:ein|eine|einen|einem|einer)(?=\s+(?:brand)?neu(?:e|er|en|em|es)\s+[^\W\d_])",
                     re.IGNORECASE),
    "es": re.compile(r"\b(?:un|una)(?=\s+(?:nuev[oa]\s+[^\W\d_]|[^\W\d_]+(?:\s+de\s+[^\W\d_]+)?\s+nuev[oa]\b))",
                     re.IGNORECASE),
    "fr": re.compile(r"\b(?:un|une)(?=\s+(?:nouveau|nouvel|nouvelle)\s+[^\W\d_]|\s+[^\W\d_]+(?:\s+(?:à|de)\s+"
                     r"[^\W\d_]+)?\s+(?:neuf|neuve)\b)", re.IGNORECASE),
}
_SENDS = {
    "en": re.compile(r"\b(?:sent|send\w*|ship\w*|dispatch\w*|mail(?:ed|ing)?|post(?:ed|ing)|replac\w*|"
                     r"on\s+(?:its|the|their)\s+way|deliver\w*|receiv\w*)\b", re.IGNORECASE),
    "de": re.compile(r"\b(?:\w*schick\w*|versandt|versend\w*|gesendet|send\w*|ersetz\w*|ersatz\w*|unterwegs|"
                     r"zugestellt|geliefert|liefer\w*|erhalten|bekommen)\b", re.IGNORECASE),
    "es": re.compile(r"\b(?:envi\w*|mand\w*|reemplaz\w*|sustitu\w*|camino|recib\w*)\b", re.IGNORECASE),
    "fr": re.compile(r"\b(?:envoy\w*|envoi\w*|expédi\w*|remplac\w*|route|livr\w*|recev\w*)\b", re.IGNORECASE),
}
_SENTENCE_END = re.compile(r"[.!?\n]")


def _in_sending_sentence(text: str, start: int, lang: str) -> bool:
    """Whether the sentence around `start` sends, ships or replaces something."""
    begin = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    end = m.start() if (m := _SENTENCE_END.search(text, start)) is not None else len(text)
    return bool(_SENDS[lang].search(text, begin, end))


def _new_things_as_digits(text: str, lang: str) -> str:
    return _NEW_THING[lang].sub(lambda m: "1" if _in_sending_sentence(text, m.start(), lang) else m.group(), text)


_MASK = "\ue000"
"""Put inside a word so text2num passes it by (a private-use character: no text holds it)."""
_NEUF = re.compile(r"(?<![\w-])neuf(?![\w-])", re.IGNORECASE)
_ACHT = re.compile(r"(?<![\w-])acht(?![\w-])", re.IGNORECASE)
_PLURAL_FUNCTION_WORDS = frozenset({
    "vous", "nous", "dans", "sans", "plus", "mais", "tous", "pas", "très", "ils", "elles", "leurs", "des", "les",
    "mes", "tes", "ses", "ces", "aux", "jamais", "depuis", "alors", "après", "avons", "avez", "sommes", "êtes",
    "sont", "puis", "dès", "chez", "sous", "vers", "moins", "toujours",
})
_NUMBER_AFTER = frozenset({"cent", "cents", "mille", "million", "millions", "milliard", "milliards"})
_NUMBER_BEFORE = frozenset({"les", "des", "ces", "ses", "mes", "tes", "nos", "vos", "leurs", "aux", "sur", "dans",
                            "après", "pendant", "environ", "que", "qu", "plus", "moins", "et", "ou", "seulement"})
_ACHT_IDIOM_AFTER = frozenset({"nehmen", "genommen", "geben", "gegeben", "lassen", "gelassen", "gab", "nahm"})


def _neuf_is_new(text: str, m: re.Match[str]) -> bool:
    """Whether "neuf" is the adjective: nothing it counts follows (a plural noun, a currency sign or a scale
    word), and no determiner or preposition that takes a number stands before it."""
    prev, nxt = _neighbours(text, m.start(), m.end())
    if re.match(r"\s*[€$£%]", text[m.end():]) or nxt in _NUMBER_AFTER:
        return False
    if nxt is not None and nxt[-1:] in ("s", "x") and nxt not in _PLURAL_FUNCTION_WORDS:
        return False
    return prev not in _NUMBER_BEFORE


def kept_words(text: str, lang: str) -> str:
    """Returns `text` with the words that only look like numbers masked from text2num (see the module rules);
    `restored_words` undoes it."""
    if _MASK in text:
        return text
    if lang == "fr":
        return _NEUF.sub(lambda m: m.group()[:1] + _MASK + m.group()[1:] if _neuf_is_new(text, m) else m.group(),
                         text)
    if lang == "de":
        def idiom(m: re.Match[str]) -> bool:
            prev, nxt = _neighbours(text, m.start(), m.end())
            # "außer Acht lassen", "in Acht nehmen", "nehmen Sie sich in Acht." (not "in acht Tagen")
            return prev == "außer" or nxt in _ACHT_IDIOM_AFTER or (prev == "in" and nxt is None)
        return _ACHT.sub(lambda m: m.group()[:1] + _MASK + m.group()[1:] if idiom(m) else m.group(), text)
    return text


def restored_words(text: str) -> str:
    """Undoes `kept_words`."""
    return text.replace(_MASK, "")


def counts_as_digits(text: str, lang: str) -> str:
    """Returns `text` with the words for one and two written as digits where they count (see the module rules).

    Args:
        text: Text whose larger number words are already digits (text2num's `alpha2digit`).
        lang: Its ISO 639-1 language; other languages than en/de/es/fr are returned unchanged.
    """
    if lang not in _TWO:
        return text
    words, pattern = _words(lang)

    def convert(m: re.Match[str]) -> str:
        prev, nxt = _neighbours(text, m.start(), m.end())
        digit = words[m.group().lower()]
        counts = _counts_two(prev, nxt) if digit == "2" else _counts_one(lang, prev, nxt)
        return digit if counts else m.group()

    return _new_things_as_digits(pattern.sub(convert, text), lang)
