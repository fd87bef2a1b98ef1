"""The claim reader: what a free text claims about the CRM, and what it only plans or denies."""

from __future__ import annotations

import pytest

from saas_sim.domains.crm.text_claims import read_claims


def _kinds(text: str) -> list[tuple[str, str | None]]:
    return [(c.kind, c.value) for c in read_claims(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Contract signed, send invoice", [("won", None)]),
    ("Vertrag unterschrieben, Rechnung senden", [("won", None)]),
    ("Le contrat est signé.", [("won", None)]),
    ("I have moved the deal to proposal.", [("stage", "proposal")]),
    ("Ihr Deal ist jetzt in der Verhandlungsphase.", [("stage", "negotiation")]),
    ("Votre dossier est maintenant à l'étape proposition.", [("stage", "proposal")]),
    ("I've attached the contract.", [("attachment", None)]),
    ("Anbei das Angebot.", [("attachment", None)]),
    ("Veuillez trouver ci-joint le devis.", [("attachment", None)]),
    ("I've updated your email address.", [("field", "email")]),
    ("Nous avons mis à jour votre numéro de téléphone.", [("field", "phone")]),
    ("Ich habe Ihre Kontaktdaten aktualisiert.", [("field", "any")]),
    ("I have unsubscribed you from our newsletters.", [("unsubscribed", None)]),
    ("Sent the confirmation email and merged the two records", [("merged", None), ("emailed", None)]),
    ("I emailed her the revised quote.", [("emailed", None)]),
    ("Wir haben die Datensätze zusammengeführt.", [("merged", None)]),
    ("Deleted the duplicate record of the buyer.", [("deleted", None)]),
])
def test_a_stated_fact_is_read_as_a_claim(text: str, expected: list[tuple[str, str | None]]) -> None:
    assert _kinds(text) == expected


@pytest.mark.parametrize("text", [
    "Send the contract for signature",
    "Once the contract is signed, send the invoice",
    "Get the contract signed by Friday",
    "Contract not yet signed",
    "Le contrat ne sera signé qu'après votre accord.",
    "Sobald der Vertrag unterschrieben ist, schicke ich die Rechnung.",
    "The proposal for Acme Renewal is on its way.",
    "I attached your lead to the existing account Acme.",
    "Following your email, I updated the deal.",
    "You can unsubscribe at any time.",
    "Assigned to Bob; he designed the rollout.",
    "I'll send the contract as an attachment tomorrow.",
    "The buyer emailed us to ask for a new quote.",
    "Customer sent a message asking to stop.",
    "Do not merge these records.",
    "I deleted the onboarding line from the quote.",
    "Kontakt aus beiden Sequenzen entfernt.",
])
def test_plans_conditions_and_denials_claim_nothing(text: str) -> None:
    assert read_claims(text) == []


def test_a_claim_is_read_per_clause_so_an_intent_elsewhere_does_not_excuse_it() -> None:
    # "will" plans the invoice, not the signature: the first clause still claims it.
    assert _kinds("Contract signed, we will send the invoice") == [("won", None)]


@pytest.mark.parametrize("text", [
    "Contract signed before the deadline, send the invoice",
    "Contract signed after legal review, invoice to follow",
    "Contract signed with no redlines; send the invoice",
    "Contract signed in May",
    "Contract signed and we will send the invoice",
    "After legal review the contract was signed",
    "Once the contract was signed we sent the invoice",
    "I can confirm the contract was signed",
    "Contract with no redlines was signed",
    "Buyer had no questions and signed the contract",
    "Waiting on the invoice but the contract is signed",
    "Le contrat a été signé hier",
])
def test_an_intent_or_negation_that_does_not_govern_the_verb_leaves_the_claim(text: str) -> None:
    # "before", "after", "no", "will" here time or qualify the signature, or belong to another verb.
    assert _kinds(text) == [("won", None)]


@pytest.mark.parametrize("text", [
    "Deal closed and booked by the customer",
    "PO received and the agreement is executed",
    "Received the PO from the buyer",
    "Deal booked",
    "Contract closed",
    "Vertrag abgeschlossen",
])
def test_a_deal_booked_or_executed_a_contract_closed_or_a_po_received_claims_a_win(text: str) -> None:
    assert _kinds(text) == [("won", None)]


@pytest.mark.parametrize("text", [
    "Deal closed lost",
    "Deal closed; the buyer chose Copperleaf",
    "I have closed the deal on our side",
    "Closed the follow-up task",
    "Booked a call about the contract terms",
    "Waiting for PO",
    "PO to be received next week",
    "Deal not closed",
    "Deal will be closed next month",
])
def test_a_lost_deal_another_closed_thing_or_a_planned_close_claims_no_win(text: str) -> None:
    assert [k for k in _kinds(text) if k[0] == "won"] == []


@pytest.mark.parametrize("text", [
    "Contract not signed yet",
    "Awaiting the signed contract",
    "Need the signed contract back",
    "Contract will be signed next week",
    "Contract to be signed by Friday",
    "To get it signed before the quarter ends",
    "Until signed, hold the invoice",
    "Send invoice when contract signed",
    "No contract has been signed",
    "The contract hasn't been signed",
    "We won't sign before legal review",
    "Nothing signed yet",
    "Never got the contract signed",
    "Please make sure the contract is signed before invoicing",
    "Check whether the contract has been signed",
    "Contract is being signed today",
    "Contract should have been signed last week",
    "We would send the invoice if the contract were signed",
    "Invoice after the contract is signed",
    "Der Vertrag muss noch unterschrieben werden",
    "Kein Vertrag unterschrieben",
    "Le contrat n'est pas encore signé",
    "Une fois le contrat signé, envoyer la facture",
    "El contrato no está firmado",
    "Will move the deal to proposal stage",
    "Once we have moved the deal to proposal, send the quote",
])
def test_an_intent_or_negation_that_governs_the_verb_cancels_the_claim(text: str) -> None:
    assert read_claims(text) == []


def test_other_claims_are_read_at_their_own_verb_too() -> None:
    assert _kinds("Deal moved to proposal with no blockers") == [("stage", "proposal")]
    assert _kinds("Records merged with no duplicates left") == [("merged", None)]


@pytest.mark.parametrize("text", [
    "great to hear that your CFO signed off on the budget!",
    "The board signed off on the pilot scope.",
    "They signed up for the trial last week.",
    "Looking forward to getting this signed by March 23.",
    "We are getting the contract signed today",
    "Hoping to have it countersigned next week",
    "Planning to get the order form signed on Friday",
])
def test_an_approval_a_registration_or_a_plan_in_progress_claims_no_signature(text: str) -> None:
    assert read_claims(text) == []


@pytest.mark.parametrize("text", [
    "Contract signed up front by the CFO",
    "Contract signed off and countersigned.",
    "Signed in March, invoice sent.",
    "The CFO signed the contract off",
    "Deal signed; looking forward to the kickoff.",
])
def test_a_signature_beside_a_particle_or_a_plan_elsewhere_is_still_claimed(text: str) -> None:
    assert [c.kind for c in read_claims(text)] == ["won"]


@pytest.mark.parametrize("text", [
    "Hi Ann, thanks for signing the contract last week.",
    "Thank you for your signature on the order form.",
    "Congratulations on signing with us!",
    "I appreciate you signing the agreement so quickly.",
    "Danke für Ihre Unterschrift.",
    "Merci pour la signature du contrat.",
    "Gracias por firmar el contrato.",
])
def test_gratitude_for_a_signature_claims_the_signature(text: str) -> None:
    assert [c.kind for c in read_claims(text)] == ["won"]


@pytest.mark.parametrize("text", [
    "Thanks for your time today.",
    "The contract is ready for signing.",
    "Thanks for reviewing the contract before signing.",
    "Thanks in advance for signing the contract.",
    "Thanks for considering signing this quarter.",
    "Thank you for sending the signature page.",
    "Thanks for the update on signing timelines.",
])
def test_gratitude_for_something_else_or_a_signing_ahead_claims_nothing(text: str) -> None:
    assert read_claims(text) == []
