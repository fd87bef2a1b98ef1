"""Shared fixtures: event stores on every backend, always closed, PostgreSQL in a schema of its own.

* `store_url` / `store` run a test on a SQLite file, SQLite in memory and PostgreSQL.
* `durable_store_url` runs it on the backends that survive a reopen (SQLite file, PostgreSQL).
* `pg_url` runs it on PostgreSQL only.

PostgreSQL comes from `SAAS_SIM_TEST_PG_URL`. Each test gets a fresh schema
(`?schema=t_<hex>`), dropped afterwards. Without the URL the PostgreSQL cases
skip with a visible reason, unless `CI` or `SAAS_SIM_REQUIRE_PG` is set: then
they fail, because CI must never skip them silently. The suite may run on several
pytest-xdist workers at once (`-n 2`): a test marked `pg_restart` (it stops the server)
holds every other PostgreSQL test off while it runs (`pg_server_access`).

A test module picks its own `EventRegistry` by overriding the `registry`
fixture, so event names never clash across modules.

The suite writes only under temporary folders: no bytecode (here or in any
subprocess, which inherits `PYTHONDONTWRITEBYTECODE`), and Hypothesis keeps
its storage in a temporary folder with no example database and no deadline (a
wall-time bound a loaded host breaks). The session fails
if bytecode or Hypothesis files appeared or changed in the source tree anyway.
"""

from __future__ import annotations

import os
import sys

# Before anything imports saas_sim: this process and every subprocess write no .pyc into the tree.
sys.dont_write_bytecode = True
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"

import asyncio  # noqa: E402
import dataclasses  # noqa: E402
import fcntl  # noqa: E402
import secrets  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping  # noqa: E402
from pathlib import Path  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

import asyncpg  # noqa: E402
import hypothesis  # noqa: E402
import hypothesis.configuration  # noqa: E402
import pytest  # noqa: E402

from saas_sim.core.domain import Domain  # noqa: E402
from saas_sim.core.events import EventRegistry  # noqa: E402
from saas_sim.core.store import EventStore, open_store  # noqa: E402
from saas_sim.runtime import environment as environment_module  # noqa: E402
from saas_sim.runtime.world import World, WorldProfile, code_version, resolve_domains, world_key  # noqa: E402

PG_ENV = "SAAS_SIM_TEST_PG_URL"
ROOT = Path(__file__).resolve().parent.parent

StoreFactory = Callable[..., Awaitable[EventStore]]

# Hypothesis writes its unicode tables and constants under its storage directory (`./.hypothesis` by
# default) even without an example database; point it at a temporary folder, removed at the end.
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="saas-sim-hypothesis-")
hypothesis.configuration.set_hypothesis_home_dir(_HYPOTHESIS_HOME)
# No deadline: Hypothesis fails an example that took over 200 ms of wall time, a timing a loaded host (the
# suite's other xdist worker, other jobs) stretches; it failed a one-line property under load.
hypothesis.settings.register_profile("saas_sim", database=None, deadline=None)
hypothesis.settings.load_profile("saas_sim")

_SKIP_DIRS = {".git", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache"}


def tree_artifacts(root: Path = ROOT) -> dict[str, int]:
    """Returns the bytecode, Hypothesis and default-store files under `root` (path -> mtime in ns).

    Tests must write none of them: a test that opens `Environment()` without a URL writes the
    default store `./.saas_sim/events.db` of the cwd, and concurrent runs then wait on its lock.
    """
    found: dict[str, int] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.endswith(".egg-info")]
        here = Path(folder)
        artifact_dir = bool({"__pycache__", ".hypothesis", ".saas_sim"} & set(here.parts))
        for name in files:
            if artifact_dir or name.endswith((".pyc", ".pyo")):
                path = here / name
                try:
                    found[str(path.relative_to(root))] = path.stat().st_mtime_ns
                except FileNotFoundError:  # removed while we walked
                    continue
    return found


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """With pytest-xdist disabled (`-p no:xdist`), accepts its `--numprocesses` and `--dist` and ignores them.

    So a command (or `addopts`, `PYTEST_ADDOPTS`) that asks for xdist workers still runs, in one process,
    when `-p no:xdist` is added for debugging; without this it would stop at the unknown options.
    """
    if not pluginmanager.has_plugin("xdist"):
        group = parser.getgroup("xdist (disabled)")
        group.addoption("--numprocesses", action="store", default=None, help="ignored: pytest-xdist is disabled")
        group.addoption("--dist", action="store", default="no", help="ignored: pytest-xdist is disabled")


_BEFORE: dict[str, int] = {}


def pytest_sessionstart(session: pytest.Session) -> None:
    """Records the source tree's artifacts before any test runs."""
    _BEFORE.update(tree_artifacts())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fails the run if a test wrote bytecode or Hypothesis files into the source tree."""
    shutil.rmtree(_HYPOTHESIS_HOME, ignore_errors=True)
    after = tree_artifacts()
    written = sorted(p for p, mtime in after.items() if _BEFORE.get(p) != mtime)
    if written:
        shown = "\n  ".join(written[:20])
        sys.stderr.write(f"\nERROR: the test suite wrote {len(written)} file(s) into the source tree:\n  {shown}\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_WorldMemoKey = tuple[str, tuple[int, ...], tuple[int, ...]]
_WORLD_MEMO: dict[_WorldMemoKey, tuple[World, tuple[str, ...], tuple[Domain, ...]]] = {}
_WORLD_MEMO_LOCK = threading.Lock()
_KEY_LOCKS: dict[_WorldMemoKey, threading.Lock] = {}
_WORLD_MEMO_SIZE = 64


def _memo_key(profile: WorldProfile, seed: int, known: Mapping[str, Domain]) -> tuple[_WorldMemoKey, list[Domain]]:
    domains = resolve_domains(profile, known)
    key = world_key(profile, seed, code_version({d.name: d for d in domains}))
    # The domain objects themselves, not only their names and schema versions: a test may build two
    # domains of one name that generate different data (their ids are kept alive by the memo's entry).
    return (key, tuple(id(d) for d in domains), tuple(id(d) for d in known.values())), domains


def memo_build_world(profile: WorldProfile, seed: int, known: Mapping[str, Domain],
                     progress: Callable[[str], None] | None = None) -> World:
    """`build_world`, built at most once per test process for each (profile content, seed, domain objects).

    `build_world` is pure (the same inputs give the same world hash) and a world's state is immutable,
    so a world built by one test's `Environment` serves every later one, as it does within one
    `Environment`. Each `Environment` still gets it through its own path (snapshot lookup first, then
    this, then it saves its own snapshot), with the caller's own profile object, and the progress
    messages the build said are said again, so nothing a test observes depends on which test built it.
    """
    key, domains = _memo_key(profile, seed, known)
    with _WORLD_MEMO_LOCK:
        key_lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    with key_lock:  # one build per key even when two environments build it from two threads
        with _WORLD_MEMO_LOCK:
            hit = _WORLD_MEMO.pop(key, None)
            if hit is not None:
                _WORLD_MEMO[key] = hit  # most recently used last
        if hit is None:
            said: list[str] = []

            def record(msg: str) -> None:
                said.append(msg)
                if progress is not None:
                    progress(msg)

            world = _BUILD_WORLD(profile, seed, known, record)
            with _WORLD_MEMO_LOCK:
                _WORLD_MEMO[key] = (world, tuple(said), (*domains, *known.values()))
                while len(_WORLD_MEMO) > _WORLD_MEMO_SIZE:  # the least recently used goes (a world: ~10-20 MB)
                    del _WORLD_MEMO[next(iter(_WORLD_MEMO))]
            return world
    world, messages, _ = hit
    if progress is not None:
        for msg in messages:
            progress(msg)
    return world if world.profile is profile else dataclasses.replace(world, profile=profile)


_BUILD_WORLD = environment_module.build_world


@pytest.fixture(scope="session", autouse=True)
def _world_memo() -> Iterator[None]:
    """Environments in this process share built worlds (`memo_build_world`); a test may still patch
    `environment.build_world` itself (tests/runtime/test_world_cache.py does)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(environment_module, "build_world", memo_build_world)
        yield
    _WORLD_MEMO.clear()


async def wait_until(predicate: Callable[[], bool], *, timeout_s: float = 30.0, what: str = "condition") -> None:
    """Waits until `predicate()` is true, polling; fails the test if it is still false after `timeout_s`.

    The timeout is a safety net for a hung test, never a measurement: nothing asserts on how long it took.
    """
    try:
        async with asyncio.timeout(timeout_s):
            while not predicate():  # noqa: ASYNC110 - for state that signals no event of its own
                await asyncio.sleep(0.01)
    except TimeoutError:
        pytest.fail(f"timed out after {timeout_s:g}s waiting for {what}")


def pg_base_url() -> str:
    """Returns the PostgreSQL test URL, or skips (fails in CI) when none is configured."""
    url = os.environ.get(PG_ENV, "").strip()
    if url:
        return url
    if os.environ.get("CI") or os.environ.get("SAAS_SIM_REQUIRE_PG"):
        pytest.fail(f"{PG_ENV} is not set, but PostgreSQL tests must run here (CI/SAAS_SIM_REQUIRE_PG)")
    pytest.skip(f"PostgreSQL tests need {PG_ENV}, e.g. postgresql+asyncpg://postgres@127.0.0.1:5432/test")


def asyncpg_dsn(url: str) -> str:
    """Turns a store URL into a plain DSN asyncpg accepts (no driver suffix, no query)."""
    rest = url.partition("://")[2]
    return "postgresql://" + rest.partition("?")[0]


def with_option(url: str, key: str, value: str) -> str:
    """Appends a query option to a URL."""
    return f"{url}{'&' if '?' in url else '?'}{key}={value}"


async def admin_connection() -> asyncpg.Connection:
    """Opens a plain asyncpg connection to the test database (for setup, fault injection, cleanup)."""
    return await asyncpg.connect(asyncpg_dsn(pg_base_url()), timeout=10)


async def drop_schema(schema: str) -> None:
    """Drops a test schema and everything in it."""
    conn = await admin_connection()
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


@pytest.fixture
def pg_server_access(request: pytest.FixtureRequest) -> Iterator[None]:
    """Shares the PostgreSQL server with the other tests, or has it alone for a test marked `pg_restart`.

    A restart cuts off every connection to the server, so while one runs no other PostgreSQL test may
    (pytest-xdist's other workers, or another pytest run on this host): each holds a shared lock on a
    file named for the server for its duration, and a `pg_restart` test an exclusive one. It waits for
    the lock without a deadline: a test in progress always ends.
    """
    parts = urlsplit("postgresql://" + pg_base_url().partition("://")[2])
    path = Path(tempfile.gettempdir()) / f"saas-sim-pg-{parts.hostname or 'localhost'}-{parts.port or 5432}.lock"
    exclusive = request.node.get_closest_marker("pg_restart") is not None
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
async def pg_url(pg_server_access: None) -> AsyncIterator[str]:
    """A PostgreSQL store URL on a fresh schema, dropped after the test."""
    schema = f"t_{secrets.token_hex(8)}"
    url = with_option(pg_base_url(), "schema", schema)
    try:
        yield url
    finally:
        await drop_schema(schema)


_PG = pytest.param("postgres", marks=pytest.mark.postgres, id="postgres")


def _url_for(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if kind == "sqlite-file":
        return f"sqlite+aiosqlite:///{tmp_path / 'events.db'}"
    if kind == "sqlite-memory":
        return "sqlite+aiosqlite:///:memory:"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture(params=["sqlite-file", "sqlite-memory", _PG])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL on each backend: SQLite file, SQLite memory, PostgreSQL."""
    return _url_for(request.param, tmp_path, request)


@pytest.fixture(params=["sqlite-file", _PG])
def durable_store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL on each backend that outlives its store: SQLite file and PostgreSQL."""
    return _url_for(request.param, tmp_path, request)


@pytest.fixture
def registry() -> EventRegistry:
    """The event registry stores are opened with; test modules override it with their own."""
    return EventRegistry()


@pytest.fixture
async def open_stores(registry: EventRegistry) -> AsyncIterator[StoreFactory]:
    """A factory that opens stores (default: with `registry`) and closes every one after the test."""
    opened: list[EventStore] = []

    async def factory(url: str, **kwargs: object) -> EventStore:
        kwargs.setdefault("registry", registry)
        s = await open_store(url, **kwargs)  # type: ignore[arg-type]
        opened.append(s)
        return s

    try:
        yield factory
    finally:
        for s in reversed(opened):
            await s.close()


@pytest.fixture
async def store(store_url: str, open_stores: StoreFactory) -> EventStore:
    """An open store on each backend; closed after the test."""
    return await open_stores(store_url)
