"""What OpenEnv's reset, step and state do on a saas_sim session; the transports (openenv.py) only frame it.

* `reset` starts an episode of `{scenario, seed, faults}` (or continues `episode_id`)
  and observes the task: `{scenario, seed, world_hash, instructions}`, never an id,
  so two sessions with one seed observe the same.
* `step` takes `list_tools` (before any reset too: the default scenario's tools)
  or `call_tool`. A tool error is an observation with `result: null` and
  `error: {error_type, message}`; the structured saas_sim error is in `metadata.error`.
* A terminal call (the adapter's `submit`, or a domain's own `*.submit` that
  succeeded) or a call that used up the step or time budget grades the episode:
  then `done` is true, `reward` is the grade's score and `metadata.grade` its
  breakdown, and the episode is ended in its log.
* A harness error is never an observation: it raises `ProtocolError(EXECUTION_ERROR)`.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from saas_sim.adapters._registry import ApiError, EpisodeRegistry
from saas_sim.adapters.openenv_models import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    OpenEnvObservation,
    OpenEnvState,
    ResetData,
    ResetObservation,
    ToolErrorBody,
    ToolErrorType,
    WSErrorCode,
)
from saas_sim.adapters.openenv_sessions import OpenEnvSession, SessionTable
from saas_sim.core.canonical import normalize
from saas_sim.errors import (
    ConcurrencyError,
    EpisodeInvalidError,
    HarnessError,
    InvalidCallIdError,
    ScenarioError,
    ScenarioNotFoundError,
    UsageError,
)
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.scenarios.difficulty import choose
from saas_sim.scenarios.loader import Scenario

__all__ = ["SUBMIT_TOOL", "OpenEnvService", "ProtocolError", "wire_payload"]

log = logging.getLogger(__name__)

SUBMIT_TOOL = "submit"
"""The adapter's terminal tool: it ends the episode and grades it (listed when the domain has no `submit`)."""

_SUBMIT_SCHEMA: dict[str, Any] = {
    "name": SUBMIT_TOOL,
    "description": "Finish the task: end the episode and grade its final state. The observation carries "
                   "the reward, done=true and the grade's breakdown (metadata.grade). Call it once, last.",
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
}

_ERROR_TYPES = {
    "unknown_tool": ToolErrorType.TOOL_NOT_FOUND,
    "invalid_argument": ToolErrorType.INVALID_ARGS,
    "timeout": ToolErrorType.TIMEOUT,
}
"""saas_sim error codes that have their own OpenEnv `error_type`; every other one is `execution_error`."""


class ProtocolError(Exception):
    """Raised when a reset or step cannot produce an observation; each transport frames it.

    Attributes:
        code: The OpenEnv WebSocket error code.
        message: What went wrong.
        data: Extra fields of the error (`errors` for a validation error).
    """

    def __init__(self, code: WSErrorCode, message: str, **data: Any) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data = data


def wire_payload(obs: OpenEnvObservation, extra_metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """OpenEnv's `serialize_observation`: `{observation, reward, done, metadata?}`.

    The metadata stays inside the observation (typed clients read it there) and is
    repeated beside it (generic clients read it there).
    """
    metadata = {**obs.metadata, **(extra_metadata or {})}
    payload: dict[str, Any] = {
        "observation": obs.model_dump(mode="json", exclude={"reward", "done"}),
        "reward": obs.reward,
        "done": obs.done,
    }
    if metadata:
        payload["metadata"] = metadata
    return payload


class OpenEnvService:
    """Resets, steps and reads OpenEnv sessions over an app's environment and episode registry.

    Args:
        env: The environment (open by the time a session is used).
        episodes: The app's episode registry: OpenEnv episodes count against its cap.
        max_sessions: How many sessions may be live at once.
        idle_ttl_s: Idle seconds after which a session no WebSocket holds is dropped.
        default_scenario: The scenario of a reset that names none, and whose tools
            `list_tools` shows before a reset (default: the first scenario id).
    """

    def __init__(self, env: Environment, episodes: EpisodeRegistry, *, max_sessions: int, idle_ttl_s: float,
                 default_scenario: str | None = None) -> None:
        self.env = env
        self.episodes = episodes
        self.sessions = SessionTable(max_sessions, idle_ttl_s, self.release)
        self._default_name = default_scenario
        self._tools: dict[str, list[dict[str, Any]]] = {}

    # scenarios and tools -------------------------------------------------------------------------
    def scenario(self, name: str | None) -> Scenario:
        """Resolves a reset's scenario (None: the default).

        Raises:
            ProtocolError: VALIDATION_ERROR for an unknown scenario.
        """
        try:
            if name is None:
                if self._default_name is None:
                    self._default_name = sorted(s.ref for s in self.env.scenarios("*"))[0].split("@")[0]
                name = self._default_name
            return self.env.scenario(name)
        except (ScenarioNotFoundError, IndexError) as exc:
            raise ProtocolError(WSErrorCode.VALIDATION_ERROR, f"unknown scenario {name!r}",
                                errors=[{"loc": ["scenario"], "msg": str(exc), "input": name}]) from None

    def mcp_tools(self, session: OpenEnvSession) -> list[dict[str, Any]]:
        """The session's tools as MCP tool definitions (wire names, input and output schemas), `submit` included."""
        scenario = self.scenario(None) if session.episode is None else session.episode.task.scenario
        tools = self._tools.get(scenario.ref)
        if tools is None:  # immutable per scenario: built once
            tools = self.env.toolkit(scenario).mcp()
            if not any(t["name"].endswith("__submit") for t in tools):
                tools = [*tools, _SUBMIT_SCHEMA]
            self._tools[scenario.ref] = tools
        return tools

    # reset ----------------------------------------------------------------------------------------
    async def reset(self, session: OpenEnvSession, data: ResetData) -> ResetObservation:
        """Starts the session's episode (ending the one it had), or continues `data.episode_id`.

        Raises:
            ProtocolError: VALIDATION_ERROR (scenario, seed), CAPACITY_REACHED (the episode
                cap), EXECUTION_ERROR (unknown or closed episode id, a scenario that cannot be set up).
        """
        async with session.lock:
            await self._drop_episode(session)
            if data.episode_id is not None:
                episode_id, episode, owned = data.episode_id, await self._lookup(data.episode_id), False
            else:
                episode_id, episode = await self._start(self.scenario(data.scenario), data)
                owned = True
            session.episode, session.episode_id, session.owned = episode, episode_id, owned
            session.reward = session.grade = None
            task = episode.task
            return ResetObservation(
                scenario=task.scenario.ref, seed=task.seed, world_hash=task.world.world_hash,
                instructions=episode.instructions, done=episode.done,
                metadata={"scenario": task.scenario.ref, "seed": task.seed, "step_count": episode.steps},
            )

    async def _start(self, scenario: Scenario, data: ResetData) -> tuple[str, Episode]:
        try:
            level = choose(scenario.spec, data.difficulty)
        except UsageError as exc:
            raise ProtocolError(WSErrorCode.VALIDATION_ERROR, str(exc),
                                errors=[{"loc": ["difficulty"], "msg": str(exc), "input": data.difficulty}]) from None

        async def start(stream_id: str) -> Episode:
            try:
                return await self.env.start(scenario, data.seed, faults=data.faults, stream_id=stream_id,
                                            difficulty=level)
            except UsageError as exc:
                raise ProtocolError(WSErrorCode.VALIDATION_ERROR, str(exc),
                                    errors=[{"loc": ["seed"], "msg": str(exc), "input": data.seed}]) from None
            except ScenarioError as exc:  # cannot be set up for this seed: the harness's, not the caller's
                if not level.is_default:  # unless the caller's knob values are more than the setup can stage
                    raise ProtocolError(WSErrorCode.VALIDATION_ERROR, str(exc), errors=[
                        {"loc": ["difficulty"], "msg": str(exc), "input": data.difficulty}]) from None
                log.exception("starting %s seed %s failed", scenario.ref, data.seed)
                raise ProtocolError(WSErrorCode.EXECUTION_ERROR, f"scenario error: {exc}") from None

        try:
            return await self.episodes.admit(start, pin=True)
        except ApiError as exc:  # 429: the episode cap
            raise ProtocolError(WSErrorCode.CAPACITY_REACHED, exc.message,
                                max_episodes=self.episodes.max_episodes) from None

    async def _lookup(self, episode_id: str) -> Episode:
        try:
            return await self.episodes.get(episode_id, pin=True)
        except ApiError as exc:
            code = WSErrorCode.CAPACITY_REACHED if exc.status == 429 else WSErrorCode.EXECUTION_ERROR
            raise ProtocolError(code, exc.message, reason=exc.code) from None

    async def attach_episode(self, session: OpenEnvSession, episode_id: str) -> None:
        """Points a transient session (stateless HTTP, JSON-RPC) at an existing episode.

        Raises:
            ProtocolError: The episode is unknown or closed.
        """
        session.episode, session.episode_id, session.owned = await self._lookup(episode_id), episode_id, False

    # step -----------------------------------------------------------------------------------------
    async def step(self, session: OpenEnvSession, action: ListToolsAction | CallToolAction) -> OpenEnvObservation:
        """Runs one action and returns what the agent observes.

        Raises:
            ProtocolError: EXECUTION_ERROR for a harness error (the episode is then invalid)
                or a stale episode another process wrote.
        """
        if isinstance(action, ListToolsAction):
            tools = [{"name": t["name"], "description": t["description"], "input_schema": t["inputSchema"]}
                     for t in self.mcp_tools(session)]
            return ListToolsObservation(tools=tools)
        async with session.lock:
            return await self._call(session, action)

    async def _call(self, session: OpenEnvSession, action: CallToolAction) -> CallToolObservation:
        name = action.tool_name
        episode = session.episode
        if episode is None:
            return _failed(name, ToolErrorType.EXECUTION_ERROR, "no episode yet: reset first")
        if episode.done:
            return _failed(name, ToolErrorType.EXECUTION_ERROR, "the episode is over: reset to start another",
                           done=True)
        if name == SUBMIT_TOOL:
            own = [t["name"] for t in self.mcp_tools(session) if t["name"].endswith("__submit")]
            if not own:
                return await self._finish(session, CallToolObservation(tool_name=name, result={"submitted": True}))
            name = own[0]  # the domain's own submit (the IDE's records the submission): call it
        call_id = action.metadata.get("call_id")
        if call_id is not None and not isinstance(call_id, str):
            return _failed(name, ToolErrorType.INVALID_ARGS, "metadata.call_id must be a string")
        try:
            result = await episode.call(name, action.arguments, call_id=call_id)
        except InvalidCallIdError as exc:
            return _failed(name, ToolErrorType.INVALID_ARGS, str(exc))
        except (EpisodeInvalidError, HarnessError, ConcurrencyError) as exc:
            log.error("OpenEnv call %s on episode %s failed: %s", name, session.episode_id, exc)
            raise ProtocolError(WSErrorCode.EXECUTION_ERROR, f"harness error: {exc}",
                                episode_id=session.episode_id) from None
        except UsageError as exc:  # closed while the call waited
            return _failed(name, ToolErrorType.EXECUTION_ERROR, str(exc), done=True)
        metadata: dict[str, Any] = {"step": result.step, "call_id": result.call_id}
        if result.ok:
            obs = CallToolObservation(tool_name=name, result=result.value, metadata=metadata)
        else:
            error = {} if result.error is None else result.error.to_dict()
            kind = _ERROR_TYPES.get(error.get("code", ""), ToolErrorType.EXECUTION_ERROR)
            obs = CallToolObservation(tool_name=name, error=ToolErrorBody(error_type=kind,
                                      message=error.get("message", "")), metadata={**metadata, "error": error})
        resolved = episode.toolkit.resolve(name)
        domain_submit = result.ok and isinstance(resolved, str) and resolved.endswith(".submit")
        if domain_submit or result.done or result.truncated:
            return await self._finish(session, obs)
        return obs

    async def _finish(self, session: OpenEnvSession, obs: CallToolObservation) -> CallToolObservation:
        """Grades the episode, ends it in its log, and puts reward, done and the grade on `obs`."""
        episode = session.episode
        assert episode is not None  # the caller checked
        grade = await episode.grade()
        await episode.close(end=True)
        session.grade, session.reward = grade, grade.score
        return obs.model_copy(update={
            "done": True, "reward": grade.score,
            "metadata": {**obs.metadata, "grade": grade.model_dump(mode="json"), "truncated": grade.truncated},
        })

    # state and release ----------------------------------------------------------------------------
    def state(self, session: OpenEnvSession) -> OpenEnvState:
        """The session's state (`episode_id: null, step_count: 0` before any reset)."""
        episode = session.episode
        if episode is None:
            return OpenEnvState()
        return OpenEnvState(
            episode_id=session.episode_id, step_count=episode.steps, scenario=episode.task.scenario.ref,
            seed=episode.task.seed, done=episode.done, truncated=episode.truncated, valid=episode.invalid is None,
            state_hash=episode.state_hash, sim_time=normalize(episode.now), reward=session.reward,
        )

    async def release(self, session: OpenEnvSession) -> None:
        """Ends the session's episode if the session started it (a continued one stays its owner's)."""
        await self._drop_episode(session)

    async def _drop_episode(self, session: OpenEnvSession) -> None:
        episode, episode_id, owned = session.episode, session.episode_id, session.owned
        session.episode = session.episode_id = None
        session.owned = False
        if episode is None or episode_id is None:
            return
        self.episodes.unpin(episode_id)  # the session's hold; an HTTP client's episode may expire again
        if not owned:
            return
        with contextlib.suppress(ApiError):  # already forgotten (deleted over the JSON API, say)
            self.episodes.pop(episode_id)
        await episode.close(end=True)


def _failed(name: str, kind: ToolErrorType, message: str, *, done: bool = False) -> CallToolObservation:
    return CallToolObservation(tool_name=name, error=ToolErrorBody(error_type=kind, message=message), done=done)
