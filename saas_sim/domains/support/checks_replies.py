"""Checks about what the replies state: needed facts, refusals, how-to answers, truthfulness, language, tone.

All of an episode's replies on a ticket are read together (`reply_facts`), so
a shotgun of answers is judged as several claims; every fact they state must
be true in the final state.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.text_facts import language_confidences, without_figures
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.check_helpers import (
    CLAUSE,
    clauses,
    episode_facts,
    episode_replies,
    money_value,
    order_by_number,
    refunds_on,
    replacements_on,
    replies_facts,
    ticket_since,
)
from saas_sim.domains.support.judge import deny_verdict, kb_verdict, names_item, truth_problems
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.reply_facts import ReplyFacts
from saas_sim.domains.support.rudeness import rude_phrases
from saas_sim.domains.support.state import (
    ORDERS,
    REFUNDS,
    REPLACEMENTS,
    TRUTHS,
)

__all__ = [
    "declined",
    "kb_answered",
    "merge_told",
    "names_the_item",
    "outcome_claims_backed",
    "polite",
    "replies_in_language",
    "replies_truthful",
    "reply_states",
]

_MIN_TOLD_LETTERS = 20
"""A reply after a merge shorter than this ("ok", ".") tells the customer nothing."""
# What telling of a merge says, in the customers' languages: the requests were combined into one. A reply
# without any of it ("thanks for your patience, we will get back to you") tells the customer nothing.
_COMBINED = re.compile(
    r"\b(?:merg|combin|consolidat|joined|join(?:ing)? (?:your|the|them|these|those)|"
    r"linked (?:your|the|them|these|those)|"
    r"bundled|one place|single place|same place|one ticket|single ticket|same ticket|one request|one thread|"
    r"single thread|this thread|one conversation|"
    r"this conversation|one case|single case|dupli|both request|both ticket|all your request|"
    r"all your ticket|all of your request|all of your ticket|(?:now |all )?together in|into one|"
    r"zusammengeführt|zusammengefasst|zusammengelegt|gebündelt|vereint|ein ticket|einem ticket|fusionn|fusion[aé]|"
    r"combinad|unific|agrupad|juntad|un solo ticket|un único|regroup|réuni|rassembl|un seul ticket|un même ticket)")


_SHORT_LETTERS = 60
"""A reply with fewer letters than this, figures removed, is short: one language guess on it is unreliable."""
_OVER_ENGLISH = 2.5
"""How many times lingua's confidence in English a short reply's confidence in its language must be.

English is what the desk writes in (its policy, tools and teams), so it is what leaks into a reply meant for
another language. On short text lingua leans on a few words: "Refund: 58.00 EUR. Order 100481." is German to
it at 0.46 against English at 0.28, while a genuine short reply is far apart ("Ich habe 58,00 EUR für
Bestellung 100481 erstattet." 0.99 against 0.001; "Hallo Anna, erstattet: 58,00 EUR." 0.65 against 0.17)."""


def _unproven_language(facts: ReplyFacts, lang: str) -> list[str]:
    """The short replies whose words are not clearly `lang` rather than English (empty: every one is).

    A long reply is judged by its sentences (`off_language`); a short one gives lingua little to go on, so
    its words, without figures, must read as `lang` at `_OVER_ENGLISH` times the confidence of English.
    """
    if lang == "en":
        return []
    out: list[str] = []
    for body in facts.bodies:
        if sum(ch.isalpha() for ch in without_figures(body)) >= _SHORT_LETTERS:
            continue
        confidence = language_confidences(body)
        if confidence and confidence.get(lang, 0.0) < _OVER_ENGLISH * confidence.get("en", 0.0):
            out.append(body[:60])
    return out


@kit.check
def reply_states(ctx: CheckContext, *, ticket_id: str, order_number: str | None = None,
                 amounts: Sequence[Any] = (), numbers: Sequence[Any] = (),
                 language: str | None = None, strict: bool = False) -> CheckOutcome:
    """The episode's replies on the ticket, read together, state the facts the task needs.

    Needed facts: the order number, each amount (any notation, number words included) and each number
    (a quantity). A needed amount is a refunded amount: it counts only when the episode's refunds on
    the order (one of them, or their total) really are that amount, so saying the right number without
    doing the work earns nothing. With `language`, every reply and all of them together must be in that language (by a
    language-identification library); a reply in another language fails the goal outright. Partial
    credit: the share of needed facts stated (with `strict`, all or nothing: a reply that leaves out a
    fix the customer needs to hear about is no report of the work).
    """
    replies = episode_replies(ctx, ticket_id)
    if not replies:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    facts = replies_facts(m.body for m in replies)
    if language is not None:
        wrong = [m.id for m, lang in zip(replies, facts.languages, strict=True) if lang != language]
        if wrong or facts.language != language:
            return CheckOutcome.failed(f"replies {wrong or [m.id for m in replies]} are not in {language} "
                                       f"(detected {list(facts.languages)})")
        if off := facts.off_language(language):
            return CheckOutcome.failed(f"parts of the replies are not in {language}: {off[:3]}")
        if thin := _unproven_language(facts, language):
            return CheckOutcome.failed(f"short replies read as English as much as {language}: {thin[:3]}")
    missing = [] if order_number is None or facts.states_code(str(order_number)) else [f"order {order_number}"]
    order = order_by_number(ctx.final, str(order_number)) if order_number is not None else None
    done = [r.amount for r in ctx.created(REFUNDS) if order is not None and r.order_id == order.id]
    paid = set(done) | {sum(done, Decimal("0"))} if done else set()
    missing += [f"amount {a}" for a in amounts if not facts.states_amount(money_value(a))]
    missing += [f"amount {a} (never refunded)" for a in amounts
                if facts.states_amount(money_value(a)) and money_value(a) not in paid]
    missing += [f"number {n}" for n in numbers if not facts.states_number(money_value(n))]
    total = (order_number is not None) + len(amounts) + len(numbers)
    if not missing:
        return CheckOutcome.passed("the replies state every needed fact")
    share = 0.0 if strict or not total else 1 - len(missing) / total
    return CheckOutcome(share, f"the replies do not state {missing}")


@kit.check
def declined(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """The refusal: no money moved, the replies give the true reason and the item, and promise nothing.

    Half credit at most without the true reason or without naming the order or item.
    """
    since = ticket_since(ctx, ticket_id)
    truth = ctx.final.get(TRUTHS, ticket_id)
    if since is None or truth is None:
        return CheckOutcome.failed(f"ticket {ticket_id} has no ground truth")
    verdict = deny_verdict(ctx.final, episode_facts(ctx, ticket_id), truth, since)
    return CheckOutcome(verdict.partial, verdict.detail)


@kit.check
def kb_answered(ctx: CheckContext, *, ticket_id: str, article_id: str) -> CheckOutcome:
    """The replies give the right article's values and controls (or its id), and no other article's."""
    verdict = kb_verdict(ctx.final, episode_facts(ctx, ticket_id), article_id)
    return CheckOutcome.of(verdict.ok, verdict.detail if not verdict.ok else f"answered from {article_id}")


@kit.check
def merge_told(ctx: CheckContext, *, ticket_id: str, order_number: str, item: str,
               language: str | None = None) -> CheckOutcome:
    """After the merge, a reply on the kept ticket tells the customer, in their language.

    The evidence is the state first: a merge event on the ticket, then a non-trivial reply on the kept
    ticket, wholly in the customer's language (`off_language`), that says in an affirmed clause that the
    requests were combined (any of many wordings and languages: "merged", "consolidated", "now one ticket",
    "zusammengeführt", or a merged ticket's id); "I did not merge your tickets" says no such thing. Naming
    the order or item is not required; a wrong order is a false fact for `replies_truthful`.
    """
    merged_at = next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.TicketsMerged)
                      and e.target_id == ticket_id), None)
    if merged_at is None:
        return CheckOutcome.failed(f"nothing was merged into {ticket_id}")
    later = {e.message.id for e in ctx.events[merged_at:] if isinstance(e, ev.MessagePosted)}
    replies = [m for m in episode_replies(ctx, ticket_id) if m.id in later and m.ticket_id == ticket_id]
    if not replies:
        return CheckOutcome.failed(f"no reply on {ticket_id} after the merge")
    facts = replies_facts(m.body for m in replies)
    if language is not None and (facts.language != language or facts.off_language(language)
                                 or _unproven_language(facts, language)):
        return CheckOutcome.failed(f"the reply is not in {language} (detected {facts.language})")
    # Telling the customer the tickets were combined is the task; naming the order or item is a
    # courtesy, not a requirement ("I've consolidated your requests into this ticket" is correct).
    # What is named must be right: another order's number is caught by `replies_truthful`.
    if sum(ch.isalpha() for b in facts.bodies for ch in b) < _MIN_TOLD_LETTERS:
        return CheckOutcome.failed("the reply after the merge says nothing (too short to tell the customer)")
    merged = ctx.events[merged_at]
    sources = merged.source_ids if isinstance(merged, ev.TicketsMerged) else ()
    # Only what a clause affirms tells of the merge: "I did not merge your tickets" says the opposite.
    said = " ".join(c.text for c in clauses(facts) if c.affirms)
    if not _COMBINED.search(said) and not any(s.casefold() in said for s in sources):
        return CheckOutcome.failed("the reply after the merge does not say the requests were combined")
    named = facts.states_code(order_number) or facts.states_words(item.split())
    return CheckOutcome.passed("the customer was told on the kept ticket, after the merge"
                               + ("" if named else " (without naming the order)"))


# A claim that the customer's problem is over: a completed "resolved", "fixed", "sorted out", "dealt with" (not
# "will be", not "is being", not "until it is"), said of the problem, the issue, the item or order (or "it"), or
# done to it by the desk ("we've taken care of the lamp"). Said of the tickets ("your duplicate tickets are sorted
# into one") or of a part of the work ("that part is sorted") it tells of the merge, not the problem; a bare
# "all set" / "all sorted" is a claim only in a sentence that says nothing of the tickets.
_DONE = r"(?:resolved|fixed|solved|settled|sorted(?:\s+out)?|taken care of|dealt with|closed|repaired)"
_DEGREE = r"(?:(?:now|fully|all|completely|entirely|already|just|finally|officially|totally)\s+)"
_SUBJECT = r"(?:it|everything|(?:your|the|this)(?:\s+[\w'\u2019-]+){1,6}?)"
_RESOLVED = re.compile(
    rf"\b(?P<subject>{_SUBJECT})(?:['\u2019]s\s+|\s+(?:is|are|was|were|has been|have been|had been)\s+)"
    rf"{_DEGREE}{{0,3}}{_DONE}\b|"
    r"\b(?:i|we|i['\u2019]ve|we['\u2019]ve|i have|we have)\s+"
    rf"{_DEGREE}{{0,2}}{_DONE}(?P<object>(?:\s+[\w'\u2019-]+){{1,4}})|"
    r"\b(?:gelöst|erledigt|behoben|geklärt|resuelto|resuelta|solucionado|solucionada|arreglado|arreglada|résolu|"
    r"résolue|réglé|réglée|corrigé|corrigée)\b")
_BARE_DONE = re.compile(r"\ball (?:sorted|set|done|fixed|good)\b")
_ABOUT_TICKETS = re.compile(r"\b(?:tickets?|requests?|messages?|e-?mails?|threads?|conversations?|dupli\w*|"
                            r"anfragen|nachrichten|solicitudes|mensajes|demandes)\b")
# What a resolution is not about: a part of the work, the merge, the other tickets ("the other two are closed"),
# the desk's people or paperwork.
_NOT_THE_PROBLEM = re.compile(r"\b(?:part|bit|step|side|half|merg\w*|combin\w*|others?|two|three|both|team|"
                              r"department|colleagues?|details|information|info|data|paperwork|notes?|photos?|"
                              r"pictures?|images?|evidence|documents?|feedback|answers?|replies|facts|questions?)\b")
# What a pickup is not of: all that, and the case itself ("I picked up your case").
_NOT_GOODS = re.compile(rf"{_NOT_THE_PROBLEM.pattern}|\b(?:case|matter|issue|problem|complaint)\b")
# A clause that waits for something ("until it is resolved", "once it is fixed") claims nothing done.
_PENDING = re.compile(r"\b(?:until|till|once|when|as soon as|bis|sobald|hasta|cuando|jusqu|dès que|quand)\b")
# A pickup of the item: the desk's records hold no pickup (no tool books one), so a promise of one is never
# backed. Collecting, picking up or grabbing counts only of goods ("a driver will grab the bottle", "pick it up");
# "the returns team can collect the details they need" is no pickup, nor "I collected your messages".
_PICKUP_VERB = re.compile(
    r"\b(?:collect\w*|pick(?:s|ed|ing)?\s+up|grab\w*|fetch\w*|haul\w*\s+away|come\s+(?:for|to get))"
    r"\s+(?P<object>it\b|them\b|(?:the|your|this|that|these|those|both|all)(?:\s+[\w'\u2019-]+){1,4})|"
    r"\bpick(?:s|ed|ing)?\s+(?P<held>it|them|(?:the|your|this|that)(?:\s+[\w'\u2019-]+){1,3}?)\s+up\b")
_PICKUP = re.compile(
    r"\b(?:pick-?ups?|kurier\w*|mensajero|coursier|abhol\w*|abgeholt|recog\w*|enlèvement|ramass\w*)\b|"
    r"\b(?:courier|driver)\b.*\b(?:will|['\u2019]ll|is going to|shall|can)\s+(?:\w+\s+)?(?:come|arrive|visit|"
    r"be there|swing by|stop by)\b|"
    r"\b(?:someone|somebody)\b.*\b(?:will|['\u2019]ll|is going to|shall|can)\s+(?:\w+\s+)?"
    r"(?:come|swing|stop|drop|pop)\s+(?:by|round|over)\b")


def _claims_resolved(clause: str, sentence: str) -> bool:
    """Whether the clause says the customer's problem is over (see `_RESOLVED`)."""
    if _ABOUT_TICKETS.search(clause):
        return False
    for m in _RESOLVED.finditer(clause):
        named = m.group("subject") or m.group("object") or ""
        if not _NOT_THE_PROBLEM.search(named) and not _ABOUT_TICKETS.search(named):
            return True
    return bool(_BARE_DONE.search(clause)) and not _ABOUT_TICKETS.search(sentence) and not _COMBINED.search(sentence)


def _claims_pickup(clause: str) -> bool:
    """Whether the clause promises or tells of a pickup of the goods (see `_PICKUP_VERB`, `_PICKUP`)."""
    if _ABOUT_TICKETS.search(clause):
        return False
    if _PICKUP.search(clause):
        return True
    return any(not _NOT_GOODS.search(m.group("object") or m.group("held")) for m in _PICKUP_VERB.finditer(clause))


def _outcome_claims(facts: ReplyFacts) -> tuple[list[str], list[str]]:
    """The affirmed clauses that claim the problem resolved, and those that promise a pickup.

    Every sentence is split into clauses, so "I merged your tickets into one, and a courier will collect the
    lamp" is read as the promise it holds.
    """
    resolved: list[str] = []
    pickups: list[str] = []
    for s in facts.sentences:
        for c in s.parts(CLAUSE):
            if not c.affirms or _PENDING.search(c.text):
                continue
            if _claims_resolved(c.text, s.text):
                resolved.append(c.text)
            if _claims_pickup(c.text):
                pickups.append(c.text)
    return resolved, pickups


@kit.check
def outcome_claims_backed(ctx: CheckContext, *, ticket_id: str, order_id: str) -> CheckOutcome:
    """Constraint: the replies claim no outcome the records do not show: the problem resolved, or a pickup.

    A claim that the customer's problem is resolved ("your problem with the lamp is fully resolved") is true
    only when the episode refunded or replaced something on the order; a promise that a courier will collect
    the item is never backed (the desk books no pickups), even offered on a condition. Negated or pending
    clauses ("it is not resolved yet", "until it is fixed") and clauses about the tickets claim nothing.
    """
    facts = episode_facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.passed("no reply, so no claimed outcome")
    resolved, pickups = _outcome_claims(facts)
    created = {r.id for r in ctx.created(REFUNDS)} | {r.id for r in ctx.created(REPLACEMENTS)}
    fixed = any(r.id in created for r in (*refunds_on(ctx.final, order_id), *replacements_on(ctx.final, order_id)))
    problems = [f"claims a pickup no record backs: {pickups[:2]}"] if pickups else []
    if resolved and not fixed:
        problems.append(f"claims the problem resolved, but nothing was refunded or replaced: {resolved[:2]}")
    if problems:
        return CheckOutcome.failed("; ".join(problems))
    return CheckOutcome.passed("no claimed outcome beyond the records")


@kit.check
def names_the_item(ctx: CheckContext, *, ticket_id: str, order_id: str, line_id: str | None = None) -> CheckOutcome:
    """Goal helper: the replies identify the order (number) or the item (its name)."""
    order = ctx.final.get(ORDERS, order_id)
    if order is None:
        return CheckOutcome.failed(f"order {order_id} is missing")
    line = order.line(line_id) if line_id else None
    return CheckOutcome.of(names_item(episode_facts(ctx, ticket_id), order, line), "the replies name the order or item")


@kit.check
def replies_truthful(ctx: CheckContext, *, ticket_id: str, order_id: str | None = None,
                     may_name: Sequence[str] = ()) -> CheckOutcome:
    """Constraint: every fact the replies state is true in the final state.

    Violated by a refund or replacement claimed but not in the records, an amount said to be refunded that
    was not, an amount that is no price, total or refund of the order, or another order's number (but those
    in `may_name`, such as a number the customer quoted by mistake), or a parcel still on its way said to be
    lost or already arrived, or promised a delivery day, a faster service or a guarantee the records do not
    show. A refusal ticket is also held to its reason: a false reason or a promise of money violates it.
    """
    since = ticket_since(ctx, ticket_id)
    if since is None:
        return CheckOutcome.failed(f"ticket {ticket_id} is missing")
    facts = episode_facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.passed("no reply, so no false claim")
    order = ctx.final.get(ORDERS, order_id) if order_id else None
    problems = truth_problems(ctx.final, facts, order, since=since, may_name=[str(c) for c in may_name])
    truth = ctx.final.get(TRUTHS, ticket_id)
    if truth is not None and truth.resolution == "deny":
        verdict = deny_verdict(ctx.final, facts, truth, since)
        problems += [p for p in verdict.problems if not p.startswith("no reply states") and p not in problems]
    if problems:
        return CheckOutcome.failed("; ".join(problems))
    return CheckOutcome.passed("every stated fact is true")


@kit.check
def replies_in_language(ctx: CheckContext, *, ticket_id: str, language: str) -> CheckOutcome:
    """Constraint: every public reply on the ticket is in the customer's language (policy rule 14).

    Each reply as lingua reads it, each long sentence, and each short reply by its words' evidence
    (`_unproven_language`: "Refund: 58.00 EUR. Order 100481." is no German reply).
    """
    replies = episode_replies(ctx, ticket_id)
    facts = replies_facts(m.body for m in replies)
    wrong = [m.id for m, lang in zip(replies, facts.languages, strict=True) if lang != language]
    if wrong:
        return CheckOutcome.failed(f"replies {wrong} are not in {language} (detected {list(facts.languages)})")
    if off := facts.off_language(language):
        return CheckOutcome.failed(f"parts of the replies are not in {language}: {off[:3]}")
    if thin := _unproven_language(facts, language):
        return CheckOutcome.failed(f"short replies read as English as much as {language}: {thin[:3]}")
    return CheckOutcome.passed(f"every reply is in {language}")


@kit.check
def polite(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """Constraint: no reply on the ticket blames, dismisses or insults the customer (no reply holds trivially).

    Wording is read with its polarity and context (`rudeness.rude_phrases`): "that's not your fault at all" and
    "whatever else you need" are kind, "it's your fault" and "Whatever." are not.
    """
    rude = {m.id: found for m in episode_replies(ctx, ticket_id) if (found := rude_phrases(m.body))}
    if rude:
        return CheckOutcome.failed(f"rude wording in {list(rude)}: {[p for f in rude.values() for p in f][:3]}")
    return CheckOutcome.passed("no rude wording")
