"""The sales pipeline: ordered stages, the fields each stage requires, and allowed moves.

```
prospecting -> qualification -> discovery -> proposal -> negotiation -> closed_won
      \\______________\\______________\\____________\\_____________\\-> closed_lost
```

* An open deal moves forward one stage at a time, or back to any earlier open stage.
* Only `negotiation` may move to `closed_won`; any open stage may move to `closed_lost`.
* `closed_lost` may be reopened to `prospecting`; `closed_won` is final.
* Each stage requires the fields of `REQUIRED_FIELDS`, checked on the deal as it
  would be after the move (so a move may set them in the same call).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from saas_sim.domains.crm.models import Deal, Stage

__all__ = [
    "CLOSED_STAGES",
    "OPEN_STAGES",
    "PROBABILITY",
    "REQUIRED_FIELDS",
    "STAGES",
    "allowed_moves",
    "is_open",
    "missing_fields",
]

STAGES: Final[tuple[Stage, ...]] = (
    "prospecting",
    "qualification",
    "discovery",
    "proposal",
    "negotiation",
    "closed_won",
    "closed_lost",
)
"""Every stage, in pipeline order."""

OPEN_STAGES: Final[tuple[Stage, ...]] = STAGES[:5]
CLOSED_STAGES: Final[tuple[Stage, ...]] = ("closed_won", "closed_lost")

PROBABILITY: Final[dict[Stage, int]] = {
    "prospecting": 10,
    "qualification": 20,
    "discovery": 40,
    "proposal": 60,
    "negotiation": 80,
    "closed_won": 100,
    "closed_lost": 0,
}
"""The default win probability of each stage, in percent."""

REQUIRED_FIELDS: Final[dict[Stage, tuple[str, ...]]] = {
    "prospecting": (),
    "qualification": ("primary_contact_id",),
    "discovery": ("primary_contact_id", "close_date"),
    "proposal": ("primary_contact_id", "close_date", "amount"),
    "negotiation": ("primary_contact_id", "close_date", "amount", "next_step"),
    "closed_won": ("primary_contact_id", "close_date", "amount"),
    "closed_lost": ("lost_reason",),
}
"""The fields a deal must have set (non-empty; amounts positive) to be in each stage."""


def is_open(stage: Stage) -> bool:
    """Returns whether a stage is an open (not closed) stage."""
    return stage in OPEN_STAGES


def allowed_moves(stage: Stage) -> tuple[Stage, ...]:
    """Returns the stages a deal in `stage` may move to, in pipeline order."""
    if stage == "closed_won":
        return ()
    if stage == "closed_lost":
        return ("prospecting",)
    index = OPEN_STAGES.index(stage)
    moves: list[Stage] = list(OPEN_STAGES[:index])
    if index + 1 < len(OPEN_STAGES):
        moves.append(OPEN_STAGES[index + 1])
    if stage == "negotiation":
        moves.append("closed_won")
    moves.append("closed_lost")
    return tuple(moves)


def missing_fields(deal: Deal, stage: Stage) -> list[str]:
    """Returns the fields `deal` lacks to be in `stage`, in `REQUIRED_FIELDS` order."""
    missing: list[str] = []
    for name in REQUIRED_FIELDS[stage]:
        value = getattr(deal, name)
        empty_text = isinstance(value, str) and not value.strip()
        if value is None or empty_text or (isinstance(value, Decimal) and value <= 0):
            missing.append(name)
    return missing
