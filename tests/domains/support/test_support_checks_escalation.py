"""Escalation hand-offs judged by the fact that decides the team (issue 9, second support red team).

A blind policy guesses legal or security right half the time; only the hand-off's content (what the
customer threatened or reported, about which order) shows it read the ticket. Run on several seeds,
so a test cannot pass by one seed's luck.
"""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.domains.support.checks_escalation import _kinds_named
from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_grade, scripted_scores

THREAT = "support/escalate-threat"
SEEDS = (0, 1, 2, 3, 4, 5)


def _escalate(reason: str) -> dict[str, Any]:
    return {"tool": "support.escalate_ticket", "args": {"ticket_id": "{ticket.id}", "team": "{team}",
                                                         "reason": reason}}


async def _scores(env: Environment, steps: list[dict[str, Any]]) -> list[float]:
    return await scripted_scores(env, THREAT, SEEDS, steps)


async def test_a_right_team_with_a_boilerplate_reason_earns_at_most_a_fifth(env: Environment) -> None:
    for reason in ("Possible legal threat or account takeover, please review.", "Per policy rule 10."):
        assert max(await _scores(env, [_escalate(reason)])) <= 0.2


async def test_a_hand_off_in_other_words_that_states_the_cause_and_order_passes(env: Environment) -> None:
    steps = [{"tool": "support.get_ticket", "args": {"ticket_id": "{ticket.id}"}},
             _escalate("Order no. {order.number}: {kind}. Support has not replied.")]
    assert await _scores(env, steps) == [1.0] * len(SEEDS)


async def test_a_hand_off_that_also_names_another_order_fails(env: Environment) -> None:
    scores = await _scores(env, [_escalate("{cause}, order {order.number} (see also order 99999999).")])
    assert scores == [1.0] * len(SEEDS)  # 99999999 is no order of the shop: not a false fact
    env_scores = await _scores(env, [_escalate("{cause}, order {order.number}."),
                                     {"tool": "support.add_internal_note",
                                      "args": {"ticket_id": "{ticket.id}", "body": "Same as order {other_order}."}}])
    assert max(env_scores) <= 0.2


async def test_a_status_change_after_the_escalation_breaks_the_restraint(env: Environment) -> None:
    steps = [_escalate("{cause} over order {order.number}."),
             {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "open"}}]
    assert max(await _scores(env, steps)) == 0.0


@pytest.mark.parametrize(("text", "kinds"), [
    ("Not a legal matter: account takeover on order 123456.", {"security"}),
    ("Handing this to security (account takeover); no reply from support.", {"security"}),
    ("Kunde droht mit Anwalt wegen Bestellung 123456.", {"legal"}),
    ("Possible legal threat or account takeover.", {"legal", "security"}),
    ("For legal review. Order 123456.", set()),
    ("Legal matter, please check order 123456.", set()),
    ("Rechtliche Prüfung, Bestellung 123456.", set()),
    ("Security incident: someone else got into the customer's account on order 123456. Possible identity theft.",
     {"security"}),
    ("Fraud: a third party accessed the customer's account and redirected order 123456.", {"security"}),
    ("Customer threatens to take us to small claims over order 123456.", {"legal"}),
    ("Customer says they will start proceedings over order 123456.", {"legal"}),
    ("Customer threatens to sue if order 123456 is not refunded by Friday.", {"legal"}),
    ("No legal threat here; order 123456.", set()),
    ("Nobody hacked the account; the customer will sue over order 123456.", {"legal"}),
])
def test_kinds_are_read_per_affirmed_clause(text: str, kinds: set[str]) -> None:
    assert _kinds_named(read_facts([text])) == kinds


_PLAIN_CAUSES = {
    "security": ("Security incident: someone else got into the customer's account and changed the shipping address "
                 "on order {order.number}. Possible identity theft.",
                 "Fraud: a third party accessed the customer's account and redirected order {order.number}."),
    "legal": ("Customer threatens to take us to small claims over order {order.number}.",
              "Customer says they will start proceedings over order {order.number}."),
}


async def _team_scores(env: Environment, reasons: dict[str, tuple[str, ...]]) -> list[float]:
    """The score of escalating to the right team with each of that team's `reasons`, over `SEEDS`."""
    out: list[float] = []
    for seed in SEEDS:
        team = (await env.task(env.scenario(THREAT), seed)).bindings["team"]
        for reason in reasons[team]:
            grade = await scripted_grade(env, THREAT, seed, [_escalate(reason)])
            assert grade.score is not None
            out.append(grade.score)
    return out


async def test_a_cause_in_plain_words_with_the_order_passes(env: Environment) -> None:
    assert set(await _team_scores(env, _PLAIN_CAUSES)) == {1.0}


async def test_naming_only_the_team_states_no_cause(env: Environment) -> None:
    blind = ("For {team} review. Order {order.number}.", "Legal matter, order {order.number}.")
    assert max(await _team_scores(env, {"legal": blind, "security": blind})) <= 0.2


async def test_a_negated_cause_states_no_cause(env: Environment) -> None:
    denied = {"legal": ("No legal threat, just a question about order {order.number}.",),
              "security": ("Not an account takeover, order {order.number}.",)}
    assert max(await _team_scores(env, denied)) <= 0.2


@pytest.mark.parametrize("text", [
    "Customer threatens legal consequences over order #123456 (third email, no answer).",
    "Customer says they will pursue legal options over order 123456; third email without a reply.",
    "Customer intends to involve their legal representative regarding order 123456.",
    "Threat of legal escalation from the customer, order 123456.",
])
def test_legal_beside_any_noun_but_a_team_word_names_a_legal_threat(text: str) -> None:
    assert _kinds_named(read_facts([text])) == {"legal"}


@pytest.mark.parametrize("text", [
    "Customer threatens to sue for fraud over order 123456.",
    "Customer's lawyer will file a claim against us; they say they were charged without their consent for "
    "order 123456.",
    "Customer will sue over an unauthorised charge on order 123456.",
    "Customer will sue over fraud on their account, order 123456.",
])
def test_a_threat_to_sue_outranks_fraud_and_consent_words(text: str) -> None:
    assert _kinds_named(read_facts([text])) == {"legal"}


@pytest.mark.parametrize(("text", "kinds"), [
    ("Customer was charged without their consent for order 123456.", set()),
    ("Fraud on the customer's account, order 123456.", {"security"}),
    ("Password changed without the customer's permission, order 123456.", {"security"}),
    ("Customer's account appears hijacked: the delivery address on order 123456 was changed.", {"security"}),
])
def test_fraud_and_consent_words_name_security_only_about_the_account(text: str, kinds: set[str]) -> None:
    assert _kinds_named(read_facts([text])) == kinds


@pytest.mark.parametrize("text", [
    "For legal review. Order 123456.",
    "Escalating to the legal team, order 123456.",
    "Legal department, order 123456.",
    "Needs the legal queue: order 123456.",
    "Legal escalation, order 123456.",
    "Legal - order 123456.",
    "Per policy, for legal.",
])
def test_legal_beside_a_team_or_routing_word_names_no_cause(text: str) -> None:
    assert _kinds_named(read_facts([text])) == set()


_LEGAL_WORDINGS = (
    "Customer threatens legal consequences over order #{order.number} (third email, no answer).",
    "Customer says they will pursue legal options over order {order.number}; third email without a reply.",
    "Customer intends to involve their legal representative regarding order {order.number}.",
    "Threat of legal escalation from the customer, order {order.number}.",
    "Customer threatens to sue for fraud over order {order.number}.",
    "Customer's lawyer will file a claim against us; they say they were charged without their consent for order "
    "{order.number}.",
)


async def test_a_legal_threat_in_natural_words_passes_on_legal_seeds(env: Environment) -> None:
    assert set(await _team_scores(env, {"legal": _LEGAL_WORDINGS, "security": ()})) == {1.0}
