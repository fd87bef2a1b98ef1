"""Cross-app identity setups in the CRM: people who ask support to change the contact details on file.

* `email_change_contacts`: from the support desk's candidates (CRM contacts the desk knows, with
  orders), the genuine requester's contact and the contact an impostor claims to be, each with a phone
  on file, beside same-named contacts of the genuine one at other accounts (other phones, other
  addresses). Binds the new address each writes from and the phone the impostor gives (not the one on
  file), so only the CRM record tells the two requests apart.

Staged records get seed-drawn ids (`fresh_id`), and the addresses and phones are seed-drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Contact
from saas_sim.domains.crm.setup_helpers import account_name, base_contacts, fresh_id, full_name, twin_created_at
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS
from saas_sim.errors import ScenarioError

__all__ = ["email_change_contacts"]

_MAX_NAMESAKES = 3
_MAILBOXES = ("mailbox.example", "post.example", "inbox.example", "webmail.example", "fastmail.example")


def _phone(ctx: SetupContext, avoid: set[str]) -> str:
    while True:
        phone = f"+1 555 {ctx.rng.randrange(100, 999)} {ctx.rng.randrange(1000, 9999)}"
        if phone not in avoid:
            return phone


def _address(ctx: SetupContext, c: Contact, taken: set[str]) -> str:
    local = "".join(ch for ch in f"{fold(c.first_name)}.{fold(c.last_name)}" if ch.isalnum() or ch == ".")
    while True:
        email = f"{local}.{ctx.rng.randrange(10, 999)}@{ctx.rng.choice(_MAILBOXES)}"
        if email.casefold() not in taken:
            return email


def _pick_pair(ctx: SetupContext, candidates: Sequence[str]) -> tuple[Contact, Contact]:
    usable = {c.id: c for c in base_contacts(ctx.state) if c.email}
    pool = [usable[i] for i in candidates if i in usable]
    if len(pool) < 2:
        raise ScenarioError("email_change_contacts needs two candidate contacts with an email at an account")
    genuine = pool[0]
    others = [c for c in pool[1:] if fold(full_name(c)) != fold(full_name(genuine))]
    if not others:
        raise ScenarioError("email_change_contacts found no second candidate of another name")
    return genuine, others[0]


@kit.setup
def email_change_contacts(ctx: SetupContext) -> Setup:
    """The genuine requester's contact, the contact an impostor claims to be, and the genuine one's namesakes.

    Params:
        candidates: CRM contact ids in the order to try (the support desk's, seed-shuffled); the first
            usable one is the genuine requester, the next of another name the impostor's claimed identity.
        namesakes: Same-named contacts of the genuine requester at other accounts, 1-3 (default 1).

    Bindings: contact (id, name, first_name, email, phone, account_id, account_name: the genuine
    requester), new_email (the address they write from), victim (id, name, first_name, email, phone,
    account_name: the person the impostor claims to be), impostor_email, impostor_phone (what the
    impostor gives: not on file), namesake (id, email, phone, account_name of the first namesake),
    namesake_ids, other_contact_ids (the victim and the namesakes).
    """
    n = int(ctx.params.get("namesakes", 1))
    if not 1 <= n <= _MAX_NAMESAKES:
        raise ScenarioError(f"email_change_contacts takes 1-{_MAX_NAMESAKES} namesakes, got {n}")
    genuine, victim = _pick_pair(ctx, [str(c) for c in ctx.params.get("candidates", [])])
    contacts = ctx.state.table(CONTACTS)
    phones = {c.phone for c in contacts if c.phone}
    taken = {e.casefold() for c in contacts for e in (c.email, c.secondary_email) if e}
    staged: list[Event] = []
    filled: dict[str, str] = {}
    for c in (genuine, victim):
        # Verification needs a phone on file; a contact without one had it added some time ago.
        phone = c.phone or _phone(ctx, phones)
        phones.add(phone)
        filled[c.id] = phone
        if c.phone is None:
            staged.append(ev.ContactUpdated(contact_id=c.id, changes={"phone": phone},
                                            updated_at=ctx.now - timedelta(days=ctx.rng.randint(30, 300))))
    accounts = sorted(a.id for a in ctx.state.table(ACCOUNTS) if a.id != genuine.account_id)
    twins: list[Contact] = []
    for account_id in ctx.rng.sample(accounts, n):
        phone = _phone(ctx, phones)
        phones.add(phone)
        created = twin_created_at(ctx, genuine.created_at, 10, 300)
        twin = genuine.model_copy(update={
            "id": fresh_id(ctx, "ct"), "account_id": account_id, "phone": phone, "secondary_email": None,
            "email": _address(ctx, genuine, taken), "created_at": created,
            "updated_at": created, "last_contacted_at": None, "title": None})
        taken.add(str(twin.email).casefold())
        twins.append(twin)
    staged.insert(0, ev.ContactsImported(contacts=twins))
    ctx.declare_lookalikes(genuine.id, *(t.id for t in twins))
    new_email = _address(ctx, genuine, taken)
    taken.add(new_email.casefold())
    impostor_email = _address(ctx, victim, taken)
    impostor_phone = _phone(ctx, phones)

    def person(c: Contact) -> dict[str, Any]:
        return {"id": c.id, "name": full_name(c), "first_name": c.first_name, "email": c.email,
                "phone": filled.get(c.id, c.phone), "account_id": c.account_id,
                "account_name": account_name(ctx.state, str(c.account_id))}

    bindings: dict[str, Any] = {
        "contact": person(genuine),
        "new_email": new_email,
        "victim": person(victim),
        "impostor_email": impostor_email,
        "impostor_phone": impostor_phone,
        "namesake": person(twins[0]),
        "namesake_ids": [t.id for t in twins],
        "other_contact_ids": [victim.id, *(t.id for t in twins)],
    }
    return Setup(bindings=bindings, events=staged)
