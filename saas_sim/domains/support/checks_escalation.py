"""Checks for escalations: the hand-off must carry the fact that decides the team.

Which team a threat goes to (legal or security) is a choice between two, so a
guessed team is right half the time. What only reading the ticket gives is the
fact behind it: what the customer threatened or reported, about which order.
The escalation's reason and the episode's internal notes on the ticket, read
together, must state the order the customer named (a seed-drawn number, so no
constant passes) and the kind of matter of the chosen team, and must not also
claim the other kind (boilerplate naming every possible cause is a shotgun).

The kind words below are flags that a sentence names a kind of matter; they
are never enough alone: the order number, a fact from the ticket, must be
stated too, and it must be the customer's order, not another one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.check_helpers import CLAUSE, clauses, order_by_number, replies_facts
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.reply_facts import ReplyFacts
from saas_sim.domains.support.state import ESCALATIONS, MESSAGES

__all__ = ["escalation_states_cause", "status_only"]

# What names each kind of matter, in the shop's languages (lowercased text, word-start anchored). A team's
# name is no cause: "for legal review" or "rechtliche Prüfung" says where the ticket goes, not what the
# customer threatened, so "legal" counts only beside what is legal about it: any word after it but a team,
# routing or category word ("legal team", "legal queue", "legal matter") or a function word ("legal for
# review", "to legal"), so "legal consequences", "legal options", "legal representative" count. A threat of
# anything legal counts too ("threat of legal escalation"). Stems and phrases, so a cause told in plain words
# counts ("will start proceedings", "someone else got into the account", "identity theft").
_NOT_LEGAL_NOUN = (r"reviews?|teams?|departments?|dept|queues?|desks?|groups?|units?|staff|colleagues|side|ops|"
                   r"function|matters?|issues?|topics?|category|tickets?|checks?|handling|attention|"
                   r"escalat\w*|follow[- ]?ups?|orders?|customers?|requests?|notes?|pls|"
                   r"for|to|of|on|in|at|by|with|via|per|re|regarding|about|from|asap|please|now|urgently|"
                   r"immediately|first|too|also|only|here|there|is|are|was|as|or|and|the|an?|this|that|it")
_LEGAL_WORD = rf"legal(?:\s+|-)(?!(?:{_NOT_LEGAL_NOUN})\b)[^\W\d_]{{2,}}|threat\w*\s+(?:of\s+|with\s+)?legal\b"
_ACCOUNT_WORD = r"(?:account|konto|cuenta|compte)"
_ACCOUNT = rf"(?:\S+\s+){{0,3}}?{_ACCOUNT_WORD}"
_KINDS: dict[str, re.Pattern[str]] = {
    "legal": re.compile(
        rf"\b(?:lawyer|attorney|solicitor|counsel\b|lawsuit|law suit|sue\b|sues\b|suing|sued|courts?\b|litigat|"
        rf"claim against|file a claim|filing a claim|small[- ]claims?|proceedings|tribunal|injunction|"
        rf"cease and desist|class action|{_LEGAL_WORD}|"
        rf"anwalt|anwält|klage|verklag|gericht|rechtliche (?:schritte|konsequenzen)|rechtsweg|mahnverfahren|"
        rf"abogad|demanda|acciones legales|acción legal|medidas legales|vía judicial|juicio|juzgado|"
        rf"avocat|en justice|poursuite|procès|procédure judiciaire|mise en demeure)"),
    "security": re.compile(
        rf"\b(?:account takeover|takeover|taken over|hijack|hack|compromis|logged in|logged into|"
        rf"log-in|login|log in|sign-in|signed in|password|breach|account access|access\w*\s+{_ACCOUNT}|"
        rf"(?:got|gets|getting|get|broke|breaks|break|breaking|gained|gain|gaining)\s+in(?:to)?\s+{_ACCOUNT}|"
        rf"into\s+{_ACCOUNT}|identity theft|stolen identity|identity fraud|impersonat|phishing|"
        rf"someone else|somebody else|third[- ]party|stranger|redirect|"
        rf"eingeloggt|angemeldet|gehackt|passwort|kennwort|fremdzugriff|zugriff auf|"
        rf"identitätsdiebstahl|jemand anderes|contraseña|acceso|suplantación|robo de identidad|"
        rf"entr\w* en {_ACCOUNT}|piraté|pirate|mot de passe|connecté|intrusion|identifiants|usurpation|"
        rf"vol d'identité|quelqu'un d'autre)"),
}
# Words of wrongdoing that are no account matter alone: "charged without their consent", "sue for fraud" or
# "an unauthorised charge" is what a customer's legal threat is about. They name the security kind only in a
# clause about the account ("fraud on the customer's account", "password changed without permission"), and
# never in a clause that names a legal threat, which outranks them ("will sue for fraud on my account").
_ACCOUNT_WRONG = re.compile(
    r"\b(?:fraud|unauthori[sz]|betrug|unbefugt|fraude|without (?:\S+\s+){0,2}?(?:permission|consent|knowledge|"
    r"authori[sz]ation)|ohne (?:\S+\s+){0,2}?(?:zustimmung|erlaubnis|einwilligung)|sin (?:\S+\s+){0,2}?"
    r"(?:permiso|consentimiento)|sans (?:\S+\s+){0,2}?(?:autorisation|consentement|permission))")
_ABOUT_ACCOUNT = re.compile(rf"\b(?:{_ACCOUNT_WORD}|login|log-in|log in|sign-in|password|passwort|kennwort|"
                            r"contraseña|mot de passe|identifiants)")


def _texts(ctx: CheckContext, ticket_id: str) -> list[str]:
    """The episode's escalation reasons and internal notes on the ticket, in id order."""
    reasons = [e.reason for e in sorted(ctx.created(ESCALATIONS), key=lambda e: e.id) if e.ticket_id == ticket_id]
    notes = [m.body for m in sorted(ctx.created(MESSAGES), key=lambda m: m.id)
             if m.ticket_id == ticket_id and not m.public]
    return reasons + notes


# Clauses are judged alone: "no reply from support; account takeover" names one kind. A threat is made on a
# condition ("will sue if order 1234 is not refunded"), so a condition is a clause of its own too, and its
# "not" leaves the threat standing; a hedged threat ("if they sue") still names the kind.
_CLAUSE = re.compile(rf"{CLAUSE.pattern}|\b(?:if|unless|otherwise|wenn|falls|sonst|si|salvo|sinon)\b")


def _kinds_named(facts: ReplyFacts) -> set[str]:
    """Kinds of matter named in clauses that are not negated ("no legal threat" names none)."""
    kinds: set[str] = set()
    for c in clauses(facts, _CLAUSE):
        if c.negated:
            continue
        named = {kind for kind, pattern in _KINDS.items() if pattern.search(c.text)}
        if "legal" not in named and _ACCOUNT_WRONG.search(c.text) and _ABOUT_ACCOUNT.search(c.text):
            named.add("security")
        kinds |= named
    return kinds


@kit.check
def escalation_states_cause(ctx: CheckContext, *, ticket_id: str, team: str, order_number: str) -> CheckOutcome:
    """The hand-off to the right team states what decides the team: the kind of matter and the order.

    Judged over the escalation reasons and internal notes the episode wrote on the ticket. Passes when
    the ticket was escalated to `team`, the texts name `team`'s kind of matter, name no other kind, state
    the customer's order number `order_number`, and name no other order of the shop.
    """
    if not any(e.ticket_id == ticket_id and e.team == team for e in ctx.created(ESCALATIONS)):
        return CheckOutcome.failed(f"{ticket_id} was not escalated to {team}")
    facts = replies_facts(_texts(ctx, ticket_id))
    kinds = _kinds_named(facts)
    others = sorted(c for c in set(facts.codes) if c != str(order_number) and order_by_number(ctx.final, c) is not None)
    problems = [f"another order named: {others}"] if others else []
    if team not in kinds:
        problems.append(f"the hand-off does not say what the customer threatened or reported ({team})")
    if kinds - {team}:
        problems.append(f"the hand-off also claims another kind of matter: {sorted(kinds - {team})}")
    if not facts.states_code(str(order_number)):
        problems.append(f"the hand-off does not name the customer's order {order_number}")
    if problems:
        return CheckOutcome.failed("; ".join(problems))
    return CheckOutcome.passed(f"the hand-off states the {team} matter about order {order_number}")


@kit.check
def status_only(ctx: CheckContext, *, tickets: Sequence[str], allowed: Sequence[str]) -> CheckOutcome:
    """Constraint: the episode changed the listed tickets' status only to an `allowed` status.

    Judged by the events, so a forbidden change undone later is still a breach (policy: "no status change").
    """
    bad = sorted({(e.ticket_id, e.to_status) for e in ctx.events if isinstance(e, ev.TicketStatusChanged)
                  and e.ticket_id in tickets and e.to_status not in allowed})
    if bad:
        return CheckOutcome.failed(f"status changes the task forbids: {bad}")
    return CheckOutcome.passed(f"status changed only to {sorted(allowed)}")
