"""The required → auto fallback alone: known before sending (prefer_auto) and learnt from a
rejection (with_required_fallback around a real transport and the fake server)."""

from __future__ import annotations

import pytest

from tooleval_nb.errors import ModelServerError
from tooleval_nb.models import ModelSpec, fallback
from tooleval_nb.models.direct import DirectTransport
from tooleval_nb.models.exchange import Exchange
from tooleval_nb.models.litellm_transport import LitellmTransport
from tooleval_nb.models.transport import ChatRequest, ChatResult
from tooleval_nb.testing import FakeOpenAIServer

TOOL = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}}


def _exchange(url: str, prompt: str = "get_time tz UTC", choice: str = "required") -> Exchange:
    spec = ModelSpec(model="openai/fake", api_base=url)
    request = ChatRequest(
        model=spec.model,
        messages=[{"role": "user", "content": prompt}],
        tools=[TOOL],
        tool_choice=choice,
        api_base=url,
        timeout=10.0,
    )
    return Exchange(spec, request)


async def _counted(exchange: Exchange) -> ChatResult:
    exchange.tries += 1
    return await DirectTransport().send(exchange.request)


async def test_rejection_is_resent_with_auto_and_remembered():
    send = fallback.with_required_fallback(_counted)
    with FakeOpenAIServer(reject_required=True) as server:
        exchange = _exchange(server.url)
        result = await send(exchange)
        sent = [b["tool_choice"] for b in server.bodies]
    assert result.message["tool_calls"][0]["function"]["name"] == "get_time"
    assert sent == ["required", "auto"] and exchange.tries == 2
    assert exchange.fell_back and exchange.request.tool_choice == "auto"
    assert fallback.knows_unsupported("openai/fake", server.url)


async def test_a_failing_resend_raises_the_first_error_and_keeps_required(fake):
    send = fallback.with_required_fallback(_counted)
    exchange = _exchange(fake.url, "[fault:500] get_time tz UTC")
    with pytest.raises(ModelServerError, match="500"):
        await send(exchange)
    assert exchange.tries == 2 and not exchange.fell_back
    assert exchange.request.tool_choice == "required"
    assert not fallback.knows_unsupported("openai/fake", fake.url)


@pytest.mark.parametrize("choice", ["auto", "required"], ids=["auto", "required-once-fallen"])
async def test_other_errors_pass_through_at_once(fake, choice):
    send = fallback.with_required_fallback(_counted)
    exchange = _exchange(fake.url, "[fault:503] x", choice)
    exchange.fell_back = choice == "required"
    with pytest.raises(ModelServerError):
        await send(exchange)
    assert exchange.tries == 1


def test_prefer_auto_uses_the_memory_then_the_transport():
    exchange = _exchange("http://h/v1")
    fallback.prefer_auto(exchange, DirectTransport())
    assert exchange.request.tool_choice == "required" and not exchange.fell_back
    fallback.remember_unsupported("openai/fake", "http://h/v1")
    fallback.prefer_auto(exchange, DirectTransport())
    assert exchange.request.tool_choice == "auto" and exchange.fell_back


def test_prefer_auto_asks_the_transport_and_remembers():
    spec = ModelSpec(model="deepseek-reasoner")
    exchange = Exchange(spec, ChatRequest(model=spec.model, messages=[], tool_choice="required"))
    fallback.prefer_auto(exchange, LitellmTransport())  # litellm's table: no tool_choice
    assert exchange.request.tool_choice == "auto" and exchange.fell_back
    assert fallback.knows_unsupported("deepseek-reasoner", None)


@pytest.mark.parametrize("choice", ["auto", "none", None], ids=["auto", "none", "no-tools"])
def test_prefer_auto_leaves_other_choices(choice):
    fallback.remember_unsupported("openai/fake", "http://h/v1")
    exchange = _exchange("http://h/v1", choice=choice)
    fallback.prefer_auto(exchange, DirectTransport())
    assert exchange.request.tool_choice == choice and not exchange.fell_back
