"""The OpenAI stub answers the official client as a chat-completions server would."""

from __future__ import annotations

import json

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
