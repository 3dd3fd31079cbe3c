"""Real tool calls through MCPToolRunner, over every transport."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tooleval_nb.errors import MCPImportError
from tooleval_nb.mcp import (
    LiveToolResult,
    MCPImportWarning,
    MCPToolRunner,
    ToolExecutor,
    import_mcp_async,
)


async def test_calls_over_every_transport(any_target) -> None:
    async with MCPToolRunner(any_target, call_timeout=10) as live:
        assert isinstance(live, ToolExecutor)
        assert live.tool_names == ["get_weather", "calculate", "slow_task", "broken_schema"]
        weather = await live.call("get_weather", {"city": "Paris", "unit": "fahrenheit"})
        assert not weather.is_error and weather.error is None
        assert weather.structured == {
            "city": "Paris",
            "temperature": 37,
            "unit": "fahrenheit",
            "conditions": "sunny",
        }
        assert json.loads(weather.content)["temperature"] == 37
        product = await live.call("calculate", '{"operation": "multiply", "a": 6, "b": 7}')
        assert product.content == "42.0" and product.arguments == {
            "operation": "multiply",
            "a": 6,
            "b": 7,
        }
        assert product.latency_ms > 0


async def test_failures_are_results_not_exceptions(http_url: str) -> None:
    async with MCPToolRunner(http_url, call_timeout=10) as live:
        zero = await live.call("calculate", {"operation": "divide", "a": 1, "b": 0})
        assert (zero.is_error, zero.error_type) == (True, "tool")
        assert "division by zero" in zero.content
        typo = await live.call("calculate", {"operation": "add", "a": "one", "b": 2})
        assert (typo.is_error, typo.error_type) == (True, "tool")
        unknown = await live.call("get_forecast", {"city": "Paris"})
        assert unknown.error_type == "unknown_tool"
        assert unknown.content.startswith("Error: unknown tool 'get_forecast'; available tools: ")
        garbled = await live.call("get_weather", '{"city": "Paris"')
        assert garbled.error_type == "bad_arguments" and garbled.arguments == '{"city": "Paris"'
        listed = await live.call("get_weather", "[1, 2]")
        assert listed.error_type == "bad_arguments" and "JSON object" in listed.content


async def test_per_call_timeout_then_the_connection_still_works(sse_url: str) -> None:
    async with MCPToolRunner(sse_url, call_timeout=0.5) as live:
        start = time.monotonic()
        slow = await live.call("slow_task", {"seconds": 30})
        assert time.monotonic() - start < 10  # the 0.5 s limit, not the task's 30 s (slack: load)
        assert (slow.is_error, slow.error_type) == (True, "timeout")
        assert "did not answer within 0.5 s" in slow.content
        quick = await live.call("slow_task", {"seconds": 0})
        assert (quick.is_error, quick.content) == (False, "done")


async def test_concurrent_calls_from_many_tasks(http_url: str) -> None:
    async with MCPToolRunner(http_url) as live:
        results = await asyncio.gather(
            *(live.call("calculate", {"operation": "add", "a": i, "b": 1}) for i in range(20))
        )
    assert [r.content for r in results] == [f"{i + 1.0}" for i in range(20)]


async def test_allowed_tools_restrict_calls(http_url: str) -> None:
    async with MCPToolRunner(http_url, tools=["get_weather"]) as live:
        denied = await live.call("calculate", {"operation": "add", "a": 1, "b": 1})
    assert denied.error_type == "unknown_tool"
    assert denied.content.endswith("available tools: get_weather")


async def test_an_imported_suites_tools_restrict_calls(http_url: str) -> None:
    with pytest.warns(MCPImportWarning, match="broken_schema"):
        suite = await import_mcp_async(http_url)
    async with MCPToolRunner(http_url, tools=suite.tools) as live:
        assert "broken_schema" in live.tool_names  # the server lists it; the import skipped it
        skipped = await live.call("broken_schema", {"x": 1})
        product = await live.call("calculate", {"operation": "add", "a": 1, "b": 1})
    assert skipped.error_type == "unknown_tool"
    assert skipped.content.endswith("available tools: get_weather, calculate, slow_task")
    assert (product.is_error, product.content) == (False, "2.0")


async def test_cancelled_start_stops_connecting(slow_list_url: str) -> None:
    runner = MCPToolRunner(slow_list_url, list_timeout=120)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(runner.start(), timeout=1.0)
    start = time.monotonic()
    await runner.aclose()  # the connection was dropped with the start: nothing to wait for
    assert time.monotonic() - start < 10  # not the 120 s listing limit (slack: a loaded machine)
    assert repr(runner).startswith("MCPToolRunner('http://127.0.0.1:") and "closed" in repr(runner)


async def test_unreachable_server(tmp_path) -> None:
    runner = MCPToolRunner("http://127.0.0.1:9/mcp", connect_timeout=3)
    with pytest.raises(MCPImportError, match="could not reach"):
        await runner.start()
    result = await runner.call("get_weather", {"city": "Paris"})
    assert isinstance(result, LiveToolResult) and result.error_type == "connection"
    await runner.aclose()


@pytest.mark.parametrize("transport", ["sse", "streamable-http"])
async def test_server_going_away_mid_run(own_server, transport: str) -> None:
    proc, url = own_server(transport)
    live = await MCPToolRunner(url, call_timeout=5, connect_timeout=3).start()
    try:
        assert not (await live.call("slow_task", {"seconds": 0})).is_error
        proc.kill()
        proc.wait(timeout=10)
        start = time.monotonic()
        lost = await live.call("slow_task", {"seconds": 0})
        assert lost.is_error and lost.error_type in ("connection", "timeout")
        again = await live.call("slow_task", {"seconds": 0})  # reconnecting fails
        assert again.is_error and again.error_type == "connection"
        assert "could not reach" in again.content
        fast = time.monotonic()
        third = await live.call("slow_task", {"seconds": 0})  # fails fast from now on
        assert third.error_type == "connection" and time.monotonic() - fast < 0.5
        assert time.monotonic() - start < 15
    finally:
        await live.aclose()


@pytest.mark.parametrize("transport", ["sse", "streamable-http"])
async def test_restarted_server_is_reconnected(own_server, transport: str) -> None:
    proc, url = own_server(transport)
    port = url.split(":")[2].split("/")[0]
    async with MCPToolRunner(url, call_timeout=2) as live:
        assert not (await live.call("slow_task", {"seconds": 0})).is_error
        proc.kill()
        proc.wait(timeout=10)
        own_server(transport, "--port", port)
        results = [
            await live.call("calculate", {"operation": "add", "a": 1, "b": i}) for i in range(3)
        ]
    # the first call may meet the dead connection (SSE) or go through at once (stateless HTTP)
    assert results[0].error_type in (None, "connection", "timeout"), results[0]
    assert [(r.is_error, r.content) for r in results[1:]] == [(False, "2.0"), (False, "3.0")]


def test_result_becomes_a_tool_message() -> None:
    result = LiveToolResult(name="get_weather", arguments={"city": "Paris"}, content="sunny")
    assert result.to_message("call_1") == {
        "role": "tool",
        "tool_call_id": "call_1",
        "name": "get_weather",
        "content": "sunny",
    }
