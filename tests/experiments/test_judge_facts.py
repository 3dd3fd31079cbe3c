"""The facts layer of judge reports: counts, shares, CIs from a results frame (no LLM)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tooleval_nb.experiments.calls import actual_calls_of, expected_calls_of
from tooleval_nb.experiments.judge.facts import compute_facts
from tooleval_nb.suite import Suite, Tool


def call(name: str, **args) -> dict:
    return {
        "id": "call_x",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def row(
    case_id: str,
    *,
    calls: list,
    expected: dict,
    passed: bool,
    mode: str | None,
    overall: float,
    category: str = "weather",
    tags: list | None = None,
    error: str | None = None,
    sample: int = 0,
    run_id: str = "r1",
) -> dict:
    return {
        "run_id": run_id,
        "model": "m",
        "case_id": case_id,
        "category": category,
        "tags": json.dumps(tags or ["t"]),
        "prompt": f"prompt {case_id}",
        "expected": json.dumps(expected),
        "tool_calls": json.dumps(calls),
        "passed": int(passed),
        "overall": overall,
        "failure_mode": mode,
        "error": error,
        "latency_ms": 100.0 + len(case_id),
        "prompt_tokens": 50,
        "completion_tokens": 10,
        "sample": sample,
    }


W = {"expected_tool": "get_weather", "expected_params": {"city": "Paris", "days": 3}}


@pytest.fixture
def results() -> pd.DataFrame:
    return pd.DataFrame(
        [
            row(
                "ok1",
                calls=[call("get_weather", city="Paris", days=3)],
                expected=W,
                passed=True,
                mode=None,
                overall=1.0,
            ),
            row(
                "ok2",
                calls=[call("get_weather", city="paris", days=3)],
                expected=W,
                passed=True,
                mode=None,
                overall=1.0,
                tags=["t", "u"],
            ),
            row(
                "val",
                calls=[call("get_weather", city="Rome", days=3)],
                expected=W,
                passed=False,
                mode="wrong_value",
                overall=0.75,
            ),
            row(
                "typ",
                calls=[call("get_weather", city="Paris", days="3")],
                expected=W,
                passed=False,
                mode="wrong_type",
                overall=0.75,
            ),
            row(
                "hal",
                calls=[call("get_weather", city="Paris", days=3, units="c")],
                expected=W,
                passed=False,
                mode="hallucinated_arg",
                overall=0.9,
            ),
            row(
                "mis",
                calls=[call("get_weather", city="Paris")],
                expected=W,
                passed=False,
                mode="missing_required_arg",
                overall=0.5,
            ),
            row(
                "none",
                calls=[],
                expected=W,
                passed=False,
                mode="no_call",
                overall=0.0,
                category="travel",
            ),
            row(
                "err",
                calls=[],
                expected=W,
                passed=False,
                mode=None,
                overall=0.0,
                error="HTTP 500",
                category="travel",
            ),
            row(
                "irr",
                calls=[call("get_weather", city="X")],
                expected={},
                passed=False,
                mode="spurious_call",
                overall=0.0,
                category="irrelevance",
            ),
        ]
    )


def test_summary_numbers(results):
    facts = compute_facts(results)
    s = facts.summary
    assert s["n_rows"] == 9 and s["n_cases"] == 9 and s["n_passed"] == 2
    assert s["score"] == pytest.approx(results["overall"].mean())
    assert s["score_ci_low"] < s["score"] < s["score_ci_high"]
    assert s["pass_rate"] == pytest.approx(2 / 9) and s["n_errored"] == 1
    assert s["latency_p50_ms"] == pytest.approx(103.0) and s["run_id"] == "r1"


def test_failure_taxonomy(results):
    fm = compute_facts(results).failure_modes.set_index("failure_mode")
    assert set(fm.index) == {
        "wrong_value",
        "wrong_type",
        "hallucinated_arg",
        "missing_required_arg",
        "no_call",
        "api_error",
        "spurious_call",
    }
    assert (fm["count"] == 1).all()
    assert fm.loc["api_error", "example_case_ids"] == ["err"]
    assert fm["share_of_failures"].sum() == pytest.approx(1.0)


def test_param_errors_with_schema(results):
    tool = Tool.create(
        "get_weather", "w", {"city": {"type": "string"}, "days": {"type": "integer"}}, ["city"]
    )
    suite = Suite(name="s", tools=[tool])
    pe = compute_facts(results, suite=suite).param_errors.set_index(["tool", "param"])
    assert pe.loc[("get_weather", "city"), "wrong_value"] == 1
    assert "Rome" in pe.loc[("get_weather", "city"), "top_pairs"]
    assert pe.loc[("get_weather", "days"), "wrong_type"] == 1
    assert pe.loc[("get_weather", "days"), "missing"] == 1
    assert pe.loc[("get_weather", "units"), "hallucinated"] == 1


def test_breakdowns_and_worst(results):
    facts = compute_facts(results)
    cat = facts.by_category.set_index("category")
    assert cat.loc["travel", "n"] == 2 and cat.loc["travel", "score"] == 0.0
    tool = facts.by_tool.set_index("tool")
    assert tool.loc["(no call expected)", "n"] == 1
    tag = facts.by_tag.set_index("tag")
    assert tag.loc["u", "n"] == 1 and tag.loc["t", "n"] == 9
    assert set(facts.worst_cases["case_id"][:3]) == {"none", "err", "irr"}
    assert "ok1" not in set(facts.worst_cases["case_id"])


def test_flaky_cases_with_repeats(results):
    again = results.assign(sample=1)
    again.loc[again["case_id"] == "val", ["passed", "overall", "failure_mode"]] = [1, 1.0, None]
    facts = compute_facts(pd.concat([results, again]))
    assert list(facts.flaky["case_id"]) == ["val"]
    assert facts.summary["n_samples"] == 2


def test_compare_mode_fixed_broken_and_shift(results):
    before = results.copy()
    after = results.copy()
    after.loc[after["case_id"] == "none", ["passed", "overall", "failure_mode"]] = [1, 1.0, None]
    after.loc[after["case_id"] == "ok1", ["passed", "overall", "failure_mode"]] = [
        0,
        0.5,
        "wrong_value",
    ]
    facts = compute_facts(after, compare_to=before)
    assert facts.comparison["fixed"] == ["none"] and facts.comparison["broken"] == ["ok1"]
    shift = facts.shift.set_index("failure_mode")
    assert shift.loc["no_call", "change"] == -1 and shift.loc["wrong_value", "change"] == 1
    assert facts.comparison["n_common"] == 9
    json.dumps(facts.to_dict())  # JSON-ready


@pytest.mark.parametrize(
    ("expected", "want"),
    [
        (
            {"expected_tool": ["a", "b"], "expected_params": {"x": 1}},
            [{"name": "a", "names": ["a", "b"], "arguments": {"x": [1]}}],
        ),
        (
            {"expected_calls": [{"name": "f", "arguments": {"y": [1, 2]}}]},
            [{"name": "f", "names": ["f"], "arguments": {"y": [1, 2]}}],
        ),
        ({}, []),
        ("not json", []),
    ],
    ids=["tool-list", "expected-calls", "none", "garbage"],
)
def test_expected_calls_of(expected, want):
    text = expected if isinstance(expected, str) else json.dumps(expected)
    assert expected_calls_of(text) == want


def test_actual_calls_of_keeps_bad_arguments_as_none():
    text = json.dumps(
        [
            {"function": {"name": "f", "arguments": "{bad"}},
            {"function": {"name": "g", "arguments": ""}},
        ]
    )
    assert actual_calls_of(text) == [
        {"name": "f", "arguments": None},
        {"name": "g", "arguments": {}},
    ]
