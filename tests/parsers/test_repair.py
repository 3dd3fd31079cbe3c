"""The "JSON stuffed into the function name" repair for native calls from local servers."""

from __future__ import annotations

import pytest

from tooleval_nb.parsers import repair_tool_call, repair_tool_calls
from tooleval_nb.toolcall import ToolCall

REPAIRS = [
    (
        '{"name": "get_weather", "arguments": {"city": "Tokyo"}}',
        "{}",
        "get_weather",
        '{"city": "Tokyo"}',
    ),
    (
        '{"name": "get_weather", "parameters": {"city": "Tokyo"}}',
        "",
        "get_weather",
        '{"city": "Tokyo"}',
    ),
    ('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>', "{}", "f", '{"a": 1}'),
    ('```json\n{"name": "f", "arguments": {"a": 1}}\n```', "{}", "f", '{"a": 1}'),
    (
        '{"type": "function", "function": {"name": "g", "arguments": "{\\"z\\": null}"}}',
        "",
        "g",
        '{"z": null}',
    ),
    ("{'name': 'f', 'arguments': {'a': True}}", "{}", "f", '{"a": true}'),
    ('get_weather{"city": "Tokyo"}', "", "get_weather", '{"city": "Tokyo"}'),
    ("get_weather(city='Tokyo', days=3)", "{}", "get_weather", '{"city": "Tokyo", "days": 3}'),
    ("[get_weather(city='Tokyo')]", "{}", "get_weather", '{"city": "Tokyo"}'),
    ('{"name": "f", "arguments": {"a": 1}}', '{"b": 2}', "f", '{"b": 2}'),
    ("  get_weather ", '{"city": "Tokyo"}', "get_weather", '{"city": "Tokyo"}'),
    ("f", '{"name": "f", "arguments": {"x": 2}}', "f", '{"x": 2}'),
]


@pytest.mark.parametrize(
    ("name", "arguments", "want_name", "want_args"),
    REPAIRS,
    ids=[
        "json",
        "parameters",
        "tool-call-tags",
        "code-fence",
        "openai-shape",
        "python-literal",
        "name-then-json",
        "pythonic",
        "pythonic-list",
        "own-arguments-win",
        "whitespace",
        "arguments-wrap-call",
    ],
)
def test_repairs(name: str, arguments: str, want_name: str, want_args: str) -> None:
    call = ToolCall.create(name, arguments)
    notes: list[str] = []
    fixed = repair_tool_call(call, notes)
    assert (fixed.function.name, fixed.function.arguments) == (want_name, want_args)
    assert fixed.id == call.id
    assert len(notes) == 1 and call.id in notes[0]


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("get_weather", '{"city": "Tokyo"}'),
        ("spotify.play", "{}"),
        ("get-weather", ""),
        ("{not json at all", "{}"),
        ('{"city": "Tokyo"}', "{}"),
        ("f", '{"name": "other", "arguments": {}}'),
    ],
    ids=["clean", "dotted", "dash", "broken-json", "json-without-name", "arguments-name-differs"],
)
def test_no_repair_returns_the_same_call(name: str, arguments: str) -> None:
    call = ToolCall.create(name, arguments)
    notes: list[str] = []
    assert repair_tool_call(call, notes) is call
    assert notes == []


def test_accepts_other_shapes_and_lists() -> None:
    raw = {
        "id": "call_0123456789abcdef",
        "type": "function",
        "function": {"name": '{"name": "f", "arguments": {"a": 1}}', "arguments": "{}"},
    }
    fixed = repair_tool_calls([raw, ToolCall.create("g")])
    assert [(c.id, c.function.name) for c in fixed][0] == ("call_0123456789abcdef", "f")
    assert fixed[1].function.name == "g"
