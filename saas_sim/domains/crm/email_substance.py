"""Whether an email body is a real message: words of a language, beyond names, not the task pasted back.

A check that pays for "an email was sent" pays for any email, so a policy
learns the cheapest one: ".", lorem ipsum, the recipient's name ten times, or
the instructions copied into the body. This module refuses those by class,
never by a list of strings:

* **Language.** The body, with the names it may carry removed, must be classed
  by lingua as one of the worlds' languages (`text_facts.LANGUAGES` and the
  Nordic ones of the Swedish territory). The
  detector also knows Latin, which absorbs lorem ipsum and keyboard noise that
  a detector restricted to real candidates would otherwise force into one of them.
* **Substance.** At least `MIN_DISTINCT` distinct words that are not names:
  "Hi Ann, Acme Acme Acme hello hello" says nothing.
* **Not an echo.** No run of `ECHO_RUN` consecutive words shared with the
  task's instructions (when the scenario passes them): the task pasted back is
  not a message to the customer.
* **Not a forward.** At most `PASTE_SHARE` of the body's words lie in runs of
  `ECHO_RUN` words shared with an email the CRM holds (`quoted`, such as an
  auto-reply the agent read): a message may quote a request, but a received
  email sent on is not a message of the rep's.

It decides nothing about truth; `checks_email_facts` judges stated facts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from lingua import Language, LanguageDetector, LanguageDetectorBuilder

from saas_sim.core.text_facts import LANGUAGES
from saas_sim.domains.crm.matching import fold

__all__ = [
    "ECHO_RUN", "MIN_CONFIDENCE", "MIN_DISTINCT", "PASTE_SHARE", "message_flaw", "pasted_share", "sink_lead",
    "warm_detector",
]

MIN_DISTINCT = 6
"""Fewest distinct non-name words of a real message (a greeting and a sign-off alone are about four)."""
ECHO_RUN = 8
"""Consecutive words shared with the instructions that make the body a paste, not a message."""
PASTE_SHARE = 0.5
"""Largest share of a body's words that may come from runs copied out of an email the CRM holds."""
MIN_CONFIDENCE = 0.5
"""Lingua's least summed confidence in the worlds' languages (against the sink) for a real message."""

_WORD = re.compile(r"[^\W\d_]{2,}")
_SINK = (Language.LATIN,)
"""Languages no world writes in, which absorb filler text; Latin takes lorem ipsum and letter noise."""
_NORDIC = (Language.BOKMAL, Language.DANISH, Language.SWEDISH)
"""Real languages beyond `text_facts.LANGUAGES`: the worlds have a Swedish territory, and its neighbours
are what a short Swedish text is confused with."""


@functools.cache
def _detector() -> LanguageDetector:
    """Returns the detector over the worlds' languages plus the sink (built once per process; pure).

    Its models are loaded when it is built, so `warm_detector` pays for them off the event loop.
    """
    real = [lang for lang in Language.all() if lang.iso_code_639_1.name.lower() in LANGUAGES]
    return LanguageDetectorBuilder.from_languages(*real, *_NORDIC, *_SINK).with_preloaded_language_models().build()


def sink_lead(text: str) -> tuple[float, float] | None:
    """How clearly `text` reads as filler: the sink's confidence and its lead over the runner-up, when the
    detector's first language for it is the sink (`_SINK`: lorem ipsum, letter noise), else None."""
    values = _detector().compute_language_confidence_values(text)
    if not values or values[0].language not in _SINK:
        return None
    return values[0].value, values[0].value - (values[1].value if len(values) > 1 else 0.0)


def warm_detector() -> None:
    """Builds the detector and loads its models now (the CRM domain's `warm`: off the event loop)."""
    _detector()


def _words(text: str) -> list[str]:
    return _WORD.findall(fold(text))


def _shares_run(body: list[str], source: list[str], run: int) -> bool:
    if len(body) < run or len(source) < run:
        return False
    grams = {tuple(source[i:i + run]) for i in range(len(source) - run + 1)}
    return any(tuple(body[i:i + run]) in grams for i in range(len(body) - run + 1))


def pasted_share(body: list[str], source: list[str], run: int) -> float:
    """Returns the share of `body`'s words inside runs of `run` words that also occur in `source`."""
    if not body or len(body) < run or len(source) < run:
        return 0.0
    grams = {tuple(source[i:i + run]) for i in range(len(source) - run + 1)}
    covered: set[int] = set()
    for i in range(len(body) - run + 1):
        if tuple(body[i:i + run]) in grams:
            covered.update(range(i, i + run))
    return len(covered) / len(body)


def message_flaw(
    body: str, names: Sequence[str] = (), echo_of: str | None = None, quoted: Sequence[str] = (),
) -> str | None:
    """Returns why `body` is not a real message, or None when it is one.

    Args:
        body: The email body.
        names: Names the body may use (the person's, the deal's, the company's); they are
            not counted as words, so a body made of names says nothing.
        echo_of: The task's instructions, when known: a body that copies a long run of
            them is a paste.
        quoted: Emails the CRM holds that the agent may have read: a body mostly copied
            from one of them is a forward, not a message.
    """
    name_words = {w for n in names for w in _words(n)}
    words = _words(body)
    content = [w for w in words if w not in name_words]
    if len(set(content)) < MIN_DISTINCT:
        return f"it has {len(set(content))} distinct words besides names (fewer than {MIN_DISTINCT})"
    if echo_of and _shares_run(words, _words(echo_of), ECHO_RUN):
        return f"it copies {ECHO_RUN} or more consecutive words of the task's instructions"
    if any(pasted_share(words, _words(q), ECHO_RUN) > PASTE_SHARE for q in quoted):
        return "it is mostly a copy of an email the CRM holds"
    # Accents carry much of a language's signal, so lingua reads the raw words, not the folded ones.
    raw = " ".join(w for w in _WORD.findall(body) if fold(w) not in name_words)
    values = _detector().compute_language_confidence_values(raw)
    # Close languages split the confidence of a short text ("es" and "pt"), so the real ones are summed.
    real = sum(v.value for v in values if v.language not in _SINK)
    if not values or values[0].language in _SINK or real < MIN_CONFIDENCE:
        return "it is not written in any language the CRM's customers use (filler or noise)"
    return None
