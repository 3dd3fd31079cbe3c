"""Property tests: any chunking of any output gives the non-streaming result; nothing raises."""

from __future__ import annotations

import json
import keyword
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooleval_nb.parsers import (
    PARSER_FORMATS,
    ExtractedToolCallInformation,
    StreamingToolReconstructor,
    get_parser,
    load_corpus,
    parse_tool_calls,
    render_tool_calls,
)
from tooleval_nb.parsers._tagged import TaggedParser
from tooleval_nb.parsers.conformance import stream_differs
from tooleval_nb.parsers.registry import parser_class
from tooleval_nb.toolcall import ToolCall

CASES = [(fmt, case.model_output) for fmt in PARSER_FORMATS for case in load_corpus(fmt).cases]

# pieces that exercise every format's markers, brackets, strings and escapes
FRAGMENTS = {
    "hermes": [
        "<tool_call>",
        "</tool_call>",
        "<scratch_pad>",
        "</scratch_pad>",
        "<tool",
        "_call>",
        '{"name": "f", "arguments": {"a": 1}}',
        '{"name": "g"}',
        "{",
        "}",
        '"',
        "\\",
        " ",
        "\n",
        "text",
        "'",
        "[",
        "]",
    ],
    "pythonic": [
        "[",
        "]",
        "(",
        ")",
        "f",
        "g.h",
        "(a=1)",
        "a=",
        "'x'",
        '"y"',
        "'''",
        "\\",
        ",",
        " ",
        "\n",
        "True",
        "None",
        "-1",
        "{",
        "}",
        "text",
    ],
    "mistral": [
        "[TOOL_CALLS]",
        "[TOOL",
        "_CALLS]",
        "[ARGS]",
        "f",
        '{"a": 1}',
        '[{"name": "f", "arguments": {}}]',
        "{",
        "}",
        "[",
        "]",
        '"',
        "\\",
        " ",
        "x",
    ],
    "llama3_json": [
        "<|python_tag|>",
        '{"name": "f", "parameters": {"a": [1]}}',
        ";",
        "{",
        "}",
        '"name"',
        ":",
        '"',
        "\\",
        " ",
        "\n",
        "text",
        "[",
        "]",
    ],
    "openai": [
        "<|start|>assistant",
        "<|channel|>",
        "analysis",
        "final",
        "commentary",
        " to=functions.f",
        "<|constrain|>json",
        "<|message|>",
        '{"a": 1}',
        "<|end|>",
        "<|call|>",
        "<|return|>",
        "<|",
        "|>",
        " ",
        "\n",
        "text",
    ],
    "json": [
        "```json\n",
        "```",
        '{"name": "f", "arguments": {}}',
        '{"tool": "g", "args": {}}',
        "[",
        "]",
        "{",
        "}",
        ",",
        '"',
        "\\",
        " ",
        "\n",
        "text",
        '"name": ',
        '{"tool_calls": [',
        '"content": null, ',
        '"type": "function", ',
        '"function": ',
        '"arguments": "{\\"a\\": 1}"',
    ],
}

_COMMON = [
    '{"name": "f", "arguments": {"a": 1}}',
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    '"',
    "'",
    "\\",
    " ",
    "\n",
    "text",
    "f(a=1)",
    "<",
    ">",
    "=",
    "true",
]


def _tokens(fmt: str) -> list[str]:
    """The special tokens of a table-driven format (empty for the others)."""
    cls = parser_class(fmt)
    if not issubclass(cls, TaggedParser):
        return []
    tokens = [r.start for r in cls.regions] + [r.end for r in cls.regions if r.end]
    return tokens + list(cls.drop) + list(cls.think or ()) + ([cls.lead] if cls.lead else [])


def _fragments(fmt: str) -> list[str]:
    """Pieces for random outputs: the format's tokens, halves of them (a marker split across
    deltas), the tags of a rendered call, and JSON / Python / prose bits."""
    if fmt in FRAGMENTS:
        return FRAGMENTS[fmt]
    tokens = _tokens(fmt)
    halves = [t[: len(t) // 2] for t in tokens] + [t[len(t) // 2 :] for t in tokens]
    rendered = render_tool_calls([ToolCall.create("f", {"a": 1, "b": "x"})], fmt)
    tags = [piece for piece in re.split(r"(?=<)|(?<=>)", rendered) if piece]
    return tokens + halves + tags + [rendered] + _COMMON


def _stream(
    fmt: str, chunks: list[str], tools: list[dict[str, object]] | None = None
) -> tuple[ExtractedToolCallInformation, StreamingToolReconstructor, object]:
    parser = get_parser(fmt, tools)
    recon = StreamingToolReconstructor()
    for chunk in chunks:
        recon.append_delta(parser.feed(chunk))
    recon.append_delta(parser.finish())
    return recon.result(parser.problems), recon, parser


def _key(info: ExtractedToolCallInformation) -> tuple[object, ...]:
    calls = [(c.function.name, c.function.arguments) for c in info.tool_calls]
    return calls, info.content, info.reasoning, info.problems


def _chunks(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CASES), st.lists(st.integers(min_value=0, max_value=10_000), max_size=40))
def test_corpus_any_chunking(item: tuple[str, str], cuts: list[int]) -> None:
    fmt, text = item
    got, recon, _ = _stream(fmt, _chunks(text, cuts))
    assert stream_differs(got, parse_tool_calls(text, fmt)) is None
    assert not recon.violations


@st.composite
def outputs(draw: st.DrawFn) -> tuple[str, str]:
    fmt = draw(st.sampled_from(PARSER_FORMATS))
    pieces = draw(
        st.lists(st.one_of(st.sampled_from(_fragments(fmt)), st.text(max_size=3)), max_size=25)
    )
    return fmt, "".join(pieces)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outputs(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=30))
def test_random_outputs_never_raise_and_stream_equally(
    item: tuple[str, str], cuts: list[int]
) -> None:
    fmt, text = item
    reference = parse_tool_calls(text, fmt)
    got, recon, _ = _stream(fmt, _chunks(text, cuts))
    assert stream_differs(got, reference) is None  # the final state is the whole-text parse
    assert not recon.violations
    for call in reference.tool_calls:
        assert call.function.name
        assert isinstance(json.loads(call.function.arguments), dict)
    dropped = ["<scratch_pad>", "<think>", *_tokens(fmt)]
    if not reference.tool_calls and fmt != "openai" and not any(t in text for t in dropped):
        assert reference.content == text  # no call: the text is the content, untouched


_names = st.from_regex(r"[a-z_][a-z0-9_]{0,12}(\.[a-z_][a-z0-9_]{0,8})?", fullmatch=True).filter(
    lambda n: not any(keyword.iskeyword(part) for part in n.split("."))
)
_keys = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda k: not keyword.iskeyword(k)
)
_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_calls = st.lists(
    st.builds(
        lambda n, a: ToolCall.create(n, a), _names, st.dictionaries(_keys, _values, max_size=4)
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(PARSER_FORMATS), _calls)
def test_render_then_parse_round_trips(fmt: str, calls: list[ToolCall]) -> None:
    text = render_tool_calls(calls, fmt)
    info = parse_tool_calls(text, fmt, _schema_of(calls))
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [
        (c.function.name, c.function.arguments) for c in calls
    ], text
    assert info.problems == []
    per_char, _, _ = _stream(fmt, list(text), _schema_of(calls))
    assert _key(per_char) == _key(info)


_JSON_TYPES = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


def _schema_of(calls: list[ToolCall]) -> list[dict[str, object]]:
    """Tools whose schemas type every argument as written: the XML-ish formats write values as
    raw text, and a string such as "30" reads back as a string only when the schema says so."""
    tools: dict[str, dict[str, object]] = {}
    for call in calls:
        props = tools.setdefault(call.function.name, {})
        for key, value in (call.parsed_arguments() or {}).items():
            props[key] = {"type": _JSON_TYPES[type(value)]}
    return [
        {
            "type": "function",
            "function": {"name": name, "parameters": {"type": "object", "properties": props}},
        }
        for name, props in tools.items()
    ]


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_held_text_stays_short(fmt: str) -> None:
    """Linear work: between deltas a parser holds only a few characters (a partial marker, an
    escape), never the growing output, so each character is scanned a bounded number of times."""
    one = render_tool_calls(
        [ToolCall.create("get_weather", {"city": 'Tokyo \\ "x"', "days": [1, 2, 3]})], fmt
    )
    text = ("Some text. " + one + "\n") * 200
    parser = get_parser(fmt)
    longest = 0
    for k in range(0, len(text), 3):
        parser.feed(text[k : k + 3])
        longest = max(longest, len(parser._hold))
    parser.finish()
    assert longest <= max([16, *map(len, _tokens(fmt))])  # at most a partial marker
    assert len(parser.result().tool_calls) == 200
