"""The calls of a results row as plain dicts: what the case expected (``expected`` column) and what
the model called (``tool_calls`` column). The judge's facts and verdict prompts and the prompt
tuner's failure feedback read them.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["expected_calls_of", "actual_calls_of", "json_value"]


def json_value(text: Any) -> Any:
    """A JSON column's value: dicts and lists as they are, JSON text parsed, anything else None."""
    if isinstance(text, (dict, list)):
        return text
    if not isinstance(text, str) or not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def expected_calls_of(expected: Any) -> list[dict[str, Any]]:
    """``[{"name", "arguments": {param: [acceptable values]}}]`` from the ``expected`` column."""
    data = json_value(expected)
    if not isinstance(data, dict):
        return []
    if data.get("expected_calls"):
        return [{"name": c.get("name"), "arguments": {
            k: (v if isinstance(v, list) else [v]) for k, v in (c.get("arguments") or {}).items()}}
            for c in data["expected_calls"] if isinstance(c, dict)]
    tool = data.get("expected_tool")
    if tool is None:
        return []
    name = tool if isinstance(tool, str) else (tool[0] if tool else None)
    params = data.get("expected_params") or {}
    return [{"name": name, "arguments": {k: [v] for k, v in params.items()}}]


def actual_calls_of(tool_calls: Any) -> list[dict[str, Any]]:
    """``[{"name", "arguments": dict | None}]`` from the ``tool_calls`` column (None = bad JSON)."""
    data = json_value(tool_calls)
    out = []
    for call in data if isinstance(data, list) else []:
        fn = call.get("function", call) if isinstance(call, dict) else {}
        args = fn.get("arguments")
        if isinstance(args, str):
            parsed = json_value(args) if args.strip() else {}
            args = parsed if isinstance(parsed, dict) else None
        out.append({"name": fn.get("name"), "arguments": args if isinstance(args, dict) else None})
    return out
