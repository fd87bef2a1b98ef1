"""Trajectories: the JSONL record of an episode.

Line 1 is the header (scenario@version, seed, code and world hashes, stream,
parent for forks), then one line per step (tool, args, result or error,
emitted events with their positions, state hash after, sim time, fault mark),
then a footer with the grade and its attribution.

An LLM agent (`runtime/llm_agent.py`) also records its model's answers: one
`model` line per answer (text, tool calls and the call ids they became, usage,
or the request's error), placed before the first step it caused, and one
`agent` line (the model, summed usage, why it stopped) before the footer.
Readers that keep only `step` lines are unaffected, and a trajectory without
model answers keeps its bytes.

Lines end with `\n` and only `\n`: values are written with `ensure_ascii=False`,
so U+2028, U+2029 and U+0085 stay raw inside JSON strings, and a reader that
splits on every Unicode line break (`str.splitlines`) would cut them apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from saas_sim.core.canonical import normalize
from saas_sim.errors import UsageError

__all__ = ["FORMAT", "ModelTurn", "StepRecord", "Trajectory", "parse_trajectory", "read_trajectory"]

FORMAT = "saas_sim.trajectory/1"


@dataclass(slots=True)
class StepRecord:
    """One tool call as it happened.

    Attributes:
        index: 0-based step number within the episode.
        call_id: The idempotency key used for the call.
        tool: The tool name as called.
        args: The arguments as sent.
        ok: Whether the agent got a value.
        result: The value the agent saw (ok) or None.
        error: The structured error the agent saw, or None.
        events: `[type, version, global position]` of each event written.
        state_hash: The stream's chain hash after the call.
        sim_time: The simulated instant after the call.
        fault: The injected fault, if any.
        replayed: True when the call repeated an earlier call_id's result.
        effect: The effect's kind, request key and recorded outcome, for effect tools only.
    """

    index: int
    call_id: str
    tool: str
    args: Any
    ok: bool
    result: Any
    error: dict[str, Any] | None
    events: list[list[Any]]
    state_hash: str
    sim_time: str
    fault: str | None = None
    replayed: bool = False
    effect: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """Returns the step as a JSON-ready dict."""
        data = normalize(asdict(self))
        if data["effect"] is None:
            del data["effect"]  # steps without an effect keep their bytes
        return {"kind": "step", **data}


@dataclass(slots=True)
class ModelTurn:
    """One answer of an LLM agent's model (or a request that failed for good).

    Attributes:
        index: 0-based turn number within the episode.
        before_step: How many steps were recorded when the model answered; its tool calls are the steps from there.
        content: The assistant's text, or None.
        tool_calls: `{id, name, arguments, call_id}` per tool call, in order: the model's id, function name
            and raw argument text, and the `call_id` the step was recorded with (None for a call that was
            not made: the episode had ended).
        usage: `{prompt_tokens, completion_tokens, total_tokens}` as the server reported them, or None.
        finish_reason: The server's finish reason, or None.
        error: Why the request failed after the client's retries (no answer then), or None.
    """

    index: int
    before_step: int
    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] | None = None
    finish_reason: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Returns the turn as a JSON-ready dict."""
        return {"kind": "model", **normalize(asdict(self))}


class Trajectory:
    """A header, steps, an LLM agent's model turns and summary, and (once graded) a footer.

    A footer value that costs work to compute (the final state's content hash, O(what changed)) can be
    left to `defer`: it is computed the first time anyone reads `footer`, so an episode whose trajectory
    nobody asks for never pays for it. Readers see the same dict either way.
    """

    __slots__ = ("_deferred", "_footer", "agent", "header", "model_turns", "steps")

    def __init__(self, header: dict[str, Any], steps: list[StepRecord] | None = None,
                 footer: dict[str, Any] | None = None, model_turns: list[ModelTurn] | None = None,
                 agent: dict[str, Any] | None = None) -> None:
        self.header = header
        self.steps: list[StepRecord] = [] if steps is None else steps
        self._footer = footer
        self._deferred: dict[str, Callable[[], Any]] = {}
        self.model_turns: list[ModelTurn] = [] if model_turns is None else model_turns
        self.agent = agent

    @property
    def footer(self) -> dict[str, Any] | None:
        """The footer (None before the episode is graded), with every deferred value computed."""
        if self._deferred and self._footer is not None:
            for key, compute in sorted(self._deferred.items()):
                self._footer[key] = compute()
            self._deferred.clear()
        return self._footer

    @footer.setter
    def footer(self, value: dict[str, Any] | None) -> None:
        self._footer = value
        self._deferred.clear()

    def defer(self, key: str, compute: Callable[[], Any]) -> None:
        """Sets the footer's `key` to `compute()` when the footer is first read (after `footer` is set)."""
        if self._footer is None:
            raise UsageError("a footer value can be deferred only once the footer is set")
        self._deferred[key] = compute

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trajectory):
            return NotImplemented
        return (self.header, self.steps, self.footer, self.model_turns, self.agent) == (
            other.header, other.steps, other.footer, other.model_turns, other.agent)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it replaces

    def __repr__(self) -> str:
        return (f"Trajectory(header={self.header!r}, steps={len(self.steps)}, footer={self.footer!r}, "
                f"model_turns={len(self.model_turns)}, agent={self.agent!r})")

    def lines(self) -> list[dict[str, Any]]:
        """Returns every JSONL line as a dict (a model turn comes before the first step it caused)."""
        out = [{"kind": "header", **normalize(self.header)}]
        turns = sorted(self.model_turns, key=lambda t: (t.before_step, t.index))
        t = 0
        for step in self.steps:
            while t < len(turns) and turns[t].before_step <= step.index:
                out.append(turns[t].to_json())
                t += 1
            out.append(step.to_json())
        out += [turn.to_json() for turn in turns[t:]]
        if self.agent is not None:
            out.append({"kind": "agent", **normalize(self.agent)})
        if self.footer is not None:
            out.append({"kind": "footer", **normalize(self.footer)})
        return out

    def dumps(self) -> str:
        """Returns the trajectory as JSONL text (valid UTF-8)."""
        return "".join(_dump_line(line) + "\n" for line in self.lines())

    def write(self, path: Path) -> None:
        """Writes the trajectory as a JSONL file (UTF-8, `\n` line ends on every platform)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.dumps().encode("utf-8"))


def _dump_line(line: dict[str, Any]) -> str:
    text = json.dumps(line, sort_keys=True, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (half of an emoji escape an agent sent) cannot be written as UTF-8;
        # \u escapes keep the line writable and read it back to the very same strings.
        text = json.dumps(line, sort_keys=True, ensure_ascii=True)
    return text


def read_trajectory(path: Path) -> Trajectory:
    """Reads a trajectory JSONL file.

    Raises:
        UsageError: The file is unreadable or not a trajectory.
    """
    try:
        # Bytes, not read_text: text mode would also translate a stray \r.
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read trajectory {path}: {exc}") from exc
    return parse_trajectory(text, source=str(path))


def parse_trajectory(text: str, *, source: str = "trajectory") -> Trajectory:
    """Parses trajectory JSONL text (a file's content, or the body of `GET /episodes/{id}/trajectory`).

    Lines are split on `\n` only, never on the other Unicode line breaks a
    JSON string may hold raw (U+2028, U+2029, U+0085).

    Args:
        text: The JSONL text.
        source: What to call the text in error messages (a path, say).

    Raises:
        UsageError: The text is not a trajectory.
    """
    try:
        lines = [json.loads(line) for line in text.split("\n") if line.strip()]
    except json.JSONDecodeError as exc:
        raise UsageError(f"cannot read trajectory {source}: {exc}") from exc
    if not lines or not isinstance(lines[0], dict) or lines[0].get("kind") != "header" \
            or lines[0].get("format") != FORMAT:
        raise UsageError(f"{source} is not a {FORMAT} file")
    header = {k: v for k, v in lines[0].items() if k != "kind"}
    steps: list[StepRecord] = []
    turns: list[ModelTurn] = []
    agent = None
    footer = None
    for number, line in enumerate(lines[1:], start=2):
        # Any malformed line is a clean UsageError naming it, never an AttributeError or TypeError.
        if not isinstance(line, dict):
            raise UsageError(f"{source}: line {number} is not a JSON object")
        kind = line.pop("kind", None)
        if kind == "step":
            try:
                steps.append(StepRecord(**line))
            except TypeError as exc:
                raise UsageError(f"{source}: line {number} is not a step: {exc}") from None
        elif kind == "model":
            try:
                turns.append(ModelTurn(**line))
            except TypeError as exc:
                raise UsageError(f"{source}: line {number} is not a model turn: {exc}") from None
        elif kind == "agent":
            agent = line
        elif kind == "footer":
            footer = line
        else:
            raise UsageError(f"{source}: line {number}: unknown line kind {kind!r}")
    return Trajectory(header, steps, footer, turns, agent)
