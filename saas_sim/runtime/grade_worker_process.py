"""The grade worker's process: it sets tasks up on one thread and grades on another (runtime.grade_worker).

`GradeWorker.start` runs `serve` in a fresh interpreter, with the two pipes' descriptors.
It is a module of its own because it builds an `Environment`, which itself uses `GradeWorker`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import threading
from typing import Any

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grade_worker import GradeJob, frame, grade_in_worker, read_frame
from saas_sim.runtime.task import TaskInstance

__all__ = ["serve"]

log = logging.getLogger(__name__)


def serve(read_fd: int, write_fd: int) -> None:
    """The worker process's main: grades on this thread, task set-up on another.

    Args:
        read_fd: The pipe requests arrive on: first the config, then prepares and grades.
        write_fd: The pipe answers leave on: `(request id, kind, value)` per grade, and `(-1, "ready", key)`
            once a task is set up.
    """
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s grade worker %(levelname)s %(message)s")
    requests, answers = os.fdopen(read_fd, "rb"), os.fdopen(write_fd, "wb")
    try:
        _, _, config = read_frame(requests)
    except EOFError:
        return
    env = Environment.from_config(config)  # an in-memory store: the worker writes nothing anyone reads
    ready: dict[str, TaskInstance] = {}
    setups: queue.SimpleQueue[tuple[str, str, int, Any] | None] = queue.SimpleQueue()
    writing = threading.Lock()  # both threads answer: grades here, "ready" from the set-up thread

    def answer(message: tuple[int, str, Any]) -> None:
        with writing:
            answers.write(frame(message))
            answers.flush()

    def set_up() -> None:
        loop = asyncio.new_event_loop()
        loop.run_until_complete(env.open())
        while (item := setups.get()) is not None:
            key, ref, seed, difficulty = item
            try:
                task = loop.run_until_complete(env.task(ref, seed, difficulty=difficulty))
            except Exception:
                log.exception("the grade worker could not set up %s", key)
                continue
            # One grade of the untouched task first, here: a task's first grade builds what its checks
            # look up on the initial state (indexes, a language model), up to a second of work that
            # would otherwise stall every grade queued behind it.
            grade_in_worker(task, GradeJob(key, task.start_head, (), (), task.start_time))
            ready[key] = task
            answer((-1, "ready", key))

    threading.Thread(target=set_up, name="saas-sim grade worker set-up", daemon=True).start()
    try:
        while True:
            kind, request_id, payload = read_frame(requests)
            if kind == "prepare":
                setups.put(payload)
                continue
            answer((request_id, *grade_in_worker(ready.get(payload.key), payload)))
    except (EOFError, OSError, KeyboardInterrupt):
        pass
    finally:
        setups.put(None)
