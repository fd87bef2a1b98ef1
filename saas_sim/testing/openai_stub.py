"""A local OpenAI-compatible chat-completions server that answers from a script or a policy.

Test an agent loop without a model and without the network: the stub answers
`POST /v1/chat/completions` with scripted replies (text, tool calls, several tool
calls in one message, malformed arguments), usage fields, and injected HTTP
errors (429, 500) to exercise a client's retries. `GET /v1/models` lists the
one model name it answers to (any name is accepted). A request with `"stream": true`
gets the answer as server-sent events: one chunk with the whole message (and the
usage), then `[DONE]`.

```python
async with StubServer(scripted([Reply(tool_calls=[ToolCall("crm__get_deal", {"deal_id": "dl_000026"})]),
                                Reply(content="Done.")])) as stub:
    client = AsyncOpenAI(base_url=stub.base_url, api_key="stub")
```

A policy is any callable given the request body (`messages`, `tools`, ...) that
returns (or awaits to) a `Reply` or a `Fault`; `scripted(turns)` plays a list in
order. Every request body is kept in `StubServer.requests`, in arrival order.
Usage counts are deterministic (about four characters per token) unless a reply
states them.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

__all__ = ["Fault", "Policy", "Reply", "StubServer", "ToolCall", "completion", "create_stub_app", "scripted",
           "stream_events"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of a scripted assistant message.

    Attributes:
        name: The function name as the model would send it (`crm__get_deal`).
        arguments: A mapping (sent as JSON) or a string sent as it is (malformed JSON, say).
        id: The tool call id; None numbers it `call_<request>_<position>`.
    """

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """One assistant message.

    Attributes:
        content: The assistant's text, or None.
        tool_calls: The tool calls, in order (several make a parallel call).
        usage: `(prompt_tokens, completion_tokens)`, or None to count them from the text.
    """

    content: str | None = None
    tool_calls: Sequence[ToolCall] = ()
    usage: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Fault:
    """An injected HTTP error instead of a reply (429 rate limit, 500, 503...).

    Attributes:
        status: The HTTP status code.
        message: The error's message in OpenAI's error body.
    """

    status: int = 429
    message: str = "injected by the stub"


Answer = Reply | Fault
Policy = Callable[[dict[str, Any]], Answer | Awaitable[Answer]]


def scripted(turns: Sequence[Answer], *, then: Answer | None = None) -> Policy:
    """Returns a policy that answers the i-th request with `turns[i]`, and `then` after the last.

    Args:
        turns: The answers, in order; a `Fault` uses up a turn like a reply does.
        then: The answer once the script is played (default: a text reply with no tool call).
    """
    queue = list(turns)
    tail = then if then is not None else Reply(content="Done.")

    def policy(_request: dict[str, Any]) -> Answer:
        return queue.pop(0) if queue else tail

    return policy


def _tokens(value: Any) -> int:
    return max(1, len(json.dumps(value, ensure_ascii=False, default=str)) // 4)


def completion(request: dict[str, Any], reply: Reply, number: int) -> dict[str, Any]:
    """Returns the `chat.completion` body for one reply (the request's `number` names its ids)."""
    calls = [
        {"id": f"call_{number}_{i}" if c.id is None else c.id, "type": "function",
         "function": {"name": c.name,
                      "arguments": c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments)}}
        for i, c in enumerate(reply.tool_calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if calls:
        message["tool_calls"] = calls
    prompt, done = reply.usage or (_tokens(request.get("messages", [])), _tokens(message))
    return {
        "id": f"chatcmpl-stub-{number}", "object": "chat.completion", "created": 0,
        "model": request.get("model", "stub"),
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done},
    }


def stream_events(answer: dict[str, Any]) -> bytes:
    """Returns a completion as the SSE body of a streamed answer: one chunk holding the whole message, then `[DONE]`."""
    choice = answer["choices"][0]
    delta = dict(choice["message"])
    if "tool_calls" in delta:
        delta["tool_calls"] = [{**call, "index": i} for i, call in enumerate(delta["tool_calls"])]
    chunk = {**answer, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": delta, "finish_reason": choice["finish_reason"], "logprobs": None}]}
    return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


def create_stub_app(policy: Policy, requests: list[dict[str, Any]] | None = None) -> Any:
    """Returns the stub's ASGI app.

    Args:
        policy: Decides each answer from the request body.
        requests: A list every request body is appended to (a fresh one when None).
    """
    # Plain Starlette routes: FastAPI would resolve these local functions' string annotations and fail.
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    seen = requests if requests is not None else []

    async def models(_request: Request) -> JSONResponse:
        return JSONResponse({"object": "list",
                             "data": [{"id": "stub", "object": "model", "created": 0, "owned_by": "saas_sim"}]})

    async def chat(request: Request) -> Response:
        body = await request.json()
        seen.append(body)
        answer = policy(body)
        if inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, Fault):
            kind = "rate_limit_exceeded" if answer.status == 429 else "server_error"
            # retry-after-ms keeps a client's backoff short; the client still decides to retry.
            return JSONResponse({"error": {"message": answer.message, "type": kind, "code": kind, "param": None}},
                                status_code=answer.status, headers={"retry-after-ms": "5"})
        answered = completion(body, answer, len(seen))
        if body.get("stream"):
            return Response(stream_events(answered), media_type="text/event-stream")
        return JSONResponse(answered)

    return Starlette(routes=[Route("/v1/models", models, methods=["GET"]),
                             Route("/v1/chat/completions", chat, methods=["POST"])])


class StubServer:
    """Serves the stub on a free loopback port in the running event loop (`async with`).

    Attributes:
        requests: Every request body received, in order.
        base_url: `http://127.0.0.1:<port>/v1`, for `AsyncOpenAI(base_url=...)`.
    """

    def __init__(self, policy: Policy, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.requests: list[dict[str, Any]] = []
        self._app = create_stub_app(policy, self.requests)
        self._host = host
        self._port = port
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self.base_url = ""

    async def __aenter__(self) -> Self:
        import uvicorn

        config = uvicorn.Config(self._app, host=self._host, port=self._port, log_level="warning",
                                lifespan="off", loop="asyncio", http="h11")
        self._server = uvicorn.Server(config)
        self._task = asyncio.create_task(self._server.serve())
        while not self._server.started:
            if self._task.done():
                self._task.result()  # a failed start (a taken port) raises here
                raise RuntimeError("the OpenAI stub stopped before it started")
            await asyncio.sleep(0.01)  # polls uvicorn's start-up flag
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.base_url = f"http://{self._host}:{port}/v1"
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            await self._task
