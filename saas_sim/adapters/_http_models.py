"""The request and response bodies of the HTTP adapter (they are what /openapi.json documents)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

__all__ = [
    "ApiErrorBody",
    "CallRequest",
    "EpisodeCreated",
    "EpisodeStatus",
    "ErrorEnvelope",
    "ForkParent",
    "ForkRequest",
    "Health",
    "Observation",
    "ScenarioInfo",
    "StartEpisodeRequest",
    "ToolErrorBody",
    "ToolSchemas",
]

MAX_SEED = 2**63 - 1
"""The largest seed the API accepts: any client language can hold it in a signed 64-bit int."""


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Health(BaseModel):
    """The server is up."""

    status: Literal["ok"] = "ok"
    episodes: int = Field(description="Live episodes in this process.")
    max_episodes: int = Field(description="How many live episodes this process admits.")


class ScenarioInfo(BaseModel):
    """One scenario an episode can be started on."""

    scenario: str = Field(description="`id@version`; pass it (or the bare id, for the latest) to POST /episodes.")
    description: str
    world: str = Field(description="The world profile the task is set up on.")
    tools: list[str] = Field(description="The tools the scenario allows, by dotted name.")
    max_steps: int = Field(description="The step budget of one episode.")


class StartEpisodeRequest(_Request):
    """Starts one episode of (scenario, seed)."""

    scenario: str = Field(min_length=1, description="Scenario `id` (latest version) or `id@version`.")
    seed: StrictInt = Field(ge=0, le=MAX_SEED, description="The task seed: a non-negative integer.")
    faults: Literal["scenario"] | None = Field(
        default="scenario", description='"scenario" injects the scenario\'s seeded faults; null turns them off.'
    )
    difficulty: str | list[str] | dict[str, Any] | None = Field(
        default=None, description="The task's difficulty (docs/difficulty.md): a level (\"hard\"), KNOB=VALUE "
                                  "items, or {\"level\": \"hard\", \"distractors\": 2}; null: the file's own level.",
    )
    include_tools: bool = Field(
        default=True, description="Put the tool schemas in the answer. Pass false and fetch `tools_url` once per "
                                  "scenario instead (it answers 304 to If-None-Match with `tools_etag`).",
    )


class ForkRequest(_Request):
    """Forks an episode."""

    at_step: StrictInt | None = Field(
        default=None, ge=0, description="Fork as the episode was after this many calls (default: now)."
    )


class ForkParent(BaseModel):
    """Where a forked episode branched off."""

    episode_id: str
    step: int


class EpisodeCreated(BaseModel):
    """A started (or forked) episode: everything an agent needs to begin."""

    episode_id: str = Field(description="Use it in the /episodes/{episode_id}/... paths.")
    scenario: str = Field(description="`id@version`.")
    seed: int
    world_hash: str = Field(description="The hash of the world the task was set up on.")
    instructions: str = Field(description="The task, in words, for the agent.")
    tools: list[dict[str, Any]] | None = Field(
        default=None, description="The allowed tools as OpenAI function tools (strict mode); null when "
                                  "`include_tools` was false.")
    tools_url: str = Field(description="Where the scenario's tool schemas live (`?flavor=` openai, anthropic or mcp).")
    tools_etag: str = Field(description="The ETag of the OpenAI-flavor schemas at `tools_url`.")
    steps: int = Field(default=0, description="Calls already recorded (non-zero for a fork).")
    parent: ForkParent | None = Field(default=None, description="The episode and step a fork branched off.")


class EpisodeStatus(BaseModel):
    """Where an episode stands."""

    episode_id: str
    scenario: str
    seed: int
    steps: int = Field(description="How many calls were recorded.")
    done: bool = Field(description="True once no further call can change the state.")
    truncated: bool = Field(description="Whether a step or sim-time budget ended the episode.")
    valid: bool = Field(description="False after a harness error: the episode carries no reward.")
    state_hash: str = Field(description="The chain hash of everything that happened so far.")
    sim_time: str = Field(description="The simulated instant (UTC ISO 8601).")


class LiveEpisodeInfo(BaseModel):
    """One episode this server holds in memory."""

    episode_id: str
    scenario: str
    seed: int
    steps: int
    done: bool
    idle_s: float = Field(description="Seconds since a request last used it.")
    expires_in_s: float | None = Field(description="Seconds until it leaves memory if unused (null: no TTL). "
                                                   "It stays in the store and resumes on its next request.")


class LiveEpisodes(BaseModel):
    """A page of the live episodes, by episode id."""

    episodes: list[LiveEpisodeInfo]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last one.")
    live: int = Field(description="How many episodes are live in all.")
    max_episodes: int
    idle_ttl_s: float | None


class ToolSchemas(BaseModel):
    """The allowed tools in one provider's format."""

    flavor: Literal["openai", "anthropic", "mcp"]
    tools: list[dict[str, Any]]


class CallRequest(_Request):
    """One tool call, as the model produced it."""

    tool: str = Field(description="The tool name: dotted (`crm.get_deal`) or wire form (`crm__get_deal`).")
    arguments: dict[str, Any] | str | None = Field(
        default=None, description="The arguments: a JSON object, or the JSON text a model produced."
    )
    call_id: str | None = Field(
        default=None, min_length=1, max_length=256,
        description="An idempotency key: a retry with the same key and arguments returns the original "
                    "result and writes nothing. The prefix `auto:` is reserved.",
    )


class ToolErrorBody(BaseModel):
    """The structured error an agent observes."""

    code: str = Field(description="not_found, invalid_argument, conflict, permission_denied, rate_limited, "
                                  "unavailable, timeout, unknown_tool or episode_closed.")
    message: str
    retryable: bool
    details: dict[str, Any]


class Observation(BaseModel):
    """What the agent observes for one call: `value` when ok, `error` otherwise (never both)."""

    ok: bool
    value: Any = Field(default=None, description="The tool's result (present when ok).")
    error: ToolErrorBody | None = Field(default=None, description="The structured error (present when not ok).")
    call_id: str = Field(description="The call's idempotency key (`auto:<step>` when none was sent).")
    step: int = Field(description="The step number the call was recorded as.")


class ApiErrorBody(BaseModel):
    """Why the HTTP exchange itself failed."""

    code: str = Field(description="episode_not_found, scenario_not_found, episode_closed, episode_invalid, "
                                  "too_many_episodes, scenario_error or harness_error.")
    message: str
    details: dict[str, Any] | None = None


class ErrorEnvelope(BaseModel):
    """The body of every non-2xx answer but 422, which keeps FastAPI's `{"detail": [...]}` shape."""

    error: ApiErrorBody
