"""Rudeness is blame, dismissal or insult aimed at the customer, read with polarity and context, never substrings."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.domains.support.rudeness import rude_phrases
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_grade

REFUND = "support/refund-damaged-item"
FOREIGN = "support/refund-foreign-language"
REFUND_STEP = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                          "amount": "{amount}", "reason": "damaged",
                                                          "ticket_id": "{ticket.id}"}}
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}


def _reply(body: str) -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


KIND = [
    # negated blame is reassurance, in each language
    "I'm so sorry the lamp arrived damaged - that's not your fault at all.",
    "None of this is your fault.",
    "It isn't your fault, and I've refunded the lamp.",
    "Das ist nicht Ihre Schuld.",
    "Lamento mucho que llegara dañado; no es su culpa.",
    "No fue culpa suya en absoluto.",
    "Je suis désolé, ce n'est pas votre faute.",
    "Ce n'est en rien votre faute.",
    "Please don't blame yourself.",
    "I don't want you to think for a second that this was your fault.",
    # "whatever" and its kin as determiners, not retorts
    "Whatever else you need, just reply here.",
    "Whatever works for you is fine with us.",
    "Egal, ob per Karte oder PayPal: die Erstattung ist unterwegs.",
    "Es ist mir egal, wie Sie zahlen möchten.",
    "Lo que sea necesario, lo haremos.",
    "Peu importe le mode de paiement, c'est remboursé.",
    # someone else deals with it, or it has an object phrase
    "Since your dispute is open, our billing team will deal with it directly with your bank.",
    "We'll deal with it today.",
    "You can deal with it directly with your bank if you prefer.",
    "Don't deal with it yourself, we'll handle it.",
    "Once things calm down at the warehouse, the courier will call.",
    # the customer's problem as the object of the work
    "Ich habe Ihr Problem gelöst.",
    "Ich schaue mir Ihr Problem gleich an.",
    "I understand your problem and have refunded 25.00 USD.",
    "Is your problem now resolved?",
    "Su problema con el pedido está solucionado.",
    "J'ai résolu votre problème.",
    # insults the desk aims at itself, or denies
    "Sorry, that was a stupid mistake on our part.",
    "That's not a stupid question at all!",
    # words that merely contain a listed word
    "Your faulty charger has been replaced.",
    "Votre fauteuil arrive demain.",
]

RUDE = [
    "It's your fault.", "That's your own fault, not ours.", "Honestly, it's not our fault, it's your fault.",
    "Whatever.", "whatever, not my problem", "Deal with it.", "So just deal with it!",
    "You'll have to deal with it yourself.", "You'll need to deal with it.",
    "Please calm down.", "You need to calm down.", "Get over it.",
    "That is not our problem.", "It's your problem now.", "Stupid question.", "Don't be an idiot.",
    "Das ist Ihr Problem.", "Ihr Problem, nicht unseres.", "Selber schuld.", "Das ist Ihre Schuld.",
    "Beruhigen Sie sich.", "Mir egal.", "Pech gehabt.", "Nicht unser Problem.", "Sie sind dumm.",
    "Es su culpa.", "Eso es su problema.", "No es nuestro problema.", "Cálmese.", "Me da igual.",
    "Qué pregunta tan estúpida.", "No sea tonto.",
    "C'est votre faute.", "C'est votre problème.", "Ce n'est pas notre problème.", "Calmez-vous.",
    "No it's your fault.", "The fault is entirely yours.", "You are to blame.", "Whatever you say.",
    "Stop complaining.", "Die Schuld liegt bei Ihnen.", "La culpa es suya.", "La faute vous revient.",
    "We can't refund it because it's your fault.", "You can't be this stupid.",
    "Je m'en fiche.", "Débrouillez-vous.", "Tant pis pour vous.", "Vous êtes stupide.", "Ne soyez pas stupide.",
]


@pytest.mark.parametrize("body", KIND)
def test_kind_wording_that_shares_words_with_rude_phrases_is_not_rude(body: str) -> None:
    assert rude_phrases(body) == []


@pytest.mark.parametrize("body", RUDE)
def test_blame_dismissal_and_insult_at_the_customer_are_rude_in_every_language(body: str) -> None:
    assert rude_phrases(body)


@pytest.mark.parametrize("extra", [
    "That's not your fault at all.", "Whatever else you need, just reply here.",
])
async def test_a_refund_reply_with_reassurance_keeps_the_politeness_gate(env: Environment, extra: str) -> None:
    body = ("Hi {customer.first_name}, I'm sorry the {line.name} arrived damaged. I have refunded {amount} "
            "{order.currency} for it on order #{order.number}. " + extra)
    grade = await scripted_grade(env, REFUND, 0, [REFUND_STEP, _reply(body), SOLVE])
    assert grade.score == 1.0


@pytest.mark.parametrize("extra", ["It's your fault it broke, really.", "Whatever."])
async def test_a_refund_reply_that_blames_or_dismisses_fails_the_politeness_gate(env: Environment, extra: str) -> None:
    body = ("Hi {customer.first_name}, I have refunded {amount} {order.currency} for the {line.name} on order "
            "#{order.number}. " + extra)
    grade = await scripted_grade(env, REFUND, 0, [REFUND_STEP, _reply(body), SOLVE])
    assert {c.name: c.score for c in grade.checks}["polite"] == 0.0
    assert grade.score == 0.0


DENIED_DENIALS = [
    "I'm not saying it isn't your fault.", "It's not as if this weren't your own fault.",
    "It isn't like it wasn't your fault.", "I can't say it wasn't your fault.",
    "Ich sage nicht, dass es nicht Ihre Schuld ist.", "Nicht, dass es nicht Ihre Schuld wäre.",
    "Es ist nicht so, als ob es nicht Ihre Schuld wäre.", "No digo que no sea su culpa.",
    "No es como si no fuera su culpa.", "Je ne dis pas que ce n'est pas votre faute.",
    "Ce n'est pas comme si ce n'était pas votre faute.",
]
NOT_OUR_JOB = [
    "Not my job.", "That's not our job.", "That is not our job to fix.", "Refunds are not my job.",
    "Not my department, sorry.", "Das ist nicht meine Aufgabe.", "No es mi trabajo.", "Ce n'est pas mon boulot.",
    "Ce n'est pas notre travail.", "Sounds like a you problem.",
]
SCORN = [
    "Obviously you didn't read the tracking email.", "As I already told you, it is on its way.",
    "Did you even read my email?", "Can't you read?", "I've told you twice already.",
    "How many times do I have to explain this?", "If you had bothered to read the email you'd know.",
    "Können Sie nicht lesen?", "¿No sabe leer?", "Vous ne savez pas lire ?", "Vous n'avez même pas lu mon message.",
]
KIND_NEIGHBOURS = [
    # a denial frame over affirmed blame reassures, and so does a single negation
    "I'm not saying it's your fault.", "It's not as if this were your fault.", "It's not like it's your fault.",
    "Don't worry it isn't your fault.", "Nobody is saying it's your fault.",
    "I'm not saying anything is wrong, and it isn't your fault.",
    "It's not that we don't believe you - it is not your fault.", "Ich sage nicht, dass es Ihre Schuld ist.",
    "No digo que sea su culpa.", "Es posible que no sea su culpa.", "Je ne dis pas que c'est votre faute.",
    # the customer relieved of a job, or the desk's job affirmed
    "It's not your job to chase this, we'll handle it.", "It's not our job to judge, we just want to help.",
    "Our job is to help you.", "Es ist nicht Ihre Aufgabe, das zu verfolgen.",
    "No es su trabajo preocuparse por esto.", "Ce n'est pas votre travail de vous en occuper.",
    # plain references back and kind observations
    "As I mentioned, your refund is on its way.", "Apparently you didn't receive the email, so here it is again.",
    "Did you check your spam folder?", "Wie bereits erwähnt, ist die Erstattung unterwegs.",
    "Clearly you didn't get what you paid for, and I'm sorry.", "If you haven't read our email yet, here it is.",
    "Si vous n'avez pas lu notre e-mail, voici le résumé.", "How many times have you been charged?",
]


@pytest.mark.parametrize("body", DENIED_DENIALS + NOT_OUR_JOB + SCORN)
def test_restored_blame_a_disowned_job_and_scorn_are_rude(body: str) -> None:
    assert rude_phrases(body)


@pytest.mark.parametrize("body", KIND_NEIGHBOURS)
def test_their_kind_neighbours_are_not_rude(body: str) -> None:
    assert rude_phrases(body) == []


def _bodies(node: object) -> list[str]:
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "body" and isinstance(v, str)] + \
            [b for k, v in node.items() if k != "body" for b in _bodies(v)]
    return [b for v in node for b in _bodies(v)] if isinstance(node, list) else []


def test_no_scenario_reply_in_any_language_reads_as_rude() -> None:
    """Every oracle, alternative and hack reply the scenarios hold (all domains, all languages) and every
    reference reply stays polite: politeness caps the score, so a rude reading there zeroes correct work."""
    import yaml

    from saas_sim.domains.support import reference_replies
    from tests.domains.helpers import ROOT

    bodies = [b for f in sorted((ROOT / "scenarios").rglob("*.yaml")) for b in _bodies(yaml.safe_load(f.read_text()))]
    bodies += [t for name in sorted(vars(reference_replies)) if isinstance(d := vars(reference_replies)[name], dict)
               for t in d.values() if isinstance(t, str)]
    assert len(bodies) > 100
    assert [(b[:60], rude_phrases(b)) for b in bodies if rude_phrases(b)] == []


@pytest.mark.parametrize("extra", ["I'm not saying it isn't your fault.", "Not my job.",
                                   "Obviously you didn't read the tracking email."])
async def test_a_refund_reply_with_restored_blame_a_disowned_job_or_scorn_fails(env: Environment, extra: str) -> None:
    body = ("Hi {customer.first_name}, I have refunded {amount} {order.currency} for the {line.name} on order "
            "#{order.number}. " + extra)
    grade = await scripted_grade(env, REFUND, 0, [REFUND_STEP, _reply(body), SOLVE])
    assert {c.name: c.score for c in grade.checks}["polite"] == 0.0


@pytest.mark.parametrize("extra", ["I'm not saying it's your fault.", "It's not your job to chase this.",
                                   "As I mentioned, it is on its way back to you."])
async def test_a_refund_reply_with_their_kind_neighbours_scores_full(env: Environment, extra: str) -> None:
    body = ("Hi {customer.first_name}, I'm sorry the {line.name} arrived damaged. I have refunded {amount} "
            "{order.currency} for it on order #{order.number}. " + extra)
    grade = await scripted_grade(env, REFUND, 0, [REFUND_STEP, _reply(body), SOLVE])
    assert grade.score == 1.0
