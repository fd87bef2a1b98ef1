"""The live episodes of one HTTP app, and the errors its endpoints answer with.

The registry lives on the app (`app.state.episodes`), never in a module global,
so two apps in one process (tests, say) share nothing.

Episodes live in the log, so an id outlives the server process: episode `ep_X`
writes the stream `http:ep_X`, and an id this process does not hold is resumed
from its stream on first use (after a restart, or on another replica over the
same store). An episode deleted with DELETE is ended in its log and stays gone.

Idle episodes expire: with `idle_ttl_s` set, an episode no request has used for
that long leaves memory (`expire_idle`, run by the app's sweeper and before a
429). It is not ended: its stream stays in the store, and the next request for
its id resumes it. At the cap, the 429's Retry-After says when the next slot
frees by expiry; without a TTL only a DELETE frees one, and the answer says so.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from saas_sim.core.clock import perf_ns
from saas_sim.core.ids import unique_token
from saas_sim.errors import HarnessError, UsageError
from saas_sim.runtime.episode import Episode

__all__ = ["ApiError", "EpisodeRegistry", "LiveEpisode", "stream_of"]

_EPISODE_ID = re.compile(r"ep_[0-9a-f]{12}")
"""The shape of the ids this server hands out (`unique_token`)."""


def stream_of(episode_id: str) -> str:
    """The event stream an HTTP episode writes: its id outlives the process that started it."""
    return f"http:{episode_id}"

log = logging.getLogger(__name__)

RETRY_AFTER_S = 5
"""The Retry-After hint, in seconds, of the OpenEnv session cap (its sessions expire on their own TTL)."""


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


@dataclass(frozen=True, slots=True)
class LiveEpisode:
    """One live episode as `EpisodeRegistry.live` lists it.

    Attributes:
        episode_id: Its id.
        episode: The episode.
        idle_s: Seconds since a request last used it.
        expires_in_s: Seconds until it expires if unused (None without a TTL).
    """

    episode_id: str
    episode: Episode
    idle_s: float
    expires_in_s: float | None


class EpisodeRegistry:
    """The live episodes of one app, by episode id, with a cap and an idle TTL.

    Ids of recently closed episodes are remembered (as many as the cap), so a
    call on an episode that was deleted answers 409 rather than 404.

    Args:
        max_episodes: How many episodes may be live (or starting) at once.
        resume: Rebuilds an episode from its stream (`Environment.resume`); without it an
            id this process does not hold is unknown.
        idle_ttl_s: Seconds after its last use an episode leaves memory (None: never).
        now_ns: The monotonic clock the TTL is measured on (tests pass their own).

    Raises:
        ValueError: `max_episodes` is below 1 or `idle_ttl_s` is not positive.
    """

    def __init__(self, max_episodes: int, resume: Callable[[str], Awaitable[Episode]] | None = None, *,
                 idle_ttl_s: float | None = None, now_ns: Callable[[], int] = perf_ns) -> None:
        if max_episodes < 1:
            raise ValueError(f"max_episodes must be at least 1, got {max_episodes}")
        if idle_ttl_s is not None and not idle_ttl_s > 0:
            raise ValueError(f"idle_ttl_s must be positive, got {idle_ttl_s}")
        self.max_episodes = max_episodes
        self.idle_ttl_s = idle_ttl_s
        self._now_ns = now_ns
        self._resume = resume
        self._resuming = asyncio.Lock()
        self._live: dict[str, Episode] = {}
        self._used: dict[str, int] = {}
        self._leaving: dict[str, asyncio.Event] = {}
        self._pins: dict[str, int] = {}
        self._starting = 0
        self._closed: OrderedDict[str, None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, episode_id: object) -> bool:
        """Whether this process holds the episode live."""
        return episode_id in self._live

    def _register(self, episode_id: str, episode: Episode) -> None:
        self._live[episode_id] = episode
        self._used[episode_id] = self._now_ns()

    def _unregister(self, episode_id: str) -> Episode | None:
        self._used.pop(episode_id, None)
        self._pins.pop(episode_id, None)
        return self._live.pop(episode_id, None)

    async def _check_cap(self) -> None:
        if len(self._live) + self._starting < self.max_episodes:
            return
        if await self.expire_idle():
            return
        headers: dict[str, str] = {}
        wait_s = self._next_expiry_s()
        if wait_s is None:
            hint = "no live episode can expire on this server; delete finished ones (DELETE /episodes/{id})"
        else:
            headers["Retry-After"] = str(wait_s)
            hint = (f"the next idle episode expires in {wait_s} s (TTL {self.idle_ttl_s:g} s), "
                    "or delete finished ones (DELETE /episodes/{id})")
        raise ApiError(429, "too_many_episodes", f"{self.max_episodes} episodes are live; {hint}",
                       details={"max_episodes": self.max_episodes, "idle_ttl_s": self.idle_ttl_s}, headers=headers)

    def _next_expiry_s(self) -> int | None:
        """Whole seconds (at least 1) until the least recently used episode may expire: an honest Retry-After.

        None without a TTL, or when every live episode is pinned (its holder frees it, not the TTL).
        An episode still starting counts as used now.
        """
        if self.idle_ttl_s is None:
            return None
        expirable = [used for eid, used in self._used.items() if eid not in self._pins]
        if self._starting:
            expirable.append(self._now_ns())
        if not expirable:
            return None
        return max(1, math.ceil((min(expirable) + int(self.idle_ttl_s * 1e9) - self._now_ns()) / 1e9))

    async def admit(self, start: Callable[[str], Awaitable[Episode]], *, pin: bool = False) -> tuple[str, Episode]:
        """Starts an episode if the cap allows, and registers it.

        The slot is taken before `start` is awaited, so concurrent starts can
        never overshoot the cap. `start` gets the stream id the episode must write.
        At the cap, idle episodes past their TTL are expired first. A pinned episode
        (`pin`) never expires until `unpin`: its holder (an OpenEnv session) has its own TTL.

        Raises:
            ApiError: 429 when the cap is reached, with an honest Retry-After.
        """
        await self._check_cap()
        episode_id = f"ep_{unique_token()}"
        while episode_id in self._live or episode_id in self._closed:
            episode_id = f"ep_{unique_token()}"
        self._starting += 1
        try:
            episode = await start(stream_of(episode_id))
        finally:
            self._starting -= 1
        self._register(episode_id, episode)
        if pin:
            self._pins[episode_id] = 1
        return episode_id, episode

    async def get(self, episode_id: str, *, pin: bool = False) -> Episode:
        """Returns a live episode, resuming it from its stream when this process does not hold it.

        It counts as a use: the episode's idle clock restarts. With `pin`, it also
        stays in memory until as many `unpin`s.

        Raises:
            ApiError: 409 for a closed or ended episode, 404 for an unknown one, 429 when a
                resume would pass the cap.
        """
        episode = await self._get(episode_id)
        if pin:
            self._pins[episode_id] = self._pins.get(episode_id, 0) + 1
        return episode

    def unpin(self, episode_id: str) -> None:
        """Lets a pinned episode expire again once its pins are all released (no-op if not live)."""
        pins = self._pins.get(episode_id, 0) - 1
        if pins > 0:
            self._pins[episode_id] = pins
        else:
            self._pins.pop(episode_id, None)

    async def _get(self, episode_id: str) -> Episode:
        episode = self._live.get(episode_id)
        if episode is not None:
            self._used[episode_id] = self._now_ns()
            return episode
        if episode_id in self._closed:
            raise ApiError(409, "episode_closed", f"episode {episode_id} was closed")
        if self._resume is None or not _EPISODE_ID.fullmatch(episode_id):
            raise ApiError(404, "episode_not_found", f"no episode {episode_id!r}")
        leaving = self._leaving.get(episode_id)
        if leaving is not None:  # an expiry is writing its last events: resume what it wrote
            await leaving.wait()
        # One resume at a time: two requests for the same id must not build two live episodes.
        async with self._resuming:
            episode = self._live.get(episode_id)
            if episode is not None:
                self._used[episode_id] = self._now_ns()
                return episode
            await self._check_cap()
            try:
                episode = await self._resume(stream_of(episode_id))
            except UsageError as exc:
                if "was ended" in str(exc):
                    raise ApiError(409, "episode_closed", f"episode {episode_id} was closed") from None
                raise ApiError(404, "episode_not_found", f"no episode {episode_id!r}") from None
            except HarnessError as exc:  # written by another code version: it cannot continue here
                raise ApiError(409, "episode_unresumable", str(exc)) from None
            self._register(episode_id, episode)
            return episode

    async def reload(self, episode_id: str, stale: Episode) -> Episode:
        """Drops a copy another process has moved past (a `ConcurrencyError`) and resumes the episode afresh.

        Raises:
            ApiError: As `get`.
        """
        if self._live.get(episode_id) is stale:
            self._unregister(episode_id)
            await stale.close()  # a stale copy writes nothing on close
        return await self.get(episode_id)

    async def release(self, episode_id: str) -> None:
        """Takes a live episode out of memory without ending it: the next request resumes it from the log.

        A replica that created an episode hands it out this way, since its later requests are routed by
        id and mostly reach other replicas: a kept copy would only idle until its TTL.
        """
        episode = self._unregister(episode_id)
        if episode is not None:
            await episode.close()

    def live(self) -> list[LiveEpisode]:
        """The live episodes, sorted by id, with how long each has been idle."""
        now = self._now_ns()
        out = []
        for episode_id in sorted(self._live):
            idle_s = (now - self._used[episode_id]) / 1e9
            expires = None if self.idle_ttl_s is None else max(0.0, self.idle_ttl_s - idle_s)
            out.append(LiveEpisode(episode_id, self._live[episode_id], idle_s, expires))
        return out

    async def expire_idle(self) -> int:
        """Takes out of memory every episode unused for `idle_ttl_s` and not mid-call; returns how many.

        Each is closed without being ended: its pending events are written, its stream
        stays, and a later request for its id resumes it.
        """
        if self.idle_ttl_s is None:
            return 0
        deadline = self._now_ns() - int(self.idle_ttl_s * 1e9)
        due = [eid for eid, used in self._used.items()
               if used <= deadline and eid not in self._pins and not self._live[eid].busy]
        for episode_id in due:
            episode = self._unregister(episode_id)
            if episode is None:
                continue
            leaving = self._leaving[episode_id] = asyncio.Event()
            try:
                await episode.close()
            except Exception:
                log.exception("expiring episode %s failed", episode_id)
            finally:
                leaving.set()
                del self._leaving[episode_id]
        return len(due)

    async def sweep(self) -> None:
        """Expires idle episodes forever, a few times per TTL (the app's lifespan runs it as a task)."""
        if self.idle_ttl_s is None:
            return
        interval = min(max(self.idle_ttl_s / 4, 0.01), 10.0)
        while True:
            await asyncio.sleep(interval)
            try:
                await self.expire_idle()
            except Exception:  # the sweeper must outlive any one episode's failure
                log.exception("expiring idle episodes failed")

    def pop(self, episode_id: str) -> Episode | None:
        """Unregisters an episode and remembers it as closed; None if it was not live.

        Raises:
            ApiError: 404 for an id that was never live (nor recently closed).
        """
        episode = self._unregister(episode_id)
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
