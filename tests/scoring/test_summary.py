"""The per-model summary, one definition (``scoring/summary.py``): errors stay in the
denominator; the store's rows and a results frame give the same summary; no rows, no rates."""

from __future__ import annotations

import pandas as pd
import pytest

from tooleval_nb.models import ModelReply
from tooleval_nb.scoring import score_cases, summarize_rows, summarize_scores
from tooleval_nb.toolcall import ToolCall

from .test_frame import SUITE


def test_summary_counts_errors_as_failures_in_the_denominator():
    ok = score_cases(
        SUITE,
        {
            "paris": [ToolCall.create("get_weather", {"city": "Paris"})],
            "tokyo": [ToolCall.create("get_weather", {"city": "Tokyo"})],
            "joke": [],
        },
        model="good",
    )
    flaky = score_cases(
        SUITE,
        {
            "paris": [ToolCall.create("get_weather", {"city": "Paris"})],
            "tokyo": ModelReply(error="HTTP 500", error_type="ModelServerError"),
            "joke": ModelReply(error="timeout", error_type="ModelTimeoutError"),
        },
        model="flaky",
    )
    summary = summarize_scores(pd.concat([ok, flaky], ignore_index=True))
    assert list(summary.columns) == [
        "model",
        "n_cases",
        "n_passed",
        "n_failed",
        "n_errored",
        "pass_rate",
        "tool_score",
        "param_score",
        "overall",
    ]
    good, bad = summary.iloc[0], summary.iloc[1]
    assert (good.n_cases, good.n_passed, good.n_failed, good.n_errored) == (3, 3, 0, 0)
    assert good.pass_rate == 1.0 and good.overall == 1.0
    assert (bad.model, bad.n_cases, bad.n_passed, bad.n_failed, bad.n_errored) == (
        "flaky",
        3,
        1,
        0,
        2,
    )
    assert bad.pass_rate == pytest.approx(1 / 3)
    assert bad.overall == pytest.approx(1 / 3)  # the errored no-call case scores 0, not 1
    assert bad.param_score == pytest.approx(0.5)


def test_the_summary_of_stored_rows_is_the_frames_summary():
    """``summarize_rows`` over ``(passed, error, tool_score, param_score, overall)`` rows, as
    the run store holds them (0/1, None, '' for no error), gives what ``summarize_scores``
    gives for the same results as a DataFrame (NaN, booleans): one definition, two inputs."""
    rows = [
        (1, None, 1.0, 1.0, 1.0),
        (0, "", 0.5, None, 0.4),
        (0, "HTTP 500", 0.7, 0.3, 0.6),
        (None, None, None, None, None),
        (1, "timeout", 1.0, None, 1.0),
    ]
    frame = pd.DataFrame(
        rows, columns=["passed", "error", "tool_score", "param_score", "overall"]
    ).assign(model="m")
    expected = summarize_scores(frame).iloc[0].drop("model").to_dict()
    got = summarize_rows(rows)
    assert got == pytest.approx(expected)
    # errored rows score 0 (a scored parameter of one counts as 0); unscored parameters stay out
    assert (got["n_cases"], got["n_passed"], got["n_failed"], got["n_errored"]) == (5, 1, 2, 2)
    assert got["tool_score"] == pytest.approx(1.5 / 5) and got["overall"] == pytest.approx(1.4 / 5)
    assert got["param_score"] == pytest.approx(1.0 / 2)
    assert summarize_rows([]) == {
        "n_cases": 0,
        "n_passed": 0,
        "n_failed": 0,
        "n_errored": 0,
        "pass_rate": None,
        "tool_score": None,
        "param_score": None,
        "overall": None,
    }
