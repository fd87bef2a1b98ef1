from __future__ import annotations

from saas_sim.core.tools import ToolKind
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.audit import audit
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.faults import decide_fault
from saas_sim.runtime.replay import replay
from saas_sim.scenarios.model import FaultProfile, FaultRates


def test_fault_decisions_are_a_pure_function_of_seed_step_and_tool() -> None:
    profile = FaultProfile(read=FaultRates(rate_limited=0.3, unavailable=0.2))
    first = [decide_fault(profile, 7, s, "notes.get_note", ToolKind.READ) for s in range(200)]
    again = [decide_fault(profile, 7, s, "notes.get_note", ToolKind.READ) for s in range(200)]
    assert first == again
    assert 30 < sum(f == "rate_limited" for f in first) < 90
    assert decide_fault(None, 7, 0, "x", ToolKind.READ) is None


async def test_lost_response_retry_with_same_call_id_applies_the_write_once(env: Environment) -> None:
    profile = FaultProfile(write=FaultRates(lost_response=1.0))
    ep = await env.start("notes/archive-and-follow-up", 0, faults=profile)
    lost = await ep.call("notes.create_note", {"title": "exactly once"}, call_id="w1")
    assert not lost.ok and lost.error is not None and lost.error.code == "timeout" and lost.fault == "lost_response"
    retry = await ep.call("notes.create_note", {"title": "exactly once"}, call_id="w1")
    assert retry.ok
    grade = await ep.grade()
    assert grade.vector["follow_up_created"] == 0.0  # title differs from the task's; but only one note was made
    made = [e for e in ep.trajectory.steps if e.events]
    assert len(made) == 1


async def test_injected_faults_are_recorded_in_the_log_and_trajectory(env: Environment) -> None:
    ep = await env.start("notes/flaky-archive", 0)
    await make_agent("oracle", ep.task.scenario).run(ep)
    assert (await ep.grade()).score == 1.0
    faulted = [s for s in ep.trajectory.steps if s.fault]
    assert faulted
    rows = await env.store.read(ep.stream_id)
    assert sum(r.event_type == "runtime.FaultInjected" for r in rows) == len(faulted)


async def test_replay_reports_identical_and_then_the_first_divergence(env: Environment) -> None:
    ep = await env.start("notes/archive-and-follow-up", 4)
    await make_agent("oracle", ep.task.scenario).run(ep)
    report, _ = await replay(env, ep.trajectory)
    assert report.identical
    ep.trajectory.steps[2].result = {"tampered": True}
    report, _ = await replay(env, ep.trajectory)
    assert not report.identical and report.step == 2 and report.field == "result"


async def test_self_audit_passes_on_a_test_scenario_built_to_resist_every_attack() -> None:
    from tests.runtime.conftest import FIXTURES
    from tests.runtime.notes_domain import DOMAIN

    async with Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[FIXTURES / "audit"],
                           seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False) as env:
        results = await audit(env, env.scenarios("notes/follow-up-note"), [0, 1])
    assert [r.id for r in results] == ["notes/follow-up-note"]
    for r in results:
        assert r.ok, r.failures
        assert r.oracle_min == 1.0 and r.harness_errors == 0
        assert r.blind["max_score"] == 0.0 and r.do_everything["max_score"] == 0.0


async def test_self_audit_attacks_the_loose_test_scenarios(env: Environment) -> None:
    results = await audit(env, env.scenarios("notes/*"), [0, 1])
    assert [r.id for r in results] == ["notes/archive-and-follow-up", "notes/flaky-archive"]
    for r in results:
        # The core promises hold; the attacks find what these loose fixtures pay for.
        assert r.oracle_min == 1.0 and r.harness_errors == 0 and r.deterministic and r.fork_ok
        assert r.blind["max_score"] > 0.5 and r.do_everything["max_score"] > 0.2
        assert any("blind search reached" in f for f in r.failures)


async def test_self_audit_flags_a_harness_bug_found_by_the_random_agent() -> None:
    from tests.runtime.conftest import FIXTURES
    from tests.runtime.notes_domain import DOMAIN

    async with Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[FIXTURES / "broken"],
                           seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False) as env:
        (result,) = await audit(env, env.scenarios("notes/buggy"), [0])
        assert not result.ok
        assert any("verifier" in f or "invalid" in f or "harness" in f for f in result.failures)
