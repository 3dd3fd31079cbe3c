"""The demo MCP server we ship (``python -m tooleval_nb.mcp.demo_server``), over stdio and HTTP."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

from tooleval_nb.mcp import MCPToolRunner, import_mcp_async

from .conftest import _stop

COMMAND = [sys.executable, "-m", "tooleval_nb.mcp.demo_server"]
TOOLS = ["get_weather", "calculate", "convert_currency", "add_note", "search_notes"]


@pytest.fixture(scope="module")
def serve() -> Iterator[Callable[[str], str]]:
    """Start the demo server over an HTTP transport on loopback; returns its URL."""
    procs: list[subprocess.Popen[str]] = []

    def start(transport: str) -> str:
        proc = subprocess.Popen(
            [*COMMAND, "--transport", transport],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)  # it prints once it listens
        line = proc.stdout.readline() if ready else ""
        assert line.startswith("PORT "), f"demo server did not start: {line!r}"
        path = "/sse" if transport == "sse" else "/mcp"
        return f"http://127.0.0.1:{int(line.split()[1])}{path}"

    yield start
    for proc in procs:
        _stop(proc)


@pytest.fixture(params=["stdio", "sse", "streamable-http"])
def target(request: pytest.FixtureRequest, serve: Callable[[str], str]) -> str | list[str]:
    return list(COMMAND) if request.param == "stdio" else serve(request.param)


async def test_imports_five_described_tools(target) -> None:
    suite = await import_mcp_async(target)
    assert suite.name == "tooleval-demo"
    assert [t.name for t in suite.tools] == TOOLS
    for tool in suite.tools:
        assert tool.function.description, tool.name
        assert all(p.get("description") for p in tool.properties.values()), tool.name
    weather = suite.tools[0]
    assert weather.required == ["city"]
    assert weather.properties["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert suite.tools[2].properties["from_currency"]["enum"] == ["USD", "EUR", "GBP", "JPY", "CHF"]


async def test_answers_are_deterministic_and_notes_persist(target) -> None:
    async with MCPToolRunner(target, call_timeout=20) as live:
        paris = await live.call("get_weather", {"city": "Paris"})
        fahrenheit = await live.call("get_weather", '{"city": "paris", "unit": "fahrenheit"}')
        unknown = [await live.call("get_weather", {"city": "Quito"}) for _ in range(2)]
        product = await live.call("calculate", {"operation": "multiply", "a": 6, "b": 7})
        euros = await live.call(
            "convert_currency", {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}
        )
        first = await live.call("add_note", {"title": "Groceries", "text": "Buy milk and eggs"})
        await live.call("add_note", {"title": "Trip", "text": "Book the train to Rome"})
        found = await live.call("search_notes", {"query": "MILK"})
    assert paris.structured == {
        "city": "Paris",
        "temperature": 18,
        "unit": "celsius",
        "conditions": "partly cloudy",
        "humidity": 62,
    }
    assert fahrenheit.structured["temperature"] == 64
    assert unknown[0].structured == unknown[1].structured and not unknown[0].is_error
    assert product.structured == {"result": 42.0}
    assert euros.structured["result"] == 92.0
    assert first.structured["id"] == 1
    notes = json.loads(found.content)
    assert [n["title"] for n in (notes if isinstance(notes, list) else [notes])] == ["Groceries"]


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("calculate", {"operation": "divide", "a": 1, "b": 0}, "division by zero"),
        (
            "convert_currency",
            {"amount": -5, "from_currency": "USD", "to_currency": "XYZ"},
            "to_currency",
        ),
        ("add_note", {"title": "", "text": "x"}, "title"),
    ],
    ids=["divide-by-zero", "bad-currency", "empty-title"],
)
async def test_bad_calls_are_tool_errors(name, arguments, message) -> None:
    async with MCPToolRunner(COMMAND, call_timeout=20) as live:
        result = await live.call(name, arguments)
    assert result.is_error and result.error_type == "tool"
    assert message in result.content
