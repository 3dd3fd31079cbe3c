"""Turning decoded JSON (or Python literal) values into a tool call's name and arguments.

Shared by the formats: the arguments always come out as ``json.dumps(value,
ensure_ascii=False)`` of a JSON object, so types are preserved (``true`` stays a boolean,
``null`` stays null) and the same call written in two formats gives the same string.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Sequence
from typing import Any

__all__ = [
    "CallResult",
    "NOT_A_CALL",
    "load_json",
    "decode_prefix",
    "load_literal",
    "dump_arguments",
    "call_from_object",
    "read_calls",
    "jsonable",
    "read_json_values",
    "name_problem",
]

_DECODER = json.JSONDecoder(strict=False)


class CallResult:
    """A name and arguments, or the reason why a call-like value is malformed."""

    __slots__ = ("name", "arguments", "problem")

    def __init__(self, name: str = "", arguments: str = "", problem: str | None = None) -> None:
        self.name = name
        self.arguments = arguments
        self.problem = problem

    @property
    def ok(self) -> bool:
        return self.problem is None


#: returned when a value does not look like a tool call at all (plain JSON in prose)
NOT_A_CALL: CallResult | None = None


def load_json(text: str) -> tuple[Any, str | None]:
    """Decode ``text`` as one JSON value (control characters allowed in strings).

    Returns ``(value, None)`` or ``(None, reason)``.
    """
    try:
        return _DECODER.decode(text), None
    except ValueError as exc:
        return None, f"invalid JSON ({exc})"
    except RecursionError:
        return None, "invalid JSON (nested too deeply)"


def decode_prefix(text: str, start: int = 0) -> tuple[Any, int, str | None]:
    """Decode the JSON value that starts at ``text[start]``; return ``(value, end, problem)``."""
    try:
        value, end = _DECODER.raw_decode(text, start)
        return value, end, None
    except ValueError as exc:
        return None, start, f"invalid JSON ({exc})"
    except RecursionError:
        return None, start, "invalid JSON (nested too deeply)"


def load_literal(text: str) -> tuple[Any, str | None]:
    """Decode ``text`` as a Python literal with ``ast.literal_eval`` (never ``eval``)."""
    try:
        return ast.literal_eval(text.strip()), None
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        return None, f"not a Python literal ({type(exc).__name__})"


def jsonable(value: Any) -> tuple[Any, str | None]:
    """Check (and convert tuples to lists in) a decoded value so that it is plain JSON."""
    if value is None or isinstance(value, (bool, int, str)):
        return value, None
    if isinstance(value, float):
        if math.isfinite(value):
            return value, None
        return None, f"{value!r} is not a JSON number"
    if isinstance(value, (list, tuple)):
        out = []
        for item in value:
            item, problem = jsonable(item)
            if problem:
                return None, problem
            out.append(item)
        return out, None
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            if not isinstance(key, str):
                return None, f"object key {key!r} is not a string"
            item, problem = jsonable(item)
            if problem:
                return None, problem
            result[key] = item
        return result, None
    return None, f"a {type(value).__name__} value is not JSON"


def dump_arguments(value: Any) -> str:
    """The arguments string: standard ``json.dumps`` separators, unicode kept as is."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _arguments(value: Any, present: bool) -> tuple[str | None, str | None]:
    if not present or value is None:
        return "{}", None
    if isinstance(value, str):
        if not value.strip():
            return "{}", None
        decoded, problem = load_json(value)
        if problem or not isinstance(decoded, dict):
            return None, "its arguments are a string that is not a JSON object"
        value = decoded
    if not isinstance(value, dict):
        return None, f"its arguments are a {type(value).__name__}, not an object"
    value, problem = jsonable(value)
    if problem:
        return None, f"its arguments hold {problem}"
    try:
        return dump_arguments(value), None
    except (ValueError, RecursionError) as exc:
        return None, f"its arguments cannot be written as JSON ({exc})"


def call_from_object(
    obj: Any,
    *,
    name_keys: Sequence[str] = ("name",),
    arg_keys: Sequence[str] = ("arguments", "parameters"),
    require_args: bool = False,
    known: dict[str, list[str]] | None = None,
) -> CallResult | None:
    """Read a ``{"name": ..., "arguments": {...}}``-like object.

    Returns None when ``obj`` does not look like a call at all (no name key, or, with
    ``require_args``, no arguments key and a name that is not a known tool); a
    :class:`CallResult` with ``problem`` set when it looks like a call but is malformed.
    """
    if not isinstance(obj, dict):
        return NOT_A_CALL
    name_key = next((k for k in name_keys if k in obj), None)
    if name_key is None:
        return NOT_A_CALL
    arg_key = next((k for k in arg_keys if k in obj), None)
    name = obj[name_key]
    if (
        require_args
        and arg_key is None
        and not (known is not None and isinstance(name, str) and name.strip() in known)
    ):
        return NOT_A_CALL
    if not isinstance(name, str) or not name.strip():
        return CallResult(problem=f"its {name_key!r} is {name!r}, not a function name")
    arguments, problem = _arguments(obj.get(arg_key) if arg_key else None, arg_key is not None)
    if problem or arguments is None:
        return CallResult(problem=problem or "its arguments are unusable")
    return CallResult(name.strip(), arguments)


def read_calls(
    value: Any, *, allow_list: bool = True, **options: Any
) -> tuple[list[CallResult], str | None] | None:
    """Read one call object, or a list of them (``allow_list``).

    Returns None when the value does not look like a call at all, ``([], problem)`` when it looks
    like one but is malformed, ``(calls, None)`` otherwise.
    """
    is_list = isinstance(value, list)
    if is_list and not allow_list:
        return None
    items = value if is_list else [value]
    if not items:
        return None
    results = [call_from_object(item, **options) for item in items]
    if all(r is None for r in results):
        return None
    calls: list[CallResult] = []
    for k, r in enumerate(results):
        where = f"item {k} of the list" if is_list else "the object"
        if r is None:
            return [], f"{where} is not a tool call"
        if r.problem:
            return [], f"{where} names a call but {r.problem}"
        calls.append(r)
    return calls, None


_SEPARATORS = " \t\r\n;,"


def read_json_values(text: str, *, many: bool = True) -> tuple[list[Any], str | None]:
    """Decode the JSON values of a region body: one value, or (``many``) several separated by
    whitespace, ``;`` or ``,`` (MiniMax writes one call object per line).

    Returns ``(values, None)`` or ``([], reason)``; braces inside strings and nested objects are
    the JSON decoder's business, never a regex's.
    """
    end, n = 0, len(text)
    values: list[Any] = []
    while True:
        while end < n and text[end] in _SEPARATORS:
            end += 1
        if end >= n:
            break
        if values and not many:
            return [], f"text follows the JSON value ({text[end : end + 30]!r})"
        value, after, problem = decode_prefix(text, end)
        if problem:
            return [], problem
        values.append(value)
        end = after
    if not values:
        return [], "it is empty"
    return values, None


_NOT_IN_NAMES = frozenset("<>{}[]()\"'`,;=")
MAX_NAME = 256


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a function name written between tokens, or None."""
    if not name:
        return "the function name is empty"
    if len(name) > MAX_NAME:
        return f"the function name is longer than {MAX_NAME} characters"
    if any(c.isspace() or c in _NOT_IN_NAMES for c in name):
        return f"{name[:40]!r} is not a function name"
    return None
