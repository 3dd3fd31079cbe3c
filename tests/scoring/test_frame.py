"""Batch scoring as DataFrames and the per-model summary (errors stay in the denominator)."""

from __future__ import annotations

import pandas as pd
import pytest

from tooleval_nb.models import ModelReply
from tooleval_nb.scoring import SCORE_COLUMNS, score_cases, score_cases_async, summarize_scores
from tooleval_nb.suite import EvalCase, Suite, Tool
from tooleval_nb.toolcall import ToolCall

SUITE = Suite(name="weather", tools=[
    Tool.create("get_weather", parameters={"city": {"type": "string"}}, required=["city"])],
    cases=[
        EvalCase(id="paris", prompt="Weather in Paris?", expected_tool="get_weather",
                 expected_params={"city": "Paris"}),
        EvalCase(id="tokyo", prompt="Weather in Tokyo?", expected_tool="get_weather",
                 expected_params={"city": "Tokyo"}),
        EvalCase(id="joke", prompt="Tell me a joke", expected_tool=None),
    ])


def test_score_cases_one_row_per_case_with_every_column():
    answers = {
        "paris": ModelReply(tool_calls=[ToolCall.create("get_weather", {"city": "Paris"})]),
        "tokyo": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Kyoto"}}]},
        "joke": ModelReply(content="Why did..."),
    }
    df = score_cases(SUITE, answers, model="m1")
    assert list(df.columns) == ["model", *SCORE_COLUMNS]
    assert list(df["case_id"]) == ["paris", "tokyo", "joke"]
    assert list(df["passed"]) == [True, False, True]
    assert list(df["overall"]) == pytest.approx([1.0, 0.6, 1.0])
    assert list(df["bfcl_pass"]) == [True, False, True]
    assert df.loc[1, "failure_mode"] == "wrong_value"


async def test_score_cases_async_matches_sync():
    answers = [[ToolCall.create("get_weather", {"city": "paris"})], [], []]
    a = score_cases(SUITE, answers, model="m")
    b = await score_cases_async(SUITE, answers, model="m")
    pd.testing.assert_frame_equal(a, b)


def test_summary_counts_errors_as_failures_in_the_denominator():
    ok = score_cases(SUITE, {
        "paris": [ToolCall.create("get_weather", {"city": "Paris"})],
        "tokyo": [ToolCall.create("get_weather", {"city": "Tokyo"})], "joke": []}, model="good")
    flaky = score_cases(SUITE, {
        "paris": [ToolCall.create("get_weather", {"city": "Paris"})],
        "tokyo": ModelReply(error="HTTP 500", error_type="ModelServerError"),
        "joke": ModelReply(error="timeout", error_type="ModelTimeoutError")}, model="flaky")
    summary = summarize_scores(pd.concat([ok, flaky], ignore_index=True))
    assert list(summary.columns) == ["model", "n_cases", "n_passed", "n_failed", "n_errored",
                                     "pass_rate", "tool_score", "param_score", "overall"]
    good, bad = summary.iloc[0], summary.iloc[1]
    assert (good.n_cases, good.n_passed, good.n_failed, good.n_errored) == (3, 3, 0, 0)
    assert good.pass_rate == 1.0 and good.overall == 1.0
    assert (bad.model, bad.n_cases, bad.n_passed, bad.n_failed, bad.n_errored) == \
        ("flaky", 3, 1, 0, 2)
    assert bad.pass_rate == pytest.approx(1 / 3)
    assert bad.overall == pytest.approx(1 / 3)  # the errored no-call case scores 0, not 1
    assert bad.param_score == pytest.approx(0.5)


def test_the_summary_of_stored_rows_is_the_frames_summary():
    """``summarize_rows`` over ``(passed, error, tool_score, param_score, overall)`` rows, as
    the run store holds them (0/1, None, '' for no error), gives what ``summarize_scores``
    gives for the same results as a DataFrame (NaN, booleans): one definition, two inputs."""
    from tooleval_nb.scoring import summarize_rows

    rows = [(1, None, 1.0, 1.0, 1.0), (0, "", 0.5, None, 0.4), (0, "HTTP 500", 0.7, 0.3, 0.6),
            (None, None, None, None, None), (1, "timeout", 1.0, None, 1.0)]
    frame = pd.DataFrame(rows, columns=["passed", "error", "tool_score", "param_score",
                                        "overall"]).assign(model="m")
    expected = summarize_scores(frame).iloc[0].drop("model").to_dict()
    got = summarize_rows(rows)
    assert got == pytest.approx(expected)
    # errored rows score 0 (a scored parameter of one counts as 0); unscored parameters stay out
    assert (got["n_cases"], got["n_passed"], got["n_failed"], got["n_errored"]) == (5, 1, 2, 2)
    assert got["tool_score"] == pytest.approx(1.5 / 5) and got["overall"] == pytest.approx(1.4 / 5)
    assert got["param_score"] == pytest.approx(1.0 / 2)
    assert summarize_rows([]) == {"n_cases": 0, "n_passed": 0, "n_failed": 0, "n_errored": 0,
                                  "pass_rate": None, "tool_score": None, "param_score": None,
                                  "overall": None}
