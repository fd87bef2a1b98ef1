"""Fits the command line's rich tables to the terminal without ever cutting an id.

Rich shrinks every column of a table that is too wide, and cuts cells with `…`
once wrapping is not enough, ids included (`crm/advance…`). Users type those ids,
so here the id column keeps its full width, the other columns keep their values
whole too (one wrapable column may wrap at word boundaries), and whole columns
are dropped, in a stated order, until what is left fits.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

__all__ = ["fit_table"]


def fit_table(
    console: Console, table: Table, *, keep: Sequence[str], wrap: Sequence[str] = (), drop_first: Sequence[str] = ()
) -> list[str]:
    """Makes `table` fit `console.width` with every value whole, dropping columns if it must.

    Every column but those in `wrap` is set `no_wrap` with a minimum width of its
    widest value, so rich can neither wrap nor cut it; the `wrap` columns wrap at
    words (each keeps at least its longest word). While the table's smallest width
    exceeds the console's, one column is dropped: first those named in
    `drop_first`, in order, then the others from the right, never those in `keep`.

    Args:
        console: Where the table will be printed (its width is the budget).
        table: A table whose rows are all added; it is changed in place.
        keep: Headers of columns never dropped (the id column, say). If those alone
            do not fit, they are kept anyway: the terminal wraps the lines, and no
            id is ever cut.
        wrap: Headers of columns that may wrap at word boundaries.
        drop_first: Headers of columns to drop before any other.

    Returns:
        The headers of the dropped columns, in the order they were dropped.
    """
    options = console.options.update(width=10_000)  # measure natural widths, unconstrained
    for column in table.columns:
        values = [column.header, *column.cells]
        measures = [Measurement.get(console, options, value) for value in values]
        if column.header in wrap:
            column.min_width = max(m.minimum for m in measures)
        else:
            column.no_wrap = True
            column.min_width = max(m.maximum for m in measures)
    dropped: list[str] = []
    while _smallest_width(table) > console.width:
        headers = [str(c.header) for c in table.columns]
        order = [h for h in drop_first if h in headers] + [h for h in reversed(headers) if h not in drop_first]
        candidates = [h for h in order if h not in keep]
        if not candidates:
            break
        index = headers.index(candidates[0])
        del table.columns[index]
        dropped.append(candidates[0])
    return dropped


def _smallest_width(table: Table) -> int:
    """The narrowest the table can be drawn with each column at its minimum width."""
    count = len(table.columns)
    padding = table.padding[1] + table.padding[3]
    edges = 2 if table.box is not None and table.show_edge else 0
    separators = count - 1 if table.box is not None else 0
    return sum(c.min_width or 0 for c in table.columns) + count * padding + separators + edges
