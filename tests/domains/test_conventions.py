"""One agent-facing convention across domains (docs/conventions.md), checked on every domain there is.

An agent that learned one domain must find the next one familiar: every list tool pages the same way
(`PageArgs` in, `{items, next_cursor, total}` out, 20 items by default, an opaque cursor bound to the
call's filters), and every error code carries the same detail keys (`ERROR_DETAIL_KEYS`), whichever
domain raised it. The built-in domains and the test domain are all held to it; a new domain is held
to it the moment it is registered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from saas_sim.core.domain import Domain
from saas_sim.core.paging import DEFAULT_PAGE_SIZE, Page, PageArgs
from saas_sim.core.tool_errors import ERROR_DETAIL_KEYS
from saas_sim.core.tools import ToolSpec
from saas_sim.domains import builtin_domains
from saas_sim.runtime.agents import RandomAgent
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.scenarios.loader import Scenario
from tests.runtime.notes_domain import DOMAIN as NOTES

DOMAINS: dict[str, Domain] = {**builtin_domains(), NOTES.name: NOTES}

LISTING_VERBS = ("list_", "search_")
"""A tool named `<domain>.list_*` or `<domain>.search_*` returns records, so it pages."""

NOT_PAGED: dict[str, str] = {
    "ide.list_dir": "a capped tree of one folder (depth-limited), not a list of records",
    "ide.search_code": "capped per-file hit counts; above the cap it asks to narrow the query",
}
"""Listing-like tools that are not record lists, each with the reason; anything else that lists must page."""


def _specs() -> Iterator[tuple[str, ToolSpec]]:
    for domain in DOMAINS.values():
        for spec in domain.tools:
            yield spec.name, spec


def _listing(spec: ToolSpec) -> bool:
    verb = spec.name.split(".", 1)[1]
    return verb.startswith(LISTING_VERBS) and spec.name not in NOT_PAGED


def _paged(spec: ToolSpec) -> bool:
    return issubclass(spec.result_model, Page)


LISTERS = [(n, s) for n, s in _specs() if _listing(s) or _paged(s)]


@pytest.mark.parametrize(("name", "spec"), LISTERS, ids=[n for n, _ in LISTERS])
def test_every_listing_tool_pages_with_the_core_page(name: str, spec: ToolSpec) -> None:
    assert _paged(spec), f"{name} lists records but returns {spec.result_model.__name__}, not a core Page"
    assert issubclass(spec.args_model, PageArgs), f"{name} takes {spec.args_model.__name__}, not core PageArgs"
    props = spec.result_model.model_json_schema()["properties"]
    assert list(props) == ["items", "next_cursor", "total"], f"{name}: page fields {list(props)}"
    assert spec.args_model.model_fields["limit"].default == DEFAULT_PAGE_SIZE


def test_the_record_domains_page_their_lists() -> None:
    # Guards the test above against passing vacuously (every spec skipped).
    for name in ("crm", "support", "notes"):
        assert sum(_paged(s) for s in DOMAINS[name].tools) >= 1, name


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    async with Environment("sqlite+aiosqlite:///:memory:", domains=[NOTES]) as e:
        yield e


def _first_scenarios(env: Environment) -> list[Scenario]:
    seen: dict[str, Scenario] = {}
    for scenario in env.scenarios("*"):
        seen.setdefault(scenario.spec.id.split("/", 1)[0], scenario)
    return [seen[k] for k in sorted(seen)]


def _free_paged(episode: Episode) -> list[ToolSpec]:
    """Paged tools the episode may call with paging arguments alone."""
    out = []
    for spec in episode.tools:
        required = spec.args_model.model_json_schema().get("required", [])
        if _paged(spec) and not required:
            out.append(spec)
    return out


def _ids(page: dict[str, Any]) -> list[str]:
    return [str(item.get("id", item)) if isinstance(item, dict) else str(item) for item in page["items"]]


async def test_cursors_walk_every_list_once_and_refuse_other_queries(env: Environment) -> None:
    walked = 0
    for scenario in _first_scenarios(env):
        probe = await env.start(scenario, 0)
        paged = _free_paged(probe)
        await probe.close()
        for spec in paged:
            episode = await env.start(scenario, 0)  # one episode per list: the walk fits any step budget
            try:
                walked += await _walk(episode, spec)
            finally:
                await episode.close()
    assert walked >= 10


async def _walk(episode: Episode, spec: ToolSpec) -> bool:
    """Walks a list's first pages; False for a search that needs a filter to list anything."""
    first = await episode.call(spec.name, {"limit": 2})
    if not first.ok and first.error is not None and first.error.code == "invalid_argument":
        assert first.error.details["fields"], spec.name  # it says which filters it needs
        return False
    assert first.ok, (spec.name, first.error)
    page, seen, pages = first.value, [], 0
    while True:
        seen += _ids(page)
        pages += 1
        if page["next_cursor"] is None or pages == 4:
            break
        nxt = await episode.call(spec.name, {"limit": 2, "cursor": page["next_cursor"]})
        assert nxt.ok, (spec.name, nxt.error)
        assert nxt.value["total"] == first.value["total"], spec.name
        page = nxt.value
    assert len(seen) == len(set(seen)), f"{spec.name} repeated items across pages: {seen}"
    assert len(seen) == min(first.value["total"], 8), spec.name
    forged = await episode.call(spec.name, {"cursor": "not-a-cursor"})
    assert not forged.ok and forged.error is not None
    assert forged.error.code == "invalid_argument" and forged.error.details["fields"] == ["cursor"]
    other = _other_filters(spec)
    if other is not None and first.value["next_cursor"] is not None:
        moved = await episode.call(spec.name, {**other, "cursor": first.value["next_cursor"]})
        assert not moved.ok and moved.error is not None, f"{spec.name} took a cursor of another query"
        assert moved.error.details["fields"] == ["cursor"], spec.name
    return True


def _other_filters(spec: ToolSpec) -> dict[str, Any] | None:
    """Arguments that select another list than the default one: a text query, if the tool has one."""
    for name in ("query", "q", "text"):
        if name in spec.args_model.model_fields:
            return {name: "zz"}
    return None


def _unknown_id_calls(spec: ToolSpec, id_kinds: dict[str, str]) -> Iterator[dict[str, Any]]:
    """Calls naming an id of every kind the world allocates, in each required `*_id` argument."""
    schema = spec.args_model.model_json_schema()
    required = schema.get("required", [])
    for name in required:
        if not name.endswith("_id"):
            continue
        for prefix in sorted(id_kinds):
            args: dict[str, Any] = {n: "x" for n in required if n != name}
            args[name] = f"{prefix}_999999"
            yield args


def _check_details(where: str, error: Any) -> None:
    wanted = ERROR_DETAIL_KEYS.get(error.code)
    assert wanted is not None, f"{where}: unknown error code {error.code}"
    missing = wanted - set(error.details)
    assert not missing, f"{where}: {error.code} lacks detail keys {sorted(missing)}: {error.details}"
    if "fields" in wanted:
        assert isinstance(error.details["fields"], list), where
    if error.code == "not_found":
        assert isinstance(error.details["id"], str), where


async def test_every_error_carries_the_detail_keys_of_its_code(env: Environment) -> None:
    codes: dict[str, int] = {}
    id_kinds = {p: k for d in DOMAINS.values() for p, k in d.id_kinds.items()}
    for scenario in env.scenarios("*"):
        episode = await env.start(scenario, 0)
        try:
            await RandomAgent(0, calls=30).run(episode)
            for spec in episode.tools:
                for args in list(_unknown_id_calls(spec, id_kinds))[:4]:
                    await episode.call(spec.name, args)
            for step in episode.trajectory.steps:
                if step.error is not None:
                    error = _ErrorView.model_validate(step.error)
                    _check_details(f"{scenario.spec.id} step {step.index} {step.tool}", error)
                    codes[error.code] = codes.get(error.code, 0) + 1
        finally:
            await episode.close()
    # The sweep must have reached the codes it is about, or it proves nothing.
    assert {"invalid_argument", "not_found", "unknown_tool"} <= set(codes), codes


class _ErrorView(BaseModel):
    code: str
    message: str
    retryable: bool
    details: dict[str, Any]
