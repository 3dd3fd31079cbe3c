"""The multi-turn formula: completion, efficiency, redundancy, detours, clamping."""

from __future__ import annotations

import pytest

from tooleval_nb.scoring import (
    detour_penalty,
    efficiency,
    multi_turn_overall,
    redundancy_penalty,
    score_case,
)
from tooleval_nb.suite import EvalCase
from tooleval_nb.toolcall import ToolCall


def call(name, **args):
    return ToolCall.create(name, args)


def chain_case(**kw):
    base = dict(
        prompt="Book a flight from NYC to London",
        multi_turn=True,
        expected_tool="book_flight",
        expected_params={"origin": "NYC", "destination": "London"},
        optimal_hops=2,
        valid_prerequisites=["search_flights", "get_availability"],
    )
    return EvalCase(**{**base, **kw})


@pytest.mark.parametrize(
    ("optimal", "actual", "value"),
    [
        (2, 2, 1.0),
        (2, 4, 0.5),
        (3, 2, 1.0),
        (2, 0, 0.0),
        (None, 3, 1.0),
        (1, 3, 1 / 3),
    ],
    ids=["optimal", "twice-as-long", "capped-at-one", "no-calls", "unset", "a-third"],
)
def test_efficiency(optimal, actual, value):
    assert efficiency(optimal, actual) == pytest.approx(value)


def test_redundancy_counts_consecutive_identical_calls_only():
    calls = [
        call("a", x=1),
        call("a", x=1),
        call("a", x=1),
        call("b"),
        call("a", x=1),
        call("a", x=2),
    ]
    assert redundancy_penalty(calls) == pytest.approx(0.2)


def test_detour_counts_calls_outside_prerequisites():
    calls = [call("search"), call("weather"), call("book"), call("news")]
    assert detour_penalty(calls, ["search"], ["book"]) == pytest.approx(0.2)
    assert detour_penalty(calls, None, ["book"]) == 0.0
    assert detour_penalty(calls, [], ["BOOK"]) == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("c", "e", "r", "d", "value"),
    [
        (1.0, 1.0, 0.0, 0.0, 1.0),
        (1.0, 0.5, 0.1, 0.0, 0.4),
        (0.6, 1.0, 0.3, 0.5, 0.0),
        (1.0, 1.0, -0.5, 0.0, 1.0),
    ],
    ids=["perfect", "penalised", "clamped-low", "clamped-high"],
)
def test_overall_formula(c, e, r, d, value):
    assert multi_turn_overall(c, e, r, d) == pytest.approx(value)


def test_optimal_chain():
    s = score_case(
        chain_case(),
        [
            call("search_flights", origin="NYC"),
            call("book_flight", origin="NYC", destination="London"),
        ],
    )
    assert (s.completion, s.efficiency, s.redundancy_penalty, s.detour_penalty) == (1.0, 1.0, 0, 0)
    assert s.overall == 1.0 and s.passed and s.multi_turn and s.n_hops == 2
    assert [t.role for t in s.turns] == ["prerequisite", "final"]


def test_long_chain_with_redundancy_and_detour():
    calls = [
        call("search_flights", origin="NYC"),
        call("search_flights", origin="NYC"),
        call("get_weather", city="London"),
        call("book_flight", origin="NYC", destination="London"),
    ]
    s = score_case(chain_case(), calls)
    assert s.completion == 1.0
    assert s.efficiency == pytest.approx(0.5)
    assert s.redundancy_penalty == pytest.approx(0.1)
    assert s.detour_penalty == pytest.approx(0.1)
    assert s.overall == pytest.approx(1.0 * 0.5 - 0.1 - 0.1)
    assert s.passed  # the task got done; the overall carries the inefficiency
    assert [t.role for t in s.turns] == ["prerequisite", "prerequisite", "detour", "final"]
    assert [t.redundant for t in s.turns] == [False, True, False, False]


def test_final_call_with_wrong_parameter():
    s = score_case(
        chain_case(),
        [call("search_flights"), call("book_flight", origin="NYC", destination="Paris")],
    )
    assert s.completion == pytest.approx(0.6 + 0.4 * 0.5)
    assert s.overall == pytest.approx(0.8)
    assert not s.passed and s.failure_mode == "wrong_value"


def test_final_tool_never_reached():
    s = score_case(chain_case(), [call("search_flights"), call("get_availability")])
    assert s.completion == pytest.approx(0.0)
    assert s.overall == 0.0 and s.failure_mode == "wrong_tool"
    assert s.missing_calls == ["book_flight"]


def test_no_calls_at_all():
    s = score_case(chain_case(), [])
    assert (s.completion, s.efficiency, s.overall) == (0.0, 0.0, 0.0)
    assert s.failure_mode == "no_call"


def test_penalties_clamp_overall_at_zero():
    calls = [call("x")] * 6 + [call("book_flight", origin="NYC", destination="London")]
    s = score_case(chain_case(optimal_hops=7, max_rounds=10), calls)
    assert s.redundancy_penalty == pytest.approx(0.5)
    assert s.detour_penalty == pytest.approx(0.6)
    assert s.overall == 0.0
