"""Wire formats alone: what NativeWire and RawTextWire put in a request and read from a reply."""

from __future__ import annotations

import json

import pytest

from tooleval_nb.errors import ModelConfigError
from tooleval_nb.models import DEFAULT_MODEL, ModelSpec
from tooleval_nb.models.messages import DEFAULT_SYSTEM
from tooleval_nb.models.wire import NativeWire, RawTextWire, wire_for


def _call(name: str, arguments: str = "{}", call_id: str = "c1") -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_native_sends_api_names_and_names_the_way_back(tools):
    parts = NativeWire().prepare([{"role": "user", "content": "hi"}], tools, "auto")
    assert [t["function"]["name"] for t in parts.tools] == ["weather_get", "get_time"]
    assert parts.tool_choice == "auto"
    assert parts.names == {"weather_get": "weather.get", "get_time": "get_time"}
    assert parts.messages == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        ("required", "required"),
        ("none", "none"),
        ("weather.get", {"type": "function", "function": {"name": "weather_get"}}),
        (
            {"type": "function", "function": {"name": "weather.get"}},
            {"type": "function", "function": {"name": "weather_get"}},
        ),
        ("unknown_tool", {"type": "function", "function": {"name": "unknown_tool"}}),
    ],
    ids=["required", "none", "name", "dict", "unknown-name"],
)
def test_native_tool_choice(tools, choice, sent):
    assert NativeWire().prepare([], tools, choice).tool_choice == sent


def test_native_without_tools_sends_neither_tools_nor_choice():
    parts = NativeWire().prepare([{"role": "user", "content": "hi"}], [], "required")
    assert (parts.tools, parts.tool_choice, parts.names) == (None, None, {})


def test_native_bad_tool_choice_is_a_config_error(tools):
    with pytest.raises(ModelConfigError, match="tool_choice"):
        NativeWire().prepare([], tools, 3)


def test_native_merges_system_messages_and_adapts_to_chatml(tools, tool_history):
    messages = [{"role": "system", "content": "A."}, {"role": "system", "content": "B."}]
    assert NativeWire().prepare(messages, tools, "auto").messages == [
        {"role": "system", "content": "A.\n\nB."}
    ]
    chatml = NativeWire(chatml_tools=True).prepare(tool_history("weather.get"), tools, "auto")
    assert chatml.messages[0] == {"role": "system", "content": DEFAULT_SYSTEM}
    assert [m["role"] for m in chatml.messages] == ["system", "user", "assistant", "user"]
    assert chatml.messages[2]["content"].startswith("functions.weather.get:")


def test_native_read_maps_names_back_and_records_problems(tools):
    wire = NativeWire()
    names = wire.prepare([], tools, "auto").names
    stuffed = json.dumps({"name": "get_time", "arguments": {"tz": "UTC"}})
    message = {
        "role": "assistant",
        "content": "calling",
        "tool_calls": [
            _call("weather_get", '{"city": "Paris"}'),
            _call(stuffed, "{}", "c2"),
            _call("get_time", '{"tz": "UT', "c3"),
            {"id": "c4", "function": None},
        ],
    }
    reading = wire.read(message, tools, names)
    assert [(c.name, c.parsed_arguments()) for c in reading.calls] == [
        ("weather.get", {"city": "Paris"}),
        ("get_time", {"tz": "UTC"}),
        ("get_time", None),
    ]
    assert reading.content == "calling"
    assert len(reading.problems) == 3  # the repair, the bad arguments, the unreadable call
    assert any("not a JSON object" in p for p in reading.problems)
    assert any("tool call 3 could not be read" in p for p in reading.problems)


def test_native_read_of_a_text_answer(tools):
    reading = NativeWire().read({"role": "assistant", "content": "hello"}, tools, {})
    assert (reading.calls, reading.content, reading.problems) == ([], "hello", [])


def test_raw_text_describes_the_tools_and_sends_no_tools_field(tools):
    messages = [{"role": "system", "content": "Rules."}, {"role": "user", "content": "Weather?"}]
    parts = RawTextWire("hermes").prepare(messages, tools, "required")
    assert (parts.tools, parts.tool_choice, parts.names) == (None, None, {})
    system = parts.messages[0]["content"]
    assert system.startswith("Rules.") and "weather.get" in system
    assert "at least one function call" in system
    assert [m["role"] for m in parts.messages] == ["system", "user", "assistant", "user"]


@pytest.mark.parametrize("choice", ["none", "auto"], ids=["none", "no-tools"])
def test_raw_text_describes_nothing_without_tools_or_with_none(tools, choice):
    offered = tools if choice == "none" else []
    parts = RawTextWire("pythonic").prepare([{"role": "user", "content": "hi"}], offered, choice)
    assert parts.messages == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("fmt", "text", "calls", "content"),
    [
        (
            "hermes",
            'Sure.\n<tool_call>\n{"name": "weather.get", "arguments": {"city": "Oslo"}}\n'
            "</tool_call>",
            [("weather.get", {"city": "Oslo"})],
            "Sure.",
        ),
        ("pythonic", "[get_time(tz='UTC')]", [("get_time", {"tz": "UTC"})], None),
        ("hermes", "no calls here", [], "no calls here"),
    ],
    ids=["hermes", "pythonic", "text"],
)
def test_raw_text_read_parses_the_text(tools, fmt, text, calls, content):
    reading = RawTextWire(fmt).read({"role": "assistant", "content": text}, tools, {})
    assert [(c.name, c.parsed_arguments()) for c in reading.calls] == calls
    assert (reading.content or None) == content and reading.problems == []


def test_raw_text_read_keeps_problems_as_data(tools):
    text = '<tool_call>\n{"name": "weather.get", "arguments": {"city": </tool_call>'
    reading = RawTextWire("hermes").read({"role": "assistant", "content": text}, tools, {})
    assert reading.calls == [] and reading.problems


def test_raw_text_read_of_no_text(tools):
    reading = RawTextWire("hermes").read({"role": "assistant", "content": None}, tools, {})
    assert (reading.calls, reading.content, reading.problems) == ([], None, [])


def test_unknown_raw_format_is_a_config_error():
    with pytest.raises(ModelConfigError, match="unknown raw-text format"):
        RawTextWire("xml")


@pytest.mark.parametrize(
    ("spec", "wire"),
    [
        (ModelSpec(model="openai/x", api_base="http://h/v1"), "NativeWire(chatml_tools=False)"),
        (ModelSpec(model=DEFAULT_MODEL), "NativeWire(chatml_tools=True)"),
        (ModelSpec(model="openai/x", mode="pythonic"), "RawTextWire('pythonic')"),
    ],
    ids=["native", "embedded-native", "raw-text"],
)
def test_wire_for_gives_one_wire_per_mode(spec, wire):
    assert repr(wire_for(spec)) == wire
    assert wire_for(spec) is wire_for(spec.model_copy())
