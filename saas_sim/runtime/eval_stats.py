"""Evaluation statistics: one record per episode, and the figures of `saas-sim eval`, as pure functions.

* A *task* is one scenario on one seed; a *trial* is one attempt at it.
* Success is `score >= threshold` (the eval's threshold, 1.0 by default, not the scenario's).
* Invalid episodes (harness and verifier errors) carry no score: they are left out of every score
  statistic and counted in the environment failure rate instead.
* pass^k is tau-bench's: a task with n valid trials and c successes contributes `C(c, k) / C(n, k)`,
  the chance that k trials drawn without replacement all succeed; the figure is the mean over the
  tasks with at least k valid trials. pass^1 is the mean success rate per task.
* The mean score's confidence interval is a percentile bootstrap with `BOOTSTRAP_RESAMPLES`
  resamples drawn from a sha256-derived stream (`core.rng.SeedTree("eval-bootstrap")`), so the
  same results always give the same interval.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from math import comb
from typing import Any, Literal

from saas_sim.core.rng import SeedTree

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "CONFIDENCE",
    "ENV_FAILURE_ATTRIBUTIONS",
    "HARNESS_PROBLEM_RATE",
    "WARN_RATE",
    "EnvLevel",
    "EpisodeResult",
    "bootstrap_ci",
    "env_failure_level",
    "pass_hat_k",
    "summarize",
]

BOOTSTRAP_RESAMPLES = 2000
"""Resamples of the mean score's bootstrap."""
CONFIDENCE = 0.95
"""The bootstrap interval's coverage."""
WARN_RATE = 0.01
"""An environment failure rate above this is reported with a loud warning."""
HARNESS_PROBLEM_RATE = 0.05
"""Above this, the harness, not the model, is the problem."""
ENV_FAILURE_ATTRIBUTIONS = ("harness_error", "verifier_error")
"""The attributions of invalid episodes (runtime/grading.py): the environment failed, not the agent."""

EnvLevel = Literal["ok", "warning", "harness"]


@dataclass(frozen=True)
class EpisodeResult:
    """One finished episode, as one line of `results.jsonl`.

    Attributes:
        scenario: `id@version`.
        seed: The task seed.
        trial: The trial number, from 0.
        agent: The agent as it played this trial (`random:<derived seed>` for a random agent).
        score: The capped scalar; None for an invalid episode.
        goal_score: The weighted goal score; None for an invalid episode.
        checks: Every check's score by name, in the grade's order.
        violations: The violated constraints' names, in the grade's order.
        attribution: The grade's attribution.
        steps: Tool calls made.
        error: A harness or verifier traceback, or what stopped the agent; None when nothing did.
        trajectory: The trajectory file, relative to the run's folder.
        usage: An LLM agent's summed token usage (`prompt_tokens`, ...); None for other agents.
    """

    scenario: str
    seed: int
    trial: int
    agent: str
    score: float | None
    goal_score: float | None
    checks: dict[str, float]
    violations: list[str]
    attribution: str
    steps: int
    error: str | None = None
    trajectory: str | None = None
    usage: dict[str, Any] | None = None

    @property
    def key(self) -> tuple[str, int, int]:
        """`(scenario, seed, trial)`: what a resumed run skips."""
        return (self.scenario, self.seed, self.trial)

    @property
    def valid(self) -> bool:
        """False for harness and verifier errors, which carry no score."""
        return self.score is not None and self.attribution not in ENV_FAILURE_ATTRIBUTIONS

    @property
    def domain(self) -> str:
        """The scenario's domain: its id up to the first `/`."""
        return self.scenario.split("/", 1)[0]

    def to_json(self) -> dict[str, Any]:
        """Returns the JSON object of its results line."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EpisodeResult:
        """Reads a results line's object back (unknown keys are ignored, for newer writers)."""
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})


def pass_hat_k(tasks: Iterable[tuple[int, int]], k: int) -> float | None:
    """Returns tau-bench's pass^k over tasks given as `(n trials, c successes)`.

    Tasks with fewer than k trials are left out; None when no task has k.

    Raises:
        ValueError: k < 1, or a task with c outside [0, n].
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    values: list[float] = []
    for n, c in tasks:
        if not 0 <= c <= n:
            raise ValueError(f"a task has {c} successes in {n} trials")
        if n >= k:
            values.append(comb(c, k) / comb(n, k))
    return sum(values) / len(values) if values else None


def bootstrap_ci(values: Sequence[float], *, resamples: int = BOOTSTRAP_RESAMPLES, confidence: float = CONFIDENCE,
                 seed: str = "eval-bootstrap") -> tuple[float, float] | None:
    """Returns a percentile bootstrap interval for the mean of `values`; None for no values.

    The interval is widened to hold the sample mean itself if resampling noise left it just outside
    (possible only for a handful of very skewed values), so it always contains the reported mean.
    """
    if not values:
        return None
    n = len(values)
    mean = sum(values) / n
    rng = SeedTree(seed).random(f"resamples:{n}")
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    tail = (1.0 - confidence) / 2
    low = means[int(tail * (resamples - 1))]
    high = means[round((1.0 - tail) * (resamples - 1))]
    return (min(low, mean), max(high, mean))


def env_failure_level(rate: float) -> EnvLevel:
    """`ok` up to 1 %, `warning` above it, `harness` above 5 % (the harness is the problem)."""
    if rate > HARNESS_PROBLEM_RATE:
        return "harness"
    if rate > WARN_RATE:
        return "warning"
    return "ok"


@dataclass
class _Group:
    """The valid scores and successes of one slice of the results."""

    scores: list[float] = field(default_factory=list)
    episodes: int = 0
    invalid: int = 0

    def add(self, r: EpisodeResult) -> None:
        self.episodes += 1
        if r.valid and r.score is not None:
            self.scores.append(r.score)
        else:
            self.invalid += 1


def _successes(results: Iterable[EpisodeResult], threshold: float) -> dict[tuple[str, int], tuple[int, int]]:
    """`(n valid trials, c successes)` per task `(scenario, seed)`."""
    tally: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        if r.valid and r.score is not None:
            t = tally[(r.scenario, r.seed)]
            t[0] += 1
            t[1] += r.score >= threshold - 1e-9
    return {key: (n, c) for key, (n, c) in sorted(tally.items())}


def _slice(results: Sequence[EpisodeResult], threshold: float, trials: int, resamples: int) -> dict[str, Any]:
    group = _Group()
    for r in results:
        group.add(r)
    tasks = _successes(results, threshold)
    ci = bootstrap_ci(group.scores, resamples=resamples)
    successes = sum(c for _, c in tasks.values())
    goals = [r.goal_score for r in results if r.valid and r.goal_score is not None]
    return {
        "episodes": group.episodes,
        "valid": len(group.scores),
        "mean_score": sum(group.scores) / len(group.scores) if group.scores else None,
        "mean_goal_score": sum(goals) / len(goals) if goals else None,
        "ci": list(ci) if ci else None,
        "pass_rate": successes / len(group.scores) if group.scores else None,
        "pass_hat_k": {str(k): pass_hat_k(tasks.values(), k) for k in range(1, trials + 1)},
    }


def summarize(results: Sequence[EpisodeResult], *, threshold: float = 1.0, trials: int | None = None,
              resamples: int = BOOTSTRAP_RESAMPLES) -> dict[str, Any]:
    """Returns the report's figures for a run's results (any order; sorted by key first).

    Args:
        results: The finished episodes.
        threshold: Success is `score >= threshold`.
        trials: K, the largest k of pass^k (default: the most trials any task has).
        resamples: The bootstrap's resamples.

    Returns:
        A JSON-ready dict: `overall` and `per_domain` (mean score and its CI, mean goal score before the
        constraints' caps, pass rate, pass^k), `per_scenario`
        (the same, plus its check names and valid scores, for the plots), `check_failures` (per scenario, the
        checks that scored below 1, counted), `attribution` counts, `usage` (an LLM agent's tokens,
        summed; empty otherwise) and `environment` (harness and verifier errors, their rate and its level).
    """
    ordered = sorted(results, key=lambda r: r.key)
    k_max = trials or max((n for n, _ in _successes(ordered, threshold).values()), default=1)
    by_scenario: dict[str, list[EpisodeResult]] = defaultdict(list)
    by_domain: dict[str, list[EpisodeResult]] = defaultdict(list)
    for r in ordered:
        by_scenario[r.scenario].append(r)
        by_domain[r.domain].append(r)
    per_scenario = {}
    check_failures: dict[str, dict[str, int]] = {}
    for ref, rows in sorted(by_scenario.items()):
        per_scenario[ref] = {**_slice(rows, threshold, k_max, resamples), "checks": _check_names(rows),
                             "scores": [r.score for r in rows if r.valid]}
        failed: Counter[str] = Counter()
        for r in rows:
            if r.valid:
                failed.update(name for name, score in r.checks.items() if score < 1.0)
        check_failures[ref] = {name: failed[name] for name in _check_names(rows) if failed[name]}
    attribution = Counter(r.attribution for r in ordered)
    harness = attribution["harness_error"]
    verifier = attribution["verifier_error"]
    rate = (harness + verifier) / len(ordered) if ordered else 0.0
    return {
        "threshold": threshold,
        "trials": k_max,
        "overall": _slice(ordered, threshold, k_max, resamples),
        "per_domain": {d: _slice(rows, threshold, k_max, resamples) for d, rows in sorted(by_domain.items())},
        "per_scenario": per_scenario,
        "check_failures": check_failures,
        "attribution": dict(sorted(attribution.items())),
        "usage": _usage(ordered),
        "environment": {"harness_errors": harness, "verifier_errors": verifier, "episodes": len(ordered),
                        "failure_rate": rate, "level": env_failure_level(rate)},
    }


def _check_names(rows: Iterable[EpisodeResult]) -> list[str]:
    """The scenario's check names in grade order (first seen first)."""
    names: dict[str, None] = {}
    for r in rows:
        names.update(dict.fromkeys(r.checks))
    return list(names)


def _usage(rows: Iterable[EpisodeResult]) -> dict[str, int]:
    """The numeric fields of the episodes' token usage, summed, by name."""
    total: Counter[str] = Counter()
    for r in rows:
        for key, value in (r.usage or {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                total[key] += value
    return dict(sorted(total.items()))
