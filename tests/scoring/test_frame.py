"""Batch scoring as DataFrames (their per-model summary: test_summary.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from tooleval_nb.models import ModelReply
from tooleval_nb.scoring import SCORE_COLUMNS, score_cases, score_cases_async
from tooleval_nb.suite import EvalCase, Suite, Tool
from tooleval_nb.toolcall import ToolCall

SUITE = Suite(
    name="weather",
    tools=[Tool.create("get_weather", parameters={"city": {"type": "string"}}, required=["city"])],
    cases=[
        EvalCase(
            id="paris",
            prompt="Weather in Paris?",
            expected_tool="get_weather",
            expected_params={"city": "Paris"},
        ),
        EvalCase(
            id="tokyo",
            prompt="Weather in Tokyo?",
            expected_tool="get_weather",
            expected_params={"city": "Tokyo"},
        ),
        EvalCase(id="joke", prompt="Tell me a joke", expected_tool=None),
    ],
)


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
