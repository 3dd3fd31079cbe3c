"""The embedded model on τ²: two mock tasks and one airline task, as the agent and as the user
simulator, within a small ``max_steps``; tau2's own evaluator reads our results file and gives
our rewards (marked ``model``: the lead runs it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooleval_nb.models.embedded import DEFAULT_INSTANCE, embedded_server
from tooleval_nb.tau2.run import USER_SERVER, run_tau2

pytest.importorskip("tau2.domains.airline.environment")


def _requests(instance: str) -> int:
    """The chat requests the embedded server ``instance`` of this process has answered."""
    server = embedded_server(start=False, instance=instance)
    return int(server.stats()["requests"]) if server.running else 0


@pytest.mark.model
@pytest.mark.parametrize(
    ("domain", "task_ids"),
    [("mock", ["create_task_1", "update_task_1"]), ("airline", ["0"])],
    ids=["mock", "airline"],
)
def test_the_embedded_model_in_both_roles(domain: str, task_ids: list[str], tmp_path: Path) -> None:
    from tau2.data_model.simulation import Results
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    out = tmp_path / f"{domain}.json"
    before = {i: _requests(i) for i in (USER_SERVER, DEFAULT_INSTANCE)}
    run = run_tau2(
        None,  # the embedded model, the agent; the user simulator: the same model
        domain,
        task_ids=task_ids,
        max_steps=12,
        output=out,
        store=str(tmp_path / "runs.db"),
        progress="none",
    ).result()
    loaded = Results.load(out)
    assert [s.task_id for s in loaded.simulations] == task_ids
    tasks = {t.id: t for t in loaded.tasks}
    theirs = {
        (s.task_id, s.trial): evaluate_simulation(
            s, tasks[s.task_id], EvaluationType.ALL, False, domain
        ).reward
        for s in loaded.simulations
    }
    ours = {
        (str(r.task_id), int(r.trial)): float(r.reward) for r in run.tau2_results_df().itertuples()
    }
    assert ours == theirs
    # the user simulator spoke to a server of its own (tau2.run.build_run), the agent to the
    # shared one (unless the test command's shared cache answered the run)
    asked = {i: _requests(i) - before[i] for i in before}
    assert asked[USER_SERVER] > 0 if asked[DEFAULT_INSTANCE] > 2 else True, asked
    for sim in loaded.simulations:  # both roles spoke through our model layer, within the limit
        assert any(m.role == "user" and m.content for m in sim.messages)
        assert sim.termination_reason.value in {
            "user_stop",
            "agent_stop",
            "max_steps",
            "agent_error",
            "user_error",
            "too_many_errors",
        }
