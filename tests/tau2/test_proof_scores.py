"""The proof on the wheel's data, with tau2's own evaluator: the gold agent gets reward 1 on
all of airline's 50 tasks, retail's 114, telecom's tasks_small 20 and 8 of mock's 9; the agent
that only greets and stops on 19 of airline's, 7 of retail's, none of telecom's; and our rescore
equals tau2's evaluator called directly on every simulation: the reward and every part of it
(the whole reward info: DB, COMMUNICATE, ENV_ASSERTION, ACTION, NL, the checks and notes), and,
where tau2's evaluator raises, our "not scored" reason is made of its very exception. Slow:
airline and retail take minutes (the fast subset is test_rescore.py's telecom and mock cases,
and test_session.py's)."""

from __future__ import annotations

import pytest

pytest.importorskip("tau2.domains.airline.environment")

import tooleval_nb as te  # noqa: E402
from tooleval_nb.tau2 import evaluate  # noqa: E402

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
    run = te.rescore_tau2(path)
    frame = run.tau2_results_df()
    assert len(frame) == 2 * tasks
    rewards = frame.groupby("trial")["reward"].sum().to_dict()
    assert rewards == {0: float(gold), 1: float(noop)}
    theirs = _tau2_direct(path)
    ours = [(v.reward_info, v.not_scored) for v in run.parts[0].verdicts]
    assert len(ours) == len(theirs)
    for (info, reason), (their_info, their_error) in zip(ours, theirs, strict=True):
        if their_error is None:
            assert reason is None and info is not None
            assert info.model_dump() == their_info.model_dump()
        else:
            assert info is None and reason == evaluate._reason(their_error)
    refused = sum(error is not None for _, error in theirs)
    assert refused == (1 if domain == "mock" else 0)  # tau2 raises on one of mock's greet-and-stop


def _tau2_direct(path) -> list[tuple[object, Exception | None]]:
    """tau2's evaluator called directly on each simulation of the file, as its
    evaluate_trajectories calls it: the reward info, or the exception it raised."""
    from tau2.data_model.simulation import Results
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    loaded = Results.load(path)
    tasks = {task.id: task for task in loaded.tasks}
    out: list[tuple[object, Exception | None]] = []
    for sim in loaded.simulations:
        try:
            info = evaluate_simulation(
                simulation=sim,
                task=tasks[sim.task_id],
                evaluation_type=EvaluationType.ALL,
                solo_mode=False,
                domain=loaded.info.environment_info.domain_name,
            )
        except Exception as exc:  # noqa: BLE001 - compared with our not-scored reason
            out.append((None, exc))
        else:
            out.append((info, None))
    return out
