"""Check of a deal unblocked by a bug fix: its next step now says the fix is in.

* `next_step_reports_fix`: the deal's next step changed from the stalled one, says something besides the fix
  (`text_substance`: real words, so "asdf qwer fixed" or "fixed fixed fixed" is no next step), affirms the
  fix in a clause of its own, and no clause says the deal still waits for the fix.
"""

from __future__ import annotations

import re

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm.check_helpers import deal
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.text_substance import text_flaw

__all__ = ["next_step_reports_fix"]

_FIXED = re.compile(r"\b(?:fixed|fix (?:is )?(?:in|done|shipped|deployed|released|merged|live)|corrected|resolved|"
                    r"repaired|patched)\b")
# Read clause by clause: the fix is affirmed in a clause with no negation or wait of its own, and no clause says
# the deal still waits for the fix. "Bug fixed, no blockers left" and "follow up once they have reviewed the
# corrected quote" report the fix; "waiting for the fix", "not fixed yet" and "Fixed? Not yet." do not.
_CLAUSE = re.compile(r"[,;:.()!]|\s[-\u2013\u2014]\s|\b(?:and|but|then)\b")
_QUESTION = re.compile(r"[^.!?;]*\?")
_UNSURE = re.compile(r"\b(?:not|no|n't|never|yet|until|once|after|pending|wait\w*|hopefully|maybe|should be|"
                     r"expected|will be|to be)\b")
_WAITS_FOR_FIX = re.compile(r"\b(?:wait\w*|pending|until|once|after|blocked|on hold|hold\w*)\b(?:\s+\S+){0,4}?\s+"
                            r"(?:the\s+)?(?:fix|bug|patch|deploy\w*|release|hotfix)\b|"
                            r"\bnot\s+(?:\S+\s+){0,2}?(?:yet|fixed|resolved|deployed|corrected|done|live|in)\b|"
                            r"\bstill\s+(?:\S+\s+){0,2}?(?:broken|blocked|wrong|buggy|failing|open|an issue|waiting|"
                            r"pending|shows?|on hold)\b")


@kit.check
def next_step_reports_fix(ctx: CheckContext, *, deal_id: str, min_words: int = 3) -> CheckOutcome:
    """The deal's next step is new, has at least `min_words` distinct real words and affirms the fix is in."""
    before = deal(ctx.initial, deal_id).next_step or ""
    after = deal(ctx.final, deal_id).next_step or ""
    text = fold(after)
    if text == fold(before):
        return CheckOutcome.failed(f"next step unchanged: {after!r}")
    if (flaw := text_flaw(after, min_words=min_words)) is not None:
        return CheckOutcome.failed(f"next step says nothing: {flaw}")
    clauses = [c for c in _CLAUSE.split(_QUESTION.sub(" ; ", text)) if c.strip()]
    affirmed = any(_FIXED.search(c) and not _UNSURE.search(c) for c in clauses)
    if not affirmed or _WAITS_FOR_FIX.search(text):
        return CheckOutcome.failed(f"next step does not say the fix is in: {after!r}")
    return CheckOutcome.passed(f"next step {before!r} -> {after!r}")
