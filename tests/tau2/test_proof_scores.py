"""The proof on the wheel's data, with tau2's own evaluator: the gold agent gets reward 1 on
all of airline's 50 tasks, retail's 114, telecom's tasks_small 20 and 8 of mock's 9; the agent
that only greets and stops on 19 of airline's, 7 of retail's, none of telecom's; and our rescore
equals tau2's evaluator called directly on every simulation. Slow: airline and retail take
minutes (the fast subset is test_rescore.py's telecom and mock cases)."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.airline.environment")

import tooleval_nb as te  # noqa: E402

from .test_rescore import tau2_rewards  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]


@pytest.mark.parametrize(
    ("domain", "split", "tasks", "gold", "noop"),
    [
        ("airline", None, 50, 50, 19),
        ("retail", None, 114, 114, 7),
        ("telecom", "small", 20, 20, 0),
        ("mock", None, 9, 8, 1),
    ],
    ids=["airline", "retail", "telecom-small", "mock"],
)
def test_gold_and_greet_and_stop_on_every_task(tau2_file, domain, split, tasks, gold, noop):
    path = tau2_file(domain, split, "gn")
    frame = te.rescore_tau2(path).tau2_results_df()
    assert len(frame) == 2 * tasks
    rewards = frame.groupby("trial")["reward"].sum().to_dict()
    assert rewards == {0: float(gold), 1: float(noop)}
    if domain != "mock":  # tau2's evaluator raises on one of mock's greet-and-stop tasks
        assert frame["reward"].tolist() == tau2_rewards(path)
    else:
        scored = frame[frame["scored"]]
        assert len(scored) == 2 * tasks - 1
