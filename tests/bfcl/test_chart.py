"""The BFCL charts and their table twins."""

from __future__ import annotations

import pandas as pd

from tooleval_nb.bfcl.scores import category_table
from tooleval_nb.charts.bfcl import (
    accuracy_chart,
    accuracy_table,
    mode_comparison_table,
    worst_entries,
)


def _entries():
    rows = []
    for mode, outcomes in (
        ("fc", {"simple_python": [1, 1, 0], "irrelevance": [1, 0]}),
        ("prompt", {"simple_python": [1, 0, 0], "irrelevance": [1, 1]}),
    ):
        for category, passed in outcomes.items():
            for i, ok in enumerate(passed):
                rows.append(
                    {
                        "model": "m",
                        "mode": mode,
                        "category": category,
                        "id": f"{category}_{i}",
                        "passed": bool(ok),
                        "errored": False,
                        "decoder_failed": False,
                        "tool_score": float(ok),
                        "param_score": None,
                        "overall": float(ok),
                        "error_type": None if ok else "x",
                        "calls_expected": 1,
                        "calls_made": ok,
                        "calls_matched": ok,
                        "result": "r",
                    }
                )
    return pd.DataFrame(rows)


def test_accuracy_chart_draws_its_table():
    table = category_table(_entries())
    twin = accuracy_table(table)
    spec = accuracy_chart(table).to_dict()
    data = next(iter(spec["datasets"].values()))
    assert len(data) == len(twin) == 4
    assert {d["label"] for d in data} == {"m (fc)", "m (prompt)"}
    marks = [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        for layer in spec["layer"]
    ]
    assert marks == ["bar", "rule"]


def test_mode_comparison_and_worst_entries():
    table = category_table(_entries())
    cmp = mode_comparison_table(table).set_index("category")
    assert cmp.loc["simple_python", "fc_minus_prompt"] == 2 / 3 - 1 / 3
    assert cmp.loc["irrelevance", "fc_minus_prompt"] == 0.5 - 1.0
    worst = worst_entries(_entries(), n=3)
    assert len(worst) == 3 and not worst["error_type"].isna().any()


def test_overall_chart_stacks_the_weighted_parts_of_bfcls_overall():
    from tooleval_nb.bfcl.scores import leaderboard
    from tooleval_nb.charts.bfcl import overall_chart, overall_table

    scores = leaderboard(_entries())
    table = overall_table(scores)
    assert list(table["part"]) == ["non_live", "live", "irrelevance", "multi_turn", "agentic"] * 2
    assert list(table["weight"][:5]) == [0.1, 0.1, 0.1, 0.3, 0.4]
    for _, group in table.groupby("label"):  # the contributions sum to the overall
        assert abs(group["contribution"].sum() - group["overall"].iloc[0]) < 1e-12
    fc = table[(table["mode"] == "fc") & (table["part"] == "irrelevance")].iloc[0]
    assert fc["value"] == (0.5 + 0) / 2  # irrelevance 1/2, live_irrelevance not run: 0
    assert table["overall_partial"].all()
    spec = overall_chart(scores).to_dict()
    assert len(next(iter(spec["datasets"].values()))) == 10
    assert spec["mark"]["type"] == "bar" and "partial" in spec["title"]
