"""Tidy calls: ``Run.calls_df()`` (one row per call made) and ``Run.arguments_df()`` (one row
per argument), from real runs against the local fake server: single calls, parallel calls,
a multi-turn chain, no call, and arguments that are not a JSON object."""

from __future__ import annotations

import json

import pytest

import tooleval_nb as te
from tooleval_nb.runner.calls import ARGUMENT_COLUMNS, CALL_COLUMNS
from tooleval_nb.suite import EvalCase, Suite, Tool

WEATHER = Tool.create(
    "get_weather",
    "Current weather for a city",
    {"city": {"type": "string"}, "units": {"type": "string"}},
    required=["city"],
)
SEARCH = Tool.create("search_flights", "Find flights", {"destination": {"type": "string"}})
BOOK = Tool.create(
    "book_flight", "Book a flight", {"flight_id": {"type": "string"}}, required=["flight_id"]
)


def planted(body: dict) -> dict | None:
    """The fake server's default answers, but a chain for 'book' and bad arguments for 'broken'."""
    prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
    if prompt == "broken":
        return {"tool_calls": [{"function": {"name": "get_weather", "arguments": "[1, 2]"}}]}
    if prompt == "book":
        done = [m for m in body["messages"] if m["role"] == "tool"]
        name, args = (
            ("book_flight", {"flight_id": "FL1"})
            if done
            else ("search_flights", {"destination": "Oslo"})
        )
        return {"tool_calls": [{"function": {"name": name, "arguments": args}}]}
    return None


@pytest.fixture
def run(fake_server, tmp_path):
    suite = Suite(
        name="calls",
        tools=[WEATHER, SEARCH, BOOK],
        cases=[
            EvalCase(
                id="right",
                prompt="get_weather city Paris",
                expected_tool="get_weather",
                expected_params={"city": "Paris"},
            ),
            EvalCase(
                id="wrong_city",
                prompt="get_weather city Milan units metric",
                expected_tool="get_weather",
                expected_params={"city": "Rome"},
            ),
            EvalCase(
                id="two",
                prompt="get_weather city Oslo; get_weather city Bergen",
                expected_calls=[
                    {"name": "get_weather", "arguments": {"city": ["Bergen"]}},
                    {"name": "get_weather", "arguments": {"city": ["Oslo"]}},
                ],
            ),
            EvalCase(id="chat", prompt="hello there", expected_tool=None),
            EvalCase(
                id="broken",
                prompt="broken",
                expected_tool="get_weather",
                expected_params={"city": "Paris"},
            ),
            EvalCase(
                id="book",
                prompt="book",
                expected_tool="book_flight",
                expected_params={"flight_id": "FL1"},
                multi_turn=True,
                max_rounds=3,
                valid_prerequisites=["search_flights"],
                mock_responses={"search_flights": {"flights": [{"id": "FL1"}]}},
            ),
        ],
    )
    server = fake_server(handler=planted)
    yield te.run_eval(
        suite,
        [{"model": "openai/fake", "api_base": server.url}],
        store=str(tmp_path / "runs.db"),
        progress="none",
        cache=False,
    ).result()


def test_one_row_per_call_with_turn_position_and_match(run):
    calls = run.calls_df()
    assert list(calls.columns[: len(CALL_COLUMNS)]) == list(CALL_COLUMNS)
    rows = [
        (r.case_id, r.turn, r.position, r.tool_name, r.expected_tool, r.matched)
        for r in calls.itertuples()
    ]
    assert rows == [
        ("right", 0, 0, "get_weather", "get_weather", True),
        ("wrong_city", 0, 0, "get_weather", "get_weather", False),
        ("two", 0, 0, "get_weather", "get_weather", True),  # paired with the Oslo call
        ("two", 0, 1, "get_weather", "get_weather", True),
        ("broken", 0, 0, "get_weather", "get_weather", False),
        ("book", 0, 0, "search_flights", None, False),  # a prerequisite: not the wanted call
        ("book", 1, 0, "book_flight", "book_flight", True),
    ]
    wrong = calls.set_index("case_id").loc["wrong_city"]
    assert (wrong["tool_matched"], wrong["args_matched"]) == (True, False)
    assert wrong["arguments"] == {"city": "Milan", "units": "metric"}
    assert (wrong["arg_city"], wrong["arg_units"]) == ("Milan", "metric")
    broken = calls.set_index("case_id").loc["broken"]
    assert broken["arguments"] is None and "a JSON list, not an object" in broken["arguments_error"]
    assert calls["model"].unique().tolist() == ["openai/fake"]
    assert calls["call_index"].tolist() == [0, 0, 0, 1, 0, 0, 1]


def test_tidy_arguments_answer_which_calls_got_an_argument_wrong(run):
    args = run.arguments_df()
    assert list(args.columns) == list(ARGUMENT_COLUMNS)
    wrong_city = args[
        (args.tool_name == "get_weather") & (args.argument == "city") & args.correct.eq(False)
    ]
    assert wrong_city[["case_id", "value", "present", "expected"]].values.tolist() == [
        ["wrong_city", "Milan", True, ["Rome"]],
        ["broken", None, False, ["Paris"]],
    ]
    units = args[args.argument == "units"].iloc[0]
    assert (units["present"], units["expected"], pd_na(units["correct"])) == (True, None, True)
    missing = args[~args.present]  # expected but left out: the broken call's city
    assert missing[["case_id", "argument", "expected"]].values.tolist() == [
        ["broken", "city", ["Paris"]]
    ]


def pd_na(value) -> bool:
    import pandas as pd

    return value is pd.NA


def test_calls_agree_with_the_results_tool_calls(run):
    calls = run.calls_df()
    results = run.results_df().set_index("case_id")
    for case_id, part in calls.groupby("case_id"):
        names = [c["function"]["name"] for c in json.loads(results.loc[case_id, "tool_calls"])]
        assert part.sort_values("call_index")["tool_name"].tolist() == names
    assert "chat" not in set(calls["case_id"])  # no call made, no row
