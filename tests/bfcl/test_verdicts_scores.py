"""Verdicts as the official checker gives them, partial credit beside them, and BFCL's sums."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from tooleval_nb.bfcl.scores import category_table, leaderboard
from tooleval_nb.bfcl.verdicts import decode_json_list, entry_verdict, verdict_rows
from tooleval_nb.bfcl_rules.data import BfclData


@pytest.fixture(scope="module")
def data(bfcl_data):
    return BfclData(bfcl_data)


def _one(data, category, entry_id, result, mode, fmt="python"):
    cat = data.category(category)
    rows = verdict_rows(
        [{"id": entry_id, "result": result}], cat, model="m", mode=mode, prompt_format=fmt
    )
    return rows[0]


CASES = [
    # simple_python_1: math.factorial(number=5)
    ("simple_python", "simple_python_1", [{"math_factorial": '{"number": 5}'}], "fc", True, None),
    (
        "simple_python",
        "simple_python_1",
        [{"math.factorial": '{"number": 5}'}],
        "fc",
        False,
        "simple_function_checker:wrong_func_name",
    ),
    (
        "simple_python",
        "simple_python_1",
        "[math.factorial(number=5)]",
        "fc",
        False,
        "ast_decoder:decoder_failed",
    ),
    ("simple_python", "simple_python_1", "[math.factorial(number=5)]", "prompt", True, None),
    (
        "simple_python",
        "simple_python_1",
        "math.factorial(number=6)",
        "prompt",
        False,
        "value_error:others",
    ),
    (
        "simple_python",
        "simple_python_1",
        "I would call math.factorial",
        "prompt",
        False,
        "ast_decoder:decoder_failed",
    ),
    ("simple_python", "simple_python_1", "", "fc", False, "simple_function_checker:wrong_count"),
    ("irrelevance", "irrelevance_0", "No function fits.", "fc", True, None),
    (
        "irrelevance",
        "irrelevance_0",
        [{"f": "{}"}],
        "fc",
        False,
        "irrelevance_error:decoder_success",
    ),
    (
        "live_relevance",
        "live_relevance_0-0-0",
        "text",
        "fc",
        False,
        "relevance_error:decoder_failed",
    ),
    (
        "simple_python",
        "simple_python_1",
        "Error during inference: timeout",
        "fc",
        False,
        "inference_error",
    ),
    (
        "irrelevance",
        "irrelevance_0",
        "Error during inference: timeout",
        "prompt",
        False,
        "inference_error",
    ),
]


@pytest.mark.parametrize(
    ("category", "entry_id", "result", "mode", "passed", "error_type"),
    CASES,
    ids=[f"{c[1]}-{c[3]}-{c[5]}" for c in CASES],
)
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
    row = _one(
        data, "simple_python", "simple_python_1", [{"math_factorial": '{"number": 4}'}], "fc"
    )
    assert row["tool_score"] == 1.0 and row["param_score"] == 0.0 and not row["passed"]


def test_bfcls_json_return_format(data):
    text = '```json\n[{"function": "math.factorial", "parameters": {"number": 5}}]\n```'
    assert decode_json_list(text) == [{"math.factorial": {"number": 5}}]
    assert _one(data, "simple_python", "simple_python_1", text, "prompt", "json")["passed"]
    assert decode_json_list("no json here") == []
    bad = '[{"name": "math.factorial", "arguments": {}}]'
    verdict = entry_verdict(
        bad,
        data.category("simple_python").by_id["simple_python_1"],
        data.category("simple_python").answers["simple_python_1"],
        "simple_python",
        "prompt",
        "json",
    )
    assert verdict.error_type == "ast_decoder:decoder_failed"


def _entries(rows):
    out = []
    for category, passed in rows:
        for i, ok in enumerate(passed):
            out.append(
                {
                    "model": "m",
                    "mode": "fc",
                    "category": category,
                    "id": f"{category}_{i}",
                    "passed": ok == 1,
                    "errored": ok == "e",
                    "decoder_failed": ok == "d",
                    "tool_score": 1.0 if ok == 1 else 0.0,
                    "param_score": None,
                    "overall": 0.0,
                }
            )
    return pd.DataFrame(out)


def test_leaderboard_sums_as_bfcl_does():
    df = _entries(
        [
            ("simple_python", [1, 1, 1, 0]),  # 0.75
            ("simple_java", [1, 0]),  # 0.5
            ("simple_javascript", [1, 1, 0, 0, 0, "e", "d", 0]),  # 0.25 (errored counted as failed)
            ("multiple", [1, 1]),  # 1.0
            ("parallel", [0, 0]),  # 0.0
            ("parallel_multiple", [1, 0]),  # 0.5
            ("irrelevance", [1, 1, 1, 0]),  # 0.75
            ("live_simple", [1, 1, 1]),  # 3/3
            ("live_multiple", [0]),  # 0/1  -> live: 3/4 pooled
            ("live_irrelevance", [1, 0]),  # 0.5
            ("live_relevance", [1]),
        ]
    )
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
    for category, result in (
        ("simple_python", "[math.factorial(number=5)]"),
        ("parallel", "[spotify.play(artist='Taylor Swift', duration=20)]"),
        ("live_simple", "text"),
        ("irrelevance", "No call."),
    ):
        cat = data.category(category)
        entries = [{"id": i, "result": result} for i in cat.ids[:4]]
        for model in ("a", "b"):
            rows += verdict_rows(entries, cat, model=model, mode="prompt", credit=model == "a")
    df = pd.DataFrame(rows, columns=list(ENTRY_COLUMNS))
    pd.testing.assert_frame_equal(
        leaderboard(df), pd.DataFrame(leaderboard_rows(rows), columns=leaderboard(df).columns)
    )
    table = category_table(df)  # from the frame's records: NaN where the rows hold None
    pd.testing.assert_frame_equal(table, pd.DataFrame(category_rows(rows), columns=table.columns))
    assert list(table["model"]) == [r["model"] for r in category_rows(rows)]
    assert (
        list(table["category"]) == ["simple_python", "parallel", "irrelevance", "live_simple"] * 2
    )
    assert math.isnan(leaderboard(df).set_index("model").loc["b", "tool_score"])


# -- BFCL V4's overall score -------------------------------------------------------------------
#: made-up results: category -> (passed, entries); the rest is not run
_MADE_UP = {
    "simple_python": (4, 5),
    "simple_java": (1, 2),
    "simple_javascript": (1, 5),
    "multiple": (9, 10),
    "parallel": (7, 10),
    "parallel_multiple": (1, 2),
    "irrelevance": (4, 5),
    "live_simple": (3, 4),
    "live_multiple": (1, 2),
    "live_irrelevance": (3, 5),
    "multi_turn_base": (1, 2),
    "multi_turn_miss_func": (1, 4),
    "multi_turn_long_context": (1, 4),
    "memory_kv": (3, 5),
    "memory_rec_sum": (3, 10),
}
# by hand: simple (0.8 + 0.5 + 0.2) / 3 = 0.5; non-live (0.5 + 0.9 + 0.7 + 0.5) / 4 = 0.65;
# live (0.75 * 4 + 0.5 * 2 + 0 * 16 + 0 * 24) / (4 + 2 + 16 + 24) = 4 / 46 (the two not run
# weigh their full size); irrelevance (0.8 + 0.6) / 2 = 0.7; multi-turn (0.5 + 0.25 + 0 +
# 0.25) / 4 = 0.25; memory (0.6 + 0 + 0.3) / 3 = 0.3, web search 0, agentic 0.15
_BY_HAND = 0.1 * 0.65 + 0.1 * 4 / 46 + 0.1 * 0.7 + 0.3 * 0.25 + 0.4 * 0.15


def _made_up_entries() -> pd.DataFrame:
    rows = []
    for category, (passed, total) in _MADE_UP.items():
        for i in range(total):
            rows.append(
                {
                    "model": "m",
                    "mode": "fc",
                    "category": category,
                    "id": f"{category}_{i}",
                    "passed": i < passed,
                    "errored": False,
                    "decoder_failed": False,
                    "tool_score": None,
                    "param_score": None,
                    "overall": None,
                }
            )
    return pd.DataFrame(rows)


def test_the_v4_overall_is_weighted_as_bfcl_eval_by_hand():
    board = leaderboard(_made_up_entries()).iloc[0]
    assert board["overall"] == pytest.approx(_BY_HAND) == pytest.approx(0.27869565217)
    assert board["overall_partial"]
    assert board["categories_not_run"].split(",") == [
        "live_parallel",
        "live_parallel_multiple",
        "live_relevance",
        "multi_turn_miss_param",
        "memory_vector",
        "web_search_base",
        "web_search_no_snippet",
    ]
    # the group columns are over what ran
    assert board["multi_turn_overall"] == pytest.approx(1 / 3)
    assert board["memory"] == pytest.approx(0.45) and math.isnan(board["web_search"])
    assert board["agentic_overall"] == pytest.approx(0.45)
    assert board["live_overall"] == pytest.approx(4 / 6)
    assert board["memory_kv"] == 0.6 and math.isnan(board["memory_vector"])
    assert math.isnan(board["format_sensitivity_max_delta"])


def test_every_category_run_is_not_partial():
    from tooleval_nb.bfcl.scores import v4_overall
    from tooleval_nb.bfcl_rules.categories import SCORING

    overall, not_run = v4_overall(dict.fromkeys(SCORING, 1.0), dict.fromkeys(SCORING, 3))
    assert overall == pytest.approx(1.0) and not_run == []
    overall, not_run = v4_overall({"multi_turn_base": 1.0}, {"multi_turn_base": 2})
    assert overall == pytest.approx(0.3 / 4) and len(not_run) == len(SCORING) - 1


def _bfcl_eval_helpers() -> dict:
    """bfcl-eval's own calculate_* functions, taken from its installed eval_runner_helper.py
    without importing it (its import loads every model handler's SDK)."""
    import ast
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution("bfcl-eval")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("bfcl-eval (the bfcl extra) is not installed")
    source = Path(str(dist.locate_file("bfcl_eval/eval_checker/eval_runner_helper.py")))
    tree = ast.parse(source.read_text())
    wanted = [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
        and n.name
        in (
            "calculate_weighted_accuracy",
            "calculate_unweighted_accuracy",
            "calculate_percentage_weighted_accuracy",
        )
    ]
    assert len(wanted) == 3
    namespace: dict = {}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), str(source), "exec"), namespace)
    return namespace


def test_the_v4_overall_equals_bfcl_evals_own_functions():
    """The made-up numbers through bfcl-eval's own calculate_* functions, composed as its
    generate_leaderboard_csv composes them (get_category_score: a category not run is 0 with
    its full size)."""
    from tooleval_nb.bfcl_rules.categories import ENTRY_COUNTS

    f = _bfcl_eval_helpers()
    unweighted = f["calculate_unweighted_accuracy"]
    weighted = f["calculate_weighted_accuracy"]

    def score(category):
        if category in _MADE_UP:
            passed, total = _MADE_UP[category]
            return {
                "accuracy": passed / total,
                "total_count": total,
                "display_accuracy": passed / total,
            }
        return {"accuracy": 0, "total_count": ENTRY_COUNTS[category], "display_accuracy": "N/A"}

    simple = unweighted([score("simple_python"), score("simple_java"), score("simple_javascript")])
    non_live = unweighted(
        [simple, score("multiple"), score("parallel"), score("parallel_multiple")],
        display_na_if_category_missing=False,
    )
    live = weighted(
        [
            score(c)
            for c in ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
        ],
        display_na_if_category_missing=False,
    )
    multi_turn = unweighted(
        [
            score(c)
            for c in (
                "multi_turn_base",
                "multi_turn_miss_func",
                "multi_turn_miss_param",
                "multi_turn_long_context",
            )
        ],
        display_na_if_category_missing=False,
    )
    web = unweighted([score("web_search_base"), score("web_search_no_snippet")])
    memory = unweighted([score("memory_kv"), score("memory_vector"), score("memory_rec_sum")])
    agentic = unweighted([web, memory], display_na_if_category_missing=False)
    irrelevance = unweighted([score("irrelevance"), score("live_irrelevance")])
    total = f["calculate_percentage_weighted_accuracy"](
        [non_live, live, irrelevance, multi_turn, agentic],
        [10, 10, 10, 30, 40],
        display_na_if_category_missing=False,
    )
    board = leaderboard(_made_up_entries()).iloc[0]
    assert board["overall"] == pytest.approx(total["accuracy"], abs=1e-15)
    assert total["accuracy"] == pytest.approx(_BY_HAND)


def test_format_sensitivity_spread_as_bfcl_eval():
    from tooleval_nb.bfcl.scores import format_sensitivity_spread
    from tooleval_nb.bfcl_rules.categories import SCORING
    from tooleval_nb.bfcl_rules.prompt import FORMAT_SENSITIVITY_CONFIGS as CONFIGS

    rows = []
    for k, (config, passed) in enumerate(zip(CONFIGS[:3], ([1, 1], [1, 0], [0, 0]), strict=True)):
        for i, ok in enumerate(passed):
            rows.append(
                {
                    "model": "m",
                    "mode": "prompt",
                    "category": "format_sensitivity",
                    "id": f"format_sensitivity_{2 * k + i}:{config}:simple_python_{i}",
                    "passed": bool(ok),
                    "errored": False,
                    "decoder_failed": False,
                    "tool_score": None,
                    "param_score": None,
                    "overall": None,
                }
            )
    # accuracies 1, 0.5, 0: max - min = 100 points, sample stdev = 0.5 -> 50 points
    assert format_sensitivity_spread(rows) == (100.0, 50.0)
    assert format_sensitivity_spread(rows[:2]) == (0.0, 0.0)
    board = leaderboard(pd.DataFrame(rows)).iloc[0]
    assert board["format_sensitivity"] == 0.5
    assert (board["format_sensitivity_max_delta"], board["format_sensitivity_std"]) == (100, 50)
    assert board["categories_not_run"].split(",") == list(SCORING)  # FS does not count


# -- format sensitivity's verdicts -------------------------------------------------------------
FORMAT_VERDICTS = json.loads(
    gzip.decompress(
        (Path(__file__).parent / "data" / "bfcl_eval_format_verdicts.json.gz").read_bytes()
    )
)


def test_format_sensitivity_verdicts_equal_bfcl_evals(bfcl_full_data):
    """2,600 replies (every tenth of scripts/bfcl_format_verdicts.py's 26,000, which all agree):
    right in the configuration's format, untagged, in Python, no call, a wrong value; each
    with bfcl-eval's verdict and error type from its own format_sensitivity_runner path."""
    from tooleval_nb.bfcl_rules.checker import format_sensitivity_verdict

    data = bfcl_full_data.category("format_sensitivity")
    assert len(FORMAT_VERDICTS) == 2600
    got = [
        (format_sensitivity_verdict(reply, data.by_id[i]["function"], data.answers[i], i))
        for i, reply, _, _ in FORMAT_VERDICTS
    ]
    assert [(v.passed, v.error_type) for v in got] == [
        (ok, kind) for _, _, ok, kind in FORMAT_VERDICTS
    ]


@pytest.mark.parametrize(
    ("text", "return_format", "tag", "expected"),
    [
        ("<TOOLCALL>[f(a=1)]</TOOLCALL>", "python", True, [{"f": {"a": 1}}]),
        (
            '```json\n[{"function": "f", "parameters": {"a": [1, 2]}}]\n```',
            "json",
            False,
            [{"f": {"a": [1, 2]}}],
        ),
        ("not json [", "json", False, []),  # BFCL: not JSON decodes as no call
        (
            '<functions><function name="f"><params><param name="a" value="[1, 2]" type="array"/>'
            '<param name="b" value="True" type="boolean"/></params></function></functions>',
            "verbose_xml",
            False,
            [{"f": {"a": [1, 2], "b": True}}],
        ),
        (
            'Here: <functions><function name="f"><param name="a" type="float"> 2.5 </param>'
            '<param name="s" type="string">x y</param></function></functions>',
            "concise_xml",
            False,
            [{"f": {"a": 2.5, "s": "x y"}}],
        ),
    ],
    ids=["python-tag", "json", "json-not-json", "verbose-xml", "concise-xml"],
)
def test_decoding_in_each_return_format(text, return_format, tag, expected):
    from tooleval_nb.bfcl_rules.decode import decode_prompt

    assert decode_prompt(text, return_format=return_format, tool_call_tag=tag) == expected


@pytest.mark.parametrize(
    ("text", "return_format", "tag"),
    [
        ("[f(a=1)]", "python", True),  # the tag asked for is missing
        ("<functions><function><param>1</param></function></functions>", "concise_xml", False),
        (
            '<functions><function name="f"><param name="a" type="integer">x</param></function>'
            "</functions>",
            "concise_xml",
            False,
        ),
        (
            '<functions><function name="f"><param name="a" type="dict" value="__import__(1)"/>'
            "</function></functions>",
            "verbose_xml",
            False,
        ),  # literals only, never run
        ('[{"function": ["f"], "parameters": {}}]', "json", False),
        ('[{"function": "f"}]', "json", False),
        ("[f(a=1)]", "yaml", False),
    ],
)
def test_bad_replies_in_each_return_format_are_decode_errors(text, return_format, tag):
    from tooleval_nb.bfcl_rules.decode import DecodeError, decode_prompt

    with pytest.raises(DecodeError):
        decode_prompt(text, return_format=return_format, tool_call_tag=tag)
