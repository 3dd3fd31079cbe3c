"""The suite editor's logic, without widgets: parse what the user typed, field by field.

Every function returns the value it could build *and* the problems keyed by the form field at
fault, so that the editor shows each message next to its field. Nothing here raises for bad
input; nothing here does I/O except :func:`import_suite` / :func:`export_suite`, which go
through :mod:`tooleval_nb.formats`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import ValidationError

from ..errors import SuiteError
from ..formats import load_suite, save_bfcl, seed_json, seed_yaml
from ..suite import EvalCase, ParamScoring, Suite, Tool, case_problems
from .mcp_import import draft_label

__all__ = [
    "CaseForm",
    "Problems",
    "parse_tools",
    "parse_json_object",
    "build_case",
    "case_to_form",
    "build_suite",
    "import_suite",
    "export_suite",
    "ExportFormat",
    "SCORING_MODES",
    "case_rows",
]

#: field name -> messages
Problems = dict[str, list[str]]
ExportFormat = Literal["auto", "seed_json", "seed_yaml", "bfcl"]
SCORING_MODES: tuple[str, ...] = get_args(ParamScoring)

_FIELD = re.compile(r"^field ([A-Za-z_]+)")


def _json_problem(text: str, exc: json.JSONDecodeError) -> str:
    return f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"


def _pydantic_problems(exc: ValidationError) -> list[tuple[str, str]]:
    """``(field, message)`` per error; a model-level message names its field itself."""
    out = []
    for err in exc.errors():
        loc = [str(p) for p in err["loc"]]
        msg = err["msg"].removeprefix("Value error, ")
        if loc:
            out.append((loc[0], f"{'.'.join(loc)}: {msg}"))
        else:
            match = _FIELD.match(msg)
            out.append((match.group(1) if match else "", msg))
    return out


def parse_tools(text: str) -> tuple[list[Tool] | None, list[str]]:
    """Tools from JSON text: a list of OpenAI tools (or flat ``{name, parameters}`` dicts), or
    ``{"tools": [...]}``. Returns ``(tools, [])`` or ``(None, problems)``, each problem naming
    the tool (index and name) and the field."""
    if not text.strip():
        return [], []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [_json_problem(text, exc)]
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        return None, [f"tools must be a JSON list of tools, got {type(data).__name__}"]
    tools: list[Tool] = []
    problems: list[str] = []
    for i, item in enumerate(data):
        name = _tool_name(item)
        try:
            tools.append(Tool.model_validate(item))
        except ValidationError as exc:
            for _, msg in _pydantic_problems(exc):
                problems.append(f"tool {i} ({name}): {msg}")
    seen: set[str] = set()
    for t in tools:
        if t.name.lower() in seen:
            problems.append(f"tool {t.name!r} is defined twice; rename or remove one")
        seen.add(t.name.lower())
    return (None, problems) if problems else (tools, [])


def _tool_name(item: Any) -> str:
    if isinstance(item, dict):
        fn = item["function"] if isinstance(item.get("function"), dict) else item
        return repr(fn.get("name", "?"))
    return "?"


def parse_json_object(text: str, what: str) -> tuple[dict[str, Any] | None, list[str]]:
    """A JSON object from text; blank text gives ``None`` (meaning "not scored")."""
    if not text.strip():
        return None, []
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [f"{what}: {_json_problem(text, exc)}"]
    if not isinstance(value, dict):
        return None, [
            f'{what}: must be a JSON object like {{"city": "Paris"}}, got {type(value).__name__}'
        ]
    return value, []


@dataclass
class CaseForm:
    """What the case form holds, as text (the editor's widgets hold exactly these values)."""

    name: str = ""
    prompt: str = ""
    #: one tool name, several separated by ``|`` or ``,`` (any is acceptable), or blank (no call)
    expected_tool: str = ""
    #: a JSON object, or blank for "parameters not scored"
    expected_params: str = ""
    param_scoring: str = "exact"
    #: comma-separated
    tags: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


_FORM_FIELDS = frozenset(CaseForm.__dataclass_fields__) - {"extra"}


def build_case(
    form: CaseForm, tools: Sequence[Tool] | None = None
) -> tuple[EvalCase | None, Problems]:
    """An :class:`EvalCase` from the form, or the problems keyed by form field.

    The case is cross-checked against ``tools`` (expected tool offered, parameters in its
    schema, enum values allowed) when tools are given. ``form.extra`` carries the fields the form
    does not show (multi-turn settings, agent expectations...) unchanged.
    """
    problems: Problems = {}
    names = [n.strip() for n in re.split(r"[|,]", form.expected_tool) if n.strip()]
    params, errs = parse_json_object(form.expected_params, "expected_params")
    if errs:
        problems["expected_params"] = errs
    if form.param_scoring not in SCORING_MODES:
        problems["param_scoring"] = [
            f"param_scoring {form.param_scoring!r} is not one of {', '.join(SCORING_MODES)}"
        ]
    if problems:
        return None, problems
    data: dict[str, Any] = {
        **form.extra,
        "prompt": form.prompt,
        "expected_tool": (names[0] if len(names) == 1 else names) or None,
        "expected_params": params,
        "param_scoring": form.param_scoring,
        "tags": [t.strip() for t in form.tags.split(",") if t.strip()],
    }
    if form.name.strip():
        data["name"] = form.name.strip()
    data.pop("input", None)
    try:
        case = EvalCase.model_validate(data)
    except ValidationError as exc:
        for key, msg in _pydantic_problems(exc):
            problems.setdefault(key if key in _FORM_FIELDS else "case", []).append(msg)
        return None, problems
    for msg in case_problems(case, list(tools or [])):
        match = _FIELD.match(msg)
        key = match.group(1) if match else "case"
        problems.setdefault(key if key in _FORM_FIELDS else "case", []).append(msg)
    return (None, problems) if problems else (case, {})


def case_to_form(case: EvalCase) -> CaseForm:
    """The form text of an existing case (the reverse of :func:`build_case`)."""
    shown = {"name", "prompt", "expected_tool", "expected_params", "param_scoring", "tags", "id"}
    extra = {
        k: v
        for k, v in case.model_dump(mode="json", exclude_defaults=True).items()
        if k not in shown
    }
    tool = case.expected_tool
    return CaseForm(
        name=case.name or "",
        prompt=case.prompt,
        expected_tool=" | ".join(tool) if isinstance(tool, list) else (tool or ""),
        expected_params=""
        if case.expected_params is None
        else json.dumps(case.expected_params, ensure_ascii=False),
        param_scoring=case.param_scoring,
        tags=", ".join(case.tags),
        extra=extra,
    )


def build_suite(
    name: str, description: str, system_prompt: str, tools_text: str, cases: Sequence[EvalCase]
) -> tuple[Suite | None, Problems]:
    """The whole suite, or the problems keyed by ``name`` / ``tools`` / ``cases``."""
    problems: Problems = {}
    if not name.strip():
        problems["name"] = ["a suite needs a name"]
    tools, errs = parse_tools(tools_text)
    if errs:
        problems["tools"] = errs
    if problems:
        return None, problems
    try:
        suite = Suite(
            name=name.strip(),
            description=description,
            tools=tools or [],
            cases=list(cases),
            system_prompt=system_prompt.strip() or None,
        )
    except SuiteError as exc:
        return None, {"cases": list(exc.problems)}
    except ValidationError as exc:
        return None, {"suite": [m for _, m in _pydantic_problems(exc)]}
    return suite, {}


def case_rows(cases: Sequence[EvalCase]) -> list[dict[str, Any]]:
    """The cases table's rows: ``#, name, prompt, expected_tool, expected_params, scoring,
    tags, draft`` (``draft`` says "draft (model)", "accepted draft"... or is blank)."""
    return [
        {
            "#": i,
            "name": c.name or c.id or "",
            "prompt": c.prompt,
            "expected_tool": c.expected_tool,
            "expected_params": c.expected_params,
            "scoring": c.param_scoring,
            "tags": ", ".join(c.tags),
            "draft": draft_label(c),
        }
        for i, c in enumerate(cases)
    ]


def import_suite(path: str | Path, format: ExportFormat = "auto") -> Suite:
    """Load one suite file (seed JSON, seed YAML or BFCL questions; ``auto`` chooses by name
    and content). Raises SuiteError."""
    loaded = load_suite(path, None if format == "auto" else format)
    if isinstance(loaded, list):
        if len(loaded) != 1:
            raise SuiteError(
                f"{path} holds {len(loaded)} suites; pick one file to edit", path=str(path)
            )
        loaded = loaded[0]
    return loaded


def export_suite(suite: Suite, path: str | Path, format: ExportFormat = "auto") -> str:
    """Write ``suite``; returns what was written (for BFCL, a folder: the two files' paths).

    ``auto`` writes seed YAML for ``.yaml`` / ``.yml`` names and seed JSON otherwise.
    """
    target = Path(path)
    if format == "auto":
        format = "seed_yaml" if target.suffix in (".yaml", ".yml") else "seed_json"
    if format == "bfcl":
        questions, answers = save_bfcl(suite, target)
        return questions if answers is None else f"{questions} and {answers}"
    (seed_yaml if format == "seed_yaml" else seed_json).save(suite, target)
    return str(target)
