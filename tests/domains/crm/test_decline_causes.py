"""A lost reason names causes by their words, and a competitor by its very name."""

from __future__ import annotations

from saas_sim.domains.crm.decline_causes import COMPETITORS, causes_named, competitors_named, states_cause


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
