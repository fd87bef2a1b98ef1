"""World generation: determinism, the pinned golden hash, measured mess, ground truth and CRM links."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from saas_sim.core.canonical import stable_hash
from saas_sim.core.domain import GenerateContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.links import LinkedOrganization, LinkedPerson, Links, Port
from saas_sim.core.rng import SeedTree
from saas_sim.core.state import State
from saas_sim.core.tools import HIDDEN_PREFIX
from saas_sim.domains.support import DOMAIN
from saas_sim.domains.support.generate import generate
from saas_sim.domains.support.state import CUSTOMERS, PERSONAS, PROJECTION, TICKETS, TRUTHS
from saas_sim.runtime.world import World
from tests.domains.support.conftest import support_world

GOLDEN_WORLD_HASH = "602a60e93a10296250a83ca51f7af1681ab2e5e27995679e8271a1c16f1bdcf5"
"""State.content_hash() of support-default, seed 0. A change here means worlds changed: bump on purpose."""

GOLDEN_WORLD_CONTENT = "ce6a6c9987a44ed90cbad2c7c8efb85b072443e9758e1516a0cd403a9e9f0ad6"
"""sha256 of the world's canonical JSON (`stable_hash(state.content())`), whatever the hash scheme."""


def _fresh(seed: int) -> State:
    profile = support_world(0).profile
    ctx = GenerateContext(params=profile.domains["support"], seed=SeedTree(f"world:support-default:{seed}").child(
        "support"), state=State(), now=profile.epoch, ids=IdFactory())
    return PROJECTION.fold(State(), generate(ctx))


class TestDeterminism:
    def test_the_golden_world_hash_is_pinned(self, world: World) -> None:
        assert world.state.content_hash() == GOLDEN_WORLD_HASH
        assert stable_hash(world.state.content()) == GOLDEN_WORLD_CONTENT

    def test_the_same_seed_gives_the_same_world_and_another_seed_another(self) -> None:
        assert _fresh(0).content_hash() == GOLDEN_WORLD_HASH
        assert _fresh(1).content_hash() != GOLDEN_WORLD_HASH

    def test_nothing_is_dated_after_the_epoch(self, world: World) -> None:
        epoch: datetime = world.profile.epoch
        for t in world.state.table(TICKETS):
            assert t.created_at <= epoch and t.updated_at <= epoch
        for c in world.state.table(CUSTOMERS):
            assert c.created_at <= epoch


class TestMess:
    def test_the_report_measures_every_kind_of_mess(self, world: World) -> None:
        assert DOMAIN.data_report is not None
        report: Any = DOMAIN.data_report(world.state)
        assert report["tickets"] == 250 and report["orders"] == 900
        assert len(report["languages"]) >= 3
        for key in ("html_body_rate", "quoted_chain_rate", "signature_rate", "typo_rate", "vague_subject_rate",
                    "missing_order_number_rate", "second_email_rate", "duplicate_ticket_rate"):
            assert 0 < report[key] < 1, key

    def test_ground_truth_and_personas_exist_for_every_ticket_and_are_hidden(self, world: World) -> None:
        tickets = world.state.table(TICKETS)
        assert set(world.state.table(TRUTHS).ids()) == set(tickets.ids())
        assert set(world.state.table(PERSONAS).ids()) == set(tickets.ids())
        assert TRUTHS.name.startswith(HIDDEN_PREFIX) and PERSONAS.name.startswith(HIDDEN_PREFIX)

    def test_duplicates_point_to_an_earlier_ticket_of_the_same_requester(self, world: World) -> None:
        dups = [t for t in world.state.table(TRUTHS) if t.duplicate_of]
        assert dups
        for truth in dups:
            dup = world.state.get(TICKETS, truth.id)
            original = world.state.get(TICKETS, truth.duplicate_of or "")
            assert dup is not None and original is not None
            assert original.created_at <= dup.created_at and original.requester_id == dup.requester_id


def _people(state: State) -> tuple[LinkedPerson, ...]:
    del state
    return tuple(LinkedPerson(id=f"ct_{i:06d}", first_name=f"Ann{i}", last_name="Crm", email=f"ann{i}@crm.example",
                              organization_id="acc_000001" if i < 3 else None) for i in range(1, 6))


def _organizations(state: State) -> tuple[LinkedOrganization, ...]:
    del state
    return (LinkedOrganization(id="acc_000001", name="Nova Labs", tier="enterprise", former_names=("Old Nova",)),)


class TestCrmLink:
    def test_customers_take_over_crm_people_from_the_declared_ports(self) -> None:
        ports = [Port("crm.people", LinkedPerson, _people), Port("crm.organizations", LinkedOrganization,
                                                                 _organizations)]
        profile = support_world(0).profile
        ctx = GenerateContext(params={"customers": 20, "orders": 30, "tickets": 10},
                              seed=SeedTree("crm-link").child("support"), state=State(), now=profile.epoch,
                              ids=IdFactory(), links=Links(State(), ports, declared=("crm",)))
        state = PROJECTION.fold(State(), generate(ctx))
        linked = [c for c in state.table(CUSTOMERS) if c.crm_contact_id]
        assert [c.crm_contact_id for c in linked] == [f"ct_{i:06d}" for i in range(1, 6)]
        assert linked[0].email == "ann1@crm.example" and linked[0].name == "Ann1 Crm"
        # An enterprise account's contacts are VIP and know it by its old name; the others are not.
        assert [(c.tier, c.company) for c in linked[:3]] == [("vip", "Old Nova"), ("vip", "Old Nova"),
                                                             ("standard", None)]

    def test_without_a_crm_no_customer_is_linked(self, world: World) -> None:
        assert not any(c.crm_contact_id for c in world.state.table(CUSTOMERS))
