"""The wire shapes of OpenEnv's protocol, written from its source (openenv-core 0.3 and openenv 0.10).

Nothing here imports openenv: its releases pin conflicting `mcp` versions, so
the protocol is spoken natively. The names and fields follow OpenEnv's
`env_server/types.py` and `mcp_types.py`, so `/schema` documents what its
clients (`GenericEnvClient`, `MCPToolClient`) send and parse:

* actions `{"type": "list_tools"}` and `{"type": "call_tool", "tool_name", "arguments"}`
  (the action schema is titled `CallToolAction`, as in OpenEnv);
* observations `{done, reward, metadata, ...}` with `tools` or `tool_name/result/error`;
* the state `{episode_id, step_count, ...}`;
* WebSocket error codes and JSON-RPC error codes.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from saas_sim.adapters._http_models import MAX_SEED

__all__ = [
    "CallToolAction",
    "CallToolObservation",
    "EnvironmentMetadata",
    "JsonRpcCode",
    "ListToolsAction",
    "ListToolsObservation",
    "OpenEnvAction",
    "OpenEnvHealth",
    "OpenEnvObservation",
    "OpenEnvState",
    "ResetData",
    "ResetObservation",
    "ResetRequest",
    "SchemaResponse",
    "StepRequest",
    "StepResponse",
    "ToolErrorType",
    "WSErrorCode",
]


class WSErrorCode(StrEnum):
    """The `code` of a WebSocket `error` frame (OpenEnv's `WSErrorCode`)."""

    INVALID_JSON = "INVALID_JSON"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    CAPACITY_REACHED = "CAPACITY_REACHED"
    SESSION_ERROR = "SESSION_ERROR"


class JsonRpcCode:
    """JSON-RPC 2.0 error codes, as OpenEnv's `/mcp` answers them."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    SERVER_ERROR = -32000


class ToolErrorType(StrEnum):
    """OpenEnv's `ToolErrorType`: why a call produced no result."""

    EXECUTION_ERROR = "execution_error"
    INVALID_ARGS = "invalid_args"
    TOOL_NOT_FOUND = "tool_not_found"
    TIMEOUT = "timeout"


# actions -----------------------------------------------------------------------------------------
class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")

    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="Free-form; `call_id` here is the call's idempotency key (a retry with it writes nothing).",
    )


class ListToolsAction(_Action):
    """Lists the episode's tools (works before reset: then the default scenario's)."""

    type: Literal["list_tools"] = "list_tools"


class CallToolAction(_Action):
    """Calls one tool. `submit` (or a domain's own `*__submit`) ends the episode and grades it."""

    type: Literal["call_tool"] = "call_tool"
    tool_name: str = Field(min_length=1, max_length=256, description="The tool's wire name (`crm__get_deal`).")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments.")


OpenEnvAction = Annotated[ListToolsAction | CallToolAction, Field(discriminator="type")]
"""What a `step` carries."""


# observations and state --------------------------------------------------------------------------
class OpenEnvObservation(BaseModel):
    """OpenEnv's `Observation`: `reward` and `done` come with the grade of a terminal call."""

    done: bool = False
    reward: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class ToolErrorBody(BaseModel):
    """OpenEnv's `ToolError`; the structured saas_sim error is in the observation's `metadata.error`."""

    error_type: ToolErrorType
    message: str


class ListToolsObservation(OpenEnvObservation):
    """The tools, as OpenEnv's `Tool` (`name`, `description`, `input_schema`)."""

    tools: list[dict[str, Any]]


class CallToolObservation(OpenEnvObservation):
    """One call's outcome: `result` when it succeeded, else `result: null` and `error`."""

    tool_name: str
    result: Any = None
    error: ToolErrorBody | None = None


class ResetObservation(OpenEnvObservation):
    """The task. It holds no episode id, so one (scenario, seed) always observes the same."""

    scenario: str
    seed: int
    world_hash: str
    instructions: str


class OpenEnvState(BaseModel):
    """OpenEnv's `State` plus where the episode stands."""

    model_config = ConfigDict(extra="allow")

    episode_id: str | None = Field(default=None, description="Also usable on /episodes/{episode_id}/...")
    step_count: int = 0
    scenario: str | None = None
    seed: int | None = None
    done: bool = False
    truncated: bool = False
    valid: bool = True
    state_hash: str | None = None
    sim_time: str | None = None
    reward: float | None = None


# requests ----------------------------------------------------------------------------------------
class ResetData(BaseModel):
    """What a reset takes (the WebSocket `reset` frame's `data`, the body of POST /reset)."""

    model_config = ConfigDict(extra="forbid")

    seed: StrictInt = Field(default=0, ge=0, le=MAX_SEED, description="The task seed.")
    scenario: str | None = Field(default=None, min_length=1, description="Scenario id; default: the server's.")
    episode_id: str | None = Field(
        default=None, max_length=255,
        description="Continue this existing episode (it may live in another process: it is resumed from the log).",
    )
    faults: Literal["scenario"] | None = Field(default="scenario", description="null turns seeded faults off.")
    difficulty: str | list[str] | dict[str, Any] | None = Field(
        default=None, description="The task's difficulty (docs/difficulty.md): a level, KNOB=VALUE items or a "
                                  "mapping; null: the scenario file's own level.",
    )


class ResetRequest(ResetData):
    """The body of POST /reset."""


class StepRequest(BaseModel):
    """The body of POST /step (OpenEnv's `StepRequest`, plus the episode to act on)."""

    model_config = ConfigDict(extra="forbid")

    action: dict[str, Any]
    episode_id: str | None = Field(default=None, description="The episode POST /reset returned.")
    timeout_s: float | None = Field(default=None, gt=0, description="Accepted for OpenEnv; calls are not timed.")
    request_id: str | None = Field(default=None, max_length=255)


class StepResponse(BaseModel):
    """The answer to POST /reset and POST /step."""

    observation: dict[str, Any]
    reward: float | None = None
    done: bool = False
    metadata: dict[str, Any] | None = None


class SchemaResponse(BaseModel):
    """GET /schema."""

    action: dict[str, Any]
    observation: dict[str, Any]
    state: dict[str, Any]
    reset_observation: dict[str, Any]


class EnvironmentMetadata(BaseModel):
    """GET /metadata."""

    name: str
    description: str
    version: str | None = None
    author: str | None = None
    documentation_url: str | None = None
    readme_content: str | None = None


class OpenEnvHealth(BaseModel):
    """GET /health when OpenEnv is served: OpenEnv's `healthy`, plus the counts."""

    status: Literal["healthy"] = "healthy"
    episodes: int
    max_episodes: int
    sessions: int
    max_sessions: int
