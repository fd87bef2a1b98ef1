"""Whether a short free text the agent records (a task subject, a next step, a deal name) says anything.

A check that pays for "a task exists" or "the next step changed" pays for a
task called "." and a next step of lorem ipsum. These short texts are judged by
class, never by a list of accepted phrases:

* **Words.** At least `min_words` distinct words of two letters or more that
  hold a vowel (keyboard noise like "zxcv" holds none), besides the names the
  text may carry: "Call Ann Lee" says "call", "Ann Lee" alone says nothing.
* **Not a key run.** A word mostly made of runs along a keyboard row or the
  alphabet ("qwer", "asdf", "uiop", "poiu", "qwerty", "abc", "xyz") is noise
  even though it holds a vowel; a real word holds such a run only in part
  ("property" holds "erty").
* **Language.** The words, names removed, are not classed as the filler sink
  (Latin, which takes lorem ipsum) by the language detector `email_substance`
  uses for emails. Short texts are too short for the emails' threshold on the
  real languages, so only a clear sink verdict refuses them (`SINK_CLEAR`, `SINK_LEAD`).

* **Not an echo.** When the check passes the task's instructions, at most
  `ECHO_SHARE` of the text's words lie in runs of `ECHO_RUN` words copied from
  them: a next step of "record a concrete next step on the deal" or "Do not
  close the deal" restates the ask, it plans nothing.

It decides nothing about truth: `checks_claims` judges what a text claims.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from saas_sim.domains.crm.email_substance import pasted_share, sink_lead
from saas_sim.domains.crm.matching import fold

__all__ = [
    "ALPHABET_RUN", "ECHO_RUN", "ECHO_SHARE", "KEY_RUN", "RUN_SHARE", "SINK_CLEAR", "SINK_LEAD",
    "is_key_run", "text_flaw",
]

ECHO_RUN = 4
"""Consecutive words shared with the instructions that count as copied (a short text has few words)."""
ECHO_SHARE = 0.5
"""Largest share of a short text's words that may lie in runs copied from the instructions."""
SINK_CLEAR = 0.3
"""The sink's confidence that makes a short text filler whatever the runner-up scores."""
SINK_LEAD = 0.05
"""The sink's lead over the runner-up that makes a short text filler."""

_WORD = re.compile(r"[^\W\d_]{2,}")
_VOWEL = re.compile(r"[aeiouy]")
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm", "qwertzuiop", "yxcvbnm", "azertyuiop", "qsdfghjklm", "wxcvbn")
"""Letter rows of the QWERTY, QWERTZ and AZERTY keyboards the worlds' languages are typed on."""
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
KEY_RUN = 4
"""Fewest letters of a keyboard-row run that count as noise ("wer" and "tre" are words; "qwer" is not)."""
ALPHABET_RUN = 3
"""Fewest letters of a word that is one run of the alphabet ("abc", "xyz", "nop"); only a whole word
counts, since real words hold short runs ("hijo", "stub")."""
RUN_SHARE = 2 / 3
"""Share of a word's letters inside keyboard-row runs that makes the word noise."""


def _runs(rows: tuple[str, ...], least: int) -> frozenset[str]:
    """Every run of `least` letters along `rows`, both ways (a longer run is overlapping ones)."""
    both = rows + tuple(r[::-1] for r in rows)
    return frozenset(r[i:i + least] for r in both for i in range(len(r) - least + 1))


_KEY_GRAMS = _runs(_ROWS, KEY_RUN)


def is_key_run(word: str) -> bool:
    """Whether `word` (folded) is typed noise: mostly runs along a keyboard row, or one run of the alphabet."""
    if len(word) >= ALPHABET_RUN and (word in _ALPHABET or word in _ALPHABET[::-1]):
        return True
    covered: set[int] = set()
    for i in range(len(word) - KEY_RUN + 1):
        if word[i:i + KEY_RUN] in _KEY_GRAMS:
            covered.update(range(i, i + KEY_RUN))
    return bool(word) and len(covered) >= RUN_SHARE * len(word)


def text_flaw(
    text: str | None, min_words: int = 1, names: Sequence[str] = (), echo_of: str | None = None,
) -> str | None:
    """Returns why `text` says nothing, or None when it says something.

    Args:
        text: The text (None or empty says nothing).
        min_words: Fewest distinct real words besides names.
        names: Names the text may carry (the person's, the deal's); they are not counted as words.
        echo_of: The task's instructions, when the text must be the agent's own: a text mostly copied
            from them restates the ask.
    """
    name_words = {w for n in names for w in _WORD.findall(fold(n))}
    raw = [w for w in _WORD.findall(text or "") if fold(w) not in name_words]
    words = {fold(w) for w in raw if _VOWEL.search(fold(w)) and not is_key_run(fold(w))}
    if len(words) < min_words:
        return f"{text!r} has {len(words)} real words besides names (fewer than {min_words})"
    if echo_of and pasted_share(_WORD.findall(fold(text or "")), _WORD.findall(fold(echo_of)), ECHO_RUN) > ECHO_SHARE:
        return f"{text!r} copies the task's instructions"
    sink = sink_lead(" ".join(raw))
    # A short text with a foreign name can tip the sink by a hair ("Call Manon Paris": 0.16 against 0.15): only
    # a clear sink verdict is filler (lorem ipsum scores about 0.7, noise leads by 0.05+).
    if sink is not None and (sink[0] >= SINK_CLEAR or sink[1] >= SINK_LEAD):
        return f"{text!r} is filler, not words of a language"
    return None
