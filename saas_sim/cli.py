"""The `saas-sim` command line: scenarios, run, check, eval, view, export, replay, generate, bench, data-report,
serve, mcp.

Errors are one clean line on stderr and a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from saas_sim.errors import SaasSimError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.heap import SERVER_GC_THRESHOLDS, set_gc_thresholds

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Deterministic simulated SaaS for agent RL.")
bench_app = typer.Typer(add_completion=False, invoke_without_command=True,
                        help="Benchmarks. With no subcommand: every figure, 3 runs, min and median (--json).")
app.add_typer(bench_app, name="bench")
equivalence_app = typer.Typer(add_completion=False, no_args_is_help=True,
                              help="Record what agents see, and compare two recordings (refactors must not move it).")
app.add_typer(equivalence_app, name="equivalence")
out = Console()
err = Console(stderr=True)
T = TypeVar("T")

StoreOpt = Annotated[str | None, typer.Option("--store", help="Event store URL (default: ./.saas_sim/events.db).")]


def _env(store: str | None, **options: Any) -> Environment:
    """Builds the environment, plus any extra domains and folders named in the environment variables.

    `SAAS_SIM_DOMAINS` (comma-separated modules exposing `DOMAIN`), `SAAS_SIM_SCENARIO_DIRS` and
    `SAAS_SIM_SEEDS_DIRS` (os.pathsep-separated folders) let users plug in their own domains.
    """
    import importlib
    import os

    modules = [m for m in os.environ.get("SAAS_SIM_DOMAINS", "").split(",") if m.strip()]
    domains = [importlib.import_module(m.strip()).DOMAIN for m in modules]
    scen = [p for p in os.environ.get("SAAS_SIM_SCENARIO_DIRS", "").split(os.pathsep) if p]
    seeds = [p for p in os.environ.get("SAAS_SIM_SEEDS_DIRS", "").split(os.pathsep) if p]
    return Environment(store, scenario_dirs=scen, seeds_dirs=seeds, domains=domains, **options)


def _run(fn: Callable[[], Awaitable[T]]) -> T:
    try:
        return asyncio.run(fn())  # type: ignore[arg-type]
    except SaasSimError as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False, markup=True)
        raise typer.Exit(2) from None
    except (OSError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None


def _seeds(text: str) -> list[int]:
    try:
        if ":" in text:
            a, b = (int(x) for x in text.split(":", 1))
            if b <= a or a < 0:
                raise ValueError
            return list(range(a, b))
        n = int(text)
        if n < 0:
            raise ValueError
        return [n]
    except ValueError:
        raise SaasSimError(f"bad seeds {text!r}: use N or A:B with 0 <= A < B") from None


@app.command()
def scenarios(
    pattern: Annotated[str, typer.Argument(help="Glob over scenario ids.")] = "*",
    difficulty_report: Annotated[bool, typer.Option(
        "--difficulty-report", help="Measure each level of each scenario on the seeds (docs/difficulty.md); "
                                    "exit 1 when an oracle misses 1.0 or a no-op beats its noop_score.")] = False,
    scenario: Annotated[str | None, typer.Option("--scenario", help="Glob over scenario ids (as PATTERN).")] = None,
    seeds: Annotated[str, typer.Option("--seeds", help="The report's seeds: A:B (B exclusive) or N.")] = "0:10",
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Scenarios measured at once.")] = 4,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Lists the scenarios, grouped by domain and by the skill each teaches; or measures their difficulty ladder."""
    if difficulty_report:
        _difficulty_report(scenario or pattern, seeds, jobs, as_json)
        return

    async def go() -> None:
        env = _env("sqlite+aiosqlite:///:memory:")
        table = Table("scenario", "skill", "world", "tools", "checks", "hacks", "noop", "description")
        # Grouped by what they teach: domain, then skill (scenarios naming none last), then id.
        chosen = sorted(env.scenarios(pattern), key=lambda s: (s.ref.split("/", 1)[0], s.spec.skill is None,
                                                                s.spec.skill or "", s.ref))
        previous: tuple[str, str | None] | None = None
        for s in chosen:
            group = (s.ref.split("/", 1)[0], s.spec.skill)
            if previous is not None and group != previous:
                table.add_section()
            # The tools the scenario allows, its patterns (`crm.*`) expanded against the domains' tools.
            tools = len(env.toolkit(s).allowed)
            table.add_row(s.ref, s.spec.skill or "-", s.spec.world, str(tools),
                          str(len(s.spec.checks)), str(len(s.spec.hacks)), f"{s.spec.noop_score:g}",
                          s.spec.description.strip())
            previous = group
        _print_fitted(table, keep=("scenario", "skill"), wrap=("description",),
                      drop_first=("hacks", "noop", "checks", "world"))

    _run(go)


def _difficulty_report(pattern: str, seeds: str, jobs: int, as_json: bool) -> None:
    from saas_sim.progress import progress_bar
    from saas_sim.runtime.difficulty_report import ScenarioLadder, difficulty_report

    async def go() -> list[ScenarioLadder]:
        seed_list = _seeds(seeds)
        async with _env("sqlite+aiosqlite:///:memory:") as env:
            chosen = env.scenarios(pattern)
            if not chosen:
                raise SaasSimError(f"no scenario matches {pattern!r}")
            with progress_bar("measuring", total=len(chosen), quiet=as_json) as advance:
                env.world_progress = lambda msg: advance(0, description=msg)
                return await difficulty_report(env, pattern, seed_list, jobs=jobs,
                                               progress=lambda ref: advance(description=ref))

    ladders = _run(go)
    if as_json:
        sys.stdout.write(json.dumps({"ok": all(x.oracle_ok and x.noop_ok for x in ladders), "seeds": seeds,
                                     "scenarios": [x.to_json() for x in ladders]}, indent=2, sort_keys=True) + "\n")
    else:
        _print_ladders(ladders)
    if not all(x.oracle_ok and x.noop_ok for x in ladders):
        raise typer.Exit(1)


def _print_ladders(ladders: list[Any]) -> None:
    def num(v: Any) -> str:
        return "-" if v is None else f"{v:.2f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)

    table = Table("scenario", "level", "oracle", "steps", "read", "written", "distr", "depth", "hints", "random",
                  "noop", "harder than below by")
    for ladder in ladders:
        table.add_section()
        for m in ladder.levels:
            own = "*" if m.level == ladder.own_level else ""
            oracle = f"{m.oracle_min:.2f}" if m.oracle_min >= 1 and not m.errors else f"[red]{m.oracle_min:.2f}[/red]"
            distr = num(m.distractors) + ("" if m.distractors_bound is None else f" ({num(m.distractors_bound)})")
            noop = num(m.noop_mean) if m.noop_max <= ladder.noop_score + 1e-9 else f"[red]{num(m.noop_max)}[/red]"
            by = "" if m is ladder.levels[0] else ", ".join(ladder.harder.get(m.level) or ["[red]not harder[/red]"])
            table.add_row(ladder.scenario, m.level + own, oracle, num(m.oracle_steps), num(m.entities_read),
                          num(m.entities_written), distr, num(m.search_depth), num(m.hints), num(m.random_mean),
                          noop, by)
    _print_fitted(table, keep=("scenario", "level", "oracle"), wrap=("harder than below by",),
                  drop_first=("read", "written"))
    ok = sum(x.oracle_ok and x.noop_ok for x in ladders)
    ladder = sum(x.ladder_ok for x in ladders)
    out.print(f"{len(ladders)} scenarios (* = the file's own level): oracle 1.0 and no-op in bounds on every level "
              f"for {ok}; each level harder than the one below for {ladder}", highlight=False)
    for x in ladders:
        for m in x.levels:
            for e in m.errors[:1]:
                out.print(f"[red]{x.scenario} {m.level}:[/red] {escape(e)}", highlight=False)


@app.command()
def conventions() -> None:
    """Prints how every product's tools page, fail and retry (Markdown, for agents and developers)."""
    from saas_sim.core.conventions import CONVENTIONS

    typer.echo(CONVENTIONS, nl=False)


def _print_fitted(table: Table, *, keep: tuple[str, ...], wrap: tuple[str, ...] = (),
                  drop_first: tuple[str, ...] = (), hint: str = "widen the terminal") -> None:
    """Prints a table whose ids are never cut: other columns wrap, or are dropped (and named) to fit."""
    from saas_sim.table_fit import fit_table

    dropped = fit_table(out, table, keep=keep, wrap=wrap, drop_first=drop_first)
    out.print(table)
    if dropped:
        out.print(f"[dim]left out to fit {out.width} columns: {', '.join(dropped)} ({hint})[/dim]",
                  highlight=False)


def _narrate(env: Environment, tool: str, args: Any, value: Any) -> list[str]:
    """Returns the owning domain's human reading of a call, if it offers one."""
    domain = env.domains.get(tool.split(".", 1)[0])
    if domain is None or domain.narrate is None:
        return []
    return domain.narrate(tool, args, value)


@app.command()
def run(
    scenario: Annotated[str, typer.Argument(help="Scenario id or id@version.")],
    seed: Annotated[int, typer.Option(help="Task seed.", min=0)] = 0,
    agent: Annotated[
        str, typer.Option(help="oracle, noop, hack:NAME, alt:NAME, random[:SEED], replay:FILE or "
                               "openai:MODEL[?temperature=0&seed=1] (an LLM; docs in saas_sim/runtime/llm_agent.py).")
    ] = "oracle",
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the trajectory JSONL here.")] = None,
    store: StoreOpt = None,
    base_url: Annotated[str | None, typer.Option(
        help="The OpenAI-compatible endpoint of an openai:MODEL agent (vLLM, SGLang: http://HOST:PORT/v1).")] = None,
    difficulty: Annotated[list[str] | None, typer.Option(
        "--difficulty", help="easy|medium|hard and/or KNOB=VALUE, repeatable (docs/difficulty.md).")] = None,
) -> None:
    """Runs one episode with a reference agent and prints each step and the grade."""
    from saas_sim.progress import world_bar
    from saas_sim.runtime.agents import dump_args, make_agent

    async def go() -> None:
        async with _env(store) as env:
            sc = env.scenario(scenario)
            with world_bar(env):
                episode = await env.start(sc, seed, difficulty=difficulty or None)
            world_hash = episode.task.world.world_hash[:12]
            out.print(f"[bold]{sc.ref}[/bold] seed {seed}  world {sc.spec.world} ({world_hash})")
            out.print(f"[bold]Task:[/bold] {episode.task.task_text}")
            if episode.instructions != episode.task.task_text:
                out.print("[dim](the agent also reads the domain policy appended to these instructions)[/dim]")
            out.print()
            await make_agent(agent, sc, base_url=base_url).run(episode)
            for step in episode.trajectory.steps:
                mark = "[green]ok[/green]" if step.ok else f"[red]{(step.error or {}).get('code')}[/red]"
                fault = f" [yellow](fault: {step.fault})[/yellow]" if step.fault else ""
                out.print(f"{step.index:>3} {step.tool} {dump_args(step.args)[:160]} -> {mark}{fault}", highlight=False)
                story = _narrate(env, step.tool, step.args, step.result) if step.ok else []
                for line in story:
                    out.print(f"      {line}", highlight=False)
                if not story:
                    shown = step.result if step.ok else (step.error or {}).get("message")
                    out.print(f"      {json.dumps(shown, default=str, ensure_ascii=False)[:300]}", highlight=False)
            grade = await episode.grade()
            table = Table("check", "weight", "score", "detail")
            for c in grade.checks:
                # A constraint has no weight; it caps the scalar when violated.
                weight = f"{c.weight:g}" if c.kind == "goal" else f"cap {c.cap or 0.0:g}"
                table.add_row(c.name, weight, f"{c.score:.2f}", escape(c.detail))
            out.print(table)
            score = "invalid" if grade.score is None else f"{grade.score:.3f}"
            goals = "" if grade.goal_score is None else f"  goals {grade.goal_score:.3f}"
            out.print(f"[bold]score {score}[/bold]{goals}  attribution {grade.attribution}  steps {episode.steps}")
            for v in grade.violations:
                out.print(f"[red]violated[/red] {v.name} (cap {v.cap:g}): {escape(v.detail)}", highlight=False)
            if grade.error:
                out.print(grade.error, highlight=False)
            if episode.trajectory.agent is not None:
                summary = episode.trajectory.agent
                out.print(f"model turns {summary['turns']}  tokens {summary['usage']['total_tokens']}  "
                          f"stopped: {summary['stop']}" + (f" ({summary['error']})" if summary["error"] else ""),
                          highlight=False)
            if out_file is not None:
                episode.trajectory.write(out_file)
                out.print(f"trajectory written to {out_file}")
            await episode.close()

    _run(go)


@app.command()
def check(
    pattern: Annotated[str, typer.Argument(help="Glob over scenario ids.")] = "*",
    seeds: Annotated[int, typer.Option("--seeds", help="Seeds 0..K-1 per scenario.", min=1)] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    store: Annotated[str, typer.Option("--store", help="Store URL.")] = "sqlite+aiosqlite:///:memory:",
    hack_seeds: Annotated[int, typer.Option("--hack-seeds", help="Hacks and transfer on seeds 0..H-1.", min=1)] = 20,
    blind_seeds: Annotated[int, typer.Option("--blind-seeds", help="Blind search on this many seeds.", min=0)] = 2,
    blind_trials: Annotated[int, typer.Option("--blind-trials", help="Blind moves tried per seed.", min=0)] = 200,
    min_alternatives: Annotated[int, typer.Option("--min-alternatives", help="Fewest alternatives allowed.",
                                                  min=0)] = 3,
    jobs: Annotated[int, typer.Option("--jobs", help="Scenarios audited at once.", min=1)] = 4,
    processes: Annotated[int, typer.Option("--processes", min=1,
                                           help="Worker processes the scenarios are shared out over.")] = 1,
) -> None:
    """Self-audit: oracle 1.0, no-op baseline, determinism, replay, rebuild, fork, isolation, and seven attacks.

    The attacks: declared hacks on --hack-seeds seeds, the oracle's writes replayed on other seeds, a blind
    search with the grade as feedback, a do-everything agent, the alternative solutions, hack coverage, and
    the lowest id among look-alikes. --processes shares the scenarios out over worker processes.
    """
    from saas_sim.progress import progress_bar
    from saas_sim.runtime.audit import AuditOptions, audit

    async def go() -> bool:
        async with _env(store) as env:
            chosen = env.scenarios(pattern)
            if not chosen:
                raise SaasSimError(f"no scenario matches {pattern!r}")
            with progress_bar("auditing", total=len(chosen) * (seeds + 1) + 1, quiet=as_json) as advance:

                def tick(msg: str) -> None:
                    advance(description=msg)

                # A world build names its parts on the bar; it is not one of the audit's counted steps.
                env.world_progress = lambda msg: advance(0, description=msg)

                opts = AuditOptions(hack_seeds=hack_seeds, blind_seeds=blind_seeds, blind_trials=blind_trials,
                                    min_alternatives=min_alternatives)
                results = await audit(env, chosen, list(range(seeds)), tick, opts, jobs=jobs, processes=processes)
        calls = sum(r.random_calls for r in results)
        errors = sum(r.harness_errors for r in results)
        ok = all(r.ok for r in results)
        if as_json:
            print(json.dumps({"ok": ok, "harness_error_rate": errors / max(calls, 1),
                              "scenarios": [r.to_json() for r in results]}, indent=2))
        else:
            table = Table("scenario", "oracle", "noop", "hacks", "worst hack", "blind", "do-all", "det", "replay",
                          "rebuild", "fork", "iso", "ok")
            for r in results:
                worst = max(r.hacks.items(), key=lambda kv: kv[1], default=None)
                worst_text = "-" if worst is None else f"{worst[1]:.2f} {worst[0]}"
                yn = {True: "[green]yes[/green]", False: "[red]no[/red]"}
                attacks = [f"{r.blind.get('max_score', 0.0):.2f}", f"{r.do_everything.get('max_score', 0.0):.2f}"]
                table.add_row(r.id, f"{r.oracle_min:.2f}", f"{r.noop_max:.2f}", str(len(r.hacks)), worst_text, *attacks,
                              yn[r.deterministic], yn[r.replay_ok], yn[r.rebuild_ok], yn[r.fork_ok],
                              yn[r.isolation_ok], yn[r.ok])
            _print_fitted(table, keep=("scenario", "ok"), wrap=("worst hack",), drop_first=("worst hack",),
                          hint="use --json")
            for r in results:
                for f in r.failures:
                    out.print(f"[red]FAIL[/red] {r.id}: {f}", highlight=False)
            out.print(f"{len(results)} scenarios, {seeds} seeds each (hacks and transfer on {hack_seeds}); "
                      f"harness errors {errors}/{calls} random calls; "
                      f"{'ok' if ok else 'FAILED'}")
        return ok

    if not _run(go):
        raise typer.Exit(1)


@app.command("eval")
def eval_(
    agent: Annotated[str, typer.Option(help="Any agent `run` takes (oracle, noop, random[:SEED], hack:NAME, "
                                            "alt:NAME, openai:MODEL).")],
    scenario: Annotated[str, typer.Option("--scenario", help="Glob(s) over scenario ids, comma-separated.")] = "*",
    seeds: Annotated[str, typer.Option("--seeds", help="A:B (B exclusive) or N.")] = "0:5",
    trials: Annotated[int, typer.Option("--trials", help="Trials per (scenario, seed): K of pass^k.", min=1)] = 1,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Episodes run at once.", min=1)] = 4,
    out_dir: Annotated[Path | None, typer.Option("--out", help="The run's folder (default: .saas_sim/eval/"
                                                               "<agent>-<hash of the arguments>).")] = None,
    threshold: Annotated[float, typer.Option("--threshold", help="Success is score >= this.", min=0, max=1)] = 1.0,
    base_url: Annotated[str | None, typer.Option("--base-url", help="An openai:MODEL agent's endpoint.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON (and draw no bar).")] = False,
    store: Annotated[str, typer.Option("--store", help="Store URL.")] = "sqlite+aiosqlite:///:memory:",
) -> None:
    """Evaluates an agent: mean score with a bootstrap CI, pass^k, failures per check, an HTML report.

    Rerun with the same arguments to resume an interrupted run; see saas_sim/runtime/evaluation.py.
    """
    from saas_sim.adapters.eval_command import eval_main
    from saas_sim.runtime.evaluation import EvalConfig

    async def go() -> None:
        config = EvalConfig(agent=agent, pattern=scenario, seeds=_seeds(seeds), trials=trials, threshold=threshold,
                            concurrency=concurrency, base_url=base_url)
        await eval_main(_env(store), config, out_dir, as_json=as_json, out=out, err=err)

    _run(go)


@equivalence_app.command("record")
def equivalence_record(
    path: Annotated[Path, typer.Argument(help="The JSONL recording to write.")],
    pattern: Annotated[str, typer.Option("--scenarios", help="Glob over scenario ids.")] = "*",
    seeds: Annotated[str, typer.Option("--seeds", help="One seed N, or a range A:B (B excluded).")] = "0:2",
) -> None:
    """Runs every scripted agent of the scenarios and records schemas, results, errors, grades and hashes."""
    from saas_sim.runtime.equivalence import record_behaviour, write_recording

    async def go() -> int:
        async with _env("sqlite+aiosqlite:///:memory:") as env:
            records = await record_behaviour(env, env.scenarios(pattern), _seeds(seeds))
        write_recording(records, path)
        return len(records)

    out.print(f"{_run(go)} records written to {path}", highlight=False)


@equivalence_app.command("compare")
def equivalence_compare(
    before: Annotated[Path, typer.Argument(help="The earlier recording.")],
    after: Annotated[Path, typer.Argument(help="The later recording.")],
) -> None:
    """Lists every record that is missing or differs, with its first differing path; exit 1 if any."""
    from saas_sim.runtime.equivalence import compare_recordings, read_recording

    diffs = list(compare_recordings(read_recording(before), read_recording(after)))
    for line in diffs:
        out.print(line, highlight=False, markup=False)
    out.print(f"{len(diffs)} records differ", highlight=False)
    if diffs:
        raise typer.Exit(1)


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A trajectory JSONL file.")],
    store: Annotated[str, typer.Option("--store", help="Store URL.")] = "sqlite+aiosqlite:///:memory:",
    rerun_effects: Annotated[bool, typer.Option(
        "--rerun-effects", help="Also re-run each recorded effect; report those whose outcome differs.")] = False,
) -> None:
    """Re-executes a trajectory and reports `identical` or the first divergence.

    Effects fold their recorded outcomes; `--rerun-effects` audits them and names each nondeterministic one.
    """
    from saas_sim.runtime.replay import replay_file

    async def go() -> bool:
        async with _env(store) as env:
            report = await replay_file(env, file, rerun_effects=rerun_effects)
        out.print(report.describe(), highlight=False)
        return report.ok

    if not _run(go):
        raise typer.Exit(1)


@app.command()
def view(
    files: Annotated[list[Path], typer.Argument(help="Trajectory JSONL files.")],
    out_file: Annotated[Path, typer.Option("--out", help="The HTML report to write.")],
    store: Annotated[str, typer.Option("--store", help="Store the diffs are rebuilt in.")] = "sqlite+aiosqlite:///:memory:",
) -> None:
    """Writes one self-contained HTML report: each episode's steps, state diffs and grade, with filters."""
    from saas_sim.adapters.viewer import write_report

    async def go() -> int:
        async with _env(store) as env:
            return await write_report(env, files, out_file)

    warned = _run(go)
    out.print(f"report written to {out_file} ({len(files)} trajectories"
              + (f", {warned} without verified diffs)" if warned else ")"), highlight=False)


@app.command()
def generate(
    scenario: Annotated[str, typer.Option("--scenario", help="Glob over scenario ids.")],
    seeds: Annotated[str, typer.Option("--seeds", help="A:B (B exclusive) or N.")],
    out_path: Annotated[Path, typer.Option("--out", help="Output JSONL file.")],
    difficulty: Annotated[list[str] | None, typer.Option(
        "--difficulty", help="easy|medium|hard and/or KNOB=VALUE, repeatable (--difficulty hard --difficulty "
                             "distractors=2); docs/difficulty.md. A setup knob a scenario lacks is skipped.")] = None,
) -> None:
    """Writes one deterministic episode spec per line: an RL prompt set.

    With `--difficulty`, each line also holds `difficulty` (the level and the knobs off the file's own
    level), which `Environment.task(..., difficulty=...)` and the TRL `reset` take back as it is.
    """
    from saas_sim.progress import progress_bar
    from saas_sim.scenarios.difficulty import choose, parse_request

    async def go() -> int:
        seed_list = _seeds(seeds)
        request = parse_request(difficulty) if difficulty else None
        lines: list[str] = []
        async with _env("sqlite+aiosqlite:///:memory:") as env:
            chosen = env.scenarios(scenario)
            if not chosen:
                raise SaasSimError(f"no scenario matches {scenario!r}")
            with progress_bar("generating", total=len(chosen) * len(seed_list)) as advance:
                env.world_progress = lambda msg: advance(0, description=msg)
                for sc in chosen:
                    tools = env.toolkit(sc).openai()
                    level = choose(sc.spec, request, ignore_undeclared=True)
                    for seed in seed_list:
                        task = await env.task(sc, seed, difficulty=level)
                        line: dict[str, Any] = {"scenario": sc.ref, "seed": seed, "world_hash": task.world.world_hash,
                                                "instructions": task.instructions, "tools": tools}
                        if request is not None:
                            line["difficulty"] = {"level": level.level, **level.changed}
                        lines.append(json.dumps(line, sort_keys=True, ensure_ascii=False))
                        advance(description=f"{sc.ref} seed {seed}")
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return len(lines)

    n = _run(go)
    out.print(f"wrote {n} episode specs to {out_path}")


@app.command("export")
def export(
    file: Annotated[Path, typer.Argument(help="A trajectory JSONL file.")],
    fmt: Annotated[str, typer.Option("--format", help="The output format: atif (Harbor's ATIF v1.8).")] = "atif",
    out_file: Annotated[Path | None, typer.Option("--out", help="Write here (default: stdout).")] = None,
    agent_name: Annotated[str | None, typer.Option("--agent-name", help="The agent's name in the export.")] = None,
    agent_version: Annotated[str | None, typer.Option("--agent-version", help="The agent's version.")] = None,
) -> None:
    """Converts a trajectory to another format; the JSONL stays the source of truth (same input, same bytes)."""
    from saas_sim.adapters.atif import export_atif

    if fmt != "atif":
        raise typer.BadParameter(f"unknown format {fmt!r}; known: atif", param_hint="--format")
    try:
        text = export_atif(file, out_file, agent_name=agent_name, agent_version=agent_version)
    except (SaasSimError, OSError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    if out_file is None:
        sys.stdout.write(text)
    else:
        err.print(f"ATIF written to {out_file}", highlight=False)


@app.command("data-report")
def data_report(
    profile: Annotated[str, typer.Argument(help="World profile name (seeds/<name>.yaml).")],
    seed: Annotated[int, typer.Option(help="World seed.", min=0)] = 0,
) -> None:
    """Prints the measured rate of each kind of mess in a world."""
    from saas_sim.progress import world_bar

    async def go() -> dict[str, Any]:
        async with _env("sqlite+aiosqlite:///:memory:") as env:
            prof = env.profiles.get(profile)
            if prof is None:
                raise SaasSimError(f"unknown world profile {profile!r}; known: {sorted(env.profiles)}")
            with world_bar(env):
                world = await env.world(prof, seed)
            report: dict[str, Any] = {"profile": profile, "seed": seed, "world_hash": world.world_hash}
            for name in prof.domains:
                fn = env.domains[name].data_report
                if fn is not None:
                    report[name] = dict(fn(world.state))
            return report

    print(json.dumps(_run(go), indent=2, sort_keys=True, default=str))


def _bench_progress(quiet: bool = False) -> AbstractContextManager[Callable[[str], None]]:
    """A benchmark's stage messages: a bar on a terminal, else one stderr line each (CI logs keep them)."""
    from saas_sim.progress import progress_messages

    return progress_messages("bench", quiet=quiet, log=lambda m: err.print(m, highlight=False))


@bench_app.command("store")
def bench_store(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = True,
    pg_url: Annotated[str | None, typer.Option("--pg-url", envvar="SAAS_SIM_BENCH_PG_URL",
                                               help="PostgreSQL URL to include.")] = None,
    scale: Annotated[float, typer.Option(help="Multiply the workload sizes.")] = 1.0,
) -> None:
    """Measures the event store (SQLite, durable SQLite, PostgreSQL, raw sqlite3, fold, snapshots)."""
    import tempfile

    from saas_sim.bench.store import run_store_bench

    async def go() -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="saas-sim-bench-") as tmp, _bench_progress() as say:
            return dict(await run_store_bench(pg_url=pg_url, workdir=Path(tmp), scale=scale, progress=say))

    print(json.dumps(_run(go), indent=2, sort_keys=True))


async def _bench_runtime(scenario: str) -> dict[str, Any]:
    import tempfile

    from saas_sim.bench.runtime import run_runtime_bench

    env = _env("sqlite+aiosqlite:///:memory:")
    matches = env.scenarios(scenario)
    if not matches:
        raise SaasSimError(f"no scenario matches {scenario!r}")
    with tempfile.TemporaryDirectory(prefix="saas-sim-bench-") as tmp, _bench_progress() as say:
        return await run_runtime_bench(scenario=matches[0].ref, workdir=Path(tmp), progress=say)


RuntimeScenarioOpt = Annotated[str, typer.Option("--scenario", help="Glob; the first match is timed.")]


@bench_app.command("runtime")
def bench_runtime(scenario: RuntimeScenarioOpt = "crm/*") -> None:
    """Measures reset, READ/WRITE call latency, 1,000-episode durable writes and episode memory."""
    print(json.dumps(_run(lambda: _bench_runtime(scenario)), indent=2, sort_keys=True))


IDE_RESET_SCENARIOS = ("ide/fix-reported-bug", "ide/fix-in-large-repo")
"""A small-world and a 300-file-world IDE scenario: their reset times show reset is flat in repo size."""


@bench_app.command("ide")
def bench_ide() -> None:
    """Measures the IDE: warm 20-test runs, cached re-runs, grading a repo task, loop lag, reset vs repo size."""
    from saas_sim.bench.ide import run_ide_bench
    from saas_sim.bench.runtime import reset_times_us

    async def resets() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with _env("sqlite+aiosqlite:///:memory:") as env:
            for ref in IDE_RESET_SCENARIOS:
                scenario = env.scenario(ref)
                times = sorted(await reset_times_us(env, scenario, 2000))
                files = len(list((await env.task(scenario, 0)).initial.raw_table("ide.files")))
                out[ref] = {"world": scenario.spec.world, "files": files,
                            "reset_p50_us": round(times[len(times) // 2], 2),
                            "reset_p99_us": round(times[int(len(times) * 0.99)], 2)}
        return out

    figures = {"runs": run_ide_bench(), "reset": _run(resets)}
    print(json.dumps(figures, indent=2, sort_keys=True))


ServerOptionOpt = Annotated[list[str] | None, typer.Option(
    "--server-option", help="Options for the `saas-sim serve` it starts, shell-split (repeatable): "
                            "--server-option '--loop uvloop --http httptools'.")]


def _globs(patterns: str) -> list[str]:
    return [p.strip() for p in patterns.split(",") if p.strip()]


def _split_options(options: list[str] | None) -> list[str]:
    import shlex

    return [part for option in options or [] for part in shlex.split(option)]


@bench_app.command("http")
def bench_http(
    sessions: Annotated[int, typer.Option(help="Concurrent sessions, one keep-alive connection each.", min=1)] = 64,
    duration: Annotated[float, typer.Option(help="Seconds of each measured window.", min=0.1)] = 20.0,
    runs: Annotated[int, typer.Option(help="Measured windows; each figure is their median.", min=1)] = 1,
    url: Annotated[str | None, typer.Option(help="Drive this server (or load balancer) instead of starting "
                                                 "one.")] = None,
    store: Annotated[str | None, typer.Option(help="The started server's store (default: SQLite in a temporary "
                                                   "folder).")] = None,
    server_option: ServerOptionOpt = None,
    server_pid: Annotated[list[int] | None, typer.Option(
        "--server-pid", help="Also read this server process's CPU and RSS (repeatable; for --url).")] = None,
    scenarios: Annotated[str, typer.Option(help="Scenario glob(s), comma-separated.")] = "*",
    seeds: Annotated[int, typer.Option(help="Seeds 0..N-1 of each scenario.", min=1)] = 2,
    include_ide: Annotated[bool, typer.Option("--include-ide", help="Also IDE scenarios (their grades run real "
                                                                    "test suites; reported as grade_ide).")] = False,
    ramp: Annotated[float, typer.Option(help="Seconds of uncounted load before each window.", min=0)] = 5.0,
    think: Annotated[float, typer.Option(help="Seconds each session idles after every answer (an agent's turn).",
                                         min=0)] = 0.0,
    timeout: Annotated[float, typer.Option(help="Seconds before a request counts as a timeout.", min=0.1)] = 30.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Drives `saas-sim serve` over HTTP with oracle traffic: calls/s, latency per route, errors, server CPU/RSS."""
    from saas_sim.bench.http_bench import HttpBenchConfig, run_http_bench, run_sync

    config = HttpBenchConfig(
        sessions=sessions, duration_s=duration, runs=runs, url=url, store=store,
        server_options=_split_options(server_option), server_pids=server_pid or [],
        scenarios=_globs(scenarios), seeds=seeds, include_ide=include_ide,
        ramp_s=ramp, think_s=think, timeout_s=timeout)
    try:
        report = run_sync(lambda: run_http_bench(config, progress=lambda m: err.print(m, highlight=False)))
    except (SaasSimError, OSError, ValueError, RuntimeError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    if as_json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return
    table = Table(title=f"saas-sim bench http: {sessions} sessions, {duration:g} s, median of {runs} run(s)")
    table.add_column("figure")
    table.add_column("median", justify="right")
    for key, value in report["median"].items():
        table.add_row(escape(key), f"{value:g}" if isinstance(value, int | float) else escape(str(value)))
    out.print(table)


@bench_app.command("soak")
def bench_soak(
    duration: Annotated[float, typer.Option(help="Seconds of churn.", min=1)] = 600.0,
    rate: Annotated[float, typer.Option(help="New episodes per second (open loop).", min=0.1)] = 20.0,
    ttl: Annotated[float, typer.Option(help="The server's idle TTL, seconds.", min=0.1)] = 30.0,
    abandon_every: Annotated[int, typer.Option(help="Every Nth episode is abandoned (0: none).", min=0)] = 4,
    sample: Annotated[float, typer.Option(help="Seconds between RSS samples.", min=0.1)] = 5.0,
    idle_episodes: Annotated[int, typer.Option(help="K, for memory per idle episode (0: skip).", min=0)] = 1000,
    store: Annotated[str | None, typer.Option(help="The server's store (default: SQLite in a temporary "
                                                   "folder).")] = None,
    server_option: ServerOptionOpt = None,
    scenarios: Annotated[str, typer.Option(help="Scenario glob(s), comma-separated.")] = "*",
) -> None:
    """Soaks a server with an idle TTL: churn and abandoned sessions; the RSS curve and memory per idle episode."""
    from saas_sim.bench.http_bench import run_sync
    from saas_sim.bench.soak import SoakConfig, run_soak

    config = SoakConfig(duration_s=duration, rate=rate, ttl_s=ttl, abandon_every=abandon_every, sample_s=sample,
                        idle_episodes=idle_episodes, store=store, server_options=_split_options(server_option),
                        scenarios=_globs(scenarios))
    try:
        report = run_sync(lambda: run_soak(config, progress=lambda m: err.print(m, highlight=False)))
    except (SaasSimError, OSError, ValueError, RuntimeError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    print(json.dumps(report, indent=2, sort_keys=True))


def _bench_table(result: dict[str, Any]) -> None:
    """Prints the suite's figures as a table: median and min over the runs."""
    meta = result["meta"]
    table = Table(title=f"saas-sim bench: {meta['runs']} run(s), {meta['date']}, load {meta['load_1m_at_start']}")
    for col in ("figure", "median", "min"):
        table.add_column(col, justify="left" if col == "figure" else "right")
    for key, fig in result["figures"].items():
        table.add_row(escape(key), f"{fig['median']:g}", f"{fig['min']:g}")
    for key, values in result["labels"].items():
        table.add_row(escape(key), escape(", ".join(map(str, values))), "")
    out.print(table)


TAU2_HELP = "Compare with a local tau2-bench checkout instead: `--compare tau2 PATH` (reset, READ, WRITE, episodes)."


@bench_app.callback()
def bench_all(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
    pg_url: Annotated[str | None, typer.Option("--pg-url", envvar="SAAS_SIM_BENCH_PG_URL",
                                               help="Also measure the store on this PostgreSQL URL.")] = None,
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs of the whole bench; each figure's min and "
                                                            "median over them.")] = 3,
    quick: Annotated[bool, typer.Option("--quick", help="A small smoke run (tests), not figures to quote.")] = False,
    compare: Annotated[tuple[str, str] | None, typer.Option("--compare", help=TAU2_HELP)] = None,
    tau2_python: Annotated[Path | None, typer.Option(
        "--tau2-python", help="tau2's interpreter (default: PATH/.venv/bin/python).")] = None,
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="With --compare: interleaved rounds.")] = 5,
) -> None:
    """Runs the whole benchmark when no subcommand is given (see docs/benchmarks.md for every figure)."""
    if ctx.invoked_subcommand is not None:
        return
    import tempfile

    if compare is not None:
        from saas_sim.bench.compare_tau2 import run_compare

        peer, path = compare
        if peer != "tau2":
            raise typer.BadParameter(f"unknown peer {peer!r}; known: tau2", param_hint="--compare")

        async def go_compare() -> dict[str, Any]:
            with tempfile.TemporaryDirectory(prefix="saas-sim-bench-") as tmp, _bench_progress() as say:
                return await run_compare(Path(path), python=tau2_python, workdir=Path(tmp), rounds=rounds,
                                         quick=quick, progress=say)

        print(json.dumps(_run(go_compare), indent=2, sort_keys=True))
        return

    from saas_sim.bench.suite import run_suite

    async def go() -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="saas-sim-bench-") as tmp, _bench_progress(as_json) as say:
            return await run_suite(runs=runs, quick=quick, workdir=Path(tmp), pg_url=pg_url, progress=say)

    result = _run(go)
    if as_json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        _bench_table(result)


def _server_extra(what: str) -> None:
    """Exits with a hint when the `server` extra (fastapi, uvicorn, mcp) is missing."""
    import importlib.util

    missing = [m for m in ("fastapi", "uvicorn", "mcp") if importlib.util.find_spec(m) is None]
    if missing:
        err.print(f"[red]error:[/red] {what} needs {', '.join(missing)}: pip install 'saas-sim\\[server]'")
        raise typer.Exit(2)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.", min=0, max=65535)] = 8000,
    store: StoreOpt = None,
    max_episodes: Annotated[int, typer.Option(help="Live episodes admitted at once (429 beyond).", min=1)] = 10_000,
    idle_ttl: Annotated[float, typer.Option(
        "--idle-ttl", help="Seconds an unused episode stays in memory; it then resumes from the store on its next "
                           "request. 0: never expire.", min=0)] = 900.0,  # http.DEFAULT_IDLE_TTL_S
    durable_reads: Annotated[bool, typer.Option(
        "--durable-reads", help="Write each episode's start before answering, and acknowledge read calls only "
                                "once recorded, as replicas behind a load balancer must (a killed replica then "
                                "loses no acknowledged call, and any replica can resume any episode).")] = False,
    openenv: Annotated[bool, typer.Option(
        "--openenv", help="Also speak OpenEnv's protocol (WS /ws, /reset, /step, /state, /schema, POST /mcp)."
    )] = False,
    loop: Annotated[str, typer.Option(help="uvicorn's event loop: auto, asyncio or uvloop.")] = "auto",
    http: Annotated[str, typer.Option(
        help="uvicorn's HTTP parser: auto (httptools when installed), h11 or httptools (bounded: "
             "see saas_sim.adapters._uvicorn_protocols).")] = "auto",
    backlog: Annotated[int, typer.Option(help="The listen backlog: connections waiting to be accepted.",
                                         min=1)] = 4096,
    keep_alive: Annotated[float, typer.Option(
        "--keep-alive", help="Seconds an idle keep-alive connection stays open. uvicorn's 5 s races clients "
                             "(and load balancers) that reuse a pooled connection just as it closes.",
        min=1)] = 75.0,
    access_log: Annotated[bool, typer.Option("--access-log/--no-access-log",
                                             help="Log every request (costs CPU under load).")] = False,
    gc_thresholds: Annotated[str, typer.Option(
        "--gc-thresholds", help="The garbage collector's generation thresholds, comma-separated (Python's "
                                "default: 700,10,10). Larger ones stop many in-flight requests from "
                                "triggering full collections (see saas_sim.runtime.heap).")] = ",".join(
                                    map(str, SERVER_GC_THRESHOLDS)),
    grade_worker: Annotated[bool, typer.Option(
        "--grade-worker/--no-grade-worker",
        help="Run grades' checks in a worker process, on another core than the calls (it holds a second "
             "copy of every task's world; see saas_sim.runtime.grade_worker).")] = False,
) -> None:
    """Serves episodes over HTTP (JSON API; docs at /docs, schema at /openapi.json; OpenEnv with --openenv)."""
    _server_extra("serve")
    import uvicorn

    from saas_sim.adapters._uvicorn_protocols import http_protocol
    from saas_sim.adapters.http import create_app

    _raise_open_files_limit()
    try:
        set_gc_thresholds(_gc_thresholds(gc_thresholds))
    except ValueError as exc:
        err.print(f"[red]error:[/red] --gc-thresholds: {exc}", highlight=False)
        raise typer.Exit(2) from None
    env = _env(store, durable_reads=durable_reads, grade_worker=grade_worker)
    try:
        app_ = create_app(env, max_episodes=max_episodes, idle_ttl_s=idle_ttl or None, openenv=openenv)
        protocol = http_protocol(http)
    except (SaasSimError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None
    # uvicorn would buffer WebSocket messages up to 16 MiB per connection; the app refuses frames past
    # 1 MiB with an error frame, so twice that is enough for it to say so, and bounds what a client costs.
    uvicorn.run(app_, host=host, port=port, log_level="info", loop=loop, http=protocol, backlog=backlog,
                access_log=access_log, ws_max_size=2 << 20, timeout_keep_alive=int(keep_alive),
                proxy_headers=False)  # nothing reads the client address: no X-Forwarded-For rewriting per request


def _gc_thresholds(text: str) -> tuple[int, int, int]:
    """Parses `--gc-thresholds` ("700,10,10").

    Raises:
        ValueError: Not three comma-separated integers.
    """
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"expected three comma-separated integers, got {text!r}")
    first, second, third = (int(p) for p in parts)
    return first, second, third


def _raise_open_files_limit() -> None:
    """Lifts the soft limit on open files to the hard one: each session holds a socket.

    With the common default of 1,024, a server past about a thousand concurrent connections
    resets the new ones (measured: 7,439 resets at 2,048 sessions).
    """
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as exc:
            err.print(f"[yellow]warning:[/yellow] open files stay limited to {soft} ({exc})", highlight=False)


@app.command("mcp")
def mcp_server(
    scenario: Annotated[str, typer.Argument(help="Scenario id or id@version.")],
    seed: Annotated[int, typer.Option(help="Task seed.", min=0)] = 0,
    out_file: Annotated[Path | None, typer.Option("--out", help="Grade on exit and write the trajectory here.")] = None,
    store: StoreOpt = None,
) -> None:
    """Serves one episode's tools over MCP on stdin/stdout (for MCP clients that launch a command)."""
    _server_extra("mcp")
    from saas_sim.adapters.mcp import serve_episode_stdio

    async def go() -> None:
        async with _env(store) as env:
            episode = await env.start(scenario, seed)
            # A SIGTERM ends the input like a closed stdin (serve_episode_stdio handles it), so the
            # episode is still graded and its trajectory written.
            try:
                await serve_episode_stdio(episode)
            finally:
                if out_file is not None:
                    grade = await episode.grade()
                    episode.trajectory.write(out_file)
                    score = "invalid" if grade.score is None else f"{grade.score:.3f}"
                    err.print(f"score {score}  attribution {grade.attribution}  steps {episode.steps}; "
                              f"trajectory written to {out_file}", highlight=False)
                await episode.close()

    _run(go)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
