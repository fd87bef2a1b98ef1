"""Tables fit the terminal with every id whole: other columns wrap, or are dropped in the stated order."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table

from saas_sim.table_fit import fit_table

IDS = ["crm/advance-qualified-deal@1", "support/refund-damaged-order-with-store-credit@12"]
DESCRIPTION = "Refund the damaged order and offer the customer store credit as the policy describes"


def render(table: Table, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(table)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return str(text).splitlines()


def scenarios_table() -> Table:
    table = Table("scenario", "world", "tools", "checks", "hacks", "noop", "description")
    for ref in IDS:
        table.add_row(ref, "support-medium", "24", "5", "3", "0.25", DESCRIPTION)
    return table


def test_ids_stay_whole_at_80_columns_and_the_named_columns_go_first() -> None:
    table = scenarios_table()
    console = Console(file=io.StringIO(), width=80)
    dropped = fit_table(console, table, keep=["scenario"], wrap=["description"],
                        drop_first=["hacks", "noop", "checks", "world"])
    assert dropped == ["hacks", "noop", "checks", "world"]
    lines = render(table, 80)
    assert all(len(line) <= 80 for line in lines)
    assert "…" not in "".join(lines)
    assert all(any(ref in line for line in lines) for ref in IDS)
    words = " ".join(line.split("│")[3].strip() for line in lines if line.count("│") == 4)
    assert words.split() == DESCRIPTION.split() * len(IDS)  # the description wraps, every word whole


def test_nothing_is_dropped_when_the_table_fits() -> None:
    table = scenarios_table()
    assert fit_table(Console(file=io.StringIO(), width=250), table, keep=["scenario"]) == []
    assert len(table.columns) == 7


def test_kept_columns_stay_even_when_they_alone_overflow() -> None:
    table = scenarios_table()
    dropped = fit_table(Console(file=io.StringIO(), width=30), table, keep=["scenario"], wrap=["description"])
    assert [str(c.header) for c in table.columns] == ["scenario"]
    assert dropped == ["description", "noop", "hacks", "checks", "tools", "world"]  # from the right
    assert any(IDS[1] in line for line in render(table, 200))


@given(width=st.integers(min_value=20, max_value=200), words=st.lists(
    st.text(alphabet="abcdefghij-", min_size=1, max_size=15), min_size=1, max_size=12))
def test_every_id_is_printed_whole_at_any_width(width: int, words: list[str]) -> None:
    table = Table("id", "state", "note")
    refs = [f"dom/{w}@1" for w in words]
    for ref in refs:
        table.add_row(ref, "[green]yes[/green]", " ".join(words))
    fit_table(Console(file=io.StringIO(), width=width), table, keep=["id"], wrap=["note"])
    # Printed wide enough for what was kept, every id is on one line, uncut.
    lines = render(table, max(width, len(max(refs, key=len)) + 4))
    assert all(any(ref in line for line in lines) for ref in refs)
    assert "…" not in "".join(lines)
