"""Scoring: the seed's formulas, every match mode, BFCL-exact verdicts, agent expectations, graders.

Pure functions on in-memory data (no I/O), except the graders (which call a model through
:mod:`tooleval_nb.models`), the offline embedding model's loading, and :func:`bfcl_check` (which
reads BFCL files).

* :func:`score_case` / :func:`score_case_async` -> :class:`CaseScore` (:mod:`.case`);
* :func:`score_cases` / :func:`summarize_scores`: batches as DataFrames (:mod:`.frame`);
* the seed formulas: :func:`score_tool_selection`, :func:`score_params`, :func:`compute_overall`
  (:mod:`.calls`), the chain formulas (:mod:`.multiturn`), the match modes (:mod:`.match`,
  :mod:`.semantic`);
* BFCL: :func:`bfcl_verdict` (one entry) and :func:`bfcl_check` (result files, loaded on first
  use) (:mod:`tooleval_nb.bfcl.checker`, :mod:`tooleval_nb.bfcl.file_check`);
* agents: :func:`check_expectations`, :func:`trajectory_match` (:mod:`.agent`), graders
  (:mod:`.graders`) with :class:`Trace` and :class:`GradeResult` (:mod:`.trace`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..bfcl.checker import BfclVerdict, bfcl_verdict, check_calls, standardize_string
from .agent import check_expectations, trajectory_match
from .calls import (
    best_assignment,
    compute_overall,
    param_scores,
    score_calls,
    score_params,
    score_tool_selection,
)
from .case import case_kind, score_case, score_case_async
from .frame import (
    SCORE_SUMMARY_COLUMNS,
    score_cases,
    score_cases_async,
    scores_df,
    summarize_rows,
    summarize_scores,
)
from .graders import (
    grade_code,
    grade_llm_async,
    parse_verdict,
    render_prompt,
    run_graders,
    run_graders_async,
)
from .interval import IntervalMethod, interval_method, mean_ci
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
from .trace import GradeResult, Trace

if TYPE_CHECKING:  # pragma: no cover
    from ..bfcl.file_check import bfcl_check

__all__ = [
    "score_case", "score_case_async", "case_kind", "CaseScore", "CallScore", "ParamScore",
    "TurnScore", "ExpectationResult", "FailureMode", "FAILURE_MODES", "SCORE_COLUMNS",
    "score_cases", "score_cases_async", "scores_df", "summarize_rows", "summarize_scores",
    "SCORE_SUMMARY_COLUMNS",
    "mean_ci", "interval_method", "IntervalMethod",
    "score_tool_selection", "score_params", "compute_overall", "param_scores", "score_calls",
    "best_assignment", "match_value", "MATCH_MODES", "embed", "similarity",
    "efficiency", "redundancy_penalty", "detour_penalty", "multi_turn_overall",
    "bfcl_verdict", "bfcl_check", "check_calls", "BfclVerdict", "standardize_string",
    "check_expectations", "trajectory_match",
    "Trace", "GradeResult", "render_prompt", "parse_verdict", "grade_llm_async", "grade_code",
    "run_graders", "run_graders_async",
]


def __getattr__(name: str) -> Any:
    """``bfcl_check`` loads on first use: it reads BFCL's files (and with them the data module
    and ``importlib.metadata``), which a run that scores cases never does."""
    if name == "bfcl_check":
        value = importlib.import_module("..bfcl.file_check", __name__).bfcl_check
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
