#!/usr/bin/env python
"""τ²-bench speed: a run's wall time against a bare loop of the same requests.

**The run** (``--run``, the default section): ``te.run_tau2`` with the scripted gold agent and
user (:mod:`tooleval_nb.testing.tau2_script`, one model playing both roles) on ``--tasks`` tasks
of ``--domain`` × ``--trials``, against the fake OpenAI-compatible server in its own process
(answering after ``--latency`` seconds), no reply cache, ``--concurrency`` simulations at once,
tau2's results file written. Then **the bare loop**: the same requests (recorded once from a
warm-up run on an in-thread fake server, grouped by simulation, in their order) sent by a bare
aiohttp loop, each simulation's requests one after another (a conversation cannot be sent
faster), ``--concurrency`` simulations at once, against the same server: the bound any client
gets here. ``--rounds`` pairs (ours, then the bare loop); printed: each wall time and the
median of the ratios bare / ours (target >= 0.9: the run is limited by the conversation's
requests, not by us). Ours includes what the bare loop does not do: tau2's environment for each
simulation (its database built from the domain's file), tau2's orchestrator, tau2's evaluator on
each simulation, the store, tau2's results file. Both are warmed the same way: everything sent
once, untimed, to the same server (the server's handler and the client warm; ours also makes its
store then, as a notebook's store exists after its first run).

Do not time on a loaded machine: the load average is printed at the start and the end.

    .venv/bin/python benchmarks/bench_tau2.py [--domain mock] [--tasks 9] [--trials 4] \\
        [--latency 0.05] [--concurrency 16] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _bare import bare_loop  # benchmarks/_bare.py: this script's folder comes first on the path

ROOT = Path(__file__).resolve().parent.parent
HANDLER = "tooleval_nb.testing.tau2_script:answer"
SPLITS = {"telecom": "small"}


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split(" ", 3)[:3])


def _options(domain: str, tasks: int, trials: int, concurrency: int) -> dict[str, Any]:
    return {
        "limit": tasks,
        "trials": trials,
        "split": SPLITS.get(domain),
        "progress": "none",
        "cache": False,
        "resume": False,
        "max_concurrency": concurrency,
    }


def recorded_requests(domain: str, tasks: int, trials: int, folder: Path) -> list[list[dict]]:
    """The run's request bodies, grouped by simulation in their order: one warm-up run, one
    simulation at a time, on an in-thread fake server that records them (also the imports and
    tau2's first load); each simulation's requests are as many as its stored hops."""
    from tooleval_nb.tau2.run import run_tau2
    from tooleval_nb.testing.fake_openai import FakeOpenAIServer
    from tooleval_nb.testing.tau2_script import answer

    with FakeOpenAIServer(handler=answer, record=True) as server:
        model = {"model": "openai/fake", "api_base": server.url, "api_key": "k"}
        run = run_tau2(
            model, domain, store=folder / "warm.db", **_options(domain, tasks, trials, 1)
        ).result()
        bodies = list(server.bodies)
    sizes = [int(r.n_hops) for r in sorted(run.stored._rows, key=lambda r: r.finished_at)]
    if sum(sizes) != len(bodies):
        raise RuntimeError(f"recorded {len(bodies)} requests, the run stored {sum(sizes)} hops")
    out, start = [], 0
    for size in sizes:
        out.append(bodies[start : start + size])
        start += size
    return out


def ours(
    domain: str, tasks: int, trials: int, latency: float, concurrency: int, out: Path
) -> float:
    from tooleval_nb.tau2.run import run_tau2
    from tooleval_nb.testing.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer(latency=latency, process=True, handler=HANDLER) as server:
        model = {"model": "openai/fake", "api_base": server.url, "api_key": "k"}
        # warmed as the bare loop warms (everything once, untimed: the server's handler, our
        # imports); the warm-up run also makes the store, as a notebook's first run makes its own
        options = _options(domain, tasks, trials, concurrency)
        run_tau2(model, domain, store=out / "store.db", **options).result()
        t0 = time.perf_counter()
        run_tau2(
            model,
            domain,
            store=out / "store.db",
            output=out / "results.json",
            **options,
        ).result()
        return time.perf_counter() - t0


def bare(simulations: list[list[dict]], latency: float, concurrency: int) -> float:
    """The recorded requests from the bare loop (benchmarks/_bare.py), warmed first."""
    wall, _ = bare_loop(
        simulations, handler=HANDLER, latency=latency, concurrency=concurrency, warm=True
    )
    return wall


def run_section(args: argparse.Namespace) -> float:
    """The run against the bare loop; returns the median ratio bare / ours."""
    print(f"load average: {load_average()}")
    with tempfile.TemporaryDirectory(prefix="bench_tau2_") as tmp:
        folder = Path(tmp)
        simulations = recorded_requests(args.domain, args.tasks, args.trials, folder)
        n_requests = sum(len(s) for s in simulations)
        print(
            f"{args.domain}: {len(simulations)} simulations, {n_requests} requests, "
            f"latency {args.latency} s, {args.concurrency} at once"
        )
        ratios = []
        for i in range(args.rounds):
            ours_s = ours(
                args.domain,
                args.tasks,
                args.trials,
                args.latency,
                args.concurrency,
                folder / f"r{i}",
            )
            bare_s = bare(simulations, args.latency, args.concurrency)
            ratios.append(bare_s / ours_s)
            print(
                f"round {i + 1}: ours {ours_s:.2f} s, bare loop {bare_s:.2f} s, ratio {ratios[-1]:.2f}"
            )
    ratio = statistics.median(ratios)
    print(f"bare / ours, median of {len(ratios)}: {ratio:.2f} (target >= 0.9)")
    print(f"load average: {load_average()}")
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="mock")
    parser.add_argument("--tasks", type=int, default=9)
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    path = os.environ.get("PYTHONPATH", "")  # the fake server's process imports the script
    os.environ["PYTHONPATH"] = f"{ROOT}{os.pathsep}{path}" if path else str(ROOT)
    sys.path.insert(0, str(ROOT))
    run_section(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
