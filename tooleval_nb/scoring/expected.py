"""The expected calls of a results row, read from its ``expected`` column (pure): the one reader
of the JSON the runner stores for a case's expectations (``runner.record.expected_json``).

The stored object holds, each only when set: ``expected_tool`` (a name, or a list of acceptable
names), ``expected_params``, ``expected_calls`` (``[{"name", "arguments": {param: value or
[acceptable values]}}]``), ``expected`` (an agent case's expectation block) and ``multi_turn``.
:func:`expected_calls_of` reads any of them into one shape, so the judge, the prompt tuner, the
charts and the widgets agree on what a case expected::

    {"name": first acceptable name, "names": [every acceptable name],
     "arguments": {param: [acceptable values]}}

An expected tool given as a list of names is one call with alternatives (any of them passes),
never several calls and never only its first name.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["expected_calls_of", "json_value"]


def json_value(text: Any) -> Any:
    """A JSON column's value: dicts and lists as they are, JSON text parsed, anything else None
    (NaN and empty text included)."""
    if isinstance(text, (dict, list)):
        return text
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _accepted(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _call(names: list[str], arguments: dict[str, list[Any]]) -> dict[str, Any]:
    return {"name": names[0] if names else None, "names": names, "arguments": arguments}


def expected_calls_of(expected: Any) -> list[dict[str, Any]]:
    """The expected calls in an ``expected`` cell (JSON text or its dict); ``[]`` when the case
    expects no call or the cell is not an expectation. See the module docstring for the shape."""
    data = json_value(expected)
    if not isinstance(data, dict):
        return []
    if data.get("expected_calls"):
        return [
            _call(
                [str(c.get("name"))],
                {k: _accepted(v) for k, v in (c.get("arguments") or {}).items()},
            )
            for c in data["expected_calls"]
            if isinstance(c, dict)
        ]
    if "expected_tool" in data:
        tool = data["expected_tool"]
        if tool is None or tool == []:
            return []
        names = [str(n) for n in (tool if isinstance(tool, list) else [tool])]
        params = data.get("expected_params") or {}
        return [_call(names, {k: [v] for k, v in params.items()})]
    block = data.get("expected")
    if isinstance(block, dict):  # an agent case: the tools it must call, in order when given
        order = block.get("tool_call_order") or block.get("tools_called") or []
        return [_call([str(n)], {}) for n in order]
    return []
