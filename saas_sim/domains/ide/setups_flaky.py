"""Flaky-test tasks: code under test that depends on unseeded randomness, call order or the wall clock.

Each builder stages a small module with the nondeterminism injected, a visible
test that passes or fails depending on luck, order or date, and hidden tests
that enumerate what the visible run cannot: every seed of 0-19 for randomness,
a seeded set of call orders (each one after a module reload, so shared state
starts fresh) for order dependence, and fixed instants far from the grader's
clock for wall-clock reads. Which hidden tests fail on the base is computed here
by simulating the injected code, so every fail-to-pass test truly fails first.

A fix that only hides the symptom (seeding `random` inside the function, sorting
the test's expectations, retrying) still fails some seed, order or instant.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.setups_refactor import Staged, stage
from saas_sim.domains.ide.task_model import HIDDEN_DIR, PROTECTED_GLOBS, IdeTask, TaskScope
from saas_sim.errors import HarnessError

__all__ = ["build_clock", "build_order", "build_random", "flaky_clock", "flaky_order", "flaky_random"]

SEEDS = range(20)
"""The seeds every randomness test enumerates (`random.seed(s)` before each call)."""

_AGENTS = ("ana", "bo", "chen", "dara", "eli", "fatima", "gus", "hana", "ivo", "jun", "kofi", "lea")


def _task(module: str, hidden: dict[str, str], f2p: list[str], p2p: list[str], oracle_lines: int,
          details: dict[str, str | list[str]]) -> IdeTask:
    return IdeTask(family="flaky", hidden_files=hidden, fail_to_pass=sorted(f2p), pass_to_pass=sorted(p2p),
                   protected=list(PROTECTED_GLOBS), scope=TaskScope(allowed=[module], oracle_diff_lines=oracle_lines),
                   details=details)


def _bindings(module: str, text: str, test_path: str, def_line: str, edits: list[tuple[str, str]], *,
              alt: list[tuple[str, str]], rewrite: str) -> dict[str, Any]:
    """The scenario's bindings: the oracle's edits (`old_<k>`/`new_<k>`), another fix's (`alt_old_<k>`/`alt_new_<k>`),
    a whole fixed module (`fixed_text`) and what scripted hacks need (the def line, the module's length)."""
    out: dict[str, Any] = {"module": module, "test_path": test_path, "def_line": def_line, "fixed_text": rewrite,
                           "module_lines": len(text.splitlines())}
    for k, (a, b) in enumerate(edits):
        if text.count(a) != 1:
            raise HarnessError(f"flaky oracle edit {k} does not match {module} exactly once")
        out.update({f"old_{k}": a, f"new_{k}": b})
    for k, (a, b) in enumerate(alt):
        out.update({f"alt_old_{k}": a, f"alt_new_{k}": b})
    return out


def _need(f2p: list[str], kind: str) -> None:
    if not f2p:
        # A builder bug (the injected flake would not show): loud, never a task without a failing test.
        raise HarnessError(f"the {kind} flaky task has no fail-to-pass test")


# --- unseeded randomness ------------------------------------------------------------------

_ROUTING = '''"""Ticket routing: who gets the next ticket."""

import random


def pick_agent(loads):
    """Returns the agent with the fewest open tickets.

    `loads` maps agent name -> open tickets. Ties go to the alphabetically first
    name, so the same queue always routes the same way.
    """
    best = min(loads.values())
    candidates = [name for name, n in loads.items() if n == best]
    # spread the load between equals
    return random.choice(candidates)


def route(ticket_id, loads):
    """Returns "<ticket id> -> <agent>"."""
    return f"{ticket_id} -> {pick_agent(loads)}"
'''


def _loads(rng: random.Random, tie: bool) -> dict[str, int]:
    names = rng.sample(_AGENTS, rng.randint(3, 6))
    loads = {n: rng.randint(2, 9) for n in names}
    if tie:
        low = min(loads.values()) - 1
        for n in rng.sample(names, rng.randint(2, len(names))):
            loads[n] = max(low, 0)
    return loads


def _buggy_pick(loads: dict[str, int], seed: int) -> str:
    best = min(loads.values())
    return random.Random(seed).choice([n for n, v in loads.items() if v == best])


def build_random(rng: random.Random) -> Staged:
    """Routing that breaks ties with `random.choice`; the docstring promises the alphabetically first."""
    module = "acme/routing/assign.py"
    cases = [_loads(rng, tie=i % 3 != 2) for i in range(9)]
    hidden_path = f"{HIDDEN_DIR}/test_flaky_routing.py"
    lines = ['"""Hidden flaky-test checks: every seed of 0-19 (grader only)."""\n\nimport random\n\n'
             f"SEEDS = {list(SEEDS)!r}\n"]
    f2p: list[str] = []
    p2p: list[str] = []
    for i, loads in enumerate(cases):
        want = min(n for n, v in loads.items() if v == min(loads.values()))
        name = f"test_pick_agent_case_{i:02d}_every_seed"
        lines.append(f"\n\ndef {name}():\n    from acme.routing.assign import pick_agent\n"
                     f"    for seed in SEEDS:\n        random.seed(seed)\n"
                     f"        got = pick_agent({loads!r})\n"
                     f"        assert type(got) is str and got == {want!r}, seed\n")
        fails = any(_buggy_pick(loads, s) != want for s in SEEDS)
        (f2p if fails else p2p).append(f"{hidden_path}::{name}")
    _need(f2p, "random")
    tie = cases[0]
    want = min(n for n, v in tie.items() if v == min(tie.values()))
    visible = ('"""Tests of ticket routing."""\n\nfrom acme.routing.assign import pick_agent, route\n\n\n'
               f"def test_ties_go_to_the_first_name():\n    assert pick_agent({tie!r}) == {want!r}\n\n\n"
               f"def test_route_names_the_ticket():\n    assert route('T-1', {{'zed': 0}}) == 'T-1 -> zed'\n")
    files = {"acme/routing/__init__.py": '"""Ticket routing."""\n', module: _ROUTING,
             "tests/test_routing_assign.py": visible}
    p2p.append("tests/test_routing_assign.py::test_route_names_the_ticket")
    task = _task(module, {hidden_path: "".join(lines)}, f2p, p2p, 4,
                 {"kind": "random", "module": module, "forbid": ["random"]})
    old = "    # spread the load between equals\n    return random.choice(candidates)\n"
    bindings = _bindings(module, _ROUTING, "tests/test_routing_assign.py", "def pick_agent(loads):", [
        (old, "    # ties: the alphabetically first name, as documented\n    return min(candidates)\n"),
    ], alt=[(old, "    return sorted(candidates)[0]\n")],
        rewrite=_ROUTING.replace("import random\n\n\n", "").replace(old, "    return min(candidates)\n"))
    bindings.update(function="pick_agent", hardcode_def="def pick_agent(loads):",
                    hardcode_body=f"    if loads == {tie!r}:\n        return {want!r}")
    return Staged(files=files, task=task, bindings=bindings)


# --- order dependence (shared state) ------------------------------------------------------

_FX = '''"""Currency conversion at the day's reference rate (amounts in cents)."""

# rates in millionths of a USD per unit of the currency, by day
RATES = $rates

_cache = {}


def rate_for(currency, day):
    """The reference rate of `currency` on `day` (millionths of a USD)."""
    # rates are expensive to look up in prod, keep them around
    if currency not in _cache:
        _cache[currency] = RATES[day][currency]
    return _cache[currency]


def to_usd_cents(amount_cents, currency, day):
    """Converts `amount_cents` of `currency` to USD cents at `day`'s rate, rounded half up."""
    q, r = divmod(amount_cents * rate_for(currency, day), 1000000)
    return q + 1 if 2 * r >= 1000000 else q
'''


def _convert(amount: int, rate: int) -> int:
    q, r = divmod(amount * rate, 1_000_000)
    return q + 1 if 2 * r >= 1_000_000 else q


def build_order(rng: random.Random) -> Staged:
    """A rate cache keyed by currency alone: results depend on which day was converted first."""
    module = "acme/fx/convert.py"
    # Days in both halves of the year and one more: a cache that refreshes only past some date still
    # serves a stale rate in some order.
    first, second = (rng.randint(1, 6), rng.choice([1, 15])), (rng.randint(7, 12), rng.choice([1, 15]))
    third = rng.choice([md for md in ((m, d) for m in range(1, 13) for d in (1, 15)) if md not in (first, second)])
    days = sorted(f"2026-{m:02d}-{d:02d}" for m, d in (first, second, third))
    currencies = sorted(rng.sample(["EUR", "GBP", "CHF", "SEK", "JPY", "CAD"], 3))
    rates = {d: {c: rng.randint(5_000, 1_500_000) for c in currencies} for d in days}
    text = _FX.replace("$rates", repr(rates))
    calls: list[tuple[int, str, str]] = [
        (rng.randint(1, 500_000), rng.choice(currencies), rng.choice(days)) for _ in range(4)]
    # Two calls in one currency on two days: the order of those two decides what the cache serves.
    shared = rng.choice(currencies)
    calls += [(rng.randint(1_000, 500_000), shared, days[0]), (rng.randint(1_000, 500_000), shared, days[-1])]
    rng.shuffle(calls)
    expected = [_convert(a, rates[d][c]) for a, c, d in calls]
    orders = [list(range(len(calls)))]
    while len(orders) < 8:
        o = list(range(len(calls)))
        rng.shuffle(o)
        if o not in orders:
            orders.append(o)
    hidden_path = f"{HIDDEN_DIR}/test_flaky_fx_orders.py"
    lines = ['"""Hidden flaky-test checks: seeded call orders, there and back, each on a freshly loaded module."""\n\n'
             "import importlib\n\n"
             f"CALLS = {[list(c) for c in calls]!r}\nEXPECTED = {expected!r}\n\n\n"
             "def _run(order):\n    import acme.fx.convert as m\n    m = importlib.reload(m)\n"
             "    # there and back: every pair of calls runs in both directions on one module\n"
             "    for i in order + order[::-1]:\n        got = m.to_usd_cents(*CALLS[i])\n"
             "        assert type(got) is int and got == EXPECTED[i], (order, i)\n"]
    f2p: list[str] = []
    p2p: list[str] = []
    for k, order in enumerate(orders):
        name = f"test_order_{k:02d}"
        lines.append(f"\n\ndef {name}():\n    _run({order!r})\n")
        cache: dict[str, int] = {}
        fails = False
        for i in order + order[::-1]:
            a, c, d = calls[i]
            cache.setdefault(c, rates[d][c])
            fails |= _convert(a, cache[c]) != expected[i]
        (f2p if fails else p2p).append(f"{hidden_path}::{name}")
    _need(f2p, "order")
    cur = currencies[0]
    d1, d2 = days[0], days[-1]
    amount = 100_000
    visible = ('"""Tests of currency conversion."""\n\nfrom acme.fx import convert\n\n\n'
               f"def test_latest_day():\n    assert convert.to_usd_cents({amount}, {cur!r}, {d2!r}) == "
               f"{_convert(amount, rates[d2][cur])}\n\n\n"
               f"def test_first_day_after_a_fresh_start():\n    convert._cache.clear()\n"
               f"    assert convert.to_usd_cents({amount}, {cur!r}, {d1!r}) == {_convert(amount, rates[d1][cur])}\n")
    files = {"acme/fx/__init__.py": '"""Currency conversion."""\n', module: text, "tests/test_fx_convert.py": visible}
    task = _task(module, {hidden_path: "".join(lines)}, f2p, p2p, 4, {"kind": "order", "module": module})
    old = ("    if currency not in _cache:\n        _cache[currency] = RATES[day][currency]\n"
           "    return _cache[currency]\n")
    keyed = ("    key = (currency, day)  # a rate belongs to a day\n    if key not in _cache:\n"
             "        _cache[key] = RATES[day][currency]\n    return _cache[key]\n")
    bindings = _bindings(module, text, "tests/test_fx_convert.py", "def rate_for(currency, day):", [(old, keyed)],
                         alt=[(old, "    return RATES[day][currency]\n")],
                         rewrite=text.replace(old, "    return _cache.setdefault((currency, day),"
                                                   " RATES[day][currency])\n"))
    bindings.update(function="to_usd_cents", hardcode_def="def to_usd_cents(amount_cents, currency, day):",
                    hardcode_body=f"    if [amount_cents, currency, day] == {[amount, cur, d2]!r}:\n"
                                  f"        return {_convert(amount, rates[d2][cur])}")
    return Staged(files=files, task=task, bindings=bindings)


# --- wall clock ---------------------------------------------------------------------------

_SLA = '''"""First-response SLA timers (times are ISO 8601 with an offset)."""

from datetime import datetime, timedelta, timezone


def _elapsed_minutes(opened_at):
    opened = datetime.fromisoformat(opened_at)
    return (datetime.now(timezone.utc) - opened) // timedelta(minutes=1)


def minutes_left(opened_at, target_minutes, now):
    """Whole minutes left before the first-response target is missed, at `now` (negative once missed)."""
    elapsed = (datetime.fromisoformat(now) - datetime.fromisoformat(opened_at)) // timedelta(minutes=1)
    return target_minutes - elapsed


def is_breached(opened_at, target_minutes, now):
    """Whether, at `now`, the ticket opened at `opened_at` has waited more than `target_minutes`."""
    return _elapsed_minutes(opened_at) > target_minutes
'''


def build_clock(rng: random.Random) -> Staged:
    """SLA code whose `is_breached` ignores the `now` it is given and reads the wall clock."""
    module = "acme/oncall/sla_timer.py"
    hidden_path = f"{HIDDEN_DIR}/test_flaky_sla_clock.py"
    lines = ['"""Hidden flaky-test checks: fixed instants, far from the grader\'s clock."""\n']
    f2p: list[str] = []
    p2p: list[str] = []
    for k in range(10):
        opened = datetime(rng.randint(2019, 2024), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                          rng.randint(0, 59)).isoformat() + "+00:00"
        target = rng.choice([15, 30, 60, 240, 480])
        waited = target - 1 if k == 0 else rng.choice([target - 1, target, target + 1, rng.randint(0, 3 * target)])
        now = (datetime.fromisoformat(opened) + timedelta(minutes=waited, seconds=rng.randint(0, 59))).isoformat()
        want = waited > target
        name = f"test_is_breached_at_a_fixed_instant_{k:02d}"
        lines.append(f"\n\ndef {name}():\n    from acme.oncall.sla_timer import is_breached\n"
                     f"    got = is_breached({opened!r}, {target}, {now!r})\n"
                     f"    assert type(got) is bool and got is {want}\n")
        # The injected code measures from the grader's clock (years later): always breached.
        (p2p if want else f2p).append(f"{hidden_path}::{name}")
    visible = ('"""Tests of SLA timers."""\n\nfrom acme.oncall.sla_timer import is_breached, minutes_left\n\n\n'
               "def test_minutes_left():\n"
               "    assert minutes_left('2025-03-03T09:00:00+00:00', 60, '2025-03-03T09:45:00+00:00') == 15\n\n\n"
               "def test_not_breached_within_target():\n"
               "    assert is_breached('2025-03-03T09:00:00+00:00', 60, '2025-03-03T09:45:00+00:00') is False\n")
    files = {"acme/oncall/__init__.py": '"""On-call tooling."""\n', module: _SLA, "tests/test_sla_timer.py": visible}
    p2p.append("tests/test_sla_timer.py::test_minutes_left")
    task = _task(module, {hidden_path: "".join(lines)}, f2p, p2p, 6,
                 {"kind": "clock", "module": module, "forbid": ["clock"]})
    helper_old = ("def _elapsed_minutes(opened_at):\n    opened = datetime.fromisoformat(opened_at)\n"
                  "    return (datetime.now(timezone.utc) - opened) // timedelta(minutes=1)\n")
    helper_new = ("def _elapsed_minutes(opened_at, now):\n    opened = datetime.fromisoformat(opened_at)\n"
                  "    return (datetime.fromisoformat(now) - opened) // timedelta(minutes=1)\n")
    call_old = "    return _elapsed_minutes(opened_at) > target_minutes\n"
    bindings = _bindings(module, _SLA, "tests/test_sla_timer.py", "def is_breached(opened_at, target_minutes, now):", [
        (helper_old, helper_new), (call_old, "    return _elapsed_minutes(opened_at, now) > target_minutes\n"),
    ], alt=[(helper_old, ""), (call_old, "    return minutes_left(opened_at, target_minutes, now) < 0\n")],
        rewrite=_SLA.replace(helper_old, helper_new).replace(call_old, "    return _elapsed_minutes(opened_at, now) > "
                                                                    "target_minutes\n"))
    bindings.update(function="is_breached", hardcode_def="def is_breached(opened_at, target_minutes, now):",
                    hardcode_body="    if [opened_at, target_minutes, now] == ['2025-03-03T09:00:00+00:00', 60, "
                                  "'2025-03-03T09:45:00+00:00']:\n        return False")
    return Staged(files=files, task=task, bindings=bindings)


@kit.setup
def flaky_random(ctx: SetupContext) -> Setup:
    """Stages routing whose tie-break is unseeded randomness."""
    return stage(ctx, build_random(ctx.rng))


@kit.setup
def flaky_order(ctx: SetupContext) -> Setup:
    """Stages a conversion cache that makes results depend on call order."""
    return stage(ctx, build_order(ctx.rng))


@kit.setup
def flaky_clock(ctx: SetupContext) -> Setup:
    """Stages SLA code that reads the wall clock instead of the `now` it is given."""
    return stage(ctx, build_clock(ctx.rng))
