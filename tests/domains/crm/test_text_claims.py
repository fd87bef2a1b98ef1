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
