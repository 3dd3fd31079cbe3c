"""The seed-001 JSON suite format (the "JSON import" of ``tool-eval-framework.md``).

A file holds one object::

    {"name": "...", "description": "...", "system_prompt": "...",
     "tools": [<OpenAI tools>], "test_cases": [<cases>]}

``cases`` is accepted for ``test_cases`` when loading; saving writes ``test_cases``. Cases hold any
:class:`~tooleval_nb.suite.EvalCase` field (``input`` is accepted for ``prompt``). Saving leaves
out fields at their defaults and a case's ``id`` when loading derives it anyway (its ``name``, or
``case_<index>``), so saved files stay as short as hand-written ones; loading what was saved gives
an equal suite.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import SuiteError
from ..suite import EvalCase, Suite, Tool
from .build import build_suite

__all__ = [
    "load",
    "loads",
    "save",
    "dumps",
    "to_dict",
    "case_to_dict",
    "tool_to_dict",
    "example_suite",
    "EXAMPLE",
]

#: The example import template of seed 001 (``GET /api/tool-eval/import/example``).
EXAMPLE: dict[str, Any] = {
    "name": "Weather API Suite",
    "description": "Tests weather tool calling",
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Get current weather for a city",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string", "description": "City name"},
                        "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    },
                    "required": ["city"],
                },
            },
        }
    ],
    "test_cases": [
        {
            "prompt": "What's the weather in Paris?",
            "expected_tool": "get_weather",
            "expected_params": {"city": "Paris"},
        },
        {
            "prompt": "Temperature in Tokyo in Fahrenheit",
            "expected_tool": "get_weather",
            "expected_params": {"city": "Tokyo", "units": "fahrenheit"},
        },
    ],
}


def read_text(path: str | os.PathLike[str]) -> str:
    """The text of a suite file, or a SuiteError that says what to check."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError(
            f"{p}: file not found; check the path (relative paths start at {Path.cwd()})",
            path=str(p),
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(
            f"{p}: cannot be read ({exc}); check that it is a UTF-8 text file", path=str(p)
        ) from None


def load(path: str | os.PathLike[str]) -> Suite:
    """Load a seed-001 JSON suite file."""
    return loads(read_text(path), source=str(path), default_name=Path(path).stem)


def loads(text: str, source: str = "<string>", default_name: str = "suite") -> Suite:
    """Load a seed-001 suite from JSON text; ``source`` names it in messages."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SuiteError(
            f"{source}: line {exc.lineno}, column {exc.colno}: invalid JSON: "
            f"{exc.msg}; fix the syntax (a file with an error loads nothing)",
            path=source,
        ) from None
    return build_suite(raw, source, default_name=default_name)


def tool_to_dict(tool: Tool) -> dict[str, Any]:
    """A tool as written in suite files (the OpenAI shape, ``x-*`` schema keys kept)."""
    return tool.to_openai(extensions=True)


def case_to_dict(case: EvalCase, index: int | None = None) -> dict[str, Any]:
    """A case as written in suite files: fields at their defaults are left out, and so is the
    ``id`` when loading gives it back anyway (it equals the name, or ``case_<index>``)."""
    data = case.model_dump(mode="json", exclude_defaults=True)
    derived = (
        case.name if case.name is not None else (f"case_{index}" if index is not None else None)
    )
    if data.get("id") is not None and data["id"] == derived:
        del data["id"]
    if case.tools is not None:
        data["tools"] = [tool_to_dict(t) for t in case.tools]
    return data


def to_dict(suite: Suite) -> dict[str, Any]:
    """The suite as a seed-001 mapping."""
    data: dict[str, Any] = {"name": suite.name, "description": suite.description}
    if suite.system_prompt is not None:
        data["system_prompt"] = suite.system_prompt
    data["tools"] = [tool_to_dict(t) for t in suite.tools]
    data["test_cases"] = [case_to_dict(c, i) for i, c in enumerate(suite.cases)]
    return data


def dumps(suite: Suite) -> str:
    """The suite as seed-001 JSON text (indented, UTF-8, ending with a newline)."""
    return json.dumps(to_dict(suite), indent=2, ensure_ascii=False) + "\n"


def save(suite: Suite, path: str | os.PathLike[str]) -> None:
    """Write ``suite`` to ``path`` as seed-001 JSON (parent folders are created)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dumps(suite), encoding="utf-8")


def example_suite() -> Suite:
    """The seed's example import template, as a suite (save it to start a file of your own)."""
    return build_suite(json.loads(json.dumps(EXAMPLE)), "<example>", default_name="example")
