"""Group commit: the pure batch planner and the single writer task, without a database."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from saas_sim.core.batching import (
    AppendRequest,
    AppendResult,
    CommandRecord,
    GroupCommitter,
    StreamHead,
    match_committed,
    plan_batch,
)
from saas_sim.core.events import GENESIS_HASH, PendingEvent, RecordedEvent, chain_hash
from saas_sim.errors import ConcurrencyError, IdempotencyConflictError, StoreClosedError, StoreError


def _pending(n: int, tag: str = "") -> tuple[PendingEvent, ...]:
    return tuple(PendingEvent("t.E", 1, b'{"i":%d,"tag":"%s"}' % (i, tag.encode()), None) for i in range(n))


def _req(stream: str, n: int, expected: int | None, command: str | None = None, tag: str = "") -> AppendRequest:
    fut: asyncio.Future[AppendResult] = asyncio.get_running_loop().create_future()
    return AppendRequest(stream, expected, command, _pending(n, tag), fut)


def _rows(plan_rows: Sequence[tuple[object, ...]]) -> list[RecordedEvent]:
    return [RecordedEvent(r[1], r[2], r[0], r[3], r[4], r[5], r[6], r[7], r[8], r[9]) for r in plan_rows]  # type: ignore[arg-type]


async def test_a_plan_assigns_consecutive_positions_and_chains_each_stream() -> None:
    reqs = [_req("a", 2, 0), _req("b", 1, None), _req("a", 1, 2)]
    plan = plan_batch(reqs, {}, {}, last_position=10)
    assert [(r[0], r[1], r[2]) for r in plan.event_rows] == [(11, "a", 1), (12, "a", 2), (13, "b", 1), (14, "a", 3)]
    assert all(isinstance(o, AppendResult) for o in plan.outcomes)
    rows = _rows(plan.event_rows)
    assert all(r.verify() for r in rows)
    assert rows[0].prev_hash == GENESIS_HASH and rows[1].prev_hash == rows[0].hash and rows[3].prev_hash == rows[1].hash
    assert plan.heads == {"a": StreamHead(3, rows[3].hash), "b": StreamHead(1, rows[2].hash)}


async def test_a_plan_is_pure() -> None:
    reqs = [_req("a", 3, 0, "c1"), _req("b", 1, 5)]
    heads = {"b": StreamHead(5, "f" * 64)}
    assert plan_batch(reqs, heads, {}, 7) == plan_batch(reqs, heads, {}, 7)
    assert heads == {"b": StreamHead(5, "f" * 64)}


async def test_a_stale_request_fails_alone_and_takes_no_positions() -> None:
    plan = plan_batch([_req("a", 1, 0), _req("b", 3, 4), _req("c", 1, 0)], {"b": StreamHead(5, "h" * 64)}, {}, 0)
    assert isinstance(plan.outcomes[1], ConcurrencyError)
    assert (plan.outcomes[1].expected, plan.outcomes[1].actual) == (4, 5)
    assert [r[0] for r in plan.event_rows] == [1, 2]
    assert "b" not in plan.heads


async def test_a_repeated_command_in_one_batch_is_written_once() -> None:
    plan = plan_batch([_req("a", 2, 0, "c"), _req("a", 2, 0, "c"), _req("a", 2, 0, "c", tag="other")], {}, {}, 0)
    first, again, clash = plan.outcomes
    assert isinstance(first, AppendResult) and not first.deduplicated
    assert isinstance(again, AppendResult) and again.deduplicated and again.first_position == first.first_position
    assert isinstance(clash, IdempotencyConflictError)
    assert len(plan.event_rows) == 2 and len(plan.commands) == 1


async def test_a_stored_command_returns_its_original_result() -> None:
    req = _req("a", 1, 0, "c")
    stored = CommandRecord("c", "a", req.fingerprint, 1, 1, 7, 7, "h" * 64)
    plan = plan_batch([req], {"a": StreamHead(1, "h" * 64)}, {"c": stored}, 9)
    assert plan.outcomes == [AppendResult("a", 1, 1, 7, 7, "h" * 64, deduplicated=True)]
    assert plan.event_rows == []


async def test_the_fingerprint_covers_stream_expected_version_and_events() -> None:
    base = _req("a", 2, 0).fingerprint
    assert _req("a", 2, 0).fingerprint == base
    assert len({base, _req("b", 2, 0).fingerprint, _req("a", 2, None).fingerprint, _req("a", 3, 0).fingerprint,
                _req("a", 2, 0, tag="x").fingerprint}) == 5


async def test_the_fingerprint_bytes_never_change_since_stored_commands_are_compared_with_it() -> None:
    # Golden values from the original field-by-field digest: a retry after an upgrade must still match.
    loop = asyncio.get_running_loop()
    two = (PendingEvent("t.E", 1, b'{"i":0}', None), PendingEvent("t.F", 2, b'{"j":1}', "2024-05-01T09:30:00+00:00"))
    assert AppendRequest("ep_1", 3, "c", two, loop.create_future()).fingerprint == (
        "120c69d3e3f030dbd690a57eb31b7cd9c18074163d6bde908861145217fe2fcf"
    )
    assert AppendRequest("ep_1", None, "c", two[:1], loop.create_future()).fingerprint == (
        "67bd27b06e5dccf4e3759b0b00ccc80903d1196128abd3ba8a7f2246e60729b9"
    )


async def test_a_committer_reports_each_batch_as_settled_once_every_future_is_resolved() -> None:
    settled: list[list[bool]] = []

    async def commit(reqs: list[AppendRequest]) -> None:
        reqs[0].future.set_result(AppendResult(reqs[0].stream_id, 1, 1, 1, 1, "h"))  # the rest left unresolved

    gc = GroupCommitter(commit, settled=lambda batch: settled.append([r.future.done() for r in batch]))
    loop = asyncio.get_running_loop()
    outcomes = await asyncio.gather(
        *(gc.submit(AppendRequest(f"s{i}", None, None, _pending(1), loop.create_future())) for i in range(3)),
        return_exceptions=True,
    )
    await gc.close()
    assert settled == [[True, True, True]]
    assert isinstance(outcomes[0], AppendResult)
    assert all(isinstance(o, StoreError) for o in outcomes[1:])


async def test_match_committed_recognises_exactly_the_rows_a_request_would_write() -> None:
    req = _req("a", 2, 3)
    prev = "p" * 64
    plan = plan_batch([req], {"a": StreamHead(3, prev)}, {}, 20)
    rows = _rows(plan.event_rows)
    matched = match_committed(req, rows)
    assert matched == AppendResult("a", 4, 5, 21, 22, rows[-1].hash, deduplicated=True)
    assert match_committed(_req("a", 2, 3, tag="other"), rows) is None
    assert match_committed(req, rows[:1]) is None
    assert match_committed(_req("a", 2, None), rows) is None
    assert match_committed(req, []) is None


async def test_concurrent_submissions_share_one_commit_and_each_gets_its_own_outcome() -> None:
    batches: list[int] = []

    async def commit(reqs: list[AppendRequest]) -> None:
        batches.append(len(reqs))
        plan = plan_batch(reqs, {}, {}, sum(batches) * 100)
        for r, o in zip(reqs, plan.outcomes, strict=True):
            if isinstance(o, Exception):
                r.future.set_exception(o)
            else:
                r.future.set_result(o)

    gc = GroupCommitter(commit)
    loop = asyncio.get_running_loop()
    reqs = [AppendRequest(f"s{i % 5}", None if i >= 5 else 0, None, _pending(1), loop.create_future())
            for i in range(50)]
    reqs.append(AppendRequest("s0", 7, None, _pending(1), loop.create_future()))
    outcomes = await asyncio.gather(*(gc.submit(r) for r in reqs), return_exceptions=True)
    await gc.close()
    assert batches == [51]
    assert sum(isinstance(o, AppendResult) for o in outcomes) == 50
    assert isinstance(outcomes[-1], ConcurrencyError)


async def test_a_batch_is_capped_by_max_events() -> None:
    sizes: list[int] = []

    async def commit(reqs: list[AppendRequest]) -> None:
        sizes.append(sum(len(r.pending) for r in reqs))
        for r in reqs:
            r.future.set_result(AppendResult(r.stream_id, 1, 1, 1, 1, "h"))

    gc = GroupCommitter(commit, max_events=10)
    loop = asyncio.get_running_loop()
    await asyncio.gather(*(gc.submit(AppendRequest("s", None, None, _pending(3), loop.create_future()))
                           for _ in range(10)))
    await gc.close()
    assert sizes == [12, 12, 6]


async def test_a_failing_commit_fails_its_batch_but_the_writer_survives() -> None:
    calls = 0

    async def commit(reqs: list[AppendRequest]) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("disk on fire")
        if calls == 2:
            return  # forgets to resolve its futures
        for r in reqs:
            r.future.set_result(AppendResult(r.stream_id, 1, 1, 1, 1, "h"))

    gc = GroupCommitter(commit)
    loop = asyncio.get_running_loop()
    with pytest.raises(StoreError, match="disk on fire"):
        await gc.submit(AppendRequest("s", None, None, _pending(1), loop.create_future()))
    with pytest.raises(StoreError, match="not resolved"):
        await gc.submit(AppendRequest("s", None, None, _pending(1), loop.create_future()))
    result = await gc.submit(AppendRequest("s", None, None, _pending(1), loop.create_future()))
    assert result.stream_id == "s"
    await gc.close()


async def test_close_commits_what_is_queued_then_refuses_new_work() -> None:
    committed: list[str] = []

    async def commit(reqs: list[AppendRequest]) -> None:
        await asyncio.sleep(0.01)
        for r in reqs:
            committed.append(r.stream_id)
            r.future.set_result(AppendResult(r.stream_id, 1, 1, 1, 1, "h"))

    gc = GroupCommitter(commit)
    loop = asyncio.get_running_loop()
    tasks = [asyncio.create_task(gc.submit(AppendRequest(f"s{i}", None, None, _pending(1), loop.create_future())))
             for i in range(5)]
    await asyncio.sleep(0)
    await gc.close()
    await gc.close()
    assert sorted(committed) == [f"s{i}" for i in range(5)]
    assert all(t.done() and not t.exception() for t in tasks)
    with pytest.raises(StoreClosedError):
        await gc.submit(AppendRequest("late", None, None, _pending(1), loop.create_future()))


async def test_a_committer_that_never_started_closes_cleanly() -> None:
    async def commit(reqs: list[AppendRequest]) -> None:  # pragma: no cover - never called
        raise AssertionError

    gc = GroupCommitter(commit)
    await gc.close()


async def test_chain_hash_of_a_planned_row_matches_the_envelope() -> None:
    plan = plan_batch([_req("a", 1, 0)], {}, {}, 0)
    (row,) = plan.event_rows
    assert row[9] == chain_hash(GENESIS_HASH, 1, "t.E", 1, None, row[5])
