"""call_model against our fake OpenAI-compatible server: replies, retries, errors, fallback, cache.

Transport-sensitive behaviour runs through both the direct client and litellm.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from tooleval_nb.errors import ModelConfigError
from tooleval_nb.models import RetryPolicy, call_model, call_model_async
from tooleval_nb.testing import FakeOpenAIServer

FAST = RetryPolicy(max_tries=3, base_delay=0.001, max_delay=0.01)
TRANSPORTS = pytest.mark.parametrize("transport", ["direct", "litellm"])


async def call(
    server: FakeOpenAIServer,
    prompt: Any,
    tools: Any = None,
    tool_choice: Any = "auto",
    **kwargs: Any,
):
    kwargs.setdefault("cache", False)
    kwargs.setdefault("retry", FAST)
    return await call_model_async(
        "openai/fake", prompt, tools, tool_choice, api_base=server.url, **kwargs
    )


@TRANSPORTS
async def test_native_call_sends_api_names_and_maps_them_back(fake, tools, transport):
    reply = await call(fake, "weather_get city Paris days 3", tools, transport=transport)
    assert reply.error is None and reply.mode == "native"
    assert [(c.name, c.parsed_arguments()) for c in reply.tool_calls] == [
        ("weather.get", {"city": "Paris", "days": 3})
    ]
    sent = fake.last_body
    assert [t["function"]["name"] for t in sent["tools"]] == ["weather_get", "get_time"]
    assert sent["tool_choice"] == "auto" and sent["temperature"] == 0.0
    assert reply.prompt_tokens and reply.completion_tokens and reply.latency_ms > 0
    assert reply.tries == 1 and not reply.fallback and not reply.cached
    assert reply.finish_reason == "tool_calls"
    assert reply.raw["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "weather_get"
    assert reply.cost is None  # a local endpoint has no price


async def test_text_answer_and_sampling_params_pass_through(fake, tools):
    reply = await call(fake, "hello", tools, temperature=0.3, top_p=0.9, seed=7, max_tokens=50)
    assert reply.tool_calls == [] and reply.content == "No tool needed: hello"
    sent = fake.last_body
    assert (sent["temperature"], sent["top_p"], sent["seed"], sent["max_tokens"]) == (
        0.3,
        0.9,
        7,
        50,
    )


async def test_no_tools_sends_no_tools_field(fake):
    reply = await call(fake, "get_time tz UTC")
    assert reply.tool_calls == [] and "tools" not in fake.last_body
    assert "tool_choice" not in fake.last_body


async def test_named_tool_choice_uses_the_api_name(fake, tools):
    reply = await call(fake, "city Oslo", tools, "weather.get")
    assert fake.last_body["tool_choice"] == {
        "type": "function",
        "function": {"name": "weather_get"},
    }
    assert [c.name for c in reply.tool_calls] == ["weather.get"]


@TRANSPORTS
async def test_rate_limit_retried_honouring_retry_after(tools, transport):
    with FakeOpenAIServer(retry_after=0.2) as server:
        reply = await call(server, "[fault:429*2] get_time tz UTC", tools, transport=transport)
        assert server.requests == 3
    assert reply.error is None and reply.tries == 3
    assert [c.name for c in reply.tool_calls] == ["get_time"]
    assert reply.total_ms >= 400  # two waits of Retry-After 0.2 s, not the 1 ms back-off


@TRANSPORTS
async def test_server_errors_retried_until_the_last_try(fake, tools, transport):
    reply = await call(fake, "[fault:503] get_time tz UTC", tools, transport=transport)
    assert reply.error_type == "ModelServerError" and reply.status_code == 503
    assert reply.tries == 3 and fake.requests == 3
    assert reply.tool_calls == [] and "503" in reply.error


@TRANSPORTS
async def test_timeout_is_a_recorded_error(tools, transport):
    with FakeOpenAIServer(hang=10) as server:
        reply = await call(
            server,
            "[fault:hang] get_time tz UTC",
            tools,
            transport=transport,
            timeout=0.3,
            retry=RetryPolicy(max_tries=2, base_delay=0.001),
        )
        assert server.requests == 2
    assert reply.error_type == "ModelTimeoutError" and reply.tries == 2
    assert reply.total_ms < 5000


@TRANSPORTS
@pytest.mark.parametrize("fault", ["malformed", "bad_shape"])
async def test_unreadable_bodies_are_response_errors(fake, tools, transport, fault):
    reply = await call(fake, f"[fault:{fault}] x", tools, transport=transport)
    assert reply.error_type == "ModelResponseError" and reply.tries == 3


@TRANSPORTS
@pytest.mark.parametrize(
    ("fault", "error_type"),
    [("400", "ModelBadRequestError"), ("401", "ModelAuthError"), ("404", "ModelNotFoundError")],
    ids=["400", "401", "404"],
)
async def test_client_errors_are_not_retried(fake, tools, transport, fault, error_type):
    reply = await call(fake, f"[fault:{fault}] get_time tz UTC", tools, transport=transport)
    assert reply.error_type == error_type and reply.tries == 1 and fake.requests == 1


async def test_disconnect_is_a_connection_error(fake, tools):
    reply = await call(fake, "[fault:disconnect] x", tools)
    assert reply.error_type == "ModelConnectionError" and reply.tries == 3


async def test_unreachable_endpoint(tools):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    reply = await call_model_async(
        "openai/fake", "x", tools, api_base=f"http://127.0.0.1:{port}/v1", retry=FAST, cache=False
    )
    assert reply.error_type == "ModelConnectionError" and reply.tries == 3
    assert f"127.0.0.1:{port}" in reply.error


@TRANSPORTS
async def test_required_falls_back_to_auto_and_remembers(tools, transport):
    with FakeOpenAIServer(reject_required=True) as server:
        first = await call(server, "get_time tz UTC", tools, "required", transport=transport)
        second = await call(server, "get_time tz CET", tools, "required", transport=transport)
        sent = [b.get("tool_choice") for b in server.bodies]
    assert first.error is None and first.fallback and first.tries == 2
    assert [c.parsed_arguments() for c in first.tool_calls] == [{"tz": "UTC"}]
    assert second.fallback and second.tries == 1 and second.tool_choice == "auto"
    assert sent == ["required", "auto", "auto"]


async def test_required_is_kept_when_supported(fake, tools):
    reply = await call(fake, "get_time tz UTC", tools, "required")
    assert not reply.fallback and fake.last_body["tool_choice"] == "required"


async def test_a_real_server_error_is_not_taken_for_a_rejection(fake, tools):
    reply = await call(fake, "[fault:500] get_time tz UTC", tools, "required")
    assert reply.error_type == "ModelServerError" and not reply.fallback
    assert reply.tries == 6  # each of 3 tries: required, then auto; both fail


async def test_cache_hit_bypass_and_refresh(fake, tools):
    def go(**kw: Any):
        return call_model_async("openai/fake", "get_time tz UTC", tools, api_base=fake.url, **kw)

    first = await go()
    again = await go()
    assert (first.cached, again.cached, fake.requests) == (False, True, 1)
    assert again.tool_calls == first.tool_calls and again.tries == 0
    assert again.latency_ms == first.latency_ms
    await go(cache=False)
    assert fake.requests == 2
    refreshed = await go(cache="refresh")
    assert not refreshed.cached and fake.requests == 3
    await go(seed=1)  # another sampling parameter: another key
    assert fake.requests == 4


async def test_no_cache_above_temperature_zero_unless_asked(fake, tools):
    for _ in range(2):
        await call_model_async(
            "openai/fake", "get_time tz UTC", tools, api_base=fake.url, temperature=0.7
        )
    assert fake.requests == 2
    for _ in range(2):
        await call_model_async(
            "openai/fake",
            "get_time tz UTC",
            tools,
            api_base=fake.url,
            temperature=0.7,
            cache="always",
        )
    assert fake.requests == 3


async def test_errors_are_not_cached(fake, tools):
    prompt = "[fault:401*1] get_time tz UTC"
    failed = await call_model_async("openai/fake", prompt, tools, api_base=fake.url)
    ok = await call_model_async("openai/fake", prompt, tools, api_base=fake.url)
    assert failed.error_type == "ModelAuthError" and ok.error is None and not ok.cached


def _planted(content: str):
    return lambda body: {"content": content}


@pytest.mark.parametrize(
    ("fmt", "text", "expected"),
    [
        (
            "hermes",
            '<tool_call>\n{"name": "weather.get", "arguments": {"city": "Paris"}}\n</tool_call>',
            [("weather.get", {"city": "Paris"})],
        ),
        (
            "pythonic",
            "[weather.get(city='Paris'), get_time(tz='UTC')]",
            [("weather.get", {"city": "Paris"}), ("get_time", {"tz": "UTC"})],
        ),
    ],
    ids=["hermes", "pythonic"],
)
async def test_raw_text_mode(tools, fmt, text, expected):
    with FakeOpenAIServer(handler=_planted(text)) as server:
        reply = await call(
            server,
            [
                {"role": "system", "content": "Suite rules."},
                {"role": "user", "content": "Weather in Paris?"},
            ],
            tools,
            "required",
            mode=fmt,
        )
        sent = server.last_body
    assert reply.mode == fmt and reply.raw_text == text and reply.error is None
    assert [(c.name, c.parsed_arguments()) for c in reply.tool_calls] == expected
    assert "tools" not in sent and "tool_choice" not in sent
    system = sent["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("Suite rules.")
    assert "weather.get" in system["content"] and "at least one function call" in system["content"]
    roles = [m["role"] for m in sent["messages"]]
    assert roles == ["system", "user", "assistant", "user"]  # one example exchange


async def test_raw_text_problems_are_recorded_not_raised(tools):
    text = '<tool_call>\n{"name": "weather.get", "arguments": {"city": </tool_call> sorry'
    with FakeOpenAIServer(handler=_planted(text)) as server:
        reply = await call(server, "Weather?", tools, mode="hermes")
    assert reply.error is None and reply.tool_calls == []
    assert reply.parse_problems and reply.raw_text == text


async def test_raw_text_history_is_rendered_as_text(tools, tool_history):
    history = tool_history("weather.get")
    with FakeOpenAIServer(handler=_planted("It is 21 degrees.")) as server:
        reply = await call(server, history, tools, mode="hermes")
        sent = server.last_body["messages"]
    assert reply.content == "It is 21 degrees." and reply.tool_calls == []
    assert all(m["role"] in ("system", "user", "assistant") for m in sent)
    assert all("tool_calls" not in m for m in sent)
    assert "<tool_call>" in sent[-2]["content"] and "weather.get" in sent[-2]["content"]
    assert "<tool_response>" in sent[-1]["content"] and "weather.get" in sent[-1]["content"]


async def test_raw_text_without_tools_describes_nothing(fake):
    await call(fake, "hi", None, mode="pythonic")
    assert fake.last_body["messages"] == [{"role": "user", "content": "hi"}]


async def test_malformed_native_arguments_are_kept_and_recorded(tools):
    planted = {"tool_calls": [{"name": "get_time", "arguments": '{"tz": "UT'}]}
    with FakeOpenAIServer(handler=lambda body: planted) as server:
        reply = await call(server, "x", tools)
    assert [c.name for c in reply.tool_calls] == ["get_time"]
    assert reply.tool_calls[0].parsed_arguments() is None
    assert any("not a JSON object" in p for p in reply.parse_problems)


async def test_json_stuffed_in_the_name_is_repaired(tools):
    stuffed = json.dumps({"name": "weather_get", "arguments": {"city": "Rome"}})
    planted = {"tool_calls": [{"name": stuffed, "arguments": "{}"}]}
    with FakeOpenAIServer(handler=lambda body: planted) as server:
        reply = await call(server, "x", tools)
    assert [(c.name, c.parsed_arguments()) for c in reply.tool_calls] == [
        ("weather.get", {"city": "Rome"})
    ]
    assert reply.parse_problems  # the repair is recorded


async def test_secrets_are_scrubbed_from_raw(tools):
    key = "sk-test-0123456789"
    planted = {
        "id": "x",
        "api_key": key,
        "echo": f"Bearer {key}",
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}
        ],
    }
    with FakeOpenAIServer(handler=lambda body: planted) as server:
        reply = await call(server, "x", tools, api_key=key)
    assert reply.raw["api_key"] == "***" and key not in json.dumps(reply.raw)
    assert reply.raw["choices"][0]["message"]["content"] == "ok"


def test_sync_twin_from_plain_code(fake, tools):
    reply = call_model("openai/fake", "get_time tz UTC", tools, api_base=fake.url, cache=False)
    assert [c.name for c in reply.tool_calls] == ["get_time"]


async def test_sync_twin_inside_a_running_loop(fake, tools):
    reply = call_model("openai/fake", "get_time tz UTC", tools, api_base=fake.url, cache=False)
    assert [c.name for c in reply.tool_calls] == ["get_time"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"mode": "xml"}, "unknown mode"),
        ({"tool_choice": 3}, "tool_choice"),
    ],
    ids=["mode", "tool_choice"],
)
async def test_misconfiguration_raises(fake, tools, kwargs, match):
    kwargs = {"tool_choice": "auto", **kwargs}
    with pytest.raises(ModelConfigError, match=match):
        await call_model_async("openai/fake", "x", tools, api_base=fake.url, **kwargs)


async def test_bad_tool_raises(fake):
    with pytest.raises(ModelConfigError, match="not a tool"):
        await call_model_async("openai/fake", "x", [{"nothing": 1}], api_base=fake.url)


async def test_capability_table_fallback_before_sending(fake, tools):
    # litellm's table says deepseek-reasoner does not support tool_choice: no failed request first
    reply = await call_model_async(
        "deepseek-reasoner",
        "get_time tz UTC",
        tools,
        "required",
        api_base=fake.url,
        transport="litellm",
        cache=False,
        retry=FAST,
    )
    assert reply.error is None and reply.fallback and reply.tries == 1
    assert fake.requests == 1 and fake.last_body["tool_choice"] == "auto"
