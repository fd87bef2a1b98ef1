"""Whether a short free text the agent records (a task subject, a next step, a deal name) says anything.

A check that pays for "a task exists" or "the next step changed" pays for a
task called "." and a next step of lorem ipsum. These short texts are judged by
class, never by a list of accepted phrases:

* **Words.** At least `min_words` distinct words of two letters or more that
  hold a vowel (keyboard noise like "zxcv" holds none), besides the names the
  text may carry: "Call Ann Lee" says "call", "Ann Lee" alone says nothing.
* **Language.** The words, names removed, are not classed as the filler sink
  (Latin, which takes lorem ipsum) by the language detector `email_substance`
  uses for emails. Short texts are too short for the emails' threshold on the
  real languages, so only a clear sink verdict refuses them (`SINK_CLEAR`, `SINK_LEAD`).

It decides nothing about truth: `checks_claims` judges what a text claims.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from saas_sim.domains.crm.email_substance import sink_lead
from saas_sim.domains.crm.matching import fold

__all__ = ["SINK_CLEAR", "SINK_LEAD", "text_flaw"]

SINK_CLEAR = 0.3
"""The sink's confidence that makes a short text filler whatever the runner-up scores."""
SINK_LEAD = 0.05
"""The sink's lead over the runner-up that makes a short text filler."""

_WORD = re.compile(r"[^\W\d_]{2,}")
_VOWEL = re.compile(r"[aeiouy]")


def text_flaw(text: str | None, min_words: int = 1, names: Sequence[str] = ()) -> str | None:
    """Returns why `text` says nothing, or None when it says something.

    Args:
        text: The text (None or empty says nothing).
        min_words: Fewest distinct real words besides names.
        names: Names the text may carry (the person's, the deal's); they are not counted as words.
    """
    name_words = {w for n in names for w in _WORD.findall(fold(n))}
    raw = [w for w in _WORD.findall(text or "") if fold(w) not in name_words]
    words = {fold(w) for w in raw if _VOWEL.search(fold(w))}
    if len(words) < min_words:
        return f"{text!r} has {len(words)} real words besides names (fewer than {min_words})"
    sink = sink_lead(" ".join(raw))
    # A short text with a foreign name can tip the sink by a hair ("Call Manon Paris": 0.16 against 0.15): only
    # a clear sink verdict is filler (lorem ipsum scores about 0.7, noise leads by 0.05+).
    if sink is not None and (sink[0] >= SINK_CLEAR or sink[1] >= SINK_LEAD):
        return f"{text!r} is filler, not words of a language"
    return None
