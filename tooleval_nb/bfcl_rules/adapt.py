"""Adapters between our models and the shapes BFCL's checker reads.

* :func:`tools_to_functions`: :class:`~tooleval_nb.suite.Tool` objects (or OpenAI tool dicts) as
  gorilla function dicts. A schema node's gorilla type is its ``x-bfcl-type`` (written by
  :mod:`tooleval_nb.formats.bfcl`), else its JSON Schema type mapped (``number`` -> ``float``,
  ``object`` -> ``dict``, unknown -> ``any``).
* :func:`expected_to_ground_truth`: ``ExpectedCall`` objects as ``[{name: {param: [values]}}]``.
* :func:`calls_to_decoded`: our tool calls as the checker's decoded calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..toolcall import to_tool_calls
from .decode import DecodeError

__all__ = ["tools_to_functions", "expected_to_ground_truth", "calls_to_decoded"]

#: JSON Schema type -> gorilla type, for tools that carry no ``x-bfcl-type``
_JSON_TO_GORILLA = {
    "string": "string",
    "integer": "integer",
    "number": "float",
    "boolean": "boolean",
    "array": "array",
    "object": "dict",
    "null": "any",
}


def calls_to_decoded(calls: Any) -> list[dict[str, Any]]:
    """Our tool calls as BFCL's decoded form; arguments that are not a JSON object fail decoding."""
    out = []
    for call in to_tool_calls(calls):
        args = call.parsed_arguments()
        if args is None:
            raise DecodeError(f"arguments of {call.name!r} are not a JSON object")
        out.append({call.name: args})
    return out


def tools_to_functions(functions: Sequence[Any]) -> list[dict[str, Any]]:
    """Gorilla function dicts from ``Tool`` objects (``x-bfcl-type`` kept, else mapped)."""
    if not functions or (type(functions[0]) is dict and "parameters" in functions[0]):
        return functions  # type: ignore[return-value]  # already gorilla-shaped
    out = []
    for f in functions:
        fn = getattr(f, "function", None)
        if fn is not None:
            name, schema = fn.name, fn.parameters
        else:
            fn_dict = f.get("function", f)
            name, schema = fn_dict["name"], fn_dict.get("parameters") or {}
        props = schema.get("properties") or {}
        out.append(
            {
                "name": name,
                "parameters": {
                    "type": "dict",
                    "properties": {k: _gorilla(v) for k, v in props.items()},
                    "required": list(schema.get("required") or []),
                },
            }
        )
    return out


def _gorilla(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {"type": "any"}
    kind = schema.get("x-bfcl-type")
    if not kind:
        raw = schema.get("type", "string")
        if isinstance(raw, list):
            raw = next((t for t in raw if t != "null"), "null")
        kind = _JSON_TO_GORILLA.get(raw, "any")
    out: dict[str, Any] = {"type": kind}
    if isinstance(schema.get("items"), dict):
        out["items"] = _gorilla(schema["items"])
    return out


def expected_to_ground_truth(expected: Sequence[Any]) -> list[dict[str, Any]]:
    """``[{name: {param: [acceptable]}}]`` from ``ExpectedCall`` objects (dicts pass through)."""
    if not expected or type(expected[0]) is dict:
        return expected  # type: ignore[return-value]  # already BFCL-shaped
    out = []
    for e in expected:
        if isinstance(e, dict):
            out.append(e)
        else:
            out.append({e.name: dict(e.arguments)})
    return out
