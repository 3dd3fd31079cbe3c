"""Transports alone: chosen once per spec, each sending a ChatRequest to the fake OpenAI server."""

from __future__ import annotations

import pytest

from tooleval_nb.errors import (
    EmbeddedModelError,
    ModelBadRequestError,
    ModelConfigError,
    ModelServerError,
)
from tooleval_nb.models import DEFAULT_MODEL, ModelSpec, embedded_server
from tooleval_nb.models.call import route_for, transport_for
from tooleval_nb.models.direct import DirectTransport, EmbeddedTransport
from tooleval_nb.models.litellm_transport import LitellmTransport
from tooleval_nb.models.transport import ChatRequest, Transport
from tooleval_nb.testing import FakeOpenAIServer

TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
    },
}


def _request(server: FakeOpenAIServer, prompt: str, **kwargs) -> ChatRequest:
    return ChatRequest(
        model="openai/fake",
        messages=[{"role": "user", "content": prompt}],
        tools=[TOOL],
        tool_choice=kwargs.pop("tool_choice", "auto"),
        params={"temperature": 0.0},
        api_base=server.url,
        timeout=10.0,
        **kwargs,
    )


@pytest.mark.parametrize(
    ("spec", "chosen"),
    [
        ({"model": "openai/x", "api_base": "http://h/v1"}, "DirectTransport()"),
        ({"model": "hosted_vllm/x", "api_base": "http://h/v1"}, "DirectTransport()"),
        ({"model": "anthropic/claude", "api_base": "http://h/v1"}, "LitellmTransport()"),
        ({"model": "openai/gpt-4o-mini"}, "LitellmTransport()"),
        (
            {"model": "openai/x", "api_base": "http://h/v1", "transport": "litellm"},
            "LitellmTransport()",
        ),
        (
            {"model": DEFAULT_MODEL},
            "EmbeddedTransport('chatml-function-calling', DirectTransport())",
        ),
        (
            {"model": DEFAULT_MODEL, "mode": "hermes"},
            "EmbeddedTransport('chatml', DirectTransport())",
        ),
        (
            {"model": DEFAULT_MODEL, "transport": "litellm"},
            "EmbeddedTransport('chatml-function-calling', LitellmTransport())",
        ),
    ],
    ids=[
        "openai",
        "vllm",
        "other-provider",
        "no-endpoint",
        "forced-litellm",
        "embedded",
        "embedded-raw",
        "embedded-litellm",
    ],
)
def test_transport_for(spec, chosen):
    transport = transport_for(ModelSpec.of(spec))
    assert repr(transport) == chosen
    assert isinstance(transport, (DirectTransport, EmbeddedTransport, LitellmTransport))


def test_direct_without_an_endpoint_is_refused_once_per_spec():
    with pytest.raises(ModelConfigError, match="transport='direct' needs an api_base"):
        transport_for(ModelSpec(model="openai/x", transport="direct"))


def test_the_route_is_made_once_per_model_and_overrides():
    spec = ModelSpec(model="openai/x", api_base="http://h/v1")
    assert route_for(spec) is route_for(spec)
    assert route_for("openai/x", api_base="http://h/v1/") is route_for(
        "openai/x", api_base="http://h/v1/"
    )
    other = route_for(spec, mode="hermes")
    assert other is not route_for(spec) and other.spec.mode == "hermes"
    assert route_for(spec).spec is spec  # no override: the spec itself
    with pytest.raises(ModelConfigError, match="unknown mode"):
        route_for(spec, mode="xml")


@pytest.mark.parametrize("transport", [DirectTransport(), LitellmTransport()], ids=repr)
async def test_send_gives_the_result(fake, transport: Transport):
    await transport.open()
    result = await transport.send(_request(fake, "get_time tz UTC", api_key="sk-test-123456"))
    call = result.message["tool_calls"][0]
    assert call["function"]["name"] == "get_time" and '"UTC"' in call["function"]["arguments"]
    assert result.finish_reason == "tool_calls" and result.prompt_tokens and result.latency_ms > 0
    assert fake.last_body["tools"] == [TOOL] and fake.last_body["tool_choice"] == "auto"
    assert fake.last_body["model"] == "fake"


@pytest.mark.parametrize("transport", [DirectTransport(), LitellmTransport()], ids=repr)
@pytest.mark.parametrize(
    ("fault", "error"),
    [("400", ModelBadRequestError), ("503", ModelServerError)],
    ids=["400", "503"],
)
async def test_send_raises_the_mapped_error_once(fake, transport: Transport, fault, error):
    with pytest.raises(error):
        await transport.send(_request(fake, f"[fault:{fault}] get_time tz UTC"))
    assert fake.requests == 1  # no retry inside a transport


def test_supports_required():
    assert DirectTransport().supports_required("openai/anything")
    assert not LitellmTransport().supports_required("deepseek-reasoner")  # litellm's table
    assert LitellmTransport().supports_required("openai/gpt-4o-mini")
    assert not EmbeddedTransport("chatml", LitellmTransport()).supports_required(
        "deepseek-reasoner"
    )


async def test_embedded_open_failure_is_an_embedded_model_error(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llama_cpp" else real(name, *a),
    )
    monkeypatch.setattr("tooleval_nb.models.embedded._SHARED", {})
    with pytest.raises(EmbeddedModelError, match="pip install"):
        await EmbeddedTransport("chatml").open()


@pytest.mark.model
@pytest.mark.slow
async def test_embedded_transport_starts_the_shared_server_and_sends():
    transport = EmbeddedTransport("chatml")
    await transport.open()
    server = embedded_server("chatml", start=False)
    assert server.running
    request = ChatRequest(
        model="openai/smollm2-135m",
        messages=[{"role": "user", "content": "Say hi."}],
        params={"temperature": 0.0, "max_tokens": 8},
        timeout=120.0,
    )
    result = await transport.send(request)
    assert request.api_base == server.api_base
    assert isinstance(result.message.get("content"), str) and result.completion_tokens
