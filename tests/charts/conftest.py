"""A results frame with exactly the columns of ``Run.results_df()`` (see the preamble contract).

Built from a small table of outcomes so that tests can compute what a chart must show on their
own. Two models; one of them run in two modes (native and hermes) for format sensitivity; one
multi-turn case; one errored row; costs only for the hosted model.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

RESULT_COLUMNS = [
    "run_id",
    "model",
    "mode",
    "case_id",
    "case_name",
    "category",
    "tags",
    "prompt",
    "expected",
    "tool_calls",
    "content",
    "tool_score",
    "param_score",
    "overall",
    "passed",
    "bfcl_pass",
    "bfcl_error",
    "failure_mode",
    "completion",
    "efficiency",
    "redundancy_penalty",
    "detour_penalty",
    "n_hops",
    "error",
    "error_type",
    "latency_ms",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "tries",
    "fallback",
    "cached",
    "sample",
    "seed",
]

CASES = [  # case_id, tags, category, expected (name, params) or None, multi_turn
    ("weather_paris", ["smoke", "weather"], "simple", ("get_weather", {"city": "Paris"}), False),
    (
        "weather_tokyo_f",
        ["weather", "hard"],
        "simple",
        ("get_weather", {"city": "Tokyo", "units": "fahrenheit"}),
        False,
    ),
    ("no_tool_joke", ["irrelevance"], "irrelevance", None, False),
    (
        "book_flight",
        ["travel", "multi_turn"],
        "multi_turn",
        ("book_flight", {"origin": "NYC", "destination": "London"}),
        True,
    ),
    ("stock_price", ["finance"], "simple", ("get_stock_price", {"symbol": "AAPL"}), False),
]

# (model, mode) -> case_id -> (call made or None, overall, failure_mode, error)
OUTCOMES = {
    ("local/smollm2-135m", "native"): {
        "weather_paris": (("get_weather", {"city": "Paris"}), 1.0, None, None),
        "weather_tokyo_f": (("get_weather", {"city": "Tokyo"}), 0.8, "wrong_value", None),
        "no_tool_joke": (("get_weather", {"city": "Joke"}), 0.0, "spurious_call", None),
        "book_flight": (
            ("book_flight", {"origin": "NYC", "destination": "Paris"}),
            0.4,
            "wrong_value",
            None,
        ),
        "stock_price": (None, 0.0, "api_error", "timeout after 30 s"),
    },
    ("local/smollm2-135m", "hermes"): {
        "weather_paris": (("get_weather", {"city": "paris"}), 1.0, None, None),
        "weather_tokyo_f": (None, 0.0, "parse_error", None),
        "no_tool_joke": (None, 1.0, None, None),
        "book_flight": (("search_flights", {"origin": "NYC"}), 0.2, "missing_call", None),
        "stock_price": (("get_stock_price", {"symbol": "AAPL"}), 1.0, None, None),
    },
    ("openai/gpt-4o-mini", "native"): {
        "weather_paris": (("get_weather", {"city": "Paris"}), 1.0, None, None),
        "weather_tokyo_f": (
            ("get_weather", {"city": "Tokyo", "units": "fahrenheit"}),
            1.0,
            None,
            None,
        ),
        "no_tool_joke": (None, 1.0, None, None),
        "book_flight": (
            ("book_flight", {"origin": "NYC", "destination": "London"}),
            0.9,
            None,
            None,
        ),
        "stock_price": (("get_stock_price", {"symbol": "AAPL"}), 1.0, None, None),
    },
}


def make_results(outcomes=OUTCOMES, samples: int = 1) -> pd.DataFrame:
    rows = []
    for (model, mode), by_case in outcomes.items():
        hosted = model.startswith("openai/")
        for sample in range(samples):
            for i, (case_id, tags, category, expected, multi) in enumerate(CASES):
                call, overall, failure, error = by_case[case_id]
                exp = (
                    []
                    if expected is None
                    else [
                        {"name": expected[0], "arguments": {k: [v] for k, v in expected[1].items()}}
                    ]
                )
                calls = (
                    []
                    if call is None
                    else [
                        {
                            "id": f"call_{i}",
                            "type": "function",
                            "function": {"name": call[0], "arguments": json.dumps(call[1])},
                        }
                    ]
                )
                rows.append(
                    {
                        "run_id": "run_test",
                        "model": model,
                        "mode": mode,
                        "case_id": case_id,
                        "case_name": case_id.replace("_", " "),
                        "category": category,
                        "tags": tags,
                        "prompt": f"prompt of {case_id}",
                        "expected": json.dumps(exp),
                        "tool_calls": json.dumps(calls),
                        "content": None,
                        "tool_score": None if error else float(overall > 0),
                        "param_score": None if error or expected is None else overall,
                        "overall": None if error else overall,
                        "passed": overall >= 1.0 and not error,
                        "bfcl_pass": None,
                        "bfcl_error": None,
                        "failure_mode": failure,
                        "completion": 0.8 if multi else None,
                        "efficiency": 0.5 if multi else None,
                        "redundancy_penalty": 0.1 if multi else None,
                        "detour_penalty": 0.0 if multi else None,
                        "n_hops": 3 if multi else 1,
                        "error": error,
                        "error_type": "ModelTimeoutError" if error else None,
                        "latency_ms": (900.0 if hosted else 350.0) + 10 * i,
                        "prompt_tokens": 120,
                        "completion_tokens": 20,
                        "cost": 0.0002 if hosted else None,
                        "tries": 1,
                        "fallback": False,
                        "cached": False,
                        "sample": sample,
                        "seed": None,
                    }
                )
    return pd.DataFrame(rows, columns=RESULT_COLUMNS)


@pytest.fixture
def results_df() -> pd.DataFrame:
    return make_results()


@pytest.fixture
def results_factory():
    return make_results
