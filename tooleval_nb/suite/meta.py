"""Is a tool's parameters schema valid JSON Schema? Checked against its draft's meta-schema.

One validator, fastjsonschema: it compiles a meta-schema to a Python function once per draft
(tens of milliseconds) and then checks a schema in tens of microseconds, with nothing else
loaded and nothing of the process changed. The meta-schemas are the JSON files that
jsonschema-specifications ships (read from its folder, without importing it: its import builds
a registry of every draft, about a fifth of a second); no network is ever used.

Drafts 4, 6 and 7 are fastjsonschema's own. For 2019-09 and 2020-12, whose meta-schemas recurse
through ``$recursiveRef`` / ``$dynamicRef`` (which fastjsonschema does not follow), each of those
references is read as a plain ``$ref`` to the draft's meta-schema: the same recursion, for a
meta-schema that is one dialect. As with jsonschema's own meta-check, ``format`` is not checked
(a ``pattern`` need not be a Python regex, a ``$ref`` need not be a strict URI reference).
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastjsonschema

__all__ = ["meta_problem", "draft_of", "DRAFTS", "DEFAULT_DRAFT"]

#: ``$schema`` URI (without ``http(s)://`` and a trailing ``#``) -> draft
DRAFTS: dict[str, str] = {
    "json-schema.org/draft-04/schema": "draft4",
    "json-schema.org/draft-06/schema": "draft6",
    "json-schema.org/draft-07/schema": "draft7",
    "json-schema.org/draft/2019-09/schema": "draft201909",
    "json-schema.org/draft/2020-12/schema": "draft202012",
}
#: the draft of a schema that declares none (or one we do not know)
DEFAULT_DRAFT = "draft7"
#: formats fastjsonschema knows, each accepted whatever its value (see the module docstring)
_FORMATS = (
    "date",
    "date-time",
    "duration",
    "email",
    "hostname",
    "idn-email",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "iri",
    "iri-reference",
    "json-pointer",
    "regex",
    "relative-json-pointer",
    "time",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
)


def _accept(_: Any) -> bool:
    return True


def draft_of(schema: dict[str, Any]) -> str:
    """The draft a schema declares with ``$schema``, else :data:`DEFAULT_DRAFT`."""
    declared = schema.get("$schema")
    if not isinstance(declared, str):
        return DEFAULT_DRAFT
    key = declared.split("://", 1)[-1].rstrip("#")
    return DRAFTS.get(key, DEFAULT_DRAFT)


def _schemas_folder() -> Path:
    spec = importlib.util.find_spec("jsonschema_specifications")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "jsonschema-specifications is not installed (the meta-schemas of JSON Schema); "
            "pip install jsonschema-specifications"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "schemas"


def _one_dialect(node: Any, root: str) -> Any:
    """``node`` with ``$recursiveRef`` / ``$dynamicRef`` read as ``$ref: root`` (and their
    anchors and ``$vocabulary`` dropped); a property *named* so is left alone."""
    if isinstance(node, list):
        return [_one_dialect(item, root) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("$recursiveRef", "$dynamicRef") and isinstance(value, str):
            out["$ref"] = root
        elif key in ("$recursiveAnchor", "$dynamicAnchor") and not isinstance(value, dict):
            continue
        elif (
            key == "$vocabulary"
            and isinstance(value, dict)
            and all(isinstance(v, bool) for v in value.values())
        ):
            continue
        else:
            out[key] = _one_dialect(value, root)
    return out


def _load(uri: str) -> dict[str, Any]:
    """A meta-schema document by its URI, from jsonschema-specifications' files (fastjsonschema's
    handler for every ``$ref`` of a meta-schema; anything else is refused, never fetched)."""
    tail = uri.split("://", 1)[-1].split("#", 1)[0]
    parts = tail.split("/")
    if tail in DRAFTS:
        draft = DRAFTS[tail]
        path = _schemas_folder() / draft / "metaschema.json"
    elif len(parts) == 5 and parts[:2] == ["json-schema.org", "draft"] and parts[3] == "meta":
        draft = f"draft{parts[2].replace('-', '')}"
        path = _schemas_folder() / draft / "vocabularies" / parts[4]
    else:
        raise ValueError(f"{uri}: not a JSON Schema meta-schema (remote $refs are never fetched)")
    document = json.loads(path.read_text(encoding="utf-8"))
    if draft in ("draft201909", "draft202012"):
        root = f"https://json-schema.org/draft/{parts[2]}/schema"
        document = _one_dialect(document, root)
    return document  # type: ignore[no-any-return]


class _Handlers(dict[str, Callable[[str], Any]]):
    """fastjsonschema's remote-``$ref`` handlers: every scheme goes to :func:`_load`, so no
    ``$ref`` of a meta-schema ever reaches the network."""

    def __contains__(self, scheme: object) -> bool:
        return True

    def __getitem__(self, scheme: str) -> Callable[[str], Any]:
        return _load


@functools.cache
def _checker(draft: str) -> Callable[[Any], Any]:
    """The compiled meta-check of ``draft`` (once per draft and process)."""
    uri = next(u for u, d in DRAFTS.items() if d == draft)
    return fastjsonschema.compile(
        _load(f"https://{uri}"),
        handlers=_Handlers(),
        formats=dict.fromkeys(_FORMATS, _accept),
        use_default=False,  # by default it writes the meta-schema's defaults into the schema
    )


def meta_problem(schema: dict[str, Any]) -> tuple[str, Any, str] | None:
    """None when ``schema`` is valid for its draft's meta-schema; else ``(where, value, why)``:
    the place (``properties/a/type``, ``(root)``), the value found there and what is wrong."""
    try:
        _checker(draft_of(schema))(schema)
    except fastjsonschema.JsonSchemaValueException as exc:
        path = [str(p) for p in (exc.path or [])[1:]]  # the first is the schema itself ("data")
        where = "/".join(path) or "(root)"
        return where, exc.value, _why(exc)
    return None


def _why(exc: Any) -> str:
    """What is wrong, worded as jsonschema words it where they differ."""
    definition = exc.definition if isinstance(exc.definition, dict) else {}
    if exc.rule == "type":
        kinds = definition.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        return f"{exc.value!r} is not of type {', '.join(repr(k) for k in kinds)}"
    name = exc.name or "data"
    text = str(exc.message)
    text = text[len(name) :].strip() if text.startswith(name) else text
    return f"{exc.value!r} {text}" if text else repr(exc.value)
