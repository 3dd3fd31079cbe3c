"""Tool selection, parameter accuracy and overall score, and pairing of expected with model calls.

The seed formulas (``tool-eval-framework.md``, "Scoring"), exactly:

* tool selection: 1.0 when a called name equals an acceptable expected name ignoring case; when
  no tool is expected (``None``), 1.0 only when nothing was called;
* parameter accuracy: correct expected keys / expected keys; ``None`` expected -> not scored
  (``None``); ``{}`` -> 1.0;
* overall = 0.6 * tool + 0.4 * param, or the tool score when parameters are not scored.

Several expected calls (parallel calls) are paired with the model's calls by the assignment that
maximises the summed overall score (the Hungarian algorithm, exact, O(n^3)), not greedily; each
expected call gets its own partial credit, and unpaired calls are listed as missing or extra. An
expected call that no model call was paired with scores 0 on every part (parameter score 0.0, or
None when parameters are not scored): the ``{} -> 1.0`` rule applies to a call that was made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..suite import ParamScoring, ScoringConfig, Tool
from ..toolcall import ToolCall
from .match import match_exact, match_value
from .result import CallScore, ParamProblem, ParamScore

__all__ = [
    "TOOL_WEIGHT",
    "PARAM_WEIGHT",
    "score_tool_selection",
    "score_params",
    "compute_overall",
    "mode_for",
    "param_scores",
    "best_assignment",
    "score_calls",
]

TOOL_WEIGHT = 0.6
PARAM_WEIGHT = 0.4

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
    "null": (type(None),),
}


def score_tool_selection(expected: str | Sequence[str] | None, called: Sequence[Any]) -> float:
    """Seed tool selection: 1.0 when an acceptable tool was called (case-insensitive), else 0.0.

    Args:
        expected: the expected tool name, a list of acceptable names, or None (no call wanted).
        called: the names called, or tool calls in any shape ``ToolCall.of`` accepts.
    """
    names = [c if isinstance(c, str) else ToolCall.of(c).name for c in called]
    if expected is None:
        return 1.0 if not names else 0.0
    wanted = {expected.lower()} if isinstance(expected, str) else {e.lower() for e in expected}
    return 1.0 if any(n.lower() in wanted for n in names) else 0.0


def mode_for(name: str, mode: ParamScoring, config: ScoringConfig | None) -> ParamScoring:
    """The mode of parameter ``name``: ``param_modes[name]`` > ``config.mode`` > ``mode``."""
    if config is None:
        return mode
    if config.param_modes and name in config.param_modes:
        return config.param_modes[name]
    return config.mode or mode


def score_params(
    expected: dict[str, Any] | None,
    actual: dict[str, Any] | None,
    mode: ParamScoring = "exact",
    config: ScoringConfig | None = None,
) -> float | None:
    """Seed parameter accuracy: correct expected keys / expected keys (None: not scored)."""
    if expected is None:
        return None
    if not expected:
        return 1.0
    if not actual:
        return 0.0
    if config is None and mode == "exact":
        correct = sum(1 for k, v in expected.items() if k in actual and match_exact(v, actual[k]))
    else:
        correct = sum(
            1
            for k, v in expected.items()
            if k in actual and match_value(v, actual[k], mode_for(k, mode, config), config)
        )
    return correct / len(expected)


def compute_overall(tool_score: float, param_score: float | None) -> float:
    """Seed overall: ``0.6 * tool + 0.4 * param``, or ``tool`` when params are not scored."""
    if param_score is None:
        return tool_score
    return TOOL_WEIGHT * tool_score + PARAM_WEIGHT * param_score


# -- details -----------------------------------------------------------------------------------
def _type_ok(value: Any, schema: Any) -> bool | None:
    """Whether ``value`` has the schema's JSON type (None when the schema says nothing)."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
    allowed = tuple(t for k in kinds for t in _JSON_TYPES.get(k, ()))
    if not allowed:
        return None
    if isinstance(value, bool):
        return bool in allowed
    return isinstance(value, allowed)


def _same_kind(a: Any, b: Any) -> bool:
    num = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    if isinstance(a, num) and isinstance(b, num):
        return True
    return type(a) is type(b) or (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)))


def param_scores(
    acceptable: dict[str, list[Any]],
    actual: dict[str, Any],
    mode: ParamScoring,
    config: ScoringConfig | None,
    schema: dict[str, Any] | None = None,
) -> list[ParamScore]:
    """Per-parameter results; ``""`` among the acceptable values allows leaving a key out."""
    props = schema or {}
    out = []
    for key, values in acceptable.items():
        m = mode_for(key, mode, config)
        if key not in actual:
            ok = "" in values
            out.append(
                ParamScore(
                    name=key,
                    expected=list(values),
                    present=False,
                    correct=ok,
                    mode=m,
                    problem=None if ok else "missing",
                )
            )
            continue
        value = actual[key]
        ok = any(match_value(v, value, m, config) for v in values)
        problem: ParamProblem | None = None
        if not ok:
            typed = _type_ok(value, props.get(key))
            if typed is None:
                ref = next((v for v in values if v != ""), None)
                typed = ref is None or _same_kind(ref, value)
            problem = "wrong_value" if typed else "wrong_type"
        out.append(
            ParamScore(
                name=key,
                expected=list(values),
                actual=value,
                present=True,
                correct=ok,
                mode=m,
                problem=problem,
            )
        )
    return out


# -- assignment --------------------------------------------------------------------------------
def best_assignment(scores: Sequence[Sequence[float]]) -> list[int | None]:
    """For each row, the column it is paired with so that the summed score is maximal.

    Exact (Hungarian algorithm with potentials); rectangular matrices allowed; a row left without
    a column (more rows than columns) gets None.
    """
    n = len(scores)
    if n == 0:
        return []
    m = len(scores[0])
    if m == 0:
        return [None] * n
    if n == 1:  # one expected call (most cases): the best column, the first of equals, as below
        row0 = scores[0]
        return [max(range(m), key=row0.__getitem__)]
    if n > m:
        cols = best_assignment([[scores[i][j] for i in range(n)] for j in range(m)])
        rows: list[int | None] = [None] * n
        for j, i in enumerate(cols):
            if i is not None:
                rows[i] = j
        return rows
    inf = float("inf")
    # minimise -score; 1-based arrays as in the classic formulation
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = inf
            j1 = 0
            row = scores[i0 - 1]
            for j in range(1, m + 1):
                if not used[j]:
                    cur = -row[j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    result: list[int | None] = [None] * n
    for j in range(1, m + 1):
        if p[j]:
            result[p[j] - 1] = j - 1
    return result


def _tool_index(tools: Sequence[Tool] | None) -> dict[str, Tool]:
    return {t.name.lower(): t for t in tools or []}


def score_calls(
    expected: Sequence[tuple[list[str], dict[str, list[Any]] | None]],
    actual: Sequence[ToolCall],
    *,
    mode: ParamScoring = "exact",
    config: ScoringConfig | None = None,
    tools: Sequence[Tool] | None = None,
    parsed: Sequence[dict[str, Any] | None] | None = None,
) -> tuple[list[CallScore], list[int]]:
    """Pair expected calls with model calls by the best overall assignment and score each pair.

    Args:
        expected: per expected call, (acceptable names, acceptable values per parameter or None
            when parameters are not scored).
        actual: the model's calls in order.
        parsed: each call's ``parsed_arguments()``, when the caller has them already.

    Returns:
        (one CallScore per expected call, indices of model calls left unpaired).
    """
    index = _tool_index(tools)
    if parsed is None:
        parsed = [c.parsed_arguments() for c in actual]
    names = [c.function.name.lower() for c in actual]
    details: dict[tuple[int, int], tuple[float, float | None, list[ParamScore]]] = {}
    matrix: list[list[float]] = []
    for i, (accept, args) in enumerate(expected):
        wanted = {a.lower() for a in accept}
        tool = index.get(accept[0].lower()) if accept else None
        props = tool.properties if tool else None
        row = []
        for j in range(len(actual)):
            tool_score = 1.0 if names[j] in wanted else 0.0
            if args is None:
                ps, pscores = None, []
            else:
                pscores = param_scores(args, parsed[j] or {}, mode, config, props)
                ps = (sum(1 for s in pscores if s.correct) / len(pscores)) if pscores else 1.0
            overall = compute_overall(tool_score, ps)
            details[(i, j)] = (tool_score, ps, pscores)
            row.append(overall)
        matrix.append(row)
    pairs = best_assignment(matrix) if actual else [None] * len(expected)
    used: set[int] = set()
    out = []
    for i, (accept, args) in enumerate(expected):
        k = pairs[i]
        if k is not None and matrix[i][k] <= 0.0:
            k = None  # nothing in common: report a missing call and an extra one
        name = accept[0] if accept else ""
        if k is None:
            # a call that was not made scores 0 on every part (its parameters were not given)
            pscores = [
                ParamScore(
                    name=k,
                    expected=list(v),
                    present=False,
                    correct=False,
                    mode=mode_for(k, mode, config),
                    problem="missing",
                )
                for k, v in (args or {}).items()
            ]
            out.append(
                CallScore(
                    index=i,
                    expected_name=name,
                    acceptable_names=list(accept),
                    tool_score=0.0,
                    param_score=None if args is None else 0.0,
                    overall=0.0,
                    params=pscores,
                )
            )
            continue
        used.add(k)
        tool_score, ps, pscores = details[(i, k)]
        call_args = parsed[k]
        hallucinated: list[str] = []
        missing_req: list[str] = []
        tool = index.get(names[k])
        if tool is not None and call_args is not None:
            props = tool.properties
            hallucinated = [k for k in call_args if k not in props]
            missing_req = [k for k in tool.required if k not in call_args]
        out.append(
            CallScore(
                index=i,
                expected_name=name,
                acceptable_names=list(accept),
                actual_index=k,
                actual_name=actual[k].function.name,
                tool_score=tool_score,
                param_score=ps,
                overall=matrix[i][k],
                params=pscores,
                hallucinated_args=hallucinated,
                missing_required=missing_req,
                parse_error=call_args is None,
            )
        )
    extra = [j for j in range(len(actual)) if j not in used]
    return out, extra
