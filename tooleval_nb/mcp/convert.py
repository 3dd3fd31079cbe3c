"""MCP tools to suite tools (pure: no I/O).

An MCP tool ``{"name", "description", "inputSchema", ...}`` becomes an OpenAI function tool
(:class:`tooleval_nb.suite.Tool`) whose ``parameters`` are the input schema, validated like any
other tool's. A tool that cannot be used (no name, a duplicate name, a schema that is not valid
JSON Schema or does not describe an object) is skipped with a reason; the importer reports the
reasons together as one warning, or raises when nothing is usable.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from ..errors import MCPImportError
from ..suite import FunctionDef, Suite, Tool, schema_problem, strip_extensions

__all__ = [
    "MCPImportWarning",
    "ConvertedTools",
    "mcp_tool_to_tool",
    "convert_tools",
    "suite_from_tools",
]

#: problems listed one by one in a warning before the rest are counted
_SHOWN = 20


class MCPImportWarning(UserWarning):
    """Some MCP tools were skipped, or the tool list was cut; the suite holds the rest."""


class ConvertedTools(BaseModel):
    """The usable tools and, for the others, why they were skipped."""

    tools: list[Tool] = Field(default_factory=list)
    #: tool name (or ``#index``) -> why it was skipped
    skipped: dict[str, str] = Field(default_factory=dict)
    #: remarks about tools that were kept (e.g. no description)
    notes: list[str] = Field(default_factory=list)

    def problems(self) -> list[str]:
        """One line per skipped tool: ``"name: reason"``."""
        return [f"{name}: {reason}" for name, reason in self.skipped.items()]


def mcp_tool_to_tool(raw: Mapping[str, Any] | Any) -> Tool:
    """Convert one MCP tool (a wire dict or an ``mcp.types.Tool``) to a suite :class:`Tool`.

    MCP's ``x-*`` schema annotations (such as ``x-mcp-header``, which mirrors an argument into
    an HTTP header) concern the transport, not the model, and are left out.

    Raises:
        ValueError: the tool has no name or its input schema is unusable (the message says why).
    """
    if not isinstance(raw, Mapping):
        dump = getattr(raw, "model_dump", None)
        if dump is None:
            raise ValueError(f"not an MCP tool: {type(raw).__name__}")
        raw = dump(by_alias=True, mode="json", exclude_none=True)
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("the tool has no name")
    schema = raw.get("inputSchema", raw.get("input_schema"))
    if schema is None:
        schema = {"type": "object", "properties": {}}
    if not isinstance(schema, dict):
        raise ValueError(f"inputSchema must be a JSON Schema object, got {type(schema).__name__}")
    schema = strip_extensions(schema)  # a copy, without x-* annotations
    if "type" not in schema and isinstance(schema.get("properties"), dict):
        schema["type"] = "object"
    if schema.get("type") == "object" and "properties" not in schema:
        schema["properties"] = {}
    problem = schema_problem(schema)  # cached by schema text: big lists repeat schemas
    if problem:
        raise ValueError(problem)
    annotations = raw.get("annotations")
    annotations = annotations if isinstance(annotations, dict) else {}
    description = raw.get("description") or raw.get("title") or annotations.get("title") or ""
    # the schema is checked above: build without checking it a second time
    return Tool(
        function=FunctionDef.model_construct(
            name=name, description=str(description), parameters=schema
        )
    )


def convert_tools(
    raw_tools: Iterable[Mapping[str, Any] | Any], rejected: Mapping[str, str] | None = None
) -> ConvertedTools:
    """Convert every tool, skipping unusable ones with a reason.

    Args:
        raw_tools: MCP tools as listed (wire dicts or SDK objects).
        rejected: tools already dropped on the wire (name -> reason), reported as skipped too.
    """
    out = ConvertedTools(skipped=dict(rejected or {}))
    seen: dict[str, str] = {}
    for i, raw in enumerate(raw_tools):
        name = raw.get("name") if isinstance(raw, Mapping) else getattr(raw, "name", None)
        label = name if isinstance(name, str) and name else f"#{i}"
        try:
            tool = mcp_tool_to_tool(raw)
        except ValueError as exc:
            out.skipped[label] = str(exc)
            continue
        if tool.name in seen:
            out.skipped[f"{label} (#{i})"] = f"duplicate name: tool {tool.name!r} is listed twice"
            continue
        if tool.api_name in seen.values():
            other = next(n for n, a in seen.items() if a == tool.api_name)
            out.skipped[label] = (
                f"its provider-safe name {tool.api_name!r} is the same as that of tool {other!r}"
            )
            continue
        seen[tool.name] = tool.api_name
        if not tool.function.description:
            out.notes.append(
                f"{tool.name}: no description (models and draft cases will have "
                "to guess from the name)"
            )
        out.tools.append(tool)
    return out


def suite_from_tools(
    converted: ConvertedTools,
    name: str,
    *,
    description: str = "",
    source: str | None = None,
    strict: bool = False,
    listed: int | None = None,
    truncated_at: int | None = None,
    where: str = "the MCP server",
    stacklevel: int = 2,
) -> Suite:
    """Build a suite (no cases yet) from converted tools; warn or raise about the skipped ones.

    Args:
        converted: the result of :func:`convert_tools`.
        name: the suite's name.
        description: the suite's description.
        source: where the suite came from (used in messages).
        strict: raise :class:`MCPImportError` when any tool was skipped, instead of warning.
        listed: how many tools the server listed (for messages); default kept + skipped.
        truncated_at: the ``max_tools`` cap when the list was cut there.
        where: how messages name the server.
        stacklevel: passed to ``warnings.warn`` so the warning points at the user's call.

    Raises:
        MCPImportError: no tool is usable, or ``strict`` and some tool was skipped.
    """
    total = listed if listed is not None else len(converted.tools) + len(converted.skipped)
    problems = converted.problems()
    if not converted.tools:
        if not problems:
            raise MCPImportError(
                f"{where} lists no tools: there is nothing to import. Check "
                "that the server registers its tools before it starts."
            )
        raise MCPImportError(
            f"none of the {total} tool(s) listed by {where} is usable:" + _bullets(problems)
        )
    if strict and problems:
        raise MCPImportError(
            f"{len(problems)} of the {total} tool(s) listed by {where} cannot "
            "be used (strict=True):" + _bullets(problems)
        )
    parts = []
    if problems:
        parts.append(
            f"skipped {len(problems)} of {total} tool(s) from {where}; the suite "
            f"holds the other {len(converted.tools)}:" + _bullets(problems)
        )
    if truncated_at is not None:
        parts.append(
            f"{where} lists more than {truncated_at} tools; only the first "
            f"{truncated_at} were imported (raise max_tools= to import more)"
        )
    if parts:
        warnings.warn("\n".join(parts), MCPImportWarning, stacklevel=stacklevel)
    return Suite(name=name, description=description, tools=converted.tools, source=source)


def _bullets(lines: list[str]) -> str:
    shown = lines[:_SHOWN]
    more = f"\n  ... and {len(lines) - _SHOWN} more" if len(lines) > _SHOWN else ""
    return "\n  - " + "\n  - ".join(shown) + more
