"""The data model, the base parser's contract, and the registry."""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import ValidationError

from tooleval_nb.errors import ParserError
from tooleval_nb.parsers import (
    PARSER_FORMATS,
    DeltaToolCall,
    ExtractedToolCallInformation,
    ParserFormat,
    get_parser,
    parse_tool_calls,
)
from tooleval_nb.parsers.protocol import final_content, mistral_call_id, tool_index
from tooleval_nb.toolcall import ToolCall


def test_tools_called_must_match_calls() -> None:
    with pytest.raises(ValidationError, match="tools_called"):
        ExtractedToolCallInformation(tools_called=True, tool_calls=[])
    with pytest.raises(ValidationError, match="tools_called"):
        ExtractedToolCallInformation(tools_called=False, tool_calls=[ToolCall.create("f")])


def test_delta_index_is_not_negative() -> None:
    with pytest.raises(ValidationError):
        DeltaToolCall(index=-1)


@pytest.mark.parametrize(
    ("text", "called", "expected"),
    [
        ("  hi \n", False, "  hi \n"),
        ("", False, ""),
        ("  hi \n", True, "hi"),
        (" \n ", True, None),
    ],
    ids=["no-call-kept-as-is", "empty", "stripped-with-calls", "whitespace-is-none"],
)
def test_content_rule(text: str, called: bool, expected: str | None) -> None:
    assert final_content(text, called) == expected


#: vLLM's ``--tool-call-parser`` names the issue asks for, beyond the first six formats
VLLM_NAMES = [
    "qwen3_coder",
    "deepseek_v3",
    "deepseek_v31",
    "kimi_k2",
    "glm45",
    "granite",
    "granite4",
    "granite-20b-fc",
    "xlam",
    "phi4_mini_json",
    "internlm",
    "hunyuan_a13b",
    "minimax",
    "seed_oss",
    "step3",
    "step3p5",
    "llama4_pythonic",
    "olmo3",
    "jamba",
    "longcat",
    "ernie45",
    "gigachat3",
    "lfm2",
]


def test_all_formats_registered() -> None:
    assert PARSER_FORMATS[:6] == ("hermes", "pythonic", "mistral", "llama3_json", "openai", "json")
    assert set(VLLM_NAMES) <= set(PARSER_FORMATS)
    assert set(get_args(ParserFormat)) == set(PARSER_FORMATS)
    assert all(get_parser(name).format == name for name in PARSER_FORMATS)


@pytest.mark.parametrize("bad", ["llama", "Qwen2.5-7B", ""], ids=["prefix", "model-name", "empty"])
def test_unknown_format_is_a_parser_error(bad: str) -> None:
    with pytest.raises(ParserError, match="unknown parser format"):
        get_parser(bad)


def test_harmony_alias() -> None:
    assert get_parser("harmony").format == "openai"


def test_feed_after_finish_is_an_error() -> None:
    parser = get_parser("hermes")
    parser.feed("hi")
    parser.finish()
    with pytest.raises(ParserError, match="fresh parser"):
        parser.feed("more")
    assert parser.finish() is None  # a second finish is harmless


def test_feed_needs_text() -> None:
    with pytest.raises(ParserError, match="takes text"):
        get_parser("json").feed(b"{}")  # type: ignore[arg-type]
    with pytest.raises(ParserError, match="model's text"):
        parse_tool_calls(123, "json")  # type: ignore[arg-type]


def test_none_text_is_empty_content() -> None:
    info = parse_tool_calls(None, "hermes")  # type: ignore[arg-type]
    assert (info.tools_called, info.content) == (False, "")


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_ids_unique_and_long(fmt: str) -> None:
    from tooleval_nb.parsers import render_tool_calls

    calls = [ToolCall.create(f"f{k}", {"k": k}) for k in range(5)]
    info = parse_tool_calls(render_tool_calls(calls, fmt), fmt)
    ids = [c.id for c in info.tool_calls]
    assert len(set(ids)) == 5
    if fmt == "mistral":
        assert all(len(i) == 9 and i.isalnum() for i in ids)
    else:
        assert all(len(i) >= 16 for i in ids)


def test_mistral_id_shape() -> None:
    assert all(len(i) == 9 and i.isalnum() for i in (mistral_call_id() for _ in range(50)))


def test_unknown_tool_is_noted_not_dropped() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    info = parse_tool_calls(
        '<tool_call>{"name": "get_wether", "arguments": {}}</tool_call>', "hermes", tools
    )
    assert [c.function.name for c in info.tool_calls] == ["get_wether"]
    assert "not among the tools" in info.problems[0]


def test_tool_index_accepts_tools_and_dicts() -> None:
    from tooleval_nb.suite import Tool

    tool = Tool.model_validate(
        {
            "name": "a",
            "parameters": {
                "type": "object",
                "properties": {"x": {"type": "string"}, "y": {"type": "integer"}},
            },
        }
    )
    assert tool_index([tool, {"name": "b"}]) == {"a": ["x", "y"], "b": []}
    assert tool_index(None) is None


def test_parser_bug_degrades_to_content(monkeypatch: pytest.MonkeyPatch) -> None:
    from tooleval_nb.parsers.hermes import HermesParser

    def boom(self: HermesParser, data: str, final: bool) -> int:
        raise RuntimeError("bug")

    monkeypatch.setattr(HermesParser, "_scan", boom)
    info = parse_tool_calls("<tool_call>{}</tool_call> text", "hermes")
    assert info.content == "<tool_call>{}</tool_call> text"
    assert "failed (RuntimeError: bug)" in info.problems[0]


def test_mimebundle_has_html_and_text() -> None:
    info = parse_tool_calls(
        '<tool_call>{"name": "f", "arguments": {"a": "<b>"}}</tool_call>x', "hermes"
    )
    bundle = info._repr_mimebundle_()
    assert "text/plain" in bundle
    assert "&lt;b&gt;" in bundle["text/html"] and "<table>" in bundle["text/html"]


def test_mimebundle_falls_back_to_text_through_the_one_guard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = parse_tool_calls('<tool_call>{"name": "f", "arguments": {}}</tool_call>', "hermes")

    def boom(self: ExtractedToolCallInformation) -> str:
        raise RuntimeError("render bug")

    monkeypatch.setattr(ExtractedToolCallInformation, "_html", boom)
    assert info._repr_mimebundle_() == {"text/plain": repr(info)}
