"""A stream ends where the whole-text parse does (issue 48): for every format, in both compat
modes, random outputs (calls, malformed calls, text around them, the format's tokens in odd
places) fed in random chunks give a reconstructor whose final calls, content, reasoning and
problems equal the whole-text parse's; the deltas keep the streaming protocol."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooleval_nb.parsers import (
    PARSER_FORMATS,
    ExtractedToolCallInformation,
    StreamingToolReconstructor,
    get_parser,
    parse_tool_calls,
    render_tool_calls,
)
from tooleval_nb.parsers._tagged import TaggedParser
from tooleval_nb.parsers.registry import parser_class
from tooleval_nb.parsers.vllm import VLLM_FORMATS
from tooleval_nb.toolcall import ToolCall

#: every format in our default mode, and the formats compat="vllm" reads
CASES = [pytest.param(fmt, "default", id=f"{fmt}-default") for fmt in PARSER_FORMATS] + [
    pytest.param(fmt, "vllm", id=f"{fmt}-vllm") for fmt in VLLM_FORMATS
]

_CALLS = [
    ToolCall.create("get_weather", {"city": "Tokyo", "days": 3}),
    ToolCall.create("f", {}),
    ToolCall.create("run", {"cmd": 'say "hi" \\ ok\nnext', "n": [1, {"a": None}], "x": 1.5}),
]
_PROSE = ["Sure.", " ", "\n", "text after", "{", "}", "[", "]", '"', "'", "\\", "(", ")", ",", "<"]


def _tokens(fmt: str) -> list[str]:
    cls = parser_class(fmt)
    if not issubclass(cls, TaggedParser):
        return []
    tokens = [r.start for r in cls.regions] + [r.end for r in cls.regions if r.end]
    return tokens + list(cls.drop) + list(cls.think or ()) + ([cls.lead] if cls.lead else [])


def _pieces(fmt: str) -> list[str]:
    """Well-formed calls, one and several, their tokens and halves of them."""
    rendered = [render_tool_calls([c], fmt) for c in _CALLS]
    rendered.append(render_tool_calls(_CALLS[:2], fmt))
    tokens = _tokens(fmt)
    halves = [t[: len(t) // 2] for t in tokens] + [t[len(t) // 2 :] for t in tokens]
    return rendered + tokens + halves


PIECES = {fmt: _pieces(fmt) for fmt in PARSER_FORMATS}


@st.composite
def outputs(draw: st.DrawFn, fmt: str) -> str:
    """Text, calls and malformed calls (a call cut short, a character dropped or doubled, an
    odd piece inside it) in any order."""
    pieces = PIECES[fmt]
    parts: list[str] = []
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        kind = draw(st.integers(min_value=0, max_value=4))
        piece = draw(st.sampled_from(pieces))
        if kind == 0:
            parts.append(draw(st.sampled_from(_PROSE)) + draw(st.text(max_size=4)))
        elif kind == 1:
            parts.append(piece)
        elif kind == 2 and piece:  # cut short
            parts.append(piece[: draw(st.integers(min_value=0, max_value=len(piece)))])
        elif kind == 3 and piece:  # one character dropped, doubled or replaced
            at = draw(st.integers(min_value=0, max_value=len(piece) - 1))
            how = draw(st.sampled_from(["", piece[at] * 2, "x", '"', "}"]))
            parts.append(piece[:at] + how + piece[at + 1 :])
        elif piece:  # another piece inside this one
            at = draw(st.integers(min_value=0, max_value=len(piece)))
            parts.append(piece[:at] + draw(st.sampled_from(pieces + _PROSE)) + piece[at:])
    return "".join(parts)


def _exact(info: ExtractedToolCallInformation) -> tuple[Any, ...]:
    return (
        [(c.function.name, c.function.arguments) for c in info.tool_calls],
        info.content,
        info.reasoning,
        info.problems,
    )


def _chunkings(text: str, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    chunks: list[str] = []
    i = 0
    while i < len(text):
        size = rng.randint(1, 7)
        chunks.append(text[i : i + size])
        i += size
    return [list(text), chunks, [text]]


def _stream(fmt: str, chunks: list[str], compat: str) -> tuple[Any, ...]:
    parser = get_parser(fmt, compat=compat)  # type: ignore[arg-type]
    recon = StreamingToolReconstructor()  # strict: a protocol violation raises
    for chunk in chunks:
        recon.append_delta(parser.feed(chunk))
    recon.append_delta(parser.finish())
    final = recon.result()
    assert _exact(parser.result()) == _exact(final)
    ids = [c.id for c in final.tool_calls]
    assert ids == [c.id for c in parser.result().tool_calls]
    return _exact(final)


@pytest.mark.parametrize(("fmt", "compat"), CASES)
def test_the_final_state_of_any_stream_is_the_whole_text_parse(fmt: str, compat: str) -> None:
    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(outputs(fmt), st.integers(min_value=0, max_value=2**16))
    def check(text: str, seed: int) -> None:
        whole = _exact(parse_tool_calls(text, fmt, compat=compat))  # type: ignore[arg-type]
        for chunks in _chunkings(text, seed):
            assert _stream(fmt, chunks, compat) == whole, (text, chunks)

    check()
