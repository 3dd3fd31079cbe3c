"""Reading a weak model's draft (pure: no I/O).

Small models wrap JSON in prose or code fences, use single quotes or Python literals, leave
trailing commas, stop mid-object, or invent arguments. :func:`extract_json_object` (one scanner for the
package, :mod:`tooleval_nb.models.json_reply`) finds the first usable JSON object in such text; :func:`clean_arguments` keeps only the arguments that
fit the tool's schema and says what it dropped or fixed. Never ``eval``: ``ast.literal_eval`` is
the ceiling.

Parameter schemas may point into the parameters' ``$defs`` (or ``definitions``) with a local
``$ref``, as MCP servers built on pydantic do for enums and nested models: :func:`param_schema`
resolves them, and values are validated with the whole parameters schema as the root, so the
references resolve. A schema the validator cannot apply costs a note on that argument, never an
exception.
"""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import unquote

from ..models.json_reply import extract_json_object, loads_lenient
from ..suite import Tool

__all__ = [
    "extract_json_object",
    "salvage_fields",
    "clean_arguments",
    "fill_required",
    "param_schema",
    "enum_values",
]

_SCALAR = r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?|true|false|null)"""


def salvage_fields(text: str | None, keys: list[str]) -> dict[str, Any]:
    """``"key": scalar`` pairs found anywhere in ``text``, for JSON too broken to parse whole.

    Only string, number, boolean and null values are salvaged; the first occurrence wins.
    """
    if not text:
        return {}
    body = html.unescape(text)
    found: dict[str, Any] = {}
    for key in keys:
        match = re.search(r"[\"']" + re.escape(key) + r"[\"']\s*:\s*" + _SCALAR, body)
        if match:
            value = loads_lenient(match.group(1))
            if value is not None or match.group(1) == "null":
                found[key] = value
    return found


def clean_arguments(tool: Tool, arguments: Any) -> tuple[dict[str, Any], list[str]]:
    """Keep the arguments that fit ``tool``'s schema; return them with notes on what changed.

    Unknown parameters are dropped, strings are converted to numbers or booleans when the schema
    asks for them, enum values are matched case-insensitively, and values that still do not
    validate against their parameter schema are dropped. A value whose schema cannot be applied
    (e.g. a ``$ref`` to nowhere) is kept, with a note asking for a check.
    """
    notes: list[str] = []
    if not isinstance(arguments, dict):
        if arguments not in (None, "", []):
            notes.append(f"the arguments were a {type(arguments).__name__}, not an object")
        return {}, notes
    props = tool.properties
    kept: dict[str, Any] = {}
    root: Any = None
    for key, value in arguments.items():
        if key not in props:
            notes.append(f"dropped {key!r}: not a parameter of {tool.name}")
            continue
        value = _coerce(value, param_schema(tool, key))
        if root is None:
            root = _root_validator(tool.function.parameters)
        problem = _check(root, props[key] if isinstance(props[key], dict) else {}, value)
        if problem is not None:
            dropped, text = problem
            notes.append(f"{'dropped' if dropped else 'kept'} {key}={value!r}: {text}")
            if dropped:
                continue
        kept[key] = value
    return kept, notes


def _root_validator(parameters: dict[str, Any]) -> Any:
    """A validator whose root is the whole parameters schema (so local ``$ref``s resolve), or
    the exception that prevented building one.

    Its registry is empty: a remote ``$ref`` is never fetched, it fails to resolve instead.
    """
    import jsonschema  # the argument values' check (loaded only while drafting cases)
    from referencing import Registry

    try:  # the draft the tool was validated with (its $schema, else Draft 7)
        cls = jsonschema.validators.validator_for(parameters, default=jsonschema.Draft7Validator)
        return cls(parameters, registry=Registry())
    except Exception as exc:  # noqa: BLE001 - reported per argument by _check
        return exc


def _check(root: Any, schema: dict[str, Any], value: Any) -> tuple[bool, str] | None:
    """None when ``value`` fits ``schema``; else ``(drop it, why)``. The schema itself was
    checked with its tool (a suite's tools are valid JSON Schema)."""
    from jsonschema.exceptions import best_match

    if isinstance(root, Exception):
        return False, f"could not check it against its schema ({_brief(root)}); check it"
    try:
        error = best_match(root.evolve(schema=schema).iter_errors(value))
    except Exception as exc:  # noqa: BLE001 - an unresolvable $ref, a recursive schema, ...
        return False, f"could not check it against its schema ({_brief(exc)}); check it"
    return None if error is None else (True, error.message)


def _brief(exc: BaseException) -> str:
    ref = getattr(exc, "ref", None)  # referencing's Unresolvable, as jsonschema wraps it
    if isinstance(ref, str):  # a pointer inside the schema comes without its "#"
        return f"its $ref {'#' + ref if ref.startswith('/') else ref!r} cannot be resolved"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def param_schema(tool: Tool, key: str) -> dict[str, Any]:
    """The schema of ``tool``'s parameter ``key`` with local ``$ref``s resolved.

    A ``$ref`` such as ``#/$defs/Unit`` is replaced by what it points to (keys next to the
    ``$ref``, such as ``default`` or ``description``, win), and so are the ``$ref``s of the
    branches of ``anyOf``, ``oneOf`` and ``allOf``. References that cannot be resolved (remote,
    missing or circular) stay as they are. ``{}`` for an unknown parameter. Never raises.
    """
    schema = tool.properties.get(key)
    if not isinstance(schema, dict):
        return {}
    root = tool.function.parameters
    resolved = _resolve(schema, root)
    for word in ("anyOf", "oneOf", "allOf"):
        branches = resolved.get(word)
        if isinstance(branches, list):
            resolved[word] = [_resolve(b, root) if isinstance(b, dict) else b for b in branches]
    return resolved


def _resolve(schema: dict[str, Any], root: Any, depth: int = 0) -> dict[str, Any]:
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#") or depth > 16:
        return dict(schema)
    target: Any = root
    for part in (p for p in ref[1:].split("/") if p):
        part = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return dict(schema)
    if not isinstance(target, dict):
        return dict(schema)
    siblings = {k: v for k, v in schema.items() if k != "$ref"}
    return {**_resolve(target, root, depth + 1), **siblings}


def _coerce(value: Any, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    enum = enum_values(schema)
    if isinstance(enum, list) and isinstance(value, str) and value not in enum:
        for option in enum:
            if isinstance(option, str) and option.lower() == value.strip().lower():
                return option
    if isinstance(value, str):
        text = value.strip()
        try:
            if kind == "integer" and re.fullmatch(r"[-+]?\d+", text):
                return int(text)
            if kind == "number" and re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text):
                return float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            return value
        if kind == "boolean" and text.lower() in ("true", "false"):
            return text.lower() == "true"
    return value


def enum_values(schema: dict[str, Any]) -> list[Any] | None:
    """The ``enum`` of a (resolved) parameter schema, else of its first ``anyOf`` / ``oneOf``
    branch that has one (``Unit | None``), else None."""
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    for word in ("anyOf", "oneOf"):
        branches = schema.get(word)
        for branch in branches if isinstance(branches, list) else []:
            if isinstance(branch, dict) and isinstance(branch.get("enum"), list):
                return list(branch["enum"])
    return None


def fill_required(tool: Tool, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Fill missing required parameters from their ``default`` or first ``enum`` value.

    Returns the arguments and one note per parameter that is still missing.
    """
    out = dict(arguments)
    notes = []
    for key in tool.required:
        if key in out:
            continue
        schema = param_schema(tool, key)
        enum = enum_values(schema)
        if "default" in schema:
            out[key] = schema["default"]
        elif enum:
            out[key] = enum[0]
        else:
            notes.append(f"required argument {key!r} is missing: fill it in")
    return out, notes
