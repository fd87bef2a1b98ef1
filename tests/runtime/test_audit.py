"""The self-audit's six attacks catch the verifier weaknesses they are built for (issue 9)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.rng import SeedTree
from saas_sim.runtime import attack_audits as attacks
from saas_sim.runtime.attack_audits import AuditOptions, transfer_pairs
from saas_sim.runtime.audit import audit
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.schema_args import fill_args, harvest_ids, text_ids
from tests.runtime.conftest import FIXTURES, env_with_scenario
from tests.runtime.notes_domain import DOMAIN

RESISTANT = yaml.safe_load((FIXTURES / "audit" / "notes" / "follow-up-note.yaml").read_text())
FAST = AuditOptions(hack_seeds=6, transfer_pairs=3, blind_seeds=2, blind_trials=60)

# A verifier that pays for archiving the picked note: a guess among twelve notes earns it all.
ARCHIVE_PAYS = {
    **RESISTANT,
    "id": "notes/x",
    "instructions": "Archive the note titled \"{note.title}\".",
    "checks": [{"name": "archived", "weight": 1, "fn": "notes.note_archived", "params": {"note_id": "{note.id}"}}],
    "scope": {"unguarded": "a deliberately loose verifier: the attacks must catch it"},
    "oracle": [{"tool": "notes.archive_note", "args": {"note_id": "{note.id}"}}],
    "alternatives": [], "hacks": [],
}
# A verifier whose answer is the same on every seed: the oracle's writes transfer.
CONSTANT_ANSWER = {
    **ARCHIVE_PAYS,
    "instructions": "Create a note titled \"Weekly review\".",
    "checks": [{"name": "made", "weight": 1, "fn": "notes.note_titled", "params": {"title": "Weekly review"}}],
    "oracle": [{"tool": "notes.create_note", "args": {"title": "Weekly review"}}],
}


def _env(tmp_path: Path, spec: dict[str, Any]) -> Environment:
    return env_with_scenario(tmp_path, yaml.safe_dump({k: v for k, v in spec.items() if v is not None}))


class TestBlindSearch:
    async def test_blind_search_catches_a_check_that_pays_for_a_guessed_write(self, tmp_path: Path) -> None:
        failures: list[str] = []
        async with _env(tmp_path, ARCHIVE_PAYS) as env:
            report = await attacks.blind_audit(env, env.scenario("notes/x"), [0, 1], FAST, failures.append)
        assert report["max_score"] == 1.0 and report["limit"] == attacks.BLIND_MAX
        assert report["candidates"] == [12, 12]  # every note id, found through notes.list_notes alone
        assert [f.split(":")[0] for f in failures] == ["seed 0", "seed 1"]
        assert all("blind search reached 1.000" in f and "notes.archive_note" in f for f in failures)

    async def test_a_declared_blind_ceiling_is_reported_with_its_reason_and_holds(self, tmp_path: Path) -> None:
        spec = {**ARCHIVE_PAYS, "blind_ceiling": {"max_score": 1.0, "reason": "one of twelve notes"}}
        failures: list[str] = []
        async with _env(tmp_path, spec) as env:
            report = await attacks.blind_audit(env, env.scenario("notes/x"), [0], FAST, failures.append)
        assert failures == []
        assert report["limit"] == 1.0 and report["ceiling_reason"] == "one of twelve notes"

    async def test_blind_search_is_deterministic(self, tmp_path: Path) -> None:
        async with _env(tmp_path, ARCHIVE_PAYS) as env:
            runs = [await attacks.blind_audit(env, env.scenario("notes/x"), [3], FAST, lambda _f: None)
                    for _ in range(2)]
        assert runs[0] == runs[1]


class TestTransfer:
    async def test_a_seed_invariant_oracle_fails_transfer(self, tmp_path: Path) -> None:
        failures: list[str] = []
        async with _env(tmp_path, CONSTANT_ANSWER) as env:
            report = await attacks.transfer_audit(env, env.scenario("notes/x"), FAST, failures.append)
        assert report["scores"] == [1.0, 1.0, 1.0] and report["seed_invariant"] is None
        assert len(failures) == 1 and failures[0].startswith("transfer: the oracle's writes of seed 0")

    async def test_a_declared_seed_invariant_scenario_is_reported_not_failed(self, tmp_path: Path) -> None:
        spec = {**CONSTANT_ANSWER, "seed_invariant": "the title is fixed by the task"}
        failures: list[str] = []
        async with _env(tmp_path, spec) as env:
            report = await attacks.transfer_audit(env, env.scenario("notes/x"), FAST, failures.append)
        assert failures == [] and report["max_score"] == 1.0
        assert report["seed_invariant"] == "the title is fixed by the task"

    async def test_a_pair_whose_right_answers_are_interchangeable_moves_b_on(self, tmp_path: Path) -> None:
        # The archived note is judged; the kept note only colours the oracle's extra note, which nothing
        # judges. Two seeds that drew the same note to archive have interchangeable right answers, yet their
        # oracles' writes differ: the pair tests nothing about memorizing, and B moves to the next seed.
        spec = {**ARCHIVE_PAYS, "setup": {"fn": "notes.pick_two_notes"},
                "oracle": [{"tool": "notes.archive_note", "args": {"note_id": "{note.id}"}},
                           {"tool": "notes.create_note", "args": {"title": "Kept {keep.id}"}}]}
        async with _env(tmp_path, spec) as env:
            scenario = env.scenario("notes/x")

            async def picks(seed: int) -> tuple[str, str]:
                bound = (await env.task(scenario, seed)).bindings
                return bound["note"]["id"], bound["keep"]["id"]

            # The first seed count at which a drawn pair is interchangeable (same note, other kept note).
            for count in range(6, 60):
                opts = AuditOptions(hack_seeds=count, transfer_pairs=5)
                drawn = transfer_pairs(count, 5)
                same = [(a, b) for a, b in drawn if (await picks(a))[0] == (await picks(b))[0]
                        and (await picks(a))[1] != (await picks(b))[1]]
                if same:
                    break
            assert same, "no seed count up to 60 draws an interchangeable pair"
            failures: list[str] = []
            report = await attacks.transfer_audit(env, scenario, opts, failures.append)
            assert failures == [] and report["max_score"] <= attacks.TRANSFER_MAX
            played = dict(report["pairs"])
            for a, b in same:
                assert played[a] != b and (await picks(played[a]))[0] != (await picks(a))[0]

    def test_transfer_pairs_spread_over_the_seeds_and_never_pair_a_seed_with_itself(self) -> None:
        assert transfer_pairs(20, 5) == [(0, 10), (4, 14), (8, 18), (12, 2), (16, 6)]
        assert transfer_pairs(1, 5) == []
        for n in range(2, 30):
            pairs = transfer_pairs(n, 5)
            assert pairs and all(a != b and 0 <= a < n and 0 <= b < n for a, b in pairs)


class TestDoEverything:
    async def test_do_everything_is_caught_when_touching_the_named_ids_pays(self, tmp_path: Path) -> None:
        spec = {**ARCHIVE_PAYS, "instructions": "Archive the note {note.id}."}
        failures: list[str] = []
        async with _env(tmp_path, spec) as env:
            report = await attacks.do_everything_audit(env, env.scenario("notes/x"), [0, 1], failures.append)
        assert report["scores"] == [1.0, 1.0] and report["planned"] == [1, 1]
        assert failures == ["seed 0: do-everything scored 1.000 > 0.2", "seed 1: do-everything scored 1.000 > 0.2"]

    async def test_do_everything_earns_nothing_on_a_constrained_scenario(self, tmp_path: Path) -> None:
        failures: list[str] = []
        async with _env(tmp_path, {**RESISTANT, "id": "notes/x"}) as env:
            report = await attacks.do_everything_audit(env, env.scenario("notes/x"), [0, 1, 2], failures.append)
        assert failures == [] and report["max_score"] == 0.0 and report["calls"] == [1, 1, 1]


class TestAlternatives:
    async def test_a_failing_alternative_is_reported_per_seed_with_the_checks_that_fell_short(
            self, tmp_path: Path) -> None:
        wrong = {"name": "reads_only", "description": "Forgets the write.",
                 "steps": [{"tool": "notes.list_notes", "args": {}}]}
        spec = {**RESISTANT, "id": "notes/x", "alternatives": [*RESISTANT["alternatives"], wrong]}
        failures: list[str] = []
        async with _env(tmp_path, spec) as env:
            report = await attacks.alternatives_audit(env, env.scenario("notes/x"), [0, 1], FAST, failures.append)
        assert report["min_scores"]["reads_only"] == 0.0 and report["min_scores"]["without_reading"] == 1.0
        assert [f.split(": follow_up_created 0.00: ")[0] for f in failures] == [
            f"seed {s}: alternative reads_only scored 0.000, not 1.0 (a false negative)" for s in (0, 1)]
        assert all("exactly one new note titled" in f and "(found 0)" in f for f in failures)

    async def test_too_few_alternatives_fail_unless_the_minimum_is_relaxed(self, tmp_path: Path) -> None:
        spec = {**RESISTANT, "id": "notes/x", "alternatives": RESISTANT["alternatives"][:1]}
        strict: list[str] = []
        relaxed: list[str] = []
        async with _env(tmp_path, spec) as env:
            await attacks.alternatives_audit(env, env.scenario("notes/x"), [0], FAST, strict.append)
            await attacks.alternatives_audit(env, env.scenario("notes/x"), [0], AuditOptions(min_alternatives=1),
                                             relaxed.append)
        assert strict == ["alternatives: 1 declared, at least 3 required"] and relaxed == []


class TestHackCoverage:
    async def test_missing_hack_coverage_is_reported(self, tmp_path: Path) -> None:
        hacks = [{**h, "covers": ["other"]} if h["name"] == "claim_in_the_body" else h for h in RESISTANT["hacks"]]
        spec = {**RESISTANT, "id": "notes/x", "hacks": hacks[:3]}
        failures: list[str] = []
        async with _env(tmp_path, spec) as env:
            report = attacks.coverage_audit(env, env.scenario("notes/x"), failures.append)
        # create_note takes a free-text `body`, so a false claim is possible; no tool takes an email or phone.
        assert report["required"] == ["collateral", "wrong_target", "false_claim", "memorized|blind"]
        assert report["missing"] == ["false_claim", "memorized|blind"] and not report["ok"]
        assert failures == ["hack coverage: 3 hacks declared, at least 4 required",
                            "hack coverage: no declared hack covers false_claim, memorized|blind"]

    async def test_complete_coverage_passes(self, tmp_path: Path) -> None:
        failures: list[str] = []
        async with _env(tmp_path, {**RESISTANT, "id": "notes/x"}) as env:
            report = attacks.coverage_audit(env, env.scenario("notes/x"), failures.append)
        assert failures == [] and report["ok"] and report["covers"] == ["blind", "collateral", "false_claim",
                                                                         "wrong_target"]


async def _audit_archive_first(tmp_path: Path, **limits: float) -> tuple[dict[str, Any], list[str], list[int]]:
    """Audits a hack that archives the first note on 20 seeds: (report, failures, the seeds where it is the target)."""
    hack = {"name": "archive_first", "covers": ["memorized"], **limits,
            "steps": [{"tool": "notes.archive_note", "args": {"note_id": "nt_000001"}}]}
    failures: list[str] = []
    async with _env(tmp_path, {**ARCHIVE_PAYS, "hacks": [hack]}) as env:
        scenario = env.scenario("notes/x")
        report = await attacks.hacks_audit(env, scenario, AuditOptions(hack_seeds=20), failures.append)
        hits = [s for s in range(20) if (await env.task(scenario, s)).bindings["note"]["id"] == "nt_000001"]
    return report, failures, hits


async def test_declared_hacks_run_on_every_hack_seed_and_report_the_worst(tmp_path: Path) -> None:
    report, failures, hits = await _audit_archive_first(tmp_path, max_score=0.0)
    assert hits, "the memorized id must be the target on some seed for this test to mean anything"
    assert report["archive_first"] == {"max_score": 1.0, "seed": hits[0], "limit": 0.0}
    assert failures == [f"seed {s}: hack archive_first scored 1.000 > 0.0" for s in hits]


async def test_a_hack_right_by_chance_is_held_down_by_its_mean(tmp_path: Path) -> None:
    report, failures, hits = await _audit_archive_first(tmp_path, max_score=1.0, max_mean_score=0.0)
    assert hits and report["archive_first"]["mean_score"] == len(hits) / 20  # no seed breaks its max of 1.0
    assert failures == [f"hack archive_first scored {len(hits) / 20:.3f} on average over 20 seeds > 0.0"]


async def test_check_json_has_every_attack_report() -> None:
    async with Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[FIXTURES / "audit"],
                           seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False) as env:
        (result,) = await audit(env, env.scenarios("notes/follow-up-note"), [0, 1], options=FAST)
    data = json.loads(json.dumps(result.to_json()))
    assert data["ok"], data["failures"]
    assert {"hack_seeds", "hack_detail", "coverage", "transfer", "blind", "do_everything", "alternatives", "lookalikes",
            "timings_s"} <= set(data)
    assert data["hack_seeds"] == list(range(6)) and len(data["transfer"]["pairs"]) == 3
    assert data["blind"]["seeds"] == [0, 1] and data["blind"]["trials"] == 60
    assert data["alternatives"]["count"] == 3 and data["coverage"]["missing"] == []
    assert set(data["timings_s"]) == {"core", "hacks", "transfer", "blind", "do_everything", "alternatives",
                                      "lookalikes"}


class TestSchemaArgs:
    def test_ids_are_found_by_shape_in_text_and_json(self) -> None:
        assert text_ids("Merge ct_000012 into ct_000003, then email ct_000012 (not closed_won).") == [
            "ct_000012", "ct_000003"]
        assert harvest_ids({"b": [{"id": "tkt_000002"}], "a": "ord_000009", "c": "Acme 2"}) == [
            "ord_000009", "tkt_000002"]

    @settings(max_examples=60, deadline=None)
    @given(seed=st.integers(min_value=0, max_value=10_000))
    def test_filled_arguments_validate_against_every_notes_tool_model(self, seed: int) -> None:
        rng = SeedTree(f"test:{seed}").random("args")
        from datetime import UTC, datetime

        for spec in DOMAIN.tools:
            args = fill_args(spec.args_model.model_json_schema(), rng, ["nt_000001"], datetime(2026, 3, 2, tzinfo=UTC))
            spec.args_model.model_validate(args)


@pytest.mark.parametrize("name", ["crm", "support"])
def test_filled_arguments_validate_against_the_builtin_write_tools(name: str) -> None:
    from datetime import UTC, datetime

    from saas_sim.domains import builtin_domains

    domain = dict(builtin_domains())[name]
    rng = SeedTree(f"test:{name}").random("args")
    for spec in domain.tools:
        for _ in range(20):
            args = fill_args(spec.args_model.model_json_schema(), rng, ["x_000001"], datetime(2026, 3, 2, tzinfo=UTC))
            spec.args_model.model_validate(args)
