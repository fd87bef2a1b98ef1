"""Measured mess of an IDE world (`saas-sim data-report PROFILE --seed N`).

Every rate is measured from the tree itself, by parsing and tokenizing the files,
never read back from the profile's knobs, so the report shows what a world holds.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from typing import Any

from saas_sim.core.state import State
from saas_sim.domains.ide.state import FILES
from saas_sim.domains.ide.symbols import module_index
from saas_sim.domains.ide.workspace import file_text

__all__ = ["LONG_MODULE_LINES", "data_report"]

LONG_MODULE_LINES = 300
"""A module with more lines than this counts as long."""

_TODO = re.compile(r"#.*\b(TODO|FIXME|XXX|HACK)\b")
_SNAKE = re.compile(r"_?[a-z][a-z0-9_]*\Z")
_CAMEL = re.compile(r"_?[a-z]+[A-Z][A-Za-z0-9]*\Z")


def _rate(n: int, d: int) -> float:
    return round(n / d, 4) if d else 0.0


def _quote_styles(text: str) -> Counter[str]:
    styles: Counter[str] = Counter()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING:
                body = tok.string.lstrip("rbuRBUfF")
                if body.startswith(('"""', "'''")):
                    continue
                styles["double" if body.startswith('"') else "single"] += 1
    except (tokenize.TokenError, SyntaxError):
        pass
    return styles


def data_report(state: State) -> dict[str, Any]:
    """Returns the measured mess of an IDE world: counts plus rates in [0, 1].

    Keys: counts (files, python_files, test_files, other_files, lines, bytes); todo_rate (Python
    modules with a TODO/FIXME/XXX/HACK comment); long_module_rate (more than `LONG_MODULE_LINES` lines);
    dead_function_rate (module-level functions whose name is used nowhere in the tree); camel_case_rate
    (function names in camelCase among snake_case and camelCase ones); mixed_quote_rate (modules using
    both quote styles for plain strings); comment_line_rate; unparsed_files (Python files that do not parse).
    """
    entries = list(state.table(FILES))
    texts = {e.id: file_text(state, e.id) or "" for e in entries}
    py = [p for p in texts if p.endswith(".py")]
    tests = [p for p in py if p.startswith("tests/") or p.rsplit("/", 1)[-1].startswith("test_")]
    modules = [p for p in py if p not in tests]
    used: Counter[str] = Counter()
    defined: list[tuple[str, str]] = []
    unparsed: list[str] = []
    names_snake = names_camel = 0
    for e in entries:
        if not e.id.endswith(".py"):
            continue
        index = module_index(e.blob, texts[e.id])
        if not index.parsed:
            unparsed.append(e.id)
            continue
        used.update(r.name for r in index.references)
        for d in index.definitions:
            if d.kind == "function" and d.qualname == d.name and e.id in modules:
                defined.append((e.id, d.name))
            if d.kind in ("function", "method"):
                names_snake += bool(_SNAKE.match(d.name))
                names_camel += bool(_CAMEL.match(d.name))
    dead = sum(1 for _, name in defined if used[name] == 0 and not name.startswith("__"))
    lines = {p: t.count("\n") + (0 if t.endswith("\n") or not t else 1) for p, t in texts.items()}
    comment_lines = sum(1 for p in py for line in texts[p].splitlines() if line.lstrip().startswith("#"))
    mixed = sum(1 for p in modules if len(_quote_styles(texts[p])) == 2)
    return {
        "counts": {
            "files": len(entries), "python_files": len(py), "test_files": len(tests),
            "other_files": len(entries) - len(py), "lines": sum(lines.values()),
            "bytes": sum(e.size for e in entries),
        },
        "todo_rate": _rate(sum(1 for p in modules if _TODO.search(texts[p])), len(modules)),
        "long_module_rate": _rate(sum(1 for p in modules if lines[p] > LONG_MODULE_LINES), len(modules)),
        "dead_function_rate": _rate(dead, len(defined)),
        "camel_case_rate": _rate(names_camel, names_snake + names_camel),
        "mixed_quote_rate": _rate(mixed, len(modules)),
        "comment_line_rate": _rate(comment_lines, sum(lines[p] for p in py)),
        "unparsed_files": sorted(unparsed),
    }
