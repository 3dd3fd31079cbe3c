"""τ²-bench's scores from a frame of simulations: pass^k as tau2 computes it, with intervals.

pass^k of a task with ``n`` trials of which ``c`` succeeded is ``C(c, k) / C(n, k)`` (tau2's
``metrics.agent_metrics.pass_hat_k``, called), a trial succeeding when its reward is 1 (tau2's
``is_successful``); the model's pass^k is the mean over tasks, for k = 1 … the fewest trials of
any task (tau2's ``get_metrics_df``). Each comes with the house's interval of a mean over tasks
(:func:`tooleval_nb.scoring.mean_ci`: Wilson when every task's value is 0 or 1, else t), with
the average reward and the cost per task.

A simulation that is not scored (tau2's evaluator refused it) is left out of the task's trials
and counted in ``not_scored``; tau2 would stop on it. Everything else counts as tau2 counts it:
an infrastructure error scores 0.

Pure: frames in, frames out (no I/O; tau2's two formulas are called, imported on first use).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..scoring import interval_method, mean_ci

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["SCORE_COLUMNS", "is_successful", "pass_hat_k", "task_pass_hat_k", "tau2_scores"]

#: the first columns of :func:`tau2_scores` (then ``pass^1``, ``pass^1_low``, ``pass^1_high``
#: ... ``pass^k``, ``pass^k_low``, ``pass^k_high``)
SCORE_COLUMNS = [
    "model",
    "domain",
    "tasks",
    "trials",
    "simulations",
    "not_scored",
    "avg_reward",
    "avg_agent_cost",
    "avg_user_cost",
    "cost_per_task",
    "ci_method",
]


def is_successful(reward: float) -> bool:
    """Whether a reward counts as a success (tau2's ``is_successful``: 1 within 1e-6)."""
    from tau2.metrics.agent_metrics import is_successful as tau2_is_successful

    return bool(tau2_is_successful(reward))


def pass_hat_k(num_trials: int, success_count: int, k: int) -> float:
    """``C(success_count, k) / C(num_trials, k)`` (tau2's ``pass_hat_k``)."""
    from tau2.metrics.agent_metrics import pass_hat_k as tau2_pass_hat_k

    return float(tau2_pass_hat_k(num_trials, success_count, k))


def task_pass_hat_k(df: pd.DataFrame, max_k: int | None = None) -> pd.DataFrame:
    """Per task: ``pass^1`` … ``pass^k``, in tau2's order (by task id, then sorted by the
    task's number of actions, as tau2's ``prepare_dfs`` orders them before the mean: the same
    order gives the same floating-point mean).

    ``df`` holds the scored simulations of one model and domain (``task_id``, ``reward``,
    ``task_num_actions``); k runs to ``max_k`` or the fewest trials of any task.
    """
    import pandas as pd

    success = df["reward"].map(is_successful)
    groups = success.groupby(df["task_id"])
    counts = groups.size()
    top = int(counts.min()) if max_k is None else min(max_k, int(counts.min()))
    columns = {}
    for k in range(1, top + 1):
        columns[f"pass^{k}"] = groups.apply(lambda s, k=k: pass_hat_k(len(s), int(s.sum()), k))
    frame = pd.DataFrame(columns, index=counts.index)
    if "task_num_actions" in df.columns:
        actions = df.groupby("task_id")["task_num_actions"].first()
        frame["num_actions"] = actions
        frame = frame.sort_values(by="num_actions").drop(columns="num_actions")
    return frame


def tau2_scores(
    df: pd.DataFrame,
    *,
    ci: float = 0.95,
    exclude_tasks: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Per model and domain: pass^1 … pass^k with intervals, average reward and cost.

    Args:
        df: one row per simulation (``Tau2Run.tau2_results_df()``: ``model``, ``domain``,
            ``task_id``, ``reward``, ``scored``, ``num_trials``, ``agent_cost``,
            ``user_cost``).
        ci: the intervals' confidence level.
        exclude_tasks: leave these task ids out (e.g. the tasks an agent that does nothing
            passes: the inaction baseline).
    """
    import pandas as pd

    if exclude_tasks is not None:
        df = df[~df["task_id"].isin(set(map(str, exclude_tasks)))]
    rows = []
    for (model, domain), group in df.groupby(["model", "domain"], sort=False, dropna=False):
        scored = group[group["scored"]]
        row: dict[str, object] = {
            "model": model,
            "domain": domain,
            "tasks": int(scored["task_id"].nunique()),
            "simulations": len(scored),
            "not_scored": int((~group["scored"]).sum()),
        }
        nan = float("nan")
        if scored.empty:
            row.update(trials=0, avg_reward=nan, avg_agent_cost=nan, avg_user_cost=nan)
            row.update(cost_per_task=nan, ci_method=None)
            rows.append(row)
            continue
        # tau2's max k: the most trials the file says, or the fewest any task has if fewer
        most = int(scored["num_trials"].max()) if "num_trials" in scored else None
        per_task = task_pass_hat_k(scored, most)
        row["trials"] = per_task.shape[1]
        row["avg_reward"] = float(scored["reward"].mean())
        row["avg_agent_cost"] = float(scored["agent_cost"].mean())
        row["avg_user_cost"] = float(scored["user_cost"].mean())
        cost = scored["agent_cost"].fillna(0) + scored["user_cost"].fillna(0)
        row["cost_per_task"] = float(cost.mean())
        row["ci_method"] = (
            interval_method(per_task.iloc[:, 0].to_numpy()) if len(per_task) else None
        )
        for column in per_task.columns:
            values = per_task[column]
            _, low, high = mean_ci(values.to_numpy(), ci)
            mean = float(values.mean())
            row[column] = mean
            # the bounds hold the mean (Wilson's bound at 0 of 0 comes out as ~1e-17)
            row[f"{column}_low"] = min(low, mean)
            row[f"{column}_high"] = max(high, mean)
        rows.append(row)
    frame = pd.DataFrame(rows)
    passes = [c for c in frame.columns if c not in SCORE_COLUMNS]
    ordered = sorted(passes, key=lambda c: (int(c.split("^")[1].split("_")[0]), c))
    return frame.reindex(columns=[c for c in SCORE_COLUMNS if c in frame.columns] + ordered)
