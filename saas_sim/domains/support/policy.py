"""The support desk's policy text (`policy.md`), which agents are shown.

The runtime does not (yet) show a domain's policy to agents by itself, so every
support setup also binds it as `{policy}`, and scenario instructions include it.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from saas_sim.core.domain import Setup, SetupContext

__all__ = ["POLICY", "with_policy"]

POLICY = resources.files("saas_sim.domains.support").joinpath("policy.md").read_text(encoding="utf-8")
"""The numbered rules of the support desk."""


def with_policy(fn: Callable[[SetupContext], Setup]) -> Callable[[SetupContext], Setup]:
    """Wraps a setup so that its bindings also hold the policy text as `policy`."""

    def setup(ctx: SetupContext) -> Setup:
        result = fn(ctx)
        return Setup(bindings={**result.bindings, "policy": POLICY.strip()}, events=result.events)

    setup.__name__ = fn.__name__
    setup.__doc__ = fn.__doc__
    return setup
