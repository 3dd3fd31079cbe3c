"""Tools prompts, example exchanges and raw-text history for each format."""

from __future__ import annotations

import pytest

from tooleval_nb.errors import ParserError
from tooleval_nb.parsers import (
    PARSER_FORMATS,
    example_exchange,
    parse_tool_calls,
    render_tools_prompt,
    with_tools_prompt,
)
from tooleval_nb.suite import Tool

TOOLS = [
    Tool.model_validate(
        {
            "name": "get_weather",
            "description": "Current weather.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer"},
                },
                "required": ["city", "units"],
            },
        }
    ),
    {
        "type": "function",
        "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}},
    },
]


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_prompt_names_every_tool(fmt: str) -> None:
    prompt = render_tools_prompt(TOOLS, fmt)
    assert "get_weather" in prompt and "get_time" in prompt


def test_harmony_prompt_is_typescript() -> None:
    prompt = render_tools_prompt(TOOLS, "openai")
    assert "type get_time = () => any;" in prompt
    assert 'units: "celsius" | "fahrenheit",' in prompt and "days?: number," in prompt


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_example_exchange_parses_in_its_format(fmt: str) -> None:
    user, assistant = example_exchange(fmt, TOOLS)
    assert user["role"] == "user" and assistant["role"] == "assistant"
    info = parse_tool_calls(assistant["content"], fmt)
    assert [c.function.name for c in info.tool_calls] == ["get_weather"]
    args = info.tool_calls[0].parsed_arguments()
    assert args is not None and args["units"] == "celsius" and set(args) == {"city", "units"}


def test_example_without_tools_uses_neutral_tool() -> None:
    _, assistant = example_exchange("hermes")
    assert parse_tool_calls(assistant["content"], "hermes").tool_calls[0].name == "get_time"


def test_with_tools_prompt_merges_system_and_rewrites_history() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_0123456789abcdef",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_0123456789abcdef",
            "name": "get_weather",
            "content": '{"temp": 3}',
        },
    ]
    out = with_tools_prompt(messages, TOOLS, "hermes")
    assert out[0]["role"] == "system" and out[0]["content"].endswith("Be brief.")
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert parse_tool_calls(out[4]["content"], "hermes").tool_calls[0].name == "get_weather"
    assert out[5]["content"].startswith("<tool_response>")
    assert len(with_tools_prompt(messages[1:2], TOOLS, "pythonic", example=False)) == 2


def test_bad_tool_and_format() -> None:
    with pytest.raises(ParserError, match="a tool must be"):
        render_tools_prompt([42], "hermes")
    with pytest.raises(ParserError, match="unknown parser format"):
        render_tools_prompt(TOOLS, "xml")


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_history_calls_parse_back_in_every_format(fmt: str) -> None:
    messages = [
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_0123456789abcdef",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo", "days": 2}'},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_0123456789abcdef",
            "name": "get_weather",
            "content": '{"temp": 3}',
        },
    ]
    out = with_tools_prompt(messages, TOOLS, fmt, example=False)
    info = parse_tool_calls(out[2]["content"], fmt, TOOLS)
    assert [(c.function.name, c.parsed_arguments()) for c in info.tool_calls] == [
        ("get_weather", {"city": "Oslo", "days": 2})
    ]
    assert "Oslo" not in out[3]["content"] and "3" in out[3]["content"]


@pytest.mark.parametrize("fmt", ["qwen3_coder", "step3p5", "seed_oss"])
def test_qwen_style_prompt_lists_tools_as_xml(fmt: str) -> None:
    prompt = render_tools_prompt(TOOLS, fmt)
    assert "<name>get_weather</name>" in prompt and "<type>integer</type>" in prompt
    assert "<function=get_weather>" in prompt  # the example call in the format


@pytest.mark.parametrize("fmt", ["deepseek_v3", "kimi_k2", "glm45", "granite4", "lfm2", "xlam"])
def test_generic_prompt_shows_a_call_that_parses(fmt: str) -> None:
    prompt = render_tools_prompt(TOOLS, fmt)
    example = prompt.split("one entry per call:\n", 1)[1]
    info = parse_tool_calls(example, fmt, TOOLS)
    assert [c.function.name for c in info.tool_calls] == ["get_weather"]
    assert info.content is None and info.problems == []
