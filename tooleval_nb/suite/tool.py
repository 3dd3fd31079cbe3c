"""Tools: OpenAI function-calling schemas, checked as JSON Schema when built."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .meta import meta_problem

__all__ = ["FunctionDef", "Tool", "schema_problem", "strip_extensions"]

_API_NAME = re.compile(r"[^a-zA-Z0-9_-]")
#: schema keywords whose values are data, not schemas
_VALUE_KEYWORDS = frozenset({"enum", "const", "default", "examples", "required"})


class FunctionDef(BaseModel):
    """The ``function`` part of an OpenAI tool."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    @field_validator("parameters")
    @classmethod
    def _check_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        problem = schema_problem(value)
        if problem:
            raise ValueError(problem)
        return value


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a usable JSON Schema for tool parameters, or None when it is.

    The schema is checked against the meta-schema of its declared ``$schema`` draft (4, 6, 7,
    2019-09 or 2020-12), else Draft 7 (the draft OpenAI function schemas and most MCP servers
    follow), by one validator, fastjsonschema (:mod:`.meta`). Verdicts are cached by the
    schema's JSON text: suites repeat tools a lot.
    """
    if not isinstance(schema, dict):
        return f"parameters must be a JSON Schema object, got {type(schema).__name__}"
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError) as exc:
        return f"parameters must be plain JSON data: {exc}"
    if key in _SCHEMA_VERDICTS:
        return _SCHEMA_VERDICTS[key]
    verdict = _schema_problem(schema)
    if len(_SCHEMA_VERDICTS) >= _SCHEMA_CACHE_SIZE:
        _SCHEMA_VERDICTS.clear()
    _SCHEMA_VERDICTS[key] = verdict
    return verdict


_SCHEMA_VERDICTS: dict[str, str | None] = {}
_SCHEMA_CACHE_SIZE = 20_000


def _schema_problem(schema: dict[str, Any]) -> str | None:
    problem = meta_problem(schema)
    if problem is not None:
        where, value, text = problem
        if where.endswith("/type") or where == "type":
            return (
                f"parameters are not valid JSON Schema at {where}: {value!r} is not "
                "a JSON Schema type; use string, number, integer, boolean, array, object "
                "or null"
            )
        return f"parameters are not valid JSON Schema at {where}: {text}"
    kind = schema.get("type", "object")
    if kind != "object" and not (isinstance(kind, list) and "object" in kind):
        return f"parameters must describe an object (type 'object'), got type {kind!r}"
    return None


class Tool(BaseModel):
    """An OpenAI function-calling tool: ``{"type": "function", "function": {...}}``."""

    model_config = ConfigDict(extra="allow")

    type: Literal["function"] = "function"
    function: FunctionDef

    @model_validator(mode="before")
    @classmethod
    def _accept_flat(cls, data: Any) -> Any:
        # Accept the flat form {"name", "description", "parameters"} as well.
        if isinstance(data, dict) and "function" not in data and "name" in data:
            return {"type": "function", "function": data}
        return data

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def api_name(self) -> str:
        """The name as sent to providers that allow only ``[a-zA-Z0-9_-]`` (dots become ``_``)."""
        return _API_NAME.sub("_", self.function.name)

    @property
    def properties(self) -> dict[str, Any]:
        props = self.function.parameters.get("properties")
        return props if isinstance(props, dict) else {}

    @property
    def required(self) -> list[str]:
        req = self.function.parameters.get("required")
        return list(req) if isinstance(req, list) else []

    def to_openai(self, api_names: bool = False, extensions: bool = False) -> dict[str, Any]:
        """The tool as an OpenAI ``tools`` entry, ready to send to a provider.

        Args:
            api_names: use :attr:`api_name` (``[a-zA-Z0-9_-]`` only) instead of the real name.
            extensions: keep ``x-*`` schema keys (such as ``x-bfcl-type``); providers do not need
                them, so they are dropped by default.
        """
        data = self.model_dump(mode="json", exclude_none=True)
        if api_names:
            data["function"]["name"] = self.api_name
        if not extensions:
            data["function"]["parameters"] = strip_extensions(data["function"]["parameters"])
        return data

    @classmethod
    def create(
        cls,
        name: str,
        description: str = "",
        parameters: dict[str, Any] | None = None,
        required: Sequence[str] | None = None,
    ) -> Tool:
        """Build a tool; ``parameters`` may be a full schema or just the ``properties`` mapping."""
        params = parameters or {}
        if params.get("type") != "object":
            params = {"type": "object", "properties": params}
            if required:
                params["required"] = list(required)
        return cls(function=FunctionDef(name=name, description=description, parameters=params))


def strip_extensions(schema: Any) -> Any:
    """A copy of ``schema`` without ``x-*`` keys (at any depth; property names are kept)."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if isinstance(key, str) and key.startswith("x-"):
                continue
            if key in _VALUE_KEYWORDS:  # data, not schema: keep as is
                out[key] = value
            elif key in ("properties", "patternProperties", "$defs", "definitions") and isinstance(
                value, dict
            ):
                out[key] = {name: strip_extensions(sub) for name, sub in value.items()}
            else:
                out[key] = strip_extensions(value)
        return out
    if isinstance(schema, list):
        return [strip_extensions(v) for v in schema]
    return schema
