"""The words for one and two are numbers where they count something, never as pronouns, articles or idioms."""

from __future__ import annotations

from decimal import Decimal

import pytest

from saas_sim.core.text_facts import extract_amounts, extract_numbers, numbers_as_digits


@pytest.mark.parametrize(("text", "lang", "numbers"), [
    ("I've sent two new Trail Backpack 28L to replace the damaged ones.", "en", [2]),
    ("I've sent one replacement unit.", "en", [1]),
    ("I replaced two of the lamps.", "en", [2]),
    ("Only one was broken.", "en", [1]),
    ("Ich habe zwei neue Rucksäcke geschickt.", "de", [2]),
    ("Es war nur ein Artikel beschädigt, Sie erhalten eine Einheit.", "de", [1, 1]),
    ("Le enviamos dos mochilas nuevas y una unidad de reemplazo.", "es", [2, 1]),
    ("Je vous ai envoyé deux sacs et une unité.", "fr", [2, 1]),
    ("Je n'ai remplacé qu'un article.", "fr", [1]),
])
def test_one_and_two_in_words_are_read_where_they_count(text: str, lang: str, numbers: list[int]) -> None:
    assert extract_numbers(text, lang) == [Decimal(n) for n in numbers]


@pytest.mark.parametrize(("text", "lang"), [
    ("One of our team will call you.", "en"),
    ("No one has looked yet, but the one you ordered is fine.", "en"),
    ("Someone or anyone can answer; one moment please, and one quick note.", "en"),
    ("One more thing: one day we'll fix it one by one.", "en"),
    ("It takes one or two days.", "en"),
    ("Enable two-factor login; just my two cents.", "en"),
    ("The two are on their way.", "en"),
    ("I found two USD invoices.", "en"),
    ("We did not charge you one euro extra, not one cent.", "en"),
    ("Ich habe Ihnen einen Ersatz geschickt, ein Kollege meldet sich.", "de"),
    ("Uno de nuestros compañeros le escribirá sobre un reembolso.", "es"),
    ("Un de nos collègues vous écrira au sujet d'un remboursement.", "fr"),
])
def test_one_and_two_as_pronouns_articles_or_idioms_are_no_numbers(text: str, lang: str) -> None:
    assert extract_numbers(text, lang) == []


def test_the_affirmed_text_reads_counts_as_digits() -> None:
    assert numbers_as_digits("press it two times", "en") == "press it 2 times"


def test_money_in_words_is_an_amount_and_a_count_before_a_figure_is_not() -> None:
    assert extract_amounts("It cost two dollars.", "en") == [Decimal(2)]
    assert extract_amounts("I refunded two $25 items.", "en") == [Decimal(25)]
    assert extract_amounts("I refunded 2 $25 items.", "en") == [Decimal(25)]
    assert extract_amounts("25 € 30 €", "fr") == [Decimal(25), Decimal(30)]



@pytest.mark.parametrize(("text", "lang", "numbers"), [
    ("I've sent you a new Trail Backpack 28L.", "en", [1]),
    ("A brand-new lamp is on its way to you.", "en", [1]),
    ("Ich habe Ihnen einen neuen Rucksack geschickt.", "de", [1]),
    ("Ein neuer Rucksack ist unterwegs.", "de", [1]),
    ("Le hemos enviado una mochila nueva.", "es", [1]),
    ("Le enviamos un nuevo artículo.", "es", [1]),
    ("Je vous ai envoyé un sac à dos neuf.", "fr", [1]),
    ("Un nouveau sac vous a été expédié.", "fr", [1]),
    ("Sie bekommen ein neues Gerät.", "de", [1]),
    ("You will receive a new lamp this week.", "en", [1]),
])
def test_a_new_thing_sent_counts_one(text: str, lang: str, numbers: list[int]) -> None:
    assert extract_numbers(text, lang) == [Decimal(n) for n in numbers]


@pytest.mark.parametrize(("text", "lang"), [
    ("I opened a new ticket for you, a colleague will answer.", "en"),
    ("A replacement is a good idea.", "en"),
    ("Nous avons ouvert un nouveau dossier.", "fr"),
    ("Abrimos un nuevo caso para usted.", "es"),
    ("Wir haben einen neuen Vorgang angelegt.", "de"),
    ("Votre sac à dos neuf est très joli.", "fr"),
    ("L'appareil a été remis à neuf. Quoi de neuf ?", "fr"),
    ("Lassen Sie das außer Acht und nehmen Sie sich in Acht.", "de"),
])
def test_a_new_thing_not_sent_and_words_that_look_like_numbers_are_no_numbers(text: str, lang: str) -> None:
    assert extract_numbers(text, lang) == []


@pytest.mark.parametrize(("text", "lang", "numbers"), [
    ("Je vous ai envoyé neuf sacs.", "fr", [9]),
    ("Les neuf articles coûtent neuf €.", "fr", [9, 9]),
    ("Il y a neuf jours, dix-neuf articles, neuf mille euros.", "fr", [9, 19, 9000]),
    ("Ich habe acht Stück und neun Rucksäcke geschickt.", "de", [8, 9]),
    ("Le enviamos nueve mochilas.", "es", [9]),
])
def test_the_numbers_those_words_look_like_still_count(text: str, lang: str, numbers: list[int]) -> None:
    assert extract_numbers(text, lang) == [Decimal(n) for n in numbers]
