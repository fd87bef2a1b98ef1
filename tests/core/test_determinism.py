"""Determinism: one seeded context owns everything non-deterministic, and nothing else reads it.

* the same seeded flow gives byte-identical logs in separate processes with
  different `PYTHONHASHSEED`s, and identical hashes on SQLite and PostgreSQL;
* a full seeded flow runs with wall time, uuid4 and global random patched to raise;
* no module outside clock/ids/rng even calls them (a static scan of the source).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import random
import sys
import time
import tokenize
import uuid
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

import saas_sim
from saas_sim.core.canonical import canonical_bytes, stable_hash
from saas_sim.core.clock import SimClock
from saas_sim.core.rng import SeedTree
from saas_sim.core.state import State
from saas_sim.core.store import open_store
from tests.conftest import StoreFactory
from tests.core.scripts import seeded_flow
from tests.core.scripts.seeded_flow import PROJECTION, REG, build_flow, run_flow

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(saas_sim.__file__).parent


@pytest.fixture
def registry() -> Any:
    return REG


# --- seed tree -------------------------------------------------------------------------------------


def test_seed_tree_gives_the_same_streams_for_the_same_seed() -> None:
    a, b = SeedTree(7), SeedTree(7)
    assert [a.random("x").random() for _ in range(3)] == [b.random("x").random() for _ in range(3)]
    assert a.faker("p").name() == b.faker("p").name()
    assert a.random("x").random() != a.random("y").random()
    assert SeedTree(7).random("x").random() != SeedTree(8).random("x").random()


def test_a_named_stream_is_fresh_on_every_call() -> None:
    tree = SeedTree("s")
    assert tree.random("r").random() == tree.random("r").random()


def test_a_child_tree_draws_apart_from_its_parent() -> None:
    parent = SeedTree(1)
    child = parent.child("episode-1")
    assert child.seed == SeedTree(1).child("episode-1").seed
    assert child.random("r").random() != parent.random("r").random()


def test_the_seeded_flow_is_reproducible_in_process() -> None:
    first = canonical_bytes([(s, e, t, c) for s, e, t, c in build_flow(99)])
    assert first == canonical_bytes([(s, e, t, c) for s, e, t, c in build_flow(99)])
    assert first != canonical_bytes([(s, e, t, c) for s, e, t, c in build_flow(100)])


# --- 10. cross-process and cross-backend determinism ----------------------------------------------


async def _flow_in_subprocess(url: str, hash_seed: str, seed: str = "20260302") -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.core.scripts.seeded_flow", url, seed,
        cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()[-3000:]
    return out


async def test_the_same_seeded_flow_gives_byte_identical_logs_across_processes_and_hash_seeds(
    tmp_path: Path,
) -> None:
    in_process = await _flow_summary("20260302")
    runs = await asyncio.gather(
        _flow_in_subprocess("sqlite+aiosqlite:///:memory:", "0"),
        _flow_in_subprocess(f"sqlite+aiosqlite:///{tmp_path / 'flow.db'}", "12345"),
    )
    assert runs[0] == runs[1] == in_process + b"\n"
    summary = json.loads(runs[0])
    assert len(summary["log"]) > 40 and len(summary["heads"]) > 5


@pytest.mark.postgres
async def test_sqlite_and_postgresql_store_identical_logs_and_stream_hashes(
    pg_url: str, open_stores: StoreFactory
) -> None:
    sqlite_run, pg_store = await asyncio.gather(
        _flow_in_subprocess("sqlite+aiosqlite:///:memory:", "3"), open_stores(pg_url)
    )
    pg_summary = await run_flow(pg_store, "20260302")
    sqlite_summary = json.loads(sqlite_run)
    assert pg_summary["heads"] == sqlite_summary["heads"]
    assert pg_summary["state_hash"] == sqlite_summary["state_hash"]
    assert canonical_bytes(pg_summary) + b"\n" == sqlite_run


# --- no wall clock, no uuid4, no global random ----------------------------------------------------


class WallClockRead(AssertionError):
    """Raised by a patched non-deterministic source."""


def _forbidden(name: str) -> Any:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise WallClockRead(f"{name} was called during a seeded flow")

    return boom


class _PassThroughMeta(type):
    """isinstance/issubclass against the patched class still accept the real class's instances."""

    _real: type

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls._real)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls._real)


_REAL_DATETIME, _REAL_DATE = datetime, date


class _NoNowDateTime(datetime, metaclass=_PassThroughMeta):
    """`datetime` whose wall-clock constructors raise."""

    _real = _REAL_DATETIME
    now = classmethod(_forbidden("datetime.now"))  # type: ignore[assignment]
    utcnow = classmethod(_forbidden("datetime.utcnow"))  # type: ignore[assignment]
    today = classmethod(_forbidden("datetime.today"))  # type: ignore[assignment]


class _NoTodayDate(date, metaclass=_PassThroughMeta):
    """`date` whose wall-clock constructor raises."""

    _real = _REAL_DATE
    today = classmethod(_forbidden("date.today"))  # type: ignore[assignment]


@contextlib.contextmanager
def _no_wall_clock() -> Iterator[None]:
    """Patches every wall-clock, uuid and global-random source, where it lives and where it was imported."""
    import datetime as datetime_module

    replacements: dict[int, tuple[Any, Any]] = {
        id(time.time): (time.time, _forbidden("time.time")),
        id(time.time_ns): (time.time_ns, _forbidden("time.time_ns")),
        id(uuid.uuid4): (uuid.uuid4, _forbidden("uuid.uuid4")),
        id(uuid.uuid1): (uuid.uuid1, _forbidden("uuid.uuid1")),
        id(random.random): (random.random, _forbidden("random.random")),
        id(random.randint): (random.randint, _forbidden("random.randint")),
        id(random.choice): (random.choice, _forbidden("random.choice")),
        id(random.shuffle): (random.shuffle, _forbidden("random.shuffle")),
        id(datetime): (datetime, _NoNowDateTime),
        id(date): (date, _NoTodayDate),
    }
    modules = [time, uuid, random, datetime_module] + [
        m for name, m in sys.modules.items()
        if m is not None and name.split(".")[0] in ("saas_sim", "faker", "tests")
    ]
    with pytest.MonkeyPatch.context() as mp:
        for module in modules:
            for attr, value in list(vars(module).items()):
                hit = replacements.get(id(value))
                if hit is not None and hit[0] is value:
                    mp.setattr(module, attr, hit[1])
        yield


def test_the_patches_really_catch_wall_clock_reads() -> None:
    from saas_sim.core import clock

    with _no_wall_clock():
        for call in (time.time, time.time_ns, uuid.uuid4, random.random, clock.wall_ns):
            with pytest.raises(WallClockRead):
                call()
        with pytest.raises(WallClockRead):
            datetime.now()
        import datetime as datetime_module

        with pytest.raises(WallClockRead):
            datetime_module.datetime.utcnow()
        assert isinstance(SimClock().now(), datetime)
    assert time.time() > 0


async def test_a_full_seeded_flow_runs_with_wall_clock_uuid_and_global_random_banned() -> None:
    expected = await _flow_summary()
    with _no_wall_clock():
        banned = await _flow_summary()
        state = PROJECTION.fold(State(), [ev for _, evs, _, _ in build_flow(5) for ev in evs])
        digest = stable_hash({"state": state.content(), "at": SimClock().advance(10)})
    assert banned == expected
    assert digest == stable_hash({"state": state.content(), "at": SimClock().advance(10)})


async def _flow_summary(seed: str = "no-wall-clock") -> bytes:
    async with await open_store("sqlite+aiosqlite:///:memory:", registry=REG) as store:
        return canonical_bytes(await run_flow(store, seed))


# --- static scan ----------------------------------------------------------------------------------

SANCTIONED = {PACKAGE / "core" / name for name in ("clock.py", "ids.py", "rng.py")}

_CALL_PATTERNS: list[tuple[str, ...]] = [
    ("time", ".", "time", "("),
    ("time", ".", "time_ns", "("),
    ("datetime", ".", "now", "("),
    ("datetime", ".", "utcnow", "("),
    ("datetime", ".", "today", "("),
    ("date", ".", "today", "("),
    ("uuid4", "("),
    ("uuid1", "("),
    ("urandom", "("),
    ("random", ".", "random", "("),
    ("random", ".", "randint", "("),
    ("random", ".", "randrange", "("),
    ("random", ".", "choice", "("),
    ("random", ".", "choices", "("),
    ("random", ".", "shuffle", "("),
    ("random", ".", "sample", "("),
    ("random", ".", "uniform", "("),
    ("random", ".", "seed", "("),
]


def _code_tokens(path: Path) -> list[tuple[str, int]]:
    """The file's tokens without comments, strings and layout: (text, line)."""
    skip = {tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    source = path.read_text(encoding="utf-8")
    return [
        (tok.string, tok.start[0])
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type not in skip and tok.type != getattr(tokenize, "FSTRING_MIDDLE", -1)
    ]


def nondeterministic_calls(path: Path) -> list[str]:
    """Returns `line: call` for every wall-clock, uuid, global-random or builtin-hash call in a file."""
    tokens = _code_tokens(path)
    texts = [t for t, _ in tokens]
    found: list[str] = []
    for i, (text, line) in enumerate(tokens):
        prev = texts[i - 1] if i else ""
        for pattern in _CALL_PATTERNS:
            # `self.time.time(` is an attribute, not the module; a bare `uuid4(` is the function either way.
            qualified = len(pattern) > 2
            if tuple(texts[i : i + len(pattern)]) == pattern and not (qualified and prev == "."):
                found.append(f"{line}: {''.join(pattern)}")
        # builtin hash(): salted per process. `x.hash(`, `def hash(` and `chain_hash(` are other names.
        if text == "hash" and texts[i + 1 : i + 2] == ["("] and prev not in (".", "def"):
            found.append(f"{line}: hash(")
    return found


def test_the_scanner_finds_the_calls_it_is_meant_to_find(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import time, uuid, random\n"
        "from datetime import datetime\n"
        "a = time.time()\n"
        "b = datetime.now(tz=None)\n"
        "c = uuid.uuid4()\n"
        "d = random.random()\n"
        "e = hash('x')\n"
        "# time.time() in a comment is fine\n"
        "f = 'datetime.now() in a string is fine'\n"
        "g = self_rng.random()\n"
        "h = record.hash()\n"
        "i = chain_hash(1)\n"
    )
    assert nondeterministic_calls(sample) == [
        "3: time.time(", "4: datetime.now(", "5: uuid4(", "6: random.random(", "7: hash(",
    ]


def test_no_module_outside_clock_ids_and_rng_reads_wall_time_uuids_or_global_randomness() -> None:
    offenders = {
        str(path.relative_to(PACKAGE.parent)): calls
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in SANCTIONED and (calls := nondeterministic_calls(path))
    }
    assert offenders == {}, f"non-deterministic calls outside core/clock.py, ids.py, rng.py: {offenders}"


def test_the_seeded_flow_script_itself_is_clean() -> None:
    assert nondeterministic_calls(Path(seeded_flow.__file__)) == []
