"""OpenEnv sessions: one slot per WebSocket or per `openenv/session/create`, each holding at most one episode.

A session is what OpenEnv calls an environment instance. It is created by a
WebSocket connection (and ends with it) or over JSON-RPC (`openenv/session/create`,
ended by `openenv/session/close`), and a WebSocket may attach to a session made
over JSON-RPC (`/ws?session_id=...`, as openenv 0.10's `MCPToolClient` does).
Its episode is started by `reset` and registered in the app's episode registry,
so the episode's id also works on the JSON API (`/episodes/{id}/grade`, ...).

The table is bounded: at most `max_sessions` sessions live at once, and a
session made over JSON-RPC that no WebSocket holds is dropped once idle for
`idle_ttl_s` (checked whenever a session is created or looked up), so a flood of
creations or clients that never close cannot grow memory without bound.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from saas_sim.core.clock import perf_ns
from saas_sim.core.ids import unique_token
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.grading import Grade

__all__ = ["OpenEnvSession", "SessionCapacityError", "SessionError", "SessionTable"]


class SessionError(Exception):
    """Raised for a session id that is unknown, closed, or already held by a WebSocket."""


class SessionCapacityError(Exception):
    """Raised when `max_sessions` sessions are live.

    Attributes:
        active: The live sessions.
        limit: The cap.
    """

    def __init__(self, active: int, limit: int) -> None:
        super().__init__(f"{active} of {limit} OpenEnv sessions are live; close one (or wait for idle ones to expire)")
        self.active = active
        self.limit = limit


@dataclass(eq=False)
class OpenEnvSession:
    """One OpenEnv environment instance.

    Attributes:
        session_id: Its id (`os_<hex>`).
        episode: The episode `reset` started or attached, if any.
        episode_id: That episode's id in the app's registry.
        owned: Whether the session started the episode (and so ends it); False when
            `reset` continued an existing episode by id.
        reward: The reward of the terminal call, once there was one.
        grade: The grade of the terminal call, once there was one.
        attached: Whether a WebSocket holds the session now.
        closing: A JSON-RPC close came while a WebSocket held it: it ends when that WebSocket does.
        lock: Serializes resets and calls on the session.
    """

    session_id: str
    episode: Episode | None = None
    episode_id: str | None = None
    owned: bool = False
    reward: float | None = None
    grade: Grade | None = None
    attached: bool = False
    closing: bool = False
    last_used_ns: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


Release = Callable[[OpenEnvSession], Awaitable[None]]
"""Ends a session's episode (given by the owner of the table)."""


class SessionTable:
    """The live sessions of one app, with a cap and an idle TTL for unheld ones.

    Args:
        max_sessions: How many sessions may be live at once.
        idle_ttl_s: Idle seconds after which a session no WebSocket holds is dropped.
        release: Ends a dropped session's episode.
        now_ns: The monotonic clock (injectable for tests).

    Raises:
        ValueError: `max_sessions` is below 1 or `idle_ttl_s` is not positive.
    """

    def __init__(self, max_sessions: int, idle_ttl_s: float, release: Release,
                 now_ns: Callable[[], int] = perf_ns) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        if idle_ttl_s <= 0:
            raise ValueError(f"idle_ttl_s must be positive, got {idle_ttl_s}")
        self.max_sessions = max_sessions
        self._ttl_ns = int(idle_ttl_s * 1e9)
        self._release = release
        self._now = now_ns
        self._live: dict[str, OpenEnvSession] = {}
        # Sweeps scan every session, so lookups sweep at most once a second (or once a TTL, if shorter).
        self._sweep_every_ns = min(self._ttl_ns, 1_000_000_000)
        self._last_sweep_ns: int | None = None

    def __len__(self) -> int:
        return len(self._live)

    async def create(self) -> OpenEnvSession:
        """Creates an empty session (no episode until `reset`).

        Raises:
            SessionCapacityError: `max_sessions` are live (after dropping expired ones).
        """
        await self.expire()
        if len(self._live) >= self.max_sessions:
            raise SessionCapacityError(len(self._live), self.max_sessions)
        session_id = f"os_{unique_token()}"
        while session_id in self._live:
            session_id = f"os_{unique_token()}"
        session = OpenEnvSession(session_id, last_used_ns=self._now())
        self._live[session_id] = session
        return session

    async def get(self, session_id: object) -> OpenEnvSession:
        """Returns a live session and marks it used.

        Raises:
            SessionError: No live session has this id.
        """
        await self.expire()
        session = self._live.get(session_id) if isinstance(session_id, str) else None
        if session is None:
            raise SessionError(f"unknown session_id: {session_id!r}")
        session.last_used_ns = self._now()
        return session

    async def attach(self, session_id: str) -> OpenEnvSession:
        """Lets a WebSocket hold a session made over JSON-RPC.

        Raises:
            SessionError: The session is unknown, closing, or already held by a WebSocket.
        """
        session = await self.get(session_id)
        if session.attached:
            raise SessionError(f"session {session_id} already has an attached WebSocket")
        if session.closing:
            raise SessionError(f"session {session_id} is closing")
        session.attached = True
        return session

    async def detach(self, session: OpenEnvSession) -> None:
        """A WebSocket lets go of an attached session; a close that came meanwhile ends it now."""
        session.attached = False
        session.last_used_ns = self._now()
        if session.closing:
            await self.close(session)

    async def close(self, session: OpenEnvSession) -> None:
        """Ends a session and its episode. Idempotent."""
        if self._live.get(session.session_id) is not session:
            return
        del self._live[session.session_id]
        # The session is gone from the table before its episode is released, so a
        # concurrent lookup can never hand out a session whose episode is closing.
        async with session.lock:
            await self._release(session)

    async def expire(self) -> int:
        """Drops sessions no WebSocket holds that were idle past the TTL; returns how many.

        Called on every create and lookup; it scans only if the last scan is over a second old.
        """
        now = self._now()
        if self._last_sweep_ns is not None and now - self._last_sweep_ns < self._sweep_every_ns:
            return 0
        self._last_sweep_ns = now
        cutoff = now - self._ttl_ns
        stale = [s for s in self._live.values() if not s.attached and s.last_used_ns < cutoff and not s.lock.locked()]
        for session in stale:
            await self.close(session)
        return len(stale)

    async def close_all(self) -> None:
        """Ends every session (at shutdown)."""
        for session in list(self._live.values()):
            await self.close(session)
