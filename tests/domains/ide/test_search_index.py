"""The IDE's literal-search prefilter (a text index over blobs) never changes what search_code returns."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saas_sim.core.indexes import prewarm
from saas_sim.domains.ide import DOMAIN, tools_search
from tests.domains.ide.tree_fixtures import IdeRunner, world

# Letters RE2 folds onto ASCII ones when ignoring case (long s, Kelvin sign), and others that fold oddly.
ALPHABET = "abcsSkK \n_.(\u017f\u212a\u00df\u00c9\u00e9"
texts = st.text(alphabet=ALPHABET, max_size=40)


def _result(runner: IdeRunner, **args: Any) -> Any:
    try:
        return runner.call("ide.search_code", **args).model_dump(mode="json")
    except Exception as exc:  # the unfiltered search must fail the same way
        return repr(exc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    files=st.dictionaries(st.sampled_from(["a.py", "b.txt", "c/d.md", "e.py"]), texts, min_size=1),
    query=st.text(alphabet=ALPHABET.replace("\n", ""), min_size=1, max_size=3),
    case_sensitive=st.booleans(),
    warm=st.booleans(),
)
def test_search_code_with_the_prefilter_equals_it_without(
    files: dict[str, str], query: str, case_sensitive: bool, warm: bool, monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = world(files)
    if warm:
        prewarm(state, DOMAIN.indexes)
    runner = IdeRunner(state)
    runner.call("ide.create_file", path="new.txt", content=f"x{query.upper()}y\n")  # a version the episode made
    got = _result(runner, query=query, case_sensitive=case_sensitive)
    with monkeypatch.context() as patch:
        patch.setattr(tools_search, "blobs_with_literal", lambda *_a, **_k: None)
        expected = _result(runner, query=query, case_sensitive=case_sensitive)
    assert got == expected


def test_find_symbol_reads_only_files_that_hold_the_name() -> None:
    runner = IdeRunner()
    got = runner.call("ide.find_symbol", name="round_cents")
    assert {h.path for h in got.items} == {"acme/billing/invoice.py", "acme/utils/money.py"}
