"""Format-specific behaviour beyond the corpora: harmony as served, Llama 4's wrapper, JSON with
braces in strings, schema-typed XML values, unknown names, and bad input of every kind."""

from __future__ import annotations

import json
import random
import time

import pytest

from tooleval_nb.errors import ParserError
from tooleval_nb.parsers import (
    PARSER_FORMATS,
    StreamingToolReconstructor,
    get_parser,
    parse_tool_calls,
    render_tool_calls,
)
from tooleval_nb.parsers.conformance import stream_differs
from tooleval_nb.toolcall import ToolCall


def _calls(
    text: str, fmt: str, tools: list[dict[str, object]] | None = None
) -> list[tuple[str, object]]:
    info = parse_tool_calls(text, fmt, tools)
    return [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls]


def _streamed(text: str, fmt: str, size: int) -> tuple[list[tuple[str, str]], str | None]:
    parser = get_parser(fmt)
    recon = StreamingToolReconstructor()
    for k in range(0, len(text), size):
        recon.append_delta(parser.feed(text[k : k + size]))
    recon.append_delta(parser.finish())
    got = recon.result(parser.problems)
    return [(c.function.name, c.function.arguments) for c in got.tool_calls], got.content


# ---------------------------------------------------------------------------- harmony as served
CITY = '{"city": "Tokyo"}'
SERVED = {
    "recipient-first": (
        f" to=functions.get_weather<|channel|>commentary json<|message|>{CITY}<|call|>",
        "get_weather",
    ),
    "bare-recipient": (
        f" to=get_weather<|channel|>commentary json<|message|>{CITY}<|call|>",
        "get_weather",
    ),
    "dotted-recipient": (
        f" to=math.sum<|channel|>commentary json<|message|>{CITY}<|call|>",
        "math.sum",
    ),
    "analysis-channel": (
        f"<|channel|>analysis to=functions.get_weather<|message|>{CITY}<|call|>",
        "get_weather",
    ),
    "no-content-type": (
        f"<|channel|>commentary to=functions.get_weather<|message|>{CITY}<|call|>",
        "get_weather",
    ),
    "constrain-token": (
        f"<|channel|>commentary to=functions.get_weather <|constrain|>json"
        f"<|message|>{CITY}<|call|>",
        "get_weather",
    ),
    "recipient-in-role": (
        f"<|start|>assistant to=functions.get_weather<|channel|>commentary "
        f"json<|message|>{CITY}<|call|>",
        "get_weather",
    ),
}


@pytest.mark.parametrize(("text", "name"), list(SERVED.values()), ids=list(SERVED))
def test_harmony_as_served(text: str, name: str) -> None:
    assert _calls(text, "openai") == [(name, {"city": "Tokyo"})]
    info = parse_tool_calls(text, "openai")
    assert info.content is None and info.problems == []
    for size in (1, 3, 11):
        assert _streamed(text, "openai", size) == ([(name, CITY)], None)


def test_harmony_several_served_calls_keep_their_order() -> None:
    first, _ = SERVED["recipient-first"]
    second = (
        "<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{}<|call|>"
    )
    assert [n for n, _ in _calls(first + second, "openai")] == ["get_weather", "get_time"]


@pytest.mark.parametrize(
    "text",
    ["to be or not to be", "to", " t", "top=1", "   "],
    ids=["prose", "to", "t", "top", "spaces"],
)
def test_harmony_plain_text_starting_like_a_recipient_stays_text(text: str) -> None:
    info = parse_tool_calls(text, "openai")
    assert (info.tool_calls, info.content, info.problems) == ([], text, [])
    assert _streamed(text, "openai", 1) == ([], text)


# ---------------------------------------------------------------------------- Llama 4's wrapper
@pytest.mark.parametrize("fmt", ["pythonic", "llama4_pythonic"])
@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("<|python_start|>[get_weather(city='Tokyo')]<|python_end|>", None),
        ("Sure. <|python_start|>[get_weather(city='Tokyo')]<|python_end|> Done.", "Sure.  Done."),
        (
            "<|python_start|>[get_weather(city=undefined)]<|python_end|>",
            "[get_weather(city=undefined)]",
        ),
    ],
    ids=["wrapped", "wrapped-in-text", "wrapped-malformed"],
)
def test_llama4_wrapper_never_reaches_content(fmt: str, text: str, content: str | None) -> None:
    info = parse_tool_calls(text, fmt)
    assert info.content == content
    for size in (1, 5):
        assert "python_" not in (_streamed(text, fmt, size)[1] or "")


# ---------------------------------------------------------------------------- JSON bodies
TRICKY = {"code": "if (a) { return '}'; }", "nested": {"x": [1, {"y": "{"}], "z": {}}}
JSON_FORMATS = [
    "json",
    "llama3_json",
    "hermes",
    "mistral",
    "granite4",
    "jamba",
    "minimax",
    "xlam",
    "granite",
    "phi4_mini_json",
    "deepseek_v31",
    "kimi_k2",
    "internlm",
]


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_json_reads_braces_in_strings_and_nested_objects(fmt: str) -> None:
    text = "Checking. " + render_tool_calls([ToolCall.create("run", TRICKY)], fmt)
    assert _calls(text, fmt) == [("run", TRICKY)]
    assert _streamed(text, fmt, 2)[0] == [("run", json.dumps(TRICKY, ensure_ascii=False))]


# ---------------------------------------------------------------------------- XML-ish values
XML_FORMATS = ["qwen3_coder", "seed_oss", "step3p5", "glm45", "minimax_m2", "step3"]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "zip": {"type": "string"},
                    "days": {"type": "integer"},
                    "flags": {"type": "array"},
                    "on": {"type": "boolean"},
                },
            },
        },
    }
]


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_xml_values_are_typed_by_the_schema(fmt: str) -> None:
    text = render_tool_calls(
        [ToolCall.create("f", {"zip": "100", "days": 3, "flags": ["a"], "on": True})], fmt
    )
    typed = {"zip": "100", "days": 3, "flags": ["a"], "on": True}
    assert _calls(text, fmt, TOOLS) == [("f", typed)]
    assert _calls(text, fmt) == [("f", {**typed, "zip": 100})]  # no schema: JSON literals


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_xml_value_not_matching_its_type_stays_text(fmt: str) -> None:
    text = render_tool_calls([ToolCall.create("f", {"days": "three"})], fmt)
    assert _calls(text, fmt, TOOLS) == [("f", {"days": "three"})]


# ---------------------------------------------------------------------------- names
@pytest.mark.parametrize(
    ("bad", "nearest"),
    [
        ("qwen3coder", "qwen3_coder"),
        ("deepseek-v3", "deepseek_v3"),
        ("kimi", "kimi_k2"),
        ("hermes2", "hermes"),
    ],
    ids=["underscore", "dash", "prefix", "suffix"],
)
def test_unknown_name_lists_the_nearest_first(bad: str, nearest: str) -> None:
    with pytest.raises(ParserError, match="unknown parser format") as info:
        get_parser(bad)
    message = str(info.value)
    assert f"did you mean {nearest!r}" in message
    listed = message.split("nearest first: ")[1]
    assert listed.startswith(nearest) and all(name in listed for name in PARSER_FORMATS)


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("qwen3_xml", "qwen3_coder"),
        ("glm47", "glm45"),
        ("granite_20b_fc", "granite-20b-fc"),
        ("harmony", "openai"),
        ("GPT-OSS", "openai"),
    ],
)
def test_aliases(alias: str, name: str) -> None:
    assert get_parser(alias).format == name


# ---------------------------------------------------------------------------- bad input
def _bad_inputs(fmt: str) -> dict[str, str]:
    one = render_tool_calls([ToolCall.create("get_weather", {"city": "Tokyo"})], fmt)
    rng = random.Random(fmt)
    return {
        "1mb-prose": "All fine here, nothing to call. " * 33_000,
        "1mb-unclosed": one[: len(one) // 2] + "x" * 1_000_000,
        "deep-nesting": one.replace("Tokyo", "[" * 100_000 + "]" * 100_000)
        if "Tokyo" in one
        else one + "[" * 100_000,
        "deep-open-brackets": "{" * 200_000 + "[" * 200_000,
        "binary-junk": "".join(chr(rng.randrange(0, 0x10000)) for _ in range(300_000))
        .encode("utf-16", "surrogatepass")
        .decode("utf-16", "replace"),
        "nul-and-controls": "\x00\x01\x1b[31m" * 50_000 + one[:5],
    }


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_bad_input_returns_content_in_bounded_time(fmt: str) -> None:
    """Nothing raises, nothing is lost: the text comes back as content (or, for a too-deep
    value inside a well-formed call, as a call with a problem or a text value), and each input
    takes well under the generous bound, whole and streamed."""
    for label, text in _bad_inputs(fmt).items():
        start = time.process_time()
        info = parse_tool_calls(text, fmt)
        parser = get_parser(fmt)
        for k in range(0, len(text), 65_536):
            parser.feed(text[k : k + 65_536])
        parser.finish()
        elapsed = time.process_time() - start
        assert elapsed < 30, f"{label}: {elapsed:.1f}s"
        kept = len(info.content or "") + sum(len(c.function.arguments) for c in info.tool_calls)
        assert kept >= len(text) // 4, label  # the text is kept, not dropped
        if not info.tool_calls:
            assert info.content, label
        streamed = parser.result()
        assert stream_differs(streamed, info) is None, label
        kept = len(streamed.content or "") + sum(
            len(c.function.arguments) for c in streamed.tool_calls
        )
        assert kept >= len(text) // 4, label
