"""run_eval end to end against the local fake server: frames, events, notebook mode, cancel,
faults, queueing, history."""

from __future__ import annotations

import asyncio
import json

import pytest

import tooleval_nb as te
from tooleval_nb.errors import JobCancelled, JobError, StoreError
from tooleval_nb.runner import RESULT_COLUMNS, SUMMARY_COLUMNS, Store
from tooleval_nb.runner.store import resolve_store


def test_blocking_run_frames_and_history(fake, make_suite, model_of, store_path):
    suite = make_suite(12)
    job = te.run_eval(suite, [model_of(fake)], progress="none", cache=False)
    assert job.done() and job.status == "completed"
    run = job.result()
    df = run.results_df()
    assert list(df.columns) == list(RESULT_COLUMNS)
    assert len(df) == 12 and df["case_id"].is_unique
    assert df["passed"].all() and (df["overall"] == 1.0).all()
    assert df["tags"].iloc[0] == ["even"]
    first = json.loads(df["tool_calls"].iloc[0])
    assert first[0]["function"]["name"] == "get_weather"
    assert json.loads(first[0]["function"]["arguments"]) == {"city": "Town0"}
    assert json.loads(df["expected"].iloc[0])["expected_params"] == {"city": "Town0"}
    assert (df["n_hops"] == 1).all() and (df["tries"] == 1).all() and (df["sample"] == 0).all()
    summary = run.summary_df()
    assert list(summary.columns) == list(SUMMARY_COLUMNS)
    row = summary.iloc[0]
    assert (row["n_cases"], row["n_passed"], row["n_failed"], row["n_errored"]) == (12, 12, 0, 0)
    assert row["pass_rate"] == 1.0 and row["model"] == "openai/fake"
    assert fake.requests == 12
    hist = te.history()
    assert hist.loc[0, "run_id"] == run.id and hist.loc[0, "status"] == "completed"
    assert hist.loc[0, "n_results"] == 12 and hist.loc[0, "models"] == ["openai/fake"]
    assert te.load_run(run.id).results_df().equals(df)
    assert te.load_run(job.id).id == run.id  # a job id works too
    detail = run.detail("c003")
    assert detail["score"]["passed"] is True and detail["hops"][0]["tool_calls"]
    assert "sk-test-secret" not in json.dumps(detail)
    bundle = run._repr_mimebundle_()
    assert "text/html" in bundle and "openai/fake" in bundle["text/html"]
    te.delete_run(run.id)
    assert te.history().empty
    with pytest.raises(StoreError):
        te.load_run(run.id)


def test_events_in_seed_order_and_stored(fake, make_suite, model_of, store_path):
    seen = []
    job = te.run_eval(
        make_suite(3),
        [model_of(fake), model_of(fake, label="twin")],
        progress="none",
        cache=False,
        max_concurrency=1,
        callbacks=seen.append,
    )
    types = [e.type for e in seen]
    per_case = ["tool_eval_progress", "tool_eval_result", "job_progress"]
    # one provider group: the two models run one after the other
    assert types == (
        ["job_created", "tool_eval_init"]
        + per_case * 3
        + ["tool_eval_summary"]
        + per_case * 3
        + ["tool_eval_summary", "tool_eval_complete", "job_completed"]
    )
    assert [e.type for e in job.events] == types
    assert [e.type for e in job.store.events(job.id)] == types
    summaries = [e.data for e in seen if e.type == "tool_eval_summary"]
    assert [s["model"] for s in summaries] == ["openai/fake", "twin"]
    assert all(s["n_passed"] == 3 for s in summaries)
    progress = [e.data for e in seen if e.type == "job_progress"]
    assert [p["done"] for p in progress] == list(range(1, 7)) and progress[-1]["percent"] == 100


def test_busy_runs_coalesce_job_progress(fake, make_suite, model_of, store_path):
    seen = []
    job = te.run_eval(
        make_suite(80),
        [model_of(fake)],
        progress="none",
        cache=False,
        max_concurrency=32,
        callbacks=seen.append,
    )
    types = [e.type for e in seen]
    assert types.count("tool_eval_result") == types.count("tool_eval_progress") == 80
    progress = [e.data for e in seen if e.type == "job_progress"]
    # stored as they finish (a transaction per finisher turn), not once at the end
    assert 2 <= len(progress) <= 80 and progress[-1]["done"] == 80
    assert [p["done"] for p in progress] == sorted({p["done"] for p in progress})
    # each job_progress follows the results it counts, and everything published is stored
    for i, event in enumerate(seen):
        if event.type == "job_progress":
            assert types[:i].count("tool_eval_result") == event.data["done"]
    assert [e.type for e in job.store.events(job.id)] == types


def test_a_burst_shares_commits_a_serial_run_commits_each_case(
    fake, make_suite, model_of, store_path, monkeypatch
):
    """Cases scored in a burst share transactions (each commit rewrites the pages it touched);
    a case finishing alone is committed within COMMIT_AFTER_S, before the next one's reply."""
    from tooleval_nb.runner.finish import COMMIT_AFTER_S

    batches: list[int] = []
    real = Store.write_results

    def counted(self, job_id, items):
        batches.append(len(items))
        return real(self, job_id, items)

    monkeypatch.setattr(Store, "write_results", counted)
    fake._state.latency = 0.05
    run = te.run_eval(
        make_suite(96), [model_of(fake)], progress="none", cache=False, max_concurrency=32
    ).result()
    assert len(run) == 96 and sum(batches) == 96
    assert len(batches) <= 96 // 4  # a commit per case would be 96
    batches.clear()
    seen = []
    fake._state.latency = COMMIT_AFTER_S * 2  # the next reply comes after the commit is due
    te.run_eval(
        make_suite(4),
        [model_of(fake)],
        progress="none",
        cache=False,
        max_concurrency=1,
        callbacks=seen.append,
    ).result()
    assert batches == [1, 1, 1, 1]
    # and each case was published (so stored) before the next one's request went out
    assert [e.data["current"] for e in seen if e.type == "tool_eval_progress"] == [1, 2, 3, 4]


def test_the_stored_config_is_the_plan_config(fake, make_suite, model_of, store_path):
    """The job's config is written from the suite's canonical text (encoded once with the
    fingerprint): read back, it is the plan's config, and it rebuilds the same suite."""
    from tooleval_nb.runner.plan import Plan

    suite = make_suite(3)
    job = te.run_eval(suite, [model_of(fake)], progress="none", cache=False, name="cfg")
    stored = job.store.job(job.id).config
    assert stored == job.plan.config()
    assert stored["suite"] == suite.model_dump(mode="json") and stored["name"] == "cfg"
    rebuilt = Plan.from_config(stored)
    assert rebuilt.suite == suite and rebuilt.fingerprint == suite.fingerprint()
    assert job.store.run_row(job.run_id).suite_fingerprint == suite.fingerprint()


def test_a_completed_run_reads_its_rows_when_first_used(fake, make_suite, model_of, store_path):
    run = te.run_eval(make_suite(5), [model_of(fake)], progress="none", cache=False).result()
    assert run._loaded is None  # the job did not read back the rows it had just written
    assert len(run) == 5 and run._loaded is not None
    assert run.results_df().equals(te.load_run(run.id).results_df())


async def test_the_heap_is_frozen_while_runs_go(fake, make_suite, model_of, store_path):
    import gc

    from tooleval_nb.runner.finish import others_ready as _others_ready

    assert gc.get_freeze_count() == 0
    frozen = []

    def watch(event):
        if event.type == "tool_eval_result":
            frozen.append(gc.get_freeze_count())

    jobs = [
        te.run_eval(
            make_suite(6),
            [model_of(fake, label=f"m{i}")],
            progress="none",
            cache=False,
            callbacks=watch,
            name=f"r{i}",
        )
        for i in range(2)
    ]
    await asyncio.gather(*jobs)  # two at once: the heap is thawed when the last one ends
    assert len(frozen) == 12 and all(count > 0 for count in frozen)
    assert gc.get_freeze_count() == 0
    loop = asyncio.get_running_loop()
    assert not _others_ready(loop)
    loop.call_soon(lambda: None)
    assert _others_ready(loop)


async def test_notebook_mode_returns_at_once(fake, make_suite, model_of, store_path):
    job = te.run_eval(make_suite(10), [model_of(fake)], progress="none", cache=False)
    assert not job.done() and job.status == "queued"  # the cell would finish here
    with pytest.raises(JobError, match="await job"):
        job.result()  # blocking the kernel's loop would freeze it
    run = await job
    assert job.status == "completed" and len(run) == 10
    assert job.result() is run
    assert "completed" in job._repr_mimebundle_()["text/plain"]


async def test_run_eval_async(fake, make_suite, model_of, store_path):
    run = await te.run_eval_async(make_suite(4), [model_of(fake)], cache=False)
    assert run.status == "completed" and len(run) == 4


async def test_cancel_keeps_finished_cases(fake, make_suite, model_of, store_path):
    fake._state.latency = 0.02
    finished: list[str] = []

    def on_result(event):
        finished.append(event.data["case_id"])
        if len(finished) == 5:
            job.cancel()

    job = te.run_eval(
        make_suite(60),
        [model_of(fake)],
        progress="none",
        cache=False,
        max_concurrency=2,
        callbacks={"tool_eval_result": on_result},
    )
    with pytest.raises(JobCancelled) as info:
        await job
    assert job.status == "cancelled" and job.events[-1].type == "job_cancelled"
    stored = info.value.run.results_df()
    assert sorted(stored["case_id"]) == sorted(finished) and stored["case_id"].is_unique
    assert 5 <= len(stored) < 60
    # prompt: nothing was requested beyond the cases in flight when it was cancelled
    assert fake.requests <= len(stored) + 2
    assert job.store.job(job.id).status == "cancelled"
    assert te.history().loc[0, "status"] == "cancelled"


def test_faults_are_counted(fake, make_suite, model_of, store_path):
    marks = {}
    marks.update({i: "[fault:429*1]" for i in range(0, 10)})  # recover on the 2nd try
    marks.update({i: "[fault:500*1]" for i in range(10, 20)})  # recover on the 2nd try
    marks.update({i: "[fault:429]" for i in range(20, 25)})  # never recover
    marks.update({i: "[fault:503]" for i in range(25, 30)})
    marks.update({i: "[fault:hang]" for i in range(30, 35)})  # time out
    job = te.run_eval(
        make_suite(100, marks),
        [model_of(fake)],
        tool_choice="auto",
        progress="none",
        cache=False,
        timeout=0.3,
        max_concurrency=16,
        retry={"max_tries": 3, "base_delay": 0.01, "max_delay": 0.02},
    )
    df = job.result().results_df()
    assert len(df) == 100 and df["case_id"].is_unique
    errored = df[df["error"].notna()]
    assert sorted(errored["case_id"]) == [f"c{i:03d}" for i in range(20, 35)]
    by_type = errored.groupby("error_type")["case_id"].count().to_dict()
    assert by_type == {"ModelRateLimitError": 5, "ModelServerError": 5, "ModelTimeoutError": 5}
    assert (errored["failure_mode"] == "api_error").all() and not errored["passed"].any()
    assert (errored["tries"] == 3).all()
    recovered = df[df["case_id"].isin([f"c{i:03d}" for i in range(20)])]
    assert recovered["passed"].all() and (recovered["tries"] == 2).all()
    assert df[df["error"].isna()]["passed"].all()
    row = job.result().summary_df().iloc[0]
    # scoring's one summary: n_cases = n_passed + n_failed + n_errored
    assert (row["n_errored"], row["n_passed"], row["n_failed"]) == (15, 85, 0)
    assert row["pass_rate"] == pytest.approx(0.85)
    assert fake.requests == 65 + 20 * 2 + 15 * 3
    # the summary event, from the rows the job wrote, is the store's summary of them
    event = [e.data for e in job.events if e.type == "tool_eval_summary"][0]
    stored = job.store.summary(job.run_id, "openai/fake").as_data()
    assert {k: event[k] for k in stored} == stored and stored["n_errored"] == 15
    assert stored["latency_mean_ms"] is not None and stored["param_score"] is not None


async def test_jobs_queue_on_a_store(fake, make_suite, model_of, tmp_path):
    store = Store(tmp_path / "one.db", max_jobs=1)
    log: list[tuple[str, str]] = []
    a = te.run_eval(
        make_suite(6),
        [model_of(fake)],
        store=store,
        progress="none",
        cache=False,
        callbacks=lambda e: log.append(("a", e.type)),
    )
    b = te.run_eval(
        make_suite(6, name="other"),
        [model_of(fake)],
        store=store,
        progress="none",
        cache=False,
        callbacks=lambda e: log.append(("b", e.type)),
    )
    await b
    await a
    b_events = [e for e in b.events if e.type == "job_progress"]
    assert b_events[0].data["detail"].startswith("queued")
    assert log.index(("a", "job_completed")) < log.index(("b", "tool_eval_init"))
    assert a.status == b.status == "completed"


async def test_cancel_a_queued_job(fake, make_suite, model_of, tmp_path):
    fake._state.latency = 0.05
    store = Store(tmp_path / "one.db", max_jobs=1)
    a = te.run_eval(
        make_suite(8),
        [model_of(fake)],
        store=store,
        progress="none",
        cache=False,
        max_concurrency=2,
    )
    queued = asyncio.Event()  # b says it waits for a's slot
    b = te.run_eval(
        make_suite(6, name="other"),
        [model_of(fake)],
        store=store,
        progress="none",
        cache=False,
        callbacks=lambda e: e.type == "job_progress" and queued.set(),
    )
    await queued.wait()
    assert b.cancel()
    with pytest.raises(JobCancelled):
        await b
    assert b.done() and b.status == "cancelled"
    assert [e.type for e in b.events][-1] == "job_cancelled"
    assert store.job(b.id).status == "cancelled" and len(b.snapshot()) == 0
    c = te.run_eval(
        make_suite(3, name="third"), [model_of(fake)], store=store, progress="none", cache=False
    )  # the queue still moves on
    assert len(await a) == 8 and len(await c) == 3


async def test_rpm_limit_holds_requests_back_in_a_run(fake, make_suite, model_of, store_path):
    """rpm=5 on 8 cases with 8 workers: without the limiter all 8 requests leave before the
    first reply; with it the 6th waits for the 60 s window, so when 5 results are in exactly
    5 requests reached the server (then the job is cancelled instead of waiting a minute)."""
    five = asyncio.Event()
    results: list[str] = []

    def on_event(event) -> None:
        if event.type == "tool_eval_result":
            results.append(event.data["case_id"])
            if len(results) == 5:
                five.set()

    job = te.run_eval(
        make_suite(8),
        [model_of(fake)],
        progress="none",
        cache=False,
        max_concurrency=8,
        rpm=5,
        callbacks=on_event,
    )
    await five.wait()
    assert fake.requests == 5
    job.cancel()
    with pytest.raises(JobCancelled):
        await job
    assert fake.requests == 5 and len(job.snapshot()) == 5


def test_repeats_seeds_tags_and_resume_dedup(fake, make_suite, model_of, store_path):
    suite = make_suite(6)
    job = te.run_eval(
        suite,
        [model_of(fake)],
        progress="none",
        cache=False,
        tags=["even"],
        seeds=[11, 22],
        temperature=0.5,
    )
    df = job.result().results_df()
    assert len(df) == 3 * 2 and set(df["sample"]) == {0, 1}
    assert set(df["seed"]) == {11, 22}
    assert {b["seed"] for b in fake.bodies} == {11, 22}
    assert all(b["temperature"] == 0.5 for b in fake.bodies)
    # resuming a finished job runs nothing and writes nothing twice
    again = te.resume(job.id, progress="none")
    assert len(again.result().results_df()) == 6 and fake.requests == 6


def test_system_prompts_and_per_model_prompt(fake, make_suite, model_of, store_path):
    suite = make_suite(1).model_copy(update={"system_prompt": "SUITE"})
    te.run_eval(
        suite, [model_of(fake)], system_prompt={"openai::fake": "RUN"}, progress="none", cache=False
    )
    system = fake.last_body["messages"][0]
    assert system["role"] == "system" and system["content"] == "SUITE\n\nRUN"


def test_no_case_selected_is_an_error(fake, make_suite, model_of, store_path):
    with pytest.raises(te.SuiteError, match="no case"):
        te.run_eval(make_suite(2), [model_of(fake)], tags=["nope"], progress="none")


def test_default_store_comes_from_env(fake, make_suite, model_of, store_path):
    job = te.run_eval(make_suite(1), [model_of(fake)], progress="none", cache=False)
    assert job.store is resolve_store(store_path)


async def test_cancel_before_it_starts(fake, make_suite, model_of, store_path):
    job = te.run_eval(make_suite(3), [model_of(fake)], progress="none", cache=False)
    assert job.cancel() is True and job.done()
    with pytest.raises(JobCancelled) as info:
        await job
    assert len(info.value.run) == 0 and info.value.run.summary_df().loc[0, "n_cases"] == 0
    assert fake.requests == 0 and job.status == "cancelled"
    assert [e.type for e in job.events] == ["job_created", "job_cancelled"]
    assert job.cancel() is False  # already done


def test_provider_groups_run_in_parallel(fake_server, fake, make_suite, model_of, store_path):

    fake._state.latency = 0.01
    other = fake_server(latency=0.01)
    seen = []
    te.run_eval(
        make_suite(8),
        [model_of(fake), model_of(other, label="other")],
        max_concurrency=1,
        progress="none",
        cache=False,
        callbacks=seen.append,
    )
    order = [
        (e.type, e.data.get("model"))
        for e in seen
        if e.type in ("tool_eval_result", "tool_eval_summary")
    ]
    first_summary = next(i for i, (t, _) in enumerate(order) if t == "tool_eval_summary")
    before = {m for t, m in order[:first_summary]}
    assert before == {"openai/fake", "other"}  # both endpoints were served at the same time
    assert fake.requests == other.requests == 8


def test_resume_refuses_a_job_alive_elsewhere(fake, make_suite, model_of, store_path):
    job = te.run_eval(make_suite(2), [model_of(fake)], progress="none", cache=False)
    conn = job.store.connection()
    host = conn.execute("SELECT owner FROM jobs").fetchone()[0].rpartition(":")[0]
    conn.execute("UPDATE jobs SET status = 'running', owner = ?", (f"{host}:1",))  # pid 1 lives
    with pytest.raises(StoreError, match="still running in process"):
        te.resume(job.id, progress="none")
    assert job.store.job(job.id).status == "running"  # left alone


def test_a_provider_without_an_api_key_fails_the_job_at_once(make_suite, store_path, monkeypatch):
    """Real litellm, offline: the OpenAI SDK refuses to send without a key. Every case would
    fail alike, so the job fails on the first one, saying what to set (not 12 errored rows
    after retries)."""
    for name in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(JobError, match="OPENAI_API_KEY.*no API key for this provider"):
        te.run_eval(
            make_suite(12), ["openai/gpt-4o-mini"], progress="none", cache=False, max_concurrency=4
        )
    hist = te.history()
    assert hist.loc[0, "status"] == "failed" and hist.loc[0, "n_results"] == 0
