"""Call ids: the reserved `auto:` prefix and UTF-8 text, checked here and nowhere else.

An agent's call id is an idempotency key: a retry with the same id returns the
original result. Calls without one get `auto:<step>`, which is never a retry,
so the prefix is reserved. Every adapter hands ids to `Episode.call`, which
checks them with `check_call_id`; adapters only translate its error.
"""

from __future__ import annotations

from saas_sim.errors import InvalidCallIdError, ReservedCallIdError, UsageError

__all__ = ["AUTO_CALL_ID", "check_call_id", "escaped", "is_utf8_text", "reissued_call_id"]

AUTO_CALL_ID = "auto:"
"""The prefix of generated call ids. A generated id is never treated as a retry."""


def is_utf8_text(text: str) -> bool:
    """Whether `text` encodes as UTF-8 (it holds no lone surrogate, which JSON's `\\ud800` can carry in)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escaped(text: str) -> str:
    """`text` with each lone surrogate written as its `\\uXXXX` escape: UTF-8 text that names it."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def reissued_call_id(recorded: str) -> str | None:
    """Returns the call_id to pass when re-issuing a recorded call (None for a generated one)."""
    return None if recorded.startswith(AUTO_CALL_ID) else recorded


def check_call_id(call_id: object) -> None:
    """Refuses a call id that is not a str or None, is no UTF-8 text, or uses the reserved prefix.

    Raises:
        UsageError: `call_id` is neither a str nor None.
        InvalidCallIdError: `call_id` holds a lone surrogate (no UTF-8 text, so the log cannot record it).
        ReservedCallIdError: `call_id` starts with `auto:`.
    """
    if call_id is not None and not isinstance(call_id, str):
        # Never swap a bad key for a fresh `auto:<n>`: a retry with "the same" key would then
        # apply a write twice.
        raise UsageError(f"call_id must be a str or None, got {type(call_id).__name__}")
    if call_id is not None and not is_utf8_text(call_id):
        # Refused before a step exists: a step recorded under it could not be written, and that would
        # be a harness error any agent could cause.
        raise InvalidCallIdError(f"call_id {escaped(call_id)!r} is not valid UTF-8 text (it holds a lone surrogate)")
    if call_id is not None and call_id.startswith(AUTO_CALL_ID):
        raise ReservedCallIdError(f"call_id {call_id!r}: the prefix {AUTO_CALL_ID!r} is reserved for generated ids")
