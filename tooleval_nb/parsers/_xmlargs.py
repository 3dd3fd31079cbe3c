"""Reading XML-ish argument lists, whose values are raw text typed by the tool's schema.

Three layouts, each a body reader for :class:`~._tagged.Region`:

* :func:`function_params` (Qwen3-Coder, Seed-OSS, Step-3.5): ``<function=NAME>`` then
  ``<parameter=KEY>VALUE</parameter>`` ... then ``</function>``;
* :func:`arg_pairs` (GLM-4.5 / 4.6 / 4.7): ``NAME`` then ``<arg_key>KEY</arg_key>``
  ``<arg_value>VALUE</arg_value>`` pairs;
* :func:`invoke_params` (Step-3 ``steptml:``, MiniMax-M2): ``<invoke name="NAME">`` then
  ``<parameter name="KEY">VALUE</parameter>`` ... then ``</invoke>``.

Values are written raw, not as JSON: ``<parameter=city>Tokyo</parameter>``. One newline right
after the opening tag and one right before the closing tag are layout, not value.
:func:`typed_value` gives a value its type: with the tool's schema, as the schema says (vLLM's
rule: a ``string`` parameter stays text, ``integer`` / ``number`` / ``boolean`` / ``object`` /
``array`` are decoded, falling back to the text when they do not decode); without a schema (no
tools given, or a parameter the schema does not list), a value that reads as a JSON number,
``true`` / ``false`` / ``null``, array or object gets that type and anything else stays text.
vLLM keeps every unknown value as text; we decode them so that a call parsed without tools
keeps its types, and say so here. Values are never unescaped: ``&lt;`` stays as written.

All readers use ``str.find`` only (no backtracking regex), so a body costs linear time.
"""

from __future__ import annotations

from typing import Any

from ._calls import CallResult, dump_arguments, jsonable, load_json, load_literal, name_problem
from ._tagged import BodyReader, Found
from .protocol import ToolSchemas

__all__ = ["typed_value", "function_params", "arg_pairs", "invoke_params"]

_NUMBER_TYPES = ("integer", "number")


def _layout(value: str) -> str:
    if value.startswith("\n"):
        value = value[1:]
    if value.endswith("\n"):
        value = value[:-1]
    return value


def _types(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return []
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return [t for sub in schema[key] for t in _types(sub)]
    return []


def typed_value(raw: str, schema: Any) -> Any:
    """The value of a raw-text parameter, typed by its schema (None: no schema)."""
    types = _types(schema)
    text = raw.strip()
    if types == ["string"] or (types and "string" in types and not text):
        return raw
    decoded, problem = load_json(text) if text else (None, "empty")
    if problem is None:
        if not types and isinstance(decoded, str):
            return raw  # a quoted string without a schema: keep what was written
        if not types or "string" not in types or not isinstance(decoded, str):
            value, bad = jsonable(decoded)
            if bad is None:
                return value
    if types and ("object" in types or "array" in types):
        literal, bad_literal = load_literal(text)  # Python-style {'a': True}
        if bad_literal is None:
            value, bad = jsonable(literal)
            if bad is None:
                return value
    if "boolean" in types and text.lower() in ("true", "false"):
        return text.lower() == "true"
    return raw


def _params(schemas: ToolSchemas | None, name: str) -> dict[str, Any] | None:
    if schemas is None:
        return None
    return schemas.get(name)


def _call(name: str, args: dict[str, Any]) -> CallResult:
    return CallResult(name, dump_arguments(args))


def _pairs(
    text: str, open_tag: str, name_end: str, close_tag: str
) -> tuple[list[tuple[str, str]], str | None]:
    """``OPEN KEY NAME_END VALUE CLOSE`` repeated, only whitespace between; every value must be
    closed (a value cut off by the end of the output is not trusted)."""
    out: list[tuple[str, str]] = []
    pos, n = 0, len(text)
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            return out, None
        if not text.startswith(open_tag, pos):
            return [], f"unexpected text {text[pos : pos + 30]!r} where {open_tag} was expected"
        key_end = text.find(name_end, pos + len(open_tag))
        if key_end < 0:
            return [], f"{open_tag} is not closed by {name_end!r}"
        key = text[pos + len(open_tag) : key_end].strip().strip('"')
        if not key:
            return [], f"a {open_tag} has an empty name"
        start = key_end + len(name_end)
        stop = text.find(close_tag, start)
        if stop < 0:
            return [], f"the value of {key!r} is not closed by {close_tag}"
        out.append((key, text[start:stop]))
        pos = stop + len(close_tag)


def _typed(name: str, pairs: list[tuple[str, str]], schemas: ToolSchemas | None) -> CallResult:
    params = _params(schemas, name)
    args: dict[str, Any] = {}
    for key, raw in pairs:
        args[key] = typed_value(_layout(raw), None if params is None else params.get(key))
    return _call(name, args)


def _element_calls(
    body: str,
    schemas: ToolSchemas | None,
    open_tag: str,
    name_end: str,
    close_tag: str,
    param: tuple[str, str, str],
) -> Found:
    """Calls written as elements: ``OPEN NAME NAME_END params CLOSE`` repeated; a missing last
    ``CLOSE`` ends the call at the end of the body (generation stopped after its last value)."""
    calls: list[CallResult] = []
    pos, n = 0, len(body)
    while True:
        while pos < n and body[pos].isspace():
            pos += 1
        if pos >= n:
            break
        if not body.startswith(open_tag, pos):
            if not calls:
                return [], f"it does not start with {open_tag}"
            return [], f"unexpected text {body[pos : pos + 30]!r} after a call"
        name_stop = body.find(name_end, pos + len(open_tag))
        if name_stop < 0:
            return [], f"{open_tag} is not closed by {name_end!r}"
        name = body[pos + len(open_tag) : name_stop].strip().strip('"')
        bad_name = name_problem(name)
        if bad_name:
            return [], bad_name
        start = name_stop + len(name_end)
        stop = body.find(close_tag, start)
        pairs, problem = _pairs(body[start:] if stop < 0 else body[start:stop], *param)
        if problem:
            return [], f"the call of {name!r} is malformed: {problem}"
        calls.append(_typed(name, pairs, schemas))
        pos = n if stop < 0 else stop + len(close_tag)
    if not calls:
        return [], "it is empty"
    return calls, None


def function_params() -> BodyReader:
    """``<function=NAME><parameter=KEY>VALUE</parameter>...</function>``, one or more."""

    def read(body: str, schemas: ToolSchemas | None) -> Found:
        return _element_calls(
            body, schemas, "<function=", ">", "</function>", ("<parameter=", ">", "</parameter>")
        )

    return read


def invoke_params(prefix: str = "") -> BodyReader:
    """``<PREFIXinvoke name="NAME"><PREFIXparameter name="KEY">VALUE</PREFIXparameter>...
    </PREFIXinvoke>``, one or more."""

    def read(body: str, schemas: ToolSchemas | None) -> Found:
        return _element_calls(
            body,
            schemas,
            f"<{prefix}invoke name=",
            ">",
            f"</{prefix}invoke>",
            (f"<{prefix}parameter name=", ">", f"</{prefix}parameter>"),
        )

    return read


def arg_pairs() -> BodyReader:
    """``NAME`` then ``<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>`` pairs (GLM)."""

    def read(body: str, schemas: ToolSchemas | None) -> Found:
        stop = body.find("<arg_key>")
        name = (body if stop < 0 else body[:stop]).strip()
        bad_name = name_problem(name)
        if bad_name:
            return [], bad_name
        rest = "" if stop < 0 else body[stop:]
        pairs: list[tuple[str, str]] = []
        pos, n = 0, len(rest)
        while True:
            while pos < n and rest[pos].isspace():
                pos += 1
            if pos >= n:
                break
            if not rest.startswith("<arg_key>", pos):
                return [], f"unexpected text {rest[pos : pos + 30]!r} in the call of {name!r}"
            key_stop = rest.find("</arg_key>", pos)
            if key_stop < 0:
                return [], "an <arg_key> is not closed"
            key = rest[pos + len("<arg_key>") : key_stop].strip()
            pos = key_stop + len("</arg_key>")
            while pos < n and rest[pos].isspace():
                pos += 1
            if not rest.startswith("<arg_value>", pos):
                return [], f"the argument {key!r} has no <arg_value>"
            value_stop = rest.find("</arg_value>", pos)
            if value_stop < 0:
                return [], f"the value of {key!r} is not closed by </arg_value>"
            pairs.append((key, rest[pos + len("<arg_value>") : value_stop]))
            pos = value_stop + len("</arg_value>")
        return [_typed(name, pairs, schemas)], None

    return read
