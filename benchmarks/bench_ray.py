"""The Ray executor against the fake OpenAI server: scaling with replicas, Ray's overhead, and the
time to the first result.

Workload (as ``bench_runner.py``): N cases ``get_weather city Town{i}``, ``tool_choice="required"``,
no reply cache; the fake server runs in its own process and answers after ``--latency`` (200 ms).
Each replica keeps ``--per`` cells in flight (a replica stands for one model server of fixed
concurrency), so with the server I/O-bound the ideal rate is ``replicas × per / latency``.

Cells:
  ray-R        the same suite on R replicas (R = 1, 2, 4): cases/s, and the ratio to ray-1
               (targets: ≥ 1.8× at 2 replicas, ≥ 3.2× at 4)
  local        the local executor with max_concurrency = per: Ray's overhead is
               1 - (ray-1 / local) (target ≤ 10 %)
  first        seconds from ``run_eval(executor=RayExecutor(...))`` to the first stored result,
               with a new replica pool (the actor's process starts and imports the toolkit) and
               with a warm one; the cluster itself is started once, before (its start time is
               printed too)

Everything runs in one process and one Ray session, as in a notebook kernel: the session is
started by the toolkit (as ``executor="ray"`` would), the 1, 2 and 4 replica pools are
``RayExecutor``s of that session (closed at the end), and ``te.shutdown_cluster()`` ends it.

``drv ms/cell`` is the driver's CPU per cell (this process: scoring, store, events, and for
Ray the submit and receive). Every throughput cell runs on a warm pool (its replicas started by a small run first). Each
cell's N is ``--seconds × ideal rate`` so every cell lasts about as long. The machine's load
average is printed with the figures: compare the cells of one run.

    .venv/bin/python benchmarks/bench_ray.py                  # ~2 min
    .venv/bin/python benchmarks/bench_ray.py --per 8 --seconds 6 --repeat 2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tooleval_nb as te  # noqa: E402
from tooleval_nb.cluster import RayExecutor, session  # noqa: E402
from tooleval_nb.testing import FakeOpenAIServer  # noqa: E402

TOOLS = [te.Tool.create("get_weather", "Current weather", {"city": {"type": "string"}}, ["city"])]


def make_suite(n: int, tag: str) -> te.Suite:
    return te.Suite(
        name=f"bench-ray-{tag}-{n}",
        tools=TOOLS,
        cases=[
            te.EvalCase(
                id=f"c{i}",
                prompt=f"get_weather city Town{i}",
                expected_tool="get_weather",
                expected_params={"city": f"Town{i}"},
            )
            for i in range(n)
        ],
    )


async def timed_run(
    suite: te.Suite, url: str, folder: str, *, executor: object, concurrency: int
) -> tuple[float, float, int]:
    """(wall seconds, seconds to the first stored result, cases passed)."""
    first: list[float] = []
    start = time.perf_counter()
    cpu = time.process_time()

    def on_result(_event: object) -> None:
        if not first:
            first.append(time.perf_counter() - start)

    run = await te.run_eval_async(
        suite,
        [{"model": "openai/fake", "api_base": url, "api_key": "sk-bench"}],
        max_concurrency=concurrency,
        cache=False,
        store=Path(folder) / f"{suite.name}.db",
        resume=False,
        progress=False,
        executor=executor,
        callbacks={"tool_eval_result": on_result},
    )
    wall = time.perf_counter() - start
    timed_run.cpu = time.process_time() - cpu  # type: ignore[attr-defined]
    return wall, first[0] if first else float("nan"), int(run.results_df()["passed"].sum())


async def main(args: argparse.Namespace) -> None:
    t0 = time.perf_counter()
    await asyncio.wrap_future(session.connect(None, num_cpus=args.cpus))
    print(f"local Ray cluster ({args.cpus} CPUs) started in {time.perf_counter() - t0:.1f} s")
    # the replicas wait on the server: half a CPU each lets the 7 of the three pools coexist
    pools = {
        r: RayExecutor(replicas=r, max_concurrency_per_replica=args.per, num_cpus_per_replica=0.5)
        for r in (1, 2, 4)
    }
    ideal_1 = args.per / args.latency
    with (
        FakeOpenAIServer(latency=args.latency, process=True) as server,
        tempfile.TemporaryDirectory() as folder,
    ):
        # time to first result: a new pool, then the same pool warm
        cold = RayExecutor(
            replicas=1, max_concurrency_per_replica=args.per, num_cpus_per_replica=0.5
        )
        _, first_cold, _ = await timed_run(
            make_suite(args.per, "cold"), server.url, folder, executor=cold, concurrency=args.per
        )
        _, first_warm, _ = await timed_run(
            make_suite(args.per, "warm"), server.url, folder, executor=cold, concurrency=args.per
        )
        cold.close()
        print(
            f"first result: {first_cold:.2f} s with a new replica, {first_warm:.3f} s warm "
            f"(load {open('/proc/loadavg').read().split()[0]})"
        )
        for r, executor in pools.items():  # start every pool before measuring
            await timed_run(
                make_suite(2 * r, f"start{r}"),
                server.url,
                folder,
                executor=executor,
                concurrency=args.per,
            )
        print(
            f"\nlatency {args.latency * 1000:.0f} ms, {args.per} cells in flight per replica; "
            f"ideal {ideal_1:.0f} cases/s per replica"
        )
        print(
            f"{'cell':<8} {'N':>6} {'wall s':>8} {'cases/s':>9} {'vs ray-1':>9} "
            f"{'vs ideal':>9} {'drv ms/cell':>12} {'load':>6}"
        )
        for rep in range(args.repeat):
            rates: dict[str, float] = {}
            for name in ("local", "ray-1", "ray-2", "ray-4"):
                replicas = 1 if name == "local" else int(name.split("-")[1])
                n = int(args.seconds * ideal_1 * replicas)
                executor = "local" if name == "local" else pools[replicas]
                wall, _, passed = await timed_run(
                    make_suite(n, f"{name}-{rep}"),
                    server.url,
                    folder,
                    executor=executor,
                    concurrency=args.per,
                )
                assert passed == n, (name, passed, n)
                rates[name] = n / wall
                base = rates.get("ray-1")
                versus = f"{rates[name] / base:.2f}x" if base and name != "local" else "-"
                load = open("/proc/loadavg").read().split()[0]
                per_cell = timed_run.cpu / n * 1000  # type: ignore[attr-defined]
                print(
                    f"{name:<8} {n:>6} {wall:>8.2f} {rates[name]:>9.1f} {versus:>9} "
                    f"{rates[name] / (ideal_1 * replicas):>9.2f} {per_cell:>12.2f} {load:>6}"
                )
            overhead = 1 - rates["ray-1"] / rates["local"]
            print(
                f"repeat {rep + 1}: Ray's overhead at one replica = {overhead * 100:.1f} % "
                f"of local; ray-2 / ray-1 = {rates['ray-2'] / rates['ray-1']:.2f}x, "
                f"ray-4 / ray-1 = {rates['ray-4'] / rates['ray-1']:.2f}x"
            )
            two, four = rates["ray-2"] / rates["ray-1"], rates["ray-4"] / rates["ray-1"]
            print(
                f"targets: ray-2 >= 1.8x {'met' if two >= 1.8 else 'MISSED'}, "
                f"ray-4 >= 3.2x {'met' if four >= 3.2 else 'MISSED'}"
            )
    for executor in pools.values():
        executor.close()
    te.shutdown_cluster()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--per", type=int, default=8, help="cells in flight per replica")
    parser.add_argument("--seconds", type=float, default=6.0, help="ideal length of a cell")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--cpus", type=int, default=4, help="the local cluster's CPUs")
    asyncio.run(main(parser.parse_args()))
