"""Summaries for the bench: nearest-rank percentiles, and the min and median of a figure over runs."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["latency_figures", "pct", "summarize_runs"]


def pct(values: Sequence[float], q: float) -> float:
    """Returns the nearest-rank `q` quantile (0 < q <= 1) of `values`; 0.0 for no values.

    Nearest rank (the smallest value with at least `q` of the samples at or below it) never
    interpolates, so a p99.9 over 1,000 samples is the worst one, not a blend of the two worst.
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))]


def latency_figures(prefix: str, values_us: Sequence[float], *, tail: bool = False) -> dict[str, float]:
    """Returns `{prefix}_p50_us` and `{prefix}_p99_us` (and `_p999_us` when `tail`), rounded to 0.01 µs."""
    out = {f"{prefix}_p50_us": round(pct(values_us, 0.5), 2), f"{prefix}_p99_us": round(pct(values_us, 0.99), 2)}
    if tail:
        out[f"{prefix}_p999_us"] = round(pct(values_us, 0.999), 2)
    return out


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def summarize_runs(runs: Sequence[Mapping[str, Any]]) -> tuple[dict[str, dict[str, Any]], dict[str, list[Any]]]:
    """Splits per-run figures into numeric summaries and labels.

    Returns:
        `(figures, labels)`: `figures[key]` is `{"min", "median", "runs"}` for every key whose
        value is a number in every run (sorted by key); `labels[key]` lists, run by run, every
        other value (a scenario's name, a version string).
    """
    keys = sorted({k for run in runs for k in run})
    figures: dict[str, dict[str, Any]] = {}
    labels: dict[str, list[Any]] = {}
    for key in keys:
        values = [run.get(key) for run in runs]
        if all(_number(v) for v in values):
            nums = [float(v) for v in values if v is not None]
            figures[key] = {"min": min(nums), "median": statistics.median(nums), "runs": values}
        else:
            labels[key] = values
    return figures, labels
