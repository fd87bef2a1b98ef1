"""Traffic for the replica tests: oracle call lists replayed by many HTTP sessions, with retries by call_id.

A plan is one (scenario, seed)'s oracle calls, computed in-process before any traffic, with extra reads
after every write (an agent re-checking what it changed), so an episode lasts long enough for a crash to
land mid-episode. Extra reads change no check's verdict. Every call carries a call_id.

A session is one client connection (as one trainer worker would hold): it starts an episode, makes its
calls in order and grades it, then the next. A request that fails in transit (a reset, an empty answer,
HAProxy's 502/503/504) or meets a replica race (409 `episode_conflict`) is sent again, unchanged: the same
call_id, so a call the dead replica had already recorded is answered from the log, not applied twice.
Every answered call is an `Ack`: what the client was told, to check against the log afterwards.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from saas_sim.core.clock import perf_ns
from saas_sim.core.tools import ToolKind
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment
from tests.deploy.cluster import REPLICA_HEADER

MAX_ATTEMPTS = 60
"""How often one request is sent before the run fails (with backoff, about a minute in all)."""

REQUEST_TIMEOUT_S = 60.0
"""Generous: a request waits behind a failover (HAProxy's checks, retries and a resume from the log)."""

RETRY_STATUSES = frozenset({502, 503, 504})
"""HAProxy's answers when no replica could take the request; retried like a transport failure."""


@dataclass(frozen=True, slots=True)
class Call:
    """One planned tool call."""

    tool: str
    args: Any
    call_id: str


@dataclass(frozen=True, slots=True)
class Plan:
    """The calls of one (scenario, seed) episode."""

    scenario: str
    seed: int
    calls: tuple[Call, ...]


@dataclass(frozen=True, slots=True)
class Ack:
    """A call the client got an answer for: the server acknowledged it.

    Attributes:
        episode_id: The episode.
        call_id: The call id sent.
        step: The step the answer named.
        ok: Whether the call succeeded (a tool error is an answer too).
        value: The result (None for a tool error).
        error: The tool error (None on success).
        replica: The replica that answered (HAProxy's header).
        seq: The acknowledgement's place among all acknowledgements of the run.
    """

    episode_id: str
    call_id: str
    step: int
    ok: bool
    value: Any
    error: Any
    replica: str
    seq: int


@dataclass
class EpisodeRun:
    """One episode as the client saw it."""

    episode_id: str
    plan: Plan
    acks: list[Ack] = field(default_factory=list)
    grade: dict[str, Any] | None = None
    graded_by: str | None = None


async def oracle_plan(env: Environment, scenario_ref: str, seed: int, *, echo_reads: int = 1) -> Plan:
    """Runs the oracle in-process (faults off) and returns its calls, each write followed by the reads so far.

    Args:
        env: An open environment (its store also receives the worlds' snapshots, which replicas over the
            same store then load instead of building).
        scenario_ref: The scenario.
        seed: The task seed.
        echo_reads: How often the reads made so far are repeated after each write.
    """
    scenario = env.scenario(scenario_ref)
    episode = await env.start(scenario, seed, faults=None)
    try:
        await make_agent("oracle", scenario).run(episode)
        steps = list(episode.trajectory.steps)
    finally:
        await episode.close()
    toolkit = env.toolkit(scenario)
    planned: list[tuple[str, Any]] = []
    reads: list[tuple[str, Any]] = []
    for step in steps:
        assert step.ok, f"{scenario.ref} seed {seed}: oracle step {step.index} failed: {step.error}"
        planned.append((step.tool, step.args))
        if toolkit.spec(step.tool).kind is ToolKind.READ:
            reads.append((step.tool, step.args))
        else:
            planned.extend(reads * echo_reads)
    return Plan(scenario.ref, seed, tuple(Call(t, a, f"c{i:03d}") for i, (t, a) in enumerate(planned)))


class Traffic:
    """Sessions replaying plans against one base URL, recording every acknowledgement.

    Args:
        base_url: The load balancer.
        plans: The plans; session i's k-th episode plays plan (k * sessions + i) mod len(plans).
        sessions: Concurrent sessions (connections).
        episodes_per_session: Episodes each session plays (with `duration_s`: at least one, until the deadline).
        duration_s: Keep starting episodes until this many seconds passed (None: `episodes_per_session`).
        on_ack: Called after each acknowledgement (the kill switch watches it).
        delete: DELETE each episode once graded (a measurement's steady state; tests read episodes back).
    """

    def __init__(self, base_url: str, plans: Sequence[Plan], *, sessions: int, episodes_per_session: int = 1,
                 duration_s: float | None = None, on_ack: Callable[[Ack], None] | None = None,
                 delete: bool = False) -> None:
        self.base_url = base_url
        self.plans = list(plans)
        self.sessions = sessions
        self.episodes_per_session = episodes_per_session
        self.duration_s = duration_s
        self.on_ack = on_ack
        self.delete = delete
        self.requests = 0
        self.acks: list[Ack] = []
        self.runs: dict[str, EpisodeRun] = {}
        self.retried: Counter[str] = Counter()
        self.app_errors: list[str] = []
        self.elapsed_s = 0.0
        self._deadline_ns: int | None = None

    @property
    def calls_per_s(self) -> float:
        """Acknowledged tool calls per second of the run."""
        return len(self.acks) / self.elapsed_s if self.elapsed_s else 0.0

    @property
    def requests_per_s(self) -> float:
        """HTTP requests sent per second of the run (starts, calls, grades, deletes and retries)."""
        return self.requests / self.elapsed_s if self.elapsed_s else 0.0

    async def run(self) -> None:
        """Runs every session to its end."""
        start = perf_ns()
        if self.duration_s is not None:
            self._deadline_ns = start + int(self.duration_s * 1e9)
        await asyncio.gather(*(self._session(i) for i in range(self.sessions)))
        self.elapsed_s = (perf_ns() - start) / 1e9

    async def _session(self, index: int) -> None:
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(base_url=self.base_url, timeout=REQUEST_TIMEOUT_S, limits=limits,
                                     trust_env=False) as client:
            k = 0
            while self._more(k):
                await self._episode(client, self.plans[(k * self.sessions + index) % len(self.plans)])
                k += 1

    def _more(self, k: int) -> bool:
        if self._deadline_ns is None:
            return k < self.episodes_per_session
        return k == 0 or perf_ns() < self._deadline_ns

    async def _episode(self, client: httpx.AsyncClient, plan: Plan) -> None:
        created = await self.request(client, "POST", "/episodes", json={
            "scenario": plan.scenario, "seed": plan.seed, "faults": None, "include_tools": False})
        assert created.status_code == 201, f"start {plan.scenario}: {created.status_code} {created.text}"
        run = EpisodeRun(created.json()["episode_id"], plan)
        self.runs[run.episode_id] = run
        for call in plan.calls:
            answer = await self.request(client, "POST", f"/episodes/{run.episode_id}/calls",
                                        json={"tool": call.tool, "arguments": call.args, "call_id": call.call_id})
            assert answer.status_code == 200, (
                f"{run.episode_id} {call.call_id} ({call.tool}) on {answer.headers.get(REPLICA_HEADER)}: "
                f"{answer.status_code} {answer.text}")
            obs = answer.json()
            assert obs["call_id"] == call.call_id, obs
            ack = Ack(run.episode_id, call.call_id, obs["step"], obs["ok"], obs.get("value"), obs.get("error"),
                      answer.headers.get(REPLICA_HEADER, "?"), len(self.acks))
            self.acks.append(ack)
            run.acks.append(ack)
            if self.on_ack is not None:
                self.on_ack(ack)
        graded = await self.request(client, "POST", f"/episodes/{run.episode_id}/grade")
        assert graded.status_code == 200, f"grade {run.episode_id}: {graded.status_code} {graded.text}"
        run.grade = graded.json()
        run.graded_by = graded.headers.get(REPLICA_HEADER)
        if self.delete:
            deleted = await self.request(client, "DELETE", f"/episodes/{run.episode_id}")
            assert deleted.status_code == 204, f"delete {run.episode_id}: {deleted.status_code} {deleted.text}"

    async def request(self, client: httpx.AsyncClient, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Sends a request until it gets an answer that is not a transit failure; retries are counted by kind."""
        for attempt in range(MAX_ATTEMPTS):
            self.requests += 1
            try:
                answer = await client.request(method, path, **kwargs)
            except httpx.TransportError as exc:
                self.retried[type(exc).__name__] += 1
            else:
                if answer.status_code == 500:
                    self.app_errors.append(f"{method} {path}: {answer.text}")
                    return answer
                if answer.status_code in RETRY_STATUSES:
                    self.retried[f"http_{answer.status_code}"] += 1
                elif answer.status_code == 409 and _code(answer) == "episode_conflict":
                    self.retried["episode_conflict"] += 1
                else:
                    return answer
            # A client's retry policy (exponential backoff), not a wait for a condition.
            await asyncio.sleep(min(0.02 * 2 ** attempt, 1.0))
        raise AssertionError(f"{method} {path}: no answer after {MAX_ATTEMPTS} attempts ({dict(self.retried)})")


def _code(answer: httpx.Response) -> str | None:
    try:
        body = answer.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    return error.get("code") if isinstance(error, dict) else None
