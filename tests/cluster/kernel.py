"""A notebook kernel's stand-in for the Ray lifecycle tests (not a test module): one fresh
process runs one named sequence of Ray runs against a fake OpenAI server, as a user would in
one kernel, and prints one JSON line per step (``{"step": ..., "rows": n, "want": m}``), and
``alive`` at the end (a process Ray killed never prints it).

usage: python kernel.py SEQUENCE[,SEQUENCE...] '{"store": "/tmp/x/runs.db", ...}'

Several sequences, comma-separated, run one after another in the one process, as a user's
cells do in one kernel: each begins with ``{"step": "sequence", "name": ...}``; one that raises
prints ``{"step": "failed", ...}`` with the traceback, and the next one runs.

Sequences: ``ray_runs`` (``executor="ray"`` three times), ``new_executors``, ``reused``,
``cancel``, ``two_jobs``, ``sweep_tune``, ``bfcl`` (then ``tau2``), ``user_ray``, ``killed``, ``first`` (a run,
then the process is SIGKILLed: a kernel that dies), ``restart`` (a run, after a ``first``),
``stale`` (runs with a half-stopped ``ray start`` cluster on the machine).
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import tooleval_nb as te  # noqa: E402
from tooleval_nb.testing import FakeOpenAIServer  # noqa: E402

TOOL = te.Tool.create(
    "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
)

#: a small pool: two replicas of half a CPU, each keeping four cells in flight
SMALL = {"replicas": 2, "num_cpus_per_replica": 0.5, "max_concurrency_per_replica": 4}


def suite(n: int, name: str) -> te.Suite:
    return te.Suite(
        name=name,
        tools=[TOOL],
        cases=[
            te.EvalCase(
                id=f"c{i:03d}",
                prompt=f"get_weather city Town{i}",
                expected_tool="get_weather",
                expected_params={"city": f"Town{i}"},
            )
            for i in range(n)
        ],
    )


def say(step: str, **data: Any) -> None:
    print(json.dumps({"step": step, **data}), flush=True)


class Kernel:
    def __init__(self, cfg: dict[str, Any], server: FakeOpenAIServer) -> None:
        self.cfg = cfg
        self.store = cfg["store"]
        self.model = {"model": "openai/fake", "api_base": server.url, "api_key": "sk-test"}
        self.count = 0

    def run(self, executor: Any, n: int = 12, step: str = "run") -> te.Job:
        """A run to the end (no loop runs here: ``run_eval`` blocks, as in a script)."""
        self.count += 1
        job = te.run_eval(
            suite(n, f"{step}{self.count}"),
            self.model,
            cache=False,
            store=self.store,
            progress=False,
            executor=executor,
        )
        rows = len(job.result().results_df())
        say(step, rows=rows, want=n, replicas=_replicas(job))
        return job

    async def run_async(self, executor: Any, n: int = 12, step: str = "run") -> te.Job:
        """A run as a task on this loop, as in a notebook cell (``await job``)."""
        self.count += 1
        job = te.run_eval(
            suite(n, f"{step}{self.count}"),
            self.model,
            cache=False,
            store=self.store,
            progress=False,
            executor=executor,
        )
        rows = len((await job).results_df())
        say(step, rows=rows, want=n, replicas=_replicas(job))
        return job


def _replicas(job: te.Job) -> int:
    """Replicas the run's executor still holds (a run's own executor: none once it ended)."""
    executor = job.plan.executor
    backend = getattr(executor, "_backend", None)
    return len(backend.pool) if backend is not None else 0


def _ray_processes() -> list[Any]:
    import psutil

    me = psutil.Process()
    return [
        p
        for p in me.children(recursive=True)
        if any(k in p.name() for k in ("gcs_server", "raylet"))
    ]


# -- the sequences ---------------------------------------------------------------------------
def ray_runs(k: Kernel) -> None:
    for _ in range(3):
        k.run("ray")


def new_executors(k: Kernel) -> None:
    with te.RayExecutor(**SMALL) as executor:  # closed by the with block
        k.run(executor)
    executor = te.RayExecutor(**SMALL)
    k.run(executor)
    pids = _replica_pids(executor)
    del executor  # collected: its replicas stop
    gc.collect()
    say("collected", stopped=_wait_gone(pids))
    k.run(te.RayExecutor(**SMALL))  # left open: the process's exit ends it
    k.run("ray")


def reused(k: Kernel) -> None:
    executor = te.RayExecutor(**SMALL)
    for _ in range(3):
        k.run(executor)
    executor.close()
    executor.close()  # twice: harmless
    try:
        k.run(executor)
    except te.ClusterError as exc:
        say("closed", error=str(exc))
    say("shutdown", ended=te.shutdown_cluster(), again=te.shutdown_cluster())
    executor = te.RayExecutor(**SMALL)  # a new session
    k.run(executor)
    k.run(executor)


def cancel(k: Kernel) -> None:
    async def main() -> None:
        slow = FakeOpenAIServer(latency=0.3).start()
        model = {**k.model, "api_base": slow.url}
        executor = te.RayExecutor(**SMALL)
        for own in (executor, "ray"):
            job = te.run_eval(
                suite(40, f"cancel-{own!s:.3}"),
                model,
                cache=False,
                store=k.store,
                progress=False,
                executor=own,
            )
            some = asyncio.Event()
            job.subscribe(
                lambda e, some=some: some.set() if e.data["current"] >= 4 else None,
                ["tool_eval_progress"],
            )
            await some.wait()
            job.cancel()
            try:
                await job
            except te.JobCancelled:
                say("cancelled", stored=len(job.snapshot().results_df()))
            resumed = te.resume(job.id, k.store, progress=False, executor=own)
            say("resumed", rows=len((await resumed).results_df()), want=40)
            await k.run_async(own)
        executor.close()
        slow.stop()

    asyncio.run(main())


def two_jobs(k: Kernel) -> None:
    async def main() -> None:
        executor = te.RayExecutor(**SMALL)
        for _ in range(2):  # two jobs on one executor's pool, one on a run's own executor
            await asyncio.gather(
                k.run_async(executor, 20), k.run_async(executor, 20), k.run_async("ray", 20)
            )
        executor.close()

    asyncio.run(main())


def sweep_tune(k: Kernel) -> None:
    base = te.Config(model="openai/fake", api_base=k.model["api_base"])
    ts = suite(8, "tuned")
    for executor in ("ray", te.RayExecutor(**SMALL)):
        sw = te.sweep(
            ts,
            base=base,
            space=te.space(tool_choice=["auto", "required"]),
            strategy="grid",
            preflight=False,
            store=k.store,
            cache=False,
            executor=executor,
            resume=False,
        )
        say("sweep", trials=len(sw.arms), calls=sw.calls_used)
        pt = te.tune_prompt(
            ts,
            base,
            meta_model=None,
            operators="rules",
            population=2,
            generations=1,
            store=k.store,
            cache=False,
            executor=executor,
            resume=False,
        )
        say("tune", candidates=len(pt.candidates), calls=pt.calls_used)
    k.run("ray")


def bfcl(k: Kernel) -> None:
    from tooleval_nb.bfcl import run_bfcl

    cats = ["simple_python", "irrelevance"]
    for executor in ("ray", te.RayExecutor(**SMALL), "ray"):
        k.count += 1
        run = run_bfcl(
            k.model,
            cats,
            mode="fc",
            limit=3,
            store=k.store,
            data_dir=k.cfg["bfcl_data"],
            progress="none",
            cache=False,
            name=f"bfcl{k.count}",
            executor=executor,
        ).result()
        say("bfcl", rows=len(run.results_df()), want=6)
    tau2(k)


def tau2(k: Kernel) -> None:
    """τ² on the same floor, after BFCL in the same kernel: the scripted gold agent (and user)
    on a fake server on Ray, then the greet-and-stop agent on a new executor; each run's
    simulations scored by tau2's evaluator, and the stored rows' ``overall`` (tau2's verdict,
    made in the replica) beside each reward."""
    from tooleval_nb.tau2 import run_tau2
    from tooleval_nb.testing import tau2_script

    tasks = ["create_task_1", "update_task_1"]
    for name, handler, executor in (
        ("gold", tau2_script.answer, "ray"),
        ("idle", tau2_script.answer_inaction, te.RayExecutor(**SMALL)),
    ):
        with FakeOpenAIServer(handler=handler) as server:
            model = {"model": f"openai/{name}", "api_base": server.url, "api_key": "sk-test"}
            k.count += 1
            run = run_tau2(
                model,
                "mock",
                task_ids=tasks,
                trials=2,
                store=k.store,
                progress="none",
                cache=False,
                name=f"tau2{k.count}",
                executor=executor,
            ).result()
            frame = run.tau2_results_df().sort_values(["task_id", "trial"])
            rows = run.stored.results_df().sort_values(["case_id", "sample"])
            say(
                "tau2",
                agent=name,
                rows=len(frame),
                want=4,
                rewards=frame["reward"].tolist(),
                overall=rows["overall"].tolist(),
            )


def user_ray(k: Kernel) -> None:
    import ray

    # the user's own start (its notices are theirs: quiet here, so the check covers ours)
    # ("local": never a `ray start` cluster that Ray's cluster file may still name)
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )
    address = ray.get_runtime_context().gcs_address
    k.run("ray")
    k.run(te.RayExecutor(**SMALL))
    ended = te.shutdown_cluster()  # the user's Ray: stays up
    say(
        "user",
        ended=ended,
        initialized=ray.is_initialized(),
        same=ray.get_runtime_context().gcs_address == address,
    )
    k.run("ray")
    ray.shutdown()  # the user ends it; the next run starts our own
    k.run("ray")


def killed(k: Kernel) -> None:
    executor = te.RayExecutor(**SMALL)
    k.run(executor)
    procs = _ray_processes()
    for proc in procs:  # Ray killed from outside, between two runs
        proc.send_signal(signal.SIGKILL)
    say("killed", processes=len(procs))
    time.sleep(k.cfg.get("idle", 8))  # Ray's core worker would end the process after 60 s
    k.run(executor)  # a new session; the executor's pool starts again in it
    k.run("ray")


def first(k: Kernel) -> None:
    k.run(te.RayExecutor(**SMALL))
    say("dying", pid=os.getpid())
    os.kill(os.getpid(), signal.SIGKILL)  # the kernel dies: no exit hook runs


def restart(k: Kernel) -> None:
    k.run("ray")
    k.run(te.RayExecutor(**SMALL))


def stale(k: Kernel) -> None:
    """A ``ray start`` cluster of this machine was left half stopped (its address remains)."""
    try:  # first: once connected, "auto" means the session this process has
        k.run(te.RayExecutor(address="auto", **SMALL))
    except te.JobError as exc:
        say("auto", error=str(exc))
    k.run("ray")
    k.run("ray")


def _replica_pids(executor: te.RayExecutor) -> list[int]:
    import ray

    return list(ray.get([m.handle.pid.remote() for m in executor._backend.pool]))


def _wait_gone(pids: list[int], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(_exists(pid) for pid in pids):
            return True
        time.sleep(0.2)
    return False


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


SEQUENCES: dict[str, Callable[[Kernel], None]] = {
    f.__name__: f
    for f in (
        ray_runs,
        new_executors,
        reused,
        cancel,
        two_jobs,
        sweep_tune,
        bfcl,
        user_ray,
        killed,
        first,
        restart,
        stale,
    )
}


def main() -> None:
    names, cfg = sys.argv[1].split(","), json.loads(sys.argv[2])
    with FakeOpenAIServer(latency=0.02) as server:
        k = Kernel(cfg, server)
        for name in names:
            say("sequence", name=name)
            try:
                SEQUENCES[name](k)
            except Exception:  # the next sequence still runs, as the next cell would
                say("failed", sequence=name, error=traceback.format_exc()[-3000:])
    print("alive", flush=True)


if __name__ == "__main__":
    main()
