"""Properties of support tasks that tests find their seeds by (`tests.domains.helpers.find_seed`), and the words
to write a reply about a task's own product and counts with, so no test pins a seed to a product or a count (a
version bump re-seeds every task)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from saas_sim.domains.support.state import ORDERS
from saas_sim.runtime.task import TaskInstance

WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
"""Small numbers as English words, by value."""


def one_unit_of(min_quantity: int, language: str | None = None) -> Callable[[TaskInstance], bool]:
    """Fits a refund task (`line`, `amount`) whose refund is one unit of a line of at least `min_quantity` units,
    whose customer writes `language` if given."""
    def fits(task: TaskInstance) -> bool:
        b = task.bindings
        return (int(b["line"]["quantity"]) >= min_quantity and Decimal(str(b["amount"])) == Decimal(
            str(b["line"]["unit_price"])) and (language is None or b.get("language", b["customer"]["language"])
                                               == language))
    return fits


def noun_of(name: str) -> tuple[str, str]:
    """The last word of a product's name, singular and plural ("Glow Smart Bulb 4-pack": "4-pack", "4-packs"), as
    a reply names its units."""
    noun = name.split()[-1].lower()
    return noun, noun if noun.endswith("s") else f"{noun}s"


def line_words(task: TaskInstance) -> dict[str, Any]:
    """Words for the refunded line of `task`: `noun`, `nouns`, `qty_word` (its units as a word) and `two_units`
    (the price of two of them)."""
    line = task.bindings["line"]
    noun, nouns = noun_of(str(line["name"]))
    quantity = int(line["quantity"])
    return {"noun": noun, "nouns": nouns, "qty_word": WORDS[quantity], "other_qty_word": WORDS[quantity + 1],
            "two_units": str(2 * Decimal(str(line["unit_price"])))}


def other_line(task: TaskInstance) -> Any:
    """The first line of the task's order (`order`) other than its refunded `line`, or None."""
    order = task.initial.get(ORDERS, task.bindings["order"]["id"])
    assert order is not None
    return next((ln for ln in order.lines if ln.id != task.bindings["line"]["id"]), None)


def fill(text: str, words: dict[str, Any]) -> str:
    """`text` with each `{key}` of `words` written in; other placeholders are left for the task's bindings."""
    for key, value in words.items():
        text = text.replace("{" + key + "}", str(value))
    return text
