"""World building: a domain's declared requirements order the profile's domains."""

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


def test_resolve_refuses_a_domain_listed_before_what_it_requires() -> None:
    known = builtin_domains()
    known["support"] = dataclasses.replace(known["support"], requires=("crm",))
    with pytest.raises(ScenarioNotFoundError, match=r"'support' requires \['crm'\] listed before it"):
        resolve_domains(_profile("support", "crm"), known)


def test_resolve_refuses_a_missing_requirement() -> None:
    known = builtin_domains()
    known["support"] = dataclasses.replace(known["support"], requires=("crm",))
    with pytest.raises(ScenarioNotFoundError, match="requires"):
        resolve_domains(_profile("support"), known)
