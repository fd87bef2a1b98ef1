"""Seeded bug injection by AST modifiers, applied as small text edits so the rest of the file keeps its bytes.

Kinds (the bug-fix family's `modifier` knob):

* `flip_operator`: `+`<->`-`, `*`->`+`, `//`->`*`, `<`<->`>`, `<=`<->`>=`, `==`<->`!=`, `and`<->`or`,
  `not x` -> `x`;
* `change_constant`: an int literal becomes another (doubled, halved, or plus 5);
* `remove_condition`: one operand of `and`/`or` dropped, or a one-statement `if` guard deleted;
* `swap_arguments`: the first two differing positional arguments of a call swapped;
* `off_by_one`: `<`<->`<=`, `>`<->`>=`, or an int literal plus or minus one.

`candidate_mutations(text, functions, kinds)` lists every site in the named functions (and,
for constants, in module-level assignments) in source order; `apply_mutations` applies any
set of non-overlapping ones. Whether a mutation is a real bug (changes some result) is the
caller's question: `setups_bugfix` answers it by evaluating the mutant on the hidden inputs.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

__all__ = ["MUTATOR_KINDS", "Mutation", "MutatorKind", "apply_mutations", "candidate_mutations", "overlaps"]

MutatorKind = Literal["flip_operator", "change_constant", "remove_condition", "swap_arguments", "off_by_one"]
MUTATOR_KINDS: tuple[str, ...] = get_args(MutatorKind)
MODULE_LEVEL = "<module>"

_BIN_FLIP: dict[type[ast.operator], tuple[str, str]] = {
    ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "+"), ast.FloorDiv: ("//", "*"),
}
_CMP_FLIP: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Lt: ("<", ">"), ast.Gt: (">", "<"), ast.LtE: ("<=", ">="), ast.GtE: (">=", "<="),
    ast.Eq: ("==", "!="), ast.NotEq: ("!=", "=="),
}
_CMP_OFF: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">"),
}


@dataclass(frozen=True)
class Mutation:
    """One text edit that injects a bug.

    Attributes:
        kind: The modifier class.
        function: The function the site is in (`<module>` for a module-level constant).
        start: Character offset of the replaced text.
        end: Character offset just past it.
        before: The replaced text (the fix restores it).
        after: The injected text.
        line: The 1-based line of the site.
    """

    kind: MutatorKind
    function: str
    start: int
    end: int
    before: str
    after: str
    line: int

    def describe(self) -> str:
        """A one-line description (for audits, never shown to the agent)."""
        return f"{self.kind} in {self.function} line {self.line}: {self.before!r} -> {self.after!r}"


class _Source:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, lineno: int, col: int) -> int:
        # Columns are UTF-8 byte offsets; convert within the line.
        line_start = self.starts[lineno - 1]
        line = self.text[line_start:self.starts[lineno]] if lineno < len(self.starts) else self.text[line_start:]
        return line_start + len(line.encode()[:col].decode(errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        lineno, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
        end_lineno, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_lineno is None or end_col is None:
            raise ValueError("node without an end position")
        return self.offset(lineno, col), self.offset(end_lineno, end_col)

    def between(self, left: ast.AST, right: ast.AST) -> tuple[int, int]:
        return self.span(left)[1], self.span(right)[0]


def _token_edit(src: _Source, kind: MutatorKind, fn: str, gap: tuple[int, int], old: str, new: str,
                line: int) -> Mutation | None:
    start, end = gap
    segment = src.text[start:end]
    # The gap holds only brackets, blanks and the operator; find the operator token exactly.
    idx = segment.find(old)
    while idx >= 0:
        before_ch = segment[idx - 1] if idx > 0 else " "
        after_ch = segment[idx + len(old)] if idx + len(old) < len(segment) else " "
        if before_ch not in "<>=!*/+-" and after_ch not in "<>=!*/+-":
            break
        idx = segment.find(old, idx + 1)
    if idx < 0:
        return None
    s = start + idx
    return Mutation(kind, fn, s, s + len(old), old, new, line)


def _constant_variants(value: int) -> list[int]:
    out = [value * 2 if value else 1, value // 2, value + 5]
    return sorted({v for v in out if v != value and (v >= 0 or value < 0)})


def _sites(src: _Source, fn: str, root: ast.AST, kinds: set[str]) -> Iterator[Mutation]:
    for node in ast.walk(root):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN_FLIP and "flip_operator" in kinds:
            old, new = _BIN_FLIP[type(node.op)]
            m = _token_edit(src, "flip_operator", fn, src.between(node.left, node.right), old, new, line)
            if m:
                yield m
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            op = type(node.ops[0])
            gap = src.between(node.left, node.comparators[0])
            for kind, table in (("flip_operator", _CMP_FLIP), ("off_by_one", _CMP_OFF)):
                if kind in kinds and op in table:
                    old, new = table[op]
                    m = _token_edit(src, kind, fn, gap, old, new, line)  # type: ignore[arg-type]
                    if m:
                        yield m
        if isinstance(node, ast.BoolOp) and len(node.values) == 2:
            word = "and" if isinstance(node.op, ast.And) else "or"
            if "flip_operator" in kinds:
                m = _token_edit(src, "flip_operator", fn, src.between(node.values[0], node.values[1]), word,
                                "or" if word == "and" else "and", line)
                if m:
                    yield m
            if "remove_condition" in kinds:
                s, e = src.span(node)
                for keep in node.values:
                    ks, ke = src.span(keep)
                    yield Mutation("remove_condition", fn, s, e, src.text[s:e], src.text[ks:ke], line)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and "flip_operator" in kinds:
            s, e = src.span(node)
            os_, oe = src.span(node.operand)
            yield Mutation("flip_operator", fn, s, e, src.text[s:e], src.text[os_:oe], line)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            value: int = node.value
            s, e = src.span(node)
            if "change_constant" in kinds:
                for v in _constant_variants(value):
                    yield Mutation("change_constant", fn, s, e, src.text[s:e], str(v), line)
            if "off_by_one" in kinds and fn != MODULE_LEVEL:
                for v in (value - 1, value + 1):
                    if v >= 0:
                        yield Mutation("off_by_one", fn, s, e, src.text[s:e], str(v), line)
        if isinstance(node, ast.Call) and "swap_arguments" in kinds:
            args = [a for a in node.args if not isinstance(a, ast.Starred)]
            if len(args) == len(node.args) and len(args) >= 2:
                (s0, e0), (s1, e1) = src.span(args[0]), src.span(args[1])
                a0, a1 = src.text[s0:e0], src.text[s1:e1]
                if a0 != a1:
                    yield Mutation("swap_arguments", fn, s0, e1, src.text[s0:e1],
                                   a1 + src.text[e0:s1] + a0, line)
        if isinstance(node, ast.FunctionDef | ast.For | ast.If) and "remove_condition" in kinds:
            yield from _guard_removals(src, fn, node.body, line)


def _guard_removals(src: _Source, fn: str, body: list[ast.stmt], line: int) -> Iterator[Mutation]:
    if len(body) < 2:
        return
    for stmt in body:
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1:
            s = src.starts[stmt.lineno - 1]
            end_line = stmt.end_lineno or stmt.lineno
            e = src.starts[end_line] if end_line < len(src.starts) else len(src.text)
            yield Mutation("remove_condition", fn, s, e, src.text[s:e], "", stmt.lineno)


def _docstring_nodes(fn: ast.FunctionDef) -> set[int]:
    first = fn.body[0] if fn.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return {id(n) for n in ast.walk(first)}
    return set()


def candidate_mutations(text: str, functions: Sequence[str], kinds: Sequence[str] = MUTATOR_KINDS,
                        *, module_constants: bool = False) -> list[Mutation]:
    """Every mutation site of `kinds` in the named top-level functions, in source order.

    Args:
        text: The module's source.
        functions: Names of top-level functions to mutate.
        kinds: The modifier classes allowed.
        module_constants: Also change int literals of module-level assignments.

    Raises:
        ValueError: A kind is unknown.
    """
    unknown = sorted(set(kinds) - set(MUTATOR_KINDS))
    if unknown:
        raise ValueError(f"unknown mutator kinds {unknown}")
    tree = ast.parse(text)
    src = _Source(text)
    wanted = set(kinds)
    out: list[Mutation] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in functions:
            skip = _docstring_nodes(node)
            for m in _sites(src, node.name, node, wanted):
                out.append(m)
            out = [m for m in out if not _in_nodes(m, skip, src, node)]
        elif module_constants and isinstance(node, ast.Assign) and "change_constant" in wanted:
            out.extend(_sites(src, MODULE_LEVEL, node.value, {"change_constant"}))
    uniq = {(m.start, m.end, m.after, m.kind): m for m in out}
    return sorted(uniq.values(), key=lambda m: (m.start, m.end, m.kind, m.after))


def _in_nodes(m: Mutation, skip: set[int], src: _Source, fn: ast.FunctionDef) -> bool:
    if not skip:
        return False
    doc = fn.body[0]
    s, e = src.span(doc)
    return s <= m.start and m.end <= e


def overlaps(a: Mutation, b: Mutation) -> bool:
    """Whether two mutations touch the same characters (or the same guard line)."""
    return (a.start < b.end and b.start < a.end) or a.start == b.start


def apply_mutations(text: str, mutations: Sequence[Mutation]) -> str:
    """Applies non-overlapping mutations; the result always parses.

    Raises:
        ValueError: Two mutations overlap, a mutation does not match `text`, or the result does not parse.
    """
    ordered = sorted(mutations, key=lambda m: m.start, reverse=True)
    for a, b in itertools.pairwise(ordered):
        if overlaps(a, b):
            raise ValueError(f"overlapping mutations: {a.describe()} / {b.describe()}")
    out = text
    for m in ordered:
        if out[m.start:m.end] != m.before:
            raise ValueError(f"mutation does not match the text: {m.describe()}")
        out = out[:m.start] + m.after + out[m.end:]
    ast.parse(out)
    return out
