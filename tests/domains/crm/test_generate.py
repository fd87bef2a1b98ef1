"""World generation: determinism, the golden world hash, the mess rates and the profile counts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from saas_sim.core.canonical import stable_hash
from saas_sim.core.domain import GenerateContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.rng import SeedTree
from saas_sim.core.state import State
from saas_sim.domains.crm import DOMAIN
from saas_sim.domains.crm.data_report import data_report, phone_format
from saas_sim.domains.crm.generate import generate
from saas_sim.domains.crm.state import CONTACTS, PERSON_TRUTH, PROJECTION
from saas_sim.runtime.world import build_world, load_profiles
from tests.domains.crm.conftest import smb_world
from tests.domains.helpers import ROOT

GOLDEN_SMB_SEED0 = "168a430825bf120a409e1d83d3dcbc18d3632aa9856c9c3d0f39756cf33fd25a"
"""State.content_hash() of crm-smb seed 0. If this changes, world data changed: bump SCHEMA.version
or the scenarios' versions as needed, and update the pin on purpose."""

GOLDEN_SMB_SEED0_CONTENT = "ce29bfc1b6e2c530148c09e8b6daa70a28e9c70b612e616111b1f652e7fab400"
"""sha256 of the canonical JSON of the whole world (`stable_hash(state.content())`): independent of
the content hash's scheme, so a change of scheme cannot hide a change of data."""


def _world(params: dict[str, object], seed: str = "s") -> State:
    ctx = GenerateContext(params=params, seed=SeedTree(seed), state=State(),
                          now=datetime(2026, 3, 2, 9, tzinfo=UTC), ids=IdFactory())
    return PROJECTION.fold(State(), generate(ctx))


def test_golden_world_hash_of_smb_seed_0(world: State) -> None:
    assert world.content_hash() == GOLDEN_SMB_SEED0
    assert stable_hash(world.content()) == GOLDEN_SMB_SEED0_CONTENT


def test_same_seed_gives_the_same_world() -> None:
    assert smb_world(3).content_hash() == smb_world(3).content_hash()


def test_different_seeds_give_different_worlds(world: State) -> None:
    assert smb_world(1).content_hash() != world.content_hash()


def test_unknown_knob_is_rejected() -> None:
    with pytest.raises(ValueError, match="accountz"):
        _world({"accountz": 3})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mess_rates_meet_the_issue_defaults(seed: int) -> None:
    report = data_report(smb_world(seed))
    assert report["counts"]["accounts"] == 60 and report["counts"]["contacts"] == 400
    assert report["near_duplicate_rate"] >= 0.05
    assert report["missing_optional_rate"] >= 0.10
    assert report["phone_format_count"] >= 4
    assert len(report["countries"]) >= 3
    assert report["non_ascii_name_rate"] >= 0.05
    assert report["messy_company_name_rate"] >= 0.05
    assert report["stale_contact_rate"] >= 0.03
    assert report["lead_conflict_rate"] >= 0.05
    assert report["false_friend_rate"] > 0
    assert report["stale_deal_amount_rate"] > 0


def test_knobs_move_the_measured_rates() -> None:
    clean = data_report(_world({"accounts": 20, "contacts": 150, "near_duplicate_rate": 0,
                                "missing_optional_rate": 0, "messy_company_rate": 0}))
    assert clean["near_duplicate_rate"] == 0 and clean["messy_company_name_rate"] == 0
    assert clean["missing_optional_rate"] == 0


def test_every_contact_has_ground_truth(world: State) -> None:
    truth = world.table(PERSON_TRUTH)
    assert all(truth.get(c.id) is not None for c in world.table(CONTACTS))
    for t in truth:
        if t.variant_of:
            assert t.person_key == truth.get(t.variant_of).person_key  # type: ignore[union-attr]


def test_phone_formats_are_recognised() -> None:
    assert phone_format("+1 415 555 0134") == "intl_spaced"
    assert phone_format("(415) 555-0134") == "parens"
    assert phone_format("call me") == "other"


def test_enterprise_world_builds_with_its_profile_counts() -> None:
    # How fast it builds is a benchmark figure (`saas-sim bench runtime`: world_build_s_crm_enterprise),
    # not a test: a wall-time limit fails on a loaded machine.
    profile = load_profiles([ROOT / "seeds"])["crm-enterprise"]
    world = build_world(profile, 0, {"crm": DOMAIN})
    assert len(world.state.table(CONTACTS)) == profile.domains["crm"]["contacts"] == 6000
