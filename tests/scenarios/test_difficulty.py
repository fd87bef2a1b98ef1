"""Difficulty specs in scenario files (validation) and their resolution into setup params, hints, mess and faults."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pydantic import ValidationError

from saas_sim.errors import UsageError
from saas_sim.scenarios.difficulty import FAULT_PROFILES, choose, parse_request, resolve, scaled_profile
from saas_sim.scenarios.model import FaultProfile, ScenarioFile
from saas_sim.scenarios.profiles import WorldProfile
from tests.runtime.notes_domain import DOMAIN


def _file(difficulty: Any = None, *, setup: Any = None, hints: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "notes/x", "version": 1, "description": "d", "world": "notes-small",
        "setup": setup or {"fn": "notes.pick_note", "params": {"distractors": 3, "depth": 1}},
        "instructions": "Do it.", "tools": ["notes.get_note"],
        "checks": [{"name": "g", "fn": "notes.note_archived"}], "scope": {"allow": []}, "oracle": [],
        "noop_score": 0.0,
    }
    if difficulty is not None:
        data["difficulty"] = difficulty
    if hints is not None:
        data["hints"] = hints
    data.update(extra)
    return data


KNOBS = {"level": "medium", "knobs": {
    "distractors": {"param": "distractors", "easy": 0, "medium": 3, "hard": 8},
    "depth": {"param": "depth", "easy": 1, "medium": 1, "hard": 3},
}}
HINTS = ["one", "two", "three"]


def spec(difficulty: Any = KNOBS, **kw: Any) -> ScenarioFile:
    return ScenarioFile.model_validate(_file(difficulty, **kw))


# --- the model ----------------------------------------------------------------------------------


def test_a_knob_spec_in_the_new_shape_validates() -> None:
    s = spec(hints=HINTS)
    assert s.difficulty.level == "medium"
    assert s.difficulty.knobs["distractors"].at("hard") == 8
    assert s.hints == HINTS


@pytest.mark.parametrize(("knobs", "message"), [
    ({"distractors": {"param": "distractors", "easy": 0, "medium": 4, "hard": 8}}, "says 3"),
    ({"distractors": {"param": "distractors", "easy": 0, "medium": 3.0, "hard": 8}}, "says 3"),
    ({"distractors": {"param": "nope", "easy": 0, "medium": 3, "hard": 8}}, "not a key of setup.params"),
    ({"distractors": {"easy": 0, "medium": 3, "hard": 8}}, "give it a `param`"),
    ({"mess": {"param": "distractors", "easy": 0, "medium": 1, "hard": 2}}, "takes no `param`"),
    ({"mess": {"easy": 0, "medium": 1.5, "hard": 2}}, "must be 1"),
    ({"faults": {"easy": "none", "medium": "none", "hard": "brutal"}}, "faults is one of"),
    ({"specificity": {"easy": 2, "medium": 1, "hard": 0}}, "must be 0"),
    ({"specificity": {"easy": 9, "medium": 0, "hard": 0}}, "the file has 3"),
    ({"crowds": {"param": "distractors", "easy": 0, "medium": 3, "hard": 8}}, "knobs"),
    ({"distractors": {"param": "distractors", "easy": 0, "medium": 3}}, "hard"),
])
def test_a_bad_knob_spec_is_refused_with_the_reason(knobs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        spec({"level": "medium", "knobs": knobs}, hints=HINTS)


def test_a_knob_on_a_later_setup_step_is_named_by_function_or_position() -> None:
    steps = [{"fn": "notes.stage_note", "params": {"title": "A"}},
             {"fn": "notes.pick_titled", "params": {"title": "{staged.title}", "distractors": 2}}]
    for param in ("notes.pick_titled.distractors", "1.distractors"):
        knobs = {"distractors": {"param": param, "easy": 0, "medium": 2, "hard": 5}}
        s = spec({"level": "medium", "knobs": knobs}, setup=steps)
        assert resolve(s, "hard").setup_params == ({"title": "A"}, {"title": "{staged.title}", "distractors": 5})
    with pytest.raises(ValidationError, match="several setup steps"):
        spec({"level": "medium", "knobs": {"distractors": {"param": "distractors", "easy": 0, "medium": 2,
                                                           "hard": 5}}}, setup=steps)


def test_an_old_style_knob_mapping_of_plain_values_is_refused_with_the_new_shape() -> None:
    with pytest.raises(ValidationError, match=r"knobs \['vip_agents'\] have plain values.*docs/difficulty.md"):
        spec({"level": "hard", "knobs": {"vip_agents": 3}})


def test_hints_may_sit_inside_difficulty_but_not_in_both_places() -> None:
    assert spec({**KNOBS, "hints": HINTS}).hints == HINTS
    with pytest.raises(ValidationError, match="twice"):
        spec({**KNOBS, "hints": HINTS}, hints=["x"])


# --- resolution ---------------------------------------------------------------------------------


def test_the_files_own_level_changes_nothing() -> None:
    s = spec(hints=HINTS)
    d = resolve(s)
    assert d.is_default and d.level == "medium"
    assert d.setup_params == ({"distractors": 3, "depth": 1},)
    assert d.hints == () and d.mess == 1.0 and d.faults is None
    assert resolve(s, "medium") == d


def test_each_level_sets_its_knob_values_hints_mess_and_faults() -> None:
    s = spec(hints=HINTS)
    easy, hard = resolve(s, "easy"), resolve(s, "hard")
    assert easy.setup_params == ({"distractors": 0, "depth": 1},)
    assert easy.hints == ("one", "two")  # one level easier: half, rounded up
    assert easy.mess == 0.75 and easy.faults is None
    assert easy.changed == {"distractors": 0, "specificity": 2, "mess": 0.75}
    assert hard.setup_params == ({"distractors": 8, "depth": 3},)
    assert hard.hints == () and hard.mess == 1.5 and hard.faults == FAULT_PROFILES["mild"]
    assert hard.changed == {"distractors": 8, "depth": 3, "mess": 1.5, "faults": "mild"}


def test_two_levels_easier_shows_every_hint_and_half_the_mess() -> None:
    s = spec({**KNOBS, "level": "hard", "knobs": {
        "distractors": {"param": "distractors", "easy": 0, "medium": 1, "hard": 3}}}, hints=HINTS)
    easy = resolve(s, "easy")
    assert easy.hints == tuple(HINTS) and easy.mess == 0.5


def test_a_file_with_faults_gets_harsher_ones_above_and_none_below() -> None:
    faults = {"read": {"rate_limited": 0.1}}
    s = spec(faults=faults)
    assert resolve(s).faults == FaultProfile.model_validate(faults)
    assert resolve(s, "hard").faults == FAULT_PROFILES["harsh"]
    assert resolve(s, "easy").faults is None


def test_overrides_replace_the_levels_values() -> None:
    s = spec(hints=HINTS)
    d = resolve(s, "hard", {"distractors": 2, "faults": "none", "specificity": 3})
    assert d.setup_params == ({"distractors": 2, "depth": 3},)
    assert d.faults is None and d.hints == tuple(HINTS)


def test_the_recorded_changes_rebuild_the_same_difficulty() -> None:
    s = spec(hints=HINTS)
    for level in ("easy", "hard"):
        d = resolve(s, level, {"distractors": 5})
        again = resolve(s, None, d.changed)
        assert dataclasses.replace(again, level=d.level) == d


@pytest.mark.parametrize(("level", "overrides", "message"), [
    ("brutal", {}, "unknown difficulty level"),
    (None, {"crowds": 2}, "unknown difficulty knob 'crowds'"),
    (None, {"entities": 2}, "has no 'entities' knob"),
    (None, {"faults": "brutal"}, "faults is one of"),
    (None, {"mess": -1}, "mess is a scale"),
    (None, {"specificity": 4}, "more hints"),
])
def test_bad_levels_knobs_and_values_are_clear_errors(level: str | None, overrides: dict[str, Any],
                                                       message: str) -> None:
    with pytest.raises(UsageError, match=message):
        resolve(spec(hints=HINTS), level, overrides)


@pytest.mark.parametrize("value", [10**9, 33, -1, 2.5, True, "4", None, [1]])
def test_a_setup_knob_takes_an_int_up_to_four_times_its_largest_declared_value(value: Any) -> None:
    # distractors=10**9 reached the setup, which staged records on the server's event loop until it was
    # killed: one POST /episodes (or OpenEnv reset) hung every episode the server held.
    with pytest.raises(UsageError, match=r"distractors is an int from 0 to 32"):
        resolve(spec(), None, {"distractors": value})
    assert resolve(spec(), None, {"distractors": 32}).setup_params == ({"distractors": 32, "depth": 1},)
    assert resolve(spec(), None, {"distractors": 0}).setup_params == ({"distractors": 0, "depth": 1},)


def test_an_undeclared_setup_knob_can_be_skipped_for_a_prompt_set() -> None:
    d = resolve(spec(), "hard", {"entities": 4}, ignore_undeclared=True)
    assert "entities" not in d.knobs


def test_command_line_items_parse_into_a_level_and_typed_values() -> None:
    assert parse_request(["hard", "distractors=2", "mess=0.5,faults=mild"]) == {
        "level": "hard", "distractors": 2, "mess": 0.5, "faults": "mild"}
    with pytest.raises(UsageError, match="given twice"):
        parse_request(["hard", "easy"])
    with pytest.raises(UsageError, match="KNOB=VALUE"):
        parse_request(["harder"])


def test_every_request_form_resolves_alike() -> None:
    s = spec()
    want = resolve(s, "hard", {"distractors": 2})
    assert choose(s, ["hard", "distractors=2"]) == want
    assert choose(s, {"level": "hard", "distractors": 2}) == want
    assert choose(s, want) is want
    assert choose(s, "hard") == resolve(s, "hard")
    assert choose(s, None) == resolve(s)


def test_a_mess_scale_scales_only_the_domains_declared_rates_and_caps_them() -> None:
    profile = WorldProfile(name="p", domains={"notes": {"notes": 12, "typo_rate": 0.3, "html_rate": 0.8}})
    domains = {"notes": dataclasses.replace(DOMAIN, mess_params=("typo_rate", "html_rate"))}
    scaled = scaled_profile(profile, 1.5, domains)
    assert scaled.name == "p~mess1.5"
    assert scaled.domains["notes"] == {"notes": 12, "typo_rate": 0.45, "html_rate": 1.0}
    assert scaled_profile(profile, 1, domains) is profile
    assert scaled_profile(profile, 0, domains).domains["notes"]["typo_rate"] == 0.0
