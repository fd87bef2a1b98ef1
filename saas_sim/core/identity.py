"""Real-world identity: normalized emails, phones, companies and domains, and an entity index.

Checks judge people and things as the real-world entity, never by the record ids
that were special at the start: a new contact with the same address in another
spelling is the same person. Parsing is delegated to maintained libraries
(`email-validator`, `phonenumbers`); this module only decides what "the same" means.

Every function is pure: no clock, no randomness, and every order it returns is
sorted, so results never depend on `PYTHONHASHSEED` or on input order.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import phonenumbers
from email_validator import EmailNotValidError, validate_email

from saas_sim.errors import UsageError

__all__ = [
    "IdentityIndex",
    "email_domain",
    "normalize_company",
    "normalize_email",
    "normalize_phone",
    "url_domain",
]

_LEGAL_SUFFIXES = frozenset({
    "ab", "ag", "bv", "co", "company", "corp", "corporation", "cv", "gmbh", "inc", "incorporated", "kg",
    "kgaa", "limited", "llc", "llp", "lp", "ltd", "ltda", "nv", "oy", "plc", "pte", "pty", "sa", "sarl",
    "sas", "se", "sl", "spa", "srl", "ug",
})
"""Legal-form words dropped from the end of a company name ("S.A." reads "sa" once dots are gone)."""

_LEADING_ARTICLES = frozenset({"the"})
"""Words dropped from the start of a company name ("The Acme Company" is "Acme")."""

_NON_ALNUM = re.compile(r"[^0-9a-z]+")

# The normalizers are pure functions of their text, and a grade normalizes every record of a world
# (tens of thousands of addresses on crm-enterprise): memoized, a world's records cost their parse
# once per process. The memo changes no verdict, only how often the same parse runs.
_MEMO_SIZE = 1 << 17


@functools.lru_cache(maxsize=_MEMO_SIZE)
def normalize_email(raw: str) -> str | None:
    """Returns the normalized address of `raw`, or None when it is not a valid email address.

    Syntax is checked by `email-validator` without any DNS lookup (deliverability is
    not identity, and grading must not touch the network). A display name
    (`"Jane <jane@x.com>"`) is accepted. The whole address is lowercased: the local
    part is case-sensitive only in theory, and no real provider treats it so.
    Provider tricks (`+tag`, dots in Gmail) are not folded: they are other addresses.

    Args:
        raw: An address as typed, with any surrounding whitespace.
    """
    text = raw.strip()
    if not text:
        return None
    try:
        result = validate_email(text, check_deliverability=False, allow_display_name=True)
    except EmailNotValidError:
        return None
    return result.normalized.lower()


def email_domain(raw: str) -> str | None:
    """Returns the lowercased domain of the email address `raw`, or None when `raw` is not valid."""
    email = normalize_email(raw)
    return None if email is None else email.rpartition("@")[2]


@functools.lru_cache(maxsize=_MEMO_SIZE)
def url_domain(raw: str) -> str | None:
    """Returns the host of a URL or bare domain, lowercased and without a leading "www.".

    `"https://WWW.Acme.com/about"`, `"acme.com"` and `"http://acme.com:8080"` all give
    `"acme.com"`. The host must contain a dot and no whitespace; anything else is None.
    Sub-domains other than "www" are kept: `shop.acme.com` is not folded into `acme.com`.

    Args:
        raw: A URL with or without a scheme, or a bare host name.
    """
    text = raw.strip()
    if not text or any(ch.isspace() for ch in text):
        return None
    if "://" not in text:
        # Without a scheme, urlsplit reads "acme.com/x" as a path; "//" marks a network location.
        text = "//" + text
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    if not host:
        return None
    host = host.rstrip(".").lower()
    if host.startswith("www."):
        host = host[4:]
    labels = host.split(".")
    if len(labels) < 2 or not all(labels):
        return None
    return host


@functools.lru_cache(maxsize=_MEMO_SIZE)
def normalize_phone(raw: str, region: str | None = None) -> str | None:
    """Returns the E.164 form of a phone number (`"+14155550100"`), or None when it is not one.

    Parsing is by `phonenumbers`. A number without a country code needs `region`
    (ISO 3166 alpha-2, e.g. "US"). Without a region, a leading "00" is read as the
    international prefix (`"0044 20 7946 0958"` is `+442079460958`), as it is in most
    of the world. Extensions are dropped: a desk extension is the same line.
    The test is "possible number" (length fits the country's plan), not "valid
    number": identity is about sameness, and fictional ranges such as 555 must still
    match each other.

    Args:
        raw: The number as typed.
        region: The default region for national numbers, or None.
    """
    text = raw.strip()
    if not text or not any(ch.isdigit() for ch in text):
        return None
    if region is None and text.startswith("00"):
        text = "+" + text[2:]
    try:
        number = phonenumbers.parse(text, region.upper() if region else None)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_possible_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


@functools.lru_cache(maxsize=_MEMO_SIZE)
def normalize_company(name: str) -> str:
    """Returns a comparison key for a company name.

    The name is casefolded, accents are folded (`"Müller"` -> `"muller"`), dots are
    removed (`"S.A."` -> `"sa"`), other punctuation becomes a space, a leading "the"
    and trailing legal forms (Inc, LLC, GmbH, Ltd, S.A., "GmbH & Co. KG", ...) are
    dropped, and the words are joined by single spaces. So `"ACME, Inc."`,
    `"Acme Inc"` and `"acme"` all give `"acme"`. At least one word is always kept,
    so a name that is only a legal form (`"Company"`) is not emptied.

    Args:
        name: The company name as written.
    """
    folded = unicodedata.normalize("NFKD", name.casefold())
    ascii_only = "".join(ch for ch in folded if not unicodedata.combining(ch))
    words = _NON_ALNUM.sub(" ", ascii_only.replace(".", "")).split()
    while len(words) > 1 and words[0] in _LEADING_ARTICLES:
        words.pop(0)
    while len(words) > 1 and words[-1] in _LEGAL_SUFFIXES:
        words.pop()
    return " ".join(words)


def _values(values: Iterable[str | None] | str | None) -> list[str]:
    """Returns the non-empty strings of `values`; a bare string is one value, not its characters."""
    if values is None:
        return []
    if isinstance(values, str):
        return [values]
    return [v for v in values if v]


@dataclass(frozen=True, slots=True)
class IdentityIndex:
    """Records grouped into real-world entities by shared normalized emails and phones.

    Two records are the same entity when they share any normalized email or phone,
    transitively: if A shares an email with B and B a phone with C, then A, B and C
    are one entity. An entity's key is the smallest of its record ids (string order),
    so it is the same whatever the order of the input. Build it with `IdentityIndex.of`.
    """

    _entity_of_record: dict[str, str]
    _records_of_entity: dict[str, tuple[str, ...]]
    _entity_of_email: dict[str, str]
    _entity_of_phone: dict[str, str]
    _region: str | None

    @classmethod
    def of(
        cls,
        records: Iterable[tuple[str, Iterable[str | None] | str | None, Iterable[str | None] | str | None]],
        region: str | None = None,
    ) -> IdentityIndex:
        """Builds the index.

        Args:
            records: `(record_id, emails, phones)` triples. Invalid emails and phones are
                ignored (they identify nobody). A record id given twice is one record
                with the union of its values. A bare string counts as one value.
            region: The default region for phones written without a country code.
        """
        parent: dict[str, str] = {}

        def find(node: str) -> str:
            root = node
            while parent[root] != root:
                root = parent[root]
            while parent[node] != root:  # path compression keeps later finds O(1)
                parent[node], node = root, parent[node]
            return root

        def union(a: str, b: str) -> None:
            ra, rb = find(a), find(b)
            if ra != rb:
                # The smaller root wins, so the structure (and the keys) ignore input order.
                parent[max(ra, rb)] = min(ra, rb)

        emails_of: dict[str, set[str]] = {}
        phones_of: dict[str, set[str]] = {}
        for record_id, emails, phones in records:
            node = "r:" + record_id
            parent.setdefault(node, node)
            found_emails = {e for e in map(normalize_email, _values(emails)) if e}
            found_phones = {p for p in (normalize_phone(p, region) for p in _values(phones)) if p}
            emails_of.setdefault(record_id, set()).update(found_emails)
            phones_of.setdefault(record_id, set()).update(found_phones)
            for key in sorted({"e:" + e for e in found_emails} | {"p:" + p for p in found_phones}):
                parent.setdefault(key, key)
                union(node, key)

        members: dict[str, list[str]] = {}
        for record_id in sorted(emails_of):
            members.setdefault(find("r:" + record_id), []).append(record_id)
        entity_of_record: dict[str, str] = {}
        records_of_entity: dict[str, tuple[str, ...]] = {}
        root_key: dict[str, str] = {}
        for root, ids in members.items():
            key = ids[0]  # sorted above: the smallest record id names the entity
            root_key[root] = key
            records_of_entity[key] = tuple(ids)
            for record_id in ids:
                entity_of_record[record_id] = key
        entity_of_email = {e: root_key[find("e:" + e)] for ids in emails_of.values() for e in ids}
        entity_of_phone = {p: root_key[find("p:" + p)] for ids in phones_of.values() for p in ids}
        return cls(entity_of_record, records_of_entity, entity_of_email, entity_of_phone, region)

    def entity(self, record_id: str) -> str:
        """Returns the entity key of `record_id`.

        Raises:
            UsageError: `record_id` was not given to `of` (a bug in the calling check).
        """
        try:
            return self._entity_of_record[record_id]
        except KeyError:
            raise UsageError(f"record {record_id!r} is not in this identity index") from None

    def records(self, entity_key: str) -> tuple[str, ...]:
        """Returns the sorted record ids of an entity.

        Raises:
            UsageError: `entity_key` is not an entity key of this index.
        """
        try:
            return self._records_of_entity[entity_key]
        except KeyError:
            raise UsageError(f"{entity_key!r} is not an entity key of this identity index") from None

    def entities(self) -> tuple[str, ...]:
        """Returns every entity key, sorted."""
        return tuple(sorted(self._records_of_entity))

    def same(self, record_a: str, record_b: str) -> bool:
        """Returns whether two records are the same real-world entity."""
        return self.entity(record_a) == self.entity(record_b)

    def entity_of_email(self, raw: str) -> str | None:
        """Returns the entity that has the address `raw` (in any spelling), or None."""
        email = normalize_email(raw)
        return None if email is None else self._entity_of_email.get(email)

    def entity_of_phone(self, raw: str) -> str | None:
        """Returns the entity that has the phone `raw` (in any format), or None.

        The index's region is the default for a national number.
        """
        phone = normalize_phone(raw, self._region)
        return None if phone is None else self._entity_of_phone.get(phone)
