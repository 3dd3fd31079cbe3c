"""The calls of a results row as plain dicts: what the case expected (``expected`` column) and what
the model called (``tool_calls`` column). The judge's facts and verdict prompts and the prompt
tuner's failure feedback read them. The expected calls are
:func:`tooleval_nb.scoring.expected.expected_calls_of`'s (the one reader of the stored
expectation; an expected call's ``names`` are its acceptable alternatives).
"""

from __future__ import annotations

from typing import Any

from ..scoring.expected import expected_calls_of, json_value

__all__ = ["expected_calls_of", "actual_calls_of", "json_value"]


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
