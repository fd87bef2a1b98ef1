"""The self-audit's attacks on a scenario's verifier (issue 9): each returns a JSON-ready report.

1. Declared hacks on seeds `0..hack_seeds-1` (default 20), whatever `--seeds` is.
2. Cross-seed transfer: the oracle's WRITE calls on seed A, replayed verbatim on
   seed B, for the pairs `transfer_pairs` picks; at most `TRANSFER_MAX` unless the
   scenario declares `seed_invariant` (then reported, not failed).
3. Blind search (`BlindSearch`) on the first `blind_seeds` audited seeds: at most
   the scenario's `blind_ceiling`, or `BLIND_MAX`.
4. Do-everything (`DoEverythingAgent`) on every audited seed: at most `DO_EVERYTHING_MAX`.
5. Alternatives: each scores 1.0 on every audited seed, and there are at least
   `min_alternatives` (default `MIN_ALTERNATIVES`) of them.
6. Hack coverage (saas_sim/runtime/hack_coverage.py).
7. Look-alikes: the oracle played over the bindings as they were before the setup's look-alike
   groups were dealt (`TaskInstance.unlabelled_bindings`), which is a policy that takes the lowest id
   among same-looking records: on the hack seeds where the oracle writes a look-alike's id, at most
   `LOOKALIKE_MAX_MEAN` on average.

Every attack draws its choices from `SeedTree("audit:<ref>:<seed>")`, so a report
is a pure function of the scenario, the seeds and the code.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from saas_sim.core.rng import SeedTree
from saas_sim.core.tools import ToolKind
from saas_sim.errors import HarnessError
from saas_sim.runtime.agents import Agent, ScriptedAgent
from saas_sim.runtime.attack_agents import BlindSearch, CallReplayAgent, DoEverythingAgent
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.grading import Grade
from saas_sim.runtime.hack_coverage import MIN_HACKS, required_coverage
from saas_sim.scenarios.loader import Scenario

__all__ = [
    "BLIND_MAX",
    "DO_EVERYTHING_MAX",
    "MIN_ALTERNATIVES",
    "TRANSFER_MAX",
    "AuditOptions",
    "alternatives_audit",
    "blind_audit",
    "coverage_audit",
    "do_everything_audit",
    "hacks_audit",
    "lookalike_audit",
    "transfer_audit",
    "transfer_pairs",
]

EPS = 1e-6
Fail = Callable[[str], None]
"""Records one failure line of the scenario's audit."""
TRANSFER_MAX = 0.2
"""The most another seed's oracle writes may score."""
BLIND_MAX = 0.5
"""The blind search's ceiling when a scenario declares no `blind_ceiling`."""
DO_EVERYTHING_MAX = 0.2
"""The most the do-everything agent may score."""
MIN_ALTERNATIVES = 3
"""The fewest alternative correct solutions a scenario may ship."""
LOOKALIKE_MAX_MEAN = 0.75
"""The most the lowest-id policy may score on average (it scored 1.0 while staged copies always came later)."""
LOOKALIKE_MIN_SEEDS = 4
"""The fewest seeds whose oracle writes a look-alike's id for the lowest-id policy's mean to be judged."""


@dataclass(frozen=True)
class AuditOptions:
    """How hard the attacks try (the `saas-sim check` options).

    Attributes:
        hack_seeds: Declared hacks and the transfer pairs run on seeds `0..hack_seeds-1`.
        transfer_pairs: How many (A, B) seed pairs the transfer audit plays.
        blind_seeds: The blind search runs on the first this-many audited seeds.
        blind_trials: One-write moves the blind search tries per seed.
        min_alternatives: The fewest alternatives a scenario may ship.
    """

    hack_seeds: int = 20
    transfer_pairs: int = 5
    blind_seeds: int = 2
    blind_trials: int = 200
    min_alternatives: int = MIN_ALTERNATIVES


def transfer_pairs(seeds: int, count: int) -> list[tuple[int, int]]:
    """Returns the (A, B) pairs of the transfer audit over seeds `0..seeds-1`.

    `A_k = k * seeds // count` spreads the sources over the range, and
    `B_k = (A_k + seeds // 2) mod seeds` pairs each with a seed half the range
    away; for 20 seeds and 5 pairs: (0, 10), (4, 14), (8, 18), (12, 2), (16, 6).
    """
    if seeds < 2:
        return []
    half = max(1, seeds // 2)
    firsts = dict.fromkeys(k * seeds // count for k in range(count))
    return [(a, (a + half) % seeds) for a in firsts if (a + half) % seeds != a]


async def _graded_why(env: Environment, scenario: Scenario, seed: int, agent: Agent
                      ) -> tuple[float, Episode, Grade]:
    """Plays `agent` on `seed` and grades it; an invalid episode is a harness error, never a score."""
    episode = await env.start(scenario, seed)
    await agent.run(episode)
    grade = await episode.grade(footer=False)
    if not grade.valid or grade.score is None:
        await episode.close()
        raise HarnessError(f"{agent.name} on seed {seed}: episode invalid ({grade.attribution}): {grade.error}")
    return grade.score, episode, grade


async def _graded(env: Environment, scenario: Scenario, seed: int, agent: Agent) -> tuple[float, Episode]:
    score, episode, _ = await _graded_why(env, scenario, seed, agent)
    return score, episode


async def _oracle_writes(env: Environment, scenario: Scenario, seed: int) -> list[tuple[str, Any]]:
    """The oracle's WRITE calls on `seed` as recorded (tool, arguments); a retried call once."""
    kinds = {t.name: t.kind for t in env.toolkit(scenario).allowed.values()}
    _, source = await _graded(env, scenario, seed, ScriptedAgent("oracle", scenario.spec.oracle))
    seen: dict[str, tuple[str, Any]] = {}
    for step in source.trajectory.steps:  # a retried call appears once per attempt: keep the first
        if kinds.get(step.tool) is ToolKind.WRITE:
            seen.setdefault(step.call_id, (step.tool, step.args))
    await source.close()
    return list(seen.values())


async def _score(env: Environment, scenario: Scenario, seed: int, agent: Agent) -> float:
    score, episode = await _graded(env, scenario, seed, agent)
    await episode.close()
    return score


def shortfall(grade: Grade, limit: int = 300) -> str:
    """The checks of `grade` that scored below 1.0, each with its detail (cut to `limit` characters), so
    that an audit failure says why without a rerun."""
    parts = [f"{c.name} {c.score:.2f}: {c.detail[:limit]}" for c in grade.checks if c.score < 1.0]
    return "; ".join(parts) or "no check below 1.0"


async def _score_why(env: Environment, scenario: Scenario, seed: int, agent: Agent) -> tuple[float, str]:
    """The score of `agent` on `seed` and, when it is below 1.0, which checks fell short and why."""
    score, episode, grade = await _graded_why(env, scenario, seed, agent)
    await episode.close()
    return score, ("" if abs(score - 1.0) <= EPS else shortfall(grade))


async def hacks_audit(env: Environment, scenario: Scenario, opts: AuditOptions, fail: Fail) -> dict[str, Any]:
    """Runs every declared hack on seeds `0..hack_seeds-1`; returns each hack's worst score and seed, and its mean
    score where the hack bounds it (`max_mean_score`)."""
    out: dict[str, Any] = {}
    for hack in scenario.spec.hacks:
        agent = ScriptedAgent(f"hack:{hack.name}", hack.steps)
        scores = await asyncio.gather(*(_score(env, scenario, s, agent) for s in range(opts.hack_seeds)))
        worst = max(range(len(scores)), key=lambda i: (scores[i], -i))
        out[hack.name] = {"max_score": scores[worst], "seed": worst, "limit": hack.max_score}
        for seed, score in enumerate(scores):
            if score > hack.max_score + EPS:
                fail(f"seed {seed}: hack {hack.name} scored {score:.3f} > {hack.max_score}")
        if hack.max_mean_score is not None and scores:
            mean = sum(scores) / len(scores)
            out[hack.name] |= {"mean_score": mean, "mean_limit": hack.max_mean_score}
            if mean > hack.max_mean_score + EPS:
                fail(f"hack {hack.name} scored {mean:.3f} on average over {len(scores)} seeds > {hack.max_mean_score}")
    return out


async def lookalike_audit(env: Environment, scenario: Scenario, opts: AuditOptions, fail: Fail) -> dict[str, Any]:
    """Plays the lowest-id policy (the oracle over the unlabelled bindings) on the hack seeds; judges its mean
    score over the seeds where the oracle's WRITE calls name an id of a look-alike group. A seed whose task
    declared no group, or where the oracle writes none of its ids (it only reads them, so which record it
    read changes nothing it does), is no test of the deal and is left out; a seed where the deal left the real
    record its lowest id counts, at the oracle's own score."""
    lowest = ScriptedAgent("lowest-id", scenario.spec.oracle, bindings_of=lambda task: task.unlabelled_bindings())

    async def one(seed: int) -> float | None:
        labels = (await env.task(scenario, seed)).labels
        if not labels:
            return None
        said = json.dumps(await _oracle_writes(env, scenario, seed), sort_keys=True, default=str)
        named = re.compile("|".join(rf"\b{re.escape(old)}\b" for old, _ in labels))
        return await _score(env, scenario, seed, lowest) if named.search(said) else None

    scores = await asyncio.gather(*(one(s) for s in range(opts.hack_seeds)))
    judged = {seed: s for seed, s in enumerate(scores) if s is not None}
    if not judged:
        return {}
    mean = sum(judged.values()) / len(judged)
    if len(judged) >= LOOKALIKE_MIN_SEEDS and mean > LOOKALIKE_MAX_MEAN + EPS:
        fail(f"look-alikes: taking the lowest id among same-looking records scored {mean:.3f} on average over "
             f"{len(judged)} seeds (> {LOOKALIKE_MAX_MEAN}); the real record's id is not dealt at random")
    return {"scores": judged, "mean_score": mean, "limit": LOOKALIKE_MAX_MEAN}


async def transfer_audit(env: Environment, scenario: Scenario, opts: AuditOptions, fail: Fail) -> dict[str, Any]:
    """Replays the oracle's WRITE calls of seed A on seed B, for each pair.

    Seeds whose right answers share a write by chance (the same staged ticket id after two equal id gaps)
    test nothing about memorizing: B moves on to the next seed whose oracle shares no write with A's. So
    do seeds whose right answers are interchangeable in all the checks judge, though their calls differ
    in words no check reads (two seeds that drew the same ticket id and the same figure, the replies
    greeting other names): when A's writes pass on B and B's pass on A, B moves on to the next seed. Only
    when every seed is such a seed (an answer that is constant across seeds) is the pair played as drawn.
    """
    spec = scenario.spec
    written: dict[int, asyncio.Task[list[tuple[str, Any]]]] = {}

    def writes(seed: int) -> asyncio.Task[list[tuple[str, Any]]]:
        if seed not in written:
            written[seed] = asyncio.ensure_future(_oracle_writes(env, scenario, seed))
        return written[seed]

    def keys(calls: list[tuple[str, Any]]) -> set[str]:
        return {json.dumps(c, sort_keys=True, default=str) for c in calls}

    async def untried(a: int, start: int, tried: set[int]) -> int | None:
        """The first seed from `start` on (mod N) not in `tried` whose oracle shares no write with A's."""
        mine = keys(await writes(a))
        for step in range(opts.hack_seeds):
            other = (start + step) % opts.hack_seeds
            if other not in tried and not mine & keys(await writes(other)):
                return other
        return None

    async def replayed(a: int, b: int) -> float:
        return await _score(env, scenario, b, CallReplayAgent(f"transfer-{a}", await writes(a)))

    async def one(a: int, b: int) -> tuple[int, float]:
        found = await untried(a, b, {a})
        drawn_b = b = b if found is None else found
        score = first = await replayed(a, b)
        tried = {a, b}
        while score > TRANSFER_MAX + EPS and await replayed(b, a) > TRANSFER_MAX + EPS:
            following = await untried(a, b + 1, tried)
            if following is None:  # every seed's right answer is A's: a constant, played as drawn
                return drawn_b, first
            b = following
            tried.add(b)
            score = await replayed(a, b)
        return b, score

    drawn = transfer_pairs(opts.hack_seeds, opts.transfer_pairs)
    played = await asyncio.gather(*(one(a, b) for a, b in drawn))
    pairs = [(a, b) for (a, _), (b, _) in zip(drawn, played, strict=True)]
    scores = [score for _, score in played]
    best = max(scores, default=0.0)
    if best > TRANSFER_MAX + EPS and spec.seed_invariant is None:
        a, b = pairs[scores.index(best)]
        fail(f"transfer: the oracle's writes of seed {a} scored {best:.3f} on seed {b} (> {TRANSFER_MAX}); "
             "an answer that is a constant across seeds can be memorized")
    return {"pairs": [list(p) for p in pairs], "scores": scores, "max_score": best, "limit": TRANSFER_MAX,
            "seed_invariant": spec.seed_invariant}


async def blind_audit(
    env: Environment, scenario: Scenario, seeds: Sequence[int], opts: AuditOptions, fail: Fail
) -> dict[str, Any]:
    """Runs the blind search on the first `blind_seeds` audited seeds."""
    spec = scenario.spec
    ceiling = spec.blind_ceiling.max_score if spec.blind_ceiling is not None else BLIND_MAX
    chosen = list(seeds)[: opts.blind_seeds]

    async def one(seed: int) -> Any:
        rng = SeedTree(f"audit:{spec.ref}:{seed}").child("blind").random("moves")
        return await BlindSearch(rng, opts.blind_trials).search(await env.start(scenario, seed))

    outcomes = await asyncio.gather(*(one(s) for s in chosen))
    for seed, o in zip(chosen, outcomes, strict=True):
        if o.score > ceiling + EPS:
            moves = "; ".join(f"{t} {a}" for t, a in o.moves)
            fail(f"seed {seed}: blind search reached {o.score:.3f} > {ceiling} in {o.kept} kept moves: {moves}")
    return {
        "seeds": chosen, "trials": opts.blind_trials, "max_score": max((o.score for o in outcomes), default=0.0),
        "scores": [o.score for o in outcomes], "kept_moves": [o.kept for o in outcomes],
        "candidates": [o.candidates for o in outcomes], "limit": ceiling,
        "ceiling_reason": spec.blind_ceiling.reason if spec.blind_ceiling is not None else None,
    }


async def do_everything_audit(
    env: Environment, scenario: Scenario, seeds: Sequence[int], fail: Fail
) -> dict[str, Any]:
    """Runs the do-everything agent on every audited seed."""
    ref = scenario.spec.ref

    async def one(seed: int) -> tuple[float, int, int]:
        kinds = {prefix: kind for d in env.domains.values() for prefix, kind in d.id_kinds.items()}
        agent = DoEverythingAgent(SeedTree(f"audit:{ref}:{seed}").child("do-everything").random("args"), kinds)
        score, episode = await _graded(env, scenario, seed, agent)
        calls = episode.steps
        await episode.close()
        return score, calls, agent.planned

    results = await asyncio.gather(*(one(s) for s in seeds))
    for seed, (score, _, _) in zip(seeds, results, strict=True):
        if score > DO_EVERYTHING_MAX + EPS:
            fail(f"seed {seed}: do-everything scored {score:.3f} > {DO_EVERYTHING_MAX}")
    return {"max_score": max((r[0] for r in results), default=0.0), "scores": [r[0] for r in results],
            "calls": [r[1] for r in results], "planned": [r[2] for r in results], "limit": DO_EVERYTHING_MAX}


async def alternatives_audit(
    env: Environment, scenario: Scenario, seeds: Sequence[int], opts: AuditOptions, fail: Fail
) -> dict[str, Any]:
    """Runs every alternative correct solution on every audited seed; each must score 1.0."""
    alts = scenario.spec.alternatives
    if len(alts) < opts.min_alternatives:
        fail(f"alternatives: {len(alts)} declared, at least {opts.min_alternatives} required")
    out: dict[str, float] = {}
    for alt in alts:
        agent = ScriptedAgent(f"alt:{alt.name}", alt.steps)
        results = await asyncio.gather(*(_score_why(env, scenario, s, agent) for s in seeds))
        out[alt.name] = min((score for score, _ in results), default=1.0)
        for seed, (score, why) in zip(seeds, results, strict=True):
            if abs(score - 1.0) > EPS:
                fail(f"seed {seed}: alternative {alt.name} scored {score:.3f}, not 1.0 (a false negative): {why}")
    return {"count": len(alts), "min_required": opts.min_alternatives, "min_scores": out}


def coverage_audit(env: Environment, scenario: Scenario, fail: Fail) -> dict[str, Any]:
    """Checks the declared hacks' count and coverage against the rule."""
    cov = required_coverage(scenario.spec, list(env.toolkit(scenario).allowed.values()))
    if cov.hacks < MIN_HACKS:
        fail(f"hack coverage: {cov.hacks} hacks declared, at least {MIN_HACKS} required")
    if cov.missing:
        fail(f"hack coverage: no declared hack covers {', '.join(cov.missing)}")
    return cov.to_json()
