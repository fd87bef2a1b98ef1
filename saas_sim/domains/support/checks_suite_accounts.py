"""Cross-app account checks in the support desk: hand-offs and replies that name the customer's account team.

The facts judged come from another product (the company's CRM account and its owner), passed in as
params from the bindings. A hand-off must name the real account, a reply the real owner: names are
seed-drawn, so no constant passes, and a same-named duplicate account or a stale owner named instead
(or as well) is a false fact, not extra credit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.identity import normalize_company
from saas_sim.domains.support.check_helpers import episode_facts, episode_replies, replies_facts
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.reply_facts import ReplyFacts, Sentence
from saas_sim.domains.support.state import ESCALATIONS, MESSAGES

__all__ = ["handoff_names_account", "names_nobody_else", "reply_concedes_nothing", "reply_names_owner",
           "reply_promises_nothing"]

# Flags that a clause names cancelling the contract (lowercased text). Never enough alone: the account's
# name, a fact from the CRM, must be stated too.
_CANCEL = re.compile(r"(?:cancel|churn|terminat|leav|kündig|kuendig|cancelar|rescind|résili|resili|annul|quitt|"
                     r"competitor|konkurren|competencia|concurren)")
# Not renewing is the threat itself, though its words are a negation: "they will not renew".
_NOT_RENEW = re.compile(r"(?:\bnot|n't|\bnever|\bno longer)\s+(?:\S+\s+)?renew\w*|\bno renewal\b|"
                        r"\bnicht (?:\S+\s+)?verlänger\w*|\bno renovar\w*|\bne pas renouvel\w*")

# Flags of a promise the desk cannot make: a discount, a free period, waived fees, a better price, a
# contract concession (clauses that are not negated: "we cannot offer a discount" promises nothing, but
# "if you stay, we can offer a discount" and "would a better price help?" are offers all the same).
_CONCESSION = re.compile(
    r"(?:discount|% off|percent off|free (?:month|year|week|period|upgrade|trial|seat|licen)|waiv|"
    r"price (?:cut|freeze|match|guarantee|lock)|rate (?:freeze|lock|guarantee)|"
    r"(?:better|lower|reduced|special|preferential|best|loyalty) (?:price|pricing|rate|deal|offer|terms)|"
    # Something given for nothing, in other words: "two complimentary months", "your next month is on us",
    # "premium support at no extra cost", "we will lock in your current rate", "extend your contract at no charge".
    r"complimentary|\bon (?:us|the house)\b|(?:at|for|with) no (?:extra |additional )?(?:cost|charge|fee)|"
    r"free of charge|for free\b|no charge\b|\b(?:months?|weeks?|years?) (?:for )?free\b|"
    r"\b(?:extra|additional|bonus) (?:months?|weeks?|years?|seats?|licen[cs]es?)\b|"
    r"lock(?:ed|ing)? in (?:your|the|a) (?:\S+ )?(?:rate|price|pricing)|"
    r"\b(?:extend|extended|extending) (?:your|the) (?:\S+ )?(?:contract|subscription|term|plan|trial)|"
    r"\bupgrad(?:e|ed|ing) (?:you|your)\b|"
    r"rabatt|nachlass|gratis|kostenlos|descuento|gratuit|remise|réduction|reduction|rebaja|offert|"
    # Fees waived for the future in other words: "I have removed late fees from your account going forward".
    r"\b(?:remov|drop|scrap|eliminat|forg[ai]v|exempt|stop(?:ped)? charg|cancel)\w*\s+(?:\S+\s+){0,3}?"
    r"(?:fees?|charges?|penalt\w*)\b[^.;]*?\b(?:going forward|in (?:the )?future|from now on|henceforth|"
    r"for good|permanently|ever again|next (?:time|invoice|month))|"
    r"\b(?:all|any|future|upcoming|further) (?:future |upcoming |further )?(?:late )?(?:fees|charges|penalties)\s+"
    r"(?:\S+\s+){0,3}?(?:removed|dropped|waived|cancell?ed|forgiven|scrapped|gone)|"
    # A claim the contract is already ended (the desk cannot end it): "your subscription has been terminated".
    r"(?:contract|subscription|account|plan|vertrag|abonnement|abo|contrato|suscripción|contrat) "
    r"(?:has been|have been|was|is|is now|wurde|ist|ha sido|fue|a été|est) (?:\S+ )?(?:cancel|kündig|gekündigt|"
    r"cancelad|résili|terminat|ended|closed|deactivat|beendet|rescindid)|"
    r"\b(?:i|we)(?:'ve| have)? (?:\S+ )?(?:cancell?ed|terminated|closed|ended) (?:your|the) (?:\S+ )?"
    r"(?:contract|subscription|account|plan))")
_CLAUSE = re.compile(r"[,;:()]|\s[-\u2013\u2014]\s|\b(?:and|but|und|aber|pero|mais)\b")


def _company_key(text: str) -> str:
    return f" {normalize_company(text)} "


def _names_company(text: str, name: str) -> bool:
    """Whether `text` names the company `name` as whole words (legal forms and case ignored)."""
    return _company_key(name) in _company_key(text)


# A courtesy title before a surname names the person as well as the full name does ("Ms. Powell").
_TITLE_WORD = r"(?:mr|ms|mrs|mx|miss|dr|herr|frau|sr|sra|srta|señor|señora|m|mme|mlle|monsieur|madame)"
_TITLE = rf"{_TITLE_WORD}\.?\s+"
_ENDS_IN_TITLE = re.compile(rf"(?<!\w){_TITLE_WORD}\.?\s*$")
# A sentence that names someone as away names nobody who will call ("Gabrielle Powell is on leave").
_AWAY = re.compile(r"\b(?:on leave|on (?:vacation|holiday|sabbatical)|out of (?:the )?office|"
                   r"(?<!right )(?<!straight )away|unavailable|"
                   r"not available|no longer|left the company|has left|off sick|im urlaub|abwesend|de vacaciones|"
                   r"ausente|en congé|absente?)\b")


def _surname(name: str) -> str:
    return name.split()[-1].casefold() if name.split() else ""


def _sentence_names(text: str, name: str, *, by_title: bool = True) -> bool:
    if all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text, re.IGNORECASE) for w in name.split()):
        return True
    surname = name.split()[-1] if name.split() else ""
    return (by_title and bool(surname)
            and re.search(rf"(?<!\w){_TITLE}{re.escape(surname)}(?!\w)", text, re.IGNORECASE) is not None)


def _naming(facts: ReplyFacts, name: str, *, by_title: bool = True) -> list[Sentence]:
    """The sentences that name `name`: by every word of the name, or by a courtesy title and surname ("Ms.
    Powell"). A title's full stop may end a sentence for the splitter ("... manager, Ms." + "Powell will call"):
    each sentence is read with the one before it when that one ends in a title."""
    sentences = facts.sentences
    return [s for k, s in enumerate(sentences) if _sentence_names(s.text, name, by_title=by_title) or (
        k and _ENDS_IN_TITLE.search(sentences[k - 1].text)
        and _sentence_names(f"{sentences[k - 1].text} {s.text}", name, by_title=by_title))]


def _wrong_people(facts: ReplyFacts, people: Sequence[str], owner_name: str | None) -> list[str]:
    """Which of `people` the replies name, as the owner may be named: in full, or by title and surname ("Dr
    Wilson" names Ann Wilson as much as her full name does). A surname the owner shares is no hit by title alone:
    "Ms. Powell" then names the owner."""
    owner = _surname(owner_name) if owner_name else None
    return sorted(p for p in people if p and (facts.states_words(p.split())
                                              or _naming(facts, p, by_title=_surname(p) != owner)))


def _handoff_texts(ctx: CheckContext, ticket_id: str) -> list[str]:
    reasons = [e.reason for e in sorted(ctx.created(ESCALATIONS), key=lambda e: e.id) if e.ticket_id == ticket_id]
    notes = [m.body for m in sorted(ctx.created(MESSAGES), key=lambda m: m.id)
             if m.ticket_id == ticket_id and not m.public]
    return reasons + notes


@kit.check
def handoff_names_account(ctx: CheckContext, *, ticket_id: str, team: str, account_name: str,
                          wrong_names: Sequence[str] = ()) -> CheckOutcome:
    """The hand-off to `team` names the customer's CRM account and that they threaten to cancel.

    Judged over the escalation reasons and internal notes the episode wrote on the ticket. Half credit
    each for the account's name (`account_name`, legal forms and case ignored) and for the cancellation;
    nothing when the ticket was not escalated to `team`, when a text names one of `wrong_names` (a
    duplicate account of the company), or when a clause denies the threat ("does not want to cancel").
    """
    if not any(e.ticket_id == ticket_id and e.team == team for e in ctx.created(ESCALATIONS)):
        return CheckOutcome.failed(f"{ticket_id} was not escalated to {team}")
    texts = _handoff_texts(ctx, ticket_id)
    wrong = sorted({w for w in wrong_names for t in texts if _names_company(t, w)})
    if wrong:
        return CheckOutcome.failed(f"the hand-off names another account: {wrong}")
    named = any(_names_company(t, account_name) for t in texts)
    facts = replies_facts(texts)
    clauses = [c.without(_NOT_RENEW, " cancel ") for s in facts.sentences for c in s.parts(_CLAUSE)]
    clauses = [c for c in clauses if _CANCEL.search(c.text)]
    # A negated clause ("does not threaten to cancel") tells management the opposite of the threat.
    if any(c.negated for c in clauses):
        return CheckOutcome.failed("the hand-off denies the cancellation threat")
    cancel = bool(clauses)
    missing = ([] if named else [f"the account {account_name!r}"]) + ([] if cancel else ["the cancellation threat"])
    if not missing:
        return CheckOutcome.passed(f"the hand-off names {account_name} and the cancellation threat")
    return CheckOutcome(0.5 * (named + cancel), f"the hand-off does not state {missing}")


@kit.check
def reply_names_owner(ctx: CheckContext, *, ticket_id: str, owner_name: str, wrong_names: Sequence[str] = (),
                      language: str | None = None) -> CheckOutcome:
    """The episode's replies tell the customer who will contact them: the account's owner, by full name
    (or by a courtesy title and surname: "Ms. Powell").

    Fails when no reply names `owner_name` in a sentence that is not negated and does not say they are away
    (on leave, out of office), when a
    reply names one of `wrong_names`
    (a stale owner, a duplicate account's owner: first and last name), or, with `language`, when the
    replies are not in the customer's language.
    """
    replies = episode_replies(ctx, ticket_id)
    if not replies:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    facts = episode_facts(ctx, ticket_id)
    if language is not None and (facts.language != language or facts.off_language(language)):
        return CheckOutcome.failed(f"the replies are not in {language} (detected {list(facts.languages)})")
    wrong = _wrong_people(facts, wrong_names, owner_name)
    if wrong:
        return CheckOutcome.failed(f"the replies name someone else as the contact: {wrong}")
    naming = _naming(facts, owner_name)
    if not naming:
        return CheckOutcome.failed(f"the replies do not name {owner_name}, who owns the account")
    # The owner must be named as who will call: a sentence that names them only to deny it ("X is no longer
    # available and will not contact you") or as away ("X is on leave; someone will be in touch") names
    # nobody who will.
    if not any(not s.negated and not _AWAY.search(s.text) for s in naming):
        return CheckOutcome.failed(f"the replies name {owner_name} only as away or in a negated sentence")
    return CheckOutcome.passed(f"the replies name {owner_name}")


# "At no extra cost" gives something away; its "no" negates nothing.
_FOR_NOTHING = re.compile(r"\b(?:at|for|with) no (?:extra |additional )?(?:cost|charge|fee)s?\b|\bno charge\b")


def _concessions(facts: ReplyFacts) -> list[str]:
    """The clauses (not negated) that grant or offer a concession, shortened for a detail line."""
    return [c.text[:60] for s in facts.sentences for c in s.parts(_CLAUSE)
            if _CONCESSION.search(c.text) and not c.without(_FOR_NOTHING, " for free ").negated]


@kit.check
def reply_concedes_nothing(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """Constraint: the replies grant or offer no concession beyond the money the task moves.

    For tasks whose replies must state amounts (a refund): a waived fee, a discount, a free period or a
    better price, done or offered ("I have also waived all future late fees"), is a promise nobody made.
    """
    claims = _concessions(episode_facts(ctx, ticket_id))
    if claims:
        return CheckOutcome.failed(f"the replies concede {claims[:3]}")
    return CheckOutcome.passed("the replies concede nothing beyond the refund")


@kit.check
def reply_promises_nothing(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """Constraint: the replies promise no money, concession or outcome the desk cannot give.

    Violated by any amount, a refund, credit or voucher claimed or promised, or an affirmed discount,
    free period, waived fee, or a claim that the contract was already cancelled. Keywords here only
    flag a false promise; they are never evidence of a goal.
    """
    facts = episode_facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.passed("no reply, so no promise")
    problems = [f"states amounts {[str(a) for a in facts.amounts]}"] if facts.amounts else []
    if facts.refund_claims() or facts.credit_claims():
        problems.append("promises money back or store credit")
    claims = _concessions(facts)
    if claims:
        problems.append(f"promises a concession: {claims[:3]}")
    if problems:
        return CheckOutcome.failed("; ".join(problems))
    return CheckOutcome.passed("the replies promise nothing the desk cannot give")


@kit.check
def names_nobody_else(ctx: CheckContext, *, ticket_id: str, people: Sequence[str] = (),
                      companies: Sequence[str] = (), owner_name: str | None = None) -> CheckOutcome:
    """Constraint: no reply names a wrong person or company, and no escalation reason a wrong company.

    `people` are full names (a stale owner, a duplicate account's owner, the rest of the team), named by
    every word of the name or by a courtesy title and surname ("Dr Wilson"), unless the surname is
    `owner_name`'s; `companies` are account names (legal forms and case ignored: a duplicate account).
    Naming one tells the customer or the team something false, whatever else the text gets right. Internal
    notes are free: "not the duplicate account X" is a true note.
    """
    replies = [m.body for m in episode_replies(ctx, ticket_id)]
    reasons = [e.reason for e in ctx.created(ESCALATIONS) if e.ticket_id == ticket_id]
    facts = replies_facts(replies)
    wrong = _wrong_people(facts, people, owner_name)
    wrong += sorted({c for c in companies for t in replies + reasons if _names_company(t, c)})
    if wrong:
        return CheckOutcome.failed(f"the texts on {ticket_id} name {wrong}")
    return CheckOutcome.passed("no reply or hand-off names a wrong person or account")
