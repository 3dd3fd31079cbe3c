"""The explorer's pure logic: filters, the call diff and the detail view."""

from __future__ import annotations

import json

import pytest

from tooleval_nb.widgets.exploring import (
    ALL,
    call_diff,
    detail_html,
    filter_results,
    raw_outputs,
    row_label,
)


def calls(*items) -> str:
    return json.dumps(
        [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(items)
        ]
    )


def test_diff_marks_each_parameter():
    expected = json.dumps(
        {"expected_tool": "get_weather", "expected_params": {"city": "Paris", "units": "celsius"}}
    )
    actual = calls(("get_weather", {"city": "paris ", "units": "kelvin", "days": 3}))
    (diff,) = call_diff(expected, actual)
    status = {p.name: p.status for p in diff.params}
    assert status == {"city": "ok", "units": "differs", "days": "extra"}
    assert not diff.ok


def test_diff_pairs_by_name_and_reports_missing_and_extra_calls():
    expected = json.dumps(
        {
            "expected_calls": [
                {"name": "a", "arguments": {"x": [1]}},
                {"name": "b", "arguments": {"y": ["", 2]}},
            ]
        }
    )
    actual = calls(("b", {}), ("c", {"z": 1}), ("a", {"x": 1.0}))
    diffs = call_diff(expected, actual)
    assert [(d.expected, d.actual) for d in diffs] == [
        ("a(x=1)", "a(x=1.0)"),
        ("b(y=2 (optional))", "b()"),
        (None, "c(z=1)"),
    ]
    assert diffs[0].ok and diffs[1].ok  # y may be omitted
    missing = call_diff(json.dumps({"expected_tool": "a", "expected_params": {"x": 1}}), "[]")
    assert missing[0].actual is None and missing[0].params == []


def test_diff_of_nothing_expected_and_nothing_called():
    assert call_diff(json.dumps({"expected_tool": None}), "[]") == []


@pytest.mark.parametrize(
    "outcome, expected",
    [
        ("all", {"paris", "milan_for_rome", "units", "chat"}),
        ("passed", {"paris", "chat"}),
        ("failed", {"milan_for_rome", "units"}),
        ("errored", set()),
    ],
    ids=["all", "passed", "failed", "errored"],
)
def test_filter_by_outcome(finished_run, outcome, expected):
    df = filter_results(finished_run.results_df(), outcome=outcome)
    assert set(df["case_id"]) == expected


def test_filter_by_tag_and_model(finished_run):
    df = finished_run.results_df()
    assert set(filter_results(df, tag="hard")["case_id"]) == {"milan_for_rome", "units"}
    assert filter_results(df, model="nobody").empty
    assert len(filter_results(df, model="openai/fake", tag=ALL)) == len(df)


def test_errored_rows_are_their_own_outcome(finished_run):
    df = finished_run.results_df()
    df.loc[0, "error"] = "ModelTimeoutError: timed out"
    assert list(filter_results(df, outcome="errored")["case_id"]) == [df.loc[0, "case_id"]]
    assert row_label(filter_results(df).iloc[0].to_dict()).startswith("! ")


def test_detail_html_highlights_the_difference(finished_run):
    df = filter_results(finished_run.results_df())
    row = df[df.case_id == "milan_for_rome"].iloc[0].to_dict()
    detail = finished_run.detail("milan_for_rome", row["model"])
    page = detail_html(row, detail | {"parse_problems": ["unclosed <tool_call>"]})
    assert "param-differs" in page and "&quot;Rome&quot;" in page and "&quot;Milan&quot;" in page
    assert "get_weather city Milan" in page  # the prompt
    assert "raw output" in page and "&lt;tool_call&gt;" in page  # escaped parse problem
    assert "latency ms" in page and "prompt tokens" in page
    assert raw_outputs(detail) and "get_weather" in raw_outputs(detail)[0]
