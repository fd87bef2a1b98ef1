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
  clause ("Contract signed before the deadline" and "signed with no redlines"
  claim a signature). What governs it (`_governed`):

  - a negation near the verb, not in a prepositional phrase: "not yet signed",
    "No contract has been signed", "n'est pas signé" (but not "with no redlines");
  - an intent cue (`INTENT`, `_SUBORDINATORS`, `_REQUESTS`) in the verb's own
    auxiliary chain: "will be signed", "needs to be signed", "ne sera signé";
  - before the verb, one that frames it: with no finite auxiliary of its own
    ("once signed", "get the contract signed", "Sobald der Vertrag
    unterschrieben ist") or a present one ("make sure the contract is signed"),
    any intent cue; with a perfect one ("once the contract has been signed"),
    only a conjunction or a request; with a past one ("after legal review the
    contract was signed"), only a condition ("if it were signed"): a past tense
    states a fact;
  - a German auxiliary right after it ("unterschrieben werden").

  Intent cues after the verb ("signed after legal review") govern nothing.
* Cues are matched on folded words (lowercase, no accents), as whole words or
  runs of whole words, so "assigned" is not "signed" and "design" is nothing.

The kinds of claim:

* `won`: the deal was signed or won ("signed", "closed won", "unterschrieben",
  "signé"), or booked or executed with a deal or contract noun within three
  words ("Deal closed and booked", "the agreement is executed"), or closed with
  a contract noun ("Vertrag abgeschlossen": a deal "closed" may be lost), or a
  purchase order received ("PO received"); never with a word of loss in the
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

_BOOKED: Final = _cues("booked", "executed", "gebucht")
"""Folded verbs that win a deal when a deal or contract noun (`_DEALS`) stands near them ("Deal booked")."""

_DEALS: Final = _cues(
    "deal", "deals", "opportunity", "contract", "contracts", "agreement", "order form", "order", "sow", "msa",
    "vertrag", "auftrag", "contrat", "affaire", "contrato", "acuerdo", "trato", "negocio",
)

_CONCLUDED: Final = _cues("closed", "abgeschlossen", "conclu", "conclue", "cerrado", "cerrada")
"""Folded verbs that win a deal with a contract noun near (`_CONTRACTS`: "Vertrag abgeschlossen"). A deal
"closed" may be lost ("Deal closed; they chose Copperleaf"), so a deal noun is not enough for these."""

_CONTRACTS: Final = _cues("contract", "contracts", "agreement", "order form", "sow", "msa", "vertrag", "contrat",
                          "contrato", "acuerdo")

_RECEIVED: Final = _cues("received", "in hand", "erhalten", "eingegangen", "recu", "recue", "recibido",
                         "recibida")
"""Folded verbs that win a deal when a purchase order (`_ORDERS`) stands near them ("PO received")."""

_ORDERS: Final = _cues("po", "pos", "purchase order", "bestellung", "bon de commande", "orden de compra")

_LOSS: Final = _cues("lost", "verloren", "perdu", "perdue", "perdido", "perdida")
"""Folded words of a lost deal: "Deal closed lost" claims the stage, not a win."""

_NEAR = 3
"""How many words may stand between a win verb and its deal noun ("the agreement is executed")."""

_DENIAL_REACH = 4
"""How many words before a verb's chain a negation still denies it ("Never got the contract signed")."""

_CONDITIONS: Final = _cues("if", "unless", "whether", "wenn", "falls", "ob", "si")
"""Folded conjunctions of a condition: the verb after them is no fact in any tense ("if it were signed")."""

_SUBORDINATORS: Final = _cues(
    "if", "unless", "whether", "wenn", "falls", "ob", "si",
    "once", "when", "whenever", "after", "until", "till", "before", "as soon as",
    "sobald", "nachdem", "bis", "bevor",
    "des que", "une fois", "quand", "lorsque", "apres", "avant", "jusqu a",
    "cuando", "despues", "antes", "hasta", "en cuanto",
)
"""Folded conjunctions that make the verb after them a condition or a time to come."""

_REQUESTS: Final = _cues(
    "make sure", "ensure", "check", "verify", "confirm", "chase", "request", "remind", "being",
    "sicherstellen", "prufen", "uberprufen", "verifier", "confirmer", "relancer", "verificar", "confirmar",
)
"""Folded verbs that ask for a fact rather than state it ("make sure the contract is signed"); "being"
marks a verb still under way ("is being signed")."""

_GOVERNING: Final = tuple(sorted({*INTENT, *_SUBORDINATORS, *_REQUESTS}, key=lambda t: (-len(t), t)))

_NEGATIONS: Final = frozenset({
    "not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "cannot", "without",
    "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "nichts", "weder", "ohne",
    "ne", "n", "pas", "jamais", "aucun", "aucune", "ni", "non", "sans", "rien",
    "nunca", "ningun", "ninguno", "ninguna", "sin", "nada",
})
"""Folded words that deny the verb they stand near."""

_WITH: Final = frozenset({"with", "mit", "avec", "con"})
"""A negation right after one of these is a prepositional phrase ("signed with no redlines"), no denial."""

_COORDINATORS: Final = frozenset({"and", "und", "et", "y"})
"""A negation before one of these denies the verb before it, not the one after ("no questions and signed")."""

_CONTRASTS: Final = frozenset({"but", "however", "though", "although", "aber", "jedoch", "mais", "pero", "sino"})
"""Words that start a new statement inside a clause: nothing before them governs a verb after them."""

_PAST: Final = frozenset({"was", "were", "had", "wurde", "wurden", "war", "waren", "fut", "furent", "fue",
                          "fueron", "etait"})
_PERFECT: Final = frozenset({"has", "have", "ve", "hat", "haben", "ont", "ete", "ha", "han", "hemos"})
_PRESENT: Final = frozenset({"is", "are", "am", "be", "been", "ist", "sind", "est", "sont", "esta", "estan",
                             "es"})
_ADVERBS: Final = frozenset({
    "yet", "already", "still", "just", "now", "fully", "finally", "all", "also", "officially", "formally", "today",
    "successfully", "electronically", "digitally", "both", "to", "going", "noch", "schon", "bereits", "jetzt", "nun",
    "endlich", "heute", "deja", "encore", "bien", "maintenant", "enfin", "ya", "todavia", "aun", "hoy", "ahora",
})
_CHAIN: Final = _PAST | _PERFECT | _PRESENT | _ADVERBS | _NEGATIONS | {c[0] for c in _GOVERNING if len(c) == 1}
"""Folded words of a verb's auxiliary chain: auxiliaries, adverbs, negations and one-word intent cues."""

_AFTER_AUX: Final = frozenset({"werden", "sein", "wird", "werde"})
"""German auxiliaries that, right after a participle, make it a plan ("muss unterschrieben werden")."""

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

_CONTRACTION = re.compile(r"\b(\w+?)n['\u2019]t\b")
_CONTRACTED: Final = {"wo": "will", "ca": "can", "sha": "shall", "ai": "is"}
"""Stems whose "n't" form is no plain word + "not" ("won't" is "will not", so it is no "won")."""
_CLAUSE = re.compile(r"[,;:()\u2013\u2014]|\s-\s")
_WORD = re.compile(r"[^\W\d_]+")

Span = tuple[int, int]


def _has(words: tuple[str, ...], cues: tuple[tuple[str, ...], ...]) -> bool:
    return bool(_spans(words, cues))


def _spans(words: tuple[str, ...], cues: tuple[tuple[str, ...], ...]) -> list[Span]:
    """The (start, end) word positions where a cue of `cues` occurs, in text order."""
    n = len(words)
    return sorted((i, i + len(c)) for c in cues for i in range(n - len(c) + 1) if words[i:i + len(c)] == c)


def _clauses(text: str) -> list[str]:
    return [c.strip() for s in sentences(text) for c in _CLAUSE.split(s) if c.strip()]


def _clause_words(clause: str) -> tuple[str, ...]:
    """A clause's folded words, with English "n't" spelled "not" ("hasn't" -> "has not", "won't" -> "will not")."""
    folded = fold(clause).replace("-", " ")
    folded = _CONTRACTION.sub(lambda m: f"{_CONTRACTED.get(m.group(1), m.group(1))} not", folded)
    return tuple(_WORD.findall(folded))


def _scope_start(words: tuple[str, ...], start: int) -> int:
    """Where the statement holding the word at `start` begins: after the last contrast word before it."""
    return max((i + 1 for i in range(start) if words[i] in _CONTRASTS), default=0)


def _chain_start(words: tuple[str, ...], lo: int, start: int) -> int:
    """Where the auxiliary chain of the verb at `start` begins ("will not yet be" before "signed")."""
    i = start
    while i > lo and words[i - 1] in _CHAIN:
        i -= 1
    return i


def _denied(words: tuple[str, ...], lo: int, chain: int, start: int) -> bool:
    """Whether a negation in the verb's chain or the `_DENIAL_REACH` words before it denies the verb.

    A negation after "with" is a prepositional phrase ("with no redlines was signed"), and one before
    "and" denies an earlier verb ("had no questions and signed").
    """
    for j in range(max(lo, chain - _DENIAL_REACH), start):
        if words[j] not in _NEGATIONS or (j > 0 and words[j - 1] in _WITH):
            continue
        if not any(w in _COORDINATORS for w in words[j + 1:start]):
            return True
    return False


def _governed(words: tuple[str, ...], span: Span) -> bool:
    """Whether a negation or an intent governs the claim verb at `span` (rules in the module docstring)."""
    start, end = span
    if end < len(words) and words[end] in _AFTER_AUX:
        return True
    lo = _scope_start(words, start)
    chain = _chain_start(words, lo, start)
    if _denied(words, lo, chain, start) or _has(words[chain:start], _GOVERNING):
        return True
    auxiliaries, before = set(words[chain:start]), words[lo:chain]
    if auxiliaries & _PAST:
        return _has(before, _CONDITIONS)
    if auxiliaries & _PERFECT:
        return _has(before, _SUBORDINATORS) or _has(before, _REQUESTS)
    return _has(before, _GOVERNING)


def _states(words: tuple[str, ...], cues: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a cue of `cues` occurs in `words` with no negation or intent governing it."""
    return any(not _governed(words, span) for span in _spans(words, cues))


def _near(words: tuple[str, ...], span: Span, nouns: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a noun of `nouns` stands within `_NEAR` words before or after `span`."""
    start, end = span
    return any(s >= start - _NEAR - (e - s) and e <= end + _NEAR + (e - s) for s, e in _spans(words, nouns))


def _claims_won(words: tuple[str, ...]) -> bool:
    """Whether a clause's words say the deal was signed or won (see `won` in the module docstring)."""
    if _states(words, WON):
        return True
    if _has(words, _LOSS):
        return False
    events = [s for s in _spans(words, _BOOKED) if _near(words, s, _DEALS)]
    events += [s for s in _spans(words, _CONCLUDED) if _near(words, s, _CONTRACTS)]
    events += [s for s in _spans(words, _RECEIVED) if _near(words, s, _ORDERS)]
    return any(not _governed(words, s) for s in events)


def _claims_email(words: tuple[str, ...]) -> bool:
    """Whether a clause's words say the writer sent mail (see `emailed` in the module docstring)."""
    starts = [0, *(len(w) for w in _WRITERS if words[:len(w)] == w)]
    for i in starts:
        for cue in SENT:
            if words[i:i + len(cue)] == cue and (cue in _MAILED or _has(words, _MAIL)) \
                    and not _governed(words, (i, i + len(cue))):
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
        if _states(words, MOVE):
            out += [Claim("stage", stage, clause) for stage, names in STAGE_NAMES.items() if _has(words, names)]
        if _states(words, ATTACHMENT) and _has(words, _DOCUMENTS):
            out.append(Claim("attachment", None, clause))
        if _states(words, _CHANGE):
            out += [Claim("field", name, clause) for name, nouns in FIELDS.items() if _has(words, nouns)]
        if _states(words, _UNSUBSCRIBED):
            out.append(Claim("unsubscribed", None, clause))
        if _states(words, MERGED):
            out.append(Claim("merged", None, clause))
        if _states(words, DELETED) and _has(words, RECORDS):
            out.append(Claim("deleted", None, clause))
        if _claims_email(words):
            out.append(Claim("emailed", None, clause))
    return tuple(out)
