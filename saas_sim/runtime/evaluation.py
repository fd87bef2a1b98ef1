"""Evaluation runs: an agent over scenarios x seeds x trials, concurrent, resumable, into one folder.

    plan = plan_evaluation(env, EvalConfig(agent="random:1", pattern="crm/*", seeds=[0, 1], trials=4))
    results = await run_evaluation(env, plan, Path("out"))
    report = build_report(plan, results)

A run's folder holds:

* `run.json`: the arguments that decide its episodes (agent, scenario glob and the scenario
  versions it matched, seeds, trials). A folder holding another run's arguments is refused.
* `results.jsonl`: one line per finished episode (`eval_stats.EpisodeResult`), appended as each
  one finishes. A restarted run skips every (scenario, seed, trial) already there, so an
  interrupted run picks up where it stopped; a line cut short by a kill is dropped.
* `trajectories/<scenario id>@<version>/seed<S>-trial<K>.jsonl`: each episode's trajectory.
* `report.json` (and, from the command line, `report.html`): the figures of `eval_stats.summarize`.
* `.lock`: held (flock) while a run uses the folder; a second run on it is refused.

Trials: a deterministic agent (oracle, noop, hack:NAME, alt:NAME) plays every trial the same way.
A random agent would too, so trial k of `random:S` plays as `random:S_k`, where S_k is the first
32 bits of sha256 down the seed tree `SeedTree("random:S").child("trial:k")` (`trial_agent`); each
results line names the agent as it played, so `saas-sim run --agent random:S_k` replays it. An
`openai:MODEL?seed=S` agent gets a seed derived the same way (from `openai-seed:S`) per trial.

Episodes run `concurrency` at a time, each in its own stream (isolated as every episode is). An
agent that stops on a saas_sim error is recorded with that error and graded as it stands; a harness
error grades as `harness_error` (invalid, no score). Anything else is a bug and stops the run loudly;
what finished before it stays in `results.jsonl`. Nothing here prints: `on_result` reports progress.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from saas_sim.core.canonical import stable_hash
from saas_sim.core.rng import SeedTree
from saas_sim.errors import HarnessError, SaasSimError, UsageError
from saas_sim.runtime.agents import Agent, make_agent
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.eval_stats import BOOTSTRAP_RESAMPLES, EpisodeResult, summarize
from saas_sim.runtime.grading import Grade
from saas_sim.scenarios.loader import Scenario

__all__ = [
    "REPORT_FORMAT", "RUN_FORMAT", "EvalConfig", "EvalPlan", "RunFolder", "build_report", "default_out_dir",
    "plan_evaluation", "run_evaluation", "trial_agent", "write_report",
]

RUN_FORMAT = "saas_sim.eval/1"
REPORT_FORMAT = "saas_sim.eval_report/1"
RESULTS = "results.jsonl"
RUN_FILE = "run.json"
LOCK_FILE = ".lock"


@dataclass(frozen=True)
class EvalConfig:
    """What to evaluate.

    Attributes:
        agent: An agent spec `make_agent` accepts.
        pattern: A glob over scenario ids, or several separated by commas.
        seeds: The task seeds.
        trials: Attempts per (scenario, seed), K of pass^k.
        threshold: Success is `score >= threshold` (the report only; not part of the run's identity).
        concurrency: Episodes run at once.
        resamples: The bootstrap's resamples (the report only).
        base_url: The endpoint of an `openai:MODEL` agent (part of the run's identity when set).
    """

    agent: str
    pattern: str
    seeds: Sequence[int]
    trials: int
    threshold: float = 1.0
    concurrency: int = 4
    resamples: int = BOOTSTRAP_RESAMPLES
    base_url: str | None = None


@dataclass(frozen=True)
class EvalPlan:
    """A config resolved against the catalogue: the scenarios and every episode to run, in key order."""

    config: EvalConfig
    scenarios: list[Scenario]

    @property
    def identity(self) -> dict[str, Any]:
        """The arguments that decide the run's episodes, as `run.json` holds them."""
        c = self.config
        identity = {"format": RUN_FORMAT, "agent": c.agent, "scenario": c.pattern,
                    "scenarios": [s.ref for s in self.scenarios], "seeds": list(c.seeds), "trials": c.trials}
        return identity if c.base_url is None else {**identity, "base_url": c.base_url}

    def agent(self, trial: int, scenario: Scenario) -> Agent:
        """Builds the agent of one trial (`trial_agent`) for one scenario."""
        spec = trial_agent(self.config.agent, trial)
        if self.config.base_url is None:
            return make_agent(spec, scenario)
        return make_agent(spec, scenario, base_url=self.config.base_url)

    def episodes(self) -> list[tuple[Scenario, int, int]]:
        """Every (scenario, seed, trial), sorted by scenario ref, then seed, then trial."""
        ordered = sorted(self.scenarios, key=lambda s: s.ref)
        return [(s, seed, t) for s in ordered for seed in sorted(self.config.seeds) for t in range(self.config.trials)]


def trial_agent(spec: str, trial: int) -> str:
    """Returns the agent spec trial `trial` plays: a seed is derived per trial (sha256) where the agent has one.

    `random:S` plays as `random:S_k`; an `openai:MODEL?seed=S` agent asks its model for the seed S_k
    (a model without `seed` samples as it does anyway); every other agent plays as given.
    """
    kind, _, arg = spec.partition(":")
    if kind == "random":
        return f"random:{_trial_seed(f'random:{arg or 0}', trial)}"
    if kind == "openai" and "?" in arg:
        model, _, query = arg.partition("?")
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(k == "seed" for k, _ in pairs):
            pairs = [(k, str(_trial_seed(f"openai-seed:{v}", trial)) if k == "seed" else v) for k, v in pairs]
            return f"openai:{model}?{urlencode(pairs)}"
    return spec


def _trial_seed(root: str, trial: int) -> int:
    """The first 32 bits of sha256 down the seed tree `root` -> `trial:<k>`."""
    return SeedTree(root).child(f"trial:{trial}").int_seed(32)


def plan_evaluation(env: Environment, config: EvalConfig) -> EvalPlan:
    """Resolves the scenarios and checks that the agent can play each of them.

    Raises:
        UsageError: No scenario matches, no seed or trial is asked for, or the agent is unknown or
            missing from a scenario (a `hack:NAME` that one of them does not declare).
    """
    if config.trials < 1 or not config.seeds or config.concurrency < 1:
        raise UsageError("an evaluation needs at least one seed, one trial and a concurrency of 1 or more")
    if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in config.seeds):
        raise UsageError(f"seeds must be non-negative ints, got {list(config.seeds)!r}")
    # Comma-separated globs, matched in turn; a scenario two of them match is taken once.
    matched = {s.ref: s for glob in config.pattern.split(",") if glob.strip() for s in env.scenarios(glob.strip())}
    scenarios = list(matched.values())
    if not scenarios:
        raise UsageError(f"no scenario matches {config.pattern!r}")
    plan = EvalPlan(config, sorted(scenarios, key=lambda s: s.ref))
    for scenario in plan.scenarios:
        plan.agent(0, scenario)
    return plan


def default_out_dir(plan: EvalPlan, root: Path = Path(".saas_sim") / "eval") -> Path:
    """Returns `root/<agent>-<hash of the run's identity>`: the same arguments find the same folder."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", plan.config.agent).strip("-")[:40] or "agent"
    return root / f"{slug}-{stable_hash(plan.identity)[:12]}"


class RunFolder:
    """A run's folder: its identity, the finished results, and where trajectories go.

    Args:
        root: The folder (created if missing).
        identity: The plan's identity; a folder holding another is refused.

    Raises:
        UsageError: The folder holds a run with other arguments, or results with no `run.json`.
    """

    def __init__(self, root: Path, identity: dict[str, Any]) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        run_file, results = root / RUN_FILE, root / RESULTS
        if run_file.exists():
            held = json.loads(run_file.read_text(encoding="utf-8"))
            if held != identity:
                differ = sorted(k for k in {*held, *identity} if held.get(k) != identity.get(k))
                shown = "; ".join(_difference(k, held.get(k), identity.get(k)) for k in differ)
                raise UsageError(f"{root} holds a run with other arguments ({shown}); "
                                 "use another --out folder or remove that one")
        elif results.exists():
            raise UsageError(f"{root} holds {RESULTS} but no {RUN_FILE}; use another --out folder")
        else:
            run_file.write_text(json.dumps(identity, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        self.results = self._load(results)

    @staticmethod
    def _load(path: Path) -> list[EpisodeResult]:
        """Reads the finished results; a last line a kill cut short is dropped from the file too."""
        if not path.exists():
            return []
        data = path.read_bytes()
        complete = data[: data.rfind(b"\n") + 1]
        if len(complete) != len(data):
            path.write_bytes(complete)
        seen: dict[tuple[str, int, int], EpisodeResult] = {}
        for line in complete.decode("utf-8").split("\n"):
            if line:
                result = EpisodeResult.from_json(json.loads(line))
                seen.setdefault(result.key, result)
        return list(seen.values())

    def trajectory_path(self, scenario: str, seed: int, trial: int) -> str:
        """The trajectory's path relative to the folder."""
        return f"trajectories/{scenario}/seed{seed}-trial{trial}.jsonl"

    def append(self, result: EpisodeResult) -> None:
        """Appends one finished episode to `results.jsonl` in a single write, then flushes it."""
        line = json.dumps(result.to_json(), sort_keys=True, ensure_ascii=False) + "\n"
        with (self.root / RESULTS).open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
        self.results.append(result)


def _difference(key: str, there: Any, here: Any) -> str:
    """One differing argument, for people; lists (the matched scenarios) by what was added and removed."""
    if isinstance(there, list) and isinstance(here, list) and len(there) + len(here) > 8:
        added = [x for x in here if x not in there]
        removed = [x for x in there if x not in here]
        return f"{key}: {len(removed)} there only {removed[:4]!r}, {len(added)} here only {added[:4]!r}"
    return f"{key}: {there!r} there, {here!r} here"


async def _play(env: Environment, plan: EvalPlan, folder: RunFolder, scenario: Scenario, seed: int,
                trial: int) -> EpisodeResult:
    """Plays, grades and records one episode."""
    agent = plan.agent(trial, scenario)
    episode = await env.start(scenario, seed)
    stopped: str | None = None
    try:
        try:
            await agent.run(episode)
        except SaasSimError as exc:  # a harness error also invalidated the episode: its grade says so
            stopped = f"{type(exc).__name__}: {exc}"
        try:
            grade = await episode.grade()
        except HarnessError as exc:
            grade = Grade(scenario=scenario.ref, seed=seed, score=None, checks=[], attribution="harness_error",
                          valid=False, truncated=episode.truncated, error=f"grading failed: {exc}")
        rel = folder.trajectory_path(scenario.ref, seed, trial)
        episode.trajectory.write(folder.root / rel)
    finally:
        await episode.close()
    return EpisodeResult(
        scenario=scenario.ref, seed=seed, trial=trial, agent=trial_agent(plan.config.agent, trial), score=grade.score,
        goal_score=grade.goal_score, checks=grade.vector, violations=[v.name for v in grade.violations],
        attribution=grade.attribution, steps=episode.steps, error=grade.error or stopped, trajectory=rel,
        usage=(episode.trajectory.agent or {}).get("usage"),
    )


async def run_evaluation(
    env: Environment, plan: EvalPlan, out_dir: Path,
    on_result: Callable[[EpisodeResult | None, int, int], None] | None = None,
) -> list[EpisodeResult]:
    """Runs every episode of the plan not already finished in `out_dir`, `concurrency` at a time.

    Args:
        env: An open environment.
        plan: From `plan_evaluation`.
        out_dir: The run's folder (see the module docstring).
        on_result: Called as `(result, finished, total)` after each episode, and once at the start
            with `(None, already finished, total)`.

    Returns:
        Every finished result of the run, the earlier ones included, sorted by key.

    Raises:
        UsageError: `out_dir` holds a run with other arguments, or another run is using it now.
    """
    with _exclusive(out_dir):
        return await _run_folder(env, plan, RunFolder(out_dir, plan.identity), on_result)


@contextmanager
def _exclusive(root: Path) -> Iterator[None]:
    """Holds `root/.lock` for the run: two runs in one folder would play and append every episode twice."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / LOCK_FILE).open("a", encoding="utf-8") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(f"another saas-sim eval is running in {root}") from None
        yield  # closing the file releases the lock, also when the process is killed


async def _run_folder(
    env: Environment, plan: EvalPlan, folder: RunFolder,
    on_result: Callable[[EpisodeResult | None, int, int], None] | None,
) -> list[EpisodeResult]:
    done = {r.key for r in folder.results}
    wanted = {(s.ref, seed, t) for s, seed, t in plan.episodes()}
    todo = [(s, seed, t) for s, seed, t in plan.episodes() if (s.ref, seed, t) not in done]
    finished, total = len(done & wanted), len(wanted)
    if on_result is not None:
        on_result(None, finished, total)
    queue = iter(todo)

    async def worker() -> None:
        nonlocal finished
        for scenario, seed, trial in queue:  # one shared iterator: each key is taken by one worker
            result = await _play(env, plan, folder, scenario, seed, trial)
            folder.append(result)
            finished += 1
            if on_result is not None:
                on_result(result, finished, total)

    async with asyncio.TaskGroup() as group:
        for _ in range(min(plan.config.concurrency, len(todo))):
            group.create_task(worker())
    return sorted((r for r in folder.results if r.key in wanted), key=lambda r: r.key)


def build_report(plan: EvalPlan, results: Sequence[EpisodeResult]) -> dict[str, Any]:
    """Returns the run's report: its identity, how much of it finished, and `eval_stats.summarize`."""
    c = plan.config
    planned = len(plan.episodes())
    return {
        "format": REPORT_FORMAT, "run": plan.identity, "episodes_planned": planned,
        "episodes_finished": len(results), "complete": len(results) == planned,
        "resamples": c.resamples,
        **summarize(results, threshold=c.threshold, trials=c.trials, resamples=c.resamples),
    }


def write_report(report: dict[str, Any], out_dir: Path) -> Path:
    """Writes `report.json` into the run's folder and returns its path."""
    path = out_dir / "report.json"
    path.write_text(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
