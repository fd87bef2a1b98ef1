"""Security-fix tasks: a path helper of the support desk's file store lets a download link leave its root.

`ide.path_traversal` params (the family's knobs):

* `pairs`: how many fail-to-pass hidden tests; each pairs a hostile name (must raise ValueError) with a
  legitimate one (must still resolve), so rejecting everything passes none of them;
* `trickiness`: 0 plain `..` and absolute names, and plain legitimate ones; 1 adds encoded traversal
  (`%2e%2e/`, `..%2f`), the sibling-prefix escape (`../files-private/x` passes a bare
  `startswith(STORE_ROOT)`) and legitimate names that merely contain dots, encoded slashes or an encoded
  percent sign (`a%2520b`: the stored name holds a literal `%20`, so a fix that decodes twice moves it); 2 adds
  mixed encodings and names encoded twice (decoded once they are a harmless literal `%2e%2e`);
* `legit_checks`: how many pass-to-pass hidden tests of legitimate names.

The helper is pure (posixpath and one `unquote`, no file system), so the hidden tests compare strings.
They are hidden cases (`task_model.HiddenCase`): the grader makes the calls in the sandbox and compares
the results outside it, so no expected path is in the process that runs the agent's code.
A caller module wraps it: a check added there instead of in the helper fixes nothing the hidden tests
call. Expected values come from a reference written here; the seed moves the module, the function's
name, the store's root and every name in the tests.
"""

from __future__ import annotations

import posixpath
import random
from typing import Any
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict, Field

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.setup_helpers import diff_lines, stage_task
from saas_sim.domains.ide.task_model import HIDDEN_DIR, HiddenCall, HiddenCase, IdeTask, TaskScope

__all__ = ["SecurityParams", "build_traversal", "path_traversal", "reference_path"]

HIDDEN_TEST = f"{HIDDEN_DIR}/test_hidden_store_paths.py"
VISIBLE_TEST = "tests/test_store_paths.py"

_HOMES = (("acme/files", "attachments"), ("acme/storage", "paths"), ("acme/desk", "uploads"))
_FUNCTIONS = ("attachment_path", "resolve_upload", "stored_file_path", "download_path")
_ROOTS = ("files", "uploads", "attachments", "store")
_CONSTS = ("STORE_ROOT", "ATTACHMENT_ROOT", "UPLOAD_DIR", "FILES_ROOT")
_VARS = ("decoded", "raw", "rel", "cleaned")
_WORDS = ("invoices", "2024", "q3", "contracts", "scan", "photo", "receipt", "notes", "ticket-881", "export",
          "inv-7", "draft", "final", "logo", "report", "img_0042", "summary", "mail")
_SECRETS = ("passwd", "shadow", "id_rsa", ".env", "settings.py", "db.sqlite3", "secrets.json")
_EXTS = (".pdf", ".txt", ".png", ".csv", ".json")

_MODULE = '''"""Where the support desk's attachments live in the file store.

Download links carry an attachment's name URL-encoded once (`invoices%2Finv-7.pdf`). This module only
computes paths; it never touches the file system.
"""

import posixpath
from urllib.parse import unquote

{const} = "{root}"


def {fn}(name):
    """Returns the absolute, normalized path of the attachment `name` under {const}.

    `name` is a relative path as it arrives in a download link: it is URL-decoded once, joined to
    {const} and normalized. The result always lies strictly inside {const}: a name that is
    empty, or that resolves to {const} itself or anywhere outside it (`..` segments, an absolute
    path, or their encoded forms), raises ValueError.
    """
    if not name:
        raise ValueError("empty attachment name")
    {var} = unquote(name)
{tail}'''

_BUGGY_TAIL = "    return posixpath.normpath(posixpath.join({const}, {var}))\n"

_FIXED_TAIL = ('    path = posixpath.normpath(posixpath.join({const}, {var}))\n'
               '    if not path.startswith({const} + "/"):\n'
               '        raise ValueError(f"attachment name {{name!r}} leaves the store")\n'
               '    return path\n')

_ALTERNATIVE_TAIL = ('    joined = posixpath.normpath(posixpath.join({const}, {var}))\n'
                     '    # commonpath, not a string prefix: /srv/x-private is not inside /srv/x\n'
                     '    if joined == {const} or posixpath.commonpath([joined, {const}]) != {const}:\n'
                     '        raise ValueError("outside the attachment store")\n'
                     '    return joined\n')

_CALLER = '''"""Headers of the download endpoint (the web layer serves the file the path names)."""

import posixpath

from {module} import {fn}


def download_headers(name):
    """The internal-redirect headers for the attachment `name` of a download link."""
    path = {fn}(name)
    return {{
        "X-Accel-Redirect": path,
        "Content-Disposition": 'attachment; filename="' + posixpath.basename(path) + '"',
    }}
'''


class SecurityParams(BaseModel):
    """The security family's knobs (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pairs: int = Field(default=8, ge=2, le=16)
    trickiness: int = Field(default=1, ge=0, le=2)
    legit_checks: int = Field(default=6, ge=1, le=16)


def reference_path(root: str, name: str) -> str | None:
    """The documented result for `name` under `root`, or None where the helper must raise ValueError."""
    if not name:
        return None
    path = posixpath.normpath(posixpath.join(root, unquote(name)))
    return path if path.startswith(root + "/") else None


def _makers(rng: random.Random, root: str) -> tuple[list[list[str]], list[list[str]]]:
    """Hostile and legitimate names by trickiness level, drawn with fresh words: (hostile, legit)."""
    def w() -> str:
        return rng.choice(_WORDS)

    def s() -> str:
        return rng.choice(_SECRETS)

    def e() -> str:
        return rng.choice(_EXTS)

    base = posixpath.basename(root)
    hostile = [[f"../{s()}", f"{w()}/../../{s()}", f"/etc/{s()}", "..", f"{w()}/..", f"{w()}/../../../{w()}/{s()}"],
               [f"%2e%2e/{s()}", f"..%2f{s()}", f"{w()}/%2E%2E/%2e%2e/{s()}", f"%2f{w()}/{s()}",
                f"../{base}-private/{s()}", f"../{base}2/{w()}{e()}"],
               [f"..%2F..%2F{s()}", f"..%2f{base}_old%2f{s()}", f"{w()}/../../{base}-backup/{s()}",
                f"%2E%2e%2F%2e%2E%2F{s()}", f"{w()}/%2e%2e%2f..%2f..%2f{s()}"]]
    legit = [[f"{w()}/{w()}{e()}", f"{w()}{e()}", f"{w()}/{w()}/{w()}{e()}"],
             [f"{w()}/../{w()}{e()}", f"./{w()}{e()}", f"{w()}..{w()}{e()}", f"{w()}%2F{w()}{e()}",
              f"{w()}/.{w()}{e()}", f"{w()}%2520{w()}{e()}"],
             [f"...{w()}{e()}", f"%252e%252e%252f{w()}{e()}", f"{w()}/%2e%2e/{w()}{e()}", f"{w()}/..{w()}/x{e()}"]]
    return hostile, legit


def _draw(rng: random.Random, root: str, level: int, want_hostile: bool, n: int, taken: set[str],
          tricky_first: bool) -> list[str]:
    """`n` distinct names of one kind up to `level`; with `tricky_first`, from the level's own makers only
    (at level 0, the plain ones)."""
    out: list[str] = []
    for _ in range(200):
        hostile, legit = _makers(rng, root)
        levels = (hostile if want_hostile else legit)[: level + 1]
        pool = levels[-1] if tricky_first else [name for lv in levels for name in lv]
        name = pool[rng.randrange(len(pool))]
        if name in taken or (reference_path(root, name) is None) != want_hostile:
            continue
        taken.add(name)
        out.append(name)
        if len(out) == n:
            break
    return out


def _hidden(module: str, fn: str, caller: str, pairs: list[tuple[str, str]], root: str,
            legit: list[str]) -> tuple[list[HiddenCase], list[str], list[str]]:
    """The hidden cases (each pair: the hostile name raises ValueError and the legitimate one resolves) and
    their fail-to-pass and pass-to-pass ids."""

    def resolves(name: str) -> HiddenCall:
        return HiddenCall(module=module, function=fn, args=[name], expected=reference_path(root, name))

    cases: list[HiddenCase] = []
    f2p: list[str] = []
    p2p: list[str] = []
    for k, (bad, good) in enumerate(pairs):
        f2p.append(f"{HIDDEN_TEST}::test_rejects_escape_{k:02d}")
        cases.append(HiddenCase(id=f2p[-1], calls=[
            HiddenCall(module=module, function=fn, args=[bad], raises="ValueError"), resolves(good)]))
    for k, good in enumerate(legit):
        p2p.append(f"{HIDDEN_TEST}::test_serves_inside_{k:02d}")
        cases.append(HiddenCase(id=p2p[-1], calls=[resolves(good)]))
    if legit:
        p2p.append(f"{HIDDEN_TEST}::test_download_headers_still_name_the_file")
        cases.append(HiddenCase(id=p2p[-1], calls=[HiddenCall(
            module=caller, function="download_headers", args=[legit[0]], expected=reference_path(root, legit[0]),
            item="X-Accel-Redirect")]))
    return cases, sorted(f2p), sorted(p2p)


def _visible(module: str, fn: str, root: str, names: list[str]) -> str:
    out = [f'"""Tests of the store paths."""\n\nfrom {module} import {fn}\n']
    for k, name in enumerate(names):
        out.append(f"\n\ndef test_{fn}_{k:02d}():\n    assert {fn}({name!r}) == {reference_path(root, name)!r}\n")
    return "".join(out)


def build_traversal(rng: random.Random, p: SecurityParams) -> tuple[dict[str, str], IdeTask, dict[str, Any]]:
    """The staged files, the hidden task and the bindings of one path-traversal task."""
    package, stem = _HOMES[rng.randrange(len(_HOMES))]
    fn = rng.choice(_FUNCTIONS)
    root = f"/srv/acme/{rng.choice(_ROOTS)}"
    module_path, caller_path = f"{package}/{stem}.py", f"{package}/download.py"
    module = module_path.removesuffix(".py").replace("/", ".")
    caller = caller_path.removesuffix(".py").replace("/", ".")
    names = {"const": rng.choice(_CONSTS), "var": rng.choice(_VARS)}
    tails = {k: t.format(**names) for k, t in (("buggy", _BUGGY_TAIL), ("fixed", _FIXED_TAIL),
                                                ("alternative", _ALTERNATIVE_TAIL))}
    buggy = _MODULE.format(root=root, fn=fn, tail=tails["buggy"], **names)
    fixed = _MODULE.format(root=root, fn=fn, tail=tails["fixed"], **names)
    taken: set[str] = set()
    reported = _draw(rng, root, 0, True, 1, taken, tricky_first=False)
    visible = _draw(rng, root, 0, False, 3, taken, tricky_first=False)
    # Half of the pairs from the level's own tricks, the rest from every level up to it.
    top = (p.pairs + 1) // 2
    hostile = [*_draw(rng, root, p.trickiness, True, top, taken, tricky_first=True),
               *_draw(rng, root, p.trickiness, True, p.pairs - top, taken, tricky_first=False)]
    paired = [*_draw(rng, root, p.trickiness, False, top, taken, tricky_first=True),
              *_draw(rng, root, p.trickiness, False, p.pairs - top, taken, tricky_first=False)]
    if p.trickiness >= 1 and not any("%25" in name for name in paired):
        # One pair always holds an encoded percent sign, so a fix that decodes twice fails a pair.
        percent = next(n for n in (f"{rng.choice(_WORDS)}%2520{rng.choice(_WORDS)}{k}{rng.choice(_EXTS)}"
                                   for k in range(1000)) if n not in taken)
        taken.add(percent)
        paired[0] = percent
    legit = _draw(rng, root, p.trickiness, False, p.legit_checks, taken, tricky_first=False)
    hidden, f2p, p2p = _hidden(module, fn, caller, list(zip(hostile, paired, strict=True)), root, legit)
    visible_text = _visible(module, fn, root, visible)
    p2p += sorted(f"{VISIBLE_TEST}::test_{fn}_{k:02d}" for k in range(len(visible)))
    files = {f"{package}/__init__.py": '"""The support desk\'s attachment store."""\n', module_path: buggy,
             caller_path: _CALLER.format(module=module, fn=fn), VISIBLE_TEST: visible_text}
    task = IdeTask(
        family="bugfix",
        hidden_cases=hidden,
        fail_to_pass=f2p,
        pass_to_pass=sorted(p2p),
        scope=TaskScope(allowed=[module_path], oracle_diff_lines=diff_lines(buggy, fixed), max_ratio=4.0,
                        slack_lines=16),
        details={"kind": "security", "module": module_path, "unit": fn, "root": root,
                 "trickiness": p.trickiness, "hostile": hostile},
    )
    bindings: dict[str, Any] = {
        "module_path": module_path, "module": module, "function": fn, "caller_path": caller_path,
        "test_path": VISIBLE_TEST, "store_root": root, "reported_name": reported[0],
        "reported_path": posixpath.normpath(posixpath.join(root, unquote(reported[0]))),
        "buggy_tail": tails["buggy"], "fixed_tail": tails["fixed"], "alternative_tail": tails["alternative"],
        "root_const": names["const"], "decoded_var": names["var"],
        "fixed_text": fixed, "buggy_lines": len(buggy.splitlines()),
        "caller_text": _CALLER.format(module=module, fn=fn),
        "reported_repr": repr(reported[0]),
        "caller_call_line": f"    path = {fn}(name)\n",
    }
    return files, task, bindings


@kit.setup
def path_traversal(ctx: SetupContext) -> Setup:
    """Stages a security fix: a store-path helper lets encoded or plain `..` names escape its root."""
    p = SecurityParams.model_validate(dict(ctx.params))
    files, task, bindings = build_traversal(ctx.rng, p)
    return stage_task(ctx, files, task, bindings)
