"""MCP tools to suite tools, and the wire screen (pure functions, no servers)."""

from __future__ import annotations

from typing import Any

import pytest

from tooleval_nb.errors import MCPImportError
from tooleval_nb.mcp import MCPImportWarning, convert_tools, mcp_tool_to_tool
from tooleval_nb.mcp.convert import suite_from_tools
from tooleval_nb.mcp.wire import ToolScreen, wire_problem

WEATHER: dict[str, Any] = {
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "inputSchema": {
        "type": "object",
        "title": "get_weatherArguments",
        "required": ["city"],
        "properties": {
            "city": {"type": "string", "title": "City"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        },
    },
    "annotations": {"readOnlyHint": True},
}


def test_mcp_tool_becomes_openai_tool() -> None:
    tool = mcp_tool_to_tool(WEATHER)
    assert tool.to_openai() == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": WEATHER["inputSchema"],
        },
    }
    assert tool.required == ["city"]
    assert tool.function.parameters is not WEATHER["inputSchema"]  # a copy, not shared


def test_sdk_tool_objects_are_accepted() -> None:
    from mcp_types import Tool as WireTool

    tool = mcp_tool_to_tool(WireTool.model_validate(WEATHER))
    assert tool.name == "get_weather" and list(tool.properties) == ["city", "unit"]


@pytest.mark.parametrize(
    ("raw", "params", "description"),
    [
        ({"name": "ping"}, {"type": "object", "properties": {}}, ""),
        (
            {"name": "ping", "inputSchema": {"type": "object"}},
            {"type": "object", "properties": {}},
            "",
        ),
        (
            {"name": "ping", "title": "Ping the host", "inputSchema": {"properties": {}}},
            {"type": "object", "properties": {}},
            "Ping the host",
        ),
        (
            {"name": "ping", "annotations": {"title": "Ping"}, "inputSchema": {"type": "object"}},
            {"type": "object", "properties": {}},
            "Ping",
        ),
    ],
    ids=["no-schema", "no-properties", "title-and-no-type", "annotation-title"],
)
def test_minimal_tools_are_completed(raw, params, description) -> None:
    tool = mcp_tool_to_tool(raw)
    assert tool.function.parameters == params
    assert tool.function.description == description


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ({"description": "no name", "inputSchema": {"type": "object"}}, "no name"),
        ({"name": "x", "inputSchema": "{}"}, "must be a JSON Schema object"),
        ({"name": "x", "inputSchema": {"type": "string"}}, "must describe an object"),
        (
            {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"type": "nope"}}}},
            "properties/a/type",
        ),
        ({"name": "x", "inputSchema": {"type": "object", "required": "a"}}, "required"),
    ],
    ids=["no-name", "schema-string", "not-object", "unknown-type", "required-not-list"],
)
def test_unusable_tools_say_why(raw, needle) -> None:
    with pytest.raises(ValueError, match=needle):
        mcp_tool_to_tool(raw)


def test_convert_skips_bad_and_duplicate_tools_with_reasons() -> None:
    raw = [
        WEATHER,
        {
            "name": "broken",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "no-such-type"}}},
        },
        WEATHER,
        {"name": "get.weather"},
        {"name": "nodesc", "inputSchema": {"type": "object"}},
    ]
    out = convert_tools(raw, rejected={"wire_bad": "inputSchema.type: Input should be 'object'"})
    assert [t.name for t in out.tools] == ["get_weather", "nodesc"]
    assert set(out.skipped) == {"wire_bad", "broken", "get_weather (#2)", "get.weather"}
    assert "duplicate" in out.skipped["get_weather (#2)"]
    assert "provider-safe name 'get_weather'" in out.skipped["get.weather"]
    assert out.notes == [
        "nodesc: no description (models and draft cases will have to guess from the name)"
    ]


def test_suite_warns_once_listing_every_skipped_tool() -> None:
    out = convert_tools(
        [
            WEATHER,
            {"name": "b1", "inputSchema": {"type": "string"}},
            {"name": "b2", "inputSchema": {"type": "array"}},
        ]
    )
    with pytest.warns(MCPImportWarning, match=r"(?s)skipped 2 of 3.*b1: .*b2: ") as record:
        suite = suite_from_tools(out, "demo", source="mcp:test")
    assert len(record) == 1
    assert [t.name for t in suite.tools] == ["get_weather"] and suite.cases == []
    assert suite.source == "mcp:test"


def test_strict_raises_instead_of_warning() -> None:
    out = convert_tools([WEATHER, {"name": "b1", "inputSchema": {"type": "string"}}])
    with pytest.raises(MCPImportError, match=r"(?s)1 of the 2 .*strict=True.*b1"):
        suite_from_tools(out, "demo", strict=True)


def test_nothing_usable_is_an_error() -> None:
    with pytest.raises(MCPImportError, match="lists no tools"):
        suite_from_tools(convert_tools([]), "demo")
    bad = convert_tools([{"name": "b1", "inputSchema": {"type": "string"}}])
    with pytest.raises(MCPImportError, match=r"(?s)none of the 1 tool\(s\).*b1"):
        suite_from_tools(bad, "demo")


def test_long_problem_lists_are_shortened() -> None:
    raw = [WEATHER] + [{"name": f"b{i}", "inputSchema": {"type": "string"}} for i in range(45)]
    with pytest.warns(MCPImportWarning, match=r"\.\.\. and 25 more"):
        suite_from_tools(convert_tools(raw), "demo")


def test_truncation_is_reported() -> None:
    with pytest.warns(MCPImportWarning, match=r"more than 1 tools.*max_tools="):
        suite_from_tools(convert_tools([WEATHER]), "demo", truncated_at=1)


@pytest.mark.parametrize(
    ("tool", "needle"),
    [
        (WEATHER, None),
        (
            {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"type": "nope"}}}},
            None,
        ),  # the SDK lets this through; the converter catches it
        ("not a dict", "not an object"),
        ({"inputSchema": {"type": "object"}}, "no name"),
        ({"name": "x"}, "inputSchema is missing"),
        ({"name": "x", "inputSchema": {"type": "string"}}, "type 'object'"),
        ({"name": "x", "inputSchema": {"type": "object", "required": "a"}}, "inputSchema.required"),
        ({"name": "x", "description": 5, "inputSchema": {"type": "object"}}, "description"),
    ],
    ids=[
        "good",
        "sdk-accepts-bad-jsonschema",
        "not-dict",
        "no-name",
        "no-schema",
        "not-object",
        "required-string",
        "description-number",
    ],
)
def test_wire_problem_matches_the_sdk(tool, needle) -> None:
    problem = wire_problem(tool)
    if needle is None:
        assert problem is None
    else:
        assert problem is not None and needle in problem


def test_screen_drops_bad_tools_from_listing_messages() -> None:
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCResponse

    result = {"tools": [WEATHER, {"name": "bad", "inputSchema": {"type": "string"}}, 7]}
    message = SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=1, result=result))
    screen = ToolScreen()
    assert screen.screen(message) is message
    assert [t["name"] for t in message.message.result["tools"]] == ["get_weather"]
    assert set(screen.rejected) == {"bad", "#2"}
    other = SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=2, result={"content": []}))
    assert screen.screen(other).message.result == {"content": []}
    error = RuntimeError("stream error")
    assert screen.screen(error) is error


def test_transport_annotations_are_left_out() -> None:
    raw = {
        "name": "get_repo",
        "inputSchema": {
            "type": "object",
            "properties": {
                "owner": {"type": "string", "x-mcp-header": "Owner"},
                "x-count": {"type": "integer"},
            },
            "x-vendor": True,
        },
    }
    tool = mcp_tool_to_tool(raw)
    assert tool.function.parameters == {
        "type": "object",
        "properties": {"owner": {"type": "string"}, "x-count": {"type": "integer"}},
    }
    assert "x-mcp-header" in raw["inputSchema"]["properties"]["owner"]  # input untouched
