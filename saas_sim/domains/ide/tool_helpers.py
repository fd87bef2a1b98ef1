"""Helpers the IDE's tools share: argument paths, files that must exist, line splitting and numbering,
the syntax check of Python writes, and globs.

Paging and the agent-facing errors are core conventions (`saas_sim.core.paging`,
`saas_sim.core.tool_errors`); the tree's limits live in `workspace.TreeWriter`.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass

from saas_sim.core.memo import TextMemo
from saas_sim.core.tool_errors import bad_args, conflict, not_found
from saas_sim.core.tools import ToolContext
from saas_sim.domains.ide.models import FileEntry
from saas_sim.domains.ide.paths import normalize_path
from saas_sim.domains.ide.state import BLOBS, FILES
from saas_sim.domains.ide.workspace import TreeWriter, is_dir
from saas_sim.errors import HarnessError, ToolError

__all__ = [
    "MAX_AST_DEPTH",
    "MAX_BRACKET_DEPTH",
    "MAX_LINE_CHARS",
    "SYNTAX_CONTEXT_LINES",
    "arg_path",
    "check_nesting",
    "check_python",
    "commit",
    "cut_line",
    "glob_matches",
    "number_lines",
    "require_file",
    "split_lines",
    "text_of",
]

MAX_LINE_CHARS = 2_000
"""Longer lines are cut when shown (minified or generated code)."""
SYNTAX_CONTEXT_LINES = 3
"""Lines shown on each side of a syntax error."""
MAX_AST_DEPTH = 100
"""The deepest syntax tree a Python write may have (real code stays far below; recursive readers need headroom)."""
MAX_BRACKET_DEPTH = 50
"""The deepest bracket nesting a `.toml` or `.json` write may have."""

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def arg_path(raw: str, field: str = "path", *, allow_root: bool = False) -> str:
    """Returns the normalized tree path of an argument, or `invalid_argument` naming `field`."""
    return normalize_path(raw, field, allow_root=allow_root)


def require_file(ctx: ToolContext, path: str, field: str = "path") -> FileEntry:
    """Returns the file at `path`: `not_found` naming `field`, or `invalid_argument` when it is a folder."""
    entry: FileEntry | None = ctx.table(FILES).get(path)
    if entry is None:
        if is_dir(ctx.table(FILES), path):
            raise bad_args(f"{path} is a folder, not a file; use ide.list_dir", [field])
        raise not_found("file", path, field)
    return entry


def text_of(ctx: ToolContext, entry: FileEntry) -> str:
    """Returns the text of a file entry."""
    blob = ctx.table(BLOBS).get(entry.blob)
    if blob is None:
        raise HarnessError(f"file {entry.id} names blob {entry.blob}, which was never stored")
    text: str = blob.text
    return text


def split_lines(text: str) -> list[str]:
    """Splits a text into lines with their endings, as Python numbers them (`\\n`, `\\r\\n` or `\\r`).

    Unlike `str.splitlines`, form feeds, `\\x1c` and `\\u2028` do not end a line, so the numbers
    agree with tracebacks, syntax errors and pytest.
    """
    return _LINE.findall(text)


def cut_line(line: str, limit: int = MAX_LINE_CHARS) -> str:
    """Returns a line without its ending, cut at `limit` characters with a marker saying how much was left out."""
    line = line.rstrip("\r\n")
    if len(line) <= limit:
        return line
    return f"{line[:limit]}... [{len(line) - limit} more characters]"


def number_lines(lines: Iterable[str], start: int) -> str:
    """Returns lines numbered from `start`, one per row as `cat -n` shows them (`<number>\\t<line>`)."""
    return "".join(f"{n:>6}\t{cut_line(line)}\n" for n, line in enumerate(lines, start))


def check_python(path: str, text: str, field: str = "content") -> None:
    """Refuses a `.py` text that does not compile, naming the error and showing the lines around it.

    Compiling (not only parsing) also catches errors Python reports after the parse, such as
    `return` outside a function. A syntax tree deeper than `MAX_AST_DEPTH` is refused too: every
    recursive reader of agent code downstream (checks, tamper scans) stays within Python's
    recursion limit, so no file an agent writes can turn a grade into a verifier error.
    Other files are not checked. The verdict is a pure function of the path and text, so it is
    memoized (`_VERDICTS`): every episode of a task compiles the same files.

    Raises:
        ToolError: `invalid_argument` naming `field`, with `line` and `error` details.
    """
    if not path.endswith(".py"):
        return
    problem = _VERDICTS.get((path, text), lambda: _compile_problem(path, text))
    if problem is None:
        return
    if problem.exception is not None:
        # Nesting deep enough to exhaust the compiler's stack is refused like a syntax error.
        raise bad_args(f"the new text of {path} cannot be compiled ({problem.exception}); nothing was written",
                       [field], line=0, error=problem.exception)
    raise _syntax_error(path, text, field, problem.line, problem.message, problem.offset)


@dataclass(frozen=True, slots=True)
class _CompileProblem:
    """Why a text does not compile: a syntax error (line, message, column) or an exception's name."""

    line: int = 0
    message: str = ""
    offset: int | None = None
    exception: str | None = None


_VERDICTS: TextMemo[_CompileProblem | None] = TextMemo(4096)
"""`_compile_problem`'s answers by (path, text)."""


def _compile_problem(path: str, text: str) -> _CompileProblem | None:
    try:
        with warnings.catch_warnings():
            # Invalid escape sequences and the like warn; they are the code's business, not an error.
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=path)
            deep = _too_deep(tree)
            if deep is None:
                compile(tree, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return _CompileProblem(exc.lineno or 0, exc.msg, exc.offset)
    except (RecursionError, MemoryError, ValueError) as exc:
        return _CompileProblem(exception=type(exc).__name__)
    if deep is not None:
        return _CompileProblem(deep, f"the code nests more than {MAX_AST_DEPTH} levels deep; "
                                     f"split the expression or statement")
    return None


def check_nesting(path: str, text: str, field: str = "content") -> None:
    """Refuses a `.toml` or `.json` text whose brackets nest deeper than `MAX_BRACKET_DEPTH`.

    `tomllib` and `json` parse nesting recursively, so a check that reads such a file (a config
    task's pyproject.toml) would hit Python's recursion limit: a verifier error an agent could cause.
    Brackets are counted without regard to strings, which only over-counts; no real config comes near.

    Raises:
        ToolError: `invalid_argument` naming `field`.
    """
    if not path.endswith((".toml", ".json")):
        return
    depth = deepest = 0
    for c in text:
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(0, depth - 1)
    if deepest > MAX_BRACKET_DEPTH:
        raise bad_args(f"the new text of {path} nests brackets {deepest} levels deep (at most {MAX_BRACKET_DEPTH}); "
                       f"nothing was written", [field], line=0, error="nesting too deep")


def _too_deep(tree: ast.AST) -> int | None:
    """Returns the line of a node deeper than `MAX_AST_DEPTH`, or None (iterative: no recursion)."""
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_AST_DEPTH:
            return int(getattr(node, "lineno", 0))
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return None


def _syntax_error(path: str, text: str, field: str, line: int, msg: str, offset: int | None) -> ToolError:
    lines = split_lines(text)
    lo, hi = max(1, line - SYNTAX_CONTEXT_LINES), min(len(lines), line + SYNTAX_CONTEXT_LINES)
    around = number_lines(lines[lo - 1 : hi], lo) if line else ""
    where = f" at line {line}" + (f", column {offset}" if offset else "") if line else ""
    return bad_args(f"the new text of {path} is not valid Python ({msg}{where}); nothing was written.\n{around}",
                    [field], line=line, error=msg)


@functools.lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern[str]:
    # fnmatch.fnmatchcase compiles exactly this; compiling once spares a cache lookup per path.
    return re.compile(fnmatch.translate(pattern))


def glob_matches(path: str, pattern: str) -> bool:
    """Whether a path matches a glob: fnmatch, case-sensitive, `*` also crosses `/`.

    A pattern without `/` also matches a file's name in any folder (`conftest.py`).
    The same rule as the task's protected and allowed paths (`task_model.matches_any`).
    """
    compiled = _glob(pattern)
    if compiled.match(path):
        return True
    return "/" not in pattern and compiled.match(path.rsplit("/", 1)[-1]) is not None


def commit(ctx: ToolContext, writer: TreeWriter) -> None:
    """Emits a writer's queued events, in order."""
    if not writer.events:
        raise conflict("the call changes nothing")
    for event in writer.events:
        ctx.emit(event)
