"""The EXECUTE tools: run_tests and run_python as effects (run for real in the sandbox), and submit."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.core.state import State
from saas_sim.core.tool_errors import bad_args
from saas_sim.core.tools import ToolContext, ToolSpec
from saas_sim.domains.ide import tools_run
from saas_sim.domains.ide.events import BlobStored, CommandRan, Submitted
from saas_sim.domains.ide.sandbox import CACHE
from saas_sim.domains.ide.state import BLOBS, PROJECTION, RUNS, SUBMISSION
from saas_sim.domains.ide.workspace import TreeWriter, file_text, tree_hash
from saas_sim.errors import ToolError
from tests.domains.ide.tree_fixtures import NOW, world

TOOLS: dict[str, ToolSpec] = {s.name: s for s in vars(tools_run).values() if isinstance(s, ToolSpec)}

PROJECT = {
    "acme/__init__.py": "",
    "acme/calc.py": "def add(a, b):\n    return a - b\n",
    "acme/cli.py": "import sys\nfrom acme.calc import add\nprint(add(*map(int, sys.argv[1:])))\n",
    "tests/test_calc.py": "from acme.calc import add\n\n\ndef test_zero():\n    assert add(1, 0) == 1\n\n\n"
                          "def test_pos():\n    assert add(2, 3) == 5\n",
}


class EffectRunner:
    """Calls a tool as the runtime does: the handler, then the effect's run (for real), then complete."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Any] = []
        self.outcomes: list[EffectOutcome] = []

    def call(self, tool: str, /, outcome: EffectOutcome | None = None, **args: Any) -> Any:
        spec = TOOLS[tool]
        try:
            parsed: BaseModel = spec.args_model.model_validate(args)
        except ValidationError as exc:
            raise bad_args(f"invalid arguments for {tool}", sorted({".".join(map(str, e["loc"]))
                                                                   for e in exc.errors()})) from None
        ctx = ToolContext(self.state, NOW, PROJECTION, random.Random(0), spec.kind)
        result = spec.handler(ctx, parsed)
        if isinstance(result, Effect):
            if outcome is None:
                outcome = result.run(result.inputs, result.timeout_s)
            self.outcomes.append(outcome)
            result = result.complete(ctx, outcome)
        assert isinstance(result, spec.result_model)
        self.state = ctx.state
        self.events += ctx.events
        return result

    def error(self, tool: str, /, **args: Any) -> ToolError:
        before = self.state
        with pytest.raises(ToolError) as info:
            self.call(tool, **args)
        assert self.state is before
        return info.value


@pytest.fixture
def ide() -> EffectRunner:
    CACHE.clear()
    return EffectRunner(world(PROJECT))


class TestRunTests:
    def test_reports_each_test_and_the_failure_head(self, ide: EffectRunner) -> None:
        view = ide.call("ide.run_tests")
        assert view.status == "failed"
        assert [(t.test_id, t.outcome) for t in view.tests] == [
            ("tests/test_calc.py::test_pos", "failed"), ("tests/test_calc.py::test_zero", "passed")]
        assert (view.counts.passed, view.counts.failed) == (1, 1)
        assert "assert -1 == 5" in view.failures[0].head
        assert view.sandbox == "bwrap"

    def test_records_the_run_with_tree_hash_and_output_blob(self, ide: EffectRunner) -> None:
        view = ide.call("ide.run_tests", targets=["tests/test_calc.py::test_zero"])
        run = ide.state.table(RUNS).get(view.run_id)
        assert run.kind == "tests" and run.tree_hash == tree_hash(ide.state)
        assert run.selection == ("tests/test_calc.py::test_zero",) and run.status == "ok"
        assert ide.state.table(BLOBS).get(run.output_blob) is not None
        assert [type(e) for e in ide.events] == [BlobStored, CommandRan]
        assert run.cost_s == tools_run.TESTS_COST_S and run.profile

    def test_keyword_selects_tests(self, ide: EffectRunner) -> None:
        view = ide.call("ide.run_tests", keyword="zero")
        assert [t.test_id for t in view.tests] == ["tests/test_calc.py::test_zero"]

    def test_completing_the_same_outcome_twice_gives_the_same_events(self, ide: EffectRunner) -> None:
        ide.call("ide.run_tests")
        again = EffectRunner(world(PROJECT))
        again.call("ide.run_tests", outcome=ide.outcomes[0])
        assert [e.model_dump() for e in again.events] == [e.model_dump() for e in ide.events]

    def test_a_runtime_timeout_is_recorded(self, ide: EffectRunner) -> None:
        view = ide.call("ide.run_tests", outcome=EffectOutcome.timeout(40))
        assert view.status == "timeout" and view.tests == []
        assert ide.state.table(RUNS).get(view.run_id).status == "timeout"

    def test_a_test_that_never_ends_is_a_timeout(self, ide: EffectRunner, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(tools_run, "RUN_TIMEOUT_S", 1.5)
        writer = TreeWriter(ide.state)
        writer.write("tests/test_hang.py", "def test_hang():\n    while True:\n        pass\n", operation="create")
        ide.state = PROJECTION.fold(ide.state, writer.events)
        view = ide.call("ide.run_tests", targets=["tests/test_hang.py"])
        assert view.status == "timeout"

    @pytest.mark.parametrize(("targets", "code", "fields"), [
        (["../etc/passwd"], "invalid_argument", ["targets.0"]),
        (["/abs/test.py"], "invalid_argument", ["targets.0"]),
        (["tests/test_calc.py", "tests/nope.py"], "not_found", ["targets.1"]),
        (["tests/test_calc.py::"], "invalid_argument", ["targets.0"]),
        (["tests::test_x"], "invalid_argument", ["targets.0"]),
        (["tests/te\x00st.py"], "invalid_argument", ["targets.0"]),
    ])
    def test_bad_targets_are_tool_errors(self, ide: EffectRunner, targets: list[str], code: str,
                                         fields: list[str]) -> None:
        err = ide.error("ide.run_tests", targets=targets)
        assert (err.code, err.details["fields"]) == (code, fields)

    def test_an_option_as_a_target_is_not_an_option(self, ide: EffectRunner) -> None:
        assert ide.error("ide.run_tests", targets=["--co"]).code == "not_found"
        err = ide.error("ide.run_tests", keyword="a\nb")
        assert err.details["fields"] == ["keyword"]


class TestRunPython:
    def test_runs_code_and_modules_of_the_tree(self, ide: EffectRunner) -> None:
        view = ide.call("ide.run_python", code="from acme.calc import add\nprint(add(5, 2))")
        assert (view.status, view.exit_code, view.output) == ("ok", 0, "3\n")
        cli = ide.call("ide.run_python", module="acme.cli", args=["7", "1"])
        assert cli.output == "6\n"
        run = ide.state.table(RUNS).get(cli.run_id)
        assert ide.state.table(BLOBS).get(run.command_blob).text == "python -m acme.cli 7 1"

    def test_file_changes_are_discarded(self, ide: EffectRunner) -> None:
        before = tree_hash(ide.state)
        ide.call("ide.run_python", code="open('acme/calc.py', 'w').write('x = 1')\nopen('new.txt', 'w').write('n')")
        assert tree_hash(ide.state) == before
        assert file_text(ide.state, "acme/calc.py") == PROJECT["acme/calc.py"]

    def test_an_exception_is_a_failed_run_with_its_traceback(self, ide: EffectRunner) -> None:
        view = ide.call("ide.run_python", code="raise ValueError('boom')", stdin="in")
        assert (view.status, view.exit_code) == ("failed", 1)
        assert "ValueError: boom" in view.output

    def test_a_memory_hog_is_a_resource_limit(self, ide: EffectRunner) -> None:
        view = ide.call("ide.run_python", code="x = bytearray(8 << 30)")
        assert (view.status, view.limit) == ("resource_limit", "memory")

    @pytest.mark.parametrize(("args", "fields"), [
        ({}, ["code", "module"]),
        ({"code": "print(1)", "module": "acme.cli"}, ["code", "module"]),
        ({"module": "acme/cli.py"}, ["module"]),
        ({"module": "-c"}, ["module"]),
        ({"code": "print(1)\x00"}, ["code"]),
        ({"code": "print(1)", "args": ["a\x00"]}, ["args.0"]),
        ({"code": "x" * (70 * 1024)}, ["code"]),
    ])
    def test_bad_arguments_are_tool_errors(self, ide: EffectRunner, args: dict[str, Any], fields: list[str]) -> None:
        err = ide.error("ide.run_python", **args)
        assert (err.code, err.details["fields"]) == ("invalid_argument", fields)


class TestSubmit:
    def test_records_the_summary_and_the_changed_files(self, ide: EffectRunner) -> None:
        writer = TreeWriter(ide.state)
        writer.write("acme/calc.py", "def add(a, b):\n    return a + b\n", operation="edit")
        writer.write("acme/new.py", "x = 1\n", operation="create")
        ide.state = PROJECTION.fold(ide.state, writer.events)
        view = ide.call("ide.submit", summary="Fixed add.")
        assert view.changed_files == ["acme/calc.py", "acme/new.py"]
        assert ide.state.value(SUBMISSION).summary == "Fixed add."
        assert isinstance(ide.events[-1], Submitted) and ide.events[-1].tree_hash == view.tree_hash

    def test_an_empty_summary_is_refused(self, ide: EffectRunner) -> None:
        assert ide.error("ide.submit", summary="").details["fields"] == ["summary"]


class TestThroughTheRuntime:
    async def test_run_tools_record_replay_and_fork_exactly(self) -> None:
        from saas_sim.runtime.environment import Environment
        from saas_sim.runtime.episode import reissued_call_id
        from saas_sim.runtime.replay import replay

        async with Environment("sqlite+aiosqlite:///:memory:") as env:
            episode = await env.start(env.scenario("ide/fix-off-by-one"), 0)
            tests = await episode.call("ide.run_tests", {})
            assert tests.ok and tests.value["status"] == "ok" and tests.value["counts"]["passed"] > 0
            program = await episode.call("ide.run_python", {"code": "print(6 * 7)"})
            assert program.ok and program.value["output"] == "42\n"
            bad = await episode.call("ide.run_tests", {"targets": ["../outside.py"]})
            assert not bad.ok and bad.error is not None and bad.error.code == "invalid_argument"
            report, _ = await replay(env, episode.trajectory)
            assert report.identical, report.describe()
            child = await episode.fork(1)
            for step in episode.trajectory.steps[1:]:
                await child.call(step.tool, step.args, reissued_call_id(step.call_id))
            assert child.state_hash == episode.state_hash
            grade = await episode.grade()
            assert grade.valid and grade.score == 0.0  # nothing fixed: the hidden tests still fail
            await child.close()
            await episode.close()

    async def test_lone_surrogates_from_agent_code_are_observations_and_grades_not_harness_errors(self) -> None:
        # A failing test's message, and the function under grading's result, come back from the sandbox as JSON
        # whose "\ud800" parses to a lone surrogate: recording either was a harness or verifier error.
        from saas_sim.runtime.environment import Environment

        async with Environment("sqlite+aiosqlite:///:memory:") as env:
            episode = await env.start(env.scenario("ide/fix-off-by-one"), 0)
            created = await episode.call("ide.create_file", {
                "path": "tests/test_sur.py", "content": 'def test_sur():\n    raise Exception("\\ud800")\n'})
            assert created.ok
            run = await episode.call("ide.run_tests", {"targets": ["tests/test_sur.py"]})
            assert run.ok and run.value["status"] == "failed"
            assert "Exception: \\ud800" in run.value["failures"][0]["head"]
            money = "acme/utils/money.py"
            total = (await episode.call("ide.read_file", {"path": money})).value["total_lines"]
            raising = "\n\ndef format_cents(cents):\n    raise ValueError('\\udcff')\n"
            redefined = await episode.call("ide.insert_text", {"path": money, "line": total, "text": raising})
            assert redefined.ok
            grade = await episode.grade()
            assert grade.valid and grade.score is not None and grade.score < 1.0
            await episode.close()
