"""Tree paths: one normalization for every tool, generator and setup; nothing leaves the tree."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saas_sim.domains.ide.paths import MAX_DEPTH, is_tree_path, normalize_path, parent_dirs
from saas_sim.errors import ToolError


@pytest.mark.parametrize(("raw", "want"), [
    ("acme/billing/invoice.py", "acme/billing/invoice.py"),
    ("./acme//billing/", "acme/billing"),
    ("a/./b.py", "a/b.py"),
    ("ünïcode/名前.py", "ünïcode/名前.py"),
    ("with space/x.py", "with space/x.py"),
])
def test_normalize_accepts_relative_paths_and_drops_empty_and_dot_parts(raw: str, want: str) -> None:
    assert normalize_path(raw) == want
    assert is_tree_path(want)


@pytest.mark.parametrize("raw", [
    "../x", "a/../../x", "a/..", "/abs", "a\x00b", "a\\b", "a\nb", "a\tb", "\x7f", "\ud800", " lead/x",
    "x/trail ", "", ".", "./", "/".join(["p"] * (MAX_DEPTH + 1)), "n" * 129, "a/" * 300,
])
def test_normalize_refuses_escapes_control_characters_and_oversized_paths(raw: str) -> None:
    with pytest.raises(ToolError) as info:
        normalize_path(raw, "dst")
    assert info.value.code == "invalid_argument"
    assert info.value.details["fields"] == ["dst"]


def test_a_name_past_the_file_systems_255_bytes_is_refused_though_it_has_few_characters() -> None:
    # 64 emoji are 256 bytes in UTF-8: such a file was created, and then every run_tests and run_python
    # failed silently (the sandbox could not write the tree copy), with nothing to say why.
    with pytest.raises(ToolError, match="255 bytes") as info:
        normalize_path("tests/" + "\U0001f600" * 64 + ".py")
    assert info.value.details["fields"] == ["path"]
    assert normalize_path("\u00e9" * 127) == "\u00e9" * 127  # 254 bytes


def test_the_root_is_accepted_only_where_asked() -> None:
    assert normalize_path("", allow_root=True) == ""
    assert normalize_path("./", allow_root=True) == ""
    with pytest.raises(ToolError):
        normalize_path("/", allow_root=True)


def test_parent_dirs_lists_enclosing_folders_outermost_first() -> None:
    assert parent_dirs("a/b/c.py") == ["a", "a/b"]
    assert parent_dirs("c.py") == []


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=80))
def test_any_text_either_normalizes_to_a_tree_path_or_is_an_invalid_argument(raw: str) -> None:
    code: str | None = None
    path = ""
    try:
        path = normalize_path(raw)
    except ToolError as exc:
        code = exc.code
    if code is not None:
        assert code == "invalid_argument"
        return
    assert is_tree_path(path)
    assert normalize_path(path) == path  # idempotent
    parts = path.split("/")
    assert ".." not in parts
    assert "" not in parts
    assert "." not in parts
    assert not path.startswith("/")
    path.encode("utf-8")  # always encodable


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["a", "b", "..", ".", "", "c.py"]), max_size=8))
def test_joined_parts_with_dot_dot_never_normalize(parts: list[str]) -> None:
    raw = "/".join(parts)
    if ".." in parts:
        with pytest.raises(ToolError):
            normalize_path(raw)
