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
