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
* BFCL: :func:`bfcl_verdict` (one entry) and :func:`bfcl_check` (result files, loaded on first
  use) (:mod:`tooleval_nb.bfcl.checker`, :mod:`tooleval_nb.bfcl.file_check`);
* agents: :func:`check_expectations`, :func:`trajectory_match` (:mod:`.agent`), graders
  (:mod:`.graders`) with :class:`Trace` and :class:`GradeResult` (:mod:`.trace`).

The names load on first use (PEP 562 ``__getattr__``, as :mod:`tooleval_nb` does): importing a
module of scoring, such as :mod:`.kind` or :mod:`.summary`, loads that module alone, so the runner
can import its few names without loading the scorer (which a run loads in a thread while its
first requests are in flight).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real names for IDEs and mypy; at run time __getattr__ loads them
    from ..bfcl.checker import BfclVerdict, bfcl_verdict, check_calls, standardize_string
    from ..bfcl.file_check import bfcl_check
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

#: each public name -> the module that defines it (``bfcl_check`` reads BFCL's files, and with
#: them loads the data module and ``importlib.metadata``, which a run that scores cases never does)
_HOME: dict[str, str] = {}
for _module, _names in {
    "tooleval_nb.bfcl.checker": ("BfclVerdict", "bfcl_verdict", "check_calls",
                                 "standardize_string"),
    "tooleval_nb.bfcl.file_check": ("bfcl_check",),
    "tooleval_nb.scoring.agent": ("check_expectations", "trajectory_match"),
    "tooleval_nb.scoring.calls": ("best_assignment", "compute_overall", "param_scores",
                                  "score_calls", "score_params", "score_tool_selection"),
    "tooleval_nb.scoring.case": ("score_case", "score_case_async"),
    "tooleval_nb.scoring.frame": ("score_cases", "score_cases_async", "scores_df"),
    "tooleval_nb.scoring.graders": ("grade_code", "grade_llm_async", "parse_verdict",
                                    "render_prompt", "run_graders", "run_graders_async"),
    "tooleval_nb.scoring.interval": ("IntervalMethod", "interval_method", "mean_ci"),
    "tooleval_nb.scoring.kind": ("case_kind",),
    "tooleval_nb.scoring.match": ("MATCH_MODES", "match_value"),
    "tooleval_nb.scoring.multiturn": ("detour_penalty", "efficiency", "multi_turn_overall",
                                      "redundancy_penalty"),
    "tooleval_nb.scoring.result": ("FAILURE_MODES", "SCORE_COLUMNS", "CallScore", "CaseScore",
                                   "ExpectationResult", "FailureMode", "ParamScore",
                                   "TurnScore"),
    "tooleval_nb.scoring.semantic": ("embed", "similarity"),
    "tooleval_nb.scoring.summary": ("SCORE_SUMMARY_COLUMNS", "summarize_rows",
                                    "summarize_scores"),
    "tooleval_nb.scoring.trace": ("GradeResult", "Trace"),
}.items():
    _HOME.update(dict.fromkeys(_names, _module))
del _module, _names

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
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
