"""Paths of the virtual tree: the one normalization every tool, generator and setup applies.

A tree path is a POSIX path relative to the root: parts joined by `/`, none empty,
none `.` or `..`, no leading `/`, no backslash, no NUL or other control character,
no lone surrogate (it could not be encoded as UTF-8), at most `MAX_PATH_CHARS`
characters, `MAX_PART_CHARS` per part (and `MAX_PART_BYTES` of UTF-8) and `MAX_DEPTH` parts. The tree has no
symlinks, so a valid path can never lead outside it.

Agents may write `./a/b.py`, `a//b.py` or `a/b/` (empty and `.` parts are dropped);
anything else that breaks the rules is an `invalid_argument` naming the field.
"""

from __future__ import annotations

from saas_sim.core.tool_errors import bad_args
from saas_sim.errors import ToolError

__all__ = [
    "MAX_DEPTH",
    "MAX_PART_BYTES",
    "MAX_PART_CHARS",
    "MAX_PATH_CHARS",
    "is_tree_path",
    "normalize_path",
    "parent_dirs",
]

MAX_PATH_CHARS = 512
"""The longest path, in characters."""
MAX_PART_CHARS = 128
"""The longest file or folder name, in characters."""
MAX_PART_BYTES = 255
"""The longest file or folder name in UTF-8 bytes (Linux's NAME_MAX): the sandbox writes the tree to disk."""
MAX_DEPTH = 24
"""The most parts a path has."""


def _problem(path: str) -> str | None:
    """Returns why a raw path is refused, or None (empty and `.` parts are tolerated here)."""
    if "\x00" in path:
        return "contains a NUL byte"
    if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in path):
        return "contains a control character or an unpaired surrogate"
    if "\\" in path:
        return "contains a backslash; separate folders with '/'"
    if path.startswith("/"):
        return "is absolute; give it relative to the tree root, like 'acme/billing/invoice.py'"
    if len(path) > MAX_PATH_CHARS:
        return f"is longer than {MAX_PATH_CHARS} characters"
    parts = path.split("/")
    if ".." in parts:
        return "contains '..'; paths cannot leave the tree"
    kept = [p for p in parts if p not in ("", ".")]
    if len(kept) > MAX_DEPTH:
        return f"is deeper than {MAX_DEPTH} folders"
    if any(len(p) > MAX_PART_CHARS for p in kept):
        return f"has a name longer than {MAX_PART_CHARS} characters"
    if any(len(p.encode()) > MAX_PART_BYTES for p in kept):
        return f"has a name longer than {MAX_PART_BYTES} bytes in UTF-8 (a file system's limit)"
    if any(p != p.strip() for p in kept):
        return "has a name that starts or ends with whitespace"
    return None


def normalize_path(raw: str, field: str = "path", *, allow_root: bool = False) -> str:
    """Returns the tree path an agent's `raw` path names.

    Args:
        raw: The path as given.
        field: The argument that held it (named in the error).
        allow_root: Accept the root itself (`""`, `"."` or `"/"` is not accepted), returned as `""`.

    Raises:
        ToolError: `invalid_argument` naming `field` when the path breaks a rule.
    """
    why = _problem(raw)
    if why is not None:
        raise bad_args(f"{field} {raw[:80]!r} {why}", [field])
    path = "/".join(p for p in raw.split("/") if p not in ("", "."))
    if not path and not allow_root:
        raise bad_args(f"{field} must name a file or folder, not the tree root", [field])
    return path


def is_tree_path(path: str) -> bool:
    """Whether `path` is already a normalized tree path (what `ide.files` ids must be)."""
    try:
        return bool(path) and normalize_path(path) == path
    except ToolError:
        return False


def parent_dirs(path: str) -> list[str]:
    """Returns the folders that hold `path`, outermost first (`a/b/c.py` -> `["a", "a/b"]`)."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]
