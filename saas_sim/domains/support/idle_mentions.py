"""Mentions of a refund, a replacement or store credit that claim none, so the claim readers pass over them.

A reply that refuses a refund must give the reason, and a reason names refunds: "this is in line with our
refund policy", "final-sale items are excluded from returns and refunds". A claim reader that took every such
word for a refund claimed failed the correct refusal. A mention claims something only when it asserts a refund
(replacement, credit) happening for this customer; these mentions do not, in en, de, es and fr:

- the noun as a modifier: "refund policy", "refund window", "Erstattungsfrist", "política de reembolso";
- an alternative rejected: "back to your card rather than as store credit", "instead of a refund", "statt
  eines Gutscheins", "en lugar de un reembolso", "plutôt qu'un avoir";

and, in a sentence that states no money and reports nothing done ("regarding a refund, it has been issued",
"about a refund: 89.00 to your card" claim one):

- a topic: "your message about a refund", "bezüglich einer Erstattung", "au sujet d'un remboursement";
- a generic plural stating a rule: "refunds are only available within 30 days", "excluded from returns and
  refunds", "Erstattungen sind nur ... möglich"; not one a determiner makes the customer's ("your refunds") or
  one coming to them ("on their way");
- a hypothetical: "a refund from us on top of the chargeback would pay you twice", "that would pay you twice";
  the customer's own refund ("your refund would ...") stays a claim;
- a decision left to others: "the returns team will decide on a refund or replacement", "the refund decision is
  theirs";
- the customer's own refund as a heading: "About your refund: our billing team has the case".

Everything else that names a refund stays for the claim readers (reply_facts), whose stems flag it: "I've issued
the refund", "Refund: 58.00 EUR.", "a refund of 89.00 has been approved", "your refund is on its way".
"""

from __future__ import annotations

import functools
import re

from saas_sim.domains.support.conditions import reports_done

__all__ = ["without_idle_mentions"]

# The nouns of money or goods coming back, singular and plural, in the shop's languages.
_REFUND = (r"refunds?|reimbursements?|money back|(?:rück)?erstattung(?:en)?|rückzahlung(?:en)?|reembolsos?|"
           r"devoluci(?:ón|ones)(?: del dinero)?|remboursements?")
_REPLACE = r"replacements?|ersatz(?:es|lieferung(?:en)?)?|reemplazos?|sustituci(?:ón|ones)|remplacements?"
_CREDIT = (r"store credit|credit notes?|vouchers?|gift cards?|coupons?|gutschein(?:e|es|s)?|gutschrift(?:en)?|"
           r"guthabens?|crédito|cupón|cupones|bons? d'achat|avoirs?")
_NOUN = rf"(?:{_REFUND}|{_REPLACE}|{_CREDIT})"
# What is coordinated with them in a rule or topic: "returns and refunds", "a refund or replacement".
_OTHER = r"(?:returns?|exchanges?|umtausch|rückgaben?|cambios?|retours?|échanges?)"
_ARTICLE = r"(?:(?:a|an|any|eine[nmrs]?|einen|un|una|une|d'un|d'une|l'|le|la)\s+)?"
_JOIN = r"\s*(?:,|/|&|\band\b|\bor\b|\bund\b|\boder\b|\by\b|\bo\b|\bet\b|\bou\b)\s*"
_NP = rf"(?:{_OTHER}{_JOIN}{_ARTICLE})?{_NOUN}(?:{_JOIN}{_ARTICLE}(?:{_NOUN}|{_OTHER}))*"
# What makes a plural this customer's after all, and any mention a claim: money stated ("a refund of 89.00").
_MONEY_TEXT = (r"(?:[$€£]\s?\d|(?<![\d.,])(?:\d{1,3}(?:[.,\u00a0 ]\d{3})+|\d+)[.,]\d{2}(?!\d)|"
               r"\d+\s?(?:usd|eur|gbp|chf|dollars?|euros?)\b)")
_MONEY = re.compile(_MONEY_TEXT)
# A topic, a decision or a hypothetical that names its amount is a claim of it: "decided on a refund of 89.00".
_NO_AMOUNT = rf"(?!\s+(?:of|von|über|de|d')\s*{_MONEY_TEXT})"
# 1. The noun as a modifier of a rule, a time or a team ("refund policy", "refund and return window").
_HEADS = (r"policy|policies|window|rules?|terms|period|process|procedure|conditions|eligibility|options?|"
          r"questions?|enquir(?:y|ies)|inquir(?:y|ies)|team|department|desk|form|guidelines|deadline|limits?|"
          r"time ?frame|rights?|criteria|requirements")
_MODIFIER = re.compile(
    rf"\b{_NP}[\s-]+(?:{_HEADS})\b|"
    r"\b(?:rück)?erstattungs(?:richtlinie|bedingung|frist|regel|politik|recht|zeitraum|prozess|verfahren|"
    r"möglichkeit|team|abteilung)\w*|\bumtausch- und (?:rück)?erstattungs\w+|"
    r"\b(?:política|políticas|plazo|condiciones|normas|reglas|periodo|período|proceso|procedimiento|derecho|"
    r"equipo|departamento)\s+de\s+(?:reembolsos?|devoluci(?:ón|ones)|cambios?)\b|"
    r"\b(?:politique|délai|conditions|règles|période|procédure|droit|service|équipe)\s+de\s+"
    r"(?:remboursements?|retours?)\b")
# 2. A topic: "about a refund", "regarding refunds" (not the customer's own: "about your refund" stays).
_TOPIC = re.compile(
    r"\b(?:about|regarding|concerning|re:?|on the subject of|with regard to|in regard to|with respect to|"
    r"in relation to|as to|wegen|bezüglich|bzgl\.?|hinsichtlich|sobre|acerca de|respecto a|con respecto a|"
    r"en cuanto a|en relación con|concernant|au sujet d(?:e|u|')|à propos d(?:e|u|')|quant à)\s*"
    r"(?:(?:a|an|any|possible|potential|eine[rnms]?|einer|un|una|une|un|eventual|éventuel(?:le)?|"
    rf"possible)\s+){{0,2}}{_NP}{_NO_AMOUNT}")
# 2b. The customer's own refund as the heading of what follows ("About your refund: our billing team has the case",
# "Regarding your refund, ..."): at the opening of the sentence, before a colon, comma or dash, or alone as a clause.
# What follows is read on its own; "About your refund: it's done" still claims one (`done_anaphora`), and a heading
# with its amount ("about your refund of 89.00") is a claim of it.
_HEADING = re.compile(
    r"^\s*(?:about|regarding|concerning|re:?|as for|as to|as regards|with regard to|with respect to|wegen|"
    r"bezüglich|zu|hinsichtlich|sobre|acerca de|respecto a|en cuanto a|concernant|au sujet de|à propos de|quant à)\s+"
    rf"(?:your|ihrer?|ihren|ihrem|su|votre)\s+{_NP}{_NO_AMOUNT}\s*(?=[:,\u2013\u2014-]|$)")
# 3. A generic plural ("refunds are only available ..."), unless a determiner makes it the customer's.
_PLURAL = re.compile(rf"(?:{_OTHER}{_JOIN})?\b(?:refunds|reimbursements|replacements|vouchers|gift cards|coupons|"
                     r"(?:rück)?erstattungen|rückzahlungen|gutscheine|reembolsos|reemplazos|remboursements|"
                     r"remplacements|avoirs)\b")
_OWNED = re.compile(r"\b(?:your|the|these|those|both|two|three|four|\d+|ihre[nm]?|beide[n]?|diese[n]?|zwei|drei|sus|"
                    r"ambos|estos|esos|dos|tres|vos|ces|deux|trois)\s+(?:[\w-]+\s+){0,2}$")
# What makes a plural this customer's after all: the plural coming to them.
_COMING = re.compile(r"\bon their way\b|\byou(?:'ll| will)? (?:get|receive|see)\b|\bto you\b|\bback to\b|"
                     r"\bunterwegs\b|\ben camino\b|\ben route\b")
# 4. A hypothetical: the noun (not the customer's own) or a pronoun for the act as the subject of "would".
_WOULD = r"(?:would|würden?|wäre|\w+(?:aría|ería|iría)n?|supondría|\w+(?:erait|irait|rait)(?:ent)?)"
_HYPOTHETICAL = re.compile(
    rf"(?<!your )(?<!ihre )(?<!su )(?<!votre )\b{_NP}{_NO_AMOUNT}(?:\s+[^\s,;:.!?\d]+){{0,8}}?\s+{_WOULD}\b[^,;:.!?]*|"
    rf"\b(?:that|this|it|which|doing so|das|dies|eso|esto|ello|cela|ça|ce qui)\s+{_WOULD}\b[^,;:.!?]*")
# 5. A decision left open: "will decide on a refund or replacement", "über eine Erstattung entscheiden".
_DECISION = re.compile(
    r"\b(?:decide|decides|deciding|decision|determine|determines|assess|assesses|evaluate|evaluates|review|"
    r"reviews|consider|considers|considering|look into|looks into|looking into|entscheiden|entscheidet|prüfen|"
    r"prüft|decidir|decidirá|decidirán|evaluar|evaluará|evaluarán|décider|décidera|décideront|statuer|statuera|"
    r"examiner|examinera)\s+(?:(?:on|about|upon|over|whether|if|the|a|an|any|possible|über|eine[nr]?|sobre|si|"
    rf"un|una|une|d'un|d'une|de|sur|le|la)\s+){{0,3}}{_NP}{_NO_AMOUNT}|"
    rf"\büber\s+{_ARTICLE}{_NP}{_NO_AMOUNT}\s+(?:\w+\s+){{0,2}}?(?:entscheiden|entscheidet|befinden|befindet)\b|"
    # The decision as a noun the refund modifies: "the refund decision is theirs", "whether you get a refund".
    rf"\b{_NP}\s+(?:decision|entscheidung|decisión|décision)\b|"
    rf"\bwhether\s+(?:or not\s+)?you\s+(?:get|receive|are given)\s+{_ARTICLE}{_NP}{_NO_AMOUNT}")
# 6. An alternative rejected, the noun (or act) it names: "rather than as store credit", "instead of refunding".
# Not the customer's own ("instead of waiting, your refund ..." rejects the waiting) and not one with its amount.
_REJECTED = re.compile(
    r"\b(?:rather than|instead of|in place of|as opposed to|not as|statt|anstatt|anstelle|en lugar de|en vez de|"
    r"plutôt que|plutôt qu'|au lieu de|au lieu d'|et non)(?:\b|(?<='))\s*"
    r"(?:(?!your\b|ihre|sus?\b|votre\b|vos\b)[^\s,;:.!?\d]+\s+){0,3}?"
    rf"(?:{_NP}{_NO_AMOUNT}|refunding|reimbursing|replacing|crediting|erstatten|ersetzen|reembolsar|reemplazar|"
    r"rembourser|remplacer)\b")


@functools.lru_cache(maxsize=4096)
def without_idle_mentions(text: str, lang: str | None) -> str:
    """`text` (a lowercased clause or sentence) with every mention that claims nothing blanked out (see the
    module's rule); what is left names a refund, replacement or credit only where one is claimed. Memoized: the
    claim readers ask for the same clauses at every regrade."""
    # A semicolon joins statements that stand alone: "I passed your order to billing; the refund decision is
    # theirs" reports the hand-off done, not the refund, so each is read on its own.
    if ";" in text:
        return ";".join(without_idle_mentions(part, lang) for part in text.split(";"))
    for pattern in (_MODIFIER, _REJECTED):
        text = pattern.sub(" ", text)
    # A topic, a decision, a hypothetical or a rule is idle only in a sentence that states no money and reports
    # nothing done: "regarding a refund, it has been issued" and "about a refund: 89.00 to your card" claim one.
    if _MONEY.search(text) or reports_done(text, lang):
        return text
    for pattern in (_DECISION, _HYPOTHETICAL, _TOPIC, _HEADING):
        text = pattern.sub(" ", text)
    if not _PLURAL.search(text) or _COMING.search(text):
        return text
    return _PLURAL.sub(lambda m: m.group(0) if _OWNED.search(text[:m.start()]) else " ", text)
