"""The live episodes of one HTTP app, and the errors its endpoints answer with.

The registry lives on the app (`app.state.episodes`), never in a module global,
so two apps in one process (tests, say) share nothing.

Episodes live in the log, so an id outlives the server process: episode `ep_X`
writes the stream `http:ep_X`, and an id this process does not hold is resumed
from its stream on first use (after a restart, or on another replica over the
same store). An episode deleted with DELETE is ended in its log and stays gone.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from saas_sim.core.ids import unique_token
from saas_sim.errors import HarnessError, UsageError
from saas_sim.runtime.episode import Episode

__all__ = ["ApiError", "EpisodeRegistry", "stream_of"]

_EPISODE_ID = re.compile(r"ep_[0-9a-f]{12}")
"""The shape of the ids this server hands out (`unique_token`)."""


def stream_of(episode_id: str) -> str:
    """The event stream an HTTP episode writes: its id outlives the process that started it."""
    return f"http:{episode_id}"

log = logging.getLogger(__name__)

RETRY_AFTER_S = 5
"""The Retry-After hint, in seconds, when the episode cap is reached."""


class ApiError(Exception):
    """Raised by an endpoint for a non-2xx answer; rendered as `{"error": {code, message, details}}`.

    Attributes:
        status: The HTTP status code.
        code: The machine-readable error code.
        message: A human-readable explanation.
        details: Structured context, if any.
        headers: Extra response headers (such as Retry-After).
    """

    def __init__(
        self, status: int, code: str, message: str, *,
        details: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers

    def body(self) -> dict[str, Any]:
        """Returns the JSON body."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return {"error": error}


class EpisodeRegistry:
    """The live episodes of one app, by episode id, with a cap.

    Ids of recently closed episodes are remembered (as many as the cap), so a
    call on an episode that was deleted answers 409 rather than 404.

    Args:
        max_episodes: How many episodes may be live (or starting) at once.
    """

    def __init__(self, max_episodes: int, resume: Callable[[str], Awaitable[Episode]] | None = None) -> None:
        if max_episodes < 1:
            raise ValueError(f"max_episodes must be at least 1, got {max_episodes}")
        self.max_episodes = max_episodes
        self._resume = resume
        self._resuming = asyncio.Lock()
        self._live: dict[str, Episode] = {}
        self._starting = 0
        self._closed: OrderedDict[str, None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, episode_id: object) -> bool:
        """Whether this process holds the episode live."""
        return episode_id in self._live

    def _check_cap(self) -> None:
        if len(self._live) + self._starting >= self.max_episodes:
            raise ApiError(
                429, "too_many_episodes",
                f"{self.max_episodes} episodes are live; delete finished ones (DELETE /episodes/{{id}})",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )

    async def admit(self, start: Callable[[str], Awaitable[Episode]]) -> tuple[str, Episode]:
        """Starts an episode if the cap allows, and registers it.

        The slot is taken before `start` is awaited, so concurrent starts can
        never overshoot the cap. `start` gets the stream id the episode must write.

        Raises:
            ApiError: 429 when the cap is reached.
        """
        self._check_cap()
        episode_id = f"ep_{unique_token()}"
        while episode_id in self._live or episode_id in self._closed:
            episode_id = f"ep_{unique_token()}"
        self._starting += 1
        try:
            episode = await start(stream_of(episode_id))
        finally:
            self._starting -= 1
        self._live[episode_id] = episode
        return episode_id, episode

    async def get(self, episode_id: str) -> Episode:
        """Returns a live episode, resuming it from its stream when this process does not hold it.

        Raises:
            ApiError: 409 for a closed or ended episode, 404 for an unknown one, 429 when a
                resume would pass the cap.
        """
        episode = self._live.get(episode_id)
        if episode is not None:
            return episode
        if episode_id in self._closed:
            raise ApiError(409, "episode_closed", f"episode {episode_id} was closed")
        if self._resume is None or not _EPISODE_ID.fullmatch(episode_id):
            raise ApiError(404, "episode_not_found", f"no episode {episode_id!r}")
        # One resume at a time: two requests for the same id must not build two live episodes.
        async with self._resuming:
            episode = self._live.get(episode_id)
            if episode is not None:
                return episode
            self._check_cap()
            try:
                episode = await self._resume(stream_of(episode_id))
            except UsageError as exc:
                if "was ended" in str(exc):
                    raise ApiError(409, "episode_closed", f"episode {episode_id} was closed") from None
                raise ApiError(404, "episode_not_found", f"no episode {episode_id!r}") from None
            except HarnessError as exc:  # written by another code version: it cannot continue here
                raise ApiError(409, "episode_unresumable", str(exc)) from None
            self._live[episode_id] = episode
            return episode

    def pop(self, episode_id: str) -> Episode | None:
        """Unregisters an episode and remembers it as closed; None if it was not live.

        Raises:
            ApiError: 404 for an id that was never live (nor recently closed).
        """
        episode = self._live.pop(episode_id, None)
        if episode is None and episode_id not in self._closed:
            raise ApiError(404, "episode_not_found", f"no episode {episode_id!r}")
        self._closed[episode_id] = None
        self._closed.move_to_end(episode_id)
        while len(self._closed) > self.max_episodes:
            self._closed.popitem(last=False)
        return episode

    async def close_all(self) -> None:
        """Closes every live episode (at shutdown); a failure to close one is logged, not raised."""
        for episode_id in list(self._live):
            episode = self.pop(episode_id)
            if episode is None:
                continue
            try:
                await episode.close()
            except Exception:
                log.exception("closing episode %s failed", episode_id)
