"""Turn raw mappings (parsed JSON or YAML) into a :class:`Suite`, collecting every problem.

Both seed formats end here, so both report problems the same way: each problem is one sentence
that names the file, the case (index, name and, for YAML, line) or tool, and the field, and says
what to do. Nothing is built unless every part is valid: a file with an error loads nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import SuiteError
from ..suite import EvalCase, Suite, Tool

__all__ = ["SUITE_KEYS", "build_suite", "raise_problems", "validation_problems"]

#: the keys a seed-001 suite mapping may have (``cases`` is accepted for ``test_cases``)
SUITE_KEYS = ("name", "description", "system_prompt", "tools", "test_cases", "cases")
_CASE_FIELDS = tuple(EvalCase.model_fields) + ("input",)


def build_suite(
    raw: Any,
    source: str,
    *,
    default_name: str,
    case_lines: Sequence[int | None] | None = None,
    allowed_keys: Sequence[str] = SUITE_KEYS,
    case_where: str = "case",
) -> Suite:
    """Build a suite from a seed-001 shaped mapping; raise one SuiteError with every problem.

    Args:
        raw: the parsed file: ``{"name", "description", "system_prompt", "tools", "test_cases"}``.
        source: the file, as messages should name it.
        default_name: the suite's name when ``raw`` has none (the file's stem).
        case_lines: the line each case starts on, when known (YAML).
        allowed_keys: top-level keys accepted.
        case_where: how a case is introduced in messages.
    """
    if not isinstance(raw, Mapping):
        raise SuiteError(
            f"{source}: the file must hold one suite object with name, tools and "
            f"test_cases, got {_kind(raw)}; see te.example_suite() for the layout",
            path=source,
        )
    problems: list[str] = []
    for key in raw:
        if key not in allowed_keys:
            problems.append(
                f"{source}: field {key}: unknown suite field"
                f"{_suggest(str(key), allowed_keys)}; the suite fields are "
                f"{', '.join(allowed_keys)}"
            )
    if "test_cases" in raw and "cases" in raw:
        problems.append(f"{source}: field cases: both test_cases and cases are given; keep one")
    name = raw.get("name", default_name)
    for field in ("name", "description", "system_prompt"):
        value = raw.get(field)
        if value is not None and not isinstance(value, str):
            problems.append(f"{source}: field {field}: must be text, got {_kind(value)}")
    tools = _build_tools(raw.get("tools"), source, problems)
    raw_cases = raw.get("test_cases", raw.get("cases"))
    cases: list[EvalCase] = []
    if raw_cases is None:
        raw_cases = []
    if not isinstance(raw_cases, list):
        problems.append(
            f"{source}: field test_cases: must be a list of cases, got {_kind(raw_cases)}"
        )
        raw_cases = []
    for i, item in enumerate(raw_cases):
        line = case_lines[i] if case_lines and i < len(case_lines) else None
        where = f"{source}: {case_where} {i} ({_label(item)!r}{f', line {line}' if line else ''})"
        if not isinstance(item, Mapping):
            problems.append(f"{where}: must be a mapping of case fields, got {_kind(item)}")
            continue
        try:
            cases.append(EvalCase.model_validate(dict(item)))
        except ValidationError as exc:
            problems += [f"{where}: {p}" for p in validation_problems(exc, _CASE_FIELDS)]
    raise_problems(problems, source, what=f"suite {name!r}")
    suite = Suite(
        name=name if isinstance(name, str) else default_name,
        description=raw.get("description") or "",
        tools=tools,
        cases=cases,
        system_prompt=raw.get("system_prompt"),
        source=source,
    )
    return suite


def _build_tools(raw_tools: Any, source: str, problems: list[str]) -> list[Tool]:
    if raw_tools is None:
        return []
    if not isinstance(raw_tools, list):
        problems.append(
            f"{source}: field tools: must be a list of OpenAI tools, got {_kind(raw_tools)}"
        )
        return []
    tools: list[Tool] = []
    names: dict[str, int] = {}
    for i, item in enumerate(raw_tools):
        label = _tool_label(item)
        where = f"{source}: tools[{i}] ({label!r})"
        try:
            tool = Tool.model_validate(item)
        except ValidationError as exc:
            problems += [f"{where}: {p}" for p in validation_problems(exc, Tool.model_fields)]
            continue
        first = names.setdefault(tool.name.lower(), i)
        if first != i:
            problems.append(
                f"{where}: field function.name: {tool.name!r} is already the name of "
                f"tools[{first}]; tool names must be unique"
            )
        tools.append(tool)
    return tools


def validation_problems(
    exc: ValidationError,
    fields: Sequence[str] | Mapping[str, Any] = (),
) -> list[str]:
    """Translate a pydantic error into ``field <path>: <what>; <what to do>`` sentences."""
    out = []
    for err in exc.errors(include_url=False):
        path = _path(err.get("loc", ()))
        kind = err.get("type", "")
        msg = str(err.get("msg", ""))
        if msg.startswith(("Value error, ", "Assertion failed, ")):
            msg = msg.split(", ", 1)[1]
        if msg.startswith("field ") and not path:
            out.append(msg)
            continue
        field = f"field {path}" if path else "case"
        if kind == "extra_forbidden":
            last = str(err["loc"][-1]) if err.get("loc") else path
            out.append(
                f"{field}: unknown field{_suggest(last, list(fields))}; remove it or fix "
                "the spelling"
            )
        elif kind == "missing":
            out.append(f"{field}: required but missing; add it")
        elif kind in ("literal_error", "enum"):
            out.append(f"{field}: {msg} (got {err.get('input')!r:.60})")
        elif kind.endswith(("_type", "_parsing")) or kind in ("model_type", "dict_type"):
            out.append(
                f"{field}: {msg[:1].lower() + msg[1:]}, got {_kind(err.get('input'))} "
                f"{err.get('input')!r:.60}"
            )
        else:
            out.append(f"{field}: {msg}")
    return out


def raise_problems(problems: list[str], source: str, what: str = "the file") -> None:
    """Raise one SuiteError listing every problem (if there are any)."""
    if problems:
        raise SuiteError(
            f"{source}: {what} has {len(problems)} problem(s); nothing was loaded:"
            "\n  - " + "\n  - ".join(problems),
            problems=problems,
            path=source,
        )


def _path(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part).startswith(("function-", "model-", "tagged-union")):
            continue  # pydantic's internal validator names
        else:
            out += ("." if out else "") + str(part)
    return out


def _suggest(name: str, choices: Sequence[str] | Mapping[str, Any]) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _label(item: Any) -> str:
    if isinstance(item, Mapping):
        for key in ("name", "id"):
            if isinstance(item.get(key), str):
                return item[key]
    return "?"


def _tool_label(item: Any) -> str:
    if isinstance(item, Mapping):
        fn = item.get("function", item)
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            return fn["name"]
    return "?"


def _kind(value: Any) -> str:
    if isinstance(value, BaseModel):
        return type(value).__name__
    return {
        dict: "a mapping",
        list: "a list",
        str: "text",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)
