"""Serves episodes over HTTP (JSON), for agents and trainers in other processes or languages.

    app = create_app(Environment())      # then: uvicorn, or `saas-sim serve`

| method and path | answer |
| --- | --- |
| `GET /health` | 200 `{status, episodes, max_episodes}` once the app serves (also `/healthz`) |
| `GET /scenarios` | 200 `[{scenario, description, world, tools, max_steps}]` |
| `GET /scenarios/{ref}/tools?flavor=` | 200 the scenario's tools, with an ETag (304 on If-None-Match) |
| `POST /episodes` | 201 `{episode_id, scenario, seed, instructions, tools, tools_url, tools_etag, ...}`; 404, 429 |
| `GET /episodes?limit=&cursor=` | 200 a page of the live episodes, with their idle time and expiry |
| `GET /episodes/{id}` | 200 `{steps, done, truncated, valid, state_hash, sim_time, ...}` |
| `GET /episodes/{id}/tools?flavor=` | 200 the allowed tools as `openai`, `anthropic` or `mcp` schemas |
| `POST /episodes/{id}/calls` | 200 the observation `{ok, value | error, call_id, step}`; 404, 409, 500 |
| `POST /episodes/{id}/grade` | 200 the `Grade` |
| `POST /episodes/{id}/fork` | 201 a new episode (`parent` set) |
| `GET /episodes/{id}/trajectory` | 200 `application/x-ndjson` |
| `DELETE /episodes/{id}` | 204; closes the episode and forgets it |
| `/episodes/{id}/mcp` | MCP (streamable HTTP) for that episode's tools, plus `submit` (saas_sim.adapters.mcp_http) |

A tool error is an *observation*: the call was made and recorded, so the
answer is 200 with `ok: false`. Only a harness bug answers 500
(`harness_error`), and it leaves the episode invalid (409 `episode_invalid`
for any further call). Calls on one episode are serialized by the episode;
different episodes run concurrently on the event loop.

Episodes another process wrote meanwhile (a second replica over the same
PostgreSQL) are detected: a call or grade on a stale copy drops it, resumes the
episode from the log and retries, and a retried `call_id` is answered once.

The app's lifespan opens the environment if it is not open yet (and then
closes it at shutdown), runs the idle-episode sweeper when `idle_ttl_s` is set,
and closes every live episode at shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeVar

from fastapi import Body, Depends, FastAPI, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from starlette.datastructures import State

from saas_sim.adapters._body_limit import MAX_BODY_BYTES, BodyLimitMiddleware
from saas_sim.adapters._error_responses import AsciiJSONResponse, validation_error
from saas_sim.adapters._fast_lane import FastLane, FastRoute, LaneFirstApp
from saas_sim.adapters._http_models import (
    CallRequest,
    EpisodeCreated,
    EpisodeStatus,
    ErrorEnvelope,
    ForkParent,
    ForkRequest,
    Health,
    LiveEpisodeInfo,
    LiveEpisodes,
    Observation,
    ScenarioInfo,
    StartEpisodeRequest,
    ToolSchemas,
)
from saas_sim.adapters._registry import ApiError, EpisodeRegistry
from saas_sim.adapters._tool_cache import Flavor, SchemaCache
from saas_sim.core.canonical import normalize
from saas_sim.core.conventions import CONVENTIONS
from saas_sim.errors import (
    ConcurrencyError,
    EpisodeInvalidError,
    HarnessError,
    InvalidCallIdError,
    SaasSimError,
    ScenarioError,
    ScenarioNotFoundError,
    UsageError,
)
from saas_sim.runtime.call_result import CallResult
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.grading import Grade
from saas_sim.runtime.trajectory import Trajectory
from saas_sim.scenarios.difficulty import choose

__all__ = ["create_app"]

log = logging.getLogger(__name__)

T = TypeVar("T")

STALE_RETRIES = 3
"""How often a call or grade reloads an episode another process moved on before it answers 409."""

NDJSON = "application/x-ndjson"
"""JSONL; the body is UTF-8 (strings keep non-ASCII text raw), said in the content type's charset."""


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorEnvelope} for code in codes}


# Dependencies are coroutines: FastAPI runs a plain `def` one in the thread pool on every request.
async def _registry(request: Request) -> EpisodeRegistry:
    registry: EpisodeRegistry = request.app.state.episodes
    return registry


async def _environment(request: Request) -> Environment:
    env: Environment = request.app.state.env
    return env


Episodes = Annotated[EpisodeRegistry, Depends(_registry)]
async def _schema_cache(request: Request) -> SchemaCache:
    cache: SchemaCache = request.app.state.tool_cache
    return cache


Env = Annotated[Environment, Depends(_environment)]
Schemas = Annotated[SchemaCache, Depends(_schema_cache)]


DEFAULT_IDLE_TTL_S = 900.0
"""How long an unused episode stays in memory by default (`saas-sim serve --idle-ttl`)."""


def create_app(env: Environment, *, max_episodes: int = 10_000, idle_ttl_s: float | None = DEFAULT_IDLE_TTL_S,
               openenv: bool = False, openenv_options: dict[str, Any] | None = None,
               max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """Builds the HTTP app serving episodes of `env`.

    Args:
        env: The environment. If it is not open when the app starts up, the
            app's lifespan opens it and closes it at shutdown; an environment
            the caller opened stays the caller's to close.
        max_episodes: How many episodes may be live at once; POST /episodes
            and fork answer 429 beyond it (with a Retry-After when a TTL is set).
        idle_ttl_s: Seconds an unused episode stays in memory (None: until deleted). An expired
            episode stays in the store and resumes on its next request.
        openenv: Also speak OpenEnv's protocol (`/ws`, `/reset`, `/step`, `/state`,
            `/schema`, `/metadata`, `/mcp`; see saas_sim.adapters.openenv). `/health`
            then answers OpenEnv's `{"status": "healthy", ...}`.
        openenv_options: Keyword arguments of `mount_openenv` (`max_sessions`,
            default `max_episodes`; `idle_ttl_s`, `default_scenario`, `max_frame_bytes`).
        max_body_bytes: The largest request body read; a larger one is answered 413
            `payload_too_large` (see saas_sim.adapters._body_limit).

    Returns:
        The FastAPI app. Its episode registry is `app.state.episodes`.

    Raises:
        ValueError: `max_episodes` is below 1 or `idle_ttl_s` is not positive.
    """
    app = LaneFirstApp(
        title="saas_sim",
        summary="Deterministic simulated SaaS backends for agent RL: episodes, tool calls, grades.",
        version=_version(),
        lifespan=_lifespan,
    )
    app.state.env = env
    app.state.episodes = EpisodeRegistry(max_episodes, resume=env.resume, idle_ttl_s=idle_ttl_s)
    app.state.tool_cache = SchemaCache()
    # Every HTTP request meets the body limit, then the lane, before FastAPI's middleware stack.
    app.front = BodyLimitMiddleware(FastLane(app.stack, _fast_routes()), max_body_bytes=max_body_bytes)
    app.add_exception_handler(ApiError, _api_error)  # type: ignore[arg-type]  # starlette types it loosely
    app.add_exception_handler(SaasSimError, _harness_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
    # uvicorn accepts connections only after the lifespan has opened the environment, so any
    # answer here means ready. `/healthz` stays for clients written against it.
    if openenv:
        from saas_sim.adapters.openenv import mount_openenv, openenv_health

        mount_openenv(app, env, app.state.episodes, **{"max_sessions": max_episodes, **(openenv_options or {})})
        app.add_api_route("/health", openenv_health, methods=["GET"], tags=["server"])
    else:
        app.add_api_route("/health", health, methods=["GET"], tags=["server"])
    app.add_api_route("/healthz", health, methods=["GET"], tags=["server"], include_in_schema=False)
    app.add_api_route("/conventions", conventions, methods=["GET"], tags=["server"],
                      response_class=PlainTextResponse)
    app.add_api_route("/scenarios", list_scenarios, methods=["GET"], tags=["scenarios"], responses=_errors(404))
    app.add_api_route("/scenarios/{scenario_ref:path}/tools", get_scenario_tools, methods=["GET"],
                      tags=["scenarios"], response_model=ToolSchemas,
                      responses={304: {"description": "Not modified (If-None-Match matched the ETag)."},
                                 **_errors(404)})
    app.add_api_route("/episodes", list_episodes, methods=["GET"], tags=["episodes"])
    app.add_api_route("/episodes", start_episode, methods=["POST"], tags=["episodes"], response_model=EpisodeCreated,
                      status_code=status.HTTP_201_CREATED, responses=_errors(404, 429, 500))
    app.add_api_route("/episodes/{episode_id}", get_episode, methods=["GET"], tags=["episodes"],
                      responses=_errors(404, 409))
    app.add_api_route("/episodes/{episode_id}/tools", get_tools, methods=["GET"], tags=["episodes"],
                      response_model=ToolSchemas, responses=_errors(404, 409))
    app.add_api_route("/episodes/{episode_id}/calls", call_tool, methods=["POST"], tags=["episodes"],
                      response_model=Observation, response_model_exclude_unset=True, responses=_errors(404, 409, 500))
    app.add_api_route("/episodes/{episode_id}/grade", grade_episode, methods=["POST"], tags=["episodes"],
                      responses=_errors(404, 409, 500))
    app.add_api_route("/episodes/{episode_id}/fork", fork_episode, methods=["POST"], tags=["episodes"],
                      response_model=EpisodeCreated, status_code=status.HTTP_201_CREATED,
                      responses=_errors(404, 409, 429, 500))
    app.add_api_route("/episodes/{episode_id}/trajectory", get_trajectory, methods=["GET"], tags=["episodes"],
                      response_class=Response,
                      responses={200: {"content": {NDJSON: {}}, "description": "JSONL: header, steps, footer."},
                                 **_errors(404, 409)})
    app.add_api_route("/episodes/{episode_id}", delete_episode, methods=["DELETE"], tags=["episodes"],
                      status_code=status.HTTP_204_NO_CONTENT, response_class=Response, responses=_errors(404, 500))
    from saas_sim.adapters.mcp_http import mount_episode_mcp  # here: importing the SDK costs start-up time

    mount_episode_mcp(app, app.state.episodes)  # MCP at /episodes/{id}/mcp; its task group runs in _lifespan
    return app


def _version() -> str:
    from saas_sim import __version__

    return __version__


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    env: Environment = app.state.env
    registry: EpisodeRegistry = app.state.episodes
    try:
        _ = env.store
        owned = False
    except UsageError:  # not open yet: the app opens it, so the app closes it
        await env.open()
        owned = True
    sweeper = asyncio.create_task(registry.sweep(), name="saas-sim idle-episode sweeper")
    try:
        async with app.state.episode_mcp.running():  # the MCP endpoint's task group, while the app serves
            yield
    finally:
        sweeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sweeper
        openenv = getattr(app.state, "openenv", None)
        if openenv is not None:  # its sessions end their episodes first
            await openenv.sessions.close_all()
        await registry.close_all()
        if owned:
            await env.close()


async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
    return AsciiJSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _harness_error(request: Request, exc: SaasSimError) -> JSONResponse:
    """Any other saas_sim error (a store failure while grading, say) is the harness's, never the caller's."""
    log.error("%s %s failed: %r", request.method, request.url.path, exc)
    return AsciiJSONResponse(ApiError(500, "harness_error", str(exc)).body(), status_code=500)


# endpoints ---------------------------------------------------------------------------------------
async def health(episodes: Episodes) -> Health:
    """Answers 200 once the server is ready to serve (the environment is open)."""
    return Health(episodes=len(episodes), max_episodes=episodes.max_episodes)


async def conventions() -> PlainTextResponse:
    """How every product's tools page, fail and retry (Markdown): text to put in front of an agent."""
    return PlainTextResponse(CONVENTIONS, media_type="text/markdown; charset=utf-8")


async def list_scenarios(
    env: Env, pattern: Annotated[str, Query(description="A glob over scenario ids.")] = "*"
) -> list[ScenarioInfo]:
    """Lists the scenarios (latest version of each)."""
    try:
        found = env.scenarios(pattern)
    except ScenarioNotFoundError as exc:
        raise ApiError(404, "scenario_not_found", str(exc)) from None
    return [
        ScenarioInfo(scenario=s.ref, description=s.spec.description, world=s.spec.world,
                     tools=list(env.toolkit(s).allowed), max_steps=s.spec.limits.max_steps)
        for s in found
    ]


async def get_scenario_tools(
    scenario_ref: str, request: Request, env: Env, cache: Schemas,
    flavor: Annotated[Flavor, Query(description="The schema format.")] = "openai",
) -> Response:
    """Returns a scenario's allowed tools in one provider's format, with an ETag: fetch once, revalidate cheaply."""
    try:
        scenario = env.scenario(scenario_ref)
    except ScenarioNotFoundError as exc:
        raise ApiError(404, "scenario_not_found", str(exc)) from None
    return _schemas_response(cache, scenario.ref, env.toolkit(scenario), flavor, request)


async def list_episodes(
    episodes: Episodes,
    limit: Annotated[int, Query(ge=1, le=1000, description="Page size.")] = 100,
    cursor: Annotated[str | None, Query(description="`next_cursor` of the previous page.")] = None,
) -> LiveEpisodes:
    """Lists the episodes this server holds in memory, by id (expired ones are in the store, not here)."""
    live = episodes.live()
    if cursor is not None:
        live = [e for e in live if e.episode_id > cursor]
    page = live[:limit]
    return LiveEpisodes(
        episodes=[LiveEpisodeInfo(episode_id=e.episode_id, scenario=e.episode.task.scenario.ref,
                                  seed=e.episode.task.seed, steps=e.episode.steps, done=e.episode.done,
                                  idle_s=round(e.idle_s, 3),
                                  expires_in_s=None if e.expires_in_s is None else round(e.expires_in_s, 3))
                  for e in page],
        next_cursor=page[-1].episode_id if len(live) > limit else None,
        live=len(episodes), max_episodes=episodes.max_episodes, idle_ttl_s=episodes.idle_ttl_s,
    )


async def start_episode(body: StartEpisodeRequest, env: Env, episodes: Episodes, cache: Schemas) -> Response:
    """Starts an episode of (scenario, seed), with the scenario's seeded faults or none."""
    try:
        scenario = env.scenario(body.scenario)
    except ScenarioNotFoundError as exc:
        raise ApiError(404, "scenario_not_found", str(exc)) from None

    try:
        level = choose(scenario.spec, body.difficulty)
    except UsageError as exc:
        raise _invalid("difficulty", body.difficulty, str(exc)) from None

    async def start(stream_id: str) -> Episode:
        try:
            episode = await env.start(scenario, body.seed, faults=body.faults, stream_id=stream_id, difficulty=level)
            if env.durable_reads:  # replicas: the first call may reach another one, which resumes from the log
                await episode.persist()
            return episode
        except UsageError as exc:
            raise _invalid("seed", body.seed, str(exc)) from None
        except ScenarioError as exc:
            if not level.is_default:  # the caller's knob values are more than the setup can stage
                raise _invalid("difficulty", body.difficulty, str(exc)) from None
            # the scenario cannot be set up for this seed: a bug, not the caller's
            log.exception("starting %s seed %s failed", scenario.ref, body.seed)
            raise ApiError(500, "scenario_error", str(exc)) from None

    episode_id, episode = await episodes.admit(start)
    created = _created(cache, episode_id, episode, include_tools=body.include_tools)
    if env.durable_reads:  # replicas: the episode's requests are routed by id, mostly to another replica
        await episodes.release(episode_id)
    return created


async def get_episode(episode_id: str, episodes: Episodes) -> EpisodeStatus:
    """Returns where an episode stands (as the log has it, should another process have moved it on)."""
    episode = await _on_current(episodes, episode_id, _current)
    return EpisodeStatus(
        episode_id=episode_id, scenario=episode.task.scenario.ref, seed=episode.task.seed, steps=episode.steps,
        done=episode.done, truncated=episode.truncated, valid=episode.invalid is None,
        state_hash=episode.state_hash, sim_time=normalize(episode.now),
    )


async def _current(episode: Episode) -> Episode:
    await episode.check_current()
    return episode


async def get_tools(
    episode_id: str, request: Request, episodes: Episodes, cache: Schemas,
    flavor: Annotated[Flavor, Query(description="The schema format.")] = "openai",
) -> Response:
    """Returns the episode's allowed tools in one provider's format (with its scenario's ETag)."""
    episode = await episodes.get(episode_id)
    return _schemas_response(cache, episode.task.scenario.ref, episode.toolkit, flavor, request)


async def _on_current(episodes: EpisodeRegistry, episode_id: str, act: Callable[[Episode], Awaitable[T]]) -> T:
    """Runs `act` on the episode, reloading it from the log while another process has moved it on."""
    episode = await episodes.get(episode_id)
    for _ in range(STALE_RETRIES):
        try:
            return await act(episode)
        except ConcurrencyError:
            log.info("episode %s was written elsewhere; reloading it from the log", episode_id)
            episode = await episodes.reload(episode_id, episode)
    try:
        return await act(episode)
    except ConcurrencyError as exc:
        raise ApiError(409, "episode_conflict", f"episode {episode_id} keeps being written by another process: "
                                                f"{exc}; retry with the same call_id") from None


async def call_tool(episode_id: str, body: CallRequest, episodes: Episodes) -> Response:
    """Calls a tool and returns what the agent observes (a tool error is an observation: 200, ok false)."""
    try:
        result = await _on_current(
            episodes, episode_id, lambda episode: episode.call(body.tool, body.arguments, call_id=body.call_id))
    except InvalidCallIdError as exc:  # the runtime is the one place that knows the rule
        raise _invalid("call_id", body.call_id, str(exc)) from None
    except EpisodeInvalidError:
        raise ApiError(409, "episode_invalid",
                       f"episode {episode_id} is invalid after a harness error; grade it or delete it") from None
    except HarnessError as exc:
        log.error("harness error in episode %s: %s", episode_id, exc)
        raise ApiError(500, "harness_error", str(exc), details={"episode_id": episode_id}) from None
    except UsageError as exc:  # closed while the call waited for the episode's lock
        raise ApiError(409, "episode_closed", str(exc)) from None
    return _observation_response(result)


def _observation_response(result: CallResult) -> Response:
    """The 200 `Observation`, encoded by hand: the value goes out as the very text the log recorded."""
    tail = b',"call_id":' + json.dumps(result.call_id).encode() + b',"step":' + str(result.step).encode() + b"}"
    if result.ok:
        value = result.value_text if result.value_text is not None else json.dumps(result.value, allow_nan=False)
        return Response(b'{"ok":true,"value":' + value.encode() + tail, media_type="application/json")
    error = b"null" if result.error is None else json.dumps(result.error.to_dict(), allow_nan=False).encode()
    return Response(b'{"ok":false,"error":' + error + tail, media_type="application/json")


async def grade_episode(episode_id: str, episodes: Episodes) -> Grade:
    """Grades the episode's current state: the check vector, the scalar score and the attribution."""

    async def grade(episode: Episode) -> Grade:
        return await (await _current(episode)).grade()

    return await _on_current(episodes, episode_id, grade)


async def fork_episode(
    episode_id: str, episodes: Episodes, cache: Schemas, body: Annotated[ForkRequest | None, Body()] = None
) -> Response:
    """Forks the episode as it was after `at_step` calls (default: now) into a new, independent episode."""
    parent = await episodes.get(episode_id)
    at_step = None if body is None else body.at_step

    async def start(stream_id: str) -> Episode:
        try:
            return await parent.fork(at_step, stream_id=stream_id)
        except UsageError as exc:
            raise _invalid("at_step", at_step, str(exc)) from None
        except HarnessError as exc:  # the parent turned invalid meanwhile
            raise ApiError(409, "episode_invalid", str(exc)) from None

    child_id, child = await episodes.admit(start)
    return _created(cache, child_id, child, parent=ForkParent(episode_id=episode_id, step=child.steps))


async def get_trajectory(episode_id: str, episodes: Episodes) -> Response:
    """Returns the trajectory as JSONL: a header, one line per step, and the grade once graded."""
    episode = await _on_current(episodes, episode_id, _current)
    # Encoded off the loop, from a copy: calls may append steps meanwhile (step records are immutable).
    t = episode.trajectory
    frozen = Trajectory(header=t.header, steps=list(t.steps), footer=t.footer)
    return Response(await asyncio.to_thread(frozen.dumps), media_type=f"{NDJSON}; charset=utf-8")


async def delete_episode(episode_id: str, episodes: Episodes) -> Response:
    """Closes the episode and forgets it. Deleting a closed episode again is a no-op."""
    if episode_id not in episodes:
        # Held by no process now: resume it only to end it, so no replica can resume it later.
        try:
            await episodes.get(episode_id)
        except ApiError as exc:
            if exc.status != 409:
                raise
    episode = episodes.pop(episode_id)
    if episode is not None:
        await episode.close(end=True)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


# the fast lane: the routes agents hit most, calling the endpoints above without FastAPI's machinery
_EPISODE = r"/episodes/(?P<episode_id>[^/]+)"


def _fast_routes() -> list[FastRoute]:
    return [
        FastRoute("POST", re.compile(_EPISODE + "/calls"), _fast_call, CallRequest),
        FastRoute("POST", re.compile("/episodes"), _fast_start, StartEpisodeRequest),
        FastRoute("POST", re.compile(_EPISODE + "/grade"), _fast_grade),
        FastRoute("GET", re.compile(_EPISODE), _fast_status),
        FastRoute("DELETE", re.compile(_EPISODE), _fast_delete),
    ]


async def _fast_call(state: State, params: dict[str, str], body: CallRequest) -> Response:
    return await call_tool(params["episode_id"], body, state.episodes)


async def _fast_start(state: State, params: dict[str, str], body: StartEpisodeRequest) -> Response:
    return await start_episode(body, state.env, state.episodes, state.tool_cache)


async def _fast_grade(state: State, params: dict[str, str], body: None) -> Grade:
    return await grade_episode(params["episode_id"], state.episodes)


async def _fast_status(state: State, params: dict[str, str], body: None) -> EpisodeStatus:
    return await get_episode(params["episode_id"], state.episodes)


async def _fast_delete(state: State, params: dict[str, str], body: None) -> Response:
    return await delete_episode(params["episode_id"], state.episodes)


# helpers -----------------------------------------------------------------------------------------
def _invalid(field: str, value: Any, message: str) -> RequestValidationError:
    """A 422 in FastAPI's own shape, for a body field only the runtime can judge."""
    return RequestValidationError([{"type": "value_error", "loc": ("body", field), "msg": message, "input": value}])


def _created(cache: SchemaCache, episode_id: str, episode: Episode, *, include_tools: bool = True,
             parent: ForkParent | None = None) -> Response:
    """The 201 answer (an `EpisodeCreated`), with the scenario's cached schema bytes spliced in."""
    task = episode.task
    schemas = cache.get(task.scenario.ref, episode.toolkit, "openai")
    head = EpisodeCreated(
        episode_id=episode_id, scenario=task.scenario.ref, seed=task.seed, world_hash=task.world.world_hash,
        instructions=episode.instructions, tools=None, tools_url=f"/scenarios/{task.scenario.ref}/tools",
        tools_etag=schemas.etag, steps=episode.steps, parent=parent,
    ).model_dump_json().encode()
    if include_tools:
        head = head.replace(b'"tools":null', b'"tools":' + schemas.tools, 1)
    return Response(head, status_code=status.HTTP_201_CREATED, media_type="application/json",
                    headers={"Location": f"/episodes/{episode_id}"})


def _schemas_response(cache: SchemaCache, scenario_ref: str, toolkit: Any, flavor: Flavor,
                      request: Request) -> Response:
    schemas = cache.get(scenario_ref, toolkit, flavor)
    headers = {"ETag": schemas.etag, "Cache-Control": "no-cache"}
    if schemas.matches(request.headers.get("if-none-match")):
        return Response(status_code=status.HTTP_304_NOT_MODIFIED, headers=headers)
    body = b'{"flavor":' + json.dumps(flavor).encode() + b',"tools":' + schemas.tools + b"}"
    return Response(body, media_type="application/json", headers=headers)
