"""An LLM agent (`openai:MODEL`): a chat-completions tool-calling loop against any OpenAI-compatible endpoint.

It talks to vLLM, SGLang or a hosted API through the official `openai` client
(`pip install 'saas-sim[openai]'`; imported only when the agent runs). The
conversation opens with the episode's instructions as the system message and
one user message asking to begin; the tools are `episode.tool_schemas("openai")`.

Each turn the model answers once. Every tool call of that answer (several make
a parallel call) is executed in order, with the model's `tool_call_id` as the
step's `call_id`: the same id with the same call again is a retry (the runtime
returns the original result), while an id the runtime cannot take (empty,
`auto:`-prefixed, too long, or already used for another call) is replaced by
`llm-<turn>-<position>`. Argument text is handed over as it came, so malformed
JSON is a recorded `invalid_argument` step the model observes, never a crash.

The loop stops when the model answers without a tool call, the episode is done
(submitted, or out of steps or simulated time), after `max_turns` answers, or
when a request still fails after the client's own bounded retries (429, 5xx,
timeouts, connection errors) or is refused (a 4xx). That last case is the
agent's failure, not the harness's: the episode is graded as it stands, and the
trajectory's `agent` line says `"stop": "model_error"` with the error. Bugs in
saas_sim still raise.

Every answer is recorded in the trajectory (`ModelTurn`: text, tool calls and
the call ids they became, usage), and the summed usage in its `agent` line.

Options go after a `?`, as in a URL query: `openai:MODEL?temperature=0&seed=1&max_turns=30`.
`temperature`, `seed`, `top_p` and `max_tokens` are sent only when given; `max_turns`
(default 50), `max_retries` (the client's retries per request, default 4) and
`timeout` (seconds per request, default 120) bound the loop. The API key is
`OPENAI_API_KEY`; with a `base_url` and no key, a placeholder is sent (local
servers ignore it).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from saas_sim.errors import UsageError
from saas_sim.runtime.call_ids import AUTO_CALL_ID
from saas_sim.runtime.trajectory import ModelTurn

if TYPE_CHECKING:
    from saas_sim.runtime.call_result import CallResult
    from saas_sim.runtime.episode import Episode

__all__ = ["LLMAgent", "LLMConfig", "parse_openai_spec"]

OPENING = "Solve the task in the system message with the tools. When it is done, answer without calling a tool."
MAX_CALL_ID = 200
_FLOATS = ("temperature", "top_p", "timeout")
_INTS = ("seed", "max_tokens", "max_turns", "max_retries")


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """How the agent reaches its model.

    Attributes:
        model: The model name the endpoint serves.
        base_url: The endpoint (`http://127.0.0.1:8000/v1`), or None for the client's default
            (`OPENAI_BASE_URL`, else OpenAI's).
        sampling: `temperature`, `seed`, `top_p`, `max_tokens`, as given; sent as they are.
        max_turns: The most model answers per episode.
        max_retries: The client's retries of one request on 429, 5xx, timeouts and lost connections.
        timeout_s: Seconds one request may take.
    """

    model: str
    base_url: str | None = None
    sampling: dict[str, float | int] = field(default_factory=dict)
    max_turns: int = 50
    max_retries: int = 4
    timeout_s: float = 120.0


def parse_openai_spec(text: str, *, base_url: str | None = None) -> LLMConfig:
    """Parses the `MODEL[?option=value&...]` part of `openai:MODEL`.

    Raises:
        UsageError: No model, an unknown option, or a value of the wrong type.
    """
    model, _, query = text.partition("?")
    if not model:
        raise UsageError("openai agent needs a model: openai:MODEL[?temperature=0&seed=1]")
    options: dict[str, float | int] = {}
    for key, value in parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)):
        try:
            if key in _FLOATS:
                options[key] = float(value)
            elif key in _INTS:
                options[key] = int(value)
            else:
                raise UsageError(f"unknown openai agent option {key!r}; known: {sorted(_FLOATS + _INTS)}")
        except ValueError:
            raise UsageError(f"openai agent option {key}={value!r} is not a number") from None
    limits = {k: options.pop(k) for k in ("max_turns", "max_retries", "timeout") if k in options}
    if min(limits.values(), default=1) < 0 or limits.get("max_turns", 1) < 1:
        raise UsageError(f"openai agent limits must be positive: {limits}")
    return LLMConfig(model, base_url, options, max_turns=int(limits.get("max_turns", 50)),
                     max_retries=int(limits.get("max_retries", 4)), timeout_s=float(limits.get("timeout", 120.0)))


def _client(config: LLMConfig) -> Any:
    try:
        import openai
    except ImportError:
        raise UsageError("the openai agent needs the openai client: pip install 'saas-sim[openai]'") from None
    key = os.environ.get("OPENAI_API_KEY")
    if not key and config.base_url is None and not os.environ.get("OPENAI_BASE_URL"):
        raise UsageError("set OPENAI_API_KEY, or give --base-url for a local OpenAI-compatible server")
    return openai.AsyncOpenAI(api_key=key or "saas-sim-local", base_url=config.base_url,
                              max_retries=config.max_retries, timeout=config.timeout_s)


def _observation(result: CallResult) -> str:
    data = result.to_dict()
    if result.done:
        data["done"] = True
    return json.dumps(data, ensure_ascii=False, default=str)


def _usage(response: Any) -> dict[str, int] | None:
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    return {k: int(getattr(usage, k, 0) or 0) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}


class LLMAgent:
    """Runs a chat-completions tool-calling loop on an episode (see the module docstring)."""

    def __init__(self, config: LLMConfig) -> None:
        self.name = f"openai:{config.model}"
        self.config = config

    async def run(self, episode: Episode) -> None:
        """Converses with the model until it stops calling tools, the episode is done, or a limit is hit."""
        import openai

        client = _client(self.config)
        # Ids a resumed episode already holds are never reused: their raw argument text is unknown.
        used: dict[str, tuple[str, str] | None] = dict.fromkeys(s.call_id for s in episode.trajectory.steps)
        messages: list[dict[str, Any]] = [{"role": "system", "content": episode.instructions},
                                          {"role": "user", "content": OPENING}]
        tools = episode.tool_schemas("openai")
        totals = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        turns = episode.trajectory.model_turns
        first = len(turns)
        stop, error = "max_turns", None
        try:
            for turn in range(first, first + self.config.max_turns):
                if episode.done:
                    stop = "episode_done"
                    break
                try:
                    response = await client.chat.completions.create(
                        model=self.config.model, messages=messages, tools=tools, **self.config.sampling)
                except openai.APIError as exc:
                    # The client already retried what is retryable: the model side failed for good.
                    error = f"{type(exc).__name__}: {exc}"
                    turns.append(ModelTurn(turn, episode.steps, error=error))
                    stop = "model_error"
                    break
                if not response.choices:
                    error = "the model's answer holds no choice"
                    turns.append(ModelTurn(turn, episode.steps, error=error, usage=_usage(response)))
                    stop = "model_error"
                    break
                choice = response.choices[0]
                message = choice.message
                usage = _usage(response)
                for k in totals:
                    totals[k] += (usage or {}).get(k, 0)
                record = ModelTurn(turn, episode.steps, message.content, [], usage, choice.finish_reason)
                turns.append(record)
                calls = [c for c in (message.tool_calls or []) if getattr(c, "function", None) is not None]
                messages.append(_assistant(message.content, calls))
                if not calls:
                    stop = "answered"
                    break
                for i, call in enumerate(calls):
                    name, text = call.function.name, call.function.arguments or "{}"
                    # Every tool call gets its answer (a conversation with an unanswered one is invalid), but
                    # those after the episode ended are not made, and record no call id.
                    call_id = None if _over(episode) else _call_id(call.id, name, text, turn, i, used)
                    record.tool_calls.append({"id": call.id, "name": name, "arguments": text, "call_id": call_id})
                    if call_id is None:
                        content = json.dumps({"ok": False, "done": True, "error": {
                            "code": "episode_done", "message": "The episode is over; this call was not made.",
                            "retryable": False, "details": {}}})
                    else:
                        content = _observation(await episode.call(name, text, call_id))
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        finally:
            await client.close()
        episode.trajectory.agent = {
            "agent": self.name, "base_url": self.config.base_url, "sampling": self.config.sampling,
            "turns": len(turns), "usage": totals, "stop": stop, "error": error,
        }


def _over(episode: Episode) -> bool:
    # A function, not the bare property: the loop's earlier check would make mypy narrow `done` to False,
    # though a call in between (a submit, the last step of the budget) ends the episode.
    return episode.done


def _assistant(content: str | None, calls: list[Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
            for c in calls
        ]
    return message


def _call_id(given: Any, tool: str, text: str, turn: int, position: int,
             used: dict[str, tuple[str, str] | None]) -> str:
    """The model's tool call id when the runtime can take it as this call's id, else a derived unique one."""
    if isinstance(given, str) and given and not given.startswith(AUTO_CALL_ID) and len(given) <= MAX_CALL_ID \
            and used.get(given, (tool, text)) == (tool, text):
        used[given] = (tool, text)
        return given
    derived, n = f"llm-{turn}-{position}", 1
    while derived in used:
        derived, n = f"llm-{turn}-{position}-{n}", n + 1
    used[derived] = (tool, text)
    return derived
