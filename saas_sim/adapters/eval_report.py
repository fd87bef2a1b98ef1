"""The HTML page of an evaluation report: one self-contained file, with inline SVG plots.

`render_html(report)` takes the dict of `runtime.evaluation.build_report` and returns a page that
needs nothing else: no script, no stylesheet or font to fetch, no network. It holds the headline
figures, a banner when the environment failure rate is high, three plots (the score distribution
per scenario, pass^k curves, a heatmap of check failures, scenario x check) and their tables.
Every piece of text from the report (scenario and check names, agent specs) is escaped: it is data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

__all__ = [
    "SCORE_BINS", "check_heatmap_svg", "pass_k_svg", "render_html", "score_distribution_svg", "write_html",
]

SCORE_BINS = 11
"""Histogram bins of the score distribution: ten of width 0.1 below 1.0, then 1.0 exactly."""

_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")

_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; max-width: 1200px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.banner { padding: .8em 1em; border-radius: 4px; font-weight: bold; margin: 1em 0; }
.banner.warning { background: #fff3cd; border: 2px solid #e0a800; }
.banner.harness { background: #f8d7da; border: 2px solid #c82333; }
.meta { color: #555; }
svg text { font: 11px system-ui, sans-serif; fill: #222; }
.plot { overflow-x: auto; }
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _f(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(ci: Sequence[float] | None) -> str:
    return "-" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], cls: str) -> str:
    """A table of already-escaped cells."""
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><tr>' + "".join(f"<th>{h}</th>" for h in head) + f"</tr>{body}</table>"


def _figures_row(name: str, fig: Mapping[str, Any], trials: int) -> list[str]:
    passes = [_f(fig["pass_hat_k"].get(str(k))) for k in range(1, trials + 1)]
    return [_e(name), str(fig["episodes"]), str(fig["valid"]), _f(fig["mean_score"]), _ci(fig["ci"]),
            _f(fig.get("mean_goal_score")), _f(fig["pass_rate"]), *passes]


def _figures_head(first: str, trials: int) -> list[str]:
    return [first, "episodes", "valid", "mean score", "95% CI", "mean goal score", "pass rate",
            *(f"pass^{k}" for k in range(1, trials + 1))]


def _banner(env: Mapping[str, Any]) -> str:
    rate = f"{100 * env['failure_rate']:.1f}%"
    counts = f"{env['harness_errors']} harness and {env['verifier_errors']} verifier errors in {env['episodes']}"
    if env["level"] == "harness":
        return (f'<div class="banner harness" id="env-banner">Environment failure rate {rate} ({counts} '
                "episodes): above 5%, the harness, not the model, is the problem. Fix it before reading "
                "these scores.</div>")
    if env["level"] == "warning":
        return (f'<div class="banner warning" id="env-banner">Warning: environment failure rate {rate} '
                f"({counts} episodes), above 1%.</div>")
    return ""


def _bin(score: float) -> int:
    return SCORE_BINS - 1 if score >= 1.0 - 1e-9 else min(int(score * 10), SCORE_BINS - 2)


def score_distribution_svg(per_scenario: Mapping[str, Mapping[str, Any]]) -> str:
    """One row per scenario: a histogram of its valid scores in `SCORE_BINS` bins, then its mean."""
    label_w, bar_w, row_h, top = 300, 22, 18, 24
    width = label_w + SCORE_BINS * bar_w + 70
    height = top + row_h * max(len(per_scenario), 1) + 8
    parts = [f'<svg id="score-distribution" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             'role="img" aria-label="score distribution per scenario">']
    for b in range(SCORE_BINS):
        label = "1" if b == SCORE_BINS - 1 else f".{b}" if b else "0"
        parts.append(f'<text x="{label_w + b * bar_w + bar_w / 2}" y="14" text-anchor="middle">{label}</text>')
    parts.append(f'<text x="{label_w + SCORE_BINS * bar_w + 8}" y="14">mean</text>')
    for i, (ref, fig) in enumerate(per_scenario.items()):
        y = top + i * row_h
        counts = [0] * SCORE_BINS
        for s in fig["scores"]:
            counts[_bin(s)] += 1
        peak = max(counts) or 1
        parts.append(f'<text x="{label_w - 6}" y="{y + row_h - 5}" text-anchor="end">{_e(ref)}</text>')
        for b, n in enumerate(counts):
            h = (row_h - 3) * n / peak
            x = label_w + b * bar_w + 1
            parts.append(f'<rect class="bar" x="{x}" y="{y + row_h - 1 - h:.1f}" width="{bar_w - 2}" '
                         f'height="{h:.1f}" fill="#1f77b4"><title>{_e(ref)}: {n} episode(s) in bin {b}</title>'
                         "</rect>")
        parts.append(f'<line x1="{label_w}" y1="{y + row_h - 1}" x2="{label_w + SCORE_BINS * bar_w}" '
                     f'y2="{y + row_h - 1}" stroke="#999"/>')
        parts.append(f'<text x="{label_w + SCORE_BINS * bar_w + 8}" y="{y + row_h - 5}">'
                     f"{_f(fig['mean_score'], 2)}</text>")
    return "".join(parts) + "</svg>"


def pass_k_svg(overall: Mapping[str, Any], per_domain: Mapping[str, Mapping[str, Any]], trials: int) -> str:
    """pass^k against k = 1..K: the whole run (thick) and each domain."""
    width, height, left, right, top, bottom = 520, 280, 50, 140, 15, 40
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(k: int) -> float:
        return left + (plot_w / 2 if trials == 1 else plot_w * (k - 1) / (trials - 1))

    def y(v: float) -> float:
        return top + plot_h * (1.0 - v)

    parts = [f'<svg id="pass-k" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
             'aria-label="pass^k curves">']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{left}" y1="{y(tick)}" x2="{left + plot_w}" y2="{y(tick)}" stroke="#ddd"/>'
                     f'<text x="{left - 6}" y="{y(tick) + 4}" text-anchor="end">{tick:g}</text>')
    for k in range(1, trials + 1):
        parts.append(f'<text x="{x(k)}" y="{top + plot_h + 16}" text-anchor="middle">{k}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle">k</text>')
    series = [("all", overall, "#222", 3), *((d, fig, _PALETTE[i % len(_PALETTE)], 1.5)
                                            for i, (d, fig) in enumerate(per_domain.items()))]
    for i, (name, fig, color, stroke) in enumerate(series):
        points = [(k, v) for k in range(1, trials + 1) if (v := fig["pass_hat_k"].get(str(k))) is not None]
        path = " ".join(f"{x(k):.1f},{y(v):.1f}" for k, v in points)
        parts.append(f'<polyline class="curve" points="{path}" fill="none" stroke="{color}" '
                     f'stroke-width="{stroke}"><title>{_e(name)}</title></polyline>')
        parts.extend(f'<circle cx="{x(k):.1f}" cy="{y(v):.1f}" r="3" fill="{color}"><title>{_e(name)} '
                     f"pass^{k} = {v:.3f}</title></circle>" for k, v in points)
        ly = top + 12 + 16 * i
        parts.append(f'<line x1="{left + plot_w + 12}" y1="{ly - 4}" x2="{left + plot_w + 32}" y2="{ly - 4}" '
                     f'stroke="{color}" stroke-width="{stroke}"/><text x="{left + plot_w + 38}" y="{ly}">'
                     f"{_e(name)}</text>")
    return "".join(parts) + "</svg>"


def _heat(fraction: float) -> str:
    """White (no failure) to red (every episode failed the check)."""
    g = round(255 - 200 * fraction)
    return f"rgb(255,{g},{g})"


def check_heatmap_svg(per_scenario: Mapping[str, Mapping[str, Any]],
                      failures: Mapping[str, Mapping[str, int]]) -> str:
    """Scenarios x the checks that failed anywhere: each cell the share of valid episodes that failed it.

    A grey cell is a check the scenario does not have.
    """
    columns = sorted({name for counts in failures.values() for name in counts})
    # Column labels are rotated 60 degrees: about 6 px a character, sin(60) of it upwards.
    label_w, cell = 300, 16
    head = 40 + min(round(5.3 * max((len(c) for c in columns), default=0)), 260)
    width = label_w + cell * max(len(columns), 1) + 20
    height = head + cell * max(len(per_scenario), 1) + 10
    parts = [f'<svg id="check-failures" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             'role="img" aria-label="check failures, scenario x check">']
    if not columns:
        parts.append(f'<text x="{label_w}" y="{head - 10}">no check failed in any episode</text>')
    for j, name in enumerate(columns):
        cx = label_w + j * cell + cell / 2
        parts.append(f'<text x="{cx}" y="{head - 6}" transform="rotate(-60 {cx} {head - 6})">{_e(name)}</text>')
    for i, (ref, fig) in enumerate(per_scenario.items()):
        y = head + i * cell
        parts.append(f'<text x="{label_w - 6}" y="{y + cell - 4}" text-anchor="end">{_e(ref)}</text>')
        own = set(fig.get("checks", []))
        for j, name in enumerate(columns):
            n = failures.get(ref, {}).get(name, 0)
            if name in own and fig["valid"]:
                share = n / fig["valid"]
                fill, tip = _heat(share), f"{_e(ref)} / {_e(name)}: failed in {n} of {fig['valid']} episodes"
            else:
                fill, tip = "#eee", f"{_e(ref)} has no check {_e(name)}"
            parts.append(f'<rect class="cell" x="{label_w + j * cell}" y="{y}" width="{cell - 1}" '
                         f'height="{cell - 1}" fill="{fill}"><title>{tip}</title></rect>')
    return "".join(parts) + "</svg>"


def _plot(svg: str) -> str:
    """A plot in a box that scrolls sideways when it is wider than the page (many checks)."""
    return f'<div class="plot">{svg}</div>'


def render_html(report: Mapping[str, Any]) -> str:
    """Returns the report's page (see the module docstring)."""
    run, trials = report["run"], int(report["trials"])
    env = report["environment"]
    per_scenario, per_domain = report["per_scenario"], report["per_domain"]
    failures = report["check_failures"]
    title = f"saas-sim eval: {run['agent']} on {run['scenario']}"
    seeds = run["seeds"]
    seed_text = f"{min(seeds)}..{max(seeds)}" if seeds else "-"
    meta = (f"{len(run['scenarios'])} scenarios, seeds {seed_text}, {run['trials']} trial(s); success: score &ge; "
            f"{report['threshold']:g}; {report['episodes_finished']} of {report['episodes_planned']} episodes "
            f"finished{'' if report['complete'] else ' (incomplete: run the command again to resume)'}; "
            f"bootstrap of {report['resamples']} resamples.")
    failure_rows = [
        [_e(ref), _e(name), str(n), str(per_scenario[ref]["valid"])]
        for ref, counts in failures.items() for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    attribution_rows = [[_e(name), str(n)] for name, n in report["attribution"].items()]
    env_rows = [["harness errors", str(env["harness_errors"])], ["verifier errors", str(env["verifier_errors"])],
                ["episodes", str(env["episodes"])], ["failure rate", f"{100 * env['failure_rate']:.2f}%"]]
    body = [
        f"<h1>{_e(title)}</h1>", f'<p class="meta">{meta}</p>', _banner(env),
        "<h2>Headline</h2>",
        _table(_figures_head("", trials), [_figures_row("all", report["overall"], trials)], "headline"),
        "<h2>Per domain</h2>",
        _table(_figures_head("domain", trials),
               [_figures_row(d, fig, trials) for d, fig in per_domain.items()], "per-domain"),
        "<h2>pass^k</h2>", _plot(pass_k_svg(report["overall"], per_domain, trials)),
        "<h2>Score distribution per scenario</h2>", _plot(score_distribution_svg(per_scenario)),
        "<h2>Check failures (scenario x check)</h2>",
        '<p class="meta">Each cell: the share of the scenario\'s valid episodes in which the check scored below 1 '
        "(white 0%, red 100%); grey: not a check of that scenario. Only checks that failed somewhere are shown.</p>",
        _plot(check_heatmap_svg(per_scenario, failures)),
        "<h2>Per scenario</h2>",
        _table(_figures_head("scenario", trials),
               [_figures_row(ref, fig, trials) for ref, fig in per_scenario.items()], "per-scenario"),
        "<h2>Failures per check</h2>",
        _table(["scenario", "check", "failed", "of valid episodes"], failure_rows, "check-failures"),
        "<h2>Attribution</h2>", _table(["attribution", "episodes"], attribution_rows, "attribution"),
        "<h2>Environment failures</h2>", _table(["", ""], env_rows, "environment"),
    ]
    usage = report.get("usage") or {}
    if usage:
        body += ["<h2>Model tokens</h2>", _table(["", "tokens"], [[_e(k), str(v)] for k, v in usage.items()],
                                                  "usage")]
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_html(report: Mapping[str, Any], path: Path) -> Path:
    """Writes the report's page to `path` (UTF-8) and returns it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report), encoding="utf-8")
    return path
