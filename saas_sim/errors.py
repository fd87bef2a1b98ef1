"""Every exception saas_sim raises, in one tree.

```
* SaasSimError
  + UsageError                  a caller misused the library (bad argument, closed object)
    x InvalidStoreUrlError
    x StoreClosedError
    x ReservedCallIdError       a call_id used the reserved `auto:` prefix
  + StoreError                  the event store could not do what was asked
    x ConcurrencyError          expected_version did not match the stream
    x IdempotencyConflictError  a command_id was reused for different events
    x IntegrityError            stored bytes fail the hash chain
    x StoreUnavailableError     the backend stayed unreachable after bounded retries
  + EventError                  an event could not be encoded or decoded
    x UnknownEventTypeError
    x EventValidationError
    x UnregisteredEventError
  + StateError                  a projection was given an event it cannot apply
  + SnapshotError               a snapshot is missing, corrupt or from another schema
  + ScenarioError               a scenario file or reference is bad
    x ScenarioNotFoundError
    x ScenarioFileError
  + ToolError                   the only error an agent ever observes
  + HarnessError                a bug in the harness: the episode is invalid, never a reward
    x EpisodeInvalidError       a call or fork on an episode a harness error invalidated
  + VerifierError               a bug in a check: the episode is invalid, never a reward
```

Only `ToolError` is turned into an observation for the agent. Everything else
is loud: it marks the episode invalid and is attributed to the harness or the
verifier, so a harness bug can never be scored as an agent failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

__all__ = [
    "ConcurrencyError",
    "EpisodeInvalidError",
    "EventError",
    "EventValidationError",
    "HarnessError",
    "IdempotencyConflictError",
    "IntegrityError",
    "InvalidStoreUrlError",
    "ReservedCallIdError",
    "SaasSimError",
    "ScenarioError",
    "ScenarioFileError",
    "ScenarioNotFoundError",
    "SnapshotError",
    "StateError",
    "StoreClosedError",
    "StoreError",
    "StoreUnavailableError",
    "ToolError",
    "ToolErrorCode",
    "UnknownEventTypeError",
    "UnregisteredEventError",
    "UsageError",
    "VerifierError",
]


class SaasSimError(Exception):
    """Raised for every error that saas_sim itself signals."""


class UsageError(SaasSimError, ValueError):
    """Raised when a caller passes an argument the library cannot accept."""


class InvalidStoreUrlError(UsageError):
    """Raised when a store URL names no supported backend or is malformed."""


class StoreClosedError(UsageError):
    """Raised when an operation is attempted on a store that was closed."""


class InvalidCallIdError(UsageError):
    """Raised when a caller's call_id cannot be an idempotency key; nothing is recorded."""


class ReservedCallIdError(InvalidCallIdError):
    """Raised when a caller's call_id starts with the prefix reserved for generated ids."""


class StoreError(SaasSimError):
    """Raised when the event store cannot complete an operation."""


class ConcurrencyError(StoreError):
    """Raised when an append's expected_version differs from the stream's version.

    The whole batch of the append is rejected; nothing is written.
    """

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream_id!r}: expected version {expected}, actual version {actual}"
        )
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class IdempotencyConflictError(StoreError):
    """Raised when a command_id is reused for a different stream or different events."""

    def __init__(self, command_id: str) -> None:
        super().__init__(f"command_id {command_id!r} was already used for different events")
        self.command_id = command_id


class IntegrityError(StoreError):
    """Raised when a stored event fails hash-chain verification on read."""

    def __init__(self, stream_id: str, version: int, reason: str) -> None:
        super().__init__(f"stream {stream_id!r} version {version}: {reason}")
        self.stream_id = stream_id
        self.version = version


class StoreUnavailableError(StoreError):
    """Raised when the backend stays unreachable after the bounded retries."""


class EventError(SaasSimError):
    """Raised when an event cannot be encoded, decoded or registered."""


class UnknownEventTypeError(EventError):
    """Raised when a stored event names a type no registry knows."""

    def __init__(self, event_type: str, schema_version: int | None = None) -> None:
        where = "" if schema_version is None else f" (schema version {schema_version})"
        super().__init__(f"unknown event type {event_type!r}{where}")
        self.event_type = event_type


class UnregisteredEventError(EventError, UsageError):
    """Raised when an event class that was never registered is appended."""


class EventValidationError(EventError, UsageError):
    """Raised when an event payload does not validate against its model."""


class StateError(SaasSimError):
    """Raised when a projection is asked to apply an event it has no reducer for."""


class SnapshotError(SaasSimError):
    """Raised when a snapshot cannot be decoded or does not match its hash."""


class ScenarioError(SaasSimError):
    """Raised when a scenario cannot be found, loaded or instantiated."""


class ScenarioNotFoundError(ScenarioError, LookupError):
    """Raised when no scenario matches an id or id@version."""


class ScenarioFileError(ScenarioError):
    """Raised when a scenario file fails validation; the message names path and field."""


ToolErrorCode = Literal[
    "not_found",
    "invalid_argument",
    "conflict",
    "permission_denied",
    "rate_limited",
    "unavailable",
    "timeout",
    "unknown_tool",
    "episode_closed",
]

_RETRYABLE: frozenset[str] = frozenset({"rate_limited", "unavailable", "timeout"})


class ToolError(SaasSimError):
    """Raised by a tool for an outcome the agent should see, like an HTTP 4xx/5xx.

    Attributes:
        code: The machine-readable error code.
        message: A human-readable explanation written for the agent.
        retryable: Whether repeating the same call may succeed.
        details: Structured context, such as field paths or duplicate candidates.
    """

    def __init__(
        self,
        code: ToolErrorCode,
        message: str,
        *,
        details: Mapping[str, Any] | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code: ToolErrorCode = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.retryable = code in _RETRYABLE if retryable is None else retryable

    def to_dict(self) -> dict[str, Any]:
        """Returns the structured observation `{code, message, retryable, details}`."""
        return {
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
            "details": self.details,
        }


class HarnessError(SaasSimError):
    """Raised when the harness itself fails; the episode is marked invalid."""


class EpisodeInvalidError(HarnessError):
    """Raised when a call or a fork is made on an episode that a harness error invalidated."""


class VerifierError(SaasSimError):
    """Raised when a check fails to evaluate; the episode is marked invalid."""
