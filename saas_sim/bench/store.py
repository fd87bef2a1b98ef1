"""The store benchmark behind `saas-sim bench store`: measured, never estimated.

Every number comes from this run on this machine:

* `sqlite_events_per_s_single`: one appender, one event per append, so one
  transaction per event (SQLite file, `synchronous=NORMAL`);
* `sqlite_events_per_s_group`: 1,000 streams appending concurrently through one
  store, one event per append, group-committed (SQLite file);
* `sqlite_durable_events_per_s_group`: the same with `synchronous=FULL`;
* `sqlite_events_per_s_group_preencoded`: the group run with events encoded
  beforehand (`append_pending`, as the runtime appends): the store's write
  path alone, without `EventRegistry.encode`;
* `sqlite_durable_append_us_p50` / `_p99`: the latency of one durable
  (`synchronous=FULL`) append with a command id, one at a time, as a tool
  call's write makes it (SQLite file); `raw_sqlite_durable_commit_us_p50` /
  `_p99` is its floor: the same transaction (the same reads and rows) in
  plain `sqlite3` on one thread, run right after it, so the fsync is what it
  was then (their difference is the store's overhead; it can come out
  negative when the disk's fsync time drifts between the two runs);
* `postgres_events_per_s_group`: the same on PostgreSQL, in a private schema
  that is dropped afterwards (only when a URL is given);
* `raw_sqlite_events_per_s`: stdlib `sqlite3` `executemany` of the very rows the
  group run stored (same table, payload bytes and hashes), 1,000 per
  transaction in a WAL file: the physical-limit reference;
* `fold_events_per_s`: folding decoded events into a state of frozen entities,
  and `fold_from_store_events_per_s`: read, verify, decode and fold from the store;
* `snapshot_load_us`: hash check plus `decode_state` of a snapshot of that state.

Rates are events per second of wall time; repeated measurements report the
median and list every run under `<key>_runs`. Only `saas_sim.core.clock` reads
the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import os
import platform
import sqlite3
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import aiosqlite

from saas_sim.bench.workload import BENCH_REGISTRY, SCHEMA, fold_events, line_event, projection
from saas_sim.core.canonical import sha256_hex
from saas_sim.core.clock import perf_ns, wall_ns
from saas_sim.core.events import Event, chain_hash
from saas_sim.core.schema import ddl_statements
from saas_sim.core.snapshots import decode_state, encode_state, load_state, take_snapshot
from saas_sim.core.state import State
from saas_sim.core.store import open_store
from saas_sim.errors import SnapshotError

__all__ = ["run_store_bench"]

Metrics = dict[str, float | int | str]
Progress = Callable[[str], None]

_STREAMS = 1000
_APPENDS_PER_STREAM = 20
_SINGLE_APPENDS = 2000
_SINGLE_REPEATS = 3
_GROUP_REPEATS = 3
_RAW_REPEATS = 5
_RAW_BATCH = 1000
_FOLD_EVENTS = 200_000
_FOLD_REPEATS = 3
_ACCOUNTS = 1000
_INVOICES = 5000
_SNAPSHOT_REPEATS = 15
_FOLD_STREAM = "world"


def _scaled(n: int, scale: float, minimum: int = 1) -> int:
    return max(minimum, round(n * scale))


def _rate(events: int, elapsed_ns: int) -> float:
    return events * 1e9 / max(elapsed_ns, 1)


def _median(values: list[float]) -> float:
    return float(statistics.median(values))


def _runs(values: list[float]) -> str:
    return ",".join(f"{v:.0f}" for v in values)


def _remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            Path(str(path) + suffix).unlink()


def _make_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)


def _sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path.resolve()}"


def _with_option(url: str, key: str, value: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{key}={value}"


async def _single(url: str, appends: int) -> float:
    """One appender, one event per append: every event pays a whole transaction."""
    events = [line_event(0, n) for n in range(appends)]
    store = await open_store(url, registry=BENCH_REGISTRY)
    try:
        gc.collect()
        start = perf_ns()
        for n, ev in enumerate(events):
            await store.append("acct_single", [ev], expected_version=n)
        elapsed = perf_ns() - start
    finally:
        await store.close()
    return _rate(appends, elapsed)


async def _durable_latencies(url: str, appends: int) -> list[float]:
    """One durable appender, one event and a command id per append: each append's latency in µs."""
    pending = [BENCH_REGISTRY.encode(line_event(0, n)) for n in range(appends)]
    store = await open_store(url, registry=BENCH_REGISTRY, durable=True)
    times: list[float] = []
    try:
        gc.collect()
        for n, p in enumerate(pending):
            start = perf_ns()
            await store.append_pending("acct_latency", [p], n, command_id=f"acct_latency/call_{n:06d}")
            times.append((perf_ns() - start) / 1000)
    finally:
        await store.close()
    return times[min(len(times) // 10, 100):]  # the first appends warm caches and create the stream


def _raw_durable_latencies(path: Path, appends: int) -> list[float]:
    """The floor of `_durable_latencies`: its transaction in plain `sqlite3` (FULL sync), in µs each."""
    _remove_db(path)
    pending = [BENCH_REGISTRY.encode(line_event(0, n)) for n in range(appends)]
    conn = sqlite3.connect(path, isolation_level=None)
    times: list[float] = []
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        for statement in ddl_statements("sqlite"):
            conn.execute(statement)
        prev = "0" * 64
        gc.collect()
        for n, p in enumerate(pending):
            cid = f"acct_latency/call_{n:06d}"
            start = perf_ns()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("SELECT version, head_hash FROM streams WHERE stream_id = ?", ("acct_latency",)).fetchall()
            conn.execute("SELECT * FROM commands WHERE command_id = ?", (cid,)).fetchall()
            conn.execute("SELECT COALESCE(MAX(global_position), 0) FROM events").fetchall()
            h = chain_hash(prev, n + 1, p.event_type, p.schema_version, p.sim_time, p.payload)
            conn.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (n + 1, "acct_latency", n + 1, p.event_type, p.schema_version, p.payload, p.sim_time,
                          cid, prev, h))
            conn.execute("INSERT INTO streams VALUES (?, ?, ?) ON CONFLICT(stream_id) DO UPDATE SET "
                         "version = excluded.version, head_hash = excluded.head_hash", ("acct_latency", n + 1, h))
            conn.execute("INSERT INTO commands VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (cid, "acct_latency", h, n + 1, n + 1, n + 1, n + 1, h))
            conn.execute("COMMIT")
            times.append((perf_ns() - start) / 1000)
            prev = h
    finally:
        conn.close()
        _remove_db(path)
    return times[min(len(times) // 10, 100):]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _singles(workdir: Path, appends: int) -> list[float]:
    rates: list[float] = []
    for i in range(_SINGLE_REPEATS):
        path = workdir / f"bench-single-{i}.db"
        _remove_db(path)
        try:
            rates.append(await _single(_sqlite_url(path), appends))
        finally:
            _remove_db(path)
    return rates


async def _group(
    url: str, streams: int, appends: int, *, durable: bool | None = None, command_ids: bool = False,
    preencoded: bool = False,
) -> float:
    """`streams` concurrent appenders, one event per append, through one store.

    With `command_ids`, every append carries an idempotency key, as the runtime's
    tool calls do (one more row and lookup per append). With `preencoded`, the
    events are encoded before the clock starts and appended with `append_pending`.
    """
    events = [[line_event(s, n) for n in range(appends)] for s in range(streams)]
    pending = [[BENCH_REGISTRY.encode(ev) for ev in evs] for evs in events] if preencoded else []
    store = await open_store(url, registry=BENCH_REGISTRY, durable=durable)

    async def appender(s: int) -> None:
        stream = f"acct_{s + 1:06d}"
        for n, ev in enumerate(events[s]):
            cid = f"{stream}/call_{n:06d}" if command_ids else None
            if preencoded:
                await store.append_pending(stream, [pending[s][n]], n, cid)
            else:
                await store.append(stream, [ev], expected_version=n, command_id=cid)

    try:
        gc.collect()  # hygiene: no garbage from the set-up is charged to the run (GC stays on)
        start = perf_ns()
        await asyncio.gather(*(appender(s) for s in range(streams)))
        elapsed = perf_ns() - start
        total = streams * appends
        if await store.stream_version("acct_000001") != appends:
            raise AssertionError("group benchmark lost appends")
    finally:
        await store.close()
    return _rate(total, elapsed)


def _raw(rows: list[tuple[object, ...]], path: Path) -> float:
    """Plain `sqlite3.executemany` of `rows`, `_RAW_BATCH` per transaction, in a WAL file."""
    _remove_db(path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(ddl_statements("sqlite")[0])
        gc.collect()
        sql = (
            "INSERT INTO events (global_position, stream_id, version, event_type, schema_version, "
            "payload, sim_time, command_id, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        start = perf_ns()
        for i in range(0, len(rows), _RAW_BATCH):
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(sql, rows[i : i + _RAW_BATCH])
            conn.execute("COMMIT")
        elapsed = perf_ns() - start
    finally:
        conn.close()
        _remove_db(path)
    return _rate(len(rows), elapsed)


def _stored_rows(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT global_position, stream_id, version, event_type, schema_version, payload, sim_time, "
            "command_id, prev_hash, hash FROM events ORDER BY global_position"
        ).fetchall()
    finally:
        conn.close()


def _fold_rate(events: list[Event], repeats: int) -> tuple[list[float], State]:
    proj = projection()
    rates: list[float] = []
    state = State()
    for _ in range(repeats):
        gc.collect()
        start = perf_ns()
        state = proj.fold(State(), events)
        rates.append(_rate(len(events), perf_ns() - start))
    return rates, state


async def _fold_from_store(url: str, events: list[Event], repeats: int) -> list[float]:
    """Writes `events` to one stream (untimed), then times full replays through `load_state`."""
    proj = projection()
    store = await open_store(url, registry=BENCH_REGISTRY)
    rates: list[float] = []
    try:
        for i in range(0, len(events), 1000):
            await store.append(_FOLD_STREAM, events[i : i + 1000], expected_version=i)
        for _ in range(repeats):
            gc.collect()
            start = perf_ns()
            loaded = await load_state(store, _FOLD_STREAM, proj, SCHEMA)
            rates.append(_rate(loaded.version, perf_ns() - start))
            if loaded.version != len(events) or loaded.from_snapshot:
                raise AssertionError("fold-from-store benchmark replayed the wrong events")
    finally:
        await store.close()
    return rates


def _snapshot_load(state: State, repeats: int) -> tuple[list[float], int, int]:
    """Times the snapshot load path: schema check, state hash check, `decode_state`."""
    snap = take_snapshot(_FOLD_STREAM, 1, "0" * 64, state, SCHEMA)
    expected = state.content_hash()
    times: list[float] = []
    first: State | None = None
    gc.collect()
    for _ in range(repeats):
        start = perf_ns()
        if snap.schema_version != SCHEMA.version or sha256_hex(snap.state) != snap.state_hash:
            raise SnapshotError("benchmark snapshot failed its own checks")
        loaded = decode_state(snap.state, SCHEMA)
        times.append((perf_ns() - start) / 1000)
        if first is None:
            first = loaded
        del loaded  # freeing a decoded state is not part of the next load
    if first is None or first.content_hash() != expected or encode_state(first) != snap.state:
        raise SnapshotError("benchmark snapshot did not round-trip")
    entities = sum(len(first.raw_table(name)) for name in first.table_names())
    return times, len(snap.state), entities


async def _drop_schema(pg_url: str, schema: str) -> None:
    import asyncpg

    parts = urlsplit(pg_url)
    dsn = parts._replace(scheme="postgresql", query="", fragment="").geturl()
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


async def _sqlite_groups(
    workdir: Path, label: str, streams: int, appends: int, *, durable: bool = False,
    command_ids: bool = False, keep_rows: bool = False, preencoded: bool = False,
) -> tuple[list[float], list[tuple[object, ...]]]:
    """Runs `_GROUP_REPEATS` group runs, each on a fresh file; optionally returns the first run's rows."""
    rates: list[float] = []
    rows: list[tuple[object, ...]] = []
    for i in range(_GROUP_REPEATS):
        path = workdir / f"bench-{label}-{i}.db"
        _remove_db(path)
        try:
            rates.append(await _group(_sqlite_url(path), streams, appends, durable=durable,
                                      command_ids=command_ids, preencoded=preencoded))
            if keep_rows and i == 0:
                rows = _stored_rows(path)
        finally:
            _remove_db(path)
    return rates, rows


async def _postgres_groups(pg_url: str, streams: int, appends: int) -> list[float]:
    tag = hashlib.sha256(f"{os.getpid()}:{wall_ns()}".encode()).hexdigest()[:12]
    rates: list[float] = []
    for i in range(_GROUP_REPEATS):
        schema = f"bench_{tag}_{i}"  # a fresh, private schema per run, always dropped
        try:
            rates.append(await _group(_with_option(pg_url, "schema", schema), streams, appends))
        finally:
            await _drop_schema(pg_url, schema)
    return rates


def _put_rates(out: Metrics, key: str, rates: list[float]) -> float:
    median = _median(rates)
    out[key] = median
    out[f"{key}_runs"] = _runs(rates)
    return median


def _metadata(scale: float) -> Metrics:
    return {
        "python_version": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "sqlite_version": sqlite3.sqlite_version,
        "aiosqlite_version": str(getattr(aiosqlite, "__version__", "unknown")),
        "platform": f"{sys.platform}-{platform.machine()}",
        "cpu_count": os.cpu_count() or 0,
        "scale": scale,
        "repeats_single": _SINGLE_REPEATS,
        "repeats_group": _GROUP_REPEATS,
        "repeats_raw": _RAW_REPEATS,
        "repeats_fold": _FOLD_REPEATS,
        "repeats_snapshot": _SNAPSHOT_REPEATS,
        "gc_enabled": int(gc.isenabled()),
    }


async def run_store_bench(
    *,
    pg_url: str | None,
    workdir: Path,
    scale: float = 1.0,
    progress: Progress | None = None,
) -> Metrics:
    """Runs the store benchmark and returns its measurements as one flat mapping.

    Args:
        pg_url: A `postgresql+asyncpg://` URL, or None to skip PostgreSQL.
        workdir: A directory for the SQLite files (created; files are removed after use).
        scale: Multiplies the event counts. Below 1.0 there are fewer streams
            (at least 2); above it each stream appends more. 1.0 takes about 30 s here.
        progress: Called with a one-line note after each measurement.

    Raises:
        ValueError: `scale` is not positive.
    """
    if scale <= 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    say = progress or (lambda _msg: None)
    _make_dir(workdir)
    bench_start = perf_ns()
    streams = _scaled(_STREAMS, min(scale, 1.0), minimum=2)
    appends = _scaled(_APPENDS_PER_STREAM, max(scale, 1.0))
    single = _scaled(_SINGLE_APPENDS, scale, minimum=10)
    fold_total = _scaled(_FOLD_EVENTS, scale, minimum=500)
    accounts = _scaled(_ACCOUNTS, min(scale, 1.0), minimum=10)
    invoices = _scaled(_INVOICES, min(scale, 1.0), minimum=50)
    out = _metadata(scale)
    out.update(single_events=single, group_streams=streams, group_appends_per_stream=appends,
               group_events=streams * appends, fold_events=fold_total)

    rates = await _singles(workdir, single)
    say(f"sqlite single: {_put_rates(out, 'sqlite_events_per_s_single', rates):.0f} events/s")

    rates, rows = await _sqlite_groups(workdir, "group", streams, appends, keep_rows=True)
    group = _put_rates(out, "sqlite_events_per_s_group", rates)
    say(f"sqlite group ({streams} streams x {appends} appends): {group:.0f} events/s")

    rates, _ = await _sqlite_groups(workdir, "durable", streams, appends, durable=True)
    say(f"sqlite durable group: {_put_rates(out, 'sqlite_durable_events_per_s_group', rates):.0f} events/s")

    rates, _ = await _sqlite_groups(workdir, "cmd", streams, appends, command_ids=True)
    say(f"sqlite group with command ids: "
        f"{_put_rates(out, 'sqlite_events_per_s_group_command_ids', rates):.0f} events/s")

    rates, _ = await _sqlite_groups(workdir, "pre", streams, appends, preencoded=True)
    say(f"sqlite group, pre-encoded: "
        f"{_put_rates(out, 'sqlite_events_per_s_group_preencoded', rates):.0f} events/s")

    path = workdir / "bench-latency.db"
    _remove_db(path)
    try:
        latencies = await _durable_latencies(_sqlite_url(path), single)
    finally:
        _remove_db(path)
    floor = _raw_durable_latencies(workdir / "bench-latency-raw.db", single)
    p50, floor_p50 = _percentile(latencies, 0.5), _percentile(floor, 0.5)
    out["sqlite_durable_append_us_p50"] = p50
    out["sqlite_durable_append_us_p99"] = _percentile(latencies, 0.99)
    out["raw_sqlite_durable_commit_us_p50"] = floor_p50
    out["raw_sqlite_durable_commit_us_p99"] = _percentile(floor, 0.99)
    out["durable_latency_appends"] = len(latencies)
    say(f"sqlite durable append, one at a time: p50 {out['sqlite_durable_append_us_p50']:.0f} us, "
        f"p99 {out['sqlite_durable_append_us_p99']:.0f} us (raw sqlite3 floor: p50 "
        f"{out['raw_sqlite_durable_commit_us_p50']:.0f} us)")

    raw = _put_rates(out, "raw_sqlite_events_per_s",
                     [_raw(rows, workdir / "bench-raw.db") for _ in range(_RAW_REPEATS)])
    out["raw_events"] = len(rows)
    out["raw_batch"] = _RAW_BATCH
    out["group_to_raw_ratio"] = group / raw
    say(f"raw sqlite3: {raw:.0f} events/s (group/raw = {group / raw:.3f})")

    if pg_url:
        rates = await _postgres_groups(pg_url, streams, appends)
        say(f"postgres group: {_put_rates(out, 'postgres_events_per_s_group', rates):.0f} events/s")

    events = fold_events(fold_total, accounts, invoices)
    rates, state = _fold_rate(events, _FOLD_REPEATS)
    say(f"fold: {_put_rates(out, 'fold_events_per_s', rates):.0f} events/s")

    path = workdir / "bench-fold.db"
    _remove_db(path)
    try:
        rates = await _fold_from_store(_sqlite_url(path), events, _FOLD_REPEATS)
    finally:
        _remove_db(path)
    say(f"fold from store: {_put_rates(out, 'fold_from_store_events_per_s', rates):.0f} events/s")

    times, size, entities = _snapshot_load(state, _SNAPSHOT_REPEATS)
    out["snapshot_load_us"] = _median(times)
    out["snapshot_load_us_runs"] = ",".join(f"{t:.0f}" for t in times)
    out["snapshot_bytes"] = size
    out["snapshot_entities"] = entities
    say(f"snapshot load: {out['snapshot_load_us']:.0f} us for {entities} entities ({size} bytes)")

    out["bench_seconds"] = (perf_ns() - bench_start) / 1e9
    return out


async def _main() -> None:  # pragma: no cover - a manual entry point
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        result = await run_store_bench(
            pg_url=os.environ.get("SAAS_SIM_TEST_PG_URL"), workdir=Path(tmp),
            scale=float(os.environ.get("SAAS_SIM_BENCH_SCALE", "1")), progress=print,
        )
    print(json.dumps(result, indent=1))


if __name__ == "__main__":  # pragma: no cover
    asyncio.run(_main())
