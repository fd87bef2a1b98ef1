"""READ tools that search the tree's content: text or regular-expression search, and Python symbols.

Regular expressions run on RE2 (google-re2), whose matching time is linear in the
text: no pattern an agent writes can make a search backtrack for minutes. RE2 has
no backreferences or look-around; such a pattern is an `invalid_argument`.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Literal

import re2  # type: ignore[import-untyped]
from pydantic import Field

from saas_sim.core.paging import PageArgs
from saas_sim.core.tool_errors import bad_args
from saas_sim.core.tools import READ, ToolArgs, ToolContext
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.search_index import BLOB_TEXT, blobs_with_literal
from saas_sim.domains.ide.state import BLOBS, FILES
from saas_sim.domains.ide.symbols import module_index
from saas_sim.domains.ide.tool_helpers import cut_line, glob_matches, split_lines, text_of
from saas_sim.domains.ide.views_files import FileMatch, SearchHit, SearchResult, SymbolHit, SymbolPage

__all__ = ["HITS_PER_FILE", "MAX_SEARCH_FILES", "find_symbol", "search_code"]

HITS_PER_FILE = 5
"""Matching lines shown per file."""
MAX_SEARCH_FILES = 50
"""The most files one search shows."""
_REGEX_MEMORY = 8 << 20  # RE2's memory budget for one compiled pattern
_HIT_CHARS = 300
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")

SymbolKind = Literal["any", "function", "method", "class", "variable", "import", "parameter"]


class SearchCodeArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=500, description="The text (or, with regex, the pattern) to find.")
    regex: bool = Field(default=False, description="Treat query as a regular expression (RE2 syntax: no "
                                                   "backreferences or look-around; ^ and $ match at line ends).")
    glob: str | None = Field(default=None, max_length=200,
                             description="Only files whose path matches this glob (`*.py`, `acme/billing/*`); "
                                         "empty or omitted searches every file.")
    case_sensitive: bool = Field(default=False, description="Match letter case exactly.")
    max_files: int = Field(default=20, ge=1, le=MAX_SEARCH_FILES, description="The most files to show.")


def _pattern(args: SearchCodeArgs) -> Any:
    if "\n" in args.query or "\r" in args.query or "\x00" in args.query:
        raise bad_args("query must be a single line without NUL bytes; lines are searched one by one", ["query"])
    options = re2.Options()
    options.log_errors = False
    options.never_nl = True
    options.case_sensitive = args.case_sensitive
    options.max_mem = _REGEX_MEMORY
    if not args.regex:
        options.literal = True
    try:
        return re2.compile(f"(?m){args.query}" if args.regex else args.query, options)
    except re2.error as exc:
        detail = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise bad_args(f"query is not a regular expression RE2 accepts: {detail}", ["query"]) from None


def _matching_lines(pattern: Any, text: str) -> list[int]:
    """Returns the numbers of the lines (as `split_lines` counts them) where `pattern` matches.

    One search per matching line at most: after a hit the search goes on at the next line,
    so a pattern that matches everywhere costs one call per line, not one per character.
    Searching the UTF-8 bytes spares RE2's wrapper a re-encoding of the text per call.
    """
    data = text.encode("utf-8")
    m = pattern.search(data)
    if m is None:
        return []
    if "\r" in text:
        # Rare line ends (`\r` alone ends a line for Python): number by the rows themselves.
        starts: list[int] = []
        offset = 0
        for row in split_lines(text):
            starts.append(offset)
            offset += len(row.encode("utf-8"))
        found: list[int] = []
        while m is not None:
            line = bisect.bisect_right(starts, m.start())
            found.append(line)
            if line >= len(starts):
                break
            m = pattern.search(data, starts[line])
        return found
    found = []
    line, counted = 1, 0
    while m is not None:
        at = m.start()
        line += data.count(b"\n", counted, at)
        counted = at
        found.append(line)
        end = data.find(b"\n", at)  # a match never spans lines (never_nl)
        if end < 0 or end + 1 >= len(data):
            break
        m = pattern.search(data, end + 1)
    return found


@kit.tool(READ)
def search_code(ctx: ToolContext, args: SearchCodeArgs) -> SearchResult:
    """Searches the content of every file (or those matching `glob`) for text or a regular expression.

    Returns, per matching file in path order, how many lines match and the first few of them.
    When more files match than `max_files`, the result says so: narrow the query or the glob.
    """
    pattern = _pattern(args)
    matches: list[FileMatch] = []
    total_files = total_lines = 0
    # A literal can only match files whose blob holds it: the others are not read (an index prefilter).
    blobs = ctx.table(BLOBS)
    among = None if args.regex else blobs_with_literal(blobs, args.query, case_sensitive=args.case_sensitive)
    for entry in ctx.table(FILES):
        if among is not None and entry.blob not in among and entry.blob in blobs:
            continue  # (a file naming a blob never stored goes on to text_of, which says so loudly)
        if args.glob and not glob_matches(entry.id, args.glob):
            continue
        text = text_of(ctx, entry)
        lines_hit = _matching_lines(pattern, text)
        if not lines_hit:
            continue
        total_files += 1
        total_lines += len(lines_hit)
        if len(matches) < args.max_files:
            rows = split_lines(text) if "\r" in text else text.split("\n")
            hits = [SearchHit(line=n, text=cut_line(rows[n - 1], _HIT_CHARS)) for n in lines_hit[:HITS_PER_FILE]]
            matches.append(FileMatch(path=entry.id, count=len(lines_hit), hits=hits))
    truncated = total_files > len(matches)
    message = (f"{total_files} files match; showing the first {len(matches)} by path. Narrow the query or "
               f"pass a glob to see the rest.") if truncated else None
    return SearchResult(files=matches, total_files=total_files, total_lines=total_lines, truncated=truncated,
                        message=message)


class FindSymbolArgs(PageArgs):
    name: str = Field(min_length=1, max_length=200,
                      description="A name (`round_cents`) or a dotted name in its module (`Invoice.total`).")
    kind: SymbolKind = Field(default="any", description="Only definitions of this kind (references are kept).")
    references: bool = Field(default=True, description="Also list the references (uses) of the name.")


@kit.tool(READ)
def find_symbol(ctx: ToolContext, args: FindSymbolArgs) -> SymbolPage:
    """Finds where a Python name is defined and used, from a syntax-tree index of every `.py` file.

    Definitions come first, then references, each sorted by path, line and column. A dotted name
    matches definitions by their dotted name in the module and references by its last part. A file
    that is not valid Python is skipped (find it with ide.search_code).
    """
    if not _NAME.match(args.name):
        raise bad_args(f"name {args.name[:80]!r} is not a Python name or dotted name", ["name"])
    dotted = "." in args.name
    last = args.name.rsplit(".", 1)[-1]
    hits: list[SymbolHit] = []
    blobs = ctx.table(BLOBS)
    holding = blobs.containing(BLOB_TEXT, [last])
    for entry in ctx.table(FILES):
        if not entry.id.endswith(".py") or (entry.blob not in holding and entry.blob in blobs):
            continue  # not Python, or the name is neither defined nor used here
        text = text_of(ctx, entry)
        if last not in text:
            continue  # the name is neither defined nor used here: no need to parse the file
        index = module_index(entry.blob, text)
        if not index.parsed:
            continue
        found: list[tuple[int, int, int, str, str]] = []  # (role order, line, column, kind, qualname)
        for d in index.definitions:
            if (d.qualname == args.name if dotted else d.name == args.name) and args.kind in ("any", d.kind):
                found.append((0, d.line, d.column, d.kind, d.qualname))
        if args.references:
            found.extend((1, r.line, r.column, r.kind, "") for r in index.references if r.name == last)
        if not found:
            continue
        rows = split_lines(text)
        for role, line, column, kind, qualname in sorted(set(found)):
            hits.append(SymbolHit(
                path=entry.id, line=line, column=column, role="definition" if role == 0 else "reference",
                kind=kind, qualname=qualname, text=cut_line(rows[line - 1], _HIT_CHARS) if 0 < line <= len(rows)
                else "",
            ))
    return SymbolPage.of(
        hits, lambda h: (0 if h.role == "definition" else 1, h.path, h.line, h.column, h.kind, h.qualname), args)
