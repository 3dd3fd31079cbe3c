"""Tool calls as short readable text, for tooltips, tables and reports (pure).

A results frame stores calls as JSON text: ``tool_calls`` holds the calls made (OpenAI shape,
``{"id", "type", "function": {"name", "arguments"}}``) and ``expected`` the expected calls (each
``{"name", "arguments": {param: [acceptable values]}}``, or the seed's ``expected_tool`` /
``expected_params`` pair, read by :func:`tooleval_nb.scoring.expected.expected_calls_of`, whose
acceptable alternative names show as ``a | b``). :func:`parse_calls` reads any of these shapes into plain
``{"name": str, "arguments": dict | str}`` dicts and :func:`format_calls` writes them the way a
person reads a call: ``get_weather(city="Paris", units="celsius")``.
"""

from __future__ import annotations

import json
from typing import Any

from ..scoring.expected import expected_calls_of

__all__ = ["parse_calls", "format_call", "format_calls", "format_value"]

#: Marks an expected parameter that may be left out (BFCL's ``""`` among acceptable values).
OPTIONAL = ""


def _loads(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return json.loads(text)
        except ValueError:
            return text
    if isinstance(value, float) and value != value:  # NaN from pandas
        return None
    return value


def _one(obj: Any) -> dict[str, Any] | None:
    if hasattr(obj, "model_dump"):
        obj = obj.model_dump(mode="json")
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        fn = obj["function"]
        args = _loads(fn.get("arguments"))
        return {"name": str(fn.get("name") or ""), "arguments": {} if args is None else args}
    if "name" in obj:
        args = _loads(obj.get("arguments", obj.get("parameters", obj.get("args"))))
        return {"name": str(obj["name"]), "arguments": {} if args is None else args}
    if len(obj) == 1:
        ((name, args),) = obj.items()
        args = _loads(args)
        return {"name": str(name), "arguments": {} if args is None else args}
    return None


def parse_calls(value: Any) -> list[dict[str, Any]]:
    """Read calls from JSON text, a list, one call, or a seed expectation into plain dicts.

    Args:
        value: ``tool_calls`` / ``expected`` cell content: JSON text, a list of calls (dicts or
            ToolCall objects), one call, ``{"expected_tool", "expected_params"}``, or None.

    Returns:
        ``[{"name": ..., "arguments": dict-or-raw-text}, ...]``; unreadable items are kept with
        ``name`` ``"?"`` and their text as arguments, so nothing is silently dropped.
    """
    data = _loads(value)
    if data is None:
        return []
    if isinstance(data, dict):
        if (
            data.get("expected_calls")
            or "expected_tool" in data
            or isinstance(data.get("expected"), dict)
        ):  # a stored expectation: its one reader
            return [
                {
                    "name": " | ".join(c["names"]),
                    "arguments": {k: v[0] if len(v) == 1 else v for k, v in c["arguments"].items()},
                }
                for c in expected_calls_of(data)
            ]
        if "tool_calls" in data:
            return parse_calls(data["tool_calls"])
        if set(data) <= {"expected", "multi_turn", "expected_calls"}:
            return []
        data = [data]
    if not isinstance(data, list):
        return [{"name": "?", "arguments": str(data)}]
    out: list[dict[str, Any]] = []
    for item in data:
        call = _one(_loads(item))
        out.append(call if call is not None else {"name": "?", "arguments": str(item)})
    return out


def format_value(value: Any) -> str:
    """One argument value as text; a list of acceptable values as ``a | b`` (``""`` = optional)."""
    if isinstance(value, list) and value and all(not isinstance(v, (list, dict)) for v in value):
        shown = [json.dumps(v, ensure_ascii=False) for v in value if v != OPTIONAL]
        text = " | ".join(shown) if shown else '""'
        return f"{text} (optional)" if OPTIONAL in value and shown else text
    return json.dumps(value, ensure_ascii=False, default=str)


def format_call(call: dict[str, Any], max_len: int = 200) -> str:
    """``name(key=value, ...)``; raw (unparsed) arguments are shown as they came."""
    args = call.get("arguments")
    if isinstance(args, dict):
        inner = ", ".join(f"{k}={format_value(v)}" for k, v in args.items())
    else:
        inner = str(args)
    text = f"{call.get('name', '?')}({inner})"
    return text if len(text) <= max_len else text[: max_len - 1] + "…"


def format_calls(value: Any, none: str = "(no call)", max_len: int = 200) -> str:
    """Every call in ``value`` (see :func:`parse_calls`), joined by ``"; "``."""
    calls = parse_calls(value)
    if not calls:
        return none
    return "; ".join(format_call(c, max_len=max_len) for c in calls)
