"""The console side of `saas-sim eval`: a progress bar, loud environment warnings, the summary, the files.

The run itself (`runtime.evaluation`) prints nothing; this drives it, writes `report.json` and
`report.html` into the run's folder, and prints either the report as JSON (`--json`: stdout holds
that document alone, and no bar is drawn) or a summary table. Warnings about the environment
failure rate go to stderr in both cases.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from saas_sim.adapters.eval_report import write_html
from saas_sim.progress import progress_bar
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.eval_stats import EpisodeResult
from saas_sim.runtime.evaluation import (
    EvalConfig,
    build_report,
    default_out_dir,
    plan_evaluation,
    run_evaluation,
    write_report,
)

__all__ = ["environment_warning", "eval_main"]


def environment_warning(env: dict[str, Any]) -> str | None:
    """The stderr warning (rich markup) for an environment failure rate above 1 %, or None."""
    rate = f"{100 * env['failure_rate']:.1f}%"
    counts = f"{env['harness_errors']} harness + {env['verifier_errors']} verifier errors / {env['episodes']} episodes"
    if env["level"] == "harness":
        return (f"[bold red]ENVIRONMENT FAILURE RATE {rate}[/bold red] ({counts}): above 5%, the harness, "
                "not the model, is the problem; these scores do not measure the agent")
    if env["level"] == "warning":
        return f"[bold yellow]WARNING: environment failure rate {rate}[/bold yellow] ({counts}), above 1%"
    return None


async def eval_main(env: Environment, config: EvalConfig, out_dir: Path | None, *, as_json: bool,
                    out: Console, err: Console) -> dict[str, Any]:
    """Runs (or resumes) the evaluation, writes its reports, prints the summary, and returns the report."""
    async with env:
        plan = plan_evaluation(env, config)
        folder = out_dir if out_dir is not None else default_out_dir(plan)
        with progress_bar("eval", total=len(plan.episodes()), quiet=as_json, console=err) as advance:

            def on_result(result: EpisodeResult | None, finished: int, total: int) -> None:
                if result is None:
                    advance(finished, description=f"eval ({finished} already done)")
                else:
                    advance(description=escape(f"{result.scenario} seed {result.seed} trial {result.trial}"))

            results = await run_evaluation(env, plan, folder, on_result)
    report = build_report(plan, results)
    write_report(report, folder)
    write_html(report, folder / "report.html")
    warning = environment_warning(report["environment"])
    if warning is not None:
        err.print(warning, highlight=False)
    if as_json:
        print(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        _summary(report, folder, out)
    return report


def _summary(report: dict[str, Any], folder: Path, out: Console) -> None:
    trials = int(report["trials"])
    table = Table("", "episodes", "valid", "mean", "95% CI", "goals", "pass rate",
                  *(f"pass^{k}" for k in range(1, trials + 1)))

    def row(name: str, fig: dict[str, Any]) -> list[str]:
        ci = fig["ci"]
        return [escape(name), str(fig["episodes"]), str(fig["valid"]), _f(fig["mean_score"]),
                "-" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]", _f(fig.get("mean_goal_score")), _f(fig["pass_rate"]),
                *(_f(fig["pass_hat_k"].get(str(k))) for k in range(1, trials + 1))]

    table.add_row(*row("all", report["overall"]))
    for name, fig in report["per_domain"].items():
        table.add_row(*row(name, fig))
    for name, fig in report["per_scenario"].items():
        table.add_row(*row(name, fig))
    out.print(table)
    attribution = ", ".join(f"{k} {v}" for k, v in report["attribution"].items())
    env = report["environment"]
    out.print(f"attribution: {escape(attribution)}; environment failure rate {100 * env['failure_rate']:.2f}%",
              highlight=False)
    if report.get("usage"):
        out.print("model tokens: " + ", ".join(f"{k} {v}" for k, v in report["usage"].items()), highlight=False)
    if not report["complete"]:
        out.print(f"{report['episodes_finished']} of {report['episodes_planned']} episodes finished", highlight=False)
    out.print(f"report: {escape(str(folder / 'report.html'))} (and report.json, results.jsonl)", highlight=False)


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
