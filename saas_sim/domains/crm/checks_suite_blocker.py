"""Check of a deal unblocked by a bug fix: its next step now says the fix is in.

* `next_step_reports_fix`: the deal's next step changed from the stalled one and affirms the fix,
  with no word that it still waits, is pending or on hold.
"""

from __future__ import annotations

import re

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm.check_helpers import deal
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold

__all__ = ["next_step_reports_fix"]

_FIXED = re.compile(r"\b(?:fixed|fix (?:is )?(?:in|done|shipped|deployed|released|merged|live)|corrected|resolved|"
                    r"repaired|patched)\b")
# A next step that still waits, or denies the fix, says the opposite of "the fix is in".
_STILL_BLOCKED = re.compile(r"\b(?:wait|waits|waiting|pending|on hold|blocked|not|no|until|once|after|still|yet)\b")


@kit.check
def next_step_reports_fix(ctx: CheckContext, *, deal_id: str, min_words: int = 3) -> CheckOutcome:
    """The deal's next step is new, has at least `min_words` words and affirms the fix is in."""
    before = deal(ctx.initial, deal_id).next_step or ""
    after = deal(ctx.final, deal_id).next_step or ""
    text = fold(after)
    if text == fold(before):
        return CheckOutcome.failed(f"next step unchanged: {after!r}")
    if len(re.findall(r"[^\W\d_]{2,}", after)) < min_words:
        return CheckOutcome.failed(f"next step too short: {after!r}")
    if not _FIXED.search(text) or _STILL_BLOCKED.search(text):
        return CheckOutcome.failed(f"next step does not say the fix is in: {after!r}")
    return CheckOutcome.passed(f"next step {before!r} -> {after!r}")
