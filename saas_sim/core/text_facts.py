"""Facts read from free text: language, amounts, numbers, codes, dates, sentences, negation.

Checks judge an agent's reply by the facts it states, never by its wording, so
these readers must agree on "25", "25.00", "$25" and "twenty-five dollars".
Parsing leans on maintained libraries: `lingua-language-detector` (language),
`text2num` (number words), `babel` (each locale's decimal symbol and month names).

The rules that decide what counts, so checks can rely on them:
- **Number format.** A separator followed by 1-2 digits is a decimal point
  (`25,50` and `25.50` are both 25.50). Both "." and "," in one number: the last is
  the decimal point (`1.234,50`, `1,234.50`). A single separator followed by exactly
  three digits is a thousands separator, unless `lang`'s locale uses it as its
  decimal symbol (`1.234` is 1234 in "de" and for no language, but 1.234 in "en").
  Repeated separators must group by three (`1.234.567`); other shapes (`1.2.3`)
  are not numbers. No-break and thin spaces group thousands; a plain space does
  only in French (`1 234,50 €`).
- **Ids are not numbers.** Digits glued to letters or "_" (`ORD10023`, `tkt_000017`,
  `3rd`), after a letter and a hyphen (`ORD-10023`), or joined by ":" or "/" to
  other digits (times, fractions) are never read as numbers; use `extract_codes`.
  Digits after "#", "No.", "Nr.", "n°" are numbers but never amounts. Explicit dates
  (see `extract_dates`) are neither.
- **Amounts.** A number is an amount when a currency marker touches it (a symbol,
  an ISO code or a currency word before or after it: `$25`, `25 USD`, `25,50 €`,
  `25 Euro`, `five dollars`) or when it has exactly two decimals (`25.00`). A bare
  integer ("3 days", "order 10023") is a number, not an amount. Minor units count
  as hundredths (`50 cents` is 0.50), and "25 dollars and 50 cents" is one amount.
- **Scales.** A number followed by a scale word is one number: `101.5 thousand`, `1,2 Millionen`
  and `2.5 million` are 101500, 1200000 and 2500000 (number words alone, `forty-five thousand`,
  were always read). `k` glued to digits is a thousand (`45k`, `$45K`); `m`, `mn` and `bn` glued to
  digits scale only beside a currency marker (`EUR 1.2m`, `3bn USD`), since `6m` may be metres.
- **One and two.** text2num reads number words from three up; "one" and "two" (and their
  de/es/fr words) are numbers only where they count something ("two new backpacks", "nur ein
  Artikel"), never as a pronoun, an article or an idiom ("no one", "one moment", "ein Ersatz");
  see `small_counts`. A currency symbol that leads the next figure marks that figure only
  ("2 $25 items" states $25). A new thing sent counts one ("I've sent you a new backpack"), and
  words that only look like numbers stay words (the French "un sac à dos neuf" is new, not 9).
- **Bounded.** A number above `MAX_FACT` (10^15, far beyond any amount a world holds)
  reads as `MAX_FACT`: still a stated figure no state can make true, but one that
  checks can quantize and add without `decimal.InvalidOperation` (28 digits).
- **Language** is decided by lingua, per sentence, and the language holding more
  than half of the reply's letters wins; see `detect_language`. For short text, where
  one guess is unreliable, `language_confidences` gives lingua's confidence in each
  language for the words alone (`without_figures`), so a check can ask for evidence.

Everything is pure and deterministic: no clock, no randomness, sorted orders.
The lingua detector is built once per process on first use: it holds only model
data, never episode data.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import babel.dates
import babel.numbers
from lingua import Language, LanguageDetector, LanguageDetectorBuilder
from text_to_num import alpha2digit  # type: ignore[import-untyped]  # ships no py.typed

from saas_sim.core.small_counts import counts_as_digits, kept_words, restored_words
from saas_sim.errors import UsageError

__all__ = [
    "LANGUAGES",
    "MAX_FACT",
    "AmountMention",
    "date_mentions",
    "detect_language",
    "extract_amounts",
    "extract_codes",
    "extract_dates",
    "extract_numbers",
    "language_confidences",
    "language_shares",
    "located_amounts",
    "negated",
    "normalize_code",
    "numbers_as_digits",
    "sentences",
    "warm_text_readers",
    "without_figures",
]

LANGUAGES: tuple[str, ...] = ("de", "en", "es", "fr", "it", "nl", "pt")
"""ISO 639-1 codes of the languages the worlds use (and their neighbours), sorted."""

_LINGUA = {
    "de": Language.GERMAN, "en": Language.ENGLISH, "es": Language.SPANISH, "fr": Language.FRENCH,
    "it": Language.ITALIAN, "nl": Language.DUTCH, "pt": Language.PORTUGUESE,
}
_MIN_LETTERS = 4
"""Below this many letters ("ok", "Ja") no language can be told apart, so the answer is None."""


@functools.cache
def _detector() -> LanguageDetector:
    """Returns the process-wide lingua detector, restricted to `LANGUAGES` (built on first use).

    High-accuracy mode: it is better on short replies, which is what agents write. Its models are
    loaded when it is built (1-2 s), not by its first reading, so `warm_text_readers` can pay
    for them off the event loop.
    """
    builder = LanguageDetectorBuilder.from_languages(*(_LINGUA[code] for code in LANGUAGES))
    return builder.with_preloaded_language_models().build()


def warm_text_readers() -> None:
    """Loads what the readers here load on first use: the language models and the month-name tables.

    A domain's `warm` (off the event loop): together they are one to two seconds of a first grade.
    """
    _detector()
    for lang in (None, *LANGUAGES):
        _date_patterns(lang)


# ---------------------------------------------------------------- sentences

_SENTENCE_END = re.compile("(?<=[.!?\u2026])[\"'\u00bb\u201d\u2019)\\]]*\\s+|\\s*\\n\\s*")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|z\.\s?B|d\.\s?h|u\.\s?a|bzw|ca|dr|mr|mrs|ms|prof|sr|sra|st|vs|no|nr|nº|n°|núm|art|abs|inkl|"
    r"zzgl|ggf|evtl|usw|mme|mlle)\.|\b[A-Za-z]\.|\b\d{1,2}\.)$",
    re.IGNORECASE,
)
"""A piece ending like this did not end a sentence ("z. B.", "Nr.", "3. März")."""
_SINGLE_LETTER = re.compile(r"^[^\W\d_]\.")


def sentences(text: str, lang: str | None = None) -> list[str]:
    """Splits `text` into sentences, in order, each stripped; empty pieces are dropped.

    A sentence ends at ".", "!", "?" or "…" followed by space, or at a line break.
    A piece ending in a common abbreviation, a single letter or a day number
    ("Nr.", "e.g.", "3.") is joined to the next one when that one starts in
    lowercase or with a digit, or, for a day number, with a month name.

    Args:
        text: Any text.
        lang: Unused today; kept so a language-specific splitter can replace this one.
    """
    del lang
    pieces = [p.strip() for p in _SENTENCE_END.split(text)]
    out: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]) and (piece[0].islower() or piece[0].isdigit()
                                                      or _SINGLE_LETTER.match(piece) or _starts_with_month(piece)):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


# ---------------------------------------------------------------- language

def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


_NAME_LIKE = re.compile(
    r"(?<=[\s,;:(\"'\u00ab\u201c])"               # after a space or an opening mark: never the first word
    r"[^\W\d_][^\W\d_A-Z]*(?:[-'\u2019][^\W\d_]+)?"  # a word, possibly hyphenated (Jean-Luc, O'Neil)
    r"(?=[\s,;:.!?)\"'\u00bb\u201d]|$)"
)
_MIN_UNNAMED_LETTERS = 20


def _without_names(sentence: str) -> str:
    """The sentence without its capitalised words after the first one, when enough letters remain.

    A person's or company's name says nothing about the language a reply is written in, yet lingua
    weighs it like any word: "Dear Noémi, thank you for telling us, and I am sorry ..." reads as Dutch,
    and the same sentence with "Anna" as English. Mid-sentence capitalised words are mostly names in
    every language here; German nouns are capitalised too, but its lowercase function words carry
    the language. A sentence that would keep fewer than 20 letters is classed whole.
    """
    kept = _NAME_LIKE.sub(lambda m: "" if m.group(0)[0].isupper() else m.group(0), sentence)
    return kept if _letters(kept) >= _MIN_UNNAMED_LETTERS else sentence


@functools.lru_cache(maxsize=1 << 14)
def _sentence_language(sentence: str) -> tuple[str, int] | None:
    """The language lingua gives one sentence and its letter count, or None (no letters, or no guess).

    Memoized (bounded; pure): several checks of one grade, a regrade and the audit's replays all
    read the same replies, and classing a sentence is the costly part of reading one.
    """
    letters = _letters(sentence)
    if letters == 0:
        return None
    values = _detector().compute_language_confidence_values(_without_names(sentence))
    if not values or values[0].value <= 0.0:
        return None
    return values[0].language.iso_code_639_1.name.lower(), letters


def language_shares(text: str) -> dict[str, float]:
    """Returns each detected language's share of the letters of `text`, by code, sorted by code.

    Every sentence is classed by lingua on its own and counts with its number of
    letters, so a domain check can require, say, that at least 80% of a reply is German.
    Sentences without letters count for nothing. An empty text gives `{}`.
    """
    weights: dict[str, int] = {}
    for sentence in sentences(text):
        classed = _sentence_language(sentence)
        if classed is not None:
            code, letters = classed
            weights[code] = weights.get(code, 0) + letters
    total = sum(weights.values())
    return {code: weights[code] / total for code in sorted(weights)} if total else {}


def detect_language(text: str) -> str | None:
    """Returns the ISO 639-1 code of the language of `text`, or None when it cannot tell.

    Each sentence is classed by lingua (restricted to `LANGUAGES`) and weighs its
    letters; the language with more than half of all letters wins. So a few
    foreign words appended to an English reply ("... und der die das") do not make
    it German, a short native reply is read in its language, and a reply split
    evenly between two languages is None. Texts with fewer than 4 letters are None.

    Args:
        text: The whole reply.
    """
    if _letters(text) < _MIN_LETTERS:
        return None
    shares = language_shares(text)
    if not shares:
        return None
    # Ties broken by code so the answer never depends on dict or set order.
    code, share = min(shares.items(), key=lambda item: (-item[1], item[0]))
    return code if share > 0.5 else None


# ---------------------------------------------------------------- numbers

_CURRENCY_SYMBOLS = ("US$", "CA$", "A$", "$", "€", "£", "¥", "₣")
_CURRENCY_CODES = ("AUD", "CAD", "CHF", "EUR", "GBP", "JPY", "USD")
_CURRENCY_WORDS = (
    "dollars", "dollar", "dólares", "dólar", "dollari", "dollaro", "euros", "euro", "pounds", "pound", "pfund",
    "livres", "livre", "libras", "libra", "sterline", "sterlina", "francs", "franken", "franchi", "francos",
    "bucks",
)
_MINOR_WORDS = ("cents", "cent", "centimes", "centime", "céntimos", "céntimo", "cêntimos", "cêntimo", "centesimi",
                "centesimo", "eurocents", "eurocent", "pence", "penny")


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


_CUR_BEFORE = re.compile(
    rf"(?:(?:{_alternation(_CURRENCY_SYMBOLS)})|\b(?:{_alternation(_CURRENCY_CODES)}))[ \u00a0\u202f]?$",
    re.IGNORECASE,
)
_CUR_AFTER = re.compile(
    rf"^[ \u00a0\u202f]?(?:(?:{_alternation(_CURRENCY_SYMBOLS)})|(?:{_alternation(_CURRENCY_CODES)})\b"
    rf"|(?:{_alternation(_CURRENCY_WORDS)})\b)",
    re.IGNORECASE,
)
_PERCENT_AFTER = re.compile(r"^[ \u00a0\u202f]?(?:%|‰|percent\b|per cent\b|prozent\b|por ciento\b|pour ?cent\b)",
                            re.IGNORECASE)
_SYMBOL_OF_NEXT = re.compile(
    rf"^[ \u00a0\u202f]?(?:{_alternation(_CURRENCY_SYMBOLS)})[ \u00a0\u202f]?\d+(?:[.,]\d+)*(?![\d.,])"
    rf"(?![ \u00a0\u202f]?(?:{_alternation(_CURRENCY_SYMBOLS)}|(?:{_alternation(_CURRENCY_CODES)})\b))")
"""A currency symbol after a number that leads the next figure ("2 $25 items"): it marks that figure, unless
a marker follows that figure too ("25 € 30 €" is two amounts)."""
_MINOR_AFTER = re.compile(rf"^[ \u00a0\u202f]?(?:{_alternation(_MINOR_WORDS)})\b", re.IGNORECASE)
_MINOR_JOIN = re.compile(r"^[ ,]*(?:and|und|et|y|e|en)?[ ,]*$", re.IGNORECASE)
"""What may stand between "25 dollars" and "50 cents" for them to be one amount."""
_REFERENCE_BEFORE = re.compile(r"(?:#|\b(?:no|nr|nº|n°|núm|num)\.?)[ \u00a0]?$", re.IGNORECASE)
_NUMBER_RUN = re.compile(r"\d+(?:[.,\u00a0\u202f\u2009]\d+)*")
_NUMBER_RUN_FR = re.compile(r"\d+(?:(?:[.,\u00a0\u202f\u2009]| (?=\d{3}(?!\d)))\d+)*")
_GROUPING_SPACES = "\u00a0\u202f\u2009 "


MAX_FACT = Decimal(10) ** 15
"""The largest number a text states as far as checks know; larger ones read as this (see the module rules)."""


@dataclass(frozen=True, slots=True)
class _Number:
    start: int
    end: int
    value: Decimal
    decimals: int
    is_reference: bool


@functools.cache
def _decimal_symbol(lang: str | None) -> str | None:
    """Returns the decimal symbol of `lang`'s locale (babel), or None without a language."""
    if lang is None:
        return None
    try:
        return str(babel.numbers.get_decimal_symbol(lang))
    except (ValueError, babel.UnknownLocaleError):
        return None


def _interpret(token: str, lang: str | None) -> tuple[Decimal, int] | None:
    """Returns the value of a number token and its count of decimals, per the module's rules."""
    for space in _GROUPING_SPACES:
        token = token.replace(space, "\u00a0")
    seps = [(i, ch) for i, ch in enumerate(token) if not ch.isdigit()]
    if not seps:
        return Decimal(token), 0
    kinds = {ch for _, ch in seps}
    decimal_at: int | None = None
    last_i, last_ch = seps[-1]
    if last_ch in ".," and (len(kinds) > 1 or len(seps) == 1):
        fraction = len(token) - last_i - 1
        if len(kinds) > 1 or fraction != 3 or _decimal_symbol(lang) == last_ch:
            decimal_at = last_i
    groups_end = decimal_at if decimal_at is not None else len(token)
    group_seps = [(i, ch) for i, ch in seps if i < groups_end]
    if len({ch for _, ch in group_seps}) > 1:
        return None
    # Thousands groups: 1-3 leading digits, then groups of exactly three.
    bounds = [-1, *(i for i, _ in group_seps), groups_end]
    for n, (a, b) in enumerate(itertools.pairwise(bounds)):
        size = b - a - 1
        if size < 1 or (n > 0 and size != 3) or (n == 0 and group_seps and size > 3):
            return None
    digits = "".join(ch for ch in token[:groups_end] if ch.isdigit())
    if decimal_at is None:
        return Decimal(digits), 0
    fraction_digits = token[decimal_at + 1:]
    return Decimal(f"{digits}.{fraction_digits}"), len(fraction_digits)


def _is_code_context(text: str, start: int, end: int) -> bool:
    """Returns whether the digits text[start:end] are part of an id, a time or a fraction."""
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    if before.isalpha() or before == "_" or after == "_":
        return True
    if before in "-/" and start > 1 and text[start - 2].isalnum() and not text[start - 2].isdigit():
        return True
    if before in ":/" and start > 1 and text[start - 2].isdigit():
        return True
    if after in ":/" and end + 1 < len(text) and text[end + 1].isdigit():
        return True
    if after == "-" and end + 1 < len(text) and text[end + 1].isalpha():
        return True
    # Digits followed by letters are an id or a unit ("3rd", "10023A"), unless the letters are a currency.
    return after.isalpha() and not _CUR_AFTER.match(text[end:])


def _numbers(text: str, lang: str | None) -> list[_Number]:
    """Returns every number of `text` (already converted from words) per the module's rules."""
    excluded = [(s, e) for s, e, _ in _date_matches(text, lang)]
    pattern = _NUMBER_RUN_FR if lang == "fr" else _NUMBER_RUN
    out: list[_Number] = []
    for match in pattern.finditer(text):
        start, end = match.span()
        if any(s < end and start < e for s, e in excluded) or _is_code_context(text, start, end):
            continue
        parsed = _interpret(match.group(), lang)
        if parsed is None:
            continue
        value, decimals = parsed
        value = min(value, MAX_FACT)  # agent text can state any number of digits; checks do arithmetic on it
        reference = bool(_REFERENCE_BEFORE.search(text[max(0, start - 6):start]))
        out.append(_Number(start, end, value, decimals, reference))
    return out


_SCALE_WORDS = {
    "thousand": 3, "thousands": 3, "tausend": 3, "mil": 3, "mille": 3,
    "million": 6, "millions": 6, "millionen": 6, "mio": 6, "millón": 6, "millon": 6, "millones": 6,
    "billion": 9, "billions": 9, "milliarde": 9, "milliarden": 9, "mrd": 9, "milliard": 9, "milliards": 9,
}
_SCALED = re.compile(
    rf"(?<![\w.,])(\d+(?:[.,]\d+)?)[ \u00a0]?({_alternation(tuple(_SCALE_WORDS))})\b\.?", re.IGNORECASE)
_THOUSAND_SUFFIX = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)[kK]\b")
_MONEY_SUFFIX = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)(mn|bn|[mMbB])\b")
_SUFFIX_POWER = {"m": 6, "mn": 6, "b": 9, "bn": 9}


def _scaled_value(token: str, power: int, lang: str | None) -> str | None:
    """`token` (digits with at most one separator) times 10**power, written as plain digits, or None."""
    parsed = _interpret(token, lang)
    if parsed is None:
        return None
    value = parsed[0].scaleb(power)
    if value != value.to_integral_value():
        return None  # "1.2345 thousand": no amount anyone writes; left as it was
    return str(min(value, MAX_FACT).quantize(Decimal(1)))


def _scales_applied(text: str, lang: str | None) -> str:
    """`text` with scaled numbers written out in digits (see the module's rule on scales)."""
    def word(m: re.Match[str]) -> str:
        return _scaled_value(m.group(1), _SCALE_WORDS[m.group(2).lower()], lang) or m.group(0)

    def thousand(m: re.Match[str]) -> str:
        return _scaled_value(m.group(1), 3, lang) or m.group(0)

    def money(m: re.Match[str]) -> str:
        beside = _CUR_BEFORE.search(text[max(0, m.start() - 8):m.start()]) or _CUR_AFTER.match(text[m.end():])
        done = _scaled_value(m.group(1), _SUFFIX_POWER[m.group(2).lower()], lang) if beside else None
        return done or m.group(0)

    if any(ch.isdigit() for ch in text):
        text = _SCALED.sub(word, text)
        text = _THOUSAND_SUFFIX.sub(thousand, text)
        text = _MONEY_SUFFIX.sub(money, text)
    return text


def _spelled_out(text: str, lang: str | None) -> str:
    """Returns `text` with number words written as digits (text2num), in `lang` or the detected language.

    Only the words are read in the detected language; digit formats keep the rule
    for `lang` (None stays None), so a misdetection cannot change what "1.234" means.
    Scaled digits ("101.5 thousand", "$45k") are written out first: text2num would read the scale
    word alone, as 1000. The words for one and two, which text2num leaves alone, are read where they
    count something ("two new backpacks"), never as a pronoun or article ("no one", "ein Ersatz");
    see `small_counts`.
    """
    text = _scales_applied(text, lang)
    language = lang if lang is not None else (detect_language(text) or "en")
    if language not in LANGUAGES:
        return text
    # Words that only look like numbers ("un sac à dos neuf") are masked from text2num (`small_counts`).
    return counts_as_digits(restored_words(str(alpha2digit(kept_words(text, language), language))), language)


def numbers_as_digits(text: str, lang: str | None = None) -> str:
    """Returns `text` with its number words written as digits ("hold it for nine seconds" -> "... 9 seconds").

    Args:
        text: Any text.
        lang: Its ISO 639-1 language, or None to detect it (English when unsure).
    """
    return _spelled_out(text, lang)


def extract_numbers(text: str, lang: str | None = None) -> list[Decimal]:
    """Returns every number stated in `text`, number words included, in order of appearance.

    Digits inside ids, times and explicit dates are not numbers (see the module rules).

    Args:
        text: Any text.
        lang: Its ISO 639-1 language, or None to detect it (English when unsure).
    """
    return [n.value for n in _numbers(_spelled_out(text, lang), lang)]


def extract_amounts(text: str, lang: str | None = None) -> list[Decimal]:
    """Returns the money amounts stated in `text`, in order of appearance.

    An amount is a number with a currency marker or with exactly two decimals; see
    the module rules. References ("order #10023"), ids, dates and rates ("7.25%") never count.
    Each occurrence is listed, so "25 € ... 25 €" gives two entries.

    Args:
        text: Any text, e.g. an agent's reply.
        lang: Its ISO 639-1 language (decides `1.234` and number words), or None to
            detect it (English when unsure).
    """
    return [m.value for m in located_amounts(text, lang)[1]]


@dataclass(frozen=True, slots=True)
class AmountMention:
    """One amount of a text, where it stands: `start`/`end` index the text `located_amounts` returns.

    The span covers the number and a currency marker written before or after it ("$25",
    "25.00 EUR"), so what stands beside an amount (a label, a record it is told of) starts
    at `end` or ends at `start`.
    """

    start: int
    end: int
    value: Decimal


def located_amounts(text: str, lang: str | None = None) -> tuple[str, list[AmountMention]]:
    """Returns `text` with its number words written as digits, and the amounts it states, placed in it.

    The same amounts as `extract_amounts`, for a check that must know what each amount is
    stated as ("Total: 300.00" against "dl_000171: 300.00"). Spans index the returned text,
    which differs from `text` where number words were written out.

    Args:
        text: Any text.
        lang: As for `extract_amounts`.
    """
    converted = _spelled_out(text, lang)
    out: list[AmountMention] = []
    last_major_end: int | None = None
    for number in _numbers(converted, lang):
        if number.is_reference:
            continue
        rest = converted[number.end:]
        if (minor := _MINOR_AFTER.match(rest)) and number.decimals == 0:
            cents = number.value.scaleb(-2)
            end = number.end + minor.end()
            if out and last_major_end is not None and _MINOR_JOIN.match(converted[last_major_end:number.start]):
                out[-1] = AmountMention(out[-1].start, end, out[-1].value + cents)
                last_major_end = None
            else:
                out.append(AmountMention(number.start, end, cents))
            continue
        before = _CUR_BEFORE.search(converted[max(0, number.start - 8):number.start])
        # A symbol that leads the next figure marks that one: "2 $25 items" states $25, and 2 is a count.
        after = None if number.decimals == 0 and _SYMBOL_OF_NEXT.match(rest) else _CUR_AFTER.match(rest)
        marked = bool(before or after)
        if _PERCENT_AFTER.match(rest) and not marked:
            last_major_end = None  # a rate ("7.25%", "12,50 Prozent"), never money
            continue
        if marked or number.decimals == 2:
            last_major_end = number.end + (after.end() if after else 0)
            start = number.start - (len(before.group()) if before else 0)
            out.append(AmountMention(start, last_major_end, number.value))
        else:
            last_major_end = None
    return converted, out


# ---------------------------------------------------------------- codes

def normalize_code(code: str) -> str:
    """Returns the comparison form of an id: uppercased, separators removed (`"ord-10023"` -> `"ORD10023"`).

    Leading zeros are kept: `tkt_000017` and `tkt 17` are different codes.
    """
    return "".join(ch for ch in code.upper() if ch.isalnum())


def extract_codes(text: str, pattern: str) -> list[str]:
    """Returns the ids in `text` that match `pattern`, normalized, in order of first appearance, deduplicated.

    The pattern is matched case-insensitively and only as a whole token: a match
    touching another letter or digit is ignored, so `ORD-\\d{5}` does not read
    `ORD-100234`. Each match is passed through `normalize_code`; compare it with
    `normalize_code(stored_id)`.

    Args:
        text: Any text.
        pattern: A regular expression for one id, e.g. `r"ORD[-_ ]?\\d+"`.

    Raises:
        UsageError: `pattern` is not a valid regular expression (a bug in the check).
    """
    try:
        regex = re.compile(rf"(?<![0-9A-Za-z])(?:{pattern})(?![0-9A-Za-z])", re.IGNORECASE)
    except re.error as exc:
        raise UsageError(f"invalid code pattern {pattern!r}: {exc}") from None
    seen: dict[str, None] = {}
    for match in regex.finditer(text):
        code = normalize_code(match.group(0))
        if code:
            seen.setdefault(code, None)
    return list(seen)


# ---------------------------------------------------------------- dates

def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@functools.cache
def _month_table(lang: str | None) -> dict[str, int]:
    """Returns month name (accent-folded, no dot) -> month number for `lang`, or for all languages.

    Names come from babel (wide and abbreviated forms). Across languages, a name
    that means two different months is dropped rather than guessed.
    """
    langs = LANGUAGES if lang is None or lang not in LANGUAGES else (lang,)
    table: dict[str, int] = {}
    clashes: set[str] = set()
    for code in langs:
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                for month, name in babel.dates.get_month_names(width, context, locale=code).items():
                    key = _fold(str(name)).rstrip(".")
                    if table.get(key, month) != month:
                        clashes.add(key)
                    table[key] = month
    return {k: v for k, v in sorted(table.items()) if k not in clashes and len(k) >= 3}


@functools.cache
def _date_patterns(lang: str | None) -> tuple[re.Pattern[str], re.Pattern[str]]:
    names = _alternation(tuple(_month_table(lang)))
    month_first = re.compile(rf"\b({names})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
    day_first = re.compile(
        rf"\b(\d{{1,2}})(?:\.|st|nd|rd|th|er|º|°)?\s+(?:de\s+)?({names})\.?,?\s+(?:de\s+)?(\d{{4}})\b"
    )
    return month_first, day_first


# A date may end a sentence ("... on 03.04.2026."), but not be a piece of a longer dotted or dashed number.
_ISO_DATE = re.compile(r"(?<![\d.\-/])(\d{4})-(\d{2})-(\d{2})(?!\d|[.\-/]\d)")
_NUMERIC_DATE = re.compile(r"(?<![\d.\-/])(\d{1,2})([./\-])(\d{1,2})\2(\d{4})(?!\d|[.\-/]\d)")
_FIRST_WORD = re.compile(r"[^\W\d_]+")


def _starts_with_month(piece: str) -> bool:
    word = _FIRST_WORD.match(piece)
    return word is not None and _fold(word.group()).rstrip(".") in _month_table(None)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _date_matches(text: str, lang: str | None) -> list[tuple[int, int, date]]:
    """Returns (start, end, date) of every explicit date, in order, without overlaps."""
    found: list[tuple[int, int, date]] = []
    for m in _ISO_DATE.finditer(text):
        d = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if d:
            found.append((m.start(), m.end(), d))
    for m in _NUMERIC_DATE.finditer(text):
        a, b, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
        # Day/month rule: "." is always day.month; "/" and "-" are month/day in English, day/month otherwise,
        # unless one side is above 12, which leaves one reading.
        month_first = m.group(2) != "." and lang == "en"
        if a > 12 >= b:
            month_first = False
        elif b > 12 >= a:
            month_first = True
        d = _safe_date(year, a, b) if month_first else _safe_date(year, b, a)
        if d:
            found.append((m.start(), m.end(), d))
    folded = _fold(text)
    # Folding can change length (e.g. "ß" -> "ss"), so named dates are matched on a same-length fold.
    if len(folded) != len(text):
        folded = "".join(_fold(ch)[:1] or ch for ch in text)
    table = _month_table(lang)
    month_first_re, day_first_re = _date_patterns(lang)
    for m in month_first_re.finditer(folded):
        d = _safe_date(int(m.group(3)), table[m.group(1)], int(m.group(2)))
        if d:
            found.append((m.start(), m.end(), d))
    for m in day_first_re.finditer(folded):
        d = _safe_date(int(m.group(3)), table[m.group(2)], int(m.group(1)))
        if d:
            found.append((m.start(), m.end(), d))
    found.sort(key=lambda item: (item[0], -item[1]))
    out: list[tuple[int, int, date]] = []
    for item in found:
        if not out or item[0] >= out[-1][1]:
            out.append(item)
    return out


@functools.cache
def _yearless_patterns(lang: str | None) -> tuple[re.Pattern[str], re.Pattern[str]]:
    names = _alternation(tuple(_month_table(lang)))
    month_first = re.compile(rf"\b({names})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?![.,:]?\d)")
    day_first = re.compile(rf"\b(\d{{1,2}})(?:\.|st|nd|rd|th|er|º|°)?\s+(?:de\s+|of\s+)?({names})\b")
    return month_first, day_first


@functools.cache
def _weekday_pattern(lang: str | None) -> tuple[re.Pattern[str], dict[str, int]]:
    """Weekday names (babel's wide forms, accent-folded) -> Monday=0, and a pattern for them."""
    langs = LANGUAGES if lang is None or lang not in LANGUAGES else (lang,)
    table: dict[str, int] = {}
    for code in langs:
        for day, name in babel.dates.get_day_names("wide", "format", locale=code).items():
            table.setdefault(_fold(str(name)), day)
    return re.compile(rf"\b({_alternation(tuple(table))})\b"), table


_RELATIVE_DAYS = {"today": 0, "tomorrow": 1, "day after tomorrow": 2, "aujourd'hui": 0, "demain": 1,
                  "apres-demain": 2, "heute": 0, "ubermorgen": 2, "hoy": 0, "pasado manana": 2}
_RELATIVE = re.compile(rf"\b(?:the\s+)?({_alternation(tuple(_RELATIVE_DAYS))})(?![\w'-])")
_DATE_AFTER_WEEKDAY = re.compile(r"^,?\s*(?:the\s+|den\s+|le\s+|el\s+)?")


def _nearest(today: date, month: int, day: int) -> date | None:
    """The date of that month and day nearest to `today` (last year, this year or next)."""
    found = [d for y in (today.year - 1, today.year, today.year + 1) if (d := _safe_date(y, month, day))]
    return min(found, key=lambda d: (abs((d - today).days), d)) if found else None


_Reading = tuple[int, int, tuple[date, ...]]
"""A date mention: its span and its readings, the likeliest first."""


def _relative_matches(text: str, lang: str | None, today: date, taken: list[tuple[int, int, date]]) -> list[_Reading]:
    """Dates `text` states relative to `today`: day and month without a year, weekdays, "tomorrow"."""
    folded = "".join(_fold(ch)[:1] or ch for ch in text)
    table = _month_table(lang)
    found: list[_Reading] = []
    month_first, day_first = _yearless_patterns(lang)
    for m in month_first.finditer(folded):
        if (d := _nearest(today, table[m.group(1)], int(m.group(2)))) is not None:
            found.append((m.start(), m.end(), (d,)))
    for m in day_first.finditer(folded):
        if (d := _nearest(today, table[m.group(2)], int(m.group(1)))) is not None:
            found.append((m.start(), m.end(), (d,)))
    starts = {item[0] for item in taken} | {item[0] for item in found}
    weekdays, names = _weekday_pattern(lang)
    for m in weekdays.finditer(folded):
        gap = _DATE_AFTER_WEEKDAY.match(folded[m.end():])
        if m.end() + (gap.end() if gap else 0) in starts:
            continue  # "Friday, March 6": the weekday names the date that follows it
        # "On Wednesday" is the next one (a week ahead on that very day), or, in a recap, the last one.
        ahead = (names[m.group(1)] - today.weekday() - 1) % 7 + 1
        found.append((m.start(), m.end(), (date.fromordinal(today.toordinal() + ahead),
                                           date.fromordinal(today.toordinal() + ahead - 7))))
    for m in _RELATIVE.finditer(folded):
        found.append((m.start(), m.end(), (date.fromordinal(today.toordinal() + _RELATIVE_DAYS[m.group(1)]),)))
    return found


def date_mentions(text: str, lang: str | None = None, today: date | None = None) -> list[tuple[date, ...]]:
    """Returns each date `text` mentions as its possible readings, the likeliest first, in order of appearance.

    As `extract_dates`, whose dates are the first readings; a weekday has two: the next one and the
    last one ("we spoke on Monday"). A check holds a mention true when one of its readings is.
    """
    explicit = _date_matches(text, lang)
    found: list[_Reading] = [(s, e, (d,)) for s, e, d in explicit]
    if today is not None:
        found += _relative_matches(text, lang, today, explicit)
    found.sort(key=lambda item: (item[0], -item[1]))
    out: list[_Reading] = []
    for item in found:
        if not out or item[0] >= out[-1][1]:
            out.append(item)
    return [readings for _, _, readings in out]


def extract_dates(text: str, lang: str | None = None, today: date | None = None) -> list[date]:
    """Returns the dates in `text`, in order of appearance.

    Read: ISO (`2026-03-04`); month names in any of `LANGUAGES` from babel
    ("March 3, 2026", "3 March 2026", "3. März 2026", "3 de marzo de 2026",
    "1er mars 2026"); numeric `03/04/2026`, `03-04-2026`, `03.04.2026`. The numeric
    rule: with "." it is day.month; with "/" or "-" it is month/day when `lang` is
    "en" and day/month otherwise; a part above 12 can only be the day. Impossible
    dates (Feb 30) are not read.

    Without `today`, dates without a year are not read. With it, they are too: a day and month
    ("9 March", "March 9th") is the one nearest to `today`; a weekday ("on Wednesday") is the
    next one after `today` (a week ahead on that very day), unless a date follows it ("Friday,
    March 6" is March 6); "today", "tomorrow" and "the day after tomorrow" count from `today`.

    Args:
        text: Any text.
        lang: Its ISO 639-1 language, or None (month names of every language; day/month).
        today: The day the text was written (the sim clock's), to place relative dates.
    """
    return [readings[0] for readings in date_mentions(text, lang, today)]


# ---------------------------------------------------------------- negation

_NEGATION_CUES: dict[str, frozenset[str]] = {
    "de": frozenset({"nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "nichts",
                     "niemand", "weder", "nirgends"}),
    "en": frozenset({"not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "cannot", "nowhere"}),
    "es": frozenset({"no", "nunca", "jamás", "nada", "ningún", "ninguno", "ninguna", "nadie", "ni", "tampoco"}),
    "fr": frozenset({"ne", "n", "pas", "jamais", "rien", "aucun", "aucune", "ni", "non", "nullement"}),
    "it": frozenset({"non", "mai", "niente", "nulla", "nessuno", "nessuna", "nessun", "né", "neanche"}),
    "nl": frozenset({"niet", "geen", "nooit", "niets", "niemand", "noch", "nergens"}),
    "pt": frozenset({"não", "nunca", "jamais", "nada", "nenhum", "nenhuma", "ninguém", "nem"}),
}
"""Words that negate a sentence, per language. French "n'" splits to the cue "n"."""

_ALL_CUES = frozenset().union(*_NEGATION_CUES.values())
_CUE_LANGUAGES: dict[str, tuple[str, ...]] = {
    cue: tuple(code for code, cues in _NEGATION_CUES.items() if cue in cues) for cue in sorted(_ALL_CUES)
}
"""Each negation cue's languages (a word is a cue in several: "no", "ni", "nunca")."""
_EN_CONTRACTION = re.compile("\\w(?:n['\u2019]t)\\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
_NUMBER_LABEL = re.compile(r"\bno\.\s*#?\d", re.IGNORECASE)
""""No. 10023" labels a number; it negates nothing."""


def negated(sentence: str, lang: str | None) -> bool:
    """Returns whether `sentence` contains a negation cue of `lang` (every language's cues if None).

    English contractions count ("isn't", "can't", "won't"), as do French elisions
    ("n'est pas"). This is a flag for a likely false claim ("is refundable" against
    "isn't refundable"), never on its own the evidence that a goal was met.

    `lang` is usually a whole reply's language, and a clause can be written in another: "Aparicio y
    Asociados: the customer does not threaten to cancel" reads as Spanish whole, but its "not" negates.
    So a cue of another language negates too when lingua reads the words around it (three on each
    side) as that language rather than as `lang`; "noch" (a Dutch cue, German for "still") or "Mai"
    (Italian "never", German "May") in a German sentence does not.

    Args:
        sentence: One sentence or clause (see `sentences`).
        lang: Its ISO 639-1 language (as far as known), or None.
    """
    words = _WORD.findall(_NUMBER_LABEL.sub(" ", sentence).casefold())
    contraction = bool(_EN_CONTRACTION.search(sentence))
    if lang is None:
        return contraction or any(word in _ALL_CUES for word in words)
    cues = _NEGATION_CUES.get(lang, _ALL_CUES)
    if (lang == "en" and contraction) or any(word in cues for word in words):
        return True
    if contraction:  # "doesn't" is "does not" to the reader of the words around it
        words = _WORD.findall(_EN_CONTRACTION.sub(lambda m: f"{m.group(0)[0]} not", sentence).casefold())
    for i, word in enumerate(words):
        foreign = [code for code in _CUE_LANGUAGES.get(word, ()) if code != lang]
        if foreign:
            confidence = language_confidences(" ".join(words[max(i - 3, 0):i + 4]))
            if any(confidence.get(code, 0.0) > confidence.get(lang, 0.0) for code in foreign):
                return True
    return False


# ---------------------------------------------------------------- language evidence

_FIGURE = re.compile(rf"(?:{_alternation(_CURRENCY_SYMBOLS)})|\b(?:{_alternation(_CURRENCY_CODES)})\b|\S*\d\S*",
                     re.IGNORECASE)
"""A figure: a token holding a digit (an amount, an order number, a code, a date) or a currency mark."""


def without_figures(text: str) -> str:
    """Returns `text` without its figures: every token holding a digit, and currency symbols and codes.

    Figures are the same in every language, yet lingua weighs them: "Refund: 58.00 EUR. Order 100481."
    reads as German because "EUR" and the number shapes look German to it. Only the words tell a language.
    """
    return _FIGURE.sub(" ", text)


def language_confidences(text: str) -> dict[str, float]:
    """Returns lingua's confidence (0-1, summing to 1) that the words of `text`, read whole, are each language.

    Figures are removed first (`without_figures`); text without letters gives `{}`. Unlike `detect_language`,
    which names one winner, this tells how close the runners-up are, which is what a short text's evidence
    is: "Refund of 58.00 EUR on order 100481 done." is German at 0.45 but English at 0.39. Sorted by code.

    Args:
        text: Any text.
    """
    return dict(_confidences(without_figures(text)))


@functools.lru_cache(maxsize=1 << 12)
def _confidences(words: str) -> tuple[tuple[str, float], ...]:
    """`language_confidences` of figure-free text, memoized (bounded; pure): several checks ask of one reply."""
    if _letters(words) == 0:
        return ()
    found = {v.language.iso_code_639_1.name.lower(): v.value
             for v in _detector().compute_language_confidence_values(words)}
    return tuple((code, found[code]) for code in sorted(found))
