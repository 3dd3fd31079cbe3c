"""ToolCall: the one call shape every layer shares, and the converters into it."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from tooleval_nb.toolcall import FunctionCall, ToolCall, make_call_id, to_tool_calls


def test_make_call_id_is_random_and_prefixed() -> None:
    ids = {make_call_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(i.startswith("call_") and len(i) == 29 and i[5:].isalnum() for i in ids)


def test_call_ids_ignore_the_users_seed_and_differ_in_a_forked_child() -> None:
    import os
    import random

    random.seed(7)
    first = make_call_id()
    random.seed(7)
    assert make_call_id() != first  # the user's seed neither fixes our ids...
    random.seed(7)
    expected = random.random()
    random.seed(7)
    make_call_id()
    assert random.random() == expected  # ...nor consumes their sequence
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, sent to the parent
        os.write(write, make_call_id().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    assert child.startswith("call_") and child != make_call_id()


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (None, "{}"),
        ({"city": "Paris"}, '{"city": "Paris"}'),
        ('{"city": "Zürich"}', '{"city": "Zürich"}'),
        ({"city": "Zürich"}, '{"city": "Zürich"}'),
    ],
    ids=["none", "dict", "json-text", "non-ascii-dict"],
)
def test_create_keeps_arguments_as_json_text(arguments: object, expected: str) -> None:
    call = ToolCall.create("get_weather", arguments, id="call_1")  # type: ignore[arg-type]
    assert call.function.arguments == expected
    assert call.name == "get_weather" and call.id == "call_1" and call.type == "function"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ("", {}),
        ("   ", {}),
        ("[1, 2]", None),
        ("{not json", None),
        ('"text"', None),
    ],
    ids=["object", "empty", "blank", "array", "broken", "string"],
)
def test_parsed_arguments(raw: str, expected: object) -> None:
    call = ToolCall(function=FunctionCall(name="f", arguments=raw))
    assert call.parsed_arguments() == expected


OPENAI = {
    "id": "call_9",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}


@pytest.mark.parametrize(
    "shape",
    [
        OPENAI,
        {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}, "id": "call_9"},
        {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_9"},
        {"name": "get_weather", "parameters": {"city": "Paris"}, "id": "call_9"},
        SimpleNamespace(
            id="call_9", function=SimpleNamespace(name="get_weather", arguments='{"city": "Paris"}')
        ),
    ],
    ids=["openai", "openai-dict-args", "flat", "flat-parameters", "sdk-object"],
)
def test_of_accepts_every_supported_shape(shape: object) -> None:
    call = ToolCall.of(shape)
    assert call.name == "get_weather"
    assert call.parsed_arguments() == {"city": "Paris"}
    assert call.id == "call_9"


def test_of_bfcl_single_key_dict_gets_a_fresh_id() -> None:
    call = ToolCall.of({"math.factorial": {"number": 5}})
    assert call.name == "math.factorial" and call.parsed_arguments() == {"number": 5}
    assert call.id.startswith("call_")
    text_args = ToolCall.of({"f": '{"x": [1, 2]}'})  # BFCL result files carry JSON text
    assert text_args.parsed_arguments() == {"x": [1, 2]}


def test_of_keeps_non_dict_arguments_as_json() -> None:
    call = ToolCall.of({"name": "f", "arguments": [1, 2]})
    assert json.loads(call.function.arguments) == [1, 2]
    assert call.parsed_arguments() is None


@pytest.mark.parametrize(
    "bad", [{"a": 1, "b": 2}, 42, "get_weather()"], ids=["two-keys", "number", "text"]
)
def test_of_rejects_what_is_not_a_call(bad: object) -> None:
    with pytest.raises(ValueError, match="not a tool call"):
        ToolCall.of(bad)


def test_of_returns_tool_calls_unchanged() -> None:
    call = ToolCall.of(OPENAI)
    assert ToolCall.of(call) is call


@pytest.mark.parametrize(
    ("calls", "names"),
    [
        (None, []),
        (OPENAI, ["get_weather"]),
        ([OPENAI, {"name": "b"}], ["get_weather", "b"]),
        ((c for c in [{"x": {}}]), ["x"]),
    ],
    ids=["none", "one", "list", "generator"],
)
def test_to_tool_calls(calls: object, names: list[str]) -> None:
    assert [c.name for c in to_tool_calls(calls)] == names


def test_calls_are_frozen_and_round_trip_through_json() -> None:
    call = ToolCall.of(OPENAI)
    with pytest.raises(ValueError):
        call.id = "other"  # type: ignore[misc]
    assert ToolCall.model_validate_json(call.model_dump_json()) == call
    assert call.model_dump() == OPENAI
