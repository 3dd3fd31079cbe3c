"""Streaming as the spec describes it (DeltaToolCall, patterns 9 and 10): a call's name first,
then its arguments as they are written, in every format; malformed calls never raise and never
retract."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval_nb.errors import ParserError
from tooleval_nb.parsers import (
    PARSER_FORMATS,
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    StreamingToolReconstructor,
    check_parser,
    get_parser,
    load_corpus,
    parse_tool_calls,
    render_tool_calls,
)
from tooleval_nb.parsers.conformance import stream_differs
from tooleval_nb.parsers.protocol import COMMITTED_NOTE
from tooleval_nb.toolcall import ToolCall

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "note": {"type": "string"},
                    "flags": {"type": "array"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}}},
        },
    },
]

#: formats whose arguments are JSON text in the output
JSON_BODIED = [
    "hermes",
    "mistral",
    "llama3_json",
    "openai",
    "json",
    "deepseek_v3",
    "deepseek_v31",
    "kimi_k2",
    "granite",
    "granite4",
    "granite-20b-fc",
    "xlam",
    "phi4_mini_json",
    "internlm",
    "hunyuan_a13b",
    "minimax",
    "jamba",
    "longcat",
    "ernie45",
    "gigachat3",
]
SIZES = [1, 2, 3, 7]


class _Run:
    """One streamed output: the result, the reconstructor, and where things arrived."""

    def __init__(self, fmt: str, chunks: list[str], tools: Any = None) -> None:
        parser = get_parser(fmt, tools)
        self.recon = StreamingToolReconstructor()  # strict: a violation raises
        self.name_at: dict[int, int] = {}  # call index -> characters fed when its name came
        self.args_by_fed: list[tuple[int, int, str]] = []  # (fed, index, fragment)
        self.withdrawn: list[int] = []  # indexes the last delta took back
        fed = 0
        for chunk in chunks:
            fed += len(chunk)
            self._take(parser.feed(chunk), fed)
        self._take(parser.finish(), fed)
        self.result = self.recon.result()
        assert self.result.problems == parser.problems

    def _take(self, delta: DeltaMessage | None, fed: int) -> None:
        self.recon.append_delta(delta)
        for call in delta.tool_calls if delta is not None else []:
            if call.withdrawn:
                self.withdrawn.append(call.index)
            if call.function.name:
                self.name_at[call.index] = fed
            if call.function.arguments:
                self.args_by_fed.append((fed, call.index, call.function.arguments))

    def fragments(self, index: int) -> list[str]:
        return [frag for _, k, frag in self.args_by_fed if k == index]

    def arguments_at(self, index: int, fed: int) -> str:
        return "".join(frag for at, k, frag in self.args_by_fed if k == index and at <= fed)


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _exact(info: ExtractedToolCallInformation) -> tuple[Any, ...]:
    return (
        [(c.function.name, c.function.arguments) for c in info.tool_calls],
        info.content,
        info.reasoning,
        info.problems,
    )


# ---------------------------------------------------------------------------- the ten patterns
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_every_pattern_streams_as_the_whole_text(fmt: str, size: int) -> None:
    """Every corpus case (the ten patterns and the format's own): streamed at 1, 2, 3 and 7
    characters per delta it equals the whole-text parse; a malformed case may instead keep a
    call sent before its error showed, noted in problems."""
    for case in load_corpus(fmt).cases:
        whole = parse_tool_calls(case.model_output, fmt)
        got = _Run(fmt, _pieces(case.model_output, size)).result
        if case.expect_problem:
            assert stream_differs(got, whole) is None, case.scenario_name
        else:
            assert _exact(got) == _exact(whole), case.scenario_name


def _weather(note: str = "bring an umbrella") -> list[ToolCall]:
    return [
        ToolCall.create(
            "get_weather",
            {"city": 'Tokyo "east" \\ é 🎉', "days": 3, "note": note, "flags": [True, None]},
        ),
        ToolCall.create("get_time", {"timezone": "Asia/Tokyo"}),
    ]


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_name_first_then_every_argument_before_the_call_closes(fmt: str) -> None:
    prefix = "Let me check. "
    calls = _weather()
    text = prefix + render_tool_calls(calls, fmt)
    whole = parse_tool_calls(text, fmt, TOOLS)
    run = _Run(fmt, list(text), TOOLS)
    assert _exact(run.result) == _exact(whole)
    first_end = len(prefix) + len(render_tool_calls(calls[:1], fmt))  # the first call's text
    assert run.name_at[0] < first_end, "the name came only with the end of the call"
    assert run.name_at[1] > run.name_at[0]
    arguments = json.loads(whole.tool_calls[0].function.arguments)
    for key in arguments:
        sent = next(
            (
                fed
                for fed, k, _ in run.args_by_fed
                if k == 0 and f'"{key}": ' in run.arguments_at(0, fed)
            ),
            None,
        )
        assert sent is not None and sent < first_end, f"{key} came with the end of the call"
    assert "".join(run.fragments(0)) == whole.tool_calls[0].function.arguments


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_a_long_string_streams_in_many_fragments(fmt: str) -> None:
    """A 360-character string argument arrives in at least 10 fragments: in the JSON-bodied
    formats always, in the others when the schema types it as a string (Python strings always)."""
    note = "".join(f"word{k} " for k in range(60))[:360]
    text = render_tool_calls(_weather(note), fmt)
    tools = (
        None
        if fmt in JSON_BODIED or fmt in ("pythonic", "llama4_pythonic", "lfm2", "olmo3")
        else TOOLS
    )
    start = text.index(note)
    for size in (1, 7):
        run = _Run(fmt, _pieces(text, size), tools)
        inside = [
            frag for fed, k, frag in run.args_by_fed if k == 0 and start < fed <= start + len(note)
        ]
        assert len(inside) >= 10, (size, len(inside))
        assert json.loads(run.result.tool_calls[0].function.arguments)["note"] == note


# ---------------------------------------------------------------------------- pattern 10 splits
def _split_points(text: str) -> dict[str, int]:
    points = {
        "mid-name": text.index("get_wea") + 4,
        "mid-argument-name": text.index("timezone") + 4,
        "between-calls": text.index("get_time") - 1,
    }
    for label, needle, offset in (
        ("mid-string", "Tok", 2),
        ("escape", "\\", 1),
        ("multi-byte", "🎉", 1),
        ("unicode-escape", "\\ud83c", 6),
        ("mid-number", "Asia/To", 4),
    ):
        if needle in text:
            points[label] = text.index(needle) + offset
    return points


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_pattern_10_split_points(fmt: str) -> None:
    texts = [render_tool_calls(_weather(), fmt)]
    if fmt == "hermes":  # ASCII-escaped JSON: a surrogate pair split between deltas
        texts.append(
            "<tool_call>"
            + json.dumps(
                {"name": "get_weather", "arguments": {"city": 'Tokyo 🎉 "q" \\ \n'}},
                ensure_ascii=True,
            )
            + "</tool_call>\n"
            '<tool_call>{"name": "get_time", "arguments": {"timezone": "UTC"}}'
            "</tool_call>"
        )
    for text in texts:
        whole = parse_tool_calls(text, fmt, TOOLS)
        assert len(whole.tool_calls) == 2, text
        for label, cut in _split_points(text).items():
            run = _Run(fmt, [text[:cut], text[cut:]], TOOLS)
            assert _exact(run.result) == _exact(whole), (label, cut)
            assert len(run.name_at) == 2


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(JSON_BODIED),
    st.text(max_size=40),
    st.booleans(),
    st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=40),
)
def test_any_string_any_chunking_same_arguments(
    fmt: str, value: str, ascii_only: bool, sizes: list[int]
) -> None:
    """Escapes, surrogate pairs and control characters, cut anywhere: the streamed arguments
    are the whole-text arguments, character for character."""
    call = ToolCall.create("get_weather", {"city": value, "days": -1.5e3})
    text = render_tool_calls([call], fmt)
    if ascii_only and '"city": ' in text:  # the same JSON written with \\u escapes
        text = text.replace(json.dumps(value, ensure_ascii=False), json.dumps(value))
    chunks, i, k = [], 0, 0
    while i < len(text):
        chunks.append(text[i : i + sizes[k % len(sizes)]])
        i += sizes[k % len(sizes)]
        k += 1
    whole = parse_tool_calls(text, fmt)
    assert _exact(_Run(fmt, chunks).result) == _exact(whole)
    assert json.loads(whole.tool_calls[0].function.arguments)["city"] == value


# ---------------------------------------------------------------------------- commit point
def test_a_whole_text_parse_never_commits() -> None:
    text = '<tool_call>{"name": "func", "arguments": {"a": "x</tool_call>'
    whole = parse_tool_calls(text, "hermes")
    assert whole.tool_calls == [] and whole.content == text
    assert _exact(_Run("hermes", [text]).result) == _exact(whole)  # one delta: seen whole


def test_a_call_sent_then_malformed_is_withdrawn_at_the_end() -> None:
    """Its name went out before the error showed; the last delta withdraws it, and the stream
    ends with the whole-text parse: the text as content, the problem kept."""
    text = 'Hi <tool_call>{"name": "func", "arguments": {"a": "x</tool_call> bye'
    whole = parse_tool_calls(text, "hermes")
    assert whole.tool_calls == [] and whole.content == text and whole.problems
    for _ in range(2):  # a second stream in the same process ends the same way
        run = _Run("hermes", list(text))
        assert 0 in run.name_at and run.withdrawn == [0]
        assert _exact(run.result) == _exact(whole)
        assert not any(COMMITTED_NOTE in p for p in run.result.problems)


def test_constrained_output_keeps_closed_objects_of_an_unclosed_array() -> None:
    text = (
        '[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": [1, 2]}}, '
        '{"name": "c", "argu'
    )
    whole = parse_tool_calls(text, "json")
    assert [(c.function.name, c.function.arguments) for c in whole.tool_calls] == [
        ("a", "{}"),
        ("b", '{"x": [1, 2]}'),
    ]
    assert any("not closed" in p for p in whole.problems)
    streamed = _Run("json", _pieces(text, 3)).result
    assert stream_differs(streamed, whole) is None
    assert [c.function.name for c in streamed.tool_calls][:2] == ["a", "b"]


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_bad_input_never_raises_and_is_reported(fmt: str) -> None:
    big = "y" * 1_000_000
    text = render_tool_calls([ToolCall.create("get_weather", {"note": big})], fmt)
    start = time.process_time()
    run = _Run(fmt, _pieces(text, 65_536), TOOLS)
    whole = parse_tool_calls(text, fmt, TOOLS)
    assert time.process_time() - start < 60
    assert _exact(run.result) == _exact(whole)
    assert json.loads(run.result.tool_calls[0].function.arguments)["note"] == big
    cut = text[: text.index(big) + 500_000]  # a 1 MB argument cut inside its string
    for chunks in ([cut], _pieces(cut, 65_536)):
        info = _Run(fmt, chunks, TOOLS).result
        assert info.problems, "an unclosed string is reported"


@pytest.mark.parametrize("fmt", JSON_BODIED)
def test_invalid_escape_and_unclosed_string(fmt: str) -> None:
    good = render_tool_calls([ToolCall.create("get_weather", {"city": "Tokyo"})], fmt)
    for bad in ('"Tok\\x41yo"', '"Tok'):
        text = good.replace('"Tokyo"', bad)
        assert text != good
        for size in (1, 5, len(text)):
            info = _Run(fmt, _pieces(text, size)).result
            assert info.problems, (bad, size)
            for call in info.tool_calls:
                json.loads(call.function.arguments)  # what was kept is valid JSON


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_a_name_unknown_after_it_was_sent(fmt: str) -> None:
    text = render_tool_calls([ToolCall.create("get_wether", {"city": "Tokyo"})], fmt)
    run = _Run(fmt, list(text), TOOLS)
    assert [c.function.name for c in run.result.tool_calls] == ["get_wether"]
    assert any("not among the tools" in p for p in run.result.problems)


# ---------------------------------------------------------------------------- the reconstructor
def _delta(
    index: int, *, id: str | None = None, name: str | None = None, arguments: str | None = None
) -> DeltaMessage:
    return DeltaMessage(
        tool_calls=[
            DeltaToolCall(
                index=index,
                id=id,
                type="function" if id else None,
                function=DeltaFunctionCall(name=name, arguments=arguments),
            )
        ]
    )


@pytest.mark.parametrize(
    ("deltas", "first"),
    [
        (
            [
                _delta(0, id="call_aaaaaaaaaaaaaaaa", name="f", arguments=""),
                _delta(0, name="f", arguments="{}"),
            ],
            "delta 2: tool call 0 sends its name again",
        ),
        (
            [
                _delta(0, id="call_aaaaaaaaaaaaaaaa", name="f"),
                _delta(0, id="call_aaaaaaaaaaaaaaaa", arguments="{}"),
            ],
            "delta 2: tool call 0 sends its id",
        ),
        (
            [
                _delta(0, id="call_aaaaaaaaaaaaaaaa", name="f", arguments="{}"),
                _delta(2, id="call_bbbbbbbbbbbbbbbb", name="g"),
            ],
            "delta 2: tool-call index 2 skips",
        ),
        (
            [
                _delta(0, id="call_aaaaaaaaaaaaaaaa", name="f", arguments='{"a": 1'),
                _delta(0, arguments='{"a": 1}'),
            ],
            "delta 2: tool call 0 arguments stop being JSON",
        ),
        (
            [
                _delta(0, id="call_aaaaaaaaaaaaaaaa", name="f", arguments='{"a": 1}'),
                _delta(0, arguments='{"a": 1}'),
            ],
            "delta 2: tool call 0 sends arguments after",
        ),
        (
            [DeltaMessage(content="hi"), _delta(0, arguments="{}")],
            "delta 2: tool call 0 is introduced without an id",
        ),
    ],
    ids=["name-twice", "id-twice", "index-gap", "replaced-fragment", "resent-arguments", "no-id"],
)
def test_reconstructor_reports_the_first_violation(deltas: list[DeltaMessage], first: str) -> None:
    lenient = StreamingToolReconstructor(strict=False)
    for delta in deltas:
        lenient.append_delta(delta)
    assert lenient.first_violation is not None and lenient.first_violation.startswith(first), (
        lenient.violations
    )
    strict = StreamingToolReconstructor()
    with pytest.raises(ParserError, match=first.split(": ", 1)[0]):
        for delta in deltas:
            strict.append_delta(delta)


def test_our_parsers_never_violate_the_protocol() -> None:
    for fmt in PARSER_FORMATS:
        text = "Hi. " + render_tool_calls(_weather(), fmt)
        _Run(fmt, list(text), TOOLS)  # strict reconstructor: raises at a violation


def test_check_parser_reports_how_early_calls_stream() -> None:
    frame = check_parser("hermes", "hermes")
    assert frame["passed"].all(), frame.loc[~frame["passed"], "reason"].tolist()
    streamed = frame[(frame["mode"] == "streaming") & (frame["scenario"] == "single_tool_call")]
    to_name, to_args = streamed[["to_name", "to_arguments"]].iloc[0]
    model_output = next(
        c.model_output for c in load_corpus("hermes").cases if c.scenario_name == "single_tool_call"
    )
    assert 0 < to_name < to_args < len(model_output)


# ---------------------------------------------------------------------------- reasoning, prefixes
@pytest.mark.parametrize(
    "fmt", ["hermes", "qwen3_coder", "step3p5", "glm45", "deepseek_v3", "deepseek_v31"]
)
def test_think_is_reasoning(fmt: str) -> None:
    text = (
        "<think>The user wants Tokyo's weather.\nCall the tool.</think>\n\nChecking. "
        + render_tool_calls(_weather()[:1], fmt)
    )
    whole = parse_tool_calls(text, fmt, TOOLS)
    assert whole.reasoning == "The user wants Tokyo's weather.\nCall the tool."
    assert whole.content == "Checking." and len(whole.tool_calls) == 1
    for size in SIZES:
        assert _exact(_Run(fmt, _pieces(text, size), TOOLS).result) == _exact(whole)


def test_gpt_oss_analysis_is_reasoning() -> None:
    text = (
        "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant"
        "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>"
        '{"timezone": "UTC"}<|call|>'
    )
    whole = parse_tool_calls(text, "openai")
    assert whole.reasoning == "Need the weather." and whole.tool_calls[0].name == "get_time"
    assert _exact(_Run("openai", list(text)).result) == _exact(whole)


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("助手：好的。", "好的。"),
        ("  助手：Sure", "  Sure"),
        ("我是你的助手：你好", "我是你的助手：你好"),  # only where the reply starts
        ("助手", "助手"),
    ],
)
def test_hunyuan_role_prefix_is_dropped_at_the_start(text: str, content: str) -> None:
    whole = parse_tool_calls(text, "hunyuan_a13b")
    assert whole.content == content
    for size in (1, 2):
        assert _exact(_Run("hunyuan_a13b", _pieces(text, size)).result) == _exact(whole)
    called = parse_tool_calls(
        text + '<tool_calls>[{"name": "f", "arguments": {}}]</tool_calls>', "hunyuan_a13b"
    )
    assert called.content == content.strip() and len(called.tool_calls) == 1


def test_raw_text_replies_keep_their_reasoning() -> None:
    from tooleval_nb.models.wire import RawTextWire

    reading = RawTextWire("qwen3_coder").read(
        {
            "role": "assistant",
            "content": "<think>Tokyo, so the tool.</think>"
            + render_tool_calls(_weather()[:1], "qwen3_coder"),
        },
        [],
        {},
    )
    assert reading.reasoning == "Tokyo, so the tool." and len(reading.calls) == 1


# ---------------------------------------------------------------------------- forms not rendered
def _fenced_xlam(calls: list[ToolCall]) -> str:
    listed = [
        {"name": c.function.name, "arguments": json.loads(c.function.arguments)} for c in calls
    ]
    return "Sure.\n```json\n" + json.dumps(listed, ensure_ascii=False) + "\n```\nDone."


def _openai_shape(calls: list[ToolCall]) -> str:
    """OpenAI's shape, the arguments as a JSON string (escaped JSON inside JSON)."""
    listed = [
        {
            "type": "function",
            "id": f"call_{k}",
            "function": {"name": c.function.name, "arguments": c.function.arguments},
        }
        for k, c in enumerate(calls)
    ]
    return "Calling: " + json.dumps(listed, ensure_ascii=False)


def _openai_object_args(calls: list[ToolCall]) -> str:
    """OpenAI's shape with the arguments written as an object, one call per value."""
    return "\n".join(
        json.dumps(
            {
                "function": {
                    "name": c.function.name,
                    "arguments": json.loads(c.function.arguments),
                },
                "type": "function",
            },
            ensure_ascii=False,
        )
        for c in calls
    )


FORMS = [("xlam", _fenced_xlam), ("json", _openai_shape), ("json", _openai_object_args)]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("fmt", "write"), FORMS, ids=["xlam-fence", "json-openai", "json-openai-object"]
)
def test_fenced_and_openai_calls_stream(fmt: str, write: Any, size: int) -> None:
    """xlam's ```json fence and the json format's OpenAI shapes stream like the other JSON
    bodies: equal to the whole-text parse at 1, 2, 3 and 7 characters per delta, the name before
    the call's text ends, a 360-character string in at least 10 fragments."""
    note = "".join(f"word{k} " for k in range(60))[:360]
    calls = _weather(note)
    text = write(calls)
    whole = parse_tool_calls(text, fmt)
    assert [c.function.name for c in whole.tool_calls] == ["get_weather", "get_time"]
    run = _Run(fmt, _pieces(text, size))
    assert _exact(run.result) == _exact(whole)
    first_end = len(write(calls[:1])) - (len("\n```\nDone.") if fmt == "xlam" else 1)
    assert run.name_at[0] < first_end, "the name came only with the end of the call"
    assert run.name_at[1] > run.name_at[0]
    assert len(run.fragments(0)) >= 10, run.fragments(0)
    assert "".join(run.fragments(0)) == whole.tool_calls[0].function.arguments


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("```python\nprint([1])\n```", "xlam"),
        ("```json5 " + '[{"name": "f", "arguments": {}}]```', "xlam"),
        ("```\n" + '[{"name": "f", "arguments": {"a": 1}}]\n```', "xlam"),
        ('{"function": {"name": "f", "arguments": "[1]"}}', "json"),
        ('{"function": {"name": "f", "arguments": "  "}}', "json"),
        ('{"function": {"foo": 1}}', "json"),
        ('{"name": "x", "function": {"name": "f", "arguments": "{}"}}', "json"),
        (
            '[{"type": "function", "function": {"name": "f", "arguments": "{\\"a\\": [1, 2]}"}}]',
            "json",
        ),
        # OpenAI's message {"tool_calls": [...]}, and objects that are not one
        ('{"tool_calls": [{"name": "f", "arguments": {"a": 1}}], "content": {"x": [1]}}', "json"),
        (
            '{"content": "", "role": "assistant", "tool_calls": [{"name": "f", "arguments": {}}]}',
            "json",
        ),
        ('{"foo": 1, "tool_calls": [{"name": "f", "arguments": {}}]}', "json"),
        ('{"tool_calls": []}', "json"),
        ('{"tool_calls": {"name": "f", "arguments": {}}}', "json"),
        ('[{"tool_calls": [{"name": "f", "arguments": {}}]}]', "json"),
        ('Hi ```json\n{"tool_calls": [{"name": "f", "arguments": {}}]}\n``` bye', "json"),
    ],
)
def test_fence_and_openai_edges_equal_the_whole_text(text: str, fmt: str) -> None:
    whole = parse_tool_calls(text, fmt)
    for size in SIZES:
        assert _exact(_Run(fmt, _pieces(text, size)).result) == _exact(whole), size


def test_openai_string_arguments_turning_bad_after_the_name_withdraw_the_call() -> None:
    """Text after the object inside the arguments string shows only after the name was sent:
    the last delta withdraws the call and the stream ends as the whole text does."""
    text = '{"function": {"name": "f", "arguments": "{\\"a\\": 1} trailing"}}'
    whole = parse_tool_calls(text, "json")
    run = _Run("json", list(text))
    assert 0 in run.name_at and run.withdrawn == [0]
    assert _exact(run.result) == _exact(whole)


# ---------------------------------------------------------------------------- OpenAI's message
def _openai_message(calls: list[ToolCall]) -> str:
    """OpenAI's assistant message: ``{"role", "content", "tool_calls": [...]}``, the first call
    in OpenAI's shape with string arguments, the others flat."""
    listed: list[dict[str, Any]] = [
        {
            "id": "call_0",
            "type": "function",
            "function": {"name": calls[0].function.name, "arguments": calls[0].function.arguments},
        }
    ]
    listed += [
        {"name": c.function.name, "arguments": json.loads(c.function.arguments)} for c in calls[1:]
    ]
    message = {"role": "assistant", "content": None, "tool_calls": listed}
    return "Calling:\n" + json.dumps(message, ensure_ascii=False)


@pytest.mark.parametrize("size", SIZES)
def test_the_tool_calls_wrapper_streams_each_call(size: int) -> None:
    """``{"tool_calls": [...]}``: each call streams as it is written (its name first, a
    360-character string in at least 10 fragments), equal to the whole-text parse."""
    note = "".join(f"word{k} " for k in range(60))[:360]
    calls = _weather(note)
    text = _openai_message(calls)
    whole = parse_tool_calls(text, "json")
    assert [c.function.name for c in whole.tool_calls] == ["get_weather", "get_time"]
    run = _Run("json", _pieces(text, size))
    assert _exact(run.result) == _exact(whole)
    start = text.index(note[:40])  # inside the string arguments
    assert run.name_at[0] <= start + size, "the name came only with the end of the call"
    inside = [frag for fed, k, frag in run.args_by_fed if k == 0 and start < fed <= start + 360]
    assert len(inside) >= 360 // size // 2, len(inside)
    assert len(run.fragments(0)) >= 10, run.fragments(0)
    assert "".join(run.fragments(0)) == whole.tool_calls[0].function.arguments
    assert run.name_at[1] <= text.index("Asia/Tokyo") + size  # before the second call closes


def test_the_tool_calls_wrapper_never_closed_keeps_its_closed_calls() -> None:
    """Constrained output: the wrapper cut inside its list; the calls whose objects closed are
    calls, streamed or whole, and the name of each came before its object closed."""
    text = (
        '{"tool_calls": [{"name": "a", "arguments": {"x": "' + "y" * 50 + '"}}, '
        '{"type": "function", "function": {"name": "b", "arguments": "{\\"z\\": 1}"}}, '
        '{"name": "c", "argu'
    )
    whole = parse_tool_calls(text, "json")
    assert [(c.function.name, c.function.arguments) for c in whole.tool_calls] == [
        ("a", json.dumps({"x": "y" * 50})),
        ("b", '{"z": 1}'),
    ]
    assert any("not closed" in p for p in whole.problems)
    for size in SIZES:
        run = _Run("json", _pieces(text, size))
        assert stream_differs(run.result, whole) is None
        assert [c.function.name for c in run.result.tool_calls] == ["a", "b"]
        assert run.name_at[0] < text.index("}}, ") and len(run.fragments(0)) >= 50 // size


@pytest.mark.parametrize(
    "text",
    [
        # a key that is not a message's after the calls were sent: not a wrapper as JSON
        '{"tool_calls": [{"name": "f", "arguments": {}}], "foo": 1}',
        # a second list: as JSON only the last counts; the first was sent
        '{"tool_calls": [{"name": "f", "arguments": {}}], '
        '"tool_calls": [{"name": "g", "arguments": {"b": 2}}]}',
        # an item that is no call after a call was sent; a trailing comma
        '{"tool_calls": [{"name": "f", "arguments": {}}, {"x": 1}]}',
        '{"tool_calls": [{"name": "f", "arguments": {}},]}',
    ],
)
def test_tool_calls_wrapper_turning_bad_after_a_call_ends_as_the_whole_text(text: str) -> None:
    whole = parse_tool_calls(text, "json")
    for size in SIZES:
        run = _Run("json", _pieces(text, size))
        assert _exact(run.result) == _exact(whole), size
        if size == 1:  # sent before the error showed
            assert 0 in run.name_at


# ---------------------------------------------------------------------------- string arguments
@pytest.mark.parametrize("fmt", JSON_BODIED)
def test_string_encoded_arguments_stream_as_the_string_is_decoded(fmt: str) -> None:
    """Arguments written as a JSON string holding the object (``"{\\"city\\": ...}"``) stream
    as the string is decoded wherever a whole-text parse reads them; where it does not (harmony,
    whose body must be the object), the call sent at ``<|message|>`` is withdrawn at the end."""
    note = "".join(f"word{k} " for k in range(60))[:360]
    call = ToolCall.create("get_weather", {"city": "Tokyo", "note": note})
    text = render_tool_calls([call], fmt)
    obj = call.function.arguments
    assert obj in text, "the rendered call holds its arguments object"
    text = text.replace(obj, json.dumps(obj, ensure_ascii=False), 1)
    whole = parse_tool_calls(text, fmt)
    start = text.index(note[:40])
    for size in SIZES:
        run = _Run(fmt, _pieces(text, size))
        if fmt == "openai":
            assert not whole.tool_calls and stream_differs(run.result, whole) is None
            continue
        assert _exact(run.result) == _exact(whole), size
        assert whole.tool_calls[0].function.arguments == obj
        assert run.name_at[0] <= start + size
        inside = [f for fed, k, f in run.args_by_fed if k == 0 and start < fed <= start + 360]
        assert len(inside) >= 360 // size // 2, (size, len(inside))
        assert "".join(run.fragments(0)) == obj


@pytest.mark.parametrize("fmt", ["deepseek_v31", "kimi_k2", "deepseek_v3"])
def test_string_arguments_turning_bad_after_the_name_withdraw_the_call(fmt: str) -> None:
    good = render_tool_calls([ToolCall.create("get_weather", {"city": "Tokyo"})], fmt)
    obj = '{"city": "Tokyo"}'
    for bad in ('"{\\"city\\": \\"Tokyo\\"} trailing"', '"[1, 2]"', '"{\\"city\\": \\"Tok'):
        text = good.replace(obj, bad, 1)
        whole = parse_tool_calls(text, fmt)
        assert not whole.tool_calls and whole.problems, bad
        for size in SIZES:
            run = _Run(fmt, _pieces(text, size))
            assert _exact(run.result) == _exact(whole), (bad, size)
            assert 0 in run.name_at and run.withdrawn == [0], (bad, size)


_V3 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
_V31 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        (_V3.format("```json\n```"), "deepseek_v3"),
        (_V3.format("```json\nnull\n```"), "deepseek_v3"),
        (_V3.format('```json\n"  "\n```'), "deepseek_v3"),
        (_V3.format('```\n"{\\"a\\": [1, {\\"b\\": null}]}"```'), "deepseek_v3"),
        (_V3.format('```json{"a": 1}\n```'), "deepseek_v3"),
        (_V3.format("```null```"), "deepseek_v3"),
        (_V3.format('"{}"'), "deepseek_v3"),
        (_V31.format('"  "'), "deepseek_v31"),
        (_V31.format("null"), "deepseek_v31"),
        (_V31.format(' "{\\"a\\": \\"\\u00e9\\ud83c\\udf89\\"}" '), "deepseek_v31"),
    ],
)
def test_token_format_argument_edges_equal_the_whole_text(text: str, fmt: str) -> None:
    whole = parse_tool_calls(text, fmt)
    for size in SIZES:
        got = _Run(fmt, _pieces(text, size)).result
        if whole.tool_calls:
            assert _exact(got) == _exact(whole), size
        else:
            assert stream_differs(got, whole) is None, size


# ---------------------------------------------------------------------------- nested "function"
@pytest.mark.parametrize(
    "text",
    [
        # OpenAI's shape ("type": "function"): the outer keys' name is held until the object
        # closes or its "function" object comes, so streaming equals the whole-text parse
        '{"type": "function", "name": "x", "arguments": {"a": 1}, '
        '"function": {"name": "y", "arguments": {"b": "' + "z" * 40 + '"}}}',
        '{"type": "function", "name": "x", "arguments": {"a": 1}}',
        '[{"type": "function", "name": "x", "arguments": {"a": 1}}, '
        '{"type": "function", "function": {"name": "y", "arguments": "{}"}, "name": "q"}]',
    ],
)
def test_openai_typed_objects_equal_the_whole_text(text: str) -> None:
    whole = parse_tool_calls(text, "json")
    assert whole.tool_calls
    for size in SIZES:
        run = _Run("json", _pieces(text, size))
        assert _exact(run.result) == _exact(whole), size
    if "zzz" in text:  # the nested call's arguments still stream
        assert len(_Run("json", list(text)).fragments(0)) >= 10


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "x", "arguments": {"a": 1}, "function": {"name": "y", "arguments": {"b": 2}}}',
        '{"function": {"name": "x", "arguments": {}}, "function": {"name": "y", "arguments": '
        '{"b": 2}}}',
    ],
)
def test_a_late_nested_call_is_streamed_then_withdrawn(text: str) -> None:
    """A flat call's name is certain once its arguments key is read (else no flat call would
    stream); a "function" object after it makes the nested one the call: the stream sent
    both, and its last delta withdraws the first, ending as the whole-text parse does."""
    whole = parse_tool_calls(text, "json")
    assert [(c.function.name, c.function.arguments) for c in whole.tool_calls] == [
        ("y", '{"b": 2}')
    ]
    for size in SIZES:
        run = _Run("json", _pieces(text, size))
        assert run.name_at[0] < text.index('"function": {"name": "y"')
        assert 0 in run.withdrawn
        assert _exact(run.result) == _exact(whole)
