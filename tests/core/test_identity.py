"""Identity: people and companies are judged as real-world entities, not record ids."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.identity import (
    IdentityIndex,
    email_domain,
    normalize_company,
    normalize_email,
    normalize_phone,
    url_domain,
)
from saas_sim.errors import UsageError


class TestNormalizeEmail:
    @pytest.mark.parametrize("raw", ["John.Doe@Example.COM ", " john.doe@example.com", "JOHN.DOE@EXAMPLE.COM",
                                     "John Doe <John.Doe@example.com>"])
    def test_spellings_of_one_address_normalize_alike(self, raw: str) -> None:
        assert normalize_email(raw) == "john.doe@example.com"

    @pytest.mark.parametrize("raw", ["", "   ", "john", "john@", "@example.com", "john@@example.com",
                                     "john doe@example.com", "john@example", "john@exa mple.com", "john@.com",
                                     "john..doe@example.com"])
    def test_invalid_addresses_are_none(self, raw: str) -> None:
        assert normalize_email(raw) is None

    def test_plus_tags_are_other_addresses(self) -> None:
        assert normalize_email("john+crm@example.com") == "john+crm@example.com"
        assert normalize_email("john+crm@example.com") != normalize_email("john@example.com")

    def test_email_domain_is_lowercased_and_none_for_invalid(self) -> None:
        assert email_domain("X@Acme.COM") == "acme.com"
        assert email_domain("not an email") is None


class TestNormalizePhone:
    @pytest.mark.parametrize(("raw", "region"), [("+1 (415) 555-0100", None), ("415.555.0100", "US"),
                                                 ("(415) 555-0100", "US"), ("+14155550100", None),
                                                 ("+1 415-555-0100 ext. 12", None), ("415-555-0100", "us")])
    def test_us_formats_give_one_e164(self, raw: str, region: str | None) -> None:
        assert normalize_phone(raw, region) == "+14155550100"

    @pytest.mark.parametrize(("raw", "region"), [("0044 20 7946 0958", None), ("+44 20 7946 0958", None),
                                                 ("020 7946 0958", "GB"), ("0044 20 7946 0958", "GB")])
    def test_uk_formats_give_one_e164(self, raw: str, region: str | None) -> None:
        assert normalize_phone(raw, region) == "+442079460958"

    def test_a_national_number_without_region_is_none(self) -> None:
        assert normalize_phone("415.555.0100") is None

    @pytest.mark.parametrize("raw", ["", "junk", "call me", "12", "+1 415", "+999 123", "++--"])
    def test_junk_is_none(self, raw: str) -> None:
        assert normalize_phone(raw, "US") is None

    @settings(max_examples=200, deadline=None)
    @given(st.text(max_size=40))
    def test_never_raises_on_any_text(self, raw: str) -> None:
        result = normalize_phone(raw, "US")
        assert result is None or (result.startswith("+") and result[1:].isdigit())


class TestNormalizeCompany:
    @pytest.mark.parametrize("name", ["ACME, Inc.", "Acme Inc", "acme", "Acme LLC", "The Acme Company", "ACME Ltd.",
                                      "Acme Corp.", " acme  inc "])
    def test_legal_forms_case_and_punctuation_do_not_matter(self, name: str) -> None:
        assert normalize_company(name) == "acme"

    @pytest.mark.parametrize("name", ["Müller GmbH", "Muller", "MÜLLER", "Müller GmbH & Co. KG", "Muller S.A."])
    def test_accents_and_german_or_spanish_forms_fold(self, name: str) -> None:
        assert normalize_company(name) == "muller"

    def test_distinct_companies_stay_distinct(self) -> None:
        assert normalize_company("Acme Inc") != normalize_company("Acme Labs Inc")
        assert normalize_company("Globex") != normalize_company("Initech")

    def test_a_name_that_is_only_a_legal_form_is_kept(self) -> None:
        assert normalize_company("Company") == "company"
        assert normalize_company("") == ""

    @settings(max_examples=200, deadline=None)
    @given(st.text(max_size=30))
    def test_is_idempotent(self, name: str) -> None:
        once = normalize_company(name)
        assert normalize_company(once) == once


class TestUrlDomain:
    @pytest.mark.parametrize("raw", ["https://WWW.Acme.com/about", "acme.com", "http://acme.com:8080/x?y=1",
                                     "www.acme.com", "ACME.COM."])
    def test_hosts_normalize_alike(self, raw: str) -> None:
        assert url_domain(raw) == "acme.com"

    def test_subdomains_other_than_www_are_kept(self) -> None:
        assert url_domain("https://shop.acme.com") == "shop.acme.com"

    @pytest.mark.parametrize("raw", ["", "acme", "http://", "a b.com", "https://acme..com", "http://[::1"])
    def test_non_hosts_are_none(self, raw: str) -> None:
        assert url_domain(raw) is None


class TestIdentityIndex:
    RECORDS = (
        ("ct_000003", ["carol@example.com"], ["+1 415 555 0199"]),
        ("ct_000001", ["Alice@Example.com"], []),
        ("ct_000002", ["alice@example.com "], ["(415) 555-0199"]),
        ("ct_000004", ["dave@example.com"], ["not a phone"]),
        ("ct_000005", [], []),
    )

    def test_shared_email_then_shared_phone_merge_transitively(self) -> None:
        index = IdentityIndex.of(self.RECORDS, region="US")
        key = index.entity("ct_000001")
        assert index.entity("ct_000002") == key
        assert index.entity("ct_000003") == key
        assert index.records(key) == ("ct_000001", "ct_000002", "ct_000003")
        assert index.same("ct_000001", "ct_000003")

    def test_unrelated_records_are_their_own_entities(self) -> None:
        index = IdentityIndex.of(self.RECORDS, region="US")
        assert index.entity("ct_000004") == "ct_000004"
        assert index.entity("ct_000005") == "ct_000005"
        assert not index.same("ct_000001", "ct_000004")
        assert index.entities() == ("ct_000001", "ct_000004", "ct_000005")

    def test_lookups_by_any_spelling_of_an_email_or_phone(self) -> None:
        index = IdentityIndex.of(self.RECORDS, region="US")
        assert index.entity_of_email("CAROL@example.COM") == "ct_000001"
        assert index.entity_of_phone("415.555.0199") == "ct_000001"
        assert index.entity_of_email("nobody@example.com") is None
        assert index.entity_of_email("not an email") is None
        assert index.entity_of_phone("not a phone") is None

    def test_a_bare_string_is_one_value_and_none_values_are_skipped(self) -> None:
        index = IdentityIndex.of([("a", "x@example.com", None), ("b", [None, "X@example.com"], [None])])
        assert index.same("a", "b")

    def test_a_record_id_given_twice_is_one_record(self) -> None:
        index = IdentityIndex.of([("a", ["x@example.com"], []), ("b", ["y@example.com"], []),
                                  ("a", ["y@example.com"], [])])
        assert index.records(index.entity("b")) == ("a", "b")

    def test_unknown_record_or_key_is_a_usage_error(self) -> None:
        index = IdentityIndex.of(self.RECORDS, region="US")
        with pytest.raises(UsageError):
            index.entity("ct_999999")
        with pytest.raises(UsageError):
            index.records("ct_000002")  # a member, not the entity key

    @settings(max_examples=100, deadline=None)
    @given(st.permutations(RECORDS))
    def test_keys_do_not_depend_on_input_order(self, records: list[tuple[str, list[str], list[str]]]) -> None:
        reference = IdentityIndex.of(self.RECORDS, region="US")
        index = IdentityIndex.of(records, region="US")
        assert index == reference
        for record_id, _, _ in self.RECORDS:
            assert index.entity(record_id) == reference.entity(record_id)

    @settings(max_examples=100, deadline=None)
    @given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 4), st.integers(0, 4)), max_size=25))
    def test_entities_are_the_connected_components_of_shared_values(
        self, rows: list[tuple[int, int, int]]
    ) -> None:
        records = [(f"r{i:02d}", [f"u{e}@example.com"], [f"+1 415 555 01{p:02d}"]) for i, e, p in rows]
        index = IdentityIndex.of(records)
        # Brute force: merge records sharing an email or phone until nothing changes.
        groups = [{rid} for rid in sorted({r for r, _, _ in records})]
        values = {rid: set() for rid, _, _ in records}
        for rid, emails, phones in records:
            values[rid] |= {*emails, *phones}
        merged = True
        while merged:
            merged = False
            for a in range(len(groups)):
                for b in range(a + 1, len(groups)):
                    va = set().union(*(values[r] for r in groups[a]))
                    vb = set().union(*(values[r] for r in groups[b]))
                    if va & vb:
                        groups[a] |= groups.pop(b)
                        merged = True
                        break
                if merged:
                    break
        for group in groups:
            assert index.records(min(group)) == tuple(sorted(group))
