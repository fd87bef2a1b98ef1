"""The CRM's per-state identity views, patched from an episode's changes, equal a full recomputation (hypothesis).

Edits move emails, secondary emails and phones between contacts (in other spellings too),
merge records, rewrite the ground truth's person keys, create and delete contacts and edit
accounts; after each, every incremental view must equal the same view computed from scratch.
"""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.identity import IdentityIndex
from saas_sim.core.key_groups import KeyIndex
from saas_sim.core.state import State
from saas_sim.domains.crm.check_indexes import (
    CONTACTS_BY_ACCOUNT,
    DEALS_BY_PRIMARY_CONTACT,
    RECORDS_BY_PERSON,
    TASKS_BY_DEAL,
)
from saas_sim.domains.crm.people_identity import LIVE_IDENTITY, Companies, People, contact_identity_keys
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, DEALS, PERSON_TRUTH
from tests.domains.crm.conftest import smb_world


@functools.cache
def _world() -> State:
    world = smb_world(0)
    world.content_hash()  # a hashed anchor, as the runtime's worlds are
    return world


def _pool() -> tuple[list[str], list[str], list[str], list[str]]:
    contacts = list(_world().table(CONTACTS))[:30]
    emails = sorted({c.email for c in contacts if c.email})[:10]
    phones = sorted({c.phone for c in contacts if c.phone})[:8]
    return [c.id for c in contacts], emails, phones, [a.id for a in list(_world().table(ACCOUNTS))[:5]]


_IDS, _EMAILS, _PHONES, _ACCOUNTS = _pool()
_EMAIL = st.one_of(st.none(), st.sampled_from(_EMAILS), st.sampled_from(_EMAILS).map(str.upper),
                   st.sampled_from(_EMAILS).map(lambda e: f"  {e} "), st.just("not-an-email"))
_PHONE = st.one_of(st.none(), st.sampled_from(_PHONES), st.just("+1 415 555 0100"), st.just("(415) 555-0100"))
_EDIT = st.one_of(
    st.tuples(st.just("email"), st.sampled_from(_IDS), _EMAIL),
    st.tuples(st.just("secondary_email"), st.sampled_from(_IDS), _EMAIL),
    st.tuples(st.just("phone"), st.sampled_from(_IDS), _PHONE),
    st.tuples(st.just("merge"), st.sampled_from(_IDS), st.one_of(st.none(), st.sampled_from(_IDS))),
    st.tuples(st.just("truth"), st.sampled_from(_IDS), st.sampled_from(_IDS)),
    st.tuples(st.just("untruth"), st.sampled_from(_IDS), st.none()),
    st.tuples(st.just("create"), st.sampled_from(_IDS), _EMAIL),
    st.tuples(st.just("delete"), st.sampled_from(_IDS), st.none()),
    st.tuples(st.just("account"), st.sampled_from(_ACCOUNTS), st.sampled_from(_ACCOUNTS)),
    st.tuples(st.just("hash"), st.sampled_from(_IDS), st.none()),
)


def _apply(state: State, edit: tuple[str, str, str | None], n: int) -> State:
    op, cid, value = edit
    c = state.get(CONTACTS, cid)
    if op in ("email", "secondary_email", "phone") and c is not None:
        return state.put(CONTACTS, c.model_copy(update={op: value}))
    if op == "merge" and c is not None:
        return state.put(CONTACTS, c.model_copy(update={"merged_into": value}))
    if op == "truth" and (t := state.get(PERSON_TRUTH, cid)) is not None and value is not None:
        other = state.get(PERSON_TRUTH, value)
        return state.put(PERSON_TRUTH, t.model_copy(update={"person_key": other.person_key if other else value}))
    if op == "untruth":
        return state.delete(PERSON_TRUTH, cid)
    if op == "create":
        base = _world().get(CONTACTS, cid)
        assert base is not None
        return state.put(CONTACTS, base.model_copy(update={"id": f"ct_9{n:05d}", "email": value}))
    if op == "delete":
        return state.delete(CONTACTS, cid)
    if op == "account" and (a := state.get(ACCOUNTS, cid)) is not None and value is not None:
        other = state.get(ACCOUNTS, value)
        return state.put(ACCOUNTS, a.model_copy(update={"name": other.name if other else a.name,
                                                         "domain": other.domain if other else None}))
    if op == "hash":
        state.content_hash()
    return state


def _assert_views_equal_full(initial: State, state: State) -> None:
    contacts = list(state.table(CONTACTS))
    assert dict(People.of_state(state)._by_key) == People.of(contacts, state)._by_key
    gone = [c for c in initial.table(CONTACTS) if c.id not in state.table(CONTACTS)]
    assert dict(People.of_episode(initial, state)._by_key) == People.of([*contacts, *gone], state)._by_key

    live = [c for c in contacts if c.merged_into is None]
    index = IdentityIndex.of((c.id, [c.email, c.secondary_email], [c.phone]) for c in live)
    view = LIVE_IDENTITY.of(state)
    assert {c.id: sorted(view.group(c.id) or ()) for c in live} == \
        {c.id: list(index.records(index.entity(c.id))) for c in live}
    assert set(view.groups) == {c.id for c in live}
    # Sets: a record whose two emails normalize alike is found under that key once.
    assert all(set(contact_identity_keys(c)) == set(view.index.keys(c.id) or ()) for c in live)

    companies, fresh = Companies.of_state(state), Companies.of(state.table(ACCOUNTS))
    assert all(companies.matches(a) == fresh.matches(a) for a in state.table(ACCOUNTS))

    for derived, key, keys in (
        (RECORDS_BY_PERSON, PERSON_TRUTH, lambda t: (t.person_key,)),
        (CONTACTS_BY_ACCOUNT, CONTACTS, lambda c: (c.account_id,) if c.account_id else ()),
    ):
        got, want = derived.of(state), KeyIndex.of((e.id, keys(e)) for e in state.table(key))
        assert all(got.keys(e.id) == want.keys(e.id) for e in state.table(key))
        for e in state.table(key):
            for k in keys(e):
                assert got.holders(k) == want.holders(k)


@settings(max_examples=60, deadline=None)
@given(st.lists(_EDIT, max_size=12))
def test_identity_views_equal_a_full_recomputation(edits: list[tuple[str, str, str | None]]) -> None:
    initial = _world()
    state = initial
    for n, edit in enumerate(edits):
        state = _apply(state, edit, n)
    _assert_views_equal_full(initial, state)


def test_views_of_an_episode_that_touched_none_of_their_tables_are_the_worlds() -> None:
    world = _world()
    episode = world.put(DEALS, world.table(DEALS).values()[0])  # a deal re-put: no contact, truth or task
    assert People.of_state(episode)._by_key is People.of_state(world)._by_key
    assert LIVE_IDENTITY.of(episode) is LIVE_IDENTITY.of(world)
    assert TASKS_BY_DEAL.of(episode) is TASKS_BY_DEAL.of(world)
    assert DEALS_BY_PRIMARY_CONTACT.of(episode) is not DEALS_BY_PRIMARY_CONTACT.of(world)
