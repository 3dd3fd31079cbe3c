"""The seed formulas (tool selection, parameter accuracy, overall) and call pairing."""

from __future__ import annotations

import itertools
import random

import pytest

from tooleval_nb.scoring import (
    best_assignment,
    compute_overall,
    score_calls,
    score_params,
    score_tool_selection,
)
from tooleval_nb.suite import ScoringConfig, Tool
from tooleval_nb.toolcall import ToolCall


@pytest.mark.parametrize(
    ("expected", "called", "score"),
    [
        ("get_weather", ["get_weather"], 1.0),
        ("get_weather", ["GET_Weather"], 1.0),
        ("get_weather", ["search"], 0.0),
        ("get_weather", [], 0.0),
        (["search", "web_search"], ["web_search"], 1.0),
        (["search", "web_search"], ["lookup"], 0.0),
        ("get_weather", ["search", "get_weather"], 1.0),
        (None, [], 1.0),
        (None, ["get_weather"], 0.0),
    ],
    ids=[
        "same",
        "case-insensitive",
        "wrong",
        "nothing-called",
        "acceptable-list",
        "not-in-list",
        "among-several",
        "none-expected-none-called",
        "none-expected-called",
    ],
)
def test_tool_selection(expected, called, score):
    assert score_tool_selection(expected, called) == score


def test_tool_selection_accepts_call_objects():
    calls = [ToolCall.create("Get_Weather", {"city": "Paris"})]
    assert score_tool_selection("get_weather", calls) == 1.0
    assert score_tool_selection("get_weather", [{"name": "x", "arguments": {}}]) == 0.0


@pytest.mark.parametrize(
    ("expected", "actual", "score"),
    [
        (None, {"city": "Paris"}, None),
        ({}, {"city": "Paris"}, 1.0),
        ({}, {}, 1.0),
        ({"city": "Paris"}, {"city": "paris"}, 1.0),
        ({"city": "Paris"}, {"city": "Paris "}, 0.0),
        ({"city": "Paris", "days": 3}, {"city": "Paris", "days": 3.0}, 1.0),
        ({"city": "Paris", "days": 3}, {"city": "Paris", "days": "3"}, 0.5),
        ({"city": "Paris", "units": "celsius"}, {"city": "Paris"}, 0.5),
        ({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 0, "c": 0, "d": 9}, 1 / 3),
        ({"flag": True}, {"flag": 1}, 0.0),
        ({"tags": ["A", "b"]}, {"tags": ["a", "B"]}, 1.0),
        ({"city": "Paris"}, None, 0.0),
    ],
    ids=[
        "null-not-scored",
        "empty-is-one",
        "empty-empty",
        "case-insensitive-string",
        "exact-no-strip",
        "float-comparison",
        "numeric-string-is-not-number",
        "missing-key",
        "partial-thirds",
        "bool-is-not-int",
        "lists-itemwise",
        "no-arguments",
    ],
)
def test_params_seed_formula(expected, actual, score):
    result = score_params(expected, actual)
    if score is None:
        assert result is None
    else:
        assert result == pytest.approx(score)


def test_params_mode_from_config_and_per_param_override():
    cfg = ScoringConfig(mode="contains", param_modes={"n": "numeric_tolerance"}, epsilon=0.5)
    assert score_params({"q": "paris"}, {"q": "Paris, France"}, "exact", cfg) == 1.0
    assert score_params({"n": 1.0}, {"n": 1.4}, "exact", cfg) == 1.0
    assert score_params({"n": 1.0}, {"n": 1.6}, "exact", cfg) == 0.0


@pytest.mark.parametrize(
    ("tool", "param", "overall"),
    [
        (1.0, 1.0, 1.0),
        (1.0, 0.0, 0.6),
        (0.0, 1.0, 0.4),
        (1.0, 0.5, 0.8),
        (1.0, None, 1.0),
        (0.0, None, 0.0),
    ],
    ids=["all", "tool-only", "param-only", "half-params", "params-not-scored", "nothing"],
)
def test_overall_weights(tool, param, overall):
    assert compute_overall(tool, param) == pytest.approx(overall)


def _brute(matrix):
    n, m = len(matrix), len(matrix[0])
    best = -1.0
    if n <= m:
        for cols in itertools.permutations(range(m), n):
            best = max(best, sum(matrix[i][c] for i, c in enumerate(cols)))
    else:
        for rows in itertools.permutations(range(n), m):
            best = max(best, sum(matrix[r][j] for j, r in enumerate(rows)))
    return best


@pytest.mark.parametrize(
    "shape",
    [(1, 1), (2, 2), (3, 3), (4, 4), (2, 4), (4, 2), (5, 3), (3, 5)],
    ids=lambda s: f"{s[0]}x{s[1]}",
)
def test_assignment_is_optimal(shape):
    rng = random.Random(hash(shape) & 0xFFFF)
    for _ in range(30):
        matrix = [
            [rng.choice([0.0, 0.4, 0.6, 0.8, 1.0, rng.random()]) for _ in range(shape[1])]
            for _ in range(shape[0])
        ]
        pairs = best_assignment(matrix)
        cols = [c for c in pairs if c is not None]
        assert len(cols) == len(set(cols)) == min(shape)
        total = sum(matrix[i][c] for i, c in enumerate(pairs) if c is not None)
        assert total == pytest.approx(_brute(matrix))


def test_one_expected_call_takes_the_first_of_its_best_calls():
    """The one-row shortcut pairs as the Hungarian pass does: of equal best calls, the first
    (which call is left over decides ``extra_calls``)."""
    assert best_assignment([[0.5, 1.0, 1.0]]) == [1]
    assert best_assignment([[0.0, 0.0]]) == [0]
    rng = random.Random(7)
    for _ in range(200):
        row = [rng.choice([0.0, 0.5, 1.0]) for _ in range(rng.randint(1, 6))]
        assert best_assignment([row]) == [row.index(max(row))]


def test_optimal_pairing_beats_greedy():
    """Greedy (each expected call takes its best free call, in order) loses here."""
    expected = [
        (["get_weather"], {"city": ["Paris"]}),
        (["get_weather"], {"city": ["Paris"], "units": ["celsius"]}),
    ]
    actual = [
        ToolCall.create("get_weather", {"city": "Paris", "units": "celsius"}),
        ToolCall.create("get_weather", {"city": "Paris", "units": "kelvin"}),
    ]
    # greedy: expected 0 takes call 0 (1.0), expected 1 gets call 1 (0.6 + 0.4 * 0.5 = 0.8)
    # optimal: expected 0 -> call 1 (1.0), expected 1 -> call 0 (1.0)
    scores, extra = score_calls(expected, actual)
    assert [s.actual_index for s in scores] == [1, 0]
    assert [s.overall for s in scores] == [1.0, 1.0]
    assert extra == []
    greedy_total = 1.0 + (0.6 + 0.4 * 0.5)
    assert sum(s.overall for s in scores) > greedy_total


def test_parallel_partial_credit_missing_and_extra():
    tools = [
        Tool.create("get_weather", parameters={"city": {"type": "string"}}, required=["city"]),
        Tool.create("get_time", parameters={"tz": {"type": "string"}}),
    ]
    expected = [
        (["get_weather"], {"city": ["Paris"]}),
        (["get_weather"], {"city": ["Rome"]}),
        (["get_time"], {"tz": ["CET"]}),
    ]
    actual = [
        ToolCall.create("get_weather", {"city": "rome"}),
        ToolCall.create("get_weather", {"city": "Berlin", "wind": True}),
        ToolCall.create("lookup", {"q": "x"}),
    ]
    scores, extra = score_calls(expected, actual, tools=tools)
    by_index = {s.index: s for s in scores}
    assert by_index[1].actual_index == 0 and by_index[1].overall == 1.0
    assert by_index[0].actual_index == 1 and by_index[0].overall == pytest.approx(0.6)
    assert by_index[0].hallucinated_args == ["wind"]
    assert by_index[0].params[0].problem == "wrong_value"
    assert by_index[2].actual_index is None and by_index[2].tool_score == 0.0
    assert by_index[2].params[0].problem == "missing" and by_index[2].param_score == 0.0
    assert extra == [2]


def test_optional_parameter_may_be_left_out():
    expected = [(["f"], {"a": [1], "b": ["", 2]})]
    scores, _ = score_calls(expected, [ToolCall.create("f", {"a": 1})])
    assert scores[0].param_score == 1.0
    scores, _ = score_calls(expected, [ToolCall.create("f", {"a": 1, "b": 3})])
    assert scores[0].param_score == 0.5
