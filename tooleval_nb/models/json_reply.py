"""The first JSON object in a model's reply (pure: no I/O): the one scanner of the package.

A reply wraps JSON in prose or code fences, and a weak model writes single quotes, Python
literals, trailing commas or stops mid-object. :func:`extract_json_object` finds the object; the
MCP case drafter (lenient) and the judge and prompt tuner (strict) read replies with it. The tool
call parsers (:mod:`tooleval_nb.parsers`) decode call regions with the JSON decoder itself.
"""

from __future__ import annotations

import ast
import html
import json
import re
from typing import Any

__all__ = ["extract_json_object", "loads_lenient"]

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_PY_WORDS = {"true": "True", "false": "False", "null": "None"}


def extract_json_object(
    text: str | None, want: str | None = None, *, lenient: bool = True
) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (preferring one that has the key ``want``), or None.

    Prose around the object, code fences and HTML-escaped quotes (``&#34;``) are always
    skipped. ``lenient`` (a weak model's draft) also reads trailing commas, single quotes and
    Python literals (``True``, ``None``), and an object cut off at the end (closing brackets are
    added); without it (a judge's verdict) an object must be complete, strict JSON.
    """
    if not text:
        return None
    body = _FENCE.sub("", html.unescape(text))
    found: list[dict[str, Any]] = []
    for start in (i for i, ch in enumerate(body) if ch == "{"):
        candidate = _balanced(body, start)
        if not lenient and body[start : start + len(candidate)] != candidate:
            continue  # cut off: closed by _balanced, not by the text
        value = loads_lenient(candidate) if lenient else _strict(candidate)
        if isinstance(value, dict):
            if want is None or want in value:
                return value
            found.append(value)
        if len(found) > 20:
            break
    return found[0] if found else None


def _balanced(text: str, start: int) -> str:
    """``text[start:]`` up to the brace closing the one at ``start`` (closed if cut off)."""
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack[-1] != ch:
                return text[start:i]
            stack.pop()
            if not stack:
                return text[start : i + 1]
    tail = text[start:].rstrip().rstrip(",")
    return tail + (quote or "") + "".join(reversed(stack))


def loads_lenient(candidate: str) -> Any:
    """``candidate`` as JSON, else without trailing commas, else as a Python literal (JSON's
    words mapped); None when none of them reads it."""
    for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
        try:
            return json.loads(attempt)
        except ValueError:
            pass
    python = _TRAILING_COMMA.sub(r"\1", candidate)
    python = re.sub(r"\b(true|false|null)\b", lambda m: _PY_WORDS[m.group(1)], python)
    try:
        return ast.literal_eval(python)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _strict(candidate: str) -> Any:
    try:
        return json.loads(candidate, strict=False)  # strict=False: raw newlines inside strings
    except ValueError:
        return None
