"""Claims a free text makes about the CRM's state: a stage, a signature, an attachment, a change.

A next step of "Contract signed, send invoice" or an email saying "I've moved
the deal to proposal" states a fact the final state can refute. This module
only *reads* such claims; `checks_claims` judges them against the state. The
cue lists below are flags, never evidence that a goal was met: a claim found
here can only make a text false, and a text without claims proves nothing.

How a claim is read, so a truthful text is never taken for one:

* Text is split into sentences (`text_facts.sentences`) and each sentence into
  clauses at `,;:()` and dashes. A claim lives in one clause.
* A clause that is negated (`text_facts.negated`: "not yet signed") or that
  carries an intent cue (`INTENT`: "once", "will", "to be", "sobald", "dès que",
  "une fois") states no fact: it plans or conditions one.
* Cues are matched on folded words (lowercase, no accents), as whole words or
  runs of whole words, so "assigned" is not "signed" and "design" is nothing.

The kinds of claim:

* `won`: the deal was signed or won ("signed", "closed won", "unterschrieben",
  "signé"). True when the deal is `closed_won`.
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

from saas_sim.core.text_facts import negated, sentences
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Stage

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


def _cues(*phrases: str) -> tuple[tuple[str, ...], ...]:
    """Returns folded phrases as word tuples, longest first (a longer run is the more specific cue)."""
    return tuple(sorted({tuple(fold(p).replace("-", " ").split()) for p in phrases}, key=lambda t: (-len(t), t)))


INTENT: Final = _cues(
    # en: plans, conditions, requests and questions
    "once", "when", "after", "until", "before", "if", "pending", "awaiting", "await", "waiting", "will", "ll",
    "shall", "would", "should", "could", "can", "may", "might", "to be", "going to", "need", "needs", "plan",
    "planned", "expect", "expected", "hope", "get", "please", "ready to", "want", "wants", "able to", "soon",
    # de
    "sobald", "wenn", "nachdem", "bis", "bevor", "falls", "werden", "wird", "werde", "soll", "sollen", "muss",
    "mussen", "bitte", "noch zu", "ausstehend",
    # fr
    "des que", "une fois", "quand", "apres", "avant", "jusqu a", "si", "sera", "seront", "va", "vais", "allons",
    "doit", "devra", "merci de", "en attente", "a signer",
    # es
    "cuando", "despues", "antes", "hasta", "si", "sera", "va a", "pendiente",
)
"""Folded cues that make a clause a plan or a condition, not a statement of fact."""

WON: Final = _cues(
    "signed", "countersigned", "closed won", "closedwon", "deal won", "we won", "won the deal", "is won",
    "signature received", "contract executed",
    "unterschrieben", "unterzeichnet", "gegengezeichnet", "gewonnen",
    "signe", "signee", "signes", "signees", "gagne", "gagnee", "remporte",
    "firmado", "firmada", "ganado", "ganada",
)
"""Folded cues of a signed or won deal."""

STAGE_NAMES: Final[dict[Stage, tuple[tuple[str, ...], ...]]] = {
    "prospecting": _cues("prospecting", "prospection"),
    "qualification": _cues("qualification", "qualifizierung", "qualifizierungsphase", "cualificacion"),
    "discovery": _cues("discovery", "discovery stage", "bedarfsanalyse", "decouverte"),
    "proposal": _cues("proposal", "angebotsphase", "angebot", "proposition", "propuesta"),
    "negotiation": _cues("negotiation", "verhandlung", "verhandlungsphase", "negociation", "negociacion"),
    "closed_lost": _cues("closed lost", "closedlost", "verloren", "perdu", "perdue", "perdido"),
}
"""Folded names of the open stages and of `closed_lost` (`closed_won` is a `won` claim)."""

MOVE: Final = _cues(
    "moved", "advanced", "progressed", "promoted", "pushed", "now", "is in", "is at", "stage", "phase",
    "verschoben", "bewegt", "gesetzt", "jetzt", "nun", "stufe",
    "passe", "passee", "deplace", "deplacee", "avance", "avancee", "maintenant", "etape", "stade",
    "movido", "ahora", "etapa", "fase",
)
"""Folded cues that a clause places a deal in a stage."""

ATTACHMENT: Final = _cues(
    "attached", "attachment", "attaching", "enclosed", "anbei", "anhang", "beigefugt", "ci joint", "ci jointe",
    "piece jointe", "pieces jointes", "en annexe", "adjunto", "adjunta",
)
"""Folded cues that a document travels with the text."""

_DOCUMENTS: Final = _cues(
    "contract", "proposal", "quote", "invoice", "order form", "pdf", "document", "file", "slides", "deck",
    "agreement", "brochure", "offer", "vertrag", "angebot", "rechnung", "dokument", "unterlagen", "datei",
    "contrat", "devis", "facture", "proposition", "fichier", "contrato", "factura", "presupuesto",
)

_CHANGE: Final = _cues(
    "updated", "changed", "corrected", "fixed", "amended", "replaced", "edited",
    "aktualisiert", "geandert", "korrigiert", "ersetzt",
    "mis a jour", "mise a jour", "modifie", "modifiee", "corrige", "corrigee", "remplace",
    "actualizado", "actualizada", "cambiado", "corregido",
)

FIELDS: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "email": _cues(
        "email address", "e mail address", "mail address", "e mail adresse", "emailadresse", "mailadresse",
        "adresse e mail", "adresse email", "adresse mail", "adresse electronique", "correo electronico",
    ),
    "phone": _cues(
        "phone", "phone number", "telephone", "mobile", "mobile number", "telefon", "telefonnummer",
        "rufnummer", "handynummer", "numero de telephone", "portable", "telefono",
    ),
    "title": _cues("title", "job title", "role", "position", "titel", "berufsbezeichnung", "poste", "fonction",
                   "titre", "cargo", "puesto"),
    "any": _cues("contact details", "details", "record", "kontaktdaten", "daten", "coordonnees", "datos"),
}
"""Folded nouns of the contact fields a change claim may name; `any` is any field of the person."""

_UNSUBSCRIBED: Final = _cues(
    "unsubscribed", "opted out", "opted you out", "removed you", "taken you off", "took you off",
    "abgemeldet", "ausgetragen", "desinscrit", "desinscrite", "desabonne", "desabonnee", "dado de baja",
)

MERGED: Final = _cues(
    "merged", "deduplicated", "de duplicated", "zusammengefuhrt", "fusionne", "fusionnes", "fusionnee",
    "fusionnees", "fusionado", "fusionados", "fusionada", "fusionadas",
)
"""Folded cues that records were merged."""

DELETED: Final = _cues("deleted", "erased", "purged", "geloscht", "supprime", "supprimee", "supprimes",
                       "eliminado", "eliminada", "borrado", "borrada")
"""Folded cues that something was deleted; a claim needs a record noun (`RECORDS`) too."""

RECORDS: Final = _cues("record", "records", "contact", "contacts", "duplicate", "duplicates", "entry", "entries",
                       "account", "lead", "leads", "profile", "datensatz", "datensatze", "kontakt", "eintrag",
                       "fiche", "contacto", "registro")
"""Folded nouns of CRM records, which nothing in the CRM deletes."""

SENT: Final = _cues("emailed", "e mailed", "mailed", "sent", "gemailt", "geschickt", "gesendet", "envoye",
                    "envoyee", "enviado", "enviada")
"""Folded cues that the writer sent something; a bare send verb needs a mail noun (`_MAIL`) to claim an email."""

_MAILED: Final = _cues("emailed", "e mailed", "mailed", "gemailt")
_MAIL: Final = _cues("email", "emails", "e mail", "mail", "confirmation", "message", "reply", "nachricht",
                     "bestatigung", "courriel", "correo", "mensaje")
_WRITERS: Final = _cues("i", "we", "ive", "weve", "i have", "we have", "i ve", "we ve", "ich habe", "wir haben",
                        "j ai", "nous avons", "he", "hemos")

_CLAUSE = re.compile(r"[,;:()\u2013\u2014]|\s-\s")
_WORD = re.compile(r"[^\W\d_]+")


def _has(words: tuple[str, ...], cues: tuple[tuple[str, ...], ...]) -> bool:
    n = len(words)
    return any(words[i:i + len(c)] == c for c in cues for i in range(n - len(c) + 1))


def _clauses(text: str) -> list[str]:
    return [c.strip() for s in sentences(text) for c in _CLAUSE.split(s) if c.strip()]


def _claims_email(words: tuple[str, ...]) -> bool:
    """Whether a clause's words say the writer sent mail (see `emailed` in the module docstring)."""
    starts = [0, *(len(w) for w in _WRITERS if words[:len(w)] == w)]
    for i in starts:
        for cue in SENT:
            if words[i:i + len(cue)] == cue and (cue in _MAILED or _has(words, _MAIL)):
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
        words = tuple(_WORD.findall(fold(clause).replace("-", " ")))
        if not words or negated(clause, None) or _has(words, INTENT):
            continue
        if _has(words, WON):
            out.append(Claim("won", None, clause))
        if _has(words, MOVE):
            out += [Claim("stage", stage, clause) for stage, names in STAGE_NAMES.items() if _has(words, names)]
        if _has(words, ATTACHMENT) and _has(words, _DOCUMENTS):
            out.append(Claim("attachment", None, clause))
        if _has(words, _CHANGE):
            out += [Claim("field", name, clause) for name, nouns in FIELDS.items() if _has(words, nouns)]
        if _has(words, _UNSUBSCRIBED):
            out.append(Claim("unsubscribed", None, clause))
        if _has(words, MERGED):
            out.append(Claim("merged", None, clause))
        if _has(words, DELETED) and _has(words, RECORDS):
            out.append(Claim("deleted", None, clause))
        if _claims_email(words):
            out.append(Claim("emailed", None, clause))
    return tuple(out)
