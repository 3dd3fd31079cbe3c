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
  (:mod:`tooleval_nb.bfcl.checker`, :mod:`tooleval_nb.bfcl.file_check`);
* agents: :func:`check_expectations`, :func:`trajectory_match` (:mod:`.agent`), graders
  (:mod:`.graders`) with :class:`Trace` and :class:`GradeResult` (:mod:`.trace`).

The names load on first use (:mod:`tooleval_nb._lazy`, as for :mod:`tooleval_nb`: each is
written once, in the ``TYPE_CHECKING`` block below): importing a module of scoring, such as
:mod:`.kind` or :mod:`.summary`, loads that module alone, so the runner can import its few names without loading the scorer (its finisher imports it at a run's first
case, on the loop in its idle time, while the other requests are in flight).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:  # the one list of public names; at run time _lazy.attach reads it
    from ..bfcl_rules.checker import BfclVerdict as BfclVerdict
    from ..bfcl_rules.checker import bfcl_verdict as bfcl_verdict
    from ..bfcl_rules.checker import check_calls as check_calls
    from ..bfcl_rules.checker import standardize_string as standardize_string
    from ..bfcl_rules.file_check import bfcl_check as bfcl_check
    from .agent import check_expectations as check_expectations
    from .agent import trajectory_match as trajectory_match
    from .calls import best_assignment as best_assignment
    from .calls import compute_overall as compute_overall
    from .calls import param_scores as param_scores
    from .calls import score_calls as score_calls
    from .calls import score_params as score_params
    from .calls import score_tool_selection as score_tool_selection
    from .case import score_case as score_case
    from .case import score_case_async as score_case_async
    from .frame import score_cases as score_cases
    from .frame import score_cases_async as score_cases_async
    from .frame import scores_df as scores_df
    from .graders import grade_code as grade_code
    from .graders import grade_llm_async as grade_llm_async
    from .graders import parse_verdict as parse_verdict
    from .graders import render_prompt as render_prompt
    from .graders import run_graders as run_graders
    from .graders import run_graders_async as run_graders_async
    from .interval import IntervalMethod as IntervalMethod
    from .interval import interval_method as interval_method
    from .interval import mean_ci as mean_ci
    from .kind import case_kind as case_kind
    from .match import MATCH_MODES as MATCH_MODES
    from .match import match_value as match_value
    from .multiturn import detour_penalty as detour_penalty
    from .multiturn import efficiency as efficiency
    from .multiturn import multi_turn_overall as multi_turn_overall
    from .multiturn import redundancy_penalty as redundancy_penalty
    from .result import FAILURE_MODES as FAILURE_MODES
    from .result import SCORE_COLUMNS as SCORE_COLUMNS
    from .result import CallScore as CallScore
    from .result import CaseScore as CaseScore
    from .result import ExpectationResult as ExpectationResult
    from .result import FailureMode as FailureMode
    from .result import ParamScore as ParamScore
    from .result import TurnScore as TurnScore
    from .semantic import embed as embed
    from .semantic import similarity as similarity
    from .summary import SCORE_SUMMARY_COLUMNS as SCORE_SUMMARY_COLUMNS
    from .summary import summarize_rows as summarize_rows
    from .summary import summarize_scores as summarize_scores
    from .trace import GradeResult as GradeResult
    from .trace import Trace as Trace

if not TYPE_CHECKING:  # hidden from type checkers: they read the block above as plain imports
    __getattr__, __dir__, __all__ = attach(__name__)
