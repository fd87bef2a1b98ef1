"""The OpenAI stub answers the official client as a chat-completions server would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from saas_sim.testing.openai_stub import Fault, Reply, StubServer, ToolCall, scripted

openai = pytest.importorskip("openai")


async def test_stub_plays_its_script_with_parallel_calls_usage_and_raw_arguments() -> None:
    script = [
        Reply(tool_calls=[ToolCall("crm__get_deal", {"deal_id": "dl_1"}), ToolCall("crm__list_deals", "{bad", id="x")]),
        Reply(content="finished", usage=(7, 3)),
    ]
    async with StubServer(scripted(script)) as stub:
        client = openai.AsyncOpenAI(base_url=stub.base_url, api_key="stub", max_retries=0)
        first = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        second = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "again"}])
        await client.close()
    calls = first.choices[0].message.tool_calls or []
    assert [(c.id, c.function.name) for c in calls] == [("call_1_0", "crm__get_deal"), ("x", "crm__list_deals")]
    assert json.loads(calls[0].function.arguments) == {"deal_id": "dl_1"}
    assert calls[1].function.arguments == "{bad"
    assert first.choices[0].finish_reason == "tool_calls"
    assert first.usage is not None and first.usage.total_tokens > 0
    assert second.choices[0].message.content == "finished"
    assert second.usage is not None and (second.usage.prompt_tokens, second.usage.completion_tokens) == (7, 3)
    assert [r["messages"][0]["content"] for r in stub.requests] == ["hi", "again"]


async def test_stub_injects_rate_limits_the_client_retries_past() -> None:
    async with StubServer(scripted([Fault(429), Fault(500), Reply(content="ok")])) as stub:
        client = openai.AsyncOpenAI(base_url=stub.base_url, api_key="stub", max_retries=3)
        answer = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        await client.close()
    assert answer.choices[0].message.content == "ok"
    assert len(stub.requests) == 3


async def test_stub_fault_surfaces_as_the_clients_rate_limit_error_without_retries() -> None:
    async with StubServer(scripted([Fault(429)])) as stub:
        client = openai.AsyncOpenAI(base_url=stub.base_url, api_key="stub", max_retries=0)
        with pytest.raises(openai.RateLimitError):
            await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        await client.close()


async def test_a_streamed_request_gets_the_whole_message_in_one_chunk_then_done() -> None:
    async with StubServer(scripted([Reply(tool_calls=[ToolCall("a__b", {"x": 1}, id="s1")])])) as stub:
        client = openai.AsyncOpenAI(base_url=stub.base_url, api_key="stub", max_retries=0)
        stream = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}],
                                                      stream=True)
        chunks = [chunk async for chunk in stream]
        await client.close()
    (chunk,) = chunks
    (call,) = chunk.choices[0].delta.tool_calls or []
    assert (call.index, call.id, call.function and call.function.arguments) == (0, "s1", '{"x": 1}')
    assert chunk.choices[0].finish_reason == "tool_calls"


def test_the_module_serves_a_script_file_and_prints_its_base_url(tmp_path: Path) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"fault": 429}, {"content": "hello", "usage": [5, 2]}]))
    proc = subprocess.Popen([sys.executable, "-m", "saas_sim.testing", "--script", str(script)],
                            stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()  # printed once it serves
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        first = httpx.post(f"{base_url}/chat/completions", json=body, timeout=30, trust_env=False)
        second = httpx.post(f"{base_url}/chat/completions", json=body, timeout=30, trust_env=False)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert first.status_code == 429
    assert second.json()["choices"][0]["message"]["content"] == "hello"
    assert second.json()["usage"] == {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
