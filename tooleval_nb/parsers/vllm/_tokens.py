"""vLLM's readings of the formats whose calls sit in special-token sections.

Read from vLLM's ``vllm/tool_parsers/`` (commits): ``deepseekv3_tool_parser.py`` (80445b4),
``deepseekv31_tool_parser.py`` (e2fc92e), ``kimi_k2_tool_parser.py`` (c853e15),
``step3_tool_parser.py`` (fe3771b).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any

from ._reading import Reading, dumps, no_calls

__all__ = ["TOKEN_READERS"]

_V3_BEGIN = "<｜tool▁calls▁begin｜>"
#: one call on one line each for its type, name and arguments (no DOTALL: ``.`` stops at a
#: newline), the arguments between a json fence
_V3_CALL = re.compile(
    r"<｜tool▁call▁begin｜>(?P<type>.*)<｜tool▁sep｜>(?P<name>.*)\n```json\n"
    r"(?P<args>.*)\n```<｜tool▁call▁end｜>"
)


def _deepseek_v3(text: str, schemas: Any) -> Reading:
    """Every call matching the one-line pattern, its arguments text served as is; content is
    the text before ``<｜tool▁calls▁begin｜>``, everything after it is dropped (even when no
    call matches: vLLM then serves no call and that content). A type other than ``function``
    serves the whole output as content."""
    if _V3_BEGIN not in text:
        return no_calls(text)
    calls = []
    for match in _V3_CALL.finditer(text):
        if match.group("type") != "function":
            return no_calls(text, f"a call has the type {match.group('type')[:20]!r}")
        calls.append((match.group("name"), match.group("args")))
    content = text[: text.find(_V3_BEGIN)]
    problems = [] if calls else ["the tool-call section holds no call vLLM reads; dropped"]
    return Reading(calls, content or None, problems=problems)


_V31_BEGIN, _V31_SEP, _V31_END = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"


def _v31_calls(text: str) -> list[tuple[str, str]]:
    """vLLM's ``BEGIN(.*?)SEP(.*?)END`` matches (no DOTALL: all on one line), in one pass: a
    begin whose line has no separator followed by an end cannot match, nor can a later begin on
    that line, so the search moves to the next line."""
    calls, pos = [], 0
    while (i := text.find(_V31_BEGIN, pos)) != -1:
        line_end = text.find("\n", i)
        line_end = len(text) if line_end == -1 else line_end
        s = text.find(_V31_SEP, i + len(_V31_BEGIN), line_end)
        e = text.find(_V31_END, s + len(_V31_SEP), line_end) if s != -1 else -1
        if e == -1:
            pos = line_end
            continue
        calls.append((text[i + len(_V31_BEGIN) : s], text[s + len(_V31_SEP) : e]))
        pos = e + len(_V31_END)
    return calls


def _deepseek_v31(text: str, schemas: Any) -> Reading:
    """Every ``name<｜tool▁sep｜>arguments`` between call tokens on one line, the arguments
    served as written; content is the text before ``<｜tool▁calls▁begin｜>``, the rest is
    dropped (also when no call matches)."""
    if _V3_BEGIN not in text:
        return no_calls(text)
    calls = _v31_calls(text)
    content = text[: text.find(_V3_BEGIN)]
    problems = [] if calls else ["the tool-call section holds no call vLLM reads; dropped"]
    return Reading(calls, content or None, problems=problems)


_K2_BEGIN = "<|tool_calls_section_begin|>"
_K2_CALL = re.compile(
    r"<\|tool_call_begin\|>\s*(?P<id>[^<]+:\d+)\s*<\|tool_call_argument_begin\|>\s*"
    r"(?P<args>(?:(?!<\|tool_call_begin\|>).)*?)\s*<\|tool_call_end\|>",
    re.S,
)


def _kimi_k2(text: str, schemas: Any) -> Reading:
    """Every call whose id is ``[functions.]name:N``, its arguments served as written (trimmed);
    content is the text before ``<|tool_calls_section_begin|>`` (the singular spelling does not
    start a section here), the rest is dropped (also when no call matches)."""
    if _K2_BEGIN not in text:
        return no_calls(text)
    calls = [
        (m.group("id").split(":")[0].split(".")[-1], m.group("args"))
        for m in _K2_CALL.finditer(text)
    ]
    content = text[: text.find(_K2_BEGIN)]
    problems = [] if calls else ["the tool-call section holds no call vLLM reads; dropped"]
    return Reading(calls, content or None, problems=problems)


_S3_BEGIN, _S3_END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
_S3_CALL_BEGIN, _S3_CALL_END, _S3_SEP = (
    "<｜tool_call_begin｜>",
    "<｜tool_call_end｜>",
    "<｜tool_sep｜>",
)
_S3_INVOKE = re.compile(r'<steptml:invoke name="([^"]+)">')
_S3_PARAM = re.compile(r'<steptml:parameter name="([^"]+)">([^<]*)</steptml:parameter>')


def _step3_cast(name: str, params: dict[str, Any], schemas: Any) -> dict[str, Any]:
    """Type raw values by the tool's schema as vLLM does: integer, number, boolean, null (a
    value that does not convert stays text)."""
    props = (schemas or {}).get(name)
    if props is None:
        return params
    for key, value in params.items():
        kind = (props.get(key) or {}).get("type")
        if kind == "integer":
            with contextlib.suppress(ValueError):
                params[key] = int(value)
        elif kind == "number":
            with contextlib.suppress(ValueError):
                params[key] = float(value)
        elif kind == "boolean":
            low = value.lower()
            params[key] = low == "true" if low in ("true", "false") else value
        elif kind == "null":
            params[key] = None if value.lower() == "null" else value
    return params


def _step3(text: str, schemas: Any) -> Reading:
    """The section must close; each call in it that closes, has the type ``function`` and an
    ``<steptml:invoke name=...>`` is read (its parameters by a flat pattern: a value holding
    ``<`` is skipped), the others are skipped. Content is the text before and after the
    section, stripped; without a call the whole output is content."""
    if _S3_BEGIN not in text:
        return no_calls(text)
    before, rest = text.split(_S3_BEGIN, 1)
    if _S3_END not in rest:
        return no_calls(text, "the tool-call section is not closed")
    section, after = rest.split(_S3_END, 1)
    calls = []
    for part in section.split(_S3_CALL_BEGIN):
        if not part or _S3_CALL_END not in part:
            continue
        body = part.split(_S3_CALL_END, 1)[0]
        if _S3_SEP not in body:
            continue
        kind, invoke = body.split(_S3_SEP, 1)
        if kind.strip() != "function":
            continue
        found = _S3_INVOKE.search(invoke)
        if not found:
            continue
        params = {k: v.strip() for k, v in _S3_PARAM.findall(invoke)}
        calls.append((found.group(1), dumps(_step3_cast(found.group(1), params, schemas))))
    if not calls:
        return no_calls(text, "the tool-call section holds no call vLLM reads")
    return Reading(calls, (before + after).strip() or None)


TOKEN_READERS: dict[str, Callable[[str, Any], Reading]] = {
    "deepseek_v3": _deepseek_v3,
    "deepseek_v31": _deepseek_v31,
    "kimi_k2": _kimi_k2,
    "step3": _step3,
}
