"""The flaky check finds clock and randomness reads through imports and aliases, and nothing else."""

from __future__ import annotations

import random

from saas_sim.domains.ide.checks_flaky import nondeterministic_calls
from saas_sim.domains.ide.setups_flaky import build_clock, build_random


def _calls(text: str, kinds: list[str]) -> list[str]:
    return nondeterministic_calls({"acme/m.py": text}, "acme/m.py", kinds)


def test_aliased_clock_reads_are_found() -> None:
    text = ("from datetime import datetime as dt\nimport time as t\nfrom datetime import date\n\n"
            "def f():\n    return dt.now(), t.time(), date.today()\n")
    assert _calls(text, ["clock"]) == [
        "line 6: datetime.datetime.now", "line 6: time.time", "line 6: datetime.date.today"]


def test_a_local_function_named_now_is_not_a_clock() -> None:
    text = "def now():\n    return 3\n\ndef f():\n    return now()\n"
    assert _calls(text, ["clock", "random"]) == []


def test_global_random_and_an_unseeded_generator_count_but_a_seeded_one_does_not() -> None:
    text = ("import random\nfrom random import choice\n\n"
            "def f(xs):\n    random.seed(1)\n    a = choice(xs)\n    b = random.Random().random()\n"
            "    c = random.Random(7).random()\n    return a, b, c\n")
    assert _calls(text, ["random"]) == ["line 5: random.seed", "line 6: random.choice", "line 7: random.Random"]


def test_only_the_forbidden_kinds_are_reported() -> None:
    text = "import random, time\n\ndef f():\n    return random.random(), time.time()\n"
    assert _calls(text, ["clock"]) == ["line 4: time.time"]


def test_a_missing_module_is_a_finding() -> None:
    assert nondeterministic_calls({}, "acme/m.py", ["clock"]) == ["acme/m.py is missing or does not parse"]


def test_the_staged_modules_are_flagged_and_their_fixes_are_not() -> None:
    routing = build_random(random.Random(0))
    path = str(routing.task.details["module"])
    text = routing.files[path]
    assert nondeterministic_calls(routing.files, path, ["random"])
    fixed = text.replace("return random.choice(candidates)", "return min(candidates)")
    assert nondeterministic_calls({path: fixed}, path, ["random"]) == []
    sla = build_clock(random.Random(0))
    path = str(sla.task.details["module"])
    assert nondeterministic_calls(sla.files, path, ["clock"]) == ["line 8: datetime.datetime.now"]
