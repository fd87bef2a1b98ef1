"""Text facts: replies are judged by what they state, whatever the wording or language."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import babel.numbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.text_facts import (
    LANGUAGES,
    MAX_FACT,
    date_mentions,
    detect_language,
    extract_amounts,
    extract_codes,
    extract_dates,
    extract_numbers,
    language_confidences,
    language_shares,
    located_amounts,
    negated,
    normalize_code,
    numbers_as_digits,
    sentences,
    without_figures,
)
from saas_sim.errors import UsageError

D = Decimal


class TestExtractAmounts:
    @pytest.mark.parametrize(("text", "lang", "amount"), [
        ("$25", None, "25"), ("25.00", None, "25"), ("25 USD", None, "25"), ("USD 25", "en", "25"),
        ("€25,50", None, "25.50"), ("25,50 €", None, "25.50"), ("1.234,50 €", "de", "1234.50"),
        ("1,234.50", "en", "1234.50"), ("1 234,50 €", "fr", "1234.50"), ("1\u202f234,50\u00a0€", "fr", "1234.50"),
        ("twenty-five dollars", "en", "25"), ("twenty five dollars", "en", "25"), ("vingt-cinq euros", "fr", "25"),
        ("fünfundzwanzig Euro", "de", "25"), ("veinticinco euros", "es", "25"), ("vinte e cinco euros", "pt", "25"),
        ("venticinque euro", "it", "25"), ("vijfentwintig euro", "nl", "25"), ("five dollars", "en", "5"),
        ("25EUR", None, "25"), ("50 cents", "en", "0.50"), ("25 dollars and 50 cents", "en", "25.50"),
    ])
    def test_reads_each_written_form(self, text: str, lang: str | None, amount: str) -> None:
        assert extract_amounts(text, lang) == [D(amount)]

    def test_reads_amounts_inside_a_sentence_in_order(self) -> None:
        text = "We refunded $25.00 today and will credit another 10 USD, total 35 dollars."
        assert extract_amounts(text, "en") == [D("25"), D("10"), D("35")]

    def test_number_words_are_read_in_the_detected_language_without_lang(self) -> None:
        assert extract_amounts("Wir haben Ihnen fünfundzwanzig Euro erstattet.") == [D("25")]
        assert extract_amounts("Nous vous avons remboursé vingt-cinq euros.") == [D("25")]

    def test_repeated_amounts_are_each_listed(self) -> None:
        assert extract_amounts("25 € now, 25 € later", "de") == [D("25"), D("25")]

    @pytest.mark.parametrize("text", [
        "order #10023", "your order #10023 is on its way", "Bestellung Nr. 10023", "commande n° 10023",
        "ORD-10023", "ticket tkt_000017", "order ORD10023", "in 3 days", "the 3rd time",
        "on 2026-03-04", "on 03/04/2026", "on March 3, 2026", "at 10:30", "24/7 support", "50% off",
        "call +1 415 555 0100", "version 1.2.3",
    ])
    def test_ids_dates_and_bare_counts_are_not_amounts(self, text: str) -> None:
        assert extract_amounts(text, "en") == []

    def test_a_currency_code_must_be_a_whole_word(self) -> None:
        assert extract_amounts("Ref XEUR 25 and EUR 30", "en") == [D("30")]

    def test_an_id_next_to_a_real_amount_only_yields_the_amount(self) -> None:
        assert extract_amounts("Order #10023: refund of $25.50 for ORD-10024.", "en") == [D("25.50")]

    @pytest.mark.parametrize(("text", "lang", "amount"), [
        ("1.234 €", None, "1234"), ("1,234 €", None, "1234"), ("1.234 €", "de", "1234"),
        ("$1.234", "en", "1.234"), ("1,234 €", "de", "1.234"), ("1.234.567,89 €", "de", "1234567.89"),
    ])
    def test_a_single_separator_before_three_digits_follows_the_locale(
        self, text: str, lang: str | None, amount: str
    ) -> None:
        assert extract_amounts(text, lang) == [D(amount)]

    @pytest.mark.parametrize("text", ["1.2.3 €", "1,23,45 €", "12.34.56 €"])
    def test_malformed_grouping_is_not_a_number(self, text: str) -> None:
        assert extract_amounts(text, "en") == []

    @settings(max_examples=150, deadline=None)
    @given(st.decimals(min_value=0, max_value=10_000_000, places=2, allow_nan=False, allow_infinity=False),
           st.sampled_from(LANGUAGES), st.sampled_from(["EUR", "USD"]))
    def test_reads_babel_formatted_currency_in_every_language(self, value: Decimal, lang: str, currency: str) -> None:
        text = babel.numbers.format_currency(value, currency, locale=lang)
        assert extract_amounts(f"Total: {text}.", lang) == [value]

    @settings(max_examples=300, deadline=None)
    @given(st.text(max_size=80), st.sampled_from([None, *LANGUAGES]))
    def test_never_raises_on_any_text(self, text: str, lang: str | None) -> None:
        assert all(isinstance(a, Decimal) for a in extract_amounts(text, lang))
        assert all(isinstance(n, Decimal) for n in extract_numbers(text, lang))


class TestExtractNumbers:
    def test_reads_digits_and_number_words(self) -> None:
        assert extract_numbers("Order #10023 ships in 3 days, twenty-five items.", "en") == [
            D("10023"), D("3"), D("25")]

    def test_skips_ids_dates_and_times(self) -> None:
        assert extract_numbers("ORD-10023 on 2026-03-04 at 10:30, the 3rd box", "en") == []


class TestExtractCodes:
    def test_finds_and_normalizes_ids_in_order_without_duplicates(self) -> None:
        text = "Orders ord-10023, ORD_10024 and ORD 10023 again."
        assert extract_codes(text, r"ORD[-_ ]?\d{5}") == ["ORD10023", "ORD10024"]

    def test_a_match_inside_a_longer_token_is_ignored(self) -> None:
        assert extract_codes("ORD-100234 and XORD-10023", r"ORD-\d{5}") == []

    def test_numbers_of_ids_are_found_that_amounts_skip(self) -> None:
        text = "Refund for ORD-10023"
        assert extract_amounts(text, "en") == []
        assert extract_codes(text, r"ORD-\d+") == [normalize_code("ORD-10023")]

    def test_normalize_code_keeps_leading_zeros(self) -> None:
        assert normalize_code("tkt_000017") == "TKT000017"
        assert normalize_code("tkt 17") != normalize_code("tkt_000017")

    def test_an_invalid_pattern_is_a_usage_error(self) -> None:
        with pytest.raises(UsageError):
            extract_codes("x", "ORD-(")


class TestExtractDates:
    @pytest.mark.parametrize(("text", "lang"), [
        ("2026-03-03", None), ("March 3, 2026", "en"), ("3 March 2026", "en"), ("Mar 3rd, 2026", "en"),
        ("3. März 2026", "de"), ("3 mars 2026", "fr"), ("3 de marzo de 2026", "es"), ("3 de março de 2026", "pt"),
        ("3 marzo 2026", "it"), ("3 maart 2026", "nl"), ("03.03.2026", None), ("3 MARCH 2026", None),
    ])
    def test_reads_each_written_form(self, text: str, lang: str | None) -> None:
        assert extract_dates(f"We ship on {text}.", lang) == [date(2026, 3, 3)]

    def test_numeric_slash_dates_are_month_first_only_in_english(self) -> None:
        assert extract_dates("03/04/2026", "en") == [date(2026, 3, 4)]
        assert extract_dates("03/04/2026", "de") == [date(2026, 4, 3)]
        assert extract_dates("03/04/2026") == [date(2026, 4, 3)]
        assert extract_dates("03.04.2026", "en") == [date(2026, 4, 3)]

    def test_a_part_above_twelve_is_the_day(self) -> None:
        assert extract_dates("25/03/2026", "en") == [date(2026, 3, 25)]
        assert extract_dates("03/25/2026", "de") == [date(2026, 3, 25)]

    def test_impossible_and_yearless_dates_are_not_read(self) -> None:
        assert extract_dates("February 30, 2026 or March 3", "en") == []

    def test_dates_come_in_order_of_appearance(self) -> None:
        text = "Ordered 2026-01-02, shipped 5 January 2026, due 1er février 2026."
        assert extract_dates(text) == [date(2026, 1, 2), date(2026, 1, 5), date(2026, 2, 1)]


class TestSentences:
    def test_splits_on_end_punctuation_and_line_breaks(self) -> None:
        assert sentences("Hi Maria. Your refund is done! Anything else?\nBest,\nAlex") == [
            "Hi Maria.", "Your refund is done!", "Anything else?", "Best,", "Alex"]

    def test_abbreviations_decimals_and_day_numbers_do_not_split(self) -> None:
        text = "Ihre Bestellung Nr. 10023 kommt am 3. März 2026. Sie kostet 25.50 €, z. B. heute."
        assert sentences(text, "de") == ["Ihre Bestellung Nr. 10023 kommt am 3. März 2026.",
                                         "Sie kostet 25.50 €, z. B. heute."]

    def test_empty_text_has_no_sentences(self) -> None:
        assert sentences("  \n ") == []


class TestDetectLanguage:
    @pytest.mark.parametrize(("text", "lang"), [
        ("Ihre Rückerstattung wurde veranlasst.", "de"), ("Votre remboursement a été effectué.", "fr"),
        ("Your refund is done.", "en"), ("Il rimborso è stato effettuato.", "it"),
        ("O seu reembolso foi processado.", "pt"), ("Hemos procesado su devolución.", "es"),
        ("Uw terugbetaling is verwerkt.", "nl"), ("Thanks for your patience.", "en"),
        ("Hello Maria, your refund of 25 EUR is done. Grüße, Alex", "en"),
    ])
    def test_short_native_replies_are_read_in_their_language(self, text: str, lang: str) -> None:
        assert detect_language(text) == lang

    def test_appended_foreign_stopwords_do_not_change_the_language(self) -> None:
        assert detect_language("Your refund is done. und der die das") == "en"
        assert detect_language("Ihre Rückerstattung wurde veranlasst. the and of") == "de"

    def test_a_reply_mostly_in_one_language_is_that_language(self) -> None:
        text = "Hi. Ihre Rückerstattung über 25 € wurde heute veranlasst und ist in drei Tagen auf Ihrem Konto."
        assert detect_language(text) == "de"
        shares = language_shares(text)
        assert list(shares) == sorted(shares)
        assert shares["de"] > 0.8

    def test_figures_are_removed_before_reading_words(self) -> None:
        assert without_figures("Refund: 58.00 EUR. Order #100481, $25 (ORD-10023).").split() == [
            "Refund:", ".", "Order"]

    def test_confidences_show_how_close_a_short_text_is_to_english(self) -> None:
        english = language_confidences("Refund of 58.00 EUR on order 100481 done.")
        german = language_confidences("Ich habe 58,00 EUR für Bestellung 100481 erstattet.")
        assert english["de"] < 2 * english["en"] and german["de"] > 100 * german["en"]
        assert list(english) == sorted(english) and abs(sum(english.values()) - 1.0) < 1e-6
        assert language_confidences("58,00 € #100481") == {}

    @pytest.mark.parametrize("text", ["", "   ", "ok", "25 €", "!!!", "ORD-10023"])
    def test_too_little_text_is_none(self, text: str) -> None:
        assert detect_language(text) is None

    @settings(max_examples=100, deadline=None)
    @given(st.text(max_size=60))
    def test_answers_a_known_code_or_none_on_any_text(self, text: str) -> None:
        assert detect_language(text) in {None, *LANGUAGES}


class TestNegated:
    @pytest.mark.parametrize(("sentence", "lang"), [
        ("This order isn't refundable.", "en"), ("We can't refund it.", "en"), ("It won't be refunded.", "en"),
        ("We can\u2019t refund it.", "en"), ("We cannot refund it.", "en"), ("This is not refundable.", "en"),
        ("No refund is possible.", "en"), ("Ce n'est pas remboursable.", "fr"),
        ("Il n\u2019y a jamais de frais.", "fr"),
        ("Es gibt keine Erstattung.", "de"), ("Das ist kein Problem.", "de"), ("Das geht nicht.", "de"),
        ("No es reembolsable.", "es"), ("Nunca cobramos.", "es"), ("Não é reembolsável.", "pt"),
        ("Non è rimborsabile.", "it"), ("Dit is niet terugbetaalbaar.", "nl"), ("Geen terugbetaling.", "nl"),
        ("This isn't refundable.", None), ("Das geht nicht.", None),
    ])
    def test_negation_cues_are_found(self, sentence: str, lang: str | None) -> None:
        assert negated(sentence, lang)

    @pytest.mark.parametrize(("sentence", "lang"), [
        ("This order is refundable.", "en"), ("Your refund is done.", "en"), ("Ce produit est remboursable.", "fr"),
        ("Die Erstattung ist erfolgt.", "de"), ("Es reembolsable.", "es"), ("É reembolsável.", "pt"),
        ("È rimborsabile.", "it"), ("Dit is terugbetaalbaar.", "nl"), ("Knowledge is power.", "en"),
        ("Nothingness", "en"), ("Order No. 10023 is refundable.", "en"), ("Processed without delay.", "en"),
    ])
    def test_affirmative_sentences_are_not_negated(self, sentence: str, lang: str | None) -> None:
        assert not negated(sentence, lang)

    @pytest.mark.parametrize("sentence", [
        # A whole reply read as Spanish (a Spanish company name leads it), its clause in English.
        "aparicio y asociados s.com.: the customer does not threaten to cancel.",
        "Aparicio y Asociados S.Com. customer does not threaten to cancel",
        "Aparicio y Asociados: the customer doesn't want to cancel.",
        "the refund was never issued, lo siento",
    ])
    def test_a_negation_in_another_language_than_the_replys_still_negates(self, sentence: str) -> None:
        assert negated(sentence, "es")

    @pytest.mark.parametrize(("sentence", "lang"), [
        # Another language's cue that is an everyday word here: Dutch "noch" is German "still", Italian "mai"
        # is the month in German and French; a Vietnamese name is no Italian "never".
        ("Ich habe Ihnen noch heute 20 Euro erstattet.", "de"), ("Wir liefern im Mai.", "de"),
        ("Le colis arrive le 5 mai.", "fr"), ("Call Mai Nguyen about the renewal.", "en"),
        ("Lo siento, the refund is done.", "es"),
    ])
    def test_another_languages_cue_read_as_this_language_negates_nothing(self, sentence: str, lang: str) -> None:
        assert not negated(sentence, lang)


def test_a_name_with_accents_does_not_change_the_language_of_an_english_sentence() -> None:
    # lingua alone reads this sentence as Dutch because of the name; with "Anna" it reads English.
    text = "Dear Noémi, thank you for telling us, and I am sorry for the trouble your team has had."
    assert detect_language(text) == "en"
    assert language_shares(text) == {"en": 1.0}


def test_masking_names_keeps_german_nouns_german_and_short_sentences_whole() -> None:
    assert detect_language("Hallo Herr Müller, Ihre Rückerstattung über 25,00 € ist unterwegs.") == "de"
    assert detect_language("Ich habe die Bestellung geprüft und die Erstattung veranlasst.") == "de"
    assert detect_language("Hola Begoña, hemos reembolsado su pedido hoy.") == "es"


@given(st.integers(16, 600), st.sampled_from(["$", "USD ", "€", ""]), st.sampled_from(["", ".00", ",50"]))
@settings(max_examples=60, deadline=None)
def test_a_number_of_any_length_reads_as_at_most_the_bound_so_checks_can_do_arithmetic_on_it(
        digits: int, currency: str, cents: str) -> None:
    # A reply can state a number of any length; a check that quantized a 27-digit one to cents raised
    # decimal.InvalidOperation, and the episode's grade became a verifier error the agent had caused.
    text = f"I refunded {currency}{'9' * digits}{cents} to you."
    stated = extract_amounts(text, "en") + extract_numbers(text, "en")
    assert stated and all(v == MAX_FACT for v in stated)
    assert all(v.quantize(Decimal("0.01")) + v * 100 > 0 for v in stated)



@pytest.mark.parametrize(("text", "lang", "amounts"), [
    ("The tax rate is 7.25% of 196.38 USD.", "en", [Decimal("196.38")]),
    ("7.25 percent tax", "en", []),
    ("12,50 % Rabatt auf 80,00 €", "de", [Decimal("80.00")]),
    ("a fee of $7.25% is odd", "en", [Decimal("7.25")]),  # a currency marker still makes it money
])
def test_a_rate_is_never_an_amount(text: str, lang: str, amounts: list[Decimal]) -> None:
    assert extract_amounts(text, lang) == amounts


@pytest.mark.parametrize(("text", "lang", "amounts"), [
    ("a budget of 101.5 thousand euros", "en", [Decimal("101500")]),
    ("1.2 million euros", "en", [Decimal("1200000")]),
    ("ein Budget von 1,2 Millionen Euro", "de", [Decimal("1200000")]),
    ("the budget of EUR 45k", "en", [Decimal("45000")]),
    ("$45K and 2.5k USD", "en", [Decimal("45000"), Decimal("2500")]),
    ("EUR 1.2m, or 3bn USD", "en", [Decimal("1200000"), Decimal("3000000000")]),
    ("forty-five thousand euros", "en", [Decimal("45000")]),
])
def test_a_scaled_number_is_one_number(text: str, lang: str, amounts: list[Decimal]) -> None:
    # "101.5 thousand" read as 101.5 and 1000, and "45k" as no number at all: a true figure was false,
    # a false one unread.
    assert extract_amounts(text, lang) == amounts


def test_a_glued_m_without_a_currency_stays_a_unit() -> None:
    assert extract_numbers("keep it within 6m of the device, then 6 m more", "en") == [Decimal("6")]
    assert numbers_as_digits("within 6m", "en") == "within 6m"


@pytest.mark.parametrize("digits", [1, 20, 40])
def test_a_scaled_number_of_any_length_is_bounded(digits: int) -> None:
    assert extract_amounts(f"{'9' * digits}.5 million USD and ${'9' * digits}k", "en")[-1] <= MAX_FACT


THURSDAY = date(2026, 3, 5)


@pytest.mark.parametrize(("text", "dates"), [
    ("I will call on 9 March at 11:00", [date(2026, 3, 9)]),
    ("on March 9th, or the 6th of March", [date(2026, 3, 9), date(2026, 3, 6)]),
    ("we met on 28 December", [date(2025, 12, 28)]),  # the nearest: last year's
    ("on Friday, March 6", [date(2026, 3, 6)]),  # the weekday names the date after it
    ("on Thursday", [date(2026, 3, 12)]),  # a week ahead on that very day
    ("tomorrow, or the day after tomorrow", [date(2026, 3, 6), date(2026, 3, 7)]),
    ("in May I call", []),
])
def test_dates_without_a_year_are_placed_by_today(text: str, dates: list[date]) -> None:
    assert extract_dates(text, "en", today=THURSDAY) == dates


def test_without_today_a_date_needs_its_year() -> None:
    assert extract_dates("on 9 March, on Friday, tomorrow", "en") == []


def test_a_weekday_reads_as_the_next_one_or_the_last_one() -> None:
    assert date_mentions("we spoke on Monday", "en", today=THURSDAY) == [(date(2026, 3, 9), date(2026, 3, 2))]


def test_located_amounts_place_each_amount_with_its_currency_marks() -> None:
    text, found = located_amounts("dl_000171: $35,500.00; the rest 1.50 EUR, then twelve dollars")
    assert [m.value for m in found] == [Decimal("35500.00"), Decimal("1.50"), Decimal("12")]
    assert [text[m.start:m.end] for m in found] == ["$35,500.00", "1.50 EUR", "12 dollars"]
