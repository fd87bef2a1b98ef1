"""Quantities in words count as they do in digits when a reply multiplies a rate out."""

from __future__ import annotations

from decimal import Decimal

import pytest

from saas_sim.domains.support.reply_facts import read_facts


@pytest.mark.parametrize("text", ["I refunded two x 17.00 USD.", "I refunded 17.00 USD x two.",
                                  "I refunded 2 x 17.00 USD."])
def test_a_product_in_words_claims_its_total_as_in_digits(text: str) -> None:
    assert read_facts([text]).claimed_amounts() == [Decimal("34.00")]
