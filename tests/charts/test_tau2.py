"""The τ²-bench charts and their table twins, on frames shaped as a τ² run gives them."""

from __future__ import annotations

import pandas as pd

from tooleval_nb.charts.tau2 import (
    pass_k_chart,
    pass_k_table,
    reward_parts_chart,
    reward_parts_table,
)


def _scores() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "model": "a",
                "domain": "airline",
                "tasks": 2,
                "pass^1": 0.75,
                "pass^1_low": 0.3,
                "pass^1_high": 0.95,
                "pass^2": 0.5,
                "pass^2_low": 0.1,
                "pass^2_high": 0.9,
            },
            {
                "model": "b",
                "domain": "airline",
                "tasks": 2,
                "pass^1": 0.5,
                "pass^1_low": 0.1,
                "pass^1_high": 0.9,
                "pass^2": float("nan"),
            },
        ]
    )


def _results() -> pd.DataFrame:
    rows = []
    for model, rewards in (("a", [1, 1, 1, 0]), ("b", [1, 0, 0, 0])):
        for i, reward in enumerate(rewards):
            rows.append(
                {
                    "model": model,
                    "task_id": str(i // 2),
                    "trial": i % 2,
                    "reward": float(reward),
                    "db": float(reward),
                    "communicate": None if i // 2 else 1.0,
                    "env_assertion": None,
                    "action": None,
                    "nl_assertion": None,
                }
            )
    return pd.DataFrame(rows)


def test_pass_k_draws_its_table() -> None:
    twin = pass_k_table(_scores())
    assert twin[["label", "k", "pass_k", "ci_low", "ci_high"]].values.tolist() == [
        ["a (airline)", 1, 0.75, 0.3, 0.95],
        ["a (airline)", 2, 0.5, 0.1, 0.9],
        ["b (airline)", 1, 0.5, 0.1, 0.9],
    ]
    spec = pass_k_chart(_scores()).to_dict()
    data = next(iter(spec["datasets"].values()))
    assert len(data) == len(twin)
    marks = [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        for layer in spec["layer"]
    ]
    assert marks == ["area", "line"]


def test_reward_parts_draws_the_means_per_task() -> None:
    twin = reward_parts_table(_results())
    a0 = twin[(twin["model"] == "a") & (twin["task_id"] == "0")].set_index("part")
    assert a0.loc["reward", "value"] == 1.0 and a0.loc["communicate", "trials"] == 2
    a1 = twin[(twin["model"] == "a") & (twin["task_id"] == "1")].set_index("part")
    assert a1.loc["reward", "value"] == 0.5 and "communicate" not in a1.index
    spec = reward_parts_chart(_results()).to_dict()
    assert len(next(iter(spec["datasets"].values()))) == len(twin)
    assert (
        spec["mark"]["type"] == "rect" if isinstance(spec["mark"], dict) else spec["mark"] == "rect"
    )
