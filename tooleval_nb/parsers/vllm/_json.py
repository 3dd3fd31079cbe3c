"""vLLM's readings of the formats whose calls are JSON objects in tags or after a marker.

Read from vLLM's ``vllm/tool_parsers/`` (commits): ``hermes_tool_parser.py`` (becf329),
``longcat_tool_parser.py`` (ec343f4), ``granite_20b_fc_tool_parser.py`` (443641c),
``internlm2_tool_parser.py`` (a448ca8), ``gigachat3_tool_parser.py`` (f5182ff),
``llama_tool_parser.py`` (13e48c2), ``phi4mini_tool_parser.py`` (9dc4946),
``jamba_tool_parser.py`` and ``granite_tool_parser.py`` (400ffd7), ``minimax_tool_parser.py``
(875ce2a), ``granite4_tool_parser.py`` (4b5c627), ``ernie45_tool_parser.py``,
``hunyuan_a13b_tool_parser.py`` (fe3771b).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ._reading import Reading, blocks, dumps, no_calls

__all__ = ["JSON_READERS"]


def _tagged(start: str, end: str) -> Callable[[str, Any], Reading]:
    """Hermes and its kin: every ``start ... end`` block (or ``start ...`` to the end) is one
    JSON object with ``name`` and ``arguments`` (an object, or a string holding one); any
    failure serves the whole output as content. Content is the text before the first block:
    text after and between the blocks is dropped."""
    block = re.compile(f"{re.escape(start)}(.*?){re.escape(end)}|{re.escape(start)}(.*)", re.S)

    def read(text: str, schemas: Any) -> Reading:
        if start not in text:
            return no_calls(text)
        calls = []
        try:
            for match in block.finditer(text):
                body = match.group(1) if match.group(1) else match.group(2)
                obj = json.loads(body)
                args = obj["arguments"]
                if isinstance(args, str):
                    args = json.loads(args)
                calls.append((obj["name"], dumps(args)))
        except Exception as exc:  # vLLM catches every error of its reading alike
            return no_calls(text, f"a {start} block does not read ({type(exc).__name__})")
        content = text[: text.find(start)]
        return Reading(calls, content or None)

    return read


_FUNCTION_CALL = re.compile(r"<function_call>\s*")


def _granite_20b_fc(text: str, schemas: Any) -> Reading:
    """``<function_call> {...}`` repeated: each object decoded from its marker on (what follows
    the object up to the next marker is dropped); content is the text before the first."""
    if "<function_call>" not in text:
        return no_calls(text)
    decoder = json.JSONDecoder()
    marks = list(_FUNCTION_CALL.finditer(text))
    calls = []
    try:
        for i, mark in enumerate(marks):
            stop = marks[i + 1].start() if i + 1 < len(marks) else None
            obj = decoder.raw_decode(text[mark.end() : stop])[0]
            calls.append((obj["name"], dumps(obj["arguments"])))
    except Exception as exc:
        return no_calls(text, f"a <function_call> object does not read ({type(exc).__name__})")
    content = text[: text.find("<function_call>")]
    return Reading(calls, content or None)


_ACTION = "<|action_start|><|plugin|>"


def _internlm(text: str, schemas: Any) -> Reading:
    """One call after ``<|action_start|><|plugin|>`` up to ``<|action_end|>``, read from its
    first ``{``; the text before it is the content, the text after is dropped. vLLM does not
    catch errors here: a second marker or an object that does not read makes it raise."""
    if _ACTION not in text:
        return Reading(content=text)
    parts = text.split(_ACTION)
    if len(parts) != 2:
        return Reading(error=f"{len(parts) - 1} tool-call markers where one is read")
    before, action = parts
    action = action.split("<|action_end|>")[0]
    action = action[action.find("{") :]
    try:
        obj = json.loads(action)
        name = obj["name"]
        args = dumps(obj.get("parameters", obj.get("arguments", {})))
    except Exception as exc:
        return Reading(error=f"{type(exc).__name__}: {str(exc)[:80]}")
    return Reading([(name, args)], before or None)


_GIGA_CALL = re.compile(r"function call<\|role_sep\|>\n(.*)", re.S)
_GIGA_CONTENT = re.compile(r"^(.*?)<\|message_sep\|>", re.S)


def _gigachat3(text: str, schemas: Any) -> Reading:
    """One call: the rest of the output after ``function call<|role_sep|>\\n`` (a trailing
    ``</s>`` cut) must be one JSON object with ``name`` and object ``arguments``; content is
    the text before the first ``<|message_sep|>`` (the whole output when there is none)."""
    if text.rstrip().endswith("</s>"):
        text = text[: text.rfind("</s>")]
    call = None
    found = _GIGA_CALL.search(text)
    if found:
        try:
            call = json.loads(found.group(1), strict=False)
        except json.JSONDecodeError:
            return no_calls(text, "the function call is not one JSON object")
        if not (
            isinstance(call, dict)
            and "name" in call
            and "arguments" in call
            and isinstance(call["arguments"], dict)
        ):
            call = None
    head = _GIGA_CONTENT.search(text)
    content = head.group(1) if head else text
    if not call:
        problem = "the function call has no name or no object arguments" if found else None
        return Reading(content=content or None, problems=[problem] if problem else [])
    return Reading([(call["name"], dumps(call["arguments"]))], content or None)


def _llama3_json(text: str, schemas: Any) -> Reading:
    """Every ``{`` outside an object already read starts one: each must decode and hold
    ``name`` and ``arguments`` (or ``parameters``), or the whole output is content. The text
    around the objects is dropped (no content when there are calls)."""
    if not ("<|python_tag|>" in text or "{" in text):
        return no_calls(text)
    decoder = json.JSONDecoder()
    calls, end = [], -1
    for brace in re.finditer(r"\{", text):
        if brace.start() <= end:
            continue
        try:
            obj, used = decoder.raw_decode(text[brace.start() :])
            end = brace.start() + used
            name = obj["name"]
            args = obj["arguments"] if "arguments" in obj else obj["parameters"]
            calls.append((name, dumps(args)))
        except Exception as exc:
            return no_calls(text, f"a JSON object does not read as a call ({type(exc).__name__})")
    return Reading(calls, None) if calls else no_calls(text)


_PHI4 = "functools["


def _phi4_mini_json(text: str, schemas: Any) -> Reading:
    """``functools[...]`` up to its first ``]`` (a list inside the arguments cuts it short):
    a JSON list of calls. A list that does not decode leaves vLLM with no call and no content
    (an empty message); a call without ``name`` or ``arguments``/``parameters`` serves the
    whole output as content. No content when there are calls."""
    # vLLM's first ``functools\[(.*?)\]`` match, found without rescanning from every marker
    at = text.find(_PHI4)
    close = text.find("]", at + len(_PHI4)) if at != -1 else -1
    if close == -1:
        return no_calls(text)
    try:
        items = json.loads("[" + text[at + len(_PHI4) : close] + "]")
    except json.JSONDecodeError as exc:
        return Reading(content=None, problems=[f"the functools list does not decode ({exc})"])
    calls = []
    try:
        for item in items:
            args = item["arguments"] if "arguments" in item else item["parameters"]
            calls.append((item["name"], dumps(args)))
    except Exception as exc:
        return no_calls(text, f"a functools item is not a call ({type(exc).__name__})")
    return Reading(calls, None)


def _jamba(text: str, schemas: Any) -> Reading:
    """The first closed ``<tool_calls>...</tool_calls>`` holds a JSON list of calls; content is
    the text before it (a lone space is none); text after it is dropped."""
    if "<tool_calls>" not in text:
        return no_calls(text)
    try:
        body = blocks(text, "<tool_calls>", "</tool_calls>")[0][2]
        calls = [(c["name"], dumps(c["arguments"])) for c in json.loads(body)]
    except Exception as exc:
        return no_calls(text, f"the <tool_calls> list does not read ({type(exc).__name__})")
    content = text[: text.find("<tool_calls>")]
    return Reading(calls, content if content and content != " " else None)


def _granite(text: str, schemas: Any) -> Reading:
    """After an optional ``<|tool_call|>`` or ``<tool_call>``, the whole (stripped) output must
    be one JSON list of calls: text before or after it makes the output content."""
    rest = text.strip().removeprefix("<|tool_call|>").removeprefix("<tool_call>").lstrip()
    if not rest.startswith("["):
        return no_calls(text)
    try:
        listed = json.loads(rest)
        if not isinstance(listed, list):
            raise TypeError("not a list")
        calls = [(c["name"], dumps(c["arguments"])) for c in listed]
    except Exception as exc:
        return no_calls(text, f"the call list does not read ({type(exc).__name__})")
    return Reading(calls, None)


_TC = ("<tool_calls>", "</tool_calls>")


def _cut(text: str, start: str, end: str, keep: Callable[[str], str] | None) -> str:
    """``re.sub(start(.*?)end, ..., re.S)`` in one pass: each block dropped (``keep`` None) or
    rewritten as ``start + keep(body) + end``."""
    out, cut = [], 0
    for i, j, body in blocks(text, start, end):
        out.append(text[cut:i])
        if keep is not None:
            out.append(start + keep(body) + end)
        cut = j
    return "".join(out) + text[cut:]


_MM_BLOCK = re.compile(r"<tool_calls>(.*?)</tool_calls>|<tool_calls>(.*)", re.S)


def _minimax(text: str, schemas: Any) -> Reading:
    """``<tool_calls>`` blocks (outside ``<think>``; closed, or open to the end) hold one JSON
    object per line: each line that is ``{...}`` and decodes with ``name`` and ``arguments``
    is a call, the other lines are skipped. Content is the text before the first block (up to
    its last non-empty line), stripped, even without a call; text after a block is dropped."""

    processed = _cut(text, "<think>", "</think>", keep=lambda inner: _cut(inner, *_TC, keep=None))
    if "<tool_calls>" not in processed:
        return no_calls(text)
    calls = []
    for match in _MM_BLOCK.finditer(processed):
        block = match.group(1) if match.group(1) else match.group(2)
        for line in block.strip().split("\n"):
            line = line.strip()
            if not (line.startswith("{") and line.endswith("}")):
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "name" in obj and "arguments" in obj:
                calls.append((obj["name"], dumps(obj["arguments"])))
    before = processed[: processed.find("<tool_calls>")].strip()
    content = ""
    for line in reversed(before.split("\n") if before else []):
        line = line.strip()
        if line:
            at = text.find(line)
            if at != -1:
                content = text[: at + len(line)]
                break
    problems = [] if calls else ["no line of the <tool_calls> block is a call; dropped"]
    return Reading(calls, content.strip() or None, problems=problems)


_TC_MARK = re.compile(r"(?P<start><tool_call>)|(?P<end></tool_call>)")


def _granite4(text: str, schemas: Any) -> Reading:
    """``<tool_call>{...}</tool_call>`` blocks strictly paired (two starts in a row, an end
    without a start, an empty or unclosed block: the whole output is content); the text
    outside the blocks, joined, is the content; arguments given as a string are served as
    written."""
    outside: list[str] = []
    bodies: list[str] = []
    inside, cut = False, 0
    for mark in _TC_MARK.finditer(text):
        if mark.lastgroup == "start":
            if inside:
                return no_calls(text, "two <tool_call> in a row")
            outside.append(text[cut : mark.start()])
            inside = True
        else:
            if not inside or not text[cut : mark.start()]:
                return no_calls(text, "a </tool_call> without its block")
            bodies.append(text[cut : mark.start()])
            inside = False
        cut = mark.end()
    if inside:
        return no_calls(text, "a <tool_call> block is not closed")
    outside.append(text[cut:])
    calls = []
    try:
        for body in bodies:
            obj = json.loads(body)
            if not isinstance(obj, dict):
                raise TypeError("not an object")
            args = obj["arguments"]
            calls.append((obj["name"], args if isinstance(args, str) else dumps(args)))
    except Exception as exc:
        return no_calls(text, f"a <tool_call> block does not read ({type(exc).__name__})")
    return Reading(calls, "".join(outside) or None)


_ERNIE = re.compile(r"<tool_call>\s*(?P<json>\{.*?\})\s*</tool_call>", re.S)


def _ernie45(text: str, schemas: Any) -> Reading:
    """Every ``<tool_call>{...}</tool_call>`` (the shortest object closed by the tag); content
    is the text before the first ``<tool_call>`` (trailing newlines cut), text after is dropped;
    one object that does not decode makes the whole output content."""
    if "<tool_call>" not in text:
        return no_calls(text)
    calls = []
    try:
        for body in _ERNIE.findall(text):
            obj = json.loads(body)
            calls.append((obj.get("name", ""), dumps(obj.get("arguments", {}))))
    except Exception as exc:
        return no_calls(text, f"a <tool_call> block does not read ({type(exc).__name__})")
    content = text[: text.find("<tool_call>")].rstrip("\n")
    problems = [] if calls else ["no <tool_call> block vLLM reads; the rest is dropped"]
    return Reading(calls, content or None, problems=problems)


def _outside_thinks(text: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The blocks of ``found`` (in order) that no ``<think>...</think>`` block holds: vLLM skips
    a block when a think block starts before it and ends after it. The think blocks are disjoint
    and in order, so only the last one starting before a block can hold it: one sweep over
    both, linear where testing every think block for every block was quadratic."""
    thinks = [(a, b) for a, b, _ in blocks(text, "<think>", "</think>")]
    kept, k = [], -1
    for start, end, body in found:
        while k + 1 < len(thinks) and thinks[k + 1][0] < start:
            k += 1
        if k < 0 or end >= thinks[k][1]:
            kept.append((start, end, body))
    return kept


def _hunyuan_a13b(text: str, schemas: Any) -> Reading:
    """The first closed ``<tool_calls>`` block outside ``<think>`` whose body decodes as JSON
    holds a list of calls; items without ``name`` and ``arguments`` are skipped; object
    arguments are re-written with ASCII escapes (``json.dumps`` defaults), string arguments
    served as written. Content is the text before that block (text after is dropped); with no
    such block, the output less its first ``助手：`` (the chat template's prefix)."""
    found, undecoded = None, 0
    for start, _, body in _outside_thinks(text, blocks(text, *_TC)):
        body = body.strip()
        try:
            json.loads(body)
        except ValueError:
            undecoded += 1
            continue
        found = (text[:start], body)
        break
    if found is None:
        problems = [f"{undecoded} <tool_calls> block(s) do not decode"] if undecoded else []
        return Reading(content=text.replace("助手：", "", 1), problems=problems)
    before, body = found
    listed = json.loads(body)
    if not isinstance(listed, list):
        return Reading(content=before or text, problems=["the <tool_calls> body is not a list"])
    calls = []
    for item in listed:
        if not isinstance(item, dict) or "name" not in item or "arguments" not in item:
            continue
        args = item["arguments"]
        if isinstance(args, dict):
            args = json.dumps(args)
        elif not isinstance(args, str):
            return no_calls(text, "a call's arguments are neither an object nor a string")
        calls.append((item["name"], args))
    problems = [] if calls else ["no item of the <tool_calls> list is a call"]
    return Reading(calls, before if before.strip() else None, problems=problems)


JSON_READERS: dict[str, Callable[[str, Any], Reading]] = {
    "hermes": _tagged("<tool_call>", "</tool_call>"),
    "longcat": _tagged("<longcat_tool_call>", "</longcat_tool_call>"),
    "granite-20b-fc": _granite_20b_fc,
    "internlm": _internlm,
    "gigachat3": _gigachat3,
    "llama3_json": _llama3_json,
    "phi4_mini_json": _phi4_mini_json,
    "jamba": _jamba,
    "granite": _granite,
    "minimax": _minimax,
    "granite4": _granite4,
    "ernie45": _ernie45,
    "hunyuan_a13b": _hunyuan_a13b,
}
