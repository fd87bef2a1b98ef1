"""Declared links: a consumer reads the ports of the domains it declared, and nothing else."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from saas_sim.core.links import LinkedOrganization, LinkedPerson, Links, Port, Terms
from saas_sim.core.state import State
from saas_sim.errors import HarnessError

CORE = Path(__file__).resolve().parents[2] / "saas_sim" / "core"

_calls: list[int] = []


def _people(state: State) -> tuple[LinkedPerson, ...]:
    _calls.append(1)
    return (LinkedPerson(id="p1", first_name="Ann", last_name="Lee"),)


PEOPLE = Port("shop.people", LinkedPerson, _people)


def test_a_declared_port_returns_its_records_once_computed() -> None:
    _calls.clear()
    links = Links(State(), [PEOPLE], declared=("shop",))
    assert links.read("shop.people", LinkedPerson)[0].first_name == "Ann"
    assert links.read("shop.people") == links.read("shop.people", LinkedPerson)
    assert len(_calls) == 1


def test_a_used_domain_absent_from_the_world_reads_as_empty() -> None:
    links = Links(State(), [], declared=("shop",), known=["shop.people"])
    assert links.read("shop.people", LinkedPerson) == ()
    assert not links.has("shop.people")


def test_reading_an_undeclared_domain_is_a_harness_error() -> None:
    links = Links(State(), [PEOPLE], declared=("other",))
    with pytest.raises(HarnessError, match="does not declare 'shop'"):
        links.read("shop.people")


def test_a_port_its_domain_does_not_offer_is_a_harness_error_even_when_absent() -> None:
    with pytest.raises(HarnessError, match="no domain offers"):
        Links(State(), [PEOPLE], declared=("shop",)).read("shop.peeple")
    with pytest.raises(HarnessError, match="no domain offers"):
        Links(State(), [], declared=("shop",), known=["shop.people"]).read("shop.peeple")


def test_the_wrong_record_type_is_a_harness_error() -> None:
    with pytest.raises(HarnessError, match="holds LinkedPerson"):
        Links(State(), [PEOPLE], declared=("shop",)).read("shop.people", LinkedOrganization)
    liar = Port("shop.orgs", LinkedOrganization, _people)
    with pytest.raises(HarnessError, match="returned"):
        Links(State(), [liar], declared=("shop",)).read("shop.orgs")


def test_a_generator_run_outside_a_world_reads_every_port_as_empty() -> None:
    assert Links().read("shop.people") == ()


def test_terms_sort_their_values_and_read_whole_numbers() -> None:
    terms = Terms(id="refunds", values={"b": Decimal(2), "a": Decimal("1.5")})
    assert list(terms.values) == ["a", "b"]
    assert terms.whole("b") == 2
    with pytest.raises(HarnessError):
        terms.whole("a")
    with pytest.raises(HarnessError):
        terms.whole("missing")


def test_port_names_its_domain() -> None:
    assert PEOPLE.domain == "shop"


def test_core_imports_no_domain_and_links_name_none() -> None:
    for path in sorted(CORE.glob("*.py")):
        assert "saas_sim.domains" not in path.read_text(encoding="utf-8"), f"{path.name} imports a domain"
    links = (CORE / "links.py").read_text(encoding="utf-8")
    for word in ("crm", "support", "ide."):
        assert word not in links, f"links.py names {word}"
