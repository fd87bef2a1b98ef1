"""World building: the domains a domain requires or uses are built before it, whatever the profile's order."""

from __future__ import annotations

import dataclasses

import pytest

from saas_sim.domains import builtin_domains
from saas_sim.errors import ScenarioNotFoundError
from saas_sim.runtime.world import resolve_domains
from saas_sim.scenarios.profiles import WorldProfile


def _profile(*names: str) -> WorldProfile:
    return WorldProfile(name="t", domains={n: {} for n in names})


def test_builtin_domains_declare_their_id_kinds() -> None:
    for domain in builtin_domains().values():
        assert domain.id_kinds, domain.name
        assert all(p.isalpha() and p.islower() for p in domain.id_kinds), domain.name


def test_resolve_keeps_the_profile_order_when_requirements_come_first() -> None:
    known = builtin_domains()
    known["support"] = dataclasses.replace(known["support"], requires=("crm",))
    assert [d.name for d in resolve_domains(_profile("crm", "support"), known)] == ["crm", "support"]


def test_resolve_builds_a_required_domain_first_even_when_the_profile_lists_it_later() -> None:
    known = builtin_domains()
    known["support"] = dataclasses.replace(known["support"], requires=("crm",))
    assert [d.name for d in resolve_domains(_profile("support", "crm"), known)] == ["crm", "support"]


def test_resolve_builds_a_used_domain_first_only_when_the_world_has_it() -> None:
    known = builtin_domains()
    known["support"] = dataclasses.replace(known["support"], uses=("crm",))
    assert [d.name for d in resolve_domains(_profile("support", "crm"), known)] == ["crm", "support"]
    assert [d.name for d in resolve_domains(_profile("support"), known)] == ["support"]


def test_resolve_refuses_domains_that_depend_on_each_other() -> None:
    known = builtin_domains()
    known["support"] = dataclasses.replace(known["support"], uses=("crm",))
    known["crm"] = dataclasses.replace(known["crm"], requires=("support",))
    with pytest.raises(ScenarioNotFoundError, match="depend on each other"):
        resolve_domains(_profile("crm", "support"), known)


def test_resolve_refuses_a_missing_requirement() -> None:
    known = builtin_domains()
    known["support"] = dataclasses.replace(known["support"], requires=("crm",))
    with pytest.raises(ScenarioNotFoundError, match="requires"):
        resolve_domains(_profile("support"), known)
