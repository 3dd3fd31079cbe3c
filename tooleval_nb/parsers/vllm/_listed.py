"""vLLM's readings of ``mistral`` and ``xlam``: calls after a ``[TOOL_CALLS]`` marker, or a JSON
list of calls found in a fence, a tag or the whole output.

Read from vLLM's ``vllm/tool_parsers/`` (commits): ``mistral_tool_parser.py`` (023f36c),
``xlam_tool_parser.py`` (4a550fd).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ._reading import Reading, blocks, dumps, no_calls

__all__ = ["LISTED_READERS"]

_BOT = "[TOOL_CALLS]"
_PRE_V11_LIST = re.compile(r"\[{.*}\]", re.S)


def _mistral(text: str, schemas: Any) -> Reading:
    """Content is the text before the first ``[TOOL_CALLS]``; what follows is read by the
    tokenizer generation's rule. vLLM picks the rule by the model's tokenizer, which a text does
    not carry: here a list right after the first marker is read by the pre-v11 rule, anything
    else by the v11+ rule.

    * v11+ (``[TOOL_CALLS]name{args}`` per call): each piece after a marker that holds a ``{`` is
      a call, the name up to the first ``{`` (``[ARGS]`` removed), the arguments the rest of the
      piece as written, unchecked; a piece without ``{`` is dropped.
    * pre-v11 (``[TOOL_CALLS][{...}, ...]``): one marker only (a second makes vLLM raise); the
      first JSON value after it is the list of calls (text after it dropped), else the first
      ``[{...}]`` span; when neither decodes the content is that rest, stripped, and the text
      before the marker is dropped.
    """
    if _BOT not in text:
        return no_calls(text)
    content, *raws = text.split(_BOT)
    if not raws[0].lstrip().startswith("["):
        calls = []
        for raw in raws:
            if "{" not in raw:
                continue
            cut = raw.find("{")
            calls.append((raw[:cut].replace("[ARGS]", ""), raw[cut:]))
        problems = [] if calls else ["no [TOOL_CALLS] piece holds arguments; dropped"]
        return Reading(calls, content or None, problems=problems)
    if len(raws) != 1:
        return Reading(error=f"{len(raws)} [TOOL_CALLS] markers where one is read (pre-v11)")
    rest = raws[0].strip()
    try:
        listed = json.JSONDecoder().raw_decode(rest)[0]
    except json.JSONDecodeError:
        listed = _pre_v11_span(rest)
        if listed is None:
            return Reading(content=rest, problems=["the [TOOL_CALLS] list does not decode"])
    try:
        calls = [(c["name"], dumps(c.get("arguments", {}))) for c in listed]
    except Exception as exc:  # not caught by vLLM: the server answers with an error
        return Reading(
            error=f"the [TOOL_CALLS] value is not a list of calls ({type(exc).__name__})"
        )
    return Reading(calls, content or None)


_FENCE = "```"
_SPACE = re.compile(r"\s*")
_TOOL_CALLS_LINE = re.compile(r"\[TOOL_CALLS\]([\s\S]*?)(?=\n|$)")
_THINK_END = re.compile(r"</think>([\s\S]*)")


def _fences(text: str) -> list[tuple[int, int, str]]:
    """Every ``re.finditer(```(?:json)?\\s*([\\s\\S]*?)```)`` match as (start, end, body), in
    linear time (no closing fence after one start means none after a later one)."""
    found, pos = [], 0
    while (i := text.find(_FENCE, pos)) != -1:
        k = i + 3 + (4 if text.startswith("json", i + 3) else 0)
        k = _SPACE.match(text, k).end()  # type: ignore[union-attr]
        j = text.find(_FENCE, k)
        if j == -1:
            break
        found.append((i, j + 3, text[k:j]))
        pos = j + 3
    return found


def _pre_v11_span(rest: str) -> Any:
    """The decoded first ``\\[{.*}\\]`` span (DOTALL: from the first ``[{`` to the last ``}]``),
    or None when there is none or it does not decode. Checked before the search, which would
    otherwise scan to the end from every ``[{`` when no ``}]`` follows."""
    first = rest.find("[{")
    if first == -1 or rest.rfind("}]") < first + 2:
        return None
    span = _PRE_V11_LIST.search(rest)
    try:
        return json.loads(span.group(0)) if span else None
    except json.JSONDecodeError:
        return None


#: the places xLAM's calls are looked for, in vLLM's order: fenced blocks, ``[TOOL_CALLS]``
#: lines, ``<tool_call>`` blocks
_XLAM_BLOCKS: tuple[Callable[[str], list[tuple[int, int, str]]], ...] = (
    _fences,
    lambda text: [(m.start(), m.end(), m.group(1)) for m in _TOOL_CALLS_LINE.finditer(text)],
    lambda text: blocks(text, "<tool_call>", "</tool_call>"),
)


def _decodes(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def _xlam_split(text: str) -> tuple[str | None, str | None]:
    """vLLM's split of an xLAM output into (content, the JSON text read as calls)."""
    think = _THINK_END.search(text)
    if think:
        content = text[: think.start() + len("</think>")].strip()
        after = think.group(1).strip()
        if _decodes(after):
            return content, after
        for finder in _XLAM_BLOCKS:
            for _, _, found in finder(after):
                if _decodes(found):
                    return content, found
    for finder in _XLAM_BLOCKS:
        spans = finder(text)
        for _, _, found in spans:
            if _decodes(found):  # content: the output less every block of this kind
                kept, cut = [], 0
                for start, end, _ in spans:
                    kept.append(text[cut:start])
                    cut = end
                return ("".join(kept) + text[cut:]).strip(), found
    if text.strip().startswith("["):
        if _decodes(text) or ("{" in text and "name" in text and "arguments" in text):
            return None, text
    return text, None


def _xlam(text: str, schemas: Any) -> Reading:
    """The first fenced block, ``[TOOL_CALLS]`` line or ``<tool_call>`` block that decodes (after
    ``</think>`` first), or the whole output when it is a list, is the JSON list of calls; items
    without ``name`` and ``arguments`` are skipped; object arguments are re-written with ASCII
    escapes (``json.dumps`` defaults), string arguments served as written. Content is the output
    less every block of the kind read (stripped), or the text up to ``</think>``; none when the
    whole output is the list."""
    try:
        content, listed_text = _xlam_split(text)
        if not listed_text:
            return Reading(content=content)
        listed = json.loads(listed_text)
        if not isinstance(listed, list):
            return Reading(content=content or text, problems=["the calls are not a JSON list"])
        calls = []
        for item in listed:
            if not isinstance(item, dict) or "name" not in item or "arguments" not in item:
                continue
            name, args = item["name"], item["arguments"]
            if not isinstance(name, str) or not isinstance(args, (dict, str)):
                raise TypeError("a name or arguments vLLM's ToolCall does not take")
            calls.append((name, json.dumps(args) if isinstance(args, dict) else args))
    except Exception as exc:  # vLLM catches every error of its reading alike
        return no_calls(text, f"the call list does not read ({type(exc).__name__})")
    problems = [] if calls else ["no item of the list is a call"]
    return Reading(calls, content, problems=problems)


LISTED_READERS: dict[str, Callable[[str, Any], Reading]] = {
    "mistral": _mistral,
    "xlam": _xlam,
}
