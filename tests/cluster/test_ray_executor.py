"""The Ray executor on a real local Ray cluster (4 CPUs, several worker processes): the same
rows as a local run, replicas that die mid-run, one rate limit for every replica, bad input."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import tooleval_nb as te
from tooleval_nb.cluster import ClusterError, RayExecutor, resolve_executor
from tooleval_nb.runner import execute
from tooleval_nb.runner.limits import RateLimiter
from tooleval_nb.runner.store import resolve_store
from tooleval_nb.suite import EvalCase, Suite, Tool
from tooleval_nb.testing import FakeOpenAIServer

ray = pytest.importorskip("ray")

WEATHER = Tool.create(
    "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
)
BOOK = Tool.create(
    "book_table",
    "Book a table",
    {"city": {"type": "string"}, "people": {"type": "integer"}},
    required=["city"],
)


def cluster_suite(n: int, name: str = "cluster") -> Suite:
    """``n`` single-call cases (one in five fails: the model calls the wrong tool) and a
    two-step chain answered from the cases' mock responses."""
    cases = [
        EvalCase(
            id=f"c{i:03d}",
            prompt=(f"get_weather city Town{i}" if i % 5 else f"book_table city Town{i} people 2"),
            expected_tool="get_weather",
            expected_params={"city": f"Town{i}"},
        )
        for i in range(n)
    ]
    cases.append(
        EvalCase(
            id="chain",
            multi_turn=True,
            max_rounds=3,
            prompt="get_weather city Paris; book_table city Paris",
            expected_tool="book_table",
            expected_params={"city": "Paris"},
            valid_prerequisites=["get_weather"],
            mock_responses={"get_weather": {"temp": 21}, "book_table": {"ok": True}},
        )
    )
    return Suite(name=name, tools=[WEATHER, BOOK], cases=cases)


def model_for(server: FakeOpenAIServer, **extra) -> dict:
    return {"model": "openai/fake", "api_base": server.url, "api_key": "sk-test", **extra}


DRIVER = Path(__file__).with_name("driver.py")

#: columns that differ between two runs of the same suite whatever runs them
_TIMING = ["run_id", "latency_ms"]


def _rows(run) -> pd.DataFrame:
    frame = run.results_df().drop(columns=_TIMING).sort_values(["case_id", "sample"])
    return frame.reset_index(drop=True)


def _details(store_path: str, run_id: str) -> list[dict]:
    store = resolve_store(store_path)
    return [json.loads(r.detail) for r in store.results(run_id, detail=True)]


def test_the_same_suite_gives_the_same_rows_locally_and_on_ray(ray_cluster, fake, tmp_path):
    suite = cluster_suite(30)
    model = model_for(fake)
    local = te.run_eval(suite, model, cache=False, store=tmp_path / "local.db", progress=False)
    executor = RayExecutor(replicas=2, max_concurrency_per_replica=4, num_cpus_per_replica=0.5)
    te.run_eval(
        cluster_suite(4, name="warm"),
        model,
        cache=False,
        store=tmp_path / "warm.db",
        progress=False,
        executor=executor,
    ).result()
    # both replicas up before the run: a replica Ray has not started yet takes no cells, and on a
    # loaded machine the warm run's four cells can finish before the second one is placed
    ray.get([m.handle.pid.remote() for m in executor.backend().pool], timeout=300)
    on_ray = te.run_eval(
        suite, model, cache=False, store=tmp_path / "ray.db", progress=False, executor=executor
    )
    executor.shutdown()
    local_run, ray_run = local.result(), on_ray.result()
    assert len(_rows(ray_run)) == 31
    pd.testing.assert_frame_equal(_rows(ray_run), _rows(local_run))
    assert (
        ray_run.summary_df()
        .drop(columns=["run_id", "latency_p50_ms", "latency_p95_ms"])
        .equals(local_run.summary_df().drop(columns=["run_id", "latency_p50_ms", "latency_p95_ms"]))
    )
    # the same events (job_progress comes once per commit: how cells batch may differ)
    kinds = [
        sorted(e.type for e in job.events if e.type != "job_progress") for job in (local, on_ray)
    ]
    assert kinds[0] == kinds[1]
    # which replica served each cell is in the stored detail of its hops
    served = {
        hop["replica"] for d in _details(str(tmp_path / "ray.db"), ray_run.id) for hop in d["hops"]
    }
    assert len(served) == 2, served
    assert not any(
        "replica" in hop
        for d in _details(str(tmp_path / "local.db"), local_run.id)
        for hop in d["hops"]
    )


def test_a_sigkilled_replica_loses_no_cell_and_stores_none_twice(
    fake_server, ray_cluster, tmp_path
):
    executor = RayExecutor(
        replicas=2, max_concurrency_per_replica=4, max_restarts=1, num_cpus_per_replica=0.5
    )
    store = tmp_path / "runs.db"
    server = fake_server(latency=0.25)
    model = model_for(server)
    # warm the pool (the replicas start once, then serve every run of this executor)
    te.run_eval(
        cluster_suite(4, name="warm"),
        model,
        cache=False,
        store=store,
        progress=False,
        executor=executor,
    ).result()
    pids = ray.get([m.handle.pid.remote() for m in executor.backend().pool])
    before = server.requests
    killed: list[int] = []

    def kill_one(event) -> None:  # on the loop, as results are stored
        if not killed and event.data["current"] >= 8:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    job = te.run_eval(
        cluster_suite(40),
        model,
        cache=False,
        store=store,
        progress=False,
        executor=executor,
        callbacks={"tool_eval_progress": kill_one},
    )
    run = job.result()
    sent = server.requests - before
    assert killed
    frame = run.results_df()
    assert len(frame) == 41 and frame["case_id"].is_unique
    assert frame["error"].isna().all()
    # sent twice at most: the killed replica's running cells (4) and those whose outcome was
    # on its way back when it died (as many); its queued cells had not been sent
    assert 41 <= sent <= 41 + 2 * 4, sent
    executor.shutdown()


#: the rate limiter's clock runs this many times faster: its 60 s window lasts 3 s
SCALE = 20


class FastLimiter(RateLimiter):
    """The run's limiter on a faster clock (the real one, scaled): same code, shorter wait."""

    def __init__(self, rpm=None, tpm=None):
        super().__init__(
            rpm,
            tpm,
            clock=lambda: time.monotonic() * SCALE,
            sleep=lambda s: asyncio.sleep(s / SCALE),
        )


@pytest.mark.slow
def test_one_rate_limit_holds_across_four_replicas(ray_cluster, fake, store_path, monkeypatch):
    executor = RayExecutor(replicas=4, max_concurrency_per_replica=4, num_cpus_per_replica=0.5)
    model = model_for(fake)
    te.run_eval(
        cluster_suite(7, name="warm"), model, cache=False, progress=False, executor=executor
    ).result()  # the 4 replicas up, each with its HTTP session
    warm = fake.requests
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # FastLimiter to the actor
    monkeypatch.setattr(execute, "RateLimiter", FastLimiter)
    run = te.run_eval(
        cluster_suite(19), model, cache=False, rpm=5, progress=False, executor=executor
    ).result()
    assert len(run.results_df()) == 20
    times = fake.request_times[warm:]
    assert len(times) == 20
    # at most 5 requests in any window, as the server saw them: any 6 span about a window
    # (less the jitter of the trip from the limiter to the server, up to 0.5 s on a busy
    # machine); four limiters of their own would send all 20 at once
    window = 60 / SCALE
    spans = [times[i + 5] - times[i] for i in range(len(times) - 5)]
    assert min(spans) > 0.5 * window, spans
    assert times[-1] - times[0] > 3 * window - 0.5  # 20 requests: 4 windows
    assert len({hop["replica"] for d in _details(store_path, run.id) for hop in d["hops"]}) == 4
    executor.shutdown()


def test_an_unreachable_cluster_fails_before_any_cell_naming_its_address(
    ray_cluster, fake, store_path
):
    executor = RayExecutor(address="127.0.0.1:9")
    with pytest.raises(te.JobError, match=r"127\.0\.0\.1:9.*cannot be reached"):
        te.run_eval(cluster_suite(3), model_for(fake), progress=False, executor=executor)
    assert fake.requests == 0


def test_a_replica_that_cannot_start_its_model_fails_its_cells_with_the_servers_text(
    ray_cluster, tmp_path, store_path
):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a GGUF file\n" * 64)
    executor = RayExecutor(
        replicas=1, gguf={"openai/local-gguf": str(broken)}, num_cpus_per_replica=0.5
    )
    run = te.run_eval(
        cluster_suite(3),
        {"model": "openai/local-gguf", "api_key": "none"},
        progress=False,
        executor=executor,
    ).result()
    frame = run.results_df()
    assert len(frame) == 4
    assert (frame["error_type"] == "EmbeddedModelError").all()
    assert frame["error"].str.contains("exited with code").all()
    assert (frame["tries"] == 1).all()  # tried once, never retried
    executor.shutdown()


def test_a_misconfigured_model_fails_the_job_at_once_with_its_own_error(ray_cluster, store_path):
    executor = RayExecutor(replicas=2, num_cpus_per_replica=0.5)
    with pytest.raises(te.JobError, match=r"transport='direct' needs an api_base"):
        te.run_eval(
            cluster_suite(6),
            {"model": "openai/nowhere", "transport": "direct"},
            progress=False,
            executor=executor,
        )
    executor.shutdown()


def test_ray_not_installed_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails, as without it
    with pytest.raises(ClusterError, match=r"tooleval_nb\[ray\]"):
        resolve_executor("ray")
    with pytest.raises(ClusterError, match=r"tooleval_nb\[ray\]"):
        RayExecutor().backend()


@pytest.mark.parametrize("value", ["nowhere", "ray://host", "http://x:1:2:z"])
def test_a_malformed_address_is_refused_when_built(value):
    with pytest.raises(ValueError, match="not a Ray address"):
        RayExecutor(address=value)


def test_an_unknown_executor_is_refused():
    assert resolve_executor("local") == "local"
    with pytest.raises(TypeError, match="'local'.*'ray'"):
        resolve_executor("dask")


@pytest.mark.slow
def test_a_killed_driver_resumes_on_ray_asking_only_the_missing_cells(
    fake_server, ray_cluster, store_path
):
    n = 60
    server = fake_server(latency=0.2)
    config = {"address": ray_cluster, "store": store_path, "api_base": server.url, "n": n}
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), json.dumps(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    job_id, done = None, 0
    for line in proc.stdout:  # the driver reports each stored case
        if line.startswith("job "):
            job_id = line.split()[1]
        elif line.startswith("done "):
            done += 1
            if done == 12:
                break
    assert job_id is not None and done == 12, proc.stderr.read()[-3000:]
    os.kill(proc.pid, signal.SIGKILL)  # the driver dies; its replicas die with it
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    stored_before = te.Store(store_path).count_results(te.Store(store_path).job(job_id).run_id)
    sent_before = server.requests
    executor = RayExecutor(replicas=2, max_concurrency_per_replica=4, num_cpus_per_replica=0.5)
    run = te.resume(job_id, store_path, progress=False, executor=executor).result()
    executor.shutdown()
    frame = run.results_df()
    assert len(frame) == n and frame["case_id"].is_unique
    # the resume asked only for the missing cells
    assert server.requests - sent_before == n - stored_before
    # and the killed driver had sent at most its cells in flight more than it stored
    assert sent_before <= stored_before + 2 * 4 + 8


@pytest.mark.slow
@pytest.mark.model
def test_two_embedded_model_replicas_each_serve_cells(ray_cluster, store_path):
    executor = RayExecutor(replicas=2, num_cpus_per_replica=1)
    run = te.run_eval(
        cluster_suite(5), te.DEFAULT_MODEL, cache=False, progress=False, executor=executor
    ).result()
    frame = run.results_df()
    assert len(frame) == 6 and frame["error"].isna().all(), frame["error"].tolist()
    served = {hop["replica"] for d in _details(store_path, run.id) for hop in d["hops"]}
    assert len(served) == 2, served
    executor.shutdown()


def test_an_endpoint_list_gives_one_endpoint_per_replica(ray_cluster, store_path):
    with FakeOpenAIServer(latency=0.05) as one, FakeOpenAIServer(latency=0.05) as two:
        executor = RayExecutor(
            endpoints={"openai/fake": [one.url, two.url]},
            max_concurrency_per_replica=2,
            num_cpus_per_replica=0.5,
        )
        model = {"model": "openai/fake", "api_key": "sk-test"}
        # both replicas up first (a replica takes cells once it runs: on a busy machine one
        # can start seconds after the other, and the first takes a short run's every cell);
        # replicas sharing one endpoint would leave the other endpoint unasked for ever. The
        # wait is bounded by time, not by a count of runs: a short run takes a fraction of a
        # second, and starting an actor on a loaded 2-core machine can take several
        deadline, attempt = time.monotonic() + 90, 0
        while not (one.requests and two.requests) and time.monotonic() < deadline:
            te.run_eval(
                cluster_suite(4, name=f"warm{attempt}"),
                model,
                cache=False,
                progress=False,
                executor=executor,
            ).result()
            attempt += 1
        assert one.requests > 0 and two.requests > 0, (attempt, one.requests, two.requests)
        warm = one.requests + two.requests
        run = te.run_eval(
            cluster_suite(20), model, cache=False, progress=False, executor=executor
        ).result()
        executor.shutdown()
        assert one.requests + two.requests - warm == 21
    frame = run.results_df()
    assert len(frame) == 21 and frame["error"].isna().all()


async def test_cancelling_a_ray_job_cancels_its_cells_and_a_resume_finishes_it(
    fake_server, ray_cluster, store_path
):
    executor = RayExecutor(replicas=2, max_concurrency_per_replica=2, num_cpus_per_replica=0.5)
    server = fake_server(latency=0.2)
    job = te.run_eval(
        cluster_suite(40), model_for(server), cache=False, progress=False, executor=executor
    )  # a task on this loop, as in a notebook
    some = asyncio.Event()
    job.subscribe(lambda e: some.set() if e.data["current"] >= 6 else None, ["tool_eval_progress"])
    await some.wait()
    job.cancel()
    with pytest.raises(te.JobCancelled):
        await job
    stored = len(job.snapshot().results_df())
    assert 6 <= stored < 41
    # the replicas' queued cells were cancelled: a resume sends only the missing ones
    resumed = te.resume(job.id, store_path, progress=False, executor=executor)
    run = await resumed
    frame = run.results_df()
    assert len(frame) == 41 and frame["case_id"].is_unique
    # at most sent twice: the cells running when it was cancelled (2 per replica) and
    # those whose outcome was on its way back to the driver (as many)
    assert server.requests <= 41 + 2 * (2 * 2)
    executor.shutdown()


def test_the_runner_does_not_import_ray_for_a_local_run():
    code = (
        "import sys, tooleval_nb.runner.execute, tooleval_nb.cluster; "
        "te = tooleval_nb.cluster.RayExecutor(replicas=2); "
        "assert 'ray' not in sys.modules, 'ray was imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
