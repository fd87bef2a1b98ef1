"""A synchronous face of the async runtime, for clients that call plain functions (Gymnasium, TRL).

`SyncRuntime` owns a private event loop, run by a daemon thread it starts, and an
`Environment` opened on that loop. Every call crosses to the loop once and waits
for its answer, so the store, the worlds and the episodes stay on one loop for
the runtime's whole life: nothing runs `asyncio.run` per step, and callers may
sit inside a running loop of their own (a notebook). `close()` closes the
environment, stops the loop and joins the thread; it is idempotent.

`SyncSession` plays one episode at a time on a runtime with the adapters' shared
rules:

* `submit` (when the scenario's domain has no `*.submit` of its own) ends the
  episode; a domain's own `*.submit` that succeeded ends it too.
* Input an agent controls never raises: a call id that is not a string, one with
  the reserved `auto:` prefix, or arguments that are not JSON data become an
  `invalid_argument` observation (no step is recorded, as the runtime refuses
  to record what it could not replay). Everything else goes through
  `Episode.call`, whose typed tool errors are observations.
* Harness and verifier errors stay loud: they raise `HarnessError`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from saas_sim.core.tool_errors import bad_args
from saas_sim.errors import HarnessError, InvalidCallIdError, ToolError, UsageError
from saas_sim.runtime.arg_bounds import not_json
from saas_sim.runtime.call_result import CallError, CallResult
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.grading import Grade

__all__ = ["MEMORY_STORE_URL", "SUBMIT_TOOL", "SyncRuntime", "SyncSession", "Turn", "error_observation"]

T = TypeVar("T")

MEMORY_STORE_URL = "sqlite+aiosqlite:///:memory:"
"""The default store of the synchronous adapters: in memory, gone with the runtime."""

SUBMIT_TOOL = "submit"
"""The adapters' terminal tool when the scenario's domain has no `*.submit`: it ends and grades the episode."""


def error_observation(err: ToolError) -> dict[str, Any]:
    """The observation of a refused call: `{"ok": false, "error": {code, message, retryable, details}}`."""
    return {"ok": False, "error": CallError.of(err).to_dict()}


class SyncRuntime:
    """An `Environment` on a private event loop that a daemon thread of this object runs.

    Args:
        env: The environment, not yet open (the runtime opens it on its loop and closes it).
    """

    def __init__(self, env: Environment) -> None:
        self.env = env
        self._loop = asyncio.new_event_loop()
        # A daemon: a runtime nobody closed must not hang the interpreter's exit.
        self._thread = threading.Thread(target=self._loop.run_forever, name="saas-sim-sync-loop", daemon=True)
        self._thread.start()
        self._closed = False
        try:
            self.run(self.env.open())
        except BaseException:
            self.close()
            raise

    @property
    def closed(self) -> bool:
        """Whether `close()` was called."""
        return self._closed

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Runs a coroutine on the private loop and returns its result (or raises its error).

        Raises:
            UsageError: The runtime is closed, or this is called from the loop's own thread.
        """
        if self._closed:
            coro.close()
            raise UsageError("the runtime is closed")
        if threading.current_thread() is self._thread:
            coro.close()
            raise UsageError("SyncRuntime.run was called from its own event loop; await the coroutine instead")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def close(self) -> None:
        """Closes the environment, stops the loop and joins its thread. Idempotent."""
        if self._closed:
            return
        try:
            self.run(self.env.close())
        finally:
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()


@dataclass(frozen=True, slots=True)
class Turn:
    """What one call produced.

    Attributes:
        observation: `{"ok": true, "value": ...}` or `{"ok": false, "error": {...}}`.
        result: The runtime's record of the call; None when no step was recorded.
        submitted: The agent submitted (the adapter's `submit`, or a domain's `*.submit` that succeeded).
        truncated: A step or sim-time limit ended the episode.
    """

    observation: dict[str, Any]
    result: CallResult | None = None
    submitted: bool = False
    truncated: bool = False

    @property
    def ended(self) -> bool:
        """Whether the episode takes no further call after this one."""
        return self.submitted or self.truncated or (self.result is not None and self.result.done)


class SyncSession:
    """One episode at a time on a `SyncRuntime`: start, call, grade once.

    Args:
        runtime: The runtime the episodes run on.
    """

    def __init__(self, runtime: SyncRuntime) -> None:
        self.runtime = runtime
        self.episode: Episode | None = None
        self.ended = False
        self._grade: Grade | None = None
        self._submit: str | None = None

    def start(self, scenario: str, seed: int, difficulty: Any = None) -> Episode:
        """Ends the current episode (if any) and starts one of (scenario, seed) at a difficulty (None: the file's)."""
        self.end()
        episode = self.runtime.run(self.runtime.env.start(scenario, seed, difficulty=difficulty))
        self.episode, self.ended, self._grade = episode, False, None
        own = [name for name in episode.toolkit.allowed if name.endswith(".submit")]
        self._submit = own[0] if own else None
        return episode

    def tool_names(self) -> list[str]:
        """The names an agent may call: the allowed tools, sorted, then `submit` when the domain has none."""
        episode = self._current()
        names = list(episode.toolkit.allowed)
        return names if self._submit else [*names, SUBMIT_TOOL]

    def call(self, tool: object, args: Any = None, call_id: object = None) -> Turn:
        """Makes one call; agent mistakes are observations, harness errors raise `HarnessError`."""
        episode = self._current()
        if self.ended:
            return Turn(error_observation(ToolError("episode_closed", "the episode is over: reset to start another")))
        if tool == SUBMIT_TOOL:
            if self._submit is None:
                self.ended = True
                return Turn({"ok": True, "value": {"submitted": True}}, submitted=True)
            tool = self._submit
        if call_id is not None and not isinstance(call_id, str):
            return Turn(error_observation(bad_args("call_id must be a string", ["call_id"])))
        problem = None if isinstance(args, str | bytes) else not_json(args)
        if problem is not None:
            return Turn(error_observation(bad_args(f"arguments must be JSON data: {problem}", ["args"])))
        try:
            result = self.runtime.run(episode.call(tool, args, call_id=call_id))  # type: ignore[arg-type]
        except InvalidCallIdError as exc:
            return Turn(error_observation(bad_args(str(exc), ["call_id"])))
        resolved = episode.toolkit.resolve(tool)
        submitted = result.ok and isinstance(resolved, str) and resolved == self._submit
        turn = Turn(result.to_dict(), result, submitted=submitted, truncated=result.truncated)
        self.ended = turn.ended
        return turn

    def grade(self) -> Grade:
        """Grades the episode once (later calls return the same grade) and ends it in its log.

        Raises:
            HarnessError: The grade is invalid (a harness or verifier error): it carries no reward.
        """
        episode = self._current()
        if self._grade is None:
            grade = self.runtime.run(episode.grade())
            self.runtime.run(episode.close(end=True))
            self._grade, self.ended = grade, True
        if not self._grade.valid or self._grade.score is None:
            raise HarnessError(f"{self._grade.scenario} seed {self._grade.seed} has no valid grade "
                               f"({self._grade.attribution}): {self._grade.error}")
        return self._grade

    def end(self) -> None:
        """Closes the current episode, ended for good in its log. Idempotent."""
        episode, self.episode = self.episode, None
        if episode is not None and not self.runtime.closed:
            self.runtime.run(episode.close(end=True))

    def _current(self) -> Episode:
        if self.episode is None:
            raise UsageError("no episode yet: reset first")
        return self.episode
