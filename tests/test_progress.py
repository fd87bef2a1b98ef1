"""The CLI's progress bar: drawn on a terminal, silent when piped or quiet."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable

import pytest
from rich.console import Console

from saas_sim import progress
from saas_sim.progress import progress_bar, progress_messages, wants_progress, world_bar

BAR_CHARS = ("━", "╸", "╺")


def _terminal() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=True, width=80, color_system=None), buffer


def test_a_forced_terminal_renders_the_bar_with_its_count_and_label() -> None:
    console, buffer = _terminal()
    with progress_bar("auditing", total=4, console=console, enabled=True) as advance:
        for name in ("a", "b", "c", "d"):
            advance(description=f"scenario {name}")
    text = buffer.getvalue()
    assert any(ch in text for ch in BAR_CHARS)
    assert "4/4" in text
    assert "scenario d" in text


def test_quiet_draws_nothing_even_on_a_terminal() -> None:
    console, buffer = _terminal()
    with progress_bar("auditing", total=2, console=console, enabled=True, quiet=True) as advance:
        advance()
        advance()
    assert buffer.getvalue() == ""


def test_a_piped_stdout_turns_the_bar_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress.sys, "stdout", io.StringIO())  # StringIO.isatty() is False
    console, buffer = _terminal()
    assert not wants_progress()
    with progress_bar("building worlds", total=1, console=console) as advance:
        advance()
    assert buffer.getvalue() == ""


def test_a_terminal_stdout_turns_the_bar_on_unless_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(progress.sys, "stdout", Tty())
    assert wants_progress()
    assert not wants_progress(quiet=True)


def test_advance_may_be_called_from_worker_threads_and_change_the_total() -> None:
    console, buffer = _terminal()
    with progress_bar("worlds", console=console, enabled=True) as advance:
        advance(0, total=6)
        workers = [threading.Thread(target=lambda: [advance() for _ in range(2)]) for _ in range(3)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    assert "6/6" in buffer.getvalue()


def test_messages_advance_an_open_ended_bar_on_a_terminal() -> None:
    console, buffer = _terminal()
    with progress_messages("bench", console=console, enabled=True) as say:
        say("store: sqlite")
        say("runtime: reset")
    assert "runtime: reset" in buffer.getvalue()


def test_messages_go_to_the_log_and_draw_no_bar_when_off() -> None:
    console, buffer = _terminal()
    logged: list[str] = []
    with progress_messages("bench", console=console, enabled=False, log=logged.append) as say:
        say("store: sqlite")
    assert logged == ["store: sqlite"]
    assert buffer.getvalue() == ""


def test_world_bar_shows_world_messages_and_clears_the_callback() -> None:
    class Env:
        world_progress: Callable[[str], None] | None = None

    env = Env()
    with world_bar(env):
        assert env.world_progress is not None
        env.world_progress("world crm-smb seed 0: crm")
    assert env.world_progress is None
