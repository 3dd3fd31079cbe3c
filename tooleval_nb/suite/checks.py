"""Cross-checks of a case against the tools it is offered (pure; no I/O).

:func:`case_problems` lists what makes a case wrong (loading fails on any); :func:`case_warnings`
what is suspicious but allowed: an ``expected_tool`` list of acceptable names that names tools the
case is not offered (seed 001's own example lists ``["search", "web_search"]`` for a suite that
offers one of them; its web app accepts such files). A case is checked alone: what a whole
suite adds (the file, the case's index) is :mod:`.model`'s (``Suite.problems()``,
:func:`~.model.suite_warnings`, :func:`~.model.warn_suite`, which issues :class:`SuiteWarning`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .case import EvalCase
from .tool import Tool

__all__ = ["case_problems", "case_warnings", "SuiteWarning"]


class SuiteWarning(UserWarning):
    """A suite loaded, but something in it looks unintended (the message says what and where)."""


def case_problems(case: EvalCase, tools: Sequence[Tool]) -> list[str]:
    """Cross-check one case against the tools it is offered.

    Every expected tool must be offered (names compare case-insensitively, as tool selection
    does; of an ``expected_tool`` list of acceptable names, at least one: the others are
    :func:`case_warnings`), every expected parameter must be in that tool's schema, and expected values of an
    ``enum`` parameter must be allowed ones (``""``, "may be omitted", always is). When no tools
    are offered at all (agent cases, whose tools live in the agent) nothing is checked.

    Returns:
        Every problem found (empty when there is none), each reading
        ``field <path>: <what is wrong>; <what to do>``. ``Suite.problems()`` gives them for
        every case of a suite.
    """
    if not tools:
        return []
    by_name = {t.name.lower(): t for t in tools}
    offered = sorted(t.name for t in tools)
    out: list[str] = []
    alternatives = _alternatives(case)
    if alternatives and not any(n.lower() in by_name for n in alternatives):
        out.append(
            f"field expected_tool: none of the acceptable tools {alternatives!r} is among "
            f"the tools offered ({_short(offered)})"
            f"{_did_you_mean(alternatives[0], offered)}; add one of the tools or fix "
            "the names"
        )
    for field, name in case.tool_mentions():
        if alternatives and field.startswith("expected_tool["):
            continue  # an acceptable alternative: a warning at most (see case_warnings)
        if name.lower() not in by_name:
            out.append(
                f"field {field}: tool {name!r} is not among the tools offered "
                f"({_short(offered)}){_did_you_mean(name, offered)}; "
                "add the tool or fix the name"
            )
    for field, tool_name, args in case.expected_arguments():
        candidates = [
            by_name[n.lower()] for n in _names(field, tool_name, case) if n.lower() in by_name
        ]
        if not candidates:
            continue
        for key, values in args.items():
            having = [t for t in candidates if key in t.properties]
            if not having:
                tool = candidates[0]
                props = list(tool.properties)
                out.append(
                    f"field {field}.{key}: {key!r} is not a parameter of tool "
                    f"{tool.name!r} (it has: {_short(props) or 'none'})"
                    f"{_did_you_mean(key, props)}; fix the name or the schema"
                )
                continue
            prop = having[0].properties[key]
            enum = prop.get("enum") if isinstance(prop, dict) else None
            if not enum or _mode_for(case, key, field) not in ("exact", "case_insensitive"):
                continue
            for v in values:
                if v == "" or _in_enum(v, enum):
                    continue
                out.append(
                    f"field {field}.{key}: {v!r} is not one of the allowed values "
                    f"{enum!r} of tool {having[0].name!r}; use one of them or fix the enum"
                )
    return out


def case_warnings(case: EvalCase, tools: Sequence[Tool]) -> list[str]:
    """What is allowed but suspicious in ``case``: each acceptable ``expected_tool`` name the
    case is not offered, when another one is offered. Each reads ``field <path>: ...``."""
    alternatives = _alternatives(case)
    if not tools or not alternatives:
        return []
    offered = {t.name.lower() for t in tools}
    if not any(n.lower() in offered for n in alternatives):
        return []  # a problem, not a warning
    return [
        f"field expected_tool[{i}]: acceptable tool {name!r} is not offered, so the model "
        f"cannot call it (offered: {_short(sorted(t.name for t in tools))}); add the tool "
        "or drop the name"
        for i, name in enumerate(alternatives)
        if name.lower() not in offered
    ]


def _alternatives(case: EvalCase) -> list[str]:
    """The acceptable names of an ``expected_tool`` list ([] for a single name or none)."""
    return list(case.expected_tool) if isinstance(case.expected_tool, list) else []


def _names(field: str, tool_name: str, case: EvalCase) -> list[str]:
    # expected_params with several acceptable tools: a parameter may belong to any of them
    if field == "expected_params" and isinstance(case.expected_tool, list):
        return list(case.expected_tool)
    return [tool_name]


def _mode_for(case: EvalCase, key: str, field: str) -> str:
    if not field.startswith(("expected_params", "expected_calls")):
        return "exact"
    cfg = case.scoring_config
    if cfg is not None and cfg.param_modes and key in cfg.param_modes:
        return cfg.param_modes[key]
    if cfg is not None and cfg.mode:
        return cfg.mode
    return case.param_scoring


def _in_enum(value: Any, enum: list[Any]) -> bool:
    if value in enum:
        return True
    if isinstance(value, list) and value:  # an array parameter whose items are enumerated
        return all(_in_enum(v, enum) for v in value)
    return isinstance(value, str) and any(
        isinstance(e, str) and e.lower() == value.lower() for e in enum
    )


def _short(names: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def _did_you_mean(name: str, choices: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""
