"""Normalizing and matching messy names, emails, phones and company names.

Used by tools (duplicate detection on create, search), by the world generator
(to make near-duplicates) and by the data report. Everything is pure and
independent of locale settings and hash seeds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from saas_sim.domains.crm.models import Account, Contact

__all__ = [
    "NICKNAMES",
    "AccountMatch",
    "ContactMatch",
    "account_candidates",
    "canonical_first_name",
    "contact_candidates",
    "edit_distance_at_most_one",
    "fold",
    "norm_company",
    "norm_email",
    "phone_digits",
    "search_text",
]

NICKNAMES: dict[str, str] = {
    "bob": "robert", "rob": "robert", "bobby": "robert", "robbie": "robert",
    "bill": "william", "will": "william", "billy": "william", "liam": "william",
    "jim": "james", "jimmy": "james", "jamie": "james",
    "mike": "michael", "mick": "michael", "micha": "michael",
    "dave": "david", "davy": "david",
    "tom": "thomas", "tommy": "thomas",
    "chris": "christopher", "kit": "christopher",
    "dan": "daniel", "danny": "daniel",
    "matt": "matthew", "steve": "steven", "stephen": "steven",
    "joe": "joseph", "joey": "joseph", "sepp": "josef",
    "tony": "anthony", "andy": "andrew", "drew": "andrew",
    "nick": "nicholas", "nicky": "nicholas", "ben": "benjamin",
    "sam": "samuel", "alex": "alexander", "sasha": "alexander",
    "kate": "katherine", "katie": "katherine", "kathy": "katherine", "cathy": "catherine",
    "liz": "elizabeth", "beth": "elizabeth", "lisa": "elizabeth", "betty": "elizabeth",
    "jenny": "jennifer", "jen": "jennifer", "sue": "susan", "susie": "susan",
    "meg": "margaret", "maggie": "margaret", "peggy": "margaret",
    "patty": "patricia", "trish": "patricia", "pat": "patricia",
    "vicky": "victoria", "becky": "rebecca", "mandy": "amanda",
    "hans": "johannes", "jo": "johanna", "lena": "magdalena",
    "paco": "francisco", "pepe": "jose", "lola": "dolores", "manu": "manuel",
}
"""Common nicknames mapped to the formal first name (ASCII-folded, lowercase)."""

_COMPANY_SUFFIXES = frozenset(
    (
        "inc", "incorporated", "llc", "ltd", "limited", "corp", "corporation", "co", "company", "plc",
        "gmbh", "ag", "kg", "sa", "sas", "sarl", "sl", "srl", "bv", "nv", "ab", "oy", "as",
        "group", "holding", "holdings",
    )
)
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_LETTERS = str.maketrans({"ø": "o", "æ": "ae", "ł": "l", "đ": "d", "œ": "oe", "\u0131": "i"})


def fold(text: str) -> str:
    """Returns `text` lowercased, accent-free and with single spaces (`" Jürgen  MÜLLER"` -> `"jurgen muller"`)."""
    if text.isascii():
        return " ".join(text.lower().split())
    lowered = text.casefold().translate(_LETTERS)
    return " ".join(_COMBINING.sub("", unicodedata.normalize("NFKD", lowered)).split())


def search_text(*haystack: str | None) -> str:
    """Returns the text a free-text search looks in: the non-empty fields joined, lowercased, accent-free.

    ASCII text skips Unicode folding (a word without spaces is found in it exactly when it
    is found in the folded text).
    """
    raw = " ".join(h for h in haystack if h)
    return raw.lower() if raw.isascii() else fold(raw)


def canonical_first_name(first: str) -> str:
    """Returns the folded formal first name (`"Bob"` -> `"robert"`)."""
    folded = fold(first).replace("-", " ").split(" ")[0] if first.strip() else ""
    return NICKNAMES.get(folded, folded)


def norm_email(email: str | None) -> str:
    """Returns a trimmed, lowercased email, or "" for None."""
    return (email or "").strip().casefold()


def phone_digits(phone: str | None) -> str:
    """Returns the last 9 digits of a phone number (drops country codes and formatting), or ""."""
    digits = "".join(ch for ch in (phone or "") if ch.isdigit())
    return digits[-9:] if len(digits) >= 7 else ""


def norm_company(name: str) -> str:
    """Returns a company name folded, without punctuation or legal suffixes (`" ACME, Inc."` -> `"acme"`)."""
    words = _NON_ALNUM.sub(" ", fold(name)).split()
    kept = [w for w in words if w not in _COMPANY_SUFFIXES]
    return " ".join(kept or words)


def edit_distance_at_most_one(a: str, b: str) -> bool:
    """Returns whether `a` and `b` differ by at most one insertion, deletion, substitution or swap."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diffs = [i for i in range(la) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and a[diffs[0]] == b[diffs[1]]
            and a[diffs[1]] == b[diffs[0]]
        )
    short, long_ = (a, b) if la < lb else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


@dataclass(frozen=True)
class ContactMatch:
    """A contact that probably is the same person, and why."""

    contact: Contact
    reason: str


@dataclass(frozen=True)
class AccountMatch:
    """An account that probably is the same company, and why."""

    account: Account
    reason: str


def _names_match(first_a: str, last_a: str, first_b: str, last_b: str) -> bool:
    la, lb = fold(last_a), fold(last_b)
    if not la or not edit_distance_at_most_one(la, lb):
        return False
    fa, fb = canonical_first_name(first_a), canonical_first_name(first_b)
    return bool(fa) and (fa == fb or (la == lb and edit_distance_at_most_one(fa, fb)))


def contact_candidates(
    contacts: Iterable[Contact],
    *,
    first_name: str,
    last_name: str,
    email: str | None,
    phone: str | None,
    account_id: str | None,
    exclude_id: str | None = None,
) -> list[ContactMatch]:
    """Returns live contacts that probably are the same person, in id order.

    A contact matches on the same email (primary or secondary), the same phone
    digits, or a similar name (nickname, case, accents or one typo) at the same
    account. Merged-away contacts are skipped.
    """
    email_n = norm_email(email)
    digits = phone_digits(phone)
    matches: list[ContactMatch] = []
    for c in contacts:
        if c.merged_into is not None or c.id == exclude_id:
            continue
        if email_n and email_n in (norm_email(c.email), norm_email(c.secondary_email)):
            matches.append(ContactMatch(c, "same_email"))
        elif digits and digits == phone_digits(c.phone):
            matches.append(ContactMatch(c, "same_phone"))
        elif (account_id is None or c.account_id == account_id) and _names_match(
            first_name, last_name, c.first_name, c.last_name
        ):
            matches.append(ContactMatch(c, "similar_name"))
    return matches


def account_candidates(
    accounts: Iterable[Account], *, name: str, domain: str | None, exclude_id: str | None = None
) -> list[AccountMatch]:
    """Returns accounts that probably are the same company (same normalized name or domain), in id order."""
    name_n = norm_company(name)
    domain_n = (domain or "").strip().casefold().removeprefix("www.")
    matches: list[AccountMatch] = []
    for a in accounts:
        if a.id == exclude_id:
            continue
        if domain_n and domain_n == (a.domain or "").casefold():
            matches.append(AccountMatch(a, "same_domain"))
        elif name_n and name_n == norm_company(a.name):
            matches.append(AccountMatch(a, "similar_name"))
    return matches
