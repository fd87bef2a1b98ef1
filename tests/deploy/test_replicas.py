"""Replicas over one PostgreSQL behind HAProxy survive a `kill -9` (issue 13 section 5), on loopback.

Three `saas-sim serve --durable-reads` replicas share a fresh PostgreSQL schema; HAProxy routes each
episode by id with consistent hashing (deploy/haproxy-config.sh's configuration). Many sessions replay
oracle call lists with call_ids; one replica is killed with SIGKILL mid-run. Then, per episode:

* every acknowledged (call_id, step) is in the episode's log, with the result the client was told;
* every planned call was applied exactly once, in order (a retry of a call the dead replica had recorded
  is answered from the log: a `replayed` step that changes nothing);
* the trajectory served through the load balancer is the log's;
* its final state hash and grade equal those of an uninterrupted in-process run of the same calls;
* every episode the dead replica was serving continued on another replica.

Needs `SAAS_SIM_TEST_PG_URL` and haproxy: locally a test without them skips; under CI it fails.
"""

from __future__ import annotations

import asyncio
import subprocess
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from saas_sim.adapters._registry import stream_of
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.trajectory import parse_trajectory
from tests.deploy.cluster import DEPLOY, haproxy_config, require_haproxy, running_cluster
from tests.deploy.traffic import Ack, EpisodeRun, Plan, Traffic, oracle_plan

# Scenarios whose worlds build in about a second and whose calls and checks read no free text (a reply's
# language model loads for seconds in every replica): the test stays well under a minute on two cores.
CRM = ["crm/close-won-from-line-items", "crm/convert-inbound-lead", "crm/convert-lead-existing-contact",
       "crm/merge-true-duplicates", "crm/reassign-territory", "crm/respect-unsubscribes-campaign",
       "crm/title-updates-rate-limited", "crm/advance-qualified-deal", "crm/dedupe-before-create",
       "crm/update-stale-contact-from-email"]
SUPPORT = ["support/route-vip-ticket", "support/triage-sla-queue"]
PAIRS = [(s, 0) for s in CRM + SUPPORT]
SESSIONS = 24
EPISODES_PER_SESSION = 2
KILL_AT = 0.35
"""The share of the run's planned calls acknowledged when a replica is killed."""

SHIPPED_SERVERS = ["127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"]


def test_the_shipped_config_is_the_generators_output_for_three_replicas() -> None:
    assert (DEPLOY / "haproxy.cfg").read_text() == haproxy_config("127.0.0.1:8080", SHIPPED_SERVERS)


def test_haproxy_accepts_the_generated_config(tmp_path: Path) -> None:
    haproxy = require_haproxy()
    config = tmp_path / "haproxy.cfg"
    config.write_text(haproxy_config("127.0.0.1:8080", ["127.0.0.1:1", "[::1]:2", "localhost:8000"]))
    checked = subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("args", [[], ["127.0.0.1"], ["--listen"], ["--bogus", "127.0.0.1:1"]])
def test_the_generator_refuses_bad_arguments(args: list[str]) -> None:
    done = subprocess.run(["bash", str(DEPLOY / "haproxy-config.sh"), *args], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2 and done.stdout == "" and "usage" in done.stderr


@pytest.mark.postgres
async def test_a_replica_killed_mid_run_loses_no_acknowledged_call(tmp_path: Path, pg_url: str) -> None:
    async with AsyncExitStack() as stack:
        plans: list[Plan] = []
        envs: list[Environment] = []

        async def prepare() -> None:
            # In this process while the replicas start (loading the scenarios takes seconds here too). The
            # worlds' snapshots land in the shared store, so the replicas load them instead of building them.
            envs.append(await stack.enter_async_context(Environment(pg_url)))
            plans.extend([await oracle_plan(envs[0], s, seed) for s, seed in PAIRS])

        async with running_cluster(tmp_path, pg_url, 3, prepare=prepare) as cluster:
            planned = sum(len(plans[(k * SESSIONS + i) % len(plans)].calls)
                          for i in range(SESSIONS) for k in range(EPISODES_PER_SESSION))
            reached = asyncio.Event()
            traffic = Traffic(cluster.url, plans, sessions=SESSIONS, episodes_per_session=EPISODES_PER_SESSION,
                              on_ack=lambda ack: reached.set() if ack.seq + 1 >= KILL_AT * planned else None)
            killed: dict[str, Any] = {}

            async def kill_the_busiest_replica() -> None:
                await reached.wait()
                victim = _busiest(traffic)
                killed.update(name=victim, seq=len(traffic.acks),
                              graded=[r.episode_id for r in traffic.runs.values() if r.grade is not None])
                cluster.replica(victim).kill9()

            killer = asyncio.create_task(kill_the_busiest_replica())
            await traffic.run()
            await asyncio.wait_for(killer, 1.0)  # the threshold is below the planned total: already done
            served = await _read_back(cluster.url, traffic)
            lb_log = cluster.haproxy_log.read_text(errors="replace")

        env = envs[0]
        assert traffic.app_errors == []
        assert len(traffic.runs) == SESSIONS * EPISODES_PER_SESSION
        assert 0 < killed["seq"] < len(traffic.acks), "the kill must land mid-run"
        affected = _affected(traffic, killed)
        assert affected, f"{killed['name']} served no unfinished episode when it was killed"
        for run in traffic.runs.values():
            await _check_episode(env, run, served[run.episode_id])
        survivors = {r.name for r in cluster.replicas} - {killed["name"]}
        for run in affected:  # finished elsewhere: every planned call answered, and graded by a survivor
            assert len(run.acks) == len(run.plan.calls) and run.graded_by in survivors, run.episode_id
        replayed = sum(s["replayed"] for traj, _ in served.values() for s in traj)
        print(f"\nkilled {killed['name']} at ack {killed['seq']}/{len(traffic.acks)}; {len(affected)} episodes "
              f"moved; client retries {dict(traffic.retried)}; {replayed} calls answered from the log; "
              f"{traffic.calls_per_s:.0f} calls/s; HAProxy logged {len(lb_log.splitlines())} abnormal requests")


def _busiest(traffic: Traffic) -> str:
    """The replica that answered last for the most unfinished episodes."""
    holders = [run.acks[-1].replica for run in traffic.runs.values() if run.acks and run.grade is None]
    return max(sorted(set(holders)), key=holders.count)


def _affected(traffic: Traffic, killed: dict[str, Any]) -> list[EpisodeRun]:
    """The episodes the killed replica was serving when it died: it had answered calls of theirs, not their grade.

    A grade the victim answered (even one the client read after the kill) was sent before it died: that
    episode had finished there.
    """
    return [run for run in traffic.runs.values()
            if run.episode_id not in killed["graded"] and run.graded_by != killed["name"]
            and any(a.replica == killed["name"] and a.seq < killed["seq"] for a in run.acks)]


async def _read_back(url: str, traffic: Traffic) -> dict[str, tuple[list[dict[str, Any]], dict[str, Any]]]:
    """Each episode's trajectory steps and status, read through the load balancer after the run."""
    out: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {}
    async with httpx.AsyncClient(base_url=url, timeout=60.0, trust_env=False) as client:
        for episode_id in traffic.runs:
            text = await traffic.request(client, "GET", f"/episodes/{episode_id}/trajectory")
            status = await traffic.request(client, "GET", f"/episodes/{episode_id}")
            assert text.status_code == status.status_code == 200, (text.text, status.text)
            trajectory = parse_trajectory(text.text, source=episode_id)
            out[episode_id] = ([s.to_json() for s in trajectory.steps], status.json())
    return out


async def _check_episode(env: Environment, run: EpisodeRun,
                         served: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    eid = run.episode_id
    logged = await env.resume(stream_of(eid))
    try:
        steps = logged.trajectory.steps
        for ack in run.acks:
            _assert_logged(ack, steps)
        fresh = [s.call_id for s in steps if not s.replayed]
        assert fresh == [c.call_id for c in run.plan.calls], f"{eid}: a call was lost or applied twice"
        for i, s in enumerate(steps):
            assert not s.replayed or s.call_id in {t.call_id for t in steps[:i]}, f"{eid} step {i}"
        served_steps, status = served
        assert served_steps == [s.to_json() for s in steps], f"{eid}: the served trajectory is not the log's"
        reference = await env.start(run.plan.scenario, run.plan.seed, faults=None)
        try:
            for s in steps:
                await reference.call(s.tool, s.args, s.call_id)
            assert reference.state_hash == logged.state_hash == status["state_hash"], f"{eid}: state hash"
            grade = (await reference.grade()).model_dump(mode="json")
        finally:
            await reference.close()
        assert run.grade == grade, f"{eid}: the served grade is not the uninterrupted run's"
    finally:
        await logged.close()


def _assert_logged(ack: Ack, steps: list[Any]) -> None:
    assert ack.step < len(steps), f"{ack.episode_id}: acknowledged step {ack.step} ({ack.call_id}) is not in the log"
    step = steps[ack.step]
    assert step.call_id == ack.call_id, f"{ack.episode_id} step {ack.step}: {step.call_id} != {ack.call_id}"
    assert step.ok == ack.ok, f"{ack.episode_id} {ack.call_id}"
    assert (step.result if step.ok else step.error) == (ack.value if ack.ok else ack.error), ack
