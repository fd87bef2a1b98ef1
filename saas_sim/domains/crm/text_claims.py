"""Claims a free text makes about the CRM's state: a stage, a signature, an attachment, a change.

A next step of "Contract signed, send invoice" or an email saying "I've moved
the deal to proposal" states a fact the final state can refute. This module
only *reads* such claims; `checks_claims` judges them against the state. The
cue lists below are flags, never evidence that a goal was met: a claim found
here can only make a text false, and a text without claims proves nothing.

How a claim is read, so a truthful text is never taken for one:

* Text is split into sentences (`text_facts.sentences`) and each sentence into
  clauses at `,;:()` and dashes. A claim lives in one clause.
* A claim is read at its cue (the verb: "signed", "merged", "moved") and is
  cancelled only by what governs that verb, never by a word elsewhere in the
  clause (`verb_governance`: a negation or an intent that governs the verb).
* Cues are matched on folded words (lowercase, no accents), as whole words or
  runs of whole words, so "assigned" is not "signed" and "design" is nothing.

The kinds of claim:

* `won`: the deal was signed or won ("signed", "closed won", "unterschrieben",
  "signé"), or booked or executed with a deal or contract noun within three
  words ("Deal closed and booked", "the agreement is executed"), or closed with
  a contract noun ("Vertrag abgeschlossen": a deal "closed" may be lost), or a
  purchase order received ("PO received"), or thanked or congratulated for
  ("Thanks for signing the contract", "danke für die Unterschrift"): gratitude
  for an act says the act is done, and the act's noun or gerund
  (`_SIGNING`) claims it as surely as "signed"; never with a word of loss in the
  clause ("Deal closed lost" is a stage claim). True when the deal is `closed_won`.
* `stage`: the deal moved to or is in a named stage ("moved to proposal",
  "in der Verhandlungsphase"): a stage name (`STAGE_NAMES`) with a move cue
  (`MOVE`) in one clause. True when the deal reached that stage.
* `attachment`: a document is attached ("I've attached the contract", "anbei
  das Angebot", "ci-joint le devis"): an attachment cue with a document noun.
  CRM emails carry no attachments, so this claim is never true.
* `field`: a contact field was changed ("I've updated your email address"):
  a change verb with a field noun (`FIELDS`). True when a record of the person
  had that field changed in the episode.
* `unsubscribed`: the person was taken off mailings ("I've unsubscribed you",
  "désinscrit"). True when the person's consent changed or an enrolment of
  theirs was removed in the episode.
* `merged`: records were merged ("merged the two records", "zusammengeführt").
  True when a merge of a record of the text's person (of any record, for a text
  about no person) happened in the episode.
* `deleted`: a record was deleted ("Deleted the duplicate record", "Kontakt
  gelöscht"): a delete cue (`DELETED`) with a record noun (`RECORDS`). The CRM
  deletes no record (a duplicate is merged, a lead converted), so this claim is
  never true; a removed quote line or sequence step is no record noun.
* `emailed`: the writer sent mail ("Sent the confirmation email", "I emailed
  her"): a send cue (`SENT`) as the clause's first word or right after "I" or
  "we" ("I have", "we've"), and for a bare "sent" a mail noun too, so "The
  buyer emailed us" and "Customer sent a message" (someone else's act) are no
  claim. True when a one-off email to the text's person (any email, for a text
  about no person) was sent in the episode. Read in notes, tasks and next
  steps only: an email is itself the mail it would claim.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final, Literal

from saas_sim.core.text_facts import sentences
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Stage
from saas_sim.domains.crm.verb_governance import INTENT, Span, cues, governed, has, spans, states

__all__ = [
    "ATTACHMENT", "DELETED", "FIELDS", "INTENT", "MERGED", "MOVE", "RECORDS", "SENT", "STAGE_NAMES", "WON", "Claim",
    "ClaimKind", "read_claims",
]

ClaimKind = Literal["won", "stage", "attachment", "field", "unsubscribed", "merged", "deleted", "emailed"]


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim of a text.

    Attributes:
        kind: What is claimed.
        value: The stage (`stage`), the contact field (`field`: email, phone, title, or
            `any` for "contact details"), else None.
        clause: The clause that makes the claim, as written.
    """

    kind: ClaimKind
    value: str | None
    clause: str


WON: Final = cues(
    "signed", "countersigned", "closed won", "closedwon", "deal won", "we won", "won the deal", "is won",
    "signature received", "contract executed",
    "unterschrieben", "unterzeichnet", "gegengezeichnet", "gewonnen",
    "signe", "signee", "signes", "signees", "gagne", "gagnee", "remporte",
    "firmado", "firmada", "ganado", "ganada",
)
"""Folded cues of a signed or won deal."""

_SIGN_VERBS: Final = frozenset({"signed", "countersigned"})
_PARTICLES: Final = frozenset({"off", "up"})
"""Particles that make "signed" another verb (`_phrasal`)."""

_BOOKED: Final = cues("booked", "executed", "gebucht")
"""Folded verbs that win a deal when a deal or contract noun (`_DEALS`) stands near them ("Deal booked")."""

_DEALS: Final = cues(
    "deal", "deals", "opportunity", "contract", "contracts", "agreement", "order form", "order", "sow", "msa",
    "vertrag", "auftrag", "contrat", "affaire", "contrato", "acuerdo", "trato", "negocio",
)

_CONCLUDED: Final = cues("closed", "abgeschlossen", "conclu", "conclue", "cerrado", "cerrada")
"""Folded verbs that win a deal with a contract noun near (`_CONTRACTS`: "Vertrag abgeschlossen"). A deal
"closed" may be lost ("Deal closed; they chose Copperleaf"), so a deal noun is not enough for these."""

_CONTRACTS: Final = cues("contract", "contracts", "agreement", "order form", "sow", "msa", "vertrag", "contrat",
                          "contrato", "acuerdo")

_RECEIVED: Final = cues("received", "in hand", "erhalten", "eingegangen", "recu", "recue", "recibido",
                         "recibida")
"""Folded verbs that win a deal when a purchase order (`_ORDERS`) stands near them ("PO received")."""

_ORDERS: Final = cues("po", "pos", "purchase order", "bestellung", "bon de commande", "orden de compra")

_THANKED: Final = cues(
    "thanks for", "thank you for", "thanks a lot for", "many thanks for", "grateful for", "appreciate",
    "congratulations on", "congrats on", "congratulations for",
    "danke fur", "vielen dank fur", "herzlichen dank fur", "gluckwunsch zur", "gluckwunsch zum",
    "merci pour", "merci de", "merci d", "felicitations pour",
    "gracias por", "enhorabuena por", "felicidades por",
)
"""Folded cues of gratitude for an act, which says the act is done ("Thanks for signing")."""

_SIGNING: Final = cues(
    "signing", "countersigning", "signature", "signatures", "signing the contract", "your signature",
    "unterschrift", "unterzeichnung", "unterschreiben", "unterzeichnen",
    "signer", "avoir signe",
    "firma", "firmar", "firmarlo", "firmado",
)
"""Folded nouns and gerunds of signing, read right after a gratitude cue (`_THANKED`), past `_DETERMINERS` only."""

_DETERMINERS: Final = frozenset({
    "the", "your", "you", "their", "them", "his", "her", "its", "this", "that",
    "die", "ihre", "deine", "eure", "der", "den", "la", "le", "votre", "vos", "el", "su", "sus", "tu",
})
"""Words that may stand between gratitude and the act thanked for ("Thanks for your signature"); any other
word makes the act something else's object ("Thanks for considering signing" thanks a consideration)."""

_LOSS: Final = cues("lost", "verloren", "perdu", "perdue", "perdido", "perdida")
"""Folded words of a lost deal: "Deal closed lost" claims the stage, not a win."""

_NEAR = 3
"""How many words may stand between a win verb and its deal noun ("the agreement is executed")."""

STAGE_NAMES: Final[dict[Stage, tuple[tuple[str, ...], ...]]] = {
    "prospecting": cues("prospecting", "prospection"),
    "qualification": cues("qualification", "qualifizierung", "qualifizierungsphase", "cualificacion"),
    "discovery": cues("discovery", "discovery stage", "bedarfsanalyse", "decouverte"),
    "proposal": cues("proposal", "angebotsphase", "angebot", "proposition", "propuesta"),
    "negotiation": cues("negotiation", "verhandlung", "verhandlungsphase", "negociation", "negociacion"),
    "closed_lost": cues("closed lost", "closedlost", "verloren", "perdu", "perdue", "perdido"),
}
"""Folded names of the open stages and of `closed_lost` (`closed_won` is a `won` claim)."""

MOVE: Final = cues(
    "moved", "advanced", "progressed", "promoted", "pushed", "now", "is in", "is at", "stage", "phase",
    "verschoben", "bewegt", "gesetzt", "jetzt", "nun", "stufe",
    "passe", "passee", "deplace", "deplacee", "avance", "avancee", "maintenant", "etape", "stade",
    "movido", "ahora", "etapa", "fase",
)
"""Folded cues that a clause places a deal in a stage."""

ATTACHMENT: Final = cues(
    "attached", "attachment", "attaching", "enclosed", "anbei", "anhang", "beigefugt", "ci joint", "ci jointe",
    "piece jointe", "pieces jointes", "en annexe", "adjunto", "adjunta",
)
"""Folded cues that a document travels with the text."""

_DOCUMENTS: Final = cues(
    "contract", "proposal", "quote", "invoice", "order form", "pdf", "document", "file", "slides", "deck",
    "agreement", "brochure", "offer", "vertrag", "angebot", "rechnung", "dokument", "unterlagen", "datei",
    "contrat", "devis", "facture", "proposition", "fichier", "contrato", "factura", "presupuesto",
)

_CHANGE: Final = cues(
    "updated", "changed", "corrected", "fixed", "amended", "replaced", "edited",
    "aktualisiert", "geandert", "korrigiert", "ersetzt",
    "mis a jour", "mise a jour", "modifie", "modifiee", "corrige", "corrigee", "remplace",
    "actualizado", "actualizada", "cambiado", "corregido",
)

FIELDS: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "email": cues(
        "email address", "e mail address", "mail address", "e mail adresse", "emailadresse", "mailadresse",
        "adresse e mail", "adresse email", "adresse mail", "adresse electronique", "correo electronico",
    ),
    "phone": cues(
        "phone", "phone number", "telephone", "mobile", "mobile number", "telefon", "telefonnummer",
        "rufnummer", "handynummer", "numero de telephone", "portable", "telefono",
    ),
    "title": cues("title", "job title", "role", "position", "titel", "berufsbezeichnung", "poste", "fonction",
                   "titre", "cargo", "puesto"),
    "any": cues("contact details", "details", "record", "kontaktdaten", "daten", "coordonnees", "datos"),
}
"""Folded nouns of the contact fields a change claim may name; `any` is any field of the person."""

_UNSUBSCRIBED: Final = cues(
    "unsubscribed", "opted out", "opted you out", "removed you", "taken you off", "took you off",
    "abgemeldet", "ausgetragen", "desinscrit", "desinscrite", "desabonne", "desabonnee", "dado de baja",
)

MERGED: Final = cues(
    "merged", "deduplicated", "de duplicated", "zusammengefuhrt", "fusionne", "fusionnes", "fusionnee",
    "fusionnees", "fusionado", "fusionados", "fusionada", "fusionadas",
)
"""Folded cues that records were merged."""

DELETED: Final = cues("deleted", "erased", "purged", "geloscht", "supprime", "supprimee", "supprimes",
                       "eliminado", "eliminada", "borrado", "borrada")
"""Folded cues that something was deleted; a claim needs a record noun (`RECORDS`) too."""

RECORDS: Final = cues("record", "records", "contact", "contacts", "duplicate", "duplicates", "entry", "entries",
                       "account", "lead", "leads", "profile", "datensatz", "datensatze", "kontakt", "eintrag",
                       "fiche", "contacto", "registro")
"""Folded nouns of CRM records, which nothing in the CRM deletes."""

SENT: Final = cues("emailed", "e mailed", "mailed", "sent", "gemailt", "geschickt", "gesendet", "envoye",
                    "envoyee", "enviado", "enviada")
"""Folded cues that the writer sent something; a bare send verb needs a mail noun (`_MAIL`) to claim an email."""

_MAILED: Final = cues("emailed", "e mailed", "mailed", "gemailt")
_MAIL: Final = cues("email", "emails", "e mail", "mail", "confirmation", "message", "reply", "nachricht",
                     "bestatigung", "courriel", "correo", "mensaje")
_WRITERS: Final = cues("i", "we", "ive", "weve", "i have", "we have", "i ve", "we ve", "ich habe", "wir haben",
                        "j ai", "nous avons", "he", "hemos")

_CONTRACTION = re.compile(r"\b(\w+?)n['\u2019]t\b")
_CONTRACTED: Final = {"wo": "will", "ca": "can", "sha": "shall", "ai": "is"}
"""Stems whose "n't" form is no plain word + "not" ("won't" is "will not", so it is no "won")."""
_CLAUSE = re.compile(r"[,;:()\u2013\u2014]|\s-\s")
_WORD = re.compile(r"[^\W\d_]+")

def _clauses(text: str) -> list[str]:
    return [c.strip() for s in sentences(text) for c in _CLAUSE.split(s) if c.strip()]


def _clause_words(clause: str) -> tuple[str, ...]:
    """A clause's folded words, with English "n't" spelled "not" ("hasn't" -> "has not", "won't" -> "will not")."""
    folded = fold(clause).replace("-", " ")
    folded = _CONTRACTION.sub(lambda m: f"{_CONTRACTED.get(m.group(1), m.group(1))} not", folded)
    return tuple(_WORD.findall(folded))


def _near(words: tuple[str, ...], span: Span, nouns: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a noun of `nouns` stands within `_NEAR` words before or after `span`."""
    start, end = span
    return any(s >= start - _NEAR - (e - s) and e <= end + _NEAR + (e - s) for s, e in spans(words, nouns))


def _claims_won(words: tuple[str, ...]) -> bool:
    """Whether a clause's words say the deal was signed or won (see `won` in the module docstring)."""
    if any(not governed(words, s) and not _phrasal(words, s) for s in spans(words, WON)):
        return True
    if has(words, _LOSS):
        return False
    events = [s for s in spans(words, _BOOKED) if _near(words, s, _DEALS)]
    events += [s for s in spans(words, _CONCLUDED) if _near(words, s, _CONTRACTS)]
    events += [s for s in spans(words, _RECEIVED) if _near(words, s, _ORDERS)]
    events += [s for s in spans(words, _THANKED) if _thanked_signing(words, s)]
    return any(not governed(words, s) for s in events)


def _thanked_signing(words: tuple[str, ...], span: Span) -> bool:
    """Whether a signing noun or gerund (`_SIGNING`) follows the gratitude cue at `span`, past determiners only."""
    end = span[1]
    return any(s >= end and all(w in _DETERMINERS for w in words[end:s]) for s, _ in spans(words, _SIGNING))


def _phrasal(words: tuple[str, ...], span: Span) -> bool:
    """Whether the sign verb at `span` is part of another verb: "signed off on the budget" is an approval and
    "signed up for the trial" a registration, neither a signature of the deal."""
    end = span[1]
    if words[end - 1] not in _SIGN_VERBS or end >= len(words) or words[end] not in _PARTICLES:
        return False
    return words[end + 1:end + 2] != ("front",)  # "signed up front" is signed in advance


def _claims_email(words: tuple[str, ...]) -> bool:
    """Whether a clause's words say the writer sent mail (see `emailed` in the module docstring)."""
    starts = [0, *(len(w) for w in _WRITERS if words[:len(w)] == w)]
    for i in starts:
        for cue in SENT:
            if words[i:i + len(cue)] == cue and (cue in _MAILED or has(words, _MAIL)) \
                    and not governed(words, (i, i + len(cue))):
                return True
    return False


def read_claims(text: str) -> list[Claim]:
    """Returns the claims `text` makes, in text order (see the module docstring for the rules).

    Args:
        text: A next step, a note, a task or an email (subject and body joined by a line break).
    """
    return list(_read_claims(text))


@functools.lru_cache(maxsize=4096)
def _read_claims(text: str) -> tuple[Claim, ...]:
    # Memoized: a grade re-reads every text the episode wrote, and a world's own texts on every grade.
    out: list[Claim] = []
    for clause in _clauses(text):
        words = _clause_words(clause)
        if _claims_won(words):
            out.append(Claim("won", None, clause))
        if states(words, MOVE):
            out += [Claim("stage", stage, clause) for stage, names in STAGE_NAMES.items() if has(words, names)]
        if states(words, ATTACHMENT) and has(words, _DOCUMENTS):
            out.append(Claim("attachment", None, clause))
        if states(words, _CHANGE):
            out += [Claim("field", name, clause) for name, nouns in FIELDS.items() if has(words, nouns)]
        if states(words, _UNSUBSCRIBED):
            out.append(Claim("unsubscribed", None, clause))
        if states(words, MERGED):
            out.append(Claim("merged", None, clause))
        if states(words, DELETED) and has(words, RECORDS):
            out.append(Claim("deleted", None, clause))
        if _claims_email(words):
            out.append(Claim("emailed", None, clause))
    return tuple(out)
