"""One typed record from cell to row: :func:`build_record` returns the :class:`ResultRow` the
store writes and reads; its failure mode is the scorer's (none when scoring raised); a model's
summary is a :class:`ModelSummary` read from :class:`SummaryRow` fields."""

from __future__ import annotations

import json

import pytest

from tooleval_nb.runner.record import RESULT_FIELDS, CaseOutcome, ResultRow, build_record
from tooleval_nb.runner.results import SUMMARY_FIELDS, ModelSummary, SummaryRow, summary_of
from tooleval_nb.scoring.case import score_case
from tooleval_nb.suite import EvalCase, Suite, Tool
from tooleval_nb.toolcall import ToolCall


@pytest.fixture
def case() -> EvalCase:
    tool = Tool.create("get_weather", "Weather", {"city": {"type": "string"}}, ["city"])
    suite = Suite(
        name="w",
        tools=[tool],
        cases=[EvalCase(prompt="weather in Paris", expected_tool="get_weather")],
    )
    return suite.cases[0]


def _row(case: EvalCase, outcome: CaseOutcome, score) -> ResultRow:
    return build_record(
        run_id="run_1",
        label="m",
        mode="native",
        model_index=0,
        case=case,
        case_index=0,
        sample=0,
        seed=None,
        outcome=outcome,
        score=score,
    )


def test_the_row_is_typed_and_is_the_stored_tuple(case: EvalCase) -> None:
    call = ToolCall.create("get_weather", {"city": "Paris"}, id="c1")
    outcome = CaseOutcome(tool_calls=[call], latency_ms=12.34567, tries=1)
    row = _row(case, outcome, score_case(case, [call]))
    assert isinstance(row, ResultRow) and ResultRow._fields == RESULT_FIELDS
    assert (row.case_id, row.passed, row.failure_mode, row.latency_ms) == (
        case.id,
        1,
        None,
        12.346,
    )
    assert json.loads(row.detail or "")["score"]["passed"] is True


def test_the_failure_mode_is_the_scorers(case: EvalCase) -> None:
    """A model call that failed: the scorer says ``api_error`` (nothing for the caller to
    override); twice, the second with another error, to show nothing is carried over."""
    for error in ("HTTP 500", "timed out"):
        outcome = CaseOutcome(error=error, error_type="ModelError", tries=3)
        score = score_case(case, [], error=error, error_type="ModelError")
        row = _row(case, outcome, score)
        assert (row.failure_mode, row.passed, row.error) == ("api_error", 0, error)


def test_an_unscored_case_has_no_failure_mode(case: EvalCase) -> None:
    """Scoring raised: no scorer judged the case, so no failure mode; scores 0, not passed."""
    outcome = CaseOutcome(error="scoring failed: bad grader", error_type="ValueError")
    row = _row(case, outcome, None)
    assert row.failure_mode is None and row.passed == 0
    assert (row.tool_score, row.overall, row.param_score) == (0.0, 0.0, None)
    assert json.loads(row.detail or "")["score"] is None


def test_a_models_summary_is_typed() -> None:
    assert SUMMARY_FIELDS == SummaryRow._fields
    rows = [
        SummaryRow(
            passed=1, error=None, tool_score=1.0, param_score=1.0, overall=1.0, latency_ms=10.0
        ),
        SummaryRow(
            passed=0, error="429", tool_score=0.0, param_score=None, overall=0.0, latency_ms=None
        ),
    ]
    summary = summary_of(rows)
    assert isinstance(summary, ModelSummary)
    assert (summary.n_cases, summary.n_passed, summary.n_errored) == (2, 1, 1)
    assert summary.latency_mean_ms == 10.0 and summary.overall == 0.5
    # the event's payload: these keys in this order (the golden events hold them so)
    assert list(summary.as_data()) == [
        "n_cases",
        "n_passed",
        "n_failed",
        "n_errored",
        "pass_rate",
        "tool_score",
        "param_score",
        "overall",
        "latency_mean_ms",
    ]
    empty = summary_of([])
    assert empty.n_cases == 0 and empty.overall is None and empty.latency_mean_ms is None
