"""An AST index of Python sources: the definitions and references of names, for `ide.find_symbol`.

The index of a file is a pure function of its text, so it is cached by the text's blob
sha (content addressing: the same text has the same index in every world, episode and
fork, and a cache hit can never be stale). The cache is bounded; it drops its oldest
entries first.

Definitions: functions, methods, classes, module- and class-level variables, imports and
parameters, each with its dotted name in the module (`Invoice.total`). References: every
loaded name, attribute name, imported name and keyword argument, with its position.
"""

from __future__ import annotations

import ast
import threading
from dataclasses import dataclass

__all__ = ["Definition", "ModuleIndex", "Reference", "index_source", "module_index"]

_CACHE_LIMIT = 8_192
_cache: dict[str, ModuleIndex] = {}
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Definition:
    """A name a module defines: `kind` is function, method, class, variable, import or parameter."""

    name: str
    kind: str
    qualname: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Reference:
    """A use of a name: `kind` is name, attribute, import or keyword."""

    name: str
    kind: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class ModuleIndex:
    """The definitions and references of one module; `parsed` is False when its text is not valid Python."""

    definitions: tuple[Definition, ...]
    references: tuple[Reference, ...]
    parsed: bool


class _Indexer(ast.NodeVisitor):
    def __init__(self) -> None:
        self.defs: list[Definition] = []
        self.refs: list[Reference] = []
        self.scope: list[tuple[str, str]] = []  # (name, "class" | "function")

    def _qual(self, name: str) -> str:
        return ".".join([*(s for s, _ in self.scope), name])

    def _define(self, name: str, kind: str, node: ast.AST, column: int | None = None) -> None:
        line = getattr(node, "lineno", 0)
        col = getattr(node, "col_offset", 0) if column is None else column
        self.defs.append(Definition(name, kind, self._qual(name), line, col))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        in_class = bool(self.scope) and self.scope[-1][1] == "class"
        # The name's column: after `def ` or `async def `.
        column = node.col_offset + (10 if isinstance(node, ast.AsyncFunctionDef) else 4)
        self._define(node.name, "method" if in_class else "function", node, column)
        self.scope.append((node.name, "function"))
        args = node.args
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.vararg, args.kwarg])]:
            self._define(a.arg, "parameter", a)
            if a.annotation is not None:
                self.visit(a.annotation)
        for default in [*args.defaults, *filter(None, args.kw_defaults)]:
            self.visit(default)
        if node.returns is not None:
            self.visit(node.returns)
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for d in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(d)
        self._define(node.name, "class", node, node.col_offset + 6)
        self.scope.append((node.name, "class"))
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            # Module- and class-level assignments define names; a function's locals are not indexed.
            if not self.scope or self.scope[-1][1] == "class":
                self._define(node.id, "variable", node)
            return
        self.refs.append(Reference(node.id, "name", node.lineno, node.col_offset))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.visit(node.value)
        line = node.end_lineno or node.lineno
        column = (node.end_col_offset or 0) - len(node.attr)
        self.refs.append(Reference(node.attr, "attribute", line, max(column, 0)))

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg is not None:
            self.refs.append(Reference(node.arg, "keyword", node.lineno, node.col_offset))
        self.visit(node.value)

    def _imports(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.ImportFrom) and node.module:
            for part in node.module.split("."):
                self.refs.append(Reference(part, "import", node.lineno, node.col_offset))
        for alias in node.names:
            if alias.name == "*":
                continue
            for part in alias.name.split("."):
                self.refs.append(Reference(part, "import", alias.lineno, alias.col_offset))
            bound = alias.asname or alias.name.split(".")[0]
            self._define(bound, "import", alias)

    def visit_Import(self, node: ast.Import) -> None:
        self._imports(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._imports(node)


def index_source(text: str) -> ModuleIndex:
    """Returns the index of a Python source text (an empty, unparsed index when it does not parse)."""
    try:
        tree = ast.parse(text)
        indexer = _Indexer()
        indexer.visit(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ModuleIndex((), (), parsed=False)
    return ModuleIndex(tuple(indexer.defs), tuple(indexer.refs), parsed=True)


def module_index(blob: str, text: str) -> ModuleIndex:
    """Returns the index of the text whose blob sha is `blob`, from the cache when it was built before."""
    found = _cache.get(blob)
    if found is not None:
        return found
    index = index_source(text)
    with _lock:
        if len(_cache) >= _CACHE_LIMIT:
            del _cache[next(iter(_cache))]
        _cache[blob] = index
    return index
