"""Verdicts as the official checker gives them, partial credit beside them, and BFCL's sums."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from tooleval_nb.bfcl.data import BfclData
from tooleval_nb.bfcl.scores import category_table, leaderboard
from tooleval_nb.bfcl.verdicts import decode_json_list, entry_verdict, verdict_rows


@pytest.fixture(scope="module")
def data(bfcl_data):
    return BfclData(bfcl_data)


def _one(data, category, entry_id, result, mode, fmt="python"):
    cat = data.category(category)
    rows = verdict_rows([{"id": entry_id, "result": result}], cat, model="m", mode=mode,
                        prompt_format=fmt)
    return rows[0]


CASES = [
    # simple_python_1: math.factorial(number=5)
    ("simple_python", "simple_python_1", [{"math_factorial": '{"number": 5}'}], "fc",
     True, None),
    ("simple_python", "simple_python_1", [{"math.factorial": '{"number": 5}'}], "fc",
     False, "simple_function_checker:wrong_func_name"),
    ("simple_python", "simple_python_1", "[math.factorial(number=5)]", "fc",
     False, "ast_decoder:decoder_failed"),
    ("simple_python", "simple_python_1", "[math.factorial(number=5)]", "prompt", True, None),
    ("simple_python", "simple_python_1", "math.factorial(number=6)", "prompt",
     False, "value_error:others"),
    ("simple_python", "simple_python_1", "I would call math.factorial", "prompt",
     False, "ast_decoder:decoder_failed"),
    ("simple_python", "simple_python_1", "", "fc", False, "simple_function_checker:wrong_count"),
    ("irrelevance", "irrelevance_0", "No function fits.", "fc", True, None),
    ("irrelevance", "irrelevance_0", [{"f": "{}"}], "fc",
     False, "irrelevance_error:decoder_success"),
    ("live_relevance", "live_relevance_0-0-0", "text", "fc",
     False, "relevance_error:decoder_failed"),
    ("simple_python", "simple_python_1", "Error during inference: timeout", "fc",
     False, "inference_error"),
    ("irrelevance", "irrelevance_0", "Error during inference: timeout", "prompt",
     False, "inference_error"),
]


@pytest.mark.parametrize(("category", "entry_id", "result", "mode", "passed", "error_type"),
                         CASES, ids=[f"{c[1]}-{c[3]}-{c[5]}" for c in CASES])
def test_verdicts(data, category, entry_id, result, mode, passed, error_type):
    row = _one(data, category, entry_id, result, mode)
    assert (row["passed"], row["error_type"]) == (passed, error_type)
    assert row["errored"] == (error_type == "inference_error")
    assert row["decoder_failed"] == (error_type == "ast_decoder:decoder_failed")


def test_partial_credit_beside_the_binary_verdict(data):
    # parallel_0: spotify.play twice (Taylor Swift 20, Maroon 5 15)
    truth = data.category("parallel").answers["parallel_0"]
    names = [next(iter(c)) for c in truth]
    assert names == ["spotify.play", "spotify.play"]
    half = "[spotify.play(artist='Taylor Swift', duration=20), spotify.play(artist='Maroon 5', duration=99)]"
    row = _one(data, "parallel", "parallel_0", half, "prompt")
    assert row["passed"] is False
    assert row["tool_score"] == 1.0 and row["calls_made"] == 2 and row["calls_expected"] == 2
    assert row["calls_matched"] == 1 and sorted(row["call_matches"]) == [False, True]
    assert 0.5 <= row["param_score"] < 1.0
    full = half.replace("duration=99", "duration=15")
    assert _one(data, "parallel", "parallel_0", full, "prompt")["call_matches"] == [True, True]


def test_fc_names_come_back_with_dots_for_partial_credit(data):
    row = _one(data, "simple_python", "simple_python_1", [{"math_factorial": '{"number": 4}'}], "fc")
    assert row["tool_score"] == 1.0 and row["param_score"] == 0.0 and not row["passed"]


def test_bfcls_json_return_format(data):
    text = '```json\n[{"function": "math.factorial", "parameters": {"number": 5}}]\n```'
    assert decode_json_list(text) == [{"math.factorial": {"number": 5}}]
    assert _one(data, "simple_python", "simple_python_1", text, "prompt", "json")["passed"]
    assert decode_json_list("no json here") == []
    bad = '[{"name": "math.factorial", "arguments": {}}]'
    verdict = entry_verdict(bad, data.category("simple_python").by_id["simple_python_1"],
                            data.category("simple_python").answers["simple_python_1"],
                            "simple_python", "prompt", "json")
    assert verdict.error_type == "ast_decoder:decoder_failed"


def _entries(rows):
    out = []
    for category, passed in rows:
        for i, ok in enumerate(passed):
            out.append({"model": "m", "mode": "fc", "category": category, "id": f"{category}_{i}",
                        "passed": ok == 1, "errored": ok == "e", "decoder_failed": ok == "d",
                        "tool_score": 1.0 if ok == 1 else 0.0, "param_score": None,
                        "overall": 0.0})
    return pd.DataFrame(out)


def test_leaderboard_sums_as_bfcl_does():
    df = _entries([
        ("simple_python", [1, 1, 1, 0]),        # 0.75
        ("simple_java", [1, 0]),                # 0.5
        ("simple_javascript", [1, 1, 0, 0, 0, "e", "d", 0]),  # 0.25 (errored counted as failed)
        ("multiple", [1, 1]),                   # 1.0
        ("parallel", [0, 0]),                   # 0.0
        ("parallel_multiple", [1, 0]),          # 0.5
        ("irrelevance", [1, 1, 1, 0]),          # 0.75
        ("live_simple", [1, 1, 1]),             # 3/3
        ("live_multiple", [0]),                 # 0/1  -> live: 3/4 pooled
        ("live_irrelevance", [1, 0]),           # 0.5
        ("live_relevance", [1]),
    ])
    board = leaderboard(df).iloc[0]
    assert board["simple"] == pytest.approx((0.75 + 0.5 + 0.25) / 3)
    assert board["non_live_overall"] == pytest.approx((0.5 + 1.0 + 0.0 + 0.5) / 4)
    assert board["live_overall"] == pytest.approx(3 / 4)
    assert board["irrelevance_detection"] == pytest.approx((0.75 + 0.5) / 2)
    assert board["relevance_detection"] == 1.0
    assert math.isnan(board["live_parallel"])
    assert (board["n_errored"], board["n_decoder_failed"]) == (1, 1)
    table = category_table(df)
    assert list(table["category"])[:3] == ["simple_python", "simple_java", "simple_javascript"]
    js = table[table["category"] == "simple_javascript"].iloc[0]
    assert js["n"] == 8 and js["accuracy"] == 0.25 and js["ci_low"] < 0.25 < js["ci_high"]


def test_the_scores_of_rows_equal_the_scores_of_the_frame(data):
    """The files are written from rows (no pandas); the frames' functions give the same."""
    from tooleval_nb.bfcl.scores import category_rows, leaderboard_rows
    from tooleval_nb.bfcl.verdicts import ENTRY_COLUMNS

    rows = []
    for category, result in (("simple_python", "[math.factorial(number=5)]"),
                             ("parallel", "[spotify.play(artist='Taylor Swift', duration=20)]"),
                             ("live_simple", "text"), ("irrelevance", "No call.")):
        cat = data.category(category)
        entries = [{"id": i, "result": result} for i in cat.ids[:4]]
        for model in ("a", "b"):
            rows += verdict_rows(entries, cat, model=model, mode="prompt", credit=model == "a")
    df = pd.DataFrame(rows, columns=list(ENTRY_COLUMNS))
    pd.testing.assert_frame_equal(leaderboard(df), pd.DataFrame(
        leaderboard_rows(rows), columns=leaderboard(df).columns))
    table = category_table(df)  # from the frame's records: NaN where the rows hold None
    pd.testing.assert_frame_equal(table, pd.DataFrame(category_rows(rows),
                                                      columns=table.columns))
    assert list(table["model"]) == [r["model"] for r in category_rows(rows)]
    assert list(table["category"]) == ["simple_python", "parallel", "irrelevance",
                                       "live_simple"] * 2
    assert math.isnan(leaderboard(df).set_index("model").loc["b", "tool_score"])
