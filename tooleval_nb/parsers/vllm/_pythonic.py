"""vLLM's readings of the Python-call formats: ``pythonic``, ``llama4_pythonic``, ``olmo3``,
``lfm2``.

Read from vLLM's ``vllm/tool_parsers/`` (commits): ``utils.py`` (the shared value reader),
``pythonic_tool_parser.py`` (0047fb9), ``llama4_pythonic_tool_parser.py`` and
``olmo3_tool_parser.py`` (e2fc92e), ``lfm2_tool_parser.py`` (c92f53f). The values a call may
hold are literals only: constants, lists, dicts with constant keys, and ``null`` / ``true`` /
``false``; anything else (a negative number is an operation, a tuple, a name) makes vLLM serve
the whole output as content. Positional arguments are dropped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from ._reading import Reading, dumps, no_calls

__all__ = ["PYTHONIC_READERS", "looks_like_calls"]

_NAME = re.compile(r"[a-zA-Z]\w*\(")
_KEYWORD = re.compile(r"[a-zA-Z]\w*=")
_CLOSE = re.compile(r"\)\s*\]")
_SPACE = re.compile(r"\s*")
_LITERALS = {"null": None, "true": True, "false": False}


class _NotACall(Exception):
    pass


def looks_like_calls(text: str) -> bool:
    """Whether vLLM's pythonic pattern matches at the start of ``text``.

    vLLM matches ``\\[(NAME\\((KW=.*,\\s*)*(KW=.*\\s)?\\),\\s*)*(NAME\\((KW=.*,\\s*)*(KW=.*\\s*)?\\)\\s*)+\\]``
    (DOTALL) under a timeout; this decides the same in one pass: a call whose arguments begin
    with ``KW=`` can stretch to any later ``)`` + ``]``, and calls without arguments chain by
    ``,`` (before any chained by whitespace alone) or end at ``]``.
    """
    if not text.startswith("["):
        return False
    pos, commas = 1, True
    while True:
        name = _NAME.match(text, pos)
        if name is None:
            return False
        pos = name.end()
        keyword = _KEYWORD.match(text, pos)
        if keyword is not None:
            return _CLOSE.search(text, keyword.end()) is not None
        if not text.startswith(")", pos):
            return False
        after = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        if text.startswith("]", after):
            return True
        if commas and text.startswith(",", pos + 1):
            pos = _SPACE.match(text, pos + 2).end()  # type: ignore[union-attr]
        elif after > pos + 1 or _NAME.match(text, after):
            pos, commas = after, False
        else:
            return False


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        if not all(isinstance(k, ast.Constant) for k in node.keys):
            raise _NotACall("dict keys must be literals")
        return {k.value: _value(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[union-attr]
    if isinstance(node, ast.List):
        return [_value(v) for v in node.elts]
    if isinstance(node, ast.Name) and node.id in _LITERALS:
        return _LITERALS[node.id]
    raise _NotACall(f"a {type(node).__name__} is not a literal")


def _calls(source: str) -> list[tuple[Any, Any]]:
    """The calls of the list that is the first statement of ``source`` (raises otherwise)."""
    module = ast.parse(source)
    listed = getattr(module.body[0], "value", None)
    if not isinstance(listed, ast.List) or not all(isinstance(e, ast.Call) for e in listed.elts):
        raise _NotACall("the output must be a list of function calls")
    calls = []
    for call in listed.elts:
        assert isinstance(call, ast.Call)
        if not isinstance(call.func, ast.Name):
            raise _NotACall("a call's name must be a plain name")
        arguments = {kw.arg: _value(kw.value) for kw in call.keywords}
        calls.append((call.func.id, dumps(arguments)))
    return calls


def _read_list(source: str, original: str, content: str | None) -> Reading:
    try:
        return Reading(_calls(source), content)
    except Exception as exc:  # vLLM catches every error of its reading alike
        return no_calls(original, f"the call list does not read ({type(exc).__name__}: {exc})")


def _pythonic(text: str, schemas: Any) -> Reading:
    """The whole output must be the list (text after it fails to parse); no content."""
    if not looks_like_calls(text):
        return no_calls(text)
    return _read_list(text, text, None)


def _llama4_pythonic(text: str, schemas: Any) -> Reading:
    """As ``pythonic``, after a leading ``<|python_start|>`` (and every ``<|python_end|>``)."""
    source = text
    if source.startswith("<|python_start|>"):
        source = source[len("<|python_start|>") :].replace("<|python_end|>", "")
    if not looks_like_calls(source):
        return no_calls(source)
    return _read_list(source, source, None)


_OLMO_BLOCK = re.compile(r"<function_calls>(.*?)</function_calls>", re.S)


def _olmo3(text: str, schemas: Any) -> Reading:
    """One call per line (inside ``<function_calls>`` when the tags are there): the lines are
    joined into a list, which must read whole; no content."""
    source = text
    block = _OLMO_BLOCK.search(source)
    if block:
        source = block.group(1).strip()
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    source = "[" + ", ".join(lines) + "]"
    if not looks_like_calls(source):
        return no_calls(text)
    return _read_list(source, text, None)


_LFM_START, _LFM_END = "<|tool_call_start|>", "<|tool_call_end|>"
_LFM_LIST = re.compile(r"\[.*\]$", re.S)


def _lfm2(text: str, schemas: Any) -> Reading:
    """The list between ``<|tool_call_start|>`` and the first ``<|tool_call_end|>`` (or the
    end); content is the text before, stripped, and the text after (through the last stray
    ``<|tool_call_end|>`` dropped: LFM2 echoes its call), stripped, joined by a newline."""
    start = text.find(_LFM_START)
    if start == -1:
        return no_calls(text)
    before = text[:start].strip()
    end = text.find(_LFM_END, start)
    if end == -1:
        body, content = text[start + len(_LFM_START) :], before or None
    else:
        body = text[start + len(_LFM_START) : end]
        after = text[end + len(_LFM_END) :]
        echo = after.rfind(_LFM_END)
        if echo != -1:
            after = after[echo + len(_LFM_END) :]
        content = "\n".join(p for p in (before, after.strip()) if p) or None
    body = body.strip()
    if not _LFM_LIST.match(body):
        return no_calls(text, "the tool-call block is not a list")
    return _read_list(body, text, content)


PYTHONIC_READERS: dict[str, Callable[[str, Any], Reading]] = {
    "pythonic": _pythonic,
    "llama4_pythonic": _llama4_pythonic,
    "olmo3": _olmo3,
    "lfm2": _lfm2,
}
