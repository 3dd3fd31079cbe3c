"""Formats that write a section of calls with special tokens (one table entry each).

A section holds calls ``BEGIN head SEP tail END`` with only whitespace between them; the
formats differ in the tokens and in what the head and tail hold. Calls are emitted when their
section ends (or at the end of the output, for an unclosed section). Text around the section is
content (vLLM keeps the text before it and drops what follows; we keep both). A section with a
malformed call stays in the content, tokens included, with the reason in ``problems``.

Streaming (:class:`~._seqstream.SequenceStream`): each call is sent when its name is certain (at
the separator token; DeepSeek-V3: the newline after the name; Step-3: the ``>`` of its invoke
tag) and its arguments stream; committed after that first delta. ``<think>`` ... ``</think>`` is
reasoning (DeepSeek-R1 / V3.1).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ._calls import CallResult, call_from_object, load_json, name_problem
from ._seqstream import sequence_stream
from ._tagged import THINK, BodyReader, Found, Region, TaggedParser
from ._xmlargs import invoke_params
from .protocol import ToolSchemas

__all__ = ["sequence", "DeepSeekV3Parser", "DeepSeekV31Parser", "KimiK2Parser", "Step3Parser"]

#: reads one call from its head and tail: a CallResult, or the reason it is malformed
CallReader = Callable[[str, str, ToolSchemas | None], CallResult | str]

_FENCE = re.compile(r"\A\s*```[A-Za-z]*\s*\n?(.*?)\n?\s*```\s*\Z", re.DOTALL)


def sequence(begin: str, sep: str, end: str, read_call: CallReader) -> BodyReader:
    """A body reader for ``BEGIN head SEP tail END`` calls separated by whitespace."""

    def read(body: str, schemas: ToolSchemas | None) -> Found:
        calls: list[CallResult] = []
        pos, n = 0, len(body)
        while True:
            while pos < n and body[pos].isspace():
                pos += 1
            if pos >= n:
                break
            if not body.startswith(begin, pos):
                return [], f"unexpected text {body[pos : pos + 30]!r} where {begin} was expected"
            stop = body.find(end, pos)
            piece = body[pos + len(begin) :] if stop < 0 else body[pos + len(begin) : stop]
            split = piece.find(sep)
            if split < 0:
                return [], f"call {len(calls)} has no {sep}"
            call = read_call(piece[:split], piece[split + len(sep) :], schemas)
            if isinstance(call, str):
                return [], f"call {len(calls)} is malformed: {call}"
            calls.append(call)
            pos = n if stop < 0 else stop + len(end)
        if not calls:
            return [], "the section is empty"
        return calls, None

    return read


def _json_args(name: str, text: str) -> CallResult | str:
    bad_name = name_problem(name)
    if bad_name:
        return bad_name
    if not text.strip():
        value: object = {}
    else:
        value, problem = load_json(text.strip())
        if problem:
            return f"the arguments of {name!r} are {problem}"
    found = call_from_object({"name": name, "arguments": value})
    if found is None:
        return "its arguments are unusable"
    return found.problem or found


def _deepseek_v3(head: str, tail: str, schemas: ToolSchemas | None) -> CallResult | str:
    name, _, rest = tail.partition("\n")
    fenced = _FENCE.match(rest)
    if fenced is None:
        return "its arguments are not in a ```json fence after the name"
    return _json_args(name.strip(), fenced.group(1))


def _deepseek_v31(head: str, tail: str, schemas: ToolSchemas | None) -> CallResult | str:
    return _json_args(head.strip(), tail)


def _kimi(head: str, tail: str, schemas: ToolSchemas | None) -> CallResult | str:
    name = head.strip()
    name = name[len("functions.") :] if name.startswith("functions.") else name
    name, colon, index = name.rpartition(":")
    if not colon or not index.strip().isdigit():
        return f"{head.strip()[:40]!r} is not functions.NAME:INDEX"
    return _json_args(name, tail)


_STEP3_INVOKE = invoke_params("steptml:")


def _step3(head: str, tail: str, schemas: ToolSchemas | None) -> CallResult | str:
    if head.strip() != "function":
        return f"its type is {head.strip()[:20]!r}, not function"
    found = _STEP3_INVOKE(tail, schemas)
    if found is None or not found[0]:
        return (found[1] if found else None) or "it holds no <steptml:invoke>"
    if len(found[0]) != 1:
        return "it holds several invokes"
    return found[0][0]


_DS = ("<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>")
_DS_SECTION = ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")


class DeepSeekV3Parser(TaggedParser):
    """``deepseek_v3`` (DeepSeek-V3-0324, R1-0528)::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Tokyo"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
    """

    format = "deepseek_v3"
    think = THINK
    regions = (
        Region(
            _DS_SECTION[0],
            sequence(*_DS, _deepseek_v3),
            end=_DS_SECTION[1],
            stream=sequence_stream(*_DS, "v3"),
        ),
    )


class DeepSeekV31Parser(TaggedParser):
    """``deepseek_v31`` (DeepSeek-V3.1): the V3 tokens, the name before the separator and the
    bare JSON arguments after it:
    ``<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Tokyo"}<｜tool▁call▁end｜>``."""

    format = "deepseek_v31"
    think = THINK
    regions = (
        Region(
            _DS_SECTION[0],
            sequence(*_DS, _deepseek_v31),
            end=_DS_SECTION[1],
            stream=sequence_stream(*_DS, "v31"),
        ),
    )


_KIMI = ("<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>")


class KimiK2Parser(TaggedParser):
    """``kimi_k2`` (Kimi-K2)::

        <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
        <|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|><|tool_calls_section_end|>

    The call id ``functions.NAME:INDEX`` gives the name: ``functions.`` and ``:INDEX`` are
    removed and a dotted name is kept whole (vLLM keeps only its last part). Our ids replace
    the model's. The singular ``<|tool_call_section_begin|>`` spelling is read too."""

    format = "kimi_k2"
    regions = (
        Region(
            "<|tool_calls_section_begin|>",
            sequence(*_KIMI, _kimi),
            end="<|tool_calls_section_end|>",
            stream=sequence_stream(*_KIMI, "kimi"),
        ),
        Region(
            "<|tool_call_section_begin|>",
            sequence(*_KIMI, _kimi),
            end="<|tool_call_section_end|>",
            stream=sequence_stream(*_KIMI, "kimi"),
        ),
    )


_STEP = ("<｜tool_call_begin｜>", "<｜tool_sep｜>", "<｜tool_call_end｜>")


class Step3Parser(TaggedParser):
    """``step3`` (Step-3): ``<｜tool_calls_begin｜>`` then per call
    ``<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">``
    ``<steptml:parameter name="KEY">VALUE</steptml:parameter></steptml:invoke>``
    ``<｜tool_call_end｜>``, then ``<｜tool_calls_end｜>``; values are typed as in
    :mod:`._xmlargs`."""

    format = "step3"
    regions = (
        Region(
            "<｜tool_calls_begin｜>",
            sequence(*_STEP, _step3),
            end="<｜tool_calls_end｜>",
            stream=sequence_stream(*_STEP, "step3"),
        ),
    )
