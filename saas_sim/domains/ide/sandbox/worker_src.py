"""The warm worker: the program that runs INSIDE the sandbox (stdlib and pytest only; saas_sim never imports it).

The host sends this file's text on the worker's stdin (it is never on disk
inside the sandbox, so agent code cannot read the grader), then one request
frame per run. The worker imports pytest once and starts one child per run:

* every child is forked from the zygote, a process the worker forks once at
  start-up, before any request: it only ever receives the pipes of a run, never
  a tree, a hidden file or an output, so a child's memory holds its own request
  and nothing of any other run (a child forked from the worker itself inherited
  every earlier run's trees and outputs, which its code could read out of its
  own heap: another rollout's fix, or a hidden file). The zygote forks through
  an intermediate that exits at once, so the child is re-parented to the worker
  (a child subreaper), which waits for it and reads its pipes as before;

* the child gets its own process group, rlimits, a scrubbed environment, the
  tree copy as its working directory, stdout/stderr into a pipe and a second,
  private pipe for results (the grader plugin's records; never stdout or the
  exit code);
* the worker drains both pipes (the output capped, the rest only counted),
  polls the sandbox's memory and scratch-disk use, and kills every process of
  the sandbox but itself when the run ends, overruns a limit, overruns its
  wall timeout on the run's own clock, or the host cancels it (a cancel frame
  on stdin: the host's backstop);
* the run's own clock starts when its child does and is wall time less the
  time the child waited for a CPU (`RunClock`): a host busy with other work
  slows a run down but never times it out. Sleeping, blocking and computing
  all count;
* site (.pth, sitecustomize) ran once at worker start-up, before any tree
  existed, so a tree's sitecustomize.py or .pth file is never processed, and a
  tree module cannot shadow pytest or the pre-imported standard modules.

Frames are a 10-digit length and a JSON body. Requests: {"op": "run", ...};
replies: {"ok": true, ...}. Every failure of the child is data in the reply.
"""

from __future__ import annotations

import _thread
import collections
import contextlib
import ctypes
import dataclasses
import datetime
import decimal
import enum
import fractions
import functools
import itertools
import json
import math
import operator
import os
import pdb
import random
import re
import resource
import runpy
import select
import signal
import statistics
import string
import sys
import textwrap
import time
import typing
import unittest
import unittest.mock
from typing import Any

import _pytest.main
import _pytest.outcomes
import _pytest.python
import _pytest.reports
import _pytest.runner
import _pytest.terminal
import pluggy
import pytest
from _pytest.config import default_plugins, essential_plugins

PRELOADED = (collections, dataclasses, datetime, decimal, enum, fractions, functools, itertools, math, operator,
             pdb, random, re, statistics, string, textwrap, typing, unittest, unittest.mock, pluggy)
"""Imported before any tree exists, so that a tree file with one of these names cannot shadow it (and, in the
`rlimits` sandbox on a host whose interpreter the run user cannot read, so that pytest still runs)."""

# pytest imports its built-in plugins lazily, on the first main(): here, once, not in every child.
for _name in (*essential_plugins, *default_plugins):
    if _name not in ("pytester", "legacypath"):
        __import__(f"_pytest.{_name}")

_WRITE = os.write
_DUMPS = json.dumps
POLL_S = 0.02
"""How often the worker checks memory, scratch-disk use and the run's clock while a child runs."""


class RunClock:
    """A run's own clock: wall time since its child started, less the time the child waited for a CPU.

    The kernel adds a wait to `run_delay` (/proc/PID/schedstat) only when it ends, so a child waiting
    for a CPU at a reading would count that wait as run time: on a starved host a worker's readings
    come while its child waits, and a correct run timed out. A child found runnable (state R) that has
    neither run nor finished a wait since an earlier reading has been waiting since then; that time is
    left out too until the kernel counts it. Progress is read both from schedstat and from the CPU
    time in /proc/PID/stat, which the kernel brings up to date for a running task when it is read (a
    CPU without a scheduler tick would leave schedstat's figure standing). Time spent before the child
    existed (the zygote's fork) is the harness's, never the run's.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.started = time.monotonic()
        self.last = self._progress()[0]
        self.waited_at_start = self.last[1]
        self.unchanged_since = self.started

    def _sched(self) -> tuple[int, int]:
        """The child's time on a CPU and time waiting for one, in ns ((0, 0) when the kernel does not say)."""
        try:
            with open(f"/proc/{self.pid}/schedstat", "rb") as fh:
                ran, waited = fh.read().split()[:2]
            return int(ran), int(waited)
        except (OSError, ValueError):
            return 0, 0

    def _progress(self) -> tuple[tuple[int, int, int], bool]:
        """(time on a CPU, time waiting for one, CPU ticks) and whether the child is runnable now."""
        ran, waited = self._sched()
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            return (ran, waited, int(fields[11]) + int(fields[12])), fields[0] == b"R"
        except (OSError, IndexError, ValueError):
            return (ran, waited, 0), False

    def seconds(self) -> float:
        """Seconds on the run's own clock now."""
        now = time.monotonic()
        progress, runnable = self._progress()
        waiting_now = 0.0
        if progress != self.last:
            self.last, self.unchanged_since = progress, now
        elif runnable:
            waiting_now = now - self.unchanged_since
        return now - self.started - (progress[1] - self.waited_at_start) / 1e9 - waiting_now


def _read_exact(fd: int, n: int) -> bytes:
    chunks: list[bytes] = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> dict[str, Any]:
    """Reads one frame (10-digit length, JSON body) from `fd`, skipping late cancel bytes (`C`) before it."""
    first = _read_exact(fd, 1)
    while first == b"C":
        first = _read_exact(fd, 1)
    size = int(first + _read_exact(fd, 9))
    value: dict[str, Any] = json.loads(_read_exact(fd, size))
    return value


def write_all(fd: int, data: bytes) -> None:
    """Writes all of `data` to `fd`."""
    view = memoryview(data)
    while view:
        n = _WRITE(fd, view)
        view = view[n:]


def write_frame(fd: int, value: dict[str, Any]) -> None:
    """Writes one frame to `fd`."""
    body = json.dumps(value, ensure_ascii=True, sort_keys=True).encode()
    write_all(fd, b"%010d" % len(body) + body)


# ---- the grader's pytest plugin (runs in the child) ----

_CRITICAL_NAMES: tuple[tuple[str, str], ...] = tuple(
    (mod, attr) for mod, attrs in (
        ("_pytest.runner", ("call_and_report", "runtestprotocol", "pytest_runtest_makereport",
                            "pytest_runtest_call", "pytest_runtest_protocol", "check_interactive_exception",
                            "CallInfo.from_call", "CallInfo.__init__", "SetupState.setup",
                            "SetupState.teardown_exact")),
        ("_pytest.reports", ("TestReport.from_item_and_call", "TestReport.__init__", "BaseReport.passed",
                             "BaseReport.failed", "BaseReport.skipped")),
        ("_pytest.python", ("pytest_pyfunc_call", "Function.runtest", "Function.setup", "Module._getobj",
                            "Module.collect")),
        ("_pytest.outcomes", ("skip", "fail", "exit", "Skipped", "Failed", "Exit", "OutcomeException")),
        ("_pytest.main", ("pytest_runtestloop", "Session.perform_collect")),
        ("_pytest.terminal", ("TerminalReporter.pytest_runtest_logreport",)),
        ("pytest", ("skip", "fail", "exit", "main", "raises", "approx")),
        ("pluggy._callers", ("_multicall",)),
        ("pluggy", ("HookCaller.__call__", "HookCaller._hookexec", "PluginManager._hookexec")),
        ("os", ("write", "_exit", "fork", "kill", "killpg")),
        ("json", ("dumps",)),
    ) for attr in attrs
)
"""The pytest, pluggy and os internals whose identity decides what the grader sees (where they exist)."""


def _lookup(mod: str, attr: str) -> object:
    obj: object = sys.modules.get(mod)
    for part in attr.split("."):
        if obj is None:
            return None
        holder = obj
        # A class's own __dict__ entry: a patched classmethod or property shows as a new object.
        obj = vars(holder).get(part) if isinstance(holder, type) else getattr(holder, part, None)
    return obj


def _critical() -> dict[str, object]:
    """The identities of the critical internals now; an agent's patch of any is tamper."""
    found = {f"{mod}.{attr}": _lookup(mod, attr) for mod, attr in _CRITICAL_NAMES}
    found.update({f"module:{mod}": sys.modules.get(mod) for mod in sorted({m for m, _ in _CRITICAL_NAMES})})
    import builtins

    found["builtins.__import__"] = builtins.__import__
    return found


_CRITICAL = _critical()
_SKIPPED = _pytest.outcomes.Skipped
_RUNTIME_OWNED = frozenset({"__warningregistry__", "_"})
"""Globals the interpreter itself writes in an honest run (a warning shown once, the last REPL value)."""
_FUNCTION_PARTS = ("__code__", "__defaults__", "__kwdefaults__", "__closure__", "__globals__")


def _namespace(modules: list[Any]) -> dict[tuple[str, str], object]:
    """What the test modules' verdicts are computed with: every global of each test module (and each
    function's code, defaults and closure), and every builtin. Agent code that reaches a test module's
    globals through a frame (`_same = lambda a, b: True`), swaps a helper's `__code__` or shadows a builtin
    changes one of these objects; none of them changes in an honest run."""
    import builtins

    found: dict[tuple[str, str], object] = {("builtins", k): v for k, v in vars(builtins).items()
                                              if k not in _RUNTIME_OWNED}
    for module in modules:
        name = getattr(module, "__name__", "?")
        for key, value in list(vars(module).items()):
            if key in _RUNTIME_OWNED:
                continue
            found[(name, key)] = value
            if callable(value) and hasattr(value, "__code__"):
                for part in _FUNCTION_PARTS:
                    found[(name, f"{key}.{part}")] = getattr(value, part, None)
    return found


_AUDITED = frozenset({"sys._getframe", "sys._current_frames", "gc.get_objects", "gc.get_referrers",
                      "gc.get_referents", "object.__getattr__", "ctypes.dlopen", "ctypes.dlsym",
                      "ctypes.addressof", "ctypes.cdata", "ctypes.string_at", "ctypes.wstring_at",
                      "ctypes.call_function"})
"""Audit events that reach another frame, another object's memory or the heap: how agent code would read a
test's expected value, the run's nonce or the grader's plugin at run time."""
_FRAME_ATTRS = frozenset({"f_back", "tb_frame", "gi_frame", "cr_frame", "ag_frame"})
_CODE_ATTRS = _FRAME_ATTRS | {"__code__", "f_code", "gi_code", "cr_code", "ag_code"}
"""Audited attribute reads that reach a code object, directly or through a frame (`FrameGuard._grader_read`)."""
_GRADER_DIR = "_grader/"
"""Where the hidden tests live in the tree (served from memory: on disk they are placeholders)."""
_LOGGING = os.path.join("logging", "__init__.py")
_WALKERS = ("traceback.py", "inspect.py")
"""Standard-library modules whose job is walking frames: agent code calling them counts as walking itself."""


class FrameGuard:
    """An audit hook (installed before any tree module is imported, never removable) that notes each audited
    event whose Python caller is the agent's code: a file of the tree outside its tests, hidden tests and
    conftest files, directly or through a frame-walking module of the standard library. pytest, logging or
    `collections.namedtuple` walking frames on their own are not the agent's doing and pass."""

    def __init__(self, tree: str) -> None:
        self.roots = tuple(sorted({os.path.join(tree, ""), os.path.join(os.path.realpath(tree), "")}))
        self.hits: list[str] = []
        self.busy = False
        self.main_thread = _thread.get_ident()  # pytest collects and runs the tests on this thread

    def agent_file(self, filename: str) -> bool:
        """Whether `filename` is a tree file the agent may have written (not a test, hidden test or conftest)."""
        root = next((r for r in self.roots if filename.startswith(r)), None)
        if root is None:
            return False
        rel = filename[len(root):]
        return not (rel.startswith(("tests/", _GRADER_DIR)) or rel == "conftest.py" or rel.endswith("/conftest.py"))

    def grader_file(self, filename: str) -> bool:
        """Whether `filename` is a hidden test of the grader's (served from memory under `_grader/`)."""
        return any(filename.startswith(r) and filename[len(r):].startswith(_GRADER_DIR) for r in self.roots)

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event not in _AUDITED or self.busy:
            return
        if event == "object.__getattr__":
            if len(args) >= 2 and args[1] in _CODE_ATTRS:
                self._grader_read(args[0], args[1])
            if len(args) < 2 or args[1] not in _FRAME_ATTRS:
                return
        self.busy = True
        try:
            frame = sys._getframe(1)
            name = frame.f_code.co_filename
            if self.agent_file(name):
                self.hits.append(f"{event} from {os.path.basename(name)}")
            elif name.endswith(_WALKERS):
                while frame is not None and frame.f_code.co_filename.endswith(_WALKERS):
                    frame = frame.f_back  # type: ignore[assignment]
                if frame is not None and self.agent_file(frame.f_code.co_filename):
                    self.hits.append(f"{event} from {os.path.basename(frame.f_code.co_filename)}")
        finally:
            self.busy = False

    def _grader_read(self, obj: Any, attr: str) -> None:
        """Notes a read that reaches a hidden test's code (whose constants hold the expected values): a grader
        function's `__code__`, a grader frame's `f_code`, a traceback's or generator's grader frame. It is the
        agent's when agent code is running on this thread (its own frame, or any module it called: pydoc,
        dis, inspect, a replay of the test with stand-in globals), or when the read is on another thread
        (pytest runs tests on the main one; any other thread is the agent's). logging reading its callers'
        code to name them (`findCaller`, `stacklevel`) hands out no code and is left alone."""
        self.busy = True
        try:
            code = _code_of(obj, attr)
            if code is None or not self.grader_file(getattr(code, "co_filename", "")):
                return
            reader: Any = sys._getframe(2)
            if reader.f_code.co_filename.endswith(_LOGGING):
                return
            if _thread.get_ident() != self.main_thread:
                self.hits.append(f"{attr} of {code.co_name} read on another thread")
                return
            frame = reader
            while frame is not None:
                if self.agent_file(frame.f_code.co_filename):
                    where = os.path.basename(frame.f_code.co_filename)
                    self.hits.append(f"{attr} of {code.co_name} read under {where}")
                    return
                frame = frame.f_back
        finally:
            self.busy = False


def _code_of(obj: Any, attr: str) -> Any:
    """The code object an audited attribute read reaches, or None."""
    if attr not in _FRAME_ATTRS:
        return getattr(obj, attr, None)
    frame = getattr(obj, attr, None)  # f_back, tb_frame, gi_frame, cr_frame, ag_frame
    return getattr(frame, "f_code", None)


def _threads() -> int:
    """Threads alive in the child: a thread can patch what a test reads between two checks."""
    return int(_thread._count())


class GraderPlugin:
    """Reports every test's outcome on the private pipe, judged from the call itself, and checks for tamper.

    Args:
        fd: The results pipe's write end.
        nonce: The run's token; the host drops records without it.
        head: How many characters of each failure to keep.
    """

    def __init__(self, fd: int, nonce: str, head: int, hidden: HiddenSources, guard_tree: bool) -> None:
        self.fd, self.nonce, self.head, self.hidden, self.guard_tree = fd, nonce, head, hidden, guard_tree
        self.tree_stat: dict[str, tuple[int, int, int]] = {}
        self.own = {k: v for k, v in type(self).__dict__.items() if callable(v)}
        self.outcomes: dict[str, str] = {}
        self.manager: Any = None
        self.plugins_at_start: set[int] = set()
        self.conftests: set[str] = set()
        self.modules: list[Any] = []
        self.objects: dict[str, object] = {}
        self.namespace: dict[tuple[str, str], object] = {}
        self.threads = _threads()
        self.guard: FrameGuard | None = None

    def emit(self, record: dict[str, Any]) -> None:
        """Writes one record line to the results pipe."""
        write_all(self.fd, (_DUMPS({**record, "nonce": self.nonce}) + "\n").encode())

    def tampered(self, item: pytest.Item | None = None) -> list[str]:
        """What differs from start-up: critical internals, plugin methods, plugins registered at run time
        (other than the tree's conftest files that existed when the session started), a patched test item."""
        now = _critical()
        bad = sorted(k for k, v in _CRITICAL.items() if now.get(k) is not v)
        bad += sorted(f"plugin.{k}" for k, v in self.own.items() if type(self).__dict__.get(k) is not v)
        if self.manager is not None:
            for plugin in self.manager.get_plugins():
                if id(plugin) in self.plugins_at_start:
                    continue
                file = getattr(plugin, "__file__", None)
                if not (isinstance(file, str) and os.path.realpath(file) in self.conftests):
                    bad.append(f"a plugin registered at run time: {getattr(plugin, '__name__', type(plugin).__name__)}")
        bad += self.changed_files()
        if self.modules:
            now_ns = _namespace(self.modules)
            moved = sorted({f"{m}.{k.split('.')[0]}" for (m, k) in set(now_ns) | set(self.namespace)
                            if now_ns.get((m, k), self) is not self.namespace.get((m, k), self)})
            bad += [f"a test module's or builtin name changed during the run: {n}" for n in moved[:5]]
        if self.guard is not None and self.guard.hits:
            bad += [f"agent code reached frames or memory: {h}" for h in sorted(set(self.guard.hits))[:5]]
        if _threads() > self.threads:
            bad.append("a thread was left running")
        if sys.gettrace() is not None or sys.getprofile() is not None:
            bad.append("a trace or profile function was installed")
        obj = getattr(item, "obj", None)
        if item is not None and obj is not self.objects.get(item.nodeid, obj):
            bad.append(f"a test item's function was replaced: {item.nodeid}")
        if item is not None and ("runtest" in vars(item) or type(item).__dict__.get("runtest", None) not in (
                None, _CRITICAL.get("_pytest.python.Function.runtest"))):
            bad.append(f"a patched test item: {item.nodeid}")
        return bad

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Puts the hidden-source finder first, ahead of pytest's assertion rewriter (which reads disk)."""
        sys.meta_path.insert(0, self.hidden)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> None:
        """Notes the plugins, conftest files and (grading) every tree file's identity before any test module,
        and so any agent code, is imported."""
        self.manager = session.config.pluginmanager
        self.plugins_at_start = {id(p) for p in self.manager.get_plugins()}
        root = str(session.config.rootpath)
        self.conftests = {os.path.realpath(os.path.join(d, "conftest.py"))
                          for d, _, names in os.walk(root) if "conftest.py" in names}
        if self.guard_tree:
            self.guard = FrameGuard(root)
            sys.addaudithook(self.guard)
            self.tree_stat = {path: stat for path in _tree_paths(root) if (stat := _identity(path)) is not None}

    def changed_files(self) -> list[str]:
        """Tree files changed, replaced or removed since collection began (grading: agent code rewriting a test
        or conftest on disk before pytest reads it; the change time cannot be set back)."""
        changed = [p for p, stat in self.tree_stat.items() if _identity(p) != stat]
        return [f"a tree file changed during the run: {p}" for p in sorted(changed)[:5]]

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        """Judges each phase from the call's own exception (read before any other hook can touch it), not
        from the report an agent could rewrite."""
        excinfo = call.excinfo
        outcome = yield
        report = outcome.get_result()
        if excinfo is None:
            mine = "passed"
        elif isinstance(excinfo.value, _SKIPPED):
            mine = "skipped"
        else:
            mine = "failed" if call.when == "call" else "error"
        if call.when == "setup" and mine == "skipped":
            self.outcomes[item.nodeid] = "skipped"
        elif mine != "passed" or call.when == "call":
            previous = self.outcomes.get(item.nodeid)
            if previous is None or previous == "passed" or call.when == "call":
                self.outcomes[item.nodeid] = mine
        if mine == "passed" and getattr(report, "outcome", "passed") != "passed" and call.when == "call":
            self.outcomes[item.nodeid] = "failed"
        if mine in ("failed", "error"):
            text = str(getattr(report, "longreprtext", "") or excinfo)  # excinfo is set when not passed
            self.emit({"kind": "failure", "nodeid": item.nodeid, "head": text[-self.head:],
                       "memory": excinfo is not None and isinstance(excinfo.value, MemoryError)})
        if call.when == "teardown":
            bad = self.tampered(item)
            if bad:
                self.emit({"kind": "tamper", "what": bad})
            self.emit({"kind": "test", "nodeid": item.nodeid, "outcome": self.outcomes.get(item.nodeid, "error")})

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Every hidden module must have come from the grader's finder (not from a finder agent code added), and
        no tree file may have changed while the test modules were imported."""
        changed = self.changed_files()
        if changed:
            self.emit({"kind": "tamper", "what": changed})
        seen: dict[int, Any] = {}
        for item in session.items:
            module = getattr(item, "module", None)
            if module is not None:
                seen.setdefault(id(module), module)
        self.modules = list(seen.values())
        self.objects = {item.nodeid: getattr(item, "obj", None) for item in session.items}
        self.namespace = _namespace(self.modules)
        for name in self.hidden.names:
            module = sys.modules.get(name)
            spec = getattr(module, "__spec__", None)
            if module is not None and getattr(spec, "loader", None) is not self.hidden:
                self.emit({"kind": "tamper", "what": [f"hidden module {name} was not loaded by the grader"]})

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Records collection errors (an import that fails or skips is no result: the host counts it failed)."""
        if report.outcome != "passed":
            self.emit({"kind": "collect", "nodeid": report.nodeid, "outcome": report.outcome,
                       "head": str(report.longreprtext)[-self.head:]})

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Marks a run that reached its end, with a last tamper check."""
        bad = self.tampered()
        if bad:
            self.emit({"kind": "tamper", "what": bad})
        self.emit({"kind": "end", "count": len(self.outcomes)})


def _tree_paths(root: str) -> list[str]:
    return [os.path.join(d, n) for d, _, names in os.walk(root) for n in names]


def _identity(path: str) -> tuple[int, int, int] | None:
    """A file's inode, change time and size: any write, replacement or removal changes it."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_ctime_ns, st.st_size)


class HiddenSources:
    """A meta-path finder that serves the hidden test modules from memory: on disk they are placeholders.

    The finder is reachable from agent code (`sys.meta_path`), so the sources are no attribute of it: they
    live in its methods' closure only (no `__dict__`, slots hold nothing but the names and the methods), and
    each is dropped once its module ran. A module the agent's code imports first cannot read a later
    hidden module's source off the finder.
    """

    __slots__ = ("exec_module", "find_spec", "names")

    def __init__(self, sources: dict[str, tuple[str, str]]) -> None:
        self.names: tuple[str, ...] = tuple(sorted(sources))
        table = dict(sources)  # module name -> (file path, source)
        finder = self

        def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
            """Returns a spec for a hidden test module, else None (the normal finders go on)."""
            import importlib.util

            entry = table.get(name)
            if entry is None:
                return None
            return importlib.util.spec_from_loader(name, finder, origin=entry[0])  # type: ignore[arg-type]

        def exec_module(module: Any) -> None:
            """Compiles and runs the hidden source, dropping the text first."""
            file, source = table.pop(module.__name__)
            module.__file__ = file
            code = compile(source, file, "exec")
            del source
            exec(code, module.__dict__)

        self.find_spec = find_spec
        self.exec_module = exec_module

    def create_module(self, spec: Any) -> None:
        """Default module creation."""


# ---- values out of a function task, strictly typed ----

class Unserializable(Exception):
    """Raised when a function returned something that is not plain JSON data."""


def plain(value: Any, depth: int = 0) -> Any:
    """The value as tagged plain data: only exact builtin types, so a subclass or an always-equal object fails."""
    if depth > 50:
        raise Unserializable("nested too deep")
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return {"__float__": repr(value)}
    if kind in (list, tuple):
        return {f"__{kind.__name__}__": [plain(v, depth + 1) for v in value]}
    if kind is dict:
        if not all(type(k) is str for k in value):
            raise Unserializable("dict keys must be str")
        return {"__dict__": {k: plain(v, depth + 1) for k, v in value.items()}}
    if kind is decimal.Decimal:
        return {"__decimal__": str(value)}
    raise Unserializable(f"a {kind.__module__}.{kind.__qualname__} is not plain data")


# ---- one run in the child ----

def _limits(req: dict[str, Any]) -> None:
    lim = req["limits"]
    cpu = int(lim["cpu_s"])
    for which, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (lim["as_bytes"],) * 2),
        (resource.RLIMIT_NOFILE, (lim["nofile"],) * 2),
        (resource.RLIMIT_FSIZE, (lim["fsize_bytes"],) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NPROC, (lim["nproc"],) * 2),
    ):
        resource.setrlimit(which, value)


def child(req: dict[str, Any], out_w: int, res_w: int, stdin_path: str) -> None:
    """Runs one request in the forked child; never returns."""
    code = 70
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setpgid(0, 0)
        fd0 = os.open(stdin_path, os.O_RDONLY)
        os.dup2(fd0, 0)
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        keep = os.dup2(res_w, 3) if res_w != 3 else 3
        os.closerange(4, 1 << 16)
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        os.environ.clear()
        os.environ.update(req["env"])
        import tempfile

        tempfile.tempdir = None  # the warm-up cached the worker's; the run's TMPDIR applies
        tree = req["tree"]
        os.chdir(tree)
        # The tree goes after the standard library and site-packages: a tree module cannot shadow them.
        sys.path[:] = [p for p in sys.path if p not in ("", ".")] + [tree]
        _limits(req)
        kind = req["kind"]
        if kind == "pytest":
            hidden = HiddenSources({k: (os.path.join(tree, v[0]), v[1]) for k, v in req["hidden"].items()})
            plugin = GraderPlugin(keep, req["nonce"], int(req["head"]), hidden, bool(req.get("grading")))
            code = int(pytest.main(list(req["args"]), plugins=[plugin]))
        elif kind == "python":
            sys.argv = [req.get("module") or "-c", *req["argv"]]
            try:
                if req.get("module"):
                    runpy.run_module(req["module"], run_name="__main__", alter_sys=True)
                else:
                    exec(compile(req["code"], "<run_python>", "exec"), {"__name__": "__main__"})
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            except MemoryError:  # the address-space limit: a recorded resource limit, not a plain failure
                write_all(keep, (_DUMPS({"kind": "memory", "nonce": req["nonce"]}) + "\n").encode())
                code = 1
            except BaseException:  # the agent's code failed: its traceback is the output
                import traceback

                traceback.print_exc()
                code = 1
        elif kind == "call":
            import builtins
            import importlib

            for i, (module, function, args) in enumerate(req["calls"]):
                try:
                    # Imported at its first call: a module that fails to import fails its calls, not the run.
                    fn = getattr(importlib.import_module(module), function)
                    result = {"kind": "result", "index": i, "value": plain(fn(*args))}
                except BaseException as exc:  # the agent's function failed on this input: a wrong answer
                    # A result that is not plain data raised nothing the function was asked to raise.
                    raised = [] if isinstance(exc, Unserializable) else [
                        c.__name__ for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c]
                    result = {"kind": "result", "index": i, "error": f"{type(exc).__name__}: {exc}"[:500],
                              "raised": raised}
                write_all(keep, (_DUMPS({**result, "nonce": req["nonce"]}) + "\n").encode())
            code = 0
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:  # a closed or broken stdout is the agent's doing
            pass
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:
        try:
            import traceback

            traceback.print_exc()
        except BaseException:  # nothing left to report with
            pass
        code = 71
    os._exit(code & 0xFF)


# ---- the worker loop ----

_CHLD: list[int] = []
"""The self-pipe SIGCHLD writes to (read end, write end)."""

PIDNS = False
"""Whether the worker has a pid namespace of its own (then every other process in it is the run's)."""


def _run_pids(group: int, *, live: bool = False) -> list[int]:
    """The run's processes: all but the worker's line in its own pid namespace, else the child's process group;
    with `live`, not the zombies (dead, waiting to be reaped)."""
    keep = {os.getpid(), os.getppid(), 1, *ZYGOTE[:1]}
    pids: list[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in keep:
            continue
        if live or not PIDNS:
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
                if live and fields[0] in (b"Z", b"X"):
                    continue
                if not PIDNS and int(fields[2]) != group:  # the process group, after state and parent
                    continue
            except (OSError, IndexError, ValueError):
                continue
        pids.append(int(name))
    return pids


_KILL_PASSES = 200
"""How many passes `_kill_run` makes at most (each lists the run's living processes and kills them)."""


def _kill_run(group: int) -> int:
    """Kills every process of the run (a child that left its group too, in a pid namespace), pass after pass
    until none lives: a process that forks while a pass lists /proc has its child caught by the next, so
    nothing of a run outlives it into the next run's. Zombies are dead already; the caller reaps them (after
    it has waited for the run's child, which a reap of every child would take from it). Returns how many it
    killed."""
    hit: set[int] = set()
    for _ in range(_KILL_PASSES):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        alive = _run_pids(group, live=True)
        if not alive:
            break
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                hit.add(pid)
        time.sleep(0.001)  # a killed process takes a moment to die: wait for it, not spin
    return len(hit)


def _reap_orphans() -> None:
    """Reaps every exited process the worker adopted: as the subreaper of the zygote's children, it inherits
    a run's orphans, which would otherwise stay zombies in the pid namespace's process table."""
    while True:
        try:
            done, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if done == 0:
            return


def _rss_bytes(group: int) -> int:
    """Resident memory of the run's processes."""
    total, page = 0, os.sysconf("SC_PAGE_SIZE")
    for pid in _run_pids(group):
        try:
            with open(f"/proc/{pid}/statm", "rb") as fh:
                total += int(fh.read().split()[1]) * page
        except (OSError, IndexError, ValueError):
            pass
    return total


def _disk_bytes(paths: list[str]) -> int:
    """Bytes in use on the scratch file systems (private tmpfs mounts, so only the run's own files)."""
    total = 0
    for path in paths:
        try:
            st = os.statvfs(path)
        except OSError:
            continue
        total += (st.f_blocks - st.f_bfree) * st.f_frsize
    return total


def _wipe(path: str) -> None:
    """Empties a directory, whatever the child left in it (read-only modes included), but never what is
    mounted inside it: a project whose interpreter lives under /tmp has it bound read-only into the
    sandbox's /tmp, and every wipe used to walk all of it (19,692 entries, twice a run, when the CI dry
    run's clone sat in /tmp: the workers then spent about a third of a core each on it).

    Most runs leave nothing read-only, so the removal is tried first; only when something of the run's
    own survives it are its folders made writable and removed again.
    """
    if not os.path.isdir(path):
        return
    mounts = _mounts_under(path)
    if not _remove_children(path, mounts):
        return
    for root, dirs, _files in os.walk(path):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in mounts]
        for d in dirs:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(root, d), 0o700)
    _remove_children(path, mounts)


@functools.cache
def _mounts_under(path: str) -> frozenset[str]:
    """The mount points strictly below `path`, from /proc/self/mountinfo (none if it cannot be read).

    Read once per folder, at the first run's first wipe, before any run's code: only the sandbox's own
    mounts are spared, never one a run might have made.
    """
    prefix = os.path.normpath(path).rstrip("/") + "/"
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return frozenset()
    points = set()
    for line in lines:
        fields = line.split(" ")
        if len(fields) > 4:
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            if point.startswith(prefix):
                points.add(point.rstrip("/"))
    return frozenset(points)


def _remove_children(path: str, mounts: frozenset[str]) -> bool:
    """Removes what `path` holds, leaving `mounts` and the folders that lead to them; True if something else is left."""
    import shutil

    left = False
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if full in mounts:
            continue
        if any(m.startswith(full + "/") for m in mounts):
            left = _remove_children(full, mounts) or left
            continue
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(full)
        left = left or os.path.lexists(full)
    return left


def _materialize(tree: str, files: dict[str, list[Any]]) -> None:
    for rel, (text, mode) in sorted(files.items()):
        full = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.chmod(full, int(mode))


# ---- the zygote ----

ZYGOTE: list[Any] = []
"""In the worker: [the zygote's pid, the socket to it]."""

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36


def _start_zygote() -> None:
    """Forks the zygote (see the module docstring) and makes the worker the subreaper of its children."""
    import socket

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    worker = os.getpid()
    pid = os.fork()
    if pid == 0:
        ours.close()
        _zygote(theirs, worker, libc)
    theirs.close()
    # Ready when it says so: its own start-up (closing the worker's descriptors) is done before any request.
    if ours.recv(1) != b"Z":
        raise RuntimeError("the zygote did not start")
    ZYGOTE[:] = [pid, ours]


def _zygote(sock: Any, worker: int, libc: Any) -> None:
    """The zygote's loop: for each run's pipes, a child forked through an intermediate; never returns."""
    import socket

    try:
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != worker:
            os._exit(0)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in _CHLD:
            os.close(fd)
        # The host's pipes are the worker's alone: the host must see them close when the worker goes.
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1):
            os.dup2(null, fd)
        os.close(null)
        sock.sendall(b"Z")
        while True:
            msg, fds, _, _ = socket.recv_fds(sock, 16, 4)
            if not msg or len(fds) != 4:
                os._exit(0)
            middle = os.fork()
            if middle == 0:
                me = os.getpid()
                pid = os.fork()
                if pid == 0:
                    sock.close()
                    _from_zygote(fds, me)
                with contextlib.suppress(OSError):
                    os.setpgid(pid, pid)
                os._exit(0)
            for fd in fds:
                os.close(fd)
            os.waitpid(middle, 0)
    except BaseException:  # the zygote has no one to report to: the worker sees its socket close
        os._exit(70)


def _from_zygote(fds: list[int], middle: int) -> None:
    """In a child the zygote forked: waits to be the worker's, tells its pid, reads its request, runs it."""
    out_w, res_w, req_r, pid_w = fds
    while os.getppid() == middle:  # the intermediate is exiting; then the subreaper (the worker) adopts us
        time.sleep(0.0002)
    write_all(pid_w, str(os.getpid()).encode())
    os.close(pid_w)
    req = read_frame(req_r)
    os.close(req_r)
    child(req, out_w, res_w, req["stdin_path"])


def _sched_state(pid: int | str) -> tuple[bytes, int, int]:
    """A process's state letter, nice value and scheduling policy, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat", "rb") as fh:
        fields = fh.read().rsplit(b")", 1)[1].split()
    return fields[0], int(fields[16]), int(fields[38])


_BASELINE: dict[str, tuple[int, int]] = {}
"""The worker's and the zygote's nice value and scheduling policy at start-up."""


def _healthy() -> bool:
    """Whether the worker and its zygote are as they started: the zygote alive and not stopped, and neither
    reniced or rescheduled. A run's code has their uid, so it can signal or renice them, and every later child
    forked from the zygote would inherit what it did (another episode's run, failed or starved)."""
    pid = ZYGOTE[0]
    try:
        if os.waitpid(pid, os.WNOHANG)[0]:
            return False
        zygote, worker = _sched_state(pid), _sched_state("self")
    except (ChildProcessError, OSError, IndexError, ValueError):
        return False
    return (zygote[0] not in (b"T", b"t", b"Z", b"X") and zygote[1:] == _BASELINE["zygote"]
            and worker[1:] == _BASELINE["worker"])


def _spawn_child(req: dict[str, Any], out_w: int, res_w: int, stdin_path: str) -> int:
    """Has the zygote start the run's child; returns its pid (the worker's child by then)."""
    import socket

    req_r, req_w = os.pipe()
    pid_r, pid_w = os.pipe()
    try:
        socket.send_fds(ZYGOTE[1], [b"R"], [out_w, res_w, req_r, pid_w])
    finally:
        os.close(req_r)
        os.close(pid_w)
    told = bytearray()
    while chunk := os.read(pid_r, 32):
        told += chunk
    os.close(pid_r)
    if not told:
        os.close(req_w)
        raise RuntimeError("the zygote started no child")
    write_frame(req_w, {**req, "stdin_path": stdin_path})
    os.close(req_w)
    return int(told)


def run(req: dict[str, Any], ctl: int, disk_paths: list[str]) -> dict[str, Any]:
    """Runs one request in a child from the zygote and returns what happened."""
    wall_s = req.get("wall_s")
    tree = req["tree"]
    scratch = os.path.dirname(tree)
    _reap_orphans()  # the last run's, killed after its end
    _wipe(scratch)
    for path in req["wipe"]:
        _wipe(path)
        os.makedirs(path, exist_ok=True)
    os.makedirs(tree, exist_ok=True)
    _materialize(tree, req["files"])
    stdin_path = os.path.join(scratch, ".stdin")
    with open(stdin_path, "w", encoding="utf-8") as fh:
        fh.write(req.get("stdin") or "")
    base_disk = _disk_bytes(disk_paths)
    out_r, out_w = os.pipe()
    res_r, res_w = os.pipe()
    try:
        pid = _spawn_child(req, out_w, res_w, stdin_path)
    finally:
        os.close(out_w)
        os.close(res_w)
    with contextlib.suppress(PermissionError, ProcessLookupError):
        os.setpgid(pid, pid)  # also here, so that no kill can come before the child's own setpgid
    clock = RunClock(pid)
    timed_out = False
    cap, res_cap = int(req["output_cap"]), int(req["results_cap"])
    out, res = bytearray(), bytearray()
    out_total = res_total = 0
    limit: str | None = None
    cancelled = False
    open_fds = {out_r, res_r}
    status = None
    lim = req["limits"]
    wakes = 0
    while open_fds or status is None:
        ready, _, _ = select.select([*open_fds, ctl, _CHLD[0]], [], [], POLL_S)
        wakes += 1
        for fd in ready:
            if fd == ctl:
                os.read(ctl, 1)
                cancelled = True
                continue
            if fd == _CHLD[0]:
                with contextlib.suppress(BlockingIOError):
                    os.read(fd, 512)
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                open_fds.discard(fd)
                continue
            if fd == out_r:
                out_total += len(chunk)
                if len(out) < cap:
                    out += chunk[: cap - len(out)]
            else:
                res_total += len(chunk)
                if len(res) < res_cap:
                    res += chunk[: res_cap - len(res)]
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
        # Limits are polled when the child is quiet, and every 16th wake-up of a chatty one.
        if limit is None and status is None and (not ready or wakes % 16 == 0):
            if _rss_bytes(pid) > lim["rss_bytes"]:
                limit = "memory"
            elif _disk_bytes(disk_paths) - base_disk > lim["disk_bytes"]:
                limit = "disk"
            elif res_total > res_cap:
                limit = "results"
        if wall_s is not None and not timed_out and status is None and (not ready or wakes % 16 == 0):
            timed_out = clock.seconds() > float(wall_s)
        if (cancelled or limit or timed_out) and status is None:
            _kill_run(pid)
            _, status = os.waitpid(pid, 0)
        if status is not None and open_fds:
            # The child is gone; whatever it left behind (a background process holding a pipe) goes too.
            _kill_run(pid)
    swept = _kill_run(pid)
    _reap_orphans()
    # The read ends are the worker's, not the child's: left open, every run leaked two descriptors until,
    # some 500 runs in, select() met one numbered past 1024 and the worker died under a run.
    os.close(out_r)
    os.close(res_r)
    for path in req["wipe"]:
        _wipe(path)
    _wipe(scratch)
    signum = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    return {
        "ok": True, "exit": code, "signal": signum, "cancelled": cancelled, "timed_out": timed_out, "limit": limit,
        "output": out.decode("utf-8", "replace"), "output_bytes": out_total,
        "results": res.decode("utf-8", "replace"), "results_bytes": res_total, "swept": swept,
    }


_WARMUP = "def test_ok():\n    assert 1 + 1 == 2\n\ndef test_bad():\n    x = [1]\n    assert x == [2]\n"


def _warm_up(scratch: str) -> None:
    """Runs one small session in the worker itself, so that what pytest loads lazily (failure formatting,
    assertion rewriting) is loaded once here and not again in every child."""
    root = os.path.join(scratch, "warmup")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "test_saas_sim_warmup.py"), "w", encoding="utf-8") as fh:
        fh.write(_WARMUP)
    saved_out, saved_err, cwd = os.dup(1), os.dup(2), os.getcwd()
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    try:
        os.chdir(root)
        pytest.main(["-q", "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", ".", root])
    finally:
        # What pytest printed stays in sys.stdout's buffer: flushed here, it goes to /dev/null, never later to
        # the host's pipe (a worker's exit flushes it).
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os.chdir(cwd)
        os.dup2(saved_out, 1)
        os.dup2(saved_err, 2)
        for fd in (saved_out, saved_err, null):
            os.close(fd)
        sys.modules.pop("test_saas_sim_warmup", None)
        _wipe(root)
        os.rmdir(root)


_MS_RDONLY, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    enc = [None if v is None else v.encode() for v in (source, target, fstype, data)]
    if libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {source} on {target}: {os.strerror(err)}")


def _private_mounts(conf: dict[str, Any]) -> None:
    """In the `unshare` sandbox (a mount namespace of its own, still root): private size-capped tmpfs mounts
    for the scratch folder and /tmp, and the interpreter made reachable for the run user where a closed
    folder (such as /root, mode 0700) holds it: a tmpfs over the closed folder with the prefix bound back
    read-only. Nothing of this is visible outside the namespace."""
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    size = int(conf["tmpfs_bytes"])
    stage = os.path.join(conf["scratch"], ".stage")
    os.makedirs(stage, exist_ok=True)
    for i, prefix in enumerate(conf["expose"]):
        parts = prefix.strip("/").split("/")
        closed = next((d for d in ("/" + "/".join(parts[:k]) for k in range(1, len(parts)))
                       if not os.stat(d).st_mode & 0o001), None)
        if closed is None:
            continue
        held = os.path.join(stage, str(i))
        os.makedirs(held, exist_ok=True)
        _mount(prefix, held, None, _MS_BIND | _MS_REC)
        _mount("tmpfs", closed, "tmpfs", 0, "mode=0755,size=1m")
        os.makedirs(prefix, exist_ok=True)
        _mount(held, prefix, None, _MS_BIND | _MS_REC)
        _mount(None, prefix, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY)
    # A prefix under the host's /tmp (a virtualenv in a CI clone) would vanish under the private /tmp:
    # hold it by a file descriptor across that mount, then bind it back read-only.
    under_tmp = [p for p in conf["expose"] if p == "/tmp" or p.startswith("/tmp/")]
    held_fds = [(p, os.open(p, os.O_PATH | os.O_DIRECTORY)) for p in under_tmp]
    _mount("tmpfs", "/tmp", "tmpfs", 0, f"mode=1777,size={size}")
    for prefix, fd in held_fds:
        os.makedirs(prefix, mode=0o755, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", prefix, None, _MS_BIND | _MS_REC)
        _mount(None, prefix, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY)
        os.close(fd)
    os.makedirs(conf["scratch"], exist_ok=True)  # the host's folder may now be under the private /tmp
    _mount("tmpfs", conf["scratch"], "tmpfs", 0, f"mode=0777,size={size}")


def _drop_privileges(uid: int, gid: int) -> bool:
    """Becomes the run user in a user namespace of its own; returns whether that namespace was made."""
    if os.getuid() == 0 and uid != 0:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    libc = ctypes.CDLL(None, use_errno=True)
    own = _own_user_namespace(libc)
    if os.getuid() != 0:
        _drop_capabilities(libc)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS: no setuid binary regains privilege
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: a same-uid child cannot ptrace the worker or read its fds
    return own


_CLONE_NEWUSER = 0x10000000
_CAP_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _own_user_namespace(libc: Any) -> bool:
    """Moves the (unprivileged) worker into a user namespace of its own, its uid and gid mapped to themselves.

    The kernel counts RLIMIT_NPROC per user namespace and uid: without this, every worker's runs share
    the run user's one count, so a run that holds its limit's worth of processes (within its own limits)
    makes the forks of every other episode's concurrent runs fail. The ids inside stay the same, so a
    run sees what it saw before; the capabilities the namespace grants are dropped next
    (`_drop_capabilities`). False when the host forbids user namespaces (the runs then share the count).
    """
    uid, gid = os.getuid(), os.getgid()
    if uid == 0 or libc.unshare(_CLONE_NEWUSER) != 0:
        return False
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE 1: the setuid left /proc/self root's, and the maps closed to us
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1\n"), ("gid_map", f"{gid} {gid} 1\n")):
        with open(f"/proc/self/{name}", "w") as fh:
            fh.write(text)
    return True


def _drop_capabilities(libc: Any) -> None:
    """Empties every capability set: a new user namespace grants them all in it, and bwrap's --cap-add
    leaves CAP_SETUID and CAP_SETGID inheritable."""
    header = _CapHeader(_CAP_VERSION_3, 0)
    if libc.capset(ctypes.byref(header), (_CapData * 2)()) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")


def main() -> None:
    """The worker loop: one request frame in, one reply frame out, until stdin closes."""
    global PIDNS
    conf = read_frame(0)
    PIDNS = bool(conf["pidns"])
    if conf.get("private_mounts") and os.getuid() == 0:
        _private_mounts(conf)
    own_userns = _drop_privileges(int(conf["uid"]), int(conf["gid"]))
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # A child's exit wakes the worker's select at once (no poll interval at the end of every run).
    _CHLD.extend(os.pipe())
    for fd in _CHLD:
        os.set_blocking(fd, False)
    signal.set_wakeup_fd(_CHLD[1])
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
    _warm_up(str(conf["scratch"]))
    # Everything loaded so far lives as long as the worker: keep it out of every child's collections
    # (pytest collects at session end; a full collection of this heap cost ~70 ms a run) and its pages shared.
    import gc

    gc.collect()
    gc.freeze()
    _start_zygote()
    _BASELINE.update(zygote=_sched_state(ZYGOTE[0])[1:], worker=_sched_state("self")[1:])
    write_frame(1, {"ok": True, "ready": True, "uid": os.getuid(), "own_userns": own_userns,
                    "python": sys.version.split()[0],
                    "pytest": pytest.__version__})
    while True:
        try:
            req = read_frame(0)
        except EOFError:
            return
        if not _healthy():
            write_all(1, b"R")  # pool.RETIRE: an earlier run tampered with us; the host asks another worker
            return
        write_all(1, b"A")  # the request arrived (pool.ACK): from here on, a death is the run's
        write_frame(1, run(req, 0, list(conf["disk_paths"])))


if __name__ == "__main__":
    main()
