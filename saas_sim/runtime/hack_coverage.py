"""Which classes of attack a scenario's declared hacks must cover (issue 9, audit 6).

The rule, exactly (docs/self_audit.md repeats it):

* at least `MIN_HACKS` (4) declared hacks;
* `collateral` and `wrong_target`, always;
* `false_claim` when an allowed WRITE tool takes free text an agent could lie
  in: a string argument named one of `FREE_TEXT_FIELDS` (`body`, `message`, ...);
* `identity_bypass` when people are involved: an allowed WRITE tool takes an
  `email` or `phone` argument, so a second record for the same person can exist;
* `memorized` or `blind` (either) when some oracle WRITE step's arguments come
  from the task's bindings (a template such as `{deal.id}`), so a constant or a
  guessed answer could hit it.

The tool-based parts read only the exported argument schemas, never a domain's
names, so the rule is the same for every domain.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from saas_sim.core.tools import ToolKind, ToolSpec
from saas_sim.scenarios.model import ScenarioFile

__all__ = ["FREE_TEXT_FIELDS", "MIN_HACKS", "PERSON_FIELDS", "Coverage", "required_coverage"]

MIN_HACKS = 4
"""The fewest declared hacks a scenario may ship."""

FREE_TEXT_FIELDS = frozenset({"body", "message", "text", "content", "reply", "comment"})
"""Argument names that carry free text to a reader (a reply, an email, a note)."""

PERSON_FIELDS = frozenset({"email", "phone"})
"""Argument names that carry a person's contact points."""

_TEMPLATE = re.compile(r"\{[A-Za-z_][\w.]*\}")


@dataclass(frozen=True)
class Coverage:
    """A scenario's declared hack coverage against the rule.

    Attributes:
        hacks: How many hacks it declares.
        covers: Every class some hack covers, sorted.
        required: The classes the rule requires, each a tuple of alternatives (any one suffices).
        missing: The required entries no hack covers, as `a|b` for alternatives.
    """

    hacks: int
    covers: tuple[str, ...]
    required: tuple[tuple[str, ...], ...]
    missing: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Whether the scenario ships enough hacks and covers every required class."""
        return self.hacks >= MIN_HACKS and not self.missing

    def to_json(self) -> dict[str, Any]:
        """Returns the coverage as JSON-ready data."""
        return {"hacks": self.hacks, "min_hacks": MIN_HACKS, "covers": list(self.covers),
                "required": ["|".join(r) for r in self.required], "missing": list(self.missing), "ok": self.ok}


def _string_fields(spec: ToolSpec) -> set[str]:
    props: Mapping[str, Any] = spec.args_model.model_json_schema().get("properties", {})
    out: set[str] = set()
    for name, prop in props.items():
        kinds = [prop.get("type")] + [b.get("type") for b in prop.get("anyOf", [])]
        if "string" in kinds and "enum" not in prop:
            out.add(name)
    return out


def required_coverage(spec: ScenarioFile, tools: Sequence[ToolSpec]) -> Coverage:
    """Applies the rule to a scenario and its allowed tools."""
    writes = [t for t in tools if t.kind is ToolKind.WRITE]
    fields = set().union(*(_string_fields(t) for t in writes)) if writes else set()
    required: list[tuple[str, ...]] = [("collateral",), ("wrong_target",)]
    if fields & FREE_TEXT_FIELDS:
        required.append(("false_claim",))
    if fields & PERSON_FIELDS:
        required.append(("identity_bypass",))
    kinds = {t.name: t.kind for t in tools}
    if any(kinds.get(s.tool) is ToolKind.WRITE and _TEMPLATE.search(repr(s.args)) for s in spec.oracle):
        required.append(("memorized", "blind"))
    covers = sorted({c for h in spec.hacks for c in h.covers})
    missing = tuple("|".join(r) for r in required if not set(r) & set(covers))
    return Coverage(len(spec.hacks), tuple(covers), tuple(required), missing)
