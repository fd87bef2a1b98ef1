"""Drives `saas_sim.adapters.gym` with gymnasium's own code; runs in the gymnasium venv (SAAS_SIM_GYM_PYTHON).

    python gym_drive.py TMP_DIR

Runs every check below and prints one JSON object, `{check name: "ok" or the failure's
traceback}`; tests/adapters/test_gym_ecosystem.py asserts each is "ok". The repository
root must be on PYTHONPATH (the notes test domain lives in tests/).
"""

from __future__ import annotations

import json
import sys
import threading
import traceback
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium.utils.env_checker import check_env, data_equivalence

from saas_sim.adapters.gym import SaasSimEnv, TextSpace, ToolCallSpace, env_id, register_all
from saas_sim.errors import HarnessError
from saas_sim.scenarios.templating import render
from tests.runtime.notes_domain import DOMAIN

FIXTURES = Path(__file__).resolve().parents[1] / "runtime" / "fixtures"
NOTES = {"scenario_dirs": [str(FIXTURES / "scenarios")], "seeds_dirs": [str(FIXTURES / "seeds")], "domains": [DOMAIN]}
CHECKED = ["crm/advance-qualified-deal", "support/refund-damaged-item", "notes/archive-and-follow-up"]
CHECKS: dict[str, Callable[[Path], None]] = {}


def check(fn: Callable[[Path], None]) -> Callable[[Path], None]:
    CHECKS[fn.__name__] = fn
    return fn


def latest_id(scenario: str) -> str:
    """The registered id of a scenario's latest version (a version bump changes it, so it is never pinned)."""
    version = SaasSimEnv(scenario, **NOTES)
    try:
        ref = version._scenario  # the id@version the env resolved
    finally:
        version.close()
    return env_id(scenario, int(ref.rsplit("@", 1)[1]))


def make(scenario: str) -> gym.Env[str, str]:
    """The registered env of a scenario's latest version, through `gym.make`."""
    return gym.make(latest_id(scenario))


def play_oracle(env: gym.Env[str, str], seed: int) -> tuple[float, bool, bool, dict[str, Any]]:
    """Plays the scenario's oracle as JSON-text actions, then submits; returns the last step's reward and flags."""
    _, info = env.reset(seed=seed)
    episode = env.unwrapped._session.episode  # the oracle needs the task's bindings
    assert episode is not None
    bound = dict(episode.task.bindings)
    for step in episode.task.scenario.spec.oracle:
        obs, reward, terminated, truncated, info = env.step(json.dumps({"tool": step.tool,
                                                                          "args": render(step.args, bound)}))
        answer = json.loads(obs)
        assert answer["ok"], obs
        if step.save_as:
            bound[step.save_as] = answer["value"]
        if terminated or truncated:
            return float(reward), terminated, truncated, info
    _, reward, terminated, truncated, info = env.step({"tool": "submit", "args": {}})
    return float(reward), terminated, truncated, info


@check
def registers_one_versioned_id_per_scenario(tmp: Path) -> None:
    ids = register_all(**NOTES)
    assert latest_id("crm/advance-qualified-deal") in ids, ids
    assert "saas_sim/notes-flaky-archive-v2" in ids, ids  # the scenario file's version 2
    assert len(ids) == len(set(ids)) and all(gym.spec(i).max_episode_steps for i in ids)


@check
def check_env_passes_for_crm_support_and_notes(tmp: Path) -> None:
    for scenario in CHECKED:
        env = make(scenario)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped)
        env.close()
        assert not caught, f"{scenario}: {[str(w.message) for w in caught]}"


@check
def same_seed_gives_identical_observation_and_info(tmp: Path) -> None:
    for scenario in CHECKED:
        env, other = make(scenario), make(scenario)
        first, again, fresh = env.reset(seed=7), env.reset(seed=7), other.reset(seed=7)
        assert data_equivalence(first, again, exact=True) and data_equivalence(first, fresh, exact=True)
        assert first[1]["seed"] == 7 and first[1]["tools"] and first[1]["world_hash"]
        assert env.reset(seed=8)[0] != first[0], scenario  # another seed, another task
        # Unseeded resets after a seeded one repeat too: the task seed comes from np_random.
        env.reset(seed=3)
        drawn = env.reset()
        env.reset(seed=3)
        assert data_equivalence(drawn, env.reset(), exact=True)
        env.close()
        other.close()


@check
def the_oracle_earns_its_score_at_termination(tmp: Path) -> None:
    for scenario in CHECKED:
        env = make(scenario)
        reward, terminated, truncated, info = play_oracle(env, seed=2)
        assert (reward, terminated, truncated) == (1.0, True, False), (scenario, reward, info)
        assert info["attribution"] == "success" and all(v == 1.0 for v in info["checks"].values()), info
        assert info["grade"]["score"] == 1.0
        # After the end, a step is an observation with no second reward.
        obs, reward2, terminated2, _, _ = env.step('{"tool": "submit"}')
        assert reward2 == 0.0 and terminated2 and json.loads(obs)["error"]["code"] == "episode_closed"
        env.close()


@check
def rewards_are_zero_until_the_episode_ends(tmp: Path) -> None:
    env = make("notes/archive-and-follow-up")
    env.reset(seed=1)
    obs, reward, terminated, truncated, step_info = env.step('{"tool": "notes.list_notes", "args": {}}')
    assert (reward, terminated, truncated) == (0.0, False, False) and json.loads(obs)["ok"]
    assert step_info["step"] == 0 and step_info["call_id"] == "auto:0" and "grade" not in step_info
    obs, reward, terminated, _, step_info = env.step({"tool": "submit"})
    assert terminated and reward == step_info["grade"]["score"] == 0.25  # the scenario's no-op score
    env.close()


BAD_ACTIONS: list[Any] = [
    "not json", "[]", "{}", "null", "42", '"text"', "{\"tool\": 5}", "é ü ß 中文", b"\xff\xfe", None, 42, 1.5, [1, 2],
    {"tool": "nope.nothing"}, {"tool": "crm.get_deal"}, {"tool": "notes.get_note", "args": "{not json"},
    {"tool": "notes.get_note", "args": {"note_id": 12}}, {"tool": "notes.get_note", "args": {"bogus": True}},
    {"tool": "notes.get_note", "args": [1]}, {"tool": "notes.get_note", "args": {"note_id": {1, 2}}},
    {"tool": "notes.get_note", "args": {"note_id": "nt_000001"}, "call_id": 5},
    {"tool": "notes.get_note", "args": {"note_id": "nt_000001"}, "call_id": "auto:3"},
    {"name": "notes__get_note", "arguments": '{"note_id": 1e999}'}, {"function": "x"}, {"tool": None},
    {"tool": "notes.get_note", "args": {"note_id": "x" * 30000}},
    # A model's text nested past json.loads' stack (it raised RecursionError out of step), and a deep object in it.
    "[" * 100_000, '{"tool": "notes.get_note", "args": ' + '{"a": ' * 50_000 + "1" + "}" * 50_001,
]


@check
def bad_actions_are_typed_error_observations(tmp: Path) -> None:
    env = make("notes/archive-and-follow-up")
    raw = env.unwrapped  # more bad actions than the TimeLimit allows steps (the next check covers it)
    raw.reset(seed=4)
    codes = []
    for action in BAD_ACTIONS:
        obs, reward, terminated, truncated, info = raw.step(action)
        answer = json.loads(obs)
        assert answer["ok"] is False and answer["error"]["code"] and answer["error"]["message"], (action, obs)
        assert info["error"] == answer["error"] and reward == 0.0 and not terminated and not truncated, action
        codes.append(answer["error"]["code"])
    assert set(codes) == {"invalid_argument", "unknown_tool"}, codes
    env.close()


@check
def malformed_actions_are_bounded_by_the_registered_time_limit(tmp: Path) -> None:
    env = make("notes/archive-and-follow-up")
    _, info = env.reset(seed=4)
    flags = [env.step("not json")[2:4] for _ in range(info["max_steps"])]
    assert flags[-1] == (False, True) and not any(any(f) for f in flags[:-1]), flags
    env.close()


@check
def openai_shaped_calls_and_wire_names_are_accepted(tmp: Path) -> None:
    env = make("notes/archive-and-follow-up")
    env.reset(seed=4)
    for action in ({"name": "notes__list_notes", "arguments": "{}"},
                   {"type": "function", "function": {"name": "notes.list_notes", "arguments": "{}"}},
                   '{"tool": "notes.list_notes", "args": "{}", "call_id": "c-1"}'):
        obs, *_ = env.step(action)
        assert json.loads(obs)["ok"], (action, obs)
    env.close()


@check
def the_step_limit_truncates_and_grades(tmp: Path) -> None:
    env = make("notes/archive-and-follow-up")
    _, info = env.reset(seed=1)
    for i in range(info["max_steps"]):
        _, reward, terminated, truncated, step_info = env.step('{"tool": "notes.list_notes"}')
        if i < info["max_steps"] - 1:
            assert not (terminated or truncated), i
    assert truncated and not terminated and step_info["attribution"] == "step_limit", step_info
    assert reward == step_info["grade"]["score"]
    env.close()


@check
def the_action_space_samples_valid_seeded_tool_calls(tmp: Path) -> None:
    env = make("crm/advance-qualified-deal")
    _, info = env.reset(seed=0)
    space = env.action_space
    assert isinstance(space, ToolCallSpace)
    space.seed(11)
    draws = [space.sample() for _ in range(40)]
    space.seed(11)
    assert draws == [space.sample() for _ in range(40)]
    for text in draws:
        call = json.loads(text)
        assert call["tool"] in info["tool_names"] and isinstance(call["args"], dict), text
        assert text in space
        obs, *_ = env.step(text)
        json.loads(obs)
    text_space = TextSpace(seed=1)
    assert all(s in text_space for s in ['{"a": 1}', "mit Grüßen", "", "a b"]) and 5 not in text_space
    assert isinstance(text_space.sample(), str) and text_space.sample() in env.observation_space
    env.close()


@check
def a_sync_vector_env_steps_several_episodes(tmp: Path) -> None:
    envs = gym.make_vec(env_id("notes/archive-and-follow-up", 1), num_envs=2, vectorization_mode="sync")
    observations, infos = envs.reset(seed=5)
    assert len(observations) == 2 and list(infos["seed"]) == [5, 6], infos["seed"]
    actions = ('{"tool": "notes.list_notes"}', '{"tool": "submit"}')
    observations, rewards, terminated, truncated, infos = envs.step(actions)
    assert json.loads(observations[0])["ok"] and list(terminated) == [False, True], terminated
    assert list(rewards) == [0.0, 0.25] and not any(truncated)
    envs.close()


@check
def reset_options_switch_scenario(tmp: Path) -> None:
    env = make("notes/archive-and-follow-up")
    _, info = env.reset(seed=1, options={"scenario": "notes/flaky-archive"})
    assert info["scenario"] == "notes/flaky-archive@2", info
    _, info = env.reset(seed=1, options={})
    assert info["scenario"] == "notes/flaky-archive@2"  # the last scenario stays until another is named
    env.close()


@check
def a_store_url_keeps_the_log_on_disk(tmp: Path) -> None:
    db = tmp / "gym-events.db"
    env = SaasSimEnv("notes/archive-and-follow-up", store_url=f"sqlite+aiosqlite:///{db}", **NOTES)
    env.reset(seed=1)
    env.step('{"tool": "notes.list_notes"}')
    env.close()
    assert db.exists() and db.stat().st_size > 0


@check
def close_is_idempotent_and_stops_the_loop_thread(tmp: Path) -> None:
    before = {t.ident for t in threading.enumerate() if t.name == "saas-sim-sync-loop"}
    env = make("notes/archive-and-follow-up")
    env.reset(seed=1)
    env.close()
    env.close()
    after = {t.ident for t in threading.enumerate() if t.name == "saas-sim-sync-loop"}
    assert after <= before, "a closed env left its loop thread running"


@check
def a_harness_error_raises_and_is_never_a_reward(tmp: Path) -> None:
    env = SaasSimEnv("notes/buggy", scenario_dirs=[str(FIXTURES / "broken")], seeds_dirs=NOTES["seeds_dirs"],
                     domains=[DOMAIN], builtin=False)
    env.reset(seed=1)
    try:
        env.step('{"tool": "notes.explode"}')
    except HarnessError:
        pass
    else:
        raise AssertionError("a harness bug became an observation")
    finally:
        env.close()


def main() -> None:
    tmp = Path(sys.argv[1])
    report: dict[str, str] = {"gymnasium": metadata.version("gymnasium")}
    for name, fn in CHECKS.items():
        try:
            fn(tmp)
        except Exception:
            report[name] = traceback.format_exc()
        else:
            report[name] = "ok"
    print(json.dumps(report))


if __name__ == "__main__":
    main()
