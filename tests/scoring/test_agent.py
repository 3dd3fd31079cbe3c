"""Seed-002 expectations and trajectory matching."""

from __future__ import annotations

import pytest

from tooleval_nb.errors import RegexTimeoutError
from tooleval_nb.scoring import Trace, check_expectations, score_case, trajectory_match
from tooleval_nb.suite import EvalCase, Expectations, ReferenceTool, ScoringConfig
from tooleval_nb.toolcall import ToolCall


def call(name, **args):
    return ToolCall.create(name, args)


TRACE = Trace(
    input="Book me a flight from NYC to LA on March 15th",
    output="Booking confirmed. Reference: ABC123, NYC to LA on March 15.",
    tool_calls=[
        call("search_flights", origin="NYC"),
        call("select_flight", id="AA1"),
        call("book_flight", id="AA1"),
    ],
    status="success",
)


@pytest.mark.parametrize(
    ("field", "value", "ok"),
    [
        ("tools_called", ["book_flight", "search_flights"], True),
        ("tools_called", ["Book_Flight"], True),
        ("tools_called", ["book_flight", "charge"], False),
        ("tools_not_called", ["delete_booking"], True),
        ("tools_not_called", ["select_flight"], False),
        ("tool_call_order", ["search_flights", "book_flight"], True),
        ("tool_call_order", ["book_flight", "search_flights"], False),
        ("tool_call_order", ["search_flights", "select_flight", "book_flight"], True),
        ("output_contains", ["confirmed", "march 15", "nyc to la"], True),
        ("output_contains", ["cancelled"], False),
        ("output_not_contains", ["error", "failed"], True),
        ("output_not_contains", ["REFERENCE"], False),
        ("output_equals", "Booking confirmed. Reference: ABC123, NYC to LA on March 15.  ", True),
        ("output_equals", "Booking confirmed.", False),
        ("output_matches", r"Reference: [A-Z]{3}\d{3}", True),
        ("output_matches", r"^Reference", False),
        ("max_steps", 3, True),
        ("max_steps", 2, False),
        ("min_steps", 3, True),
        ("min_steps", 4, False),
        ("task_completed", True, True),
        ("task_completed", False, False),
    ],
    ids=lambda v: str(v)[:24],
)
def test_expectation(field, value, ok):
    results = check_expectations(Expectations(**{field: value}), TRACE)
    assert len(results) == 1 and results[0].name == field
    assert results[0].passed is ok
    assert (results[0].reason == "") is ok


def test_task_completed_reads_status():
    failed = TRACE.model_copy(update={"status": "error"})
    assert not check_expectations(Expectations(task_completed=True), failed)[0].passed
    assert check_expectations(Expectations(task_completed=False), failed)[0].passed


def test_steps_count_given_steps():
    trace = TRACE.model_copy(update={"n_steps": 7})
    assert not check_expectations(Expectations(max_steps=5), trace)[0].passed


def test_output_matches_is_time_bounded():
    trace = Trace(output="a" * 40 + "b")
    with pytest.raises(RegexTimeoutError):
        check_expectations(
            Expectations(output_matches=r"^(a|aa)+$"),
            trace,
            config=ScoringConfig(regex_timeout=0.1),
        )


REF = [
    ReferenceTool(name="search", args={"q": "paris", "n": 3}),
    ReferenceTool(name="book", args={"id": 7}),
]


@pytest.mark.parametrize(
    ("calls", "mode", "args", "ok"),
    [
        ([call("search", q="paris", n=3), call("book", id=7)], "strict", "exact", True),
        ([call("book", id=7), call("search", q="paris", n=3)], "strict", "exact", False),
        ([call("book", id=7), call("search", q="paris", n=3)], "unordered", "exact", True),
        ([call("book", id=7)], "unordered", "exact", False),
        ([call("book", id=7)], "subset", "exact", True),
        ([call("book", id=7), call("pay")], "subset", "exact", False),
        ([call("book", id=7), call("book", id=7)], "subset", "exact", False),
        (
            [call("pay"), call("search", q="paris", n=3), call("book", id=7)],
            "superset",
            "exact",
            True,
        ),
        ([call("search", q="paris", n=3)], "superset", "exact", False),
        ([call("search", q="rome"), call("book", id=1)], "strict", "ignore", True),
        ([call("search", q="paris"), call("book", id=7)], "strict", "exact", False),
        ([call("search", q="paris"), call("book", id=7)], "strict", "subset", True),
        (
            [call("search", q="paris", n=3, lang="fr"), call("book", id=7)],
            "strict",
            "subset",
            False,
        ),
        (
            [call("search", q="paris", n=3, lang="fr"), call("book", id=7)],
            "strict",
            "superset",
            True,
        ),
        ([call("search", q="paris"), call("book", id=7)], "strict", "superset", False),
    ],
    ids=lambda v: v if isinstance(v, str) else str(len(v)) if isinstance(v, list) else str(v),
)
def test_trajectory(calls, mode, args, ok):
    assert trajectory_match(calls, REF, mode, args) is ok


def test_trajectory_through_expectations_and_agent_score():
    case = EvalCase(
        name="agent",
        input="find and book",
        expected=Expectations(
            tools_called=["book"],
            trajectory_match="unordered",
            trajectory_args="ignore",
            output_contains=["booked"],
        ),
        reference_tools=[r.model_dump() for r in REF],
    )
    good = score_case(case, [call("book"), call("search")], "Booked it.")
    assert good.passed and good.overall == 1.0 and good.failure_mode is None
    assert [e.name for e in good.expectations] == [
        "tools_called",
        "output_contains",
        "trajectory_unordered",
    ]
    bad = score_case(case, [call("book")], "Sorry.")
    assert not bad.passed and bad.failure_mode == "expectation_failed"
    assert bad.overall == pytest.approx(1 / 3)
    assert bad.expectations_passed is False
