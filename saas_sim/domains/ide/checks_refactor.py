"""Checks of refactor tasks (rename, move, extract), judged by AST predicates over the final tree.

Keywords prove nothing about a refactor: a search-and-replace renames an
unrelated function of the same name, and a docstring that still names the old
function is harmless. So every predicate here resolves names the way Python
binds them (imports, aliases, module attributes, relative imports) and asks
where a reference *points*, never what text it contains. Behaviour kept is
judged elsewhere, by the hidden pass-to-pass tests of the grade run.

The pure functions take a file map (path -> text, as `workspace.tree_files`
returns) so that setups and tests use the very code the checks use.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.state import TASK
from saas_sim.domains.ide.task_model import IdeTask, load_task
from saas_sim.domains.ide.workspace import base_files, tree_files
from saas_sim.errors import HarnessError

__all__ = [
    "CodeIndex",
    "FunctionShape",
    "Target",
    "call_count",
    "call_sites_updated",
    "function_shape",
    "module_name",
    "new_name_defined",
    "old_name_gone",
    "refactor_call_sites_updated",
    "refactor_new_name_defined",
    "refactor_old_name_gone",
    "refactor_unrelated_kept",
    "references",
    "top_level_bindings",
    "unrelated_kept",
]


@dataclass(frozen=True, order=True)
class Target:
    """A module-level name: `module` is dotted (`acme.billing.proration`), `name` a top-level binding in it."""

    module: str
    name: str

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"


def module_name(path: str) -> str | None:
    """The dotted module of a `.py` path (`acme/x/__init__.py` -> `acme.x`); None for other files."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts)


def _package(path: str) -> str:
    """The package a relative import in `path` starts from."""
    parts = path[:-3].split("/")
    return ".".join(parts[:-1])


def _absolute(path: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = _package(path).split(".") if _package(path) else []
    # `from . import x` in a/b/c.py is package a.b; each further dot goes one level up.
    keep = len(base) - (node.level - 1)
    prefix = base[:keep] if keep > 0 else []
    return ".".join([*prefix, *([node.module] if node.module else [])])


@dataclass
class _File:
    path: str
    module: str
    tree: ast.Module
    # local name -> ("module", dotted) or ("name", Target); module-level imports only
    imports: dict[str, tuple[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class FunctionShape:
    """What a refactor must keep of a function: its parameters and its body, as AST dumps.

    Annotations and the docstring are left out: a rename may touch neither, and a move may
    reword a docstring without changing behaviour.
    """

    params: str
    body: str


class CodeIndex:
    """The parsed `.py` files of a tree and their module-level imports.

    Files that do not parse (the agent's tools refuse such writes, but setups and
    hand-made fixtures might not) are left out and listed in `unparsed`.
    """

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files: dict[str, _File] = {}
        self.unparsed: list[str] = []
        for path in sorted(files):
            mod = module_name(path)
            if mod is None:
                continue
            try:
                tree = ast.parse(files[path], filename=path)
            except (SyntaxError, ValueError):
                self.unparsed.append(path)
                continue
            self.files[path] = _File(path, mod, tree)
        self.modules = {f.module: f for f in self.files.values()}
        for f in self.files.values():
            f.imports = self._imports(f)

    def _imports(self, f: _File) -> dict[str, tuple[str, Any]]:
        bound: dict[str, tuple[str, Any]] = {}
        for node in _module_level(f.tree.body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        bound[alias.asname] = ("module", alias.name)
                    else:
                        head = alias.name.split(".")[0]
                        bound[head] = ("module", head)
            elif isinstance(node, ast.ImportFrom):
                src = _absolute(f.path, node)
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    local = alias.asname or alias.name
                    sub = f"{src}.{alias.name}" if src else alias.name
                    if sub in self.modules:
                        bound[local] = ("module", sub)
                    else:
                        bound[local] = ("name", Target(src, alias.name))
        return bound

    def dotted(self, f: _File, node: ast.expr) -> str | None:
        """The full dotted name an expression stands for through the file's imports (`datetime.datetime.now`).

        A name the file does not import is taken as its own module's (`acme.x.helper`).
        """
        chain: list[str] = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        chain.reverse()
        head = f.imports.get(node.id)
        if head is None:
            base = f"{f.module}.{node.id}"
        else:
            kind, value = head
            base = str(value) if kind == "module" else f"{value.module}.{value.name}".lstrip(".")
        return ".".join([base, *chain])

    def resolve(self, f: _File, node: ast.expr) -> Target | None:
        """The module-level name an expression (`n`, `m.n`, `pkg.m.n`) points to, if it is one."""
        chain: list[str] = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        chain.reverse()
        head = f.imports.get(node.id)
        if head is None:
            return Target(f.module, node.id) if not chain else None
        kind, value = head
        if kind == "name":
            return value if not chain else None  # an attribute of an imported object, not a module name
        dotted = [*str(value).split("."), *chain]
        # `m.n` (or `pkg.m.n`) names `n` of module `m`.
        return Target(".".join(dotted[:-1]), dotted[-1]) if len(dotted) > 1 else None


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, including those under `if`/`try` (a guarded import still binds)."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _module_level(node.body)
            for handler in node.handlers:
                yield from _module_level(handler.body)
            yield from _module_level(node.orelse)
            yield from _module_level(node.finalbody)


def top_level_bindings(index: CodeIndex, module: str) -> dict[str, int]:
    """Every name bound at the top level of `module` (def, class, assignment, import) -> first line."""
    f = index.modules.get(module)
    out: dict[str, int] = {}
    if f is None:
        return out
    for node in _module_level(f.tree.body):
        names: list[str] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"]
        for name in names:
            out.setdefault(name, node.lineno)
    return out


def references(index: CodeIndex, target: Target) -> list[tuple[str, int]]:
    """Every place (path, line) that imports or uses `target`, in path and line order.

    A use is a name or attribute chain that resolves to it (through imports and
    aliases); an import is a `from m import n` of it. The definition itself is
    not a reference, and neither is a same-named but unrelated binding elsewhere.
    """
    found: set[tuple[str, int]] = set()
    for f in index.files.values():
        for stmt in _module_level(f.tree.body):
            if isinstance(stmt, ast.ImportFrom):
                src = _absolute(f.path, stmt)
                if src == target.module and any(a.name == target.name for a in stmt.names):
                    found.add((f.path, stmt.lineno))
        for node in ast.walk(f.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                if node.attr == target.name and index.resolve(f, node) == target:
                    found.add((f.path, node.lineno))
            elif (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
                  and index.resolve(f, node) == target):
                found.add((f.path, node.lineno))
    return sorted(found)


def _find_function(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    body: list[ast.stmt] = tree.body
    parts = qualname.split(".")
    for i, part in enumerate(parts):
        match = None
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == part:
                match = node
        if match is None:
            return None
        if i == len(parts) - 1:
            return match if isinstance(match, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        body = match.body
    return None


def call_count(index: CodeIndex, path: str, qualname: str, target: Target) -> int | None:
    """How many calls inside function `qualname` of `path` call `target`; None if there is no such function."""
    f = index.files.get(path)
    if f is None:
        return None
    fn = _find_function(f.tree, qualname)
    if fn is None:
        return None
    return sum(1 for node in ast.walk(fn) if isinstance(node, ast.Call) and index.resolve(f, node.func) == target)


def _strip_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:]
    return body


def function_shape(index: CodeIndex, target: Target) -> FunctionShape | None:
    """The parameters and body of the top-level function `target`; None if it is not a top-level def."""
    f = index.modules.get(target.module)
    if f is None:
        return None
    fn = None
    for node in f.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == target.name:
            fn = node
    if fn is None:
        return None
    args = fn.args
    params = [
        [a.arg for a in args.posonlyargs],
        [a.arg for a in args.args],
        args.vararg.arg if args.vararg else None,
        [a.arg for a in args.kwonlyargs],
        args.kwarg.arg if args.kwarg else None,
        [ast.dump(d) for d in args.defaults],
        [ast.dump(d) if d else None for d in args.kw_defaults],
    ]
    body = ast.Module(body=_strip_docstring(fn.body), type_ignores=[])
    return FunctionShape(params=repr(params), body=ast.dump(body))


def _target(spec: Mapping[str, Any]) -> Target:
    mod = module_name(str(spec["module"]))
    if mod is None:
        raise ValueError(f"refactor target {spec!r} is not a .py module path")
    return Target(mod, str(spec["name"]))


def _star_source(index: CodeIndex, module: str, name: str) -> str | None:
    """The in-tree module a `from m import *` of `module` (followed through further star imports, breadth
    first, each module once: an agent's chain of 2000 modules is no recursion) takes `name` from, or None.
    An out-of-tree module (the standard library) cannot hold the moved function."""
    seen = {module}
    queue = [module]
    while queue:
        f = index.modules.get(queue.pop(0))
        if f is None:
            continue
        for node in _module_level(f.tree.body):
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                src = _absolute(f.path, node)
                if src not in index.modules or src in seen:
                    continue
                if name in top_level_bindings(index, src):
                    return src
                seen.add(src)
                queue.append(src)
    return None


def _reexports(index: CodeIndex, target: Target) -> list[str]:
    """Ways the module of `target` still hands the name out without binding it by name: a star import
    that carries it, or a module-level `__getattr__` (a lazy re-export; the code that decides what it returns
    is not for a check to run)."""
    f = index.modules.get(target.module)
    if f is None:
        return []
    out: list[str] = []
    src = _star_source(index, target.module, target.name)
    if src is not None:
        out.append(f"{target.module} still re-exports {target.name} through `from {src} import *`")
    for node in _module_level(f.tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("__getattr__", "__dir__"):
            out.append(f"{target.module} defines a module-level {node.name} (line {node.lineno}): "
                       f"a lazy re-export of {target.name}")
            break
    return out


def old_name_gone(final: Mapping[str, str], details: Mapping[str, Any]) -> tuple[float, str]:
    """Score 1 when the old module no longer binds the old name, hands it out no other way (a star import
    that carries it, a module `__getattr__`) and nothing refers to it."""
    old = _target(details["old"])
    index = CodeIndex(final)
    problems: list[str] = []
    bound = top_level_bindings(index, old.module)
    if old.name in bound:
        problems.append(f"{old.module} still binds {old.name} (line {bound[old.name]})")
    problems += _reexports(index, old)
    refs = references(index, old)
    problems += [f"{p}:{line} still refers to {old}" for p, line in refs[:5]]
    if len(refs) > 5:
        problems.append(f"... {len(refs) - 5} more references")
    return (0.0 if problems else 1.0), ("; ".join(problems) or f"{old} is gone and nothing refers to it")


def new_name_defined(base: Mapping[str, str], final: Mapping[str, str],
                     details: Mapping[str, Any]) -> tuple[float, str]:
    """Score 1 when the new name is a top-level function with the old one's parameters and body."""
    old, new = _target(details["old"]), _target(details["new"])
    before = function_shape(CodeIndex(base), old)
    after = function_shape(CodeIndex(final), new)
    if before is None:
        raise ValueError(f"the base has no function {old}")  # a setup bug: loud, never a reward
    if after is None:
        return 0.0, f"{new} is not a top-level function"
    if after.params != before.params:
        return 0.0, f"{new} changed its parameters"
    if after.body != before.body:
        return 0.0, f"{new} changed its body (a refactor keeps the code as it was)"
    return 1.0, f"{new} is defined with the same parameters and body"


def call_sites_updated(final: Mapping[str, str], details: Mapping[str, Any]) -> tuple[float, str]:
    """The share of call sites whose function calls the new target as often as it called the old one."""
    old, new = _target(details["old"]), _target(details["new"])
    index = CodeIndex(final)
    sites = list(details["call_sites"])
    good = 0
    problems: list[str] = []
    for site in sites:
        path, fn, calls = str(site["path"]), str(site["function"]), int(site["calls"])
        n_new = call_count(index, path, fn, new)
        n_old = call_count(index, path, fn, old)
        if n_new is None:
            problems.append(f"{path}: function {fn} is gone")
        elif n_new == calls and not n_old:
            good += 1
        else:
            problems.append(f"{path}: {fn} calls {new} {n_new} time(s) (expected {calls}) and {old} {n_old or 0}")
    score = good / len(sites) if sites else 1.0
    return score, f"{good}/{len(sites)} call sites updated" + (": " + "; ".join(problems) if problems else "")


def unrelated_kept(base: Mapping[str, str], final: Mapping[str, str],
                   details: Mapping[str, Any]) -> tuple[float, str]:
    """Score 1 when every unrelated same-named function still exists with its shape and its references."""
    b, f = CodeIndex(base), CodeIndex(final)
    problems: list[str] = []
    for spec in details.get("unrelated", []):
        t = _target(spec)
        if function_shape(f, t) != function_shape(b, t):
            problems.append(f"{t} was changed or removed")
        elif len(references(f, t)) != len(references(b, t)):
            problems.append(f"the references to {t} changed")
    return (0.0 if problems else 1.0), ("; ".join(problems) or "unrelated same-named code is untouched")


# --- checks ----------------------------------------------------------------------------


def _refactor_task(ctx: CheckContext) -> IdeTask:
    staged = ctx.final.value(TASK)
    task = load_task(staged.task if staged else None)
    if task is None or task.family != "refactor":
        raise HarnessError("a refactor check runs on a state without a staged refactor task")
    return task


def _outcome(verdict: tuple[float, str]) -> CheckOutcome:
    return CheckOutcome(verdict[0], verdict[1])


@kit.check
def refactor_old_name_gone(ctx: CheckContext) -> CheckOutcome:
    """The old name is no longer bound in its module, and no import, call or attribute points to it."""
    return _outcome(old_name_gone(tree_files(ctx.final), _refactor_task(ctx).details))


@kit.check
def refactor_new_name_defined(ctx: CheckContext) -> CheckOutcome:
    """The new name is a top-level function of the target module with the old parameters and body."""
    return _outcome(new_name_defined(base_files(ctx.initial), tree_files(ctx.final), _refactor_task(ctx).details))


@kit.check
def refactor_call_sites_updated(ctx: CheckContext) -> CheckOutcome:
    """The share of the task's call sites that now call the new target (as often as before) and not the old."""
    return _outcome(call_sites_updated(tree_files(ctx.final), _refactor_task(ctx).details))


@kit.check
def refactor_unrelated_kept(ctx: CheckContext) -> CheckOutcome:
    """Unrelated functions that share the old name are untouched (a blind search-and-replace fails)."""
    return _outcome(unrelated_kept(base_files(ctx.initial), tree_files(ctx.final), _refactor_task(ctx).details))
