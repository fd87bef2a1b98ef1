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


async def test_a_worlds_prewarm_runs_its_domains_warm_functions() -> None:
    from saas_sim.runtime.world import prewarm_world
    from tests.runtime.conftest import notes_env
    from tests.runtime.notes_domain import DOMAIN

    calls: list[str] = []
    warmed = dataclasses.replace(DOMAIN, warm=(lambda: calls.append("warm"),))
    async with notes_env() as env:
        task = await env.task("notes/archive-and-follow-up", 0)

    prewarm_world(task.world.state, [warmed])

    assert calls == ["warm"]


def test_the_domains_that_read_languages_load_the_language_models_with_their_worlds() -> None:
    from saas_sim.core.text_facts import warm_text_readers
    from saas_sim.domains.crm.email_substance import warm_detector

    domains = builtin_domains()
    assert set(domains["crm"].warm) == {warm_text_readers, warm_detector}
    assert set(domains["support"].warm) == {warm_text_readers}


def test_warming_the_text_readers_builds_the_detector_and_the_month_tables() -> None:
    from saas_sim.core import text_facts

    text_facts._detector.cache_clear()  # other tests may have filled them already
    text_facts._date_patterns.cache_clear()
    text_facts.warm_text_readers()

    assert text_facts._detector.cache_info().currsize == 1
    assert text_facts._date_patterns.cache_info().currsize >= 1 + len(text_facts.LANGUAGES)
