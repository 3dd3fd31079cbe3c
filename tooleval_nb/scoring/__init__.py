"""Scoring: the seed's formulas, every match mode, BFCL-exact verdicts, agent expectations, graders.

Pure functions on in-memory data (no I/O), except the graders (which call a model through
:mod:`tooleval_nb.models`), the offline embedding model's loading, and :func:`bfcl_check` (which
reads BFCL files).

* :func:`score_case` / :func:`score_case_async` -> :class:`CaseScore` (:mod:`.case`), how a case
  is scored: :func:`case_kind` (:mod:`.kind`);
* :func:`score_cases`: batches as DataFrames (:mod:`.frame`); :func:`summarize_scores` /
  :func:`summarize_rows`: one row per model (:mod:`.summary`);
* the seed formulas: :func:`score_tool_selection`, :func:`score_params`, :func:`compute_overall`
  (:mod:`.calls`), the chain formulas (:mod:`.multiturn`), the match modes (:mod:`.match`,
  :mod:`.semantic`);
* BFCL: :func:`bfcl_verdict` (one entry) and :func:`bfcl_check` (result files)
  (:mod:`tooleval_nb.bfcl_rules.checker`, :mod:`tooleval_nb.bfcl_rules.file_check`);
* agents: :func:`check_expectations`, :func:`trajectory_match` (:mod:`.agent`), graders
  (:mod:`.graders`) with :class:`Trace` and :class:`GradeResult` (:mod:`.trace`).

The names load on first use (PEP 562 ``__getattr__``, as :mod:`tooleval_nb` does): importing a
module of scoring, such as :mod:`.kind` or :mod:`.summary`, loads that module alone, so the runner
can import its few names without loading the scorer (its finisher imports it at a run's first
case, on the loop in its idle time, while the other requests are in flight).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real names for IDEs and mypy; at run time __getattr__ loads them
    from ..bfcl_rules.checker import BfclVerdict, bfcl_verdict, check_calls, standardize_string
    from ..bfcl_rules.file_check import bfcl_check
    from .agent import check_expectations, trajectory_match
    from .calls import (
        best_assignment,
        compute_overall,
        param_scores,
        score_calls,
        score_params,
        score_tool_selection,
    )
    from .case import score_case, score_case_async
    from .frame import score_cases, score_cases_async, scores_df
    from .graders import (
        grade_code,
        grade_llm_async,
        parse_verdict,
        render_prompt,
        run_graders,
        run_graders_async,
    )
    from .interval import IntervalMethod, interval_method, mean_ci
    from .kind import case_kind
    from .match import MATCH_MODES, match_value
    from .multiturn import detour_penalty, efficiency, multi_turn_overall, redundancy_penalty
    from .result import (
        FAILURE_MODES,
        SCORE_COLUMNS,
        CallScore,
        CaseScore,
        ExpectationResult,
        FailureMode,
        ParamScore,
        TurnScore,
    )
    from .semantic import embed, similarity
    from .summary import SCORE_SUMMARY_COLUMNS, summarize_rows, summarize_scores
    from .trace import GradeResult, Trace

#: each public name -> the module that defines it, relative to this package (``bfcl_check``
#: reads BFCL's files, and with them loads the data module and ``importlib.metadata``)
_WHERE = {
    "BfclVerdict": "..bfcl_rules.checker",
    "bfcl_verdict": "..bfcl_rules.checker",
    "check_calls": "..bfcl_rules.checker",
    "standardize_string": "..bfcl_rules.checker",
    "bfcl_check": "..bfcl_rules.file_check",
    "check_expectations": ".agent",
    "trajectory_match": ".agent",
    "best_assignment": ".calls",
    "compute_overall": ".calls",
    "param_scores": ".calls",
    "score_calls": ".calls",
    "score_params": ".calls",
    "score_tool_selection": ".calls",
    "score_case": ".case",
    "score_case_async": ".case",
    "score_cases": ".frame",
    "score_cases_async": ".frame",
    "scores_df": ".frame",
    "grade_code": ".graders",
    "grade_llm_async": ".graders",
    "parse_verdict": ".graders",
    "render_prompt": ".graders",
    "run_graders": ".graders",
    "run_graders_async": ".graders",
    "IntervalMethod": ".interval",
    "interval_method": ".interval",
    "mean_ci": ".interval",
    "case_kind": ".kind",
    "MATCH_MODES": ".match",
    "match_value": ".match",
    "detour_penalty": ".multiturn",
    "efficiency": ".multiturn",
    "multi_turn_overall": ".multiturn",
    "redundancy_penalty": ".multiturn",
    "FAILURE_MODES": ".result",
    "SCORE_COLUMNS": ".result",
    "CallScore": ".result",
    "CaseScore": ".result",
    "ExpectationResult": ".result",
    "FailureMode": ".result",
    "ParamScore": ".result",
    "TurnScore": ".result",
    "embed": ".semantic",
    "similarity": ".semantic",
    "SCORE_SUMMARY_COLUMNS": ".summary",
    "summarize_rows": ".summary",
    "summarize_scores": ".summary",
    "GradeResult": ".trace",
    "Trace": ".trace",
}

#: scoring's modules, reachable as attributes too (``tooleval_nb.scoring.semantic``)
_MODULES = {
    "agent",
    "calls",
    "case",
    "expected",
    "frame",
    "graders",
    "interval",
    "kind",
    "match",
    "multiturn",
    "result",
    "semantic",
    "summary",
    "trace",
}

__all__ = [
    "score_case",
    "score_case_async",
    "case_kind",
    "CaseScore",
    "CallScore",
    "ParamScore",
    "TurnScore",
    "ExpectationResult",
    "FailureMode",
    "FAILURE_MODES",
    "SCORE_COLUMNS",
    "score_cases",
    "score_cases_async",
    "scores_df",
    "summarize_rows",
    "summarize_scores",
    "SCORE_SUMMARY_COLUMNS",
    "mean_ci",
    "interval_method",
    "IntervalMethod",
    "score_tool_selection",
    "score_params",
    "compute_overall",
    "param_scores",
    "score_calls",
    "best_assignment",
    "match_value",
    "MATCH_MODES",
    "embed",
    "similarity",
    "efficiency",
    "redundancy_penalty",
    "detour_penalty",
    "multi_turn_overall",
    "bfcl_verdict",
    "bfcl_check",
    "check_calls",
    "BfclVerdict",
    "standardize_string",
    "check_expectations",
    "trajectory_match",
    "Trace",
    "GradeResult",
    "render_prompt",
    "parse_verdict",
    "grade_llm_async",
    "grade_code",
    "run_graders",
    "run_graders_async",
]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
