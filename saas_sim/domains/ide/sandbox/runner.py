"""The sandbox API: pure functions of a file map that run pytest, a Python program or a function in a child.

These are the only functions in saas_sim that start agent code. Each builds one request for a warm worker
(sandbox/pool.py), waits up to the wall timeout and turns what came back into a `RunReport`:

* per-test outcomes come only from the grader plugin's records on the private results pipe, each carrying
  the run's nonce; a record without it, a duplicate or a patched pytest internal is tamper, and a tampered
  run counts every test as failed; a selected test with no record is failed;
* the status says which limit, if any, ended the run; nothing an agent's code does raises out of here.

Reports are cached in-process (LRU) by the request's content: tree key, selection, keyword, extra files,
program, timeout, the determinism profile and the interpreter hash; forks and rollout groups that reach the
same tree pay nothing.
"""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import JsonValue

from saas_sim.core.canonical import sha256_hex, stable_hash
from saas_sim.core.clock import perf_ns
from saas_sim.core.ids import unique_token
from saas_sim.core.memo import LruCache
from saas_sim.domains.ide.sandbox.compare import MAX_DEPTH, is_plain
from saas_sim.domains.ide.sandbox.pool import WorkerGoneError, WorkerPool, WorkerRetiredError, default_pool
from saas_sim.domains.ide.sandbox.profile import ENV, PYTEST_ARGS, profile_hash
from saas_sim.domains.ide.sandbox.report import RunReport
from saas_sim.errors import HarnessError

__all__ = ["CACHE_SIZE", "HIDDEN_PLACEHOLDER", "ReportCache", "call_function", "call_functions", "files_key",
           "run_pytest",
           "run_python", "stable_text"]

CACHE_SIZE = 512
"""How many reports the in-process cache keeps (least recently used go first)."""

HIDDEN_PLACEHOLDER = "# Provided by the grader at run time.\n"
"""What a hidden test file holds on disk inside the sandbox: its source is served from the worker's memory."""

_FILE_MODE = 0o644


class ReportCache(LruCache[str, RunReport]):
    """A thread-safe LRU of reports by request key."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        super().__init__(size)


CACHE = ReportCache()
"""The process's report cache."""


def _remember(key: str, report: RunReport, reply: dict[str, Any] | None, timed_out: bool) -> None:
    """Caches a report only when the run ended by itself: its outcome is then a function of the request.

    A wall timeout or a worker that died under the run can come from the host (load, a killed
    sandbox) as well as from the code; cached, one such accident would answer every later identical
    request, a regrade or a replay's audit included. Those runs are returned, never remembered.
    """
    if reply is not None and not timed_out:
        CACHE.put(key, report)


def files_key(files: Mapping[str, str]) -> str:
    """A content key of a file map (callers that know their tree hash pass it instead: this costs O(tree))."""
    return stable_hash(sorted((path, sha256_hex(text.encode("utf-8", "surrogatepass"))) for path, text in
                              files.items()))


def _check_path(path: str) -> None:
    parts = path.split("/")
    if not path or path.startswith("/") or "\x00" in path or any(p in ("", ".", "..") for p in parts):
        raise HarnessError(f"sandbox: file path {path!r} is not a normalized relative path")


def _module_name(path: str, files: Mapping[str, str]) -> str:
    """The module name pytest (rootdir-relative packages, append import mode) gives a test file."""
    parts = path[:-3].split("/")
    name = [parts[-1]]
    for i in range(len(parts) - 1, 0, -1):
        if "/".join([*parts[:i], "__init__.py"]) not in files:
            break
        name.insert(0, parts[i - 1])
    return ".".join(name)


def _request(kind: str, files: Mapping[str, str], timeout_s: float, pool: WorkerPool, **extra: Any) -> dict[str, Any]:
    for path in files:
        _check_path(path)
    return {
        "op": "run", "kind": kind, "files": {p: [t, _FILE_MODE] for p, t in files.items()},
        "env": dict(ENV), "limits": pool.limits.child(timeout_s), "output_cap": pool.limits.output_cap,
        "results_cap": pool.limits.results_cap, "head": pool.limits.head_chars,
        # A fresh token per run, never part of a result: records without it were not written by the grader.
        "nonce": unique_token() + unique_token(), "stdin": "", **extra,
    }


_STARTS = 2
"""How many workers a request is offered to: one that died before it acknowledged the request never ran it,
so the next one does; two in a row is a broken host."""

_SIGNAL_LIMITS = {int(signal.SIGXCPU): "cpu", int(signal.SIGXFSZ): "file_size", int(signal.SIGKILL): "killed"}


def _execute(kind: str, files: Mapping[str, str], timeout_s: float, pool: WorkerPool | None, **extra: Any
             ) -> tuple[dict[str, Any] | None, bool, list[dict[str, Any]], list[str], str, float, WorkerPool]:
    """Runs one request on a warm worker: (reply, timed_out, records, tamper, nonce, wall_ms, pool)."""
    pool = pool or default_pool()
    request = _request(kind, files, timeout_s, pool, **extra)
    start = perf_ns()
    gone = retired = 0
    while True:
        worker = pool.acquire()
        try:
            reply, timed_out = worker.run(request, timeout_s)
            break
        except WorkerRetiredError:
            # Earlier runs tampered with that worker: another one takes the request. Every tampered worker retires
            # once, so more retirements than workers in a row is a broken host.
            retired += 1
            if retired > pool.max_workers + 1:
                raise
        except WorkerGoneError:
            gone += 1
            if gone == _STARTS:
                raise
        finally:
            pool.release(worker)
    wall_ms = (perf_ns() - start) / 1e6
    records: list[dict[str, Any]] = []
    tamper: list[str] = []
    for line in (reply or {}).get("results", "").splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # malformed, an int past 4300 digits, nesting past the stack
            tamper.append("an unreadable line on the results pipe")
            continue
        if not isinstance(record, dict) or record.get("nonce") != request["nonce"]:
            tamper.append("a record not written by the grader (forged)")
            continue
        if _nesting(record) > MAX_DEPTH + 2:
            tamper.append("a record nested deeper than the grader writes (forged)")
            continue
        records.append(_utf8(record))
    return reply, timed_out, records, tamper, request["nonce"], wall_ms, pool


def _status_of(reply: dict[str, Any] | None, timed_out: bool) -> tuple[str | None, str | None]:
    """The status forced by how the run ended (timeout, a limit), else None; and the limit's name."""
    if timed_out:
        return "timeout", None
    if reply is None:
        return "failed", None  # the worker died under the run (agent code can kill it): a failed run
    if reply.get("limit"):
        return "resource_limit", str(reply["limit"])
    sig = reply.get("signal")
    if isinstance(sig, int) and sig in _SIGNAL_LIMITS:
        return "resource_limit", _SIGNAL_LIMITS[sig]
    return None, None


_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{8,16}\b")
_PYTEST_TIME = re.compile(r"^(=* ?(?:.*? )?(?:passed|failed|error|errors|skipped|deselected|no tests ran|warnings?)"
                          r"[^\n]*?) in \d+(?:\.\d+)?s(?: \([^)\n]*\))?( =*)?$", re.MULTILINE)


def stable_text(text: str, tree: str = "") -> str:
    """Text with what varies between identical runs removed: the sandbox's tree path (tree-relative paths
    remain), object addresses and pytest's timing."""
    if tree:
        text = text.replace(tree.rstrip("/") + "/", "")
    return _PYTEST_TIME.sub(lambda m: m.group(1) + (m.group(2) or ""), _ADDRESS.sub("0x?", text))


def _output(reply: dict[str, Any] | None) -> tuple[str, int]:
    if reply is None:
        return "", 0
    text = str(reply.get("output", ""))
    return stable_text(text, str(reply.get("tree", ""))), max(0, int(reply.get("output_bytes", 0)) - len(text.encode()))


def run_pytest(
    files: Mapping[str, str],
    *,
    selection: Sequence[str] | None,
    keyword: str | None = None,
    timeout_s: float,
    extra_files: Mapping[str, str] | None = None,
    hidden: bool = False,
    tree_key: str | None = None,
    pool: WorkerPool | None = None,
) -> RunReport:
    """Runs pytest on a copy of `files` (plus `extra_files`) in the sandbox.

    Args:
        files: The tree: relative path -> text.
        selection: Test node ids or paths to run, in any order (they run sorted); None runs the tree's
            test discovery. Every selected node id without a result is reported failed.
        keyword: A pytest `-k` expression.
        timeout_s: The wall timeout.
        extra_files: Files added over the tree (the grader's hidden tests).
        hidden: A grading run: serve `extra_files` from the worker's memory (on disk they hold only a
            placeholder, so the tree's code cannot read them), guard the tree's files and the grader's
            frames while it runs, and count nothing from a session that did not reach its end.
        tree_key: The caller's hash of `files` (the workspace's tree hash), to skip hashing the tree.
        pool: The workers (default: the process's pool).
    """
    extra = dict(extra_files or {})
    pool_ = pool or default_pool()
    selected = sorted(set(selection)) if selection is not None else None
    key = stable_hash({
        "kind": "pytest", "tree": tree_key or files_key(files), "extra": files_key(extra), "hidden": hidden,
        "selection": selected, "keyword": keyword, "timeout_s": timeout_s,
        "profile": profile_hash(pool_.isolation, pool_.limits),
    })
    cached = CACHE.get(key)
    if cached is not None:
        return cached
    tree = {**files, **extra}
    shown = {p: (HIDDEN_PLACEHOLDER if hidden and p in extra else t) for p, t in tree.items()}
    served = {_module_name(p, tree): [p, t] for p, t in extra.items() if hidden and p.endswith(".py")}
    args = [*PYTEST_ARGS, "--rootdir", "."]
    if keyword:
        args += ["-k", keyword]
    args += ["--", *(selected or [])]
    reply, timed_out, records, tamper, _, wall_ms, pool_ = _execute(
        "pytest", shown, timeout_s, pool_, args=args, hidden=dict(sorted(served.items())), grading=hidden)
    tree_dir = str((reply or {}).get("tree", ""))
    tests: dict[str, str] = {}
    failures: dict[str, str] = {}
    collect: dict[str, str] = {}
    complete = False
    memory = False
    for record in records:
        kind = record.get("kind")
        if kind == "test":
            nodeid = str(record.get("nodeid"))
            if nodeid in tests:
                tamper.append(f"two results for {nodeid}")
                tests[nodeid] = "failed"
            else:
                outcome = str(record.get("outcome"))
                tests[nodeid] = outcome if outcome in ("passed", "failed", "error", "skipped") else "failed"
        elif kind == "failure":
            failures[str(record.get("nodeid"))] = stable_text(str(record.get("head", "")), tree_dir)
            memory = memory or bool(record.get("memory"))
        elif kind == "collect":
            collect[str(record.get("nodeid"))] = stable_text(str(record.get("head", "")), tree_dir)
        elif kind == "tamper":
            what = record.get("what")
            tamper.extend(f"patched: {w}" for w in (what if isinstance(what, list) else [what]))
        elif kind == "end":
            complete = True
    for wanted in selected or []:
        if "::" in wanted and not any(n == wanted or n.startswith(wanted + "[") for n in tests):
            tests[wanted] = "failed"
            failures.setdefault(wanted, "no result: the test did not run to its end")
    if tamper:
        tests = dict.fromkeys(tests, "failed")
    elif hidden and not complete:
        # A grading session that did not reach its end (os._exit, a crash, a kill) vouches for nothing.
        tests = dict.fromkeys(tests, "failed")
        for nodeid in tests:
            failures.setdefault(nodeid, "the grading session did not reach its end")
    forced, limit = _status_of(reply, timed_out)
    if forced is None and memory:
        forced, limit = "resource_limit", "memory"
    ok = complete and not tamper and bool(tests) and all(v == "passed" for v in tests.values())
    status = forced or ("ok" if ok else "failed")
    output, dropped = _output(reply)
    report = RunReport(
        status=status, exit=None if reply is None else reply.get("exit"), tests=dict(sorted(tests.items())),
        failures=dict(sorted(failures.items())), collect_errors=dict(sorted(collect.items())), output=output,
        output_truncated=dropped, limit=limit, tamper=sorted(set(tamper)), complete=complete,
        sandbox=pool_.isolation, profile=profile_hash(pool_.isolation, pool_.limits), wall_ms=wall_ms,
    )
    _remember(key, report, reply, timed_out)
    return report


def run_python(
    files: Mapping[str, str],
    *,
    code: str | None = None,
    module: str | None = None,
    args: Sequence[str] = (),
    stdin: str = "",
    timeout_s: float,
    tree_key: str | None = None,
    pool: WorkerPool | None = None,
) -> RunReport:
    """Runs a program (`code`, or `python -m module`) on a throwaway copy of `files`; file changes are discarded.

    Args:
        files: The tree: relative path -> text.
        code: Python source to run as `__main__`.
        module: A module of the tree (or the standard library) to run as `__main__`.
        args: Its `sys.argv[1:]`.
        stdin: Its standard input.
        timeout_s: The wall timeout.
        tree_key: The caller's hash of `files`.
        pool: The workers (default: the process's pool).
    """
    if (code is None) == (module is None):
        raise HarnessError("run_python takes exactly one of code and module")
    pool_ = pool or default_pool()
    key = stable_hash({
        "kind": "python", "tree": tree_key or files_key(files), "code": code, "module": module, "args": list(args),
        "stdin": stdin, "timeout_s": timeout_s, "profile": profile_hash(pool_.isolation, pool_.limits),
    })
    cached = CACHE.get(key)
    if cached is not None:
        return cached
    reply, timed_out, records, tamper, _, wall_ms, pool_ = _execute(
        "python", files, timeout_s, pool_, code=code, module=module, argv=list(args), stdin=stdin)
    forced, limit = _status_of(reply, timed_out)
    if forced is None and any(r.get("kind") == "memory" for r in records):
        forced, limit = "resource_limit", "memory"
    output, dropped = _output(reply)
    exit_code = None if reply is None else reply.get("exit")
    report = RunReport(
        status=forced or ("ok" if exit_code == 0 else "failed"), exit=exit_code, output=output,
        output_truncated=dropped, limit=limit, tamper=sorted(set(tamper)), complete=reply is not None,
        sandbox=pool_.isolation, profile=profile_hash(pool_.isolation, pool_.limits), wall_ms=wall_ms,
    )
    _remember(key, report, reply, timed_out)
    return report


def call_function(
    files: Mapping[str, str],
    *,
    module: str,
    function: str,
    inputs: Sequence[Sequence[JsonValue]],
    timeout_s: float,
    tree_key: str | None = None,
    pool: WorkerPool | None = None,
) -> RunReport:
    """Calls `module.function(*args)` for each argument list of `inputs` in the sandbox (see `call_functions`).

    Args:
        files: The tree.
        module: The dotted module of the tree that holds the function.
        function: The function's name.
        inputs: One positional argument list per call (plain JSON).
        timeout_s: The wall timeout for all the calls together.
        tree_key: The caller's hash of `files`.
        pool: The workers (default: the process's pool).
    """
    return call_functions(files, calls=[(module, function, args) for args in inputs], timeout_s=timeout_s,
                          tree_key=tree_key, pool=pool)


def call_functions(
    files: Mapping[str, str],
    *,
    calls: Sequence[tuple[str, str, Sequence[JsonValue]]],
    timeout_s: float,
    tree_key: str | None = None,
    pool: WorkerPool | None = None,
) -> RunReport:
    """Makes the calls `module.function(*args)`, in order, in one sandboxed process.

    The child turns each return value into tagged plain data (exact builtin types only: an always-equal
    object, a subclass of int or a custom class is an error, not a value) and writes it on the results
    pipe; compare `results[i]["value"]` out of process with `strict_equal`. A call that raised gives
    `{"error": "Type: message", "raised": [the builtin exception classes it is an instance of]}`. Only
    the calls cross into the sandbox: whatever the caller compares them with stays here.

    Args:
        files: The tree.
        calls: (dotted module of the tree, function name, positional arguments as plain JSON), in order.
        timeout_s: The wall timeout for all the calls together.
        tree_key: The caller's hash of `files`.
        pool: The workers (default: the process's pool).
    """
    pool_ = pool or default_pool()
    wire = [[module, function, list(args)] for module, function, args in calls]
    key = stable_hash({
        "kind": "call", "tree": tree_key or files_key(files), "calls": wire, "timeout_s": timeout_s,
        "profile": profile_hash(pool_.isolation, pool_.limits),
    })
    cached = CACHE.get(key)
    if cached is not None:
        return cached
    reply, timed_out, records, tamper, _, wall_ms, pool_ = _execute("call", files, timeout_s, pool_, calls=wire)
    by_index: dict[int, dict[str, JsonValue]] = {}
    for record in records:
        index = record.get("index")
        if record.get("kind") != "result" or not isinstance(index, int) or not 0 <= index < len(wire):
            tamper.append("a result record out of range")
            continue
        if index in by_index:
            tamper.append(f"two results for input {index}")
            continue
        result = _call_result(record)
        if result is None:
            tamper.append(f"a malformed result for input {index}")
            continue
        by_index[index] = result
    results: list[dict[str, JsonValue]] = [by_index.get(i, {"error": "no result"}) for i in range(len(wire))]
    if tamper:
        results = [{"error": "tampered run"} for _ in wire]
    forced, limit = _status_of(reply, timed_out)
    output, dropped = _output(reply)
    exit_code = None if reply is None else reply.get("exit")
    report = RunReport(
        status=forced or ("ok" if exit_code == 0 and not tamper else "failed"), exit=exit_code, output=output,
        output_truncated=dropped, results=results, limit=limit, tamper=sorted(set(tamper)),
        complete=len(by_index) == len(wire), sandbox=pool_.isolation,
        profile=profile_hash(pool_.isolation, pool_.limits), wall_ms=wall_ms,
    )
    _remember(key, report, reply, timed_out)
    return report


def _utf8(value: Any) -> Any:
    """A parsed record with every lone surrogate (in keys too) written as its `\\uXXXX` escape.

    JSON's `"\\ud800"` parses to a lone surrogate, which no UTF-8 log can hold; agent code puts them in
    failure heads (`raise Exception("\\ud800")`), node ids and function results. Escaped, the report
    is text the episode can record and the agent can read. The record's nesting is already bounded.
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {_utf8(k): _utf8(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_utf8(v) for v in value]
    return value


def _nesting(value: Any) -> int:
    """How deep lists and dicts nest in a parsed JSON value (iteratively: a forged record may nest deep)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _call_result(record: Mapping[str, Any]) -> dict[str, JsonValue] | None:
    """One call's result as the report keeps it: its value, or its error and the builtin classes it raised;
    None when the record is not what the grader's child writes (a forged one)."""
    if "value" in record:
        return {"value": record["value"]} if is_plain(record["value"]) else None
    error, raised = record.get("error"), record.get("raised", [])
    if not isinstance(error, str) or not isinstance(raised, list) or not all(isinstance(n, str) for n in raised):
        return None
    return {"error": error, "raised": sorted(set(raised))}
