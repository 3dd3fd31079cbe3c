"""``te.run_tau2`` with scripted models (``MockTransport``): tau2's orchestrator, our agent and
user through the runner's cells, rewards from tau2's own evaluator on what we stored and wrote.

The scripted participants are :mod:`tooleval_nb.testing.tau2_script`: a gold agent (the
task's actions, the user's own by the user in telecom, then the required strings) and a
greet-and-stop agent; both with the scripted user.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

import tooleval_nb as te
from tooleval_nb.errors import JobCancelled, ModelBadRequestError, ModelConfigError
from tooleval_nb.models.transport import ChatRequest
from tooleval_nb.tau2.domains import Tau2Error, load_tasks
from tooleval_nb.tau2.evaluate import evaluate
from tooleval_nb.tau2.loop import trial_seeds
from tooleval_nb.tau2.run import run_tau2, run_tau2_async
from tooleval_nb.tau2.trajectory import gold_simulation, noop_simulation
from tooleval_nb.testing import MockTransport
from tooleval_nb.testing.tau2_script import answer, answer_for, answer_inaction

pytest.importorskip("tau2.domains.airline.environment")

SPLIT = {"telecom": "small"}


def _model(handler: Any = answer, name: str = "openai/scripted") -> dict[str, Any]:
    return {"model": name, "transport": MockTransport(handler)}


def _evaluate(results: Any, domain: str) -> dict[tuple[str, int], float]:
    """tau2's own evaluator on each simulation: (task id, trial) -> reward."""
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    tasks = {t.id: t for t in results.tasks}
    return {
        (sim.task_id, sim.trial): evaluate_simulation(
            sim, tasks[sim.task_id], EvaluationType.ALL, False, domain
        ).reward
        for sim in results.simulations
    }


def _rewards(frame: Any) -> dict[tuple[str, int], float | None]:
    """Our rewards (``tau2_results_df``): (task id, trial) -> reward (None: not scored)."""
    return {
        (str(r.task_id), int(r.trial)): (
            None if r.reward is None or r.reward != r.reward else float(r.reward)
        )
        for r in frame.itertuples()
    }


def _noop_reward(task: Any, domain: str) -> float | None:
    """tau2's evaluator on the scripted greet-and-stop conversation of ``task`` (apart from any run)."""
    return evaluate(domain, task, noop_simulation(task)).reward


def _gold_reward(task: Any, domain: str) -> float | None:
    """tau2's evaluator on the scripted gold conversation of ``task`` (apart from any run)."""
    return evaluate(domain, task, gold_simulation(domain, task)).reward


def _run(domain: str, tmp_path: Path, handler: Any = answer, **options: Any) -> Any:
    options.setdefault("split", SPLIT.get(domain))
    return asyncio.run(
        run_tau2_async(
            _model(handler),
            domain,
            store=str(tmp_path / "runs.db"),
            cache=False,
            resume=False,
            **options,
        )
    )


@pytest.mark.parametrize(
    ("domain", "limit"),
    [("mock", None), ("airline", 3), ("retail", 3), ("telecom", 3)],
    ids=["mock", "airline", "retail", "telecom"],
)
def test_the_gold_agent_gets_reward_1(domain: str, limit: int | None, tmp_path: Path) -> None:
    run = _run(domain, tmp_path, limit=limit)
    results = run.stored.tau2_results()
    assert [s.task_id for s in results.simulations] == [t.id for t in results.tasks]
    assert {s.termination_reason.value for s in results.simulations} == {"user_stop"}
    rewards = _evaluate(results, domain)
    gold = {(t.id, 0): _gold_reward(t, domain) for t in results.tasks}
    assert rewards and all(rewards[k] == 1.0 for k, r in gold.items() if r == 1.0)
    assert set(rewards.values()) == {1.0}
    ours = run.tau2_results_df()
    assert _rewards(ours) == rewards
    assert run.tau2_scores()["pass^1"].tolist() == [1.0]
    df = run.stored.results_df()
    assert df["error"].isna().all() and df["passed"].all() and (df["overall"] == 1.0).all()
    hops = json.loads(
        run.stored.store.result_detail(run.id, run.stored.models[0], results.tasks[0].id, 0)
    )
    assert {h["role"] for h in hops["hops"]} == {"agent", "user"}


def test_telecom_users_act_on_their_own_phone(tmp_path: Path) -> None:
    task = next(t for t in load_tasks("telecom", "small") if t.evaluation_criteria.actions)
    run = _run("telecom", tmp_path, task_ids=[task.id])
    (sim,) = run.stored.tau2_results().simulations
    user_calls = [
        c.name
        for m in sim.messages
        if m.role == "user" and m.tool_calls
        for c in m.tool_calls
        if c.requestor == "user"
    ]
    assert user_calls == [a.name for a in task.evaluation_criteria.actions if a.requestor == "user"]
    user_results = [m for m in sim.messages if m.role == "tool" and m.requestor == "user"]
    assert len(user_results) == len(user_calls)
    assert _evaluate(run.stored.tau2_results(), "telecom") == {(task.id, 0): 1.0}


def test_greet_and_stop_matches_the_inaction_rewards(tmp_path: Path) -> None:
    run = _run("airline", tmp_path, handler=answer_inaction, limit=4)
    rewards = _evaluate(run.stored.tau2_results(), "airline")
    tasks = load_tasks("airline")[:4]
    assert rewards == {(t.id, 0): _noop_reward(t, "airline") for t in tasks}
    assert 0 < sum(rewards.values()) < 4  # some airline tasks pass on inaction alone (0 and 1)
    # the runner's rows, and so the history, count tau2's successes, not our call scoring's
    rows = run.stored.results_df()
    stored = {(str(r.case_id), int(r.sample or 0)): r for r in rows.itertuples()}
    assert {k: (r.overall, r.passed) for k, r in stored.items()} == {
        k: (reward, reward == 1.0) for k, reward in rewards.items()
    }
    (history,) = te.history(store=run.stored.store).itertuples()
    assert history.n_passed == sum(rewards.values()) and history.pass_rate < 1


def test_the_results_file_is_read_and_scored_by_tau2(tmp_path: Path) -> None:
    from tau2.data_model.simulation import Results

    out = tmp_path / "out" / "mock.json"
    run = _run("mock", tmp_path, handler=answer, trials=2, limit=3, output=out)
    loaded = Results.load(out)
    assert loaded.info.num_trials == 2 and loaded.info.user_info.llm == run.stored.models[0]
    assert [(s.task_id, s.trial) for s in loaded.simulations] == [
        (t, k)
        for t in ("create_task_1", "create_task_1_with_env_assertions", "create_task_1_nl_eval")
        for k in (0, 1)
    ]
    assert [s.seed for s in loaded.simulations][:2] == trial_seeds(2)
    theirs = _evaluate(loaded, "mock")
    assert theirs == _evaluate(run.stored.tau2_results(), "mock")
    ours = run.tau2_results_df()
    assert _rewards(ours) == theirs


def test_trials_send_tau2_seeds_to_both_roles(tmp_path: Path) -> None:
    seen: list[tuple[bool, Any]] = []

    def handler(request: ChatRequest) -> Any:
        seen.append(
            ("<scenario>" in str(request.messages[0].get("content")), request.params.get("seed"))
        )
        return answer(request)

    _run("mock", tmp_path, handler=handler, trials=2, task_ids=["create_task_1"])
    seeds = set(trial_seeds(2))
    assert {s for user, s in seen if user} == seeds and {s for user, s in seen if not user} == seeds


def test_the_user_model_is_asked_through_the_run(tmp_path: Path) -> None:
    agent, user = MockTransport(answer), MockTransport(answer)
    run = asyncio.run(
        run_tau2_async(
            {"model": "openai/agent", "transport": agent},
            "mock",
            user_model={"model": "openai/user", "transport": user},
            task_ids=["create_task_1"],
            store=str(tmp_path / "runs.db"),
            cache=False,
        )
    )
    assert agent.requests and user.requests
    assert all("<scenario>" in str(r.messages[0]["content"]) for r in user.requests)
    assert not any("<scenario>" in str(r.messages[0]["content"]) for r in agent.requests)
    detail = json.loads(
        run.stored.store.result_detail(run.id, run.stored.models[0], "create_task_1", 0)
    )
    roles = [h["role"] for h in detail["hops"]]
    assert roles.count("user") == len(user.requests) and roles.count("agent") == len(agent.requests)
    results = run.stored.tau2_results()
    assert results.info.user_info.llm == "openai/user"
    assert results.info.agent_info.llm == "openai/agent"


def test_an_empty_agent_message_ends_the_simulation_as_tau2_records_it(tmp_path: Path) -> None:
    def handler(request: ChatRequest) -> Any:
        if "<scenario>" in str(request.messages[0].get("content")):
            return answer(request)
        return {"role": "assistant", "content": ""}

    run = _run("mock", tmp_path, handler=handler, task_ids=["create_task_1"])
    (sim,) = run.stored.tau2_results().simulations
    assert sim.termination_reason.value == "agent_error"
    assert (
        run.stored.results_df()["error"].isna().all()
    )  # a scored failure, not an infrastructure error
    assert _evaluate(run.stored.tau2_results(), "mock") == {("create_task_1", 0): 0.0}


def test_a_failed_model_call_is_the_cells_error_and_a_skipped_simulation(tmp_path: Path) -> None:
    from tooleval_nb.errors import ModelServerError

    def handler(request: ChatRequest) -> Any:
        raise ModelServerError("down", status_code=503)

    run = _run(
        "mock", tmp_path, handler=handler, task_ids=["create_task_1"], retry={"max_tries": 1}
    )
    assert run.stored.results_df()["error_type"].tolist() == ["ModelServerError"]
    (sim,) = run.stored.tau2_results().simulations
    assert sim.skipped and sim.reward_info.reward == 0.0


def test_a_model_that_rejects_tools_gets_run_bfcls_advice(tmp_path: Path) -> None:
    def handler(request: ChatRequest) -> Any:
        raise ModelBadRequestError("this model does not support tools", status_code=400)

    with pytest.raises(ModelConfigError, match="cannot be run in mode='fc'"):
        _run("mock", tmp_path, handler=handler, limit=2, retry={"max_tries": 1})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"domain": "bank"}, "airline, retail, telecom, mock"),
        ({"mode": "smoke"}, "mode must be 'fc'"),
        ({"trials": 0}, "trials must be a positive integer"),
        ({"max_steps": -1}, "max_steps must be a positive integer"),
        ({"task_ids": ["nope"]}, "has no task 'nope'"),
    ],
    ids=["domain", "mode", "trials", "max_steps", "task"],
)
def test_bad_input_is_refused_before_any_call(options: dict[str, Any], message: str) -> None:
    domain = options.pop("domain", "mock")
    mock = MockTransport(answer)
    with pytest.raises(Tau2Error, match=message):
        run_tau2({"model": "openai/x", "transport": mock}, domain, **options)
    assert not mock.requests


def test_run_options_it_sets_itself_are_refused() -> None:
    with pytest.raises(TypeError, match="run_tau2 sets repeats"):
        run_tau2(_model(), "mock", repeats=3)


def test_twice_in_one_process_a_cancel_then_a_resume(tmp_path: Path) -> None:
    """A run, then a run cancelled midway and left as a killed process leaves it, then the same
    run again: it resumes, and no finished simulation is asked again."""
    store = str(tmp_path / "runs.db")
    asked: list[str] = []
    gate = asyncio.Event

    async def main() -> None:
        release = gate()

        async def slow(request: ChatRequest) -> Any:
            reply = answer(request)
            asked.append(_task_of(request))
            if len(asked) > 12:
                await release.wait()  # the cancel comes while this waits
            return reply

        first = await run_tau2_async(_model(), "mock", limit=2, store=store, cache=False)
        assert len(first.stored.tau2_results().simulations) == 2
        job = run_tau2(
            {"model": "openai/slow", "transport": MockTransport(slow)},
            "mock",
            store=store,
            cache=False,
            max_concurrency=1,
            progress="none",
        )
        while len(asked) <= 12:
            await asyncio.sleep(0.01)
        job.cancel()
        with pytest.raises(JobCancelled):
            await job
        stored = {r.case_id for r in job.snapshot().stored._rows}
        assert 0 < len(stored) < 9
        # as a killed process leaves it: its job unfinished, its owner gone
        with job.store.transaction() as db:
            db.execute(
                "UPDATE jobs SET status = 'interrupted', owner = NULL WHERE id = ?", (job.id,)
            )
        asked.clear()
        release.set()
        again = run_tau2(
            {"model": "openai/slow", "transport": MockTransport(slow)},
            "mock",
            store=store,
            cache=False,
            max_concurrency=1,
            progress="none",
        )
        run = await again
        assert again.job.id == job.job.id  # resumed
        assert not stored & set(asked)  # no finished simulation asked again
        assert len(run.stored.tau2_results().simulations) == 9

    asyncio.run(main())


def _task_of(request: ChatRequest) -> str:
    for m in request.messages:
        text = str(m.get("content") or "")
        if "task:" in text:
            return text.split("task:", 1)[1].split()[0].split("/")[1]
    from tooleval_nb.testing.tau2_script import task_of_scenario

    return task_of_scenario(str(request.messages[0]["content"])).split("/")[1]


def _each_task(domain: str, tmp_path: Path, inaction: bool = False) -> dict:
    """Every task of ``domain`` in a run of its own, the scripted user told its task (tasks
    share user scenarios in telecom and mock): (task id, trial) -> our reward."""
    tasks = load_tasks(domain, SPLIT.get(domain))
    store = str(tmp_path / "runs.db")

    async def main() -> dict:
        out: dict = {}
        for task in tasks:
            run = await run_tau2_async(
                _model(answer_for(domain, task.id, inaction=inaction)),
                domain,
                task_ids=[task.id],
                split=SPLIT.get(domain),
                store=store,
                cache=False,
            )
            out.update(_rewards(run.tau2_results_df()))
        return out

    return asyncio.run(main())


@pytest.mark.slow
@pytest.mark.timeout(3600)  # airline and retail: every task twice, each scored by tau2
@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "mock"])
def test_every_task_gold_and_inaction(domain: str, tmp_path: Path) -> None:
    """On every task of the wheel's data (telecom: tasks_small): the gold agent gets reward 1
    wherever tau2's evaluator gives 1 to the gold conversation (50 airline, 114 retail, 20
    telecom, 8 mock), and the greet-and-stop agent gets, task by task, what tau2's evaluator
    gives the no-op conversation (19 airline, 7 retail, 0 telecom)."""
    tasks = load_tasks(domain, SPLIT.get(domain))
    rewards = _each_task(domain, tmp_path / "gold")
    assert len(rewards) == len(tasks)
    gold = {(t.id, 0): _gold_reward(t, domain) for t in tasks}
    assert all(rewards[k] == 1.0 for k, r in gold.items() if r == 1.0)
    idle = _each_task(domain, tmp_path / "idle", inaction=True)
    assert idle == {(t.id, 0): _noop_reward(t, domain) for t in tasks}


def test_raw_text_mode_reads_the_calls_from_the_reply_text(tmp_path: Path) -> None:
    """mode="hermes": no native tools are sent; the tools are in the prompt and the agent's
    calls are read from its text."""
    sent_tools: list[Any] = []

    def hermes(request: ChatRequest) -> Any:
        sent_tools.append(request.tools)
        # the script counts the calls it made: in raw text they are the <tool_call> blocks
        seen = [
            {**m, "tool_calls": [{}] * str(m.get("content")).count("<tool_call>")}
            if m.get("role") == "assistant" and "<tool_call>" in str(m.get("content"))
            else m
            for m in request.messages
        ]
        reply = answer(dataclasses.replace(request, messages=seen))
        calls = reply.get("tool_calls") or []
        if not calls:
            return reply
        fn = calls[0]["function"]
        text = json.dumps({"name": fn["name"], "arguments": json.loads(fn["arguments"])})
        return {"role": "assistant", "content": f"<tool_call>\n{text}\n</tool_call>"}

    run = _run(
        "mock", tmp_path, handler=hermes, task_ids=["create_task_1"], mode="hermes", max_steps=30
    )
    assert not any(sent_tools)
    assert _evaluate(run.stored.tau2_results(), "mock") == {("create_task_1", 0): 1.0}
    (sim,) = run.stored.tau2_results().simulations
    assert [c.name for m in sim.messages if m.role == "assistant" for c in m.tool_calls or []] == [
        "create_task"
    ]


def test_the_hook_pickles_for_a_ray_replica() -> None:
    import pickle

    from tooleval_nb.tau2.domains import make_environment
    from tooleval_nb.tau2.loop import Tau2Loop

    tasks = {t.id: t for t in load_tasks("mock")[:2]}
    loop = Tau2Loop("mock", tasks, trial_seeds(2), max_steps=7, scripts={("x", 0): []})
    loop._domain_tools(make_environment("mock"))  # built here; not sent to a replica
    again = pickle.loads(pickle.dumps(loop))
    assert again.tasks.keys() == tasks.keys() and again.seeds == loop.seeds
    assert again.max_steps == 7 and again.scripts == {("x", 0): []} and again._tools == {}


def test_an_embedded_agents_own_user_speaks_to_a_server_of_its_own() -> None:
    """The embedded agent's user simulator (no ``user_model``) is the same model on a second
    server instance, so agent and user keep their prompts in KV caches of their own; so is a
    user model named that is the embedded model. Other user models are asked as given. The
    hook with that user still pickles for a Ray replica (no server is started here)."""
    import pickle

    from tooleval_nb.models.direct import EmbeddedTransport
    from tooleval_nb.models.embedded import DEFAULT_INSTANCE
    from tooleval_nb.tau2.run import USER_SERVER, Tau2Spec, build_run

    spec = Tau2Spec("mock", load_tasks("mock")[:1], seeds=trial_seeds(1))
    _, loop = build_run(spec, None)
    (label,) = loop.user_models
    user = loop.user_models[label]
    assert isinstance(user.transport, EmbeddedTransport) and user.embedded
    assert user.transport.instance == USER_SERVER != DEFAULT_INSTANCE
    assert user.transport.chat_format == "chatml-function-calling" and user.mode == "native"
    assert loop.user_labels.get(label, label) == label  # recorded as the agent's own model
    assert pickle.loads(pickle.dumps(loop)).user_models[label].transport.instance == USER_SERVER

    raw = dataclasses.replace(spec, mode="hermes")
    (user,) = build_run(raw, None)[1].user_models.values()
    assert user.transport.chat_format == "chatml" and user.transport.instance == USER_SERVER

    assert build_run(spec, _model())[1].user_models == {}  # not the embedded model: as given
    named = dataclasses.replace(spec, user_model=_model(name="openai/user"))
    (user,) = build_run(named, None)[1].user_models.values()
    assert user.model == "openai/user" and not isinstance(user.transport, EmbeddedTransport)
    named = dataclasses.replace(spec, user_model="local/smollm2-135m")  # named, yet embedded
    (user,) = build_run(named, _model())[1].user_models.values()
    assert user.transport.instance == USER_SERVER


def test_the_runs_scores_reuse_tau2s_verdicts_on_its_own_cells(tmp_path: Path) -> None:
    """Each simulation the run's process ran is evaluated once, on what it stored: the job
    keeps tau2's verdict from the cell, the scores take it, and it equals tau2's evaluator on
    the results file; a fresh view of the stored run (nothing computed) evaluates it all."""
    from tau2.data_model.simulation import Results

    from tooleval_nb.tau2 import run as tau2_run

    out = tmp_path / "mock.json"
    job = run_tau2(
        _model(answer),
        "mock",
        limit=4,
        output=out,
        store=str(tmp_path / "runs.db"),
        cache=False,
        progress="none",
    )
    run = job.result()
    (label,) = run.stored.models
    theirs = _evaluate(Results.load(out), "mock")
    assert set(job.verdicts) == {label} and len(theirs) == 4
    assert {k: v.reward for k, v in job.verdicts[label].items()} == theirs
    assert _rewards(run.tau2_results_df()) == theirs
    evaluated: list[int] = []
    real = tau2_run.score_results

    def counting(results: Any, **kwargs: Any) -> Any:
        evaluated.append(len(results.simulations) - len(kwargs.get("computed") or {}))
        return real(results, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tau2_run, "score_results", counting)
        assert _rewards(run.stored.scored(job.verdicts).tau2_results_df()) == theirs
        assert _rewards(run.stored.scored().tau2_results_df()) == theirs
    assert evaluated == [0, 4]


def test_the_results_file_and_scores_reuse_the_simulations_read_in_the_cells(
    tmp_path: Path,
) -> None:
    """The simulations the cells read from what they stored (for tau2's verdict) serve the
    results file and the scores: not read from the store again, and equal to what a fresh view
    of the stored run reads (each row's sample is its trial)."""
    from tooleval_nb.tau2.run import Tau2Simulations

    job = run_tau2(
        _model(answer),
        "mock",
        limit=3,
        trials=2,
        store=str(tmp_path / "runs.db"),
        cache=False,
        progress="none",
    )
    run = job.result()
    (label,) = run.stored.models
    kept = job.computed[label]
    assert len(kept) == 6 and {trial for _, trial in kept} == {0, 1}
    mine = run.stored.simulations()[label]
    assert all(any(sim is k for k in kept.values()) for sim in mine)  # the very objects
    fresh = Tau2Simulations.of(run.stored, job.spec, job.suite).simulations()[label]
    assert not any(s is k for s in fresh for k in kept.values())
    dump = [s.model_dump(mode="json") for s in mine]
    assert dump == [s.model_dump(mode="json") for s in fresh]
    assert sorted((s.task_id, s.trial) for s in fresh) == sorted(kept)
