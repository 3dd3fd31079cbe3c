"""The gorilla schema dialect of BFCL, to and from JSON Schema (pure; no I/O).

BFCL writes parameter schemas with its own type names (``dict``, ``float``, ``tuple``, ``any``,
Java and JavaScript names such as ``HashMap`` or ``String``). :func:`to_openai_parameters` maps
them with BFCL's own table (:data:`GORILLA_TO_OPENAPI`; unknown or missing types become
``string``), recursively through ``properties``, ``items`` and ``additionalProperties``, and keeps
each node's original type under :data:`BFCL_TYPE_KEY` (null when the node had none) for BFCL's
exact type checks. :func:`to_gorilla_parameters` undoes it exactly.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BFCL_TYPE_KEY", "GORILLA_TO_OPENAPI", "to_openai_parameters", "to_gorilla_parameters"]

#: where the original gorilla type of a converted schema node is kept
BFCL_TYPE_KEY = "x-bfcl-type"

#: BFCL's gorilla → JSON Schema type table (``bfcl_eval/constants/type_mappings.py``)
GORILLA_TO_OPENAPI: dict[str, str] = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "string": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "dict": "object",
    "object": "object",
    "tuple": "array",
    "any": "string",
    "byte": "integer",
    "short": "integer",
    "long": "integer",
    "double": "number",
    "char": "string",
    "ArrayList": "array",
    "Array": "array",
    "HashMap": "object",
    "Hashtable": "object",
    "Queue": "array",
    "Stack": "array",
    "Any": "string",
    "String": "string",
    "Bigint": "integer",
}
#: for schemas written by hand (no ``x-bfcl-type``): JSON Schema → gorilla
_OPENAPI_TO_GORILLA = {"object": "dict", "number": "float"}


def to_openai_parameters(params: dict[str, Any], language: str = "python") -> dict[str, Any]:
    """A gorilla-dialect parameters schema as JSON Schema (original types under x-bfcl-type).

    For ``language`` java or javascript the top-level parameters are presented as ``string``, as
    BFCL does for function-calling models: its checker expects those values as source text.
    """
    out = _to_openai(params)
    out["type"] = "object"
    if language in ("java", "javascript") and isinstance(out.get("properties"), dict):
        out["properties"] = {
            name: {**prop, "type": "string"} if isinstance(prop, dict) else prop
            for name, prop in out["properties"].items()
        }
    return out


def _to_openai(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            out["type"] = (
                GORILLA_TO_OPENAPI.get(value, "string") if isinstance(value, str) else "string"
            )
            out[BFCL_TYPE_KEY] = value
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _to_openai(sub) for name, sub in value.items()}
        elif key == "items" and isinstance(value, list):
            out[key] = [_to_openai(sub) for sub in value]
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _to_openai(value)
        else:
            out[key] = value
    if "type" not in node:
        out["type"] = "string"
        out[BFCL_TYPE_KEY] = None
    return out


def to_gorilla_parameters(params: dict[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`to_openai_parameters` (hand-written schemas: object→dict etc.)."""
    out = _to_gorilla(params)
    if BFCL_TYPE_KEY not in params:
        out["type"] = "dict"
    return out


def _to_gorilla(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == BFCL_TYPE_KEY:
            continue
        if key == "type":
            if BFCL_TYPE_KEY not in node:
                out["type"] = (
                    _OPENAPI_TO_GORILLA.get(value, value) if isinstance(value, str) else value
                )
            elif node[BFCL_TYPE_KEY] is not None:
                out["type"] = node[BFCL_TYPE_KEY]
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _to_gorilla(sub) for name, sub in value.items()}
        elif key == "items" and isinstance(value, list):
            out[key] = [_to_gorilla(sub) for sub in value]
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _to_gorilla(value)
        else:
            out[key] = value
    return out
