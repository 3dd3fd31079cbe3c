"""Real worker processes: SIGKILL mid-run then resume; two processes on one store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import tooleval_nb as te
from tooleval_nb.runner.finish import FINISH_CHUNK

WORKER = Path(__file__).with_name("worker.py")


def start_worker(**cfg) -> subprocess.Popen[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), json.dumps(cfg)],
        text=True,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if line != "ready":
        proc.kill()
        raise AssertionError(f"worker did not start: {line!r} {proc.stderr.read()[-3000:]}")
    return proc


def read_until(proc: subprocess.Popen[str], count: int) -> tuple[str, list[str]]:
    """Read the worker's lines until ``count`` cases are reported done (blocking reads)."""
    job_id, done = "", []
    assert proc.stdout is not None
    while len(done) < count:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"worker ended early: {proc.stderr.read()[-3000:]}")
        kind, _, value = line.strip().partition(" ")
        if kind == "job":
            job_id = value
        elif kind == "done":
            done.append(value)
    return job_id, done


@pytest.mark.parametrize("how", ["resume", "rerun"])
def test_sigkill_then_resume_finishes_only_missing_cases(fake, store_path, how):
    n = 40
    fake._state.latency = 0.03
    proc = start_worker(store=store_path, api_base=fake.url, n=n, concurrency=4)
    job_id, reported = read_until(proc, 12)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    requests_at_kill = fake.requests
    bodies_at_kill = len(fake.bodies)

    store = te.Store(store_path)
    before = {r.case_id for r in store.results(store.job(job_id).run_id)}
    assert set(reported) <= before and len(before) < n
    hist = te.history()
    assert hist.loc[0, "status"] == "interrupted" and hist.loc[0, "n_results"] == len(before)

    if how == "resume":
        job = te.resume(job_id, progress="none")
    else:  # reopening the store: the same run_eval call finds the interrupted job
        suite = _worker_suite(n)
        job = te.run_eval(
            suite,
            [{"model": "openai/fake", "api_base": fake.url, "api_key": "sk-test"}],
            cache=False,
            max_concurrency=4,
            progress="none",
        )
    assert job.id == job_id and job.status == "completed"
    df = job.result().results_df()
    assert len(df) == n and df["case_id"].is_unique and df["passed"].all()
    # nothing finished before the kill was asked again
    asked_after = [b["messages"][-1]["content"].split()[-1] for b in fake.bodies[bodies_at_kill:]]
    finished_before = {f"Town{int(c[1:])}" for c in before}
    assert not finished_before & set(asked_after)
    assert fake.requests - requests_at_kill == n - len(before)
    assert te.history().loc[0, "status"] == "completed"


def test_sigkill_at_full_speed_loses_at_most_the_backlog(fake, store_path):
    """At 0 ms and 32 concurrent, replies outrun scoring; what a kill can lose stays bounded:
    the c requests in flight, plus the answered cases waiting to be scored: at most c after a
    finisher turn (it takes the excess) plus the c replies that can land before its next turn,
    plus the scored cases waiting for their commit (fewer than c) and the few of the current
    turn. (Unbounded, a kill here lost over 500.)"""
    n, concurrency = 3000, 32
    fake._state.latency = 0.0
    proc = start_worker(store=store_path, api_base=fake.url, n=n, concurrency=concurrency)
    job_id, reported = read_until(proc, 300)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    store = te.Store(store_path)
    stored = {r.case_id for r in store.results(store.job(job_id).run_id)}
    assert set(reported) <= stored and len(stored) < n
    assert fake.requests - len(stored) <= 4 * concurrency + FINISH_CHUNK


def _worker_suite(n: int) -> te.Suite:
    tool = te.Tool.create(
        "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
    )
    return te.Suite(
        name="weather",
        tools=[tool],
        cases=[
            te.EvalCase(
                id=f"c{i:03d}",
                prompt=f"get_weather city Town{i}",
                expected_tool="get_weather",
                expected_params={"city": f"Town{i}"},
                tags=["even" if i % 2 == 0 else "odd"],
            )
            for i in range(n)
        ],
    )


def test_two_processes_share_one_store(fake, store_path):
    fake._state.latency = 0.01
    procs = [
        start_worker(
            store=store_path, api_base=fake.url, n=50, concurrency=4, name=f"suite{i}", wait_go=True
        )
        for i in range(2)
    ]
    for proc in procs:  # both imported and waiting: start them together
        proc.stdin.write("go\n")
        proc.stdin.flush()
    outputs = [proc.communicate(timeout=120) for proc in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err[-3000:]
        assert out.count("\ndone ") == 50 and "finished run_" in out
    hist = te.history()
    assert len(hist) == 2 and set(hist["status"]) == {"completed"}
    assert list(hist["n_results"]) == [50, 50] and set(hist["suite"]) == {"suite0", "suite1"}
    assert fake.requests == 100
