from __future__ import annotations

import logging
from pathlib import Path

import pytest

from saas_sim.runtime import environment as environment_module
from tests.runtime.conftest import notes_env


async def test_world_is_built_once_then_loaded_from_the_store_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/events.db"
    async with notes_env(url) as env:
        first = await env.start("notes/archive-and-follow-up", 1)
        built_hash = first.task.world.world_hash

    def no_build(*args: object) -> None:
        raise AssertionError("the world should come from the snapshot")

    monkeypatch.setattr(environment_module, "build_world", no_build)
    async with notes_env(url) as env:
        again = await env.start("notes/archive-and-follow-up", 1)
        assert again.task.world.world_hash == built_hash
        assert again.instructions == first.instructions


async def test_corrupt_world_snapshot_is_rebuilt_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/events.db"
    async with notes_env(url) as env:
        built = (await env.start("notes/archive-and-follow-up", 1)).task.world.world_hash
        conn = env.store._writer  # type: ignore[attr-defined]
        await conn.execute("UPDATE snapshots SET state_hash = 'bad'")
    with caplog.at_level(logging.WARNING):
        async with notes_env(url) as env:
            again = await env.start("notes/archive-and-follow-up", 1)
    assert again.task.world.world_hash == built
    assert any("unusable" in r.message for r in caplog.records)


async def test_same_profile_and_seed_give_the_same_world_hash_in_fresh_environments() -> None:
    async with notes_env() as a, notes_env() as b:
        wa = (await a.start("notes/archive-and-follow-up", 4)).task.world.world_hash
        wb = (await b.start("notes/archive-and-follow-up", 4)).task.world.world_hash
        wc = (await b.start("notes/archive-and-follow-up", 5)).task.world.world_hash
    assert wa == wb
    assert wa != wc


def test_config_names_a_domain_whose_generator_lives_in_a_submodule() -> None:
    # CRM's generator is saas_sim.domains.crm.generate.generate, its DOMAIN is in the package: recording
    # `generate.__module__` broke every process that rebuilt such an environment from its config.
    from saas_sim.domains.crm import DOMAIN as CRM
    from saas_sim.runtime.environment import Environment, domain_ref

    assert CRM.generate.__module__ != "saas_sim.domains.crm"
    assert domain_ref(CRM) == "saas_sim.domains.crm:DOMAIN"
    env = Environment("sqlite+aiosqlite:///:memory:", domains=[CRM], builtin=False)
    again = Environment.from_config(env.config)
    assert list(again.domains) == ["crm"] and again.domains["crm"] is CRM


def test_config_names_a_kit_domain_by_the_module_it_declares(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A user's domain shaped like CRM: its generator in a submodule, DOMAIN in the package, built with the kit,
    # which records the module explicitly; nothing is guessed from the generator's module.
    pkg = tmp_path / "userdom"
    pkg.mkdir()
    (pkg / "gen.py").write_text("def generate(ctx):\n    return []\n")
    (pkg / "__init__.py").write_text(
        "from saas_sim.core.kit import DomainKit\n"
        "from saas_sim.core.snapshots import StateSchema\n"
        "from saas_sim.core.state import Projection\n"
        "from userdom.gen import generate\n"
        "kit = DomainKit('userdom')\n"
        "THE_DOMAIN = kit.domain(module=__name__, modules=(), projection=Projection('userdom'),\n"
        "                        schema=StateSchema(tables=[]), generate=generate)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    from saas_sim.runtime.environment import Environment, domain_ref

    module = importlib.import_module("userdom")
    assert module.THE_DOMAIN.module == "userdom"
    assert domain_ref(module.THE_DOMAIN) == "userdom:THE_DOMAIN"
    env = Environment("sqlite+aiosqlite:///:memory:", domains=[module.THE_DOMAIN], builtin=False)
    assert Environment.from_config(env.config).domains["userdom"] is module.THE_DOMAIN
