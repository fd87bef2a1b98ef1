"""A lost reason names causes by their words, and a competitor by its very name."""

from __future__ import annotations

import pytest

from saas_sim.domains.crm.decline_causes import COMPETITORS, Cause, causes_named, competitors_named, states_cause


def test_each_cause_is_named_by_its_own_words_only() -> None:
    assert causes_named("Budget frozen for the rest of the year") == {"budget"}
    assert causes_named("Project cancelled in a reorganisation") == {"cancelled"}
    assert causes_named("They will build it in-house") == {"in_house"}
    assert causes_named("Chose Copperleaf") == {"competitor"}
    assert causes_named("Buyer declined") == set()


def test_a_list_of_every_cause_names_them_all() -> None:
    assert causes_named("Competitor, no budget, cancelled or in house") == {"competitor", "budget", "cancelled",
                                                                          "in_house"}


def test_a_competitor_loss_states_its_cause_only_with_the_rival_chosen() -> None:
    assert states_cause("Lost to halcyon crm", "competitor", "Halcyon CRM")
    assert not states_cause("Chose a competitor", "competitor", "Halcyon CRM")
    assert not states_cause("Chose Copperleaf", "competitor", "Halcyon CRM")
    assert competitors_named("Orbital Apps, not Vantage Suite") == {"Orbital Apps", "Vantage Suite"}


def test_no_rival_name_is_a_word_of_another_cause() -> None:
    for rival in COMPETITORS:
        assert causes_named(rival) == {"competitor"}


def test_a_cause_named_only_in_denial_is_not_stated() -> None:
    assert not states_cause("Not Chose Copperleaf", "competitor", "Copperleaf")
    assert not states_cause("Did not choose Copperleaf", "competitor", "Copperleaf")
    assert not states_cause("Went with nobody rather than Copperleaf", "competitor", "Copperleaf")
    assert not states_cause("Not Budget frozen", "budget", None)
    assert not states_cause("Project cancelled, not because of the budget", "budget", None)
    assert not states_cause("Never cancelled", "cancelled", None)


def test_a_cause_stated_beside_a_negation_still_counts() -> None:
    assert states_cause("Chose Copperleaf, not us", "competitor", "Copperleaf")
    assert states_cause("Lost to Copperleaf (we were not cheaper)", "competitor", "Copperleaf")
    assert states_cause("No budget this year", "budget", None)
    assert states_cause("Budget not approved", "budget", None)
    assert states_cause("They will not go ahead: building it in-house", "in_house", None)


@pytest.mark.parametrize(("reason", "cause"), [
    ("Initiative still running, buyer just stopped answering", "cancelled"),
    ("Project went ahead, buyer went quiet", "cancelled"),
    ("Project not cancelled", "cancelled"),
    ("Budget approved, buyer went quiet", "budget"),
    ("Budget is fine, they stopped replying", "budget"),
    ("Budget was not frozen", "budget"),
    ("No budget issues, buyer went silent", "budget"),
    ("Not building anything in-house", "in_house"),
])
def test_a_reason_that_affirms_the_opposite_of_the_cause_does_not_state_it(reason: str, cause: Cause) -> None:
    assert not states_cause(reason, cause, None)


@pytest.mark.parametrize(("reason", "cause"), [
    ("Buyer stopped answering", "cancelled"),
    ("Project lead stopped answering", "cancelled"),
    ("Buyer went quiet", "budget"),
])
def test_a_state_without_the_causes_subject_does_not_state_it(reason: str, cause: Cause) -> None:
    assert not states_cause(reason, cause, None)


@pytest.mark.parametrize(("reason", "cause"), [
    ("Their engineering team is developing their own solution", "in_house"),
    ("Building their own tool", "in_house"),
    ("Going with an internal tool", "in_house"),
    ("Homegrown solution", "in_house"),
    ("Project killed in a restructuring", "cancelled"),
    ("Initiative was shelved", "cancelled"),
    ("Program put on hold indefinitely", "cancelled"),
    ("The project was called off", "cancelled"),
    ("Project deprioritised", "cancelled"),
    ("Budget was not approved", "budget"),
    ("Budget for the project was frozen", "budget"),
    ("Funding was cut", "budget"),
    ("Too expensive for them", "budget"),
    ("They can't afford it this year", "budget"),
    ("Lost their funding", "budget"),
    ("Budget", "budget"),
    ("Lost on price", "budget"),
    ("Budget constraints", "budget"),
])
def test_a_cause_stated_in_other_words_is_stated_and_names_nothing_else(reason: str, cause: Cause) -> None:
    assert states_cause(reason, cause, None)
    assert causes_named(reason) == {cause}


@pytest.mark.parametrize(("reason", "rival"), [
    ("Went with Halcyon", "Halcyon CRM"),
    ("Went with Orbital", "Orbital Apps"),
    ("Chose Kestrel", "Kestrel Software"),
    ("Lost to Vantage", "Vantage Suite"),
    ("Lost to Northwind", "Northwind Systems"),
])
def test_a_rival_is_named_by_the_word_of_its_name_that_is_its_own(reason: str, rival: str) -> None:
    assert states_cause(reason, "competitor", rival)
    assert competitors_named(reason) == {rival}


def test_a_generic_word_of_a_rivals_name_names_no_rival() -> None:
    assert competitors_named("Chose a CRM vendor with better apps and software") == set()
    assert not states_cause("Went with some apps vendor", "competitor", "Orbital Apps")
    assert not states_cause("Did not choose Halcyon", "competitor", "Halcyon CRM")


@pytest.mark.parametrize(("reason", "causes"), [
    ("Project cancelled after a reorganisation (not a price or competitor issue)", {"cancelled"}),
    ("Initiative cancelled internally - budget was fine, no competitor involved", {"cancelled"}),
    ("Lost to Copperleaf (price was not the deciding factor)", {"competitor"}),
    ("Project cancelled, not because of the budget", {"cancelled"}),
    ("Budget frozen, no competitor involved", {"budget"}),
    ("Price frozen and competitor not involved", {"budget"}),
    ("No budget issues, buyer went silent", set()),
])
def test_a_cause_denied_in_its_clause_is_not_named(reason: str, causes: set[Cause]) -> None:
    assert causes_named(reason) == causes


@pytest.mark.parametrize(("reason", "causes"), [
    ("No budget this year", {"budget"}),
    ("Budget frozen, price was not the only factor", {"budget"}),
    ("Competitor, no budget, cancelled or in house", {"competitor", "budget", "cancelled", "in_house"}),
    ("Budget frozen or project cancelled", {"budget", "cancelled"}),
])
def test_a_cause_stated_or_listed_beside_a_negation_is_still_named(reason: str, causes: set[Cause]) -> None:
    assert causes_named(reason) == causes


@pytest.mark.parametrize(("reason", "causes"), [
    ("Initiative cancelled internally", {"cancelled"}),
    ("Cancelled after an internal restructuring", {"cancelled"}),
    ("Developed internally", {"in_house"}),
    ("Going with an internal tool", {"in_house"}),
])
def test_internal_alone_is_no_in_house_cause(reason: str, causes: set[Cause]) -> None:
    assert causes_named(reason) == causes


@pytest.mark.parametrize("reason", [
    "Budget frozen; from our vantage point the timing is wrong",
    "From our vantage point, budget frozen",
    "Budget frozen after the halcyon days of spending",
    "Project cancelled - the orbital launch programme was scrapped",
    "FROM OUR VANTAGE POINT THE BUDGET IS FROZEN",
    "No budget, per the kestrel team lead",
])
def test_an_everyday_word_of_a_rivals_name_names_no_rival_where_it_is_no_name(reason: str) -> None:
    assert competitors_named(reason) == set()
    assert "competitor" not in causes_named(reason)


@pytest.mark.parametrize(("reason", "rival"), [
    ("went with vantage", "Vantage Suite"),
    ("chose the halcyon offer", "Halcyon CRM"),
    ("Lost to competitor kestrel", "Kestrel Software"),
    ("Competitor: orbital", "Orbital Apps"),
    ("vantage", "Vantage Suite"),
    ("Kestrel undercut us on price", "Kestrel Software"),
    ("CHOSE VANTAGE", "Vantage Suite"),
    ("They signed with Halcyon's team", "Halcyon CRM"),
    ("Buyer preferred orbital for the price", "Orbital Apps"),
])
def test_an_everyday_word_of_a_rivals_name_names_it_where_it_is_used_as_a_name(reason: str, rival: str) -> None:
    assert competitors_named(reason) == {rival}
    assert states_cause(reason, "competitor", rival)


def test_rivals_listed_beside_one_another_are_each_named_in_any_case() -> None:
    assert competitors_named("chose copperleaf or vantage or halcyon or kestrel or orbital or northwind") == set(
        COMPETITORS)
    assert competitors_named("cheaper offer from copperleaf") == {"Copperleaf"}


@pytest.mark.parametrize("reason", [
    "Vantage point: the budget was frozen",
    "Halcyon days are over; the project was cancelled",
    "Budget frozen. Orbital period of the review ended",
    "- Kestrel sightings aside, they built it in-house",
])
def test_an_everyday_phrase_capitalized_at_a_sentence_start_names_no_rival(reason: str) -> None:
    assert competitors_named(reason) == set()


@pytest.mark.parametrize(("reason", "rival"), [
    ("Vantage: we lost to them", "Vantage Suite"),
    ("We went with Vantage", "Vantage Suite"),
    ("Vantage won the deal on price", "Vantage Suite"),
    ("Halcyon offered a steeper discount", "Halcyon CRM"),
    ("Orbital's pricing won them over", "Orbital Apps"),
    ("Budget was fine. Vantage undercut us", "Vantage Suite"),
    ("The buyer picked a rival. Vantage, in the end", "Vantage Suite"),
])
def test_a_rival_at_a_sentence_start_is_named_before_its_predicate(reason: str, rival: str) -> None:
    assert competitors_named(reason) == {rival}


@pytest.mark.parametrize(("text", "named"), [
    ("Chose Copperleaf; no orbital launch of anything this year", {"Copperleaf"}),
    ("Went with Copperleaf. Halcyon days are over for this budget", {"Copperleaf"}),
    ("Copperleaf or vantage, we never found out", {"Copperleaf", "Vantage Suite"}),
    ("Copperleaf, vantage and halcyon were all in the running", {"Copperleaf", "Vantage Suite", "Halcyon CRM"}),
])
def test_rivals_beside_an_everyday_word_count_only_in_its_part_of_the_sentence(text: str, named: set[str]) -> None:
    assert competitors_named(text) == named
