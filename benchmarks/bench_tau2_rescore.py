#!/usr/bin/env python
"""τ²-bench rescoring speed: ``te.rescore_tau2`` against tau2's own evaluator on the same files.

Builds a results file per domain (the gold conversation and the greet-and-stop one of each of
``--tasks`` tasks, tooleval_nb.tau2.trajectory), then times, on the same file:

1. **tau2**: what tau2's ``evaluate_trajectories`` does (``Results.load``, then
   ``evaluate_simulation`` with evaluation type ALL on each simulation, then
   ``compute_metrics``), in this process with tau2 already imported;
2. **ours, one process**: ``te.rescore_tau2(path, workers=1)`` and its ``tau2_scores()``;
3. **ours, a pool**: ``workers=--workers`` (spawned processes, each importing tau2 once: their
   start is included in the time).

Printed: seconds per simulation of each, and the ratio tau2 / ours (> 1: ours is faster). The
load average is printed at the start and the end: on a shared machine compare ratios, not
seconds. Every simulation's reward is checked equal between tau2 and ours.

Where the time goes: tau2's evaluator builds two environments per simulation (the replay and
the gold one), each loading the domain's database from its file (a JSON parse, then pydantic's
validation) and hashing it; airline's and retail's databases are large, telecom's and mock's
small. Ours calls the same evaluator (its rewards must be tau2's) in a scoring session
(tooleval_nb/tau2/session.py): each large database file parsed once, each environment
validating its own copy, and Python's cycle collector, which walked the whole heap several
times per simulation, paused. Figures (10 tasks, 20 simulations per domain, one run, a machine
shared at load average 9 on 2 cores, so the seconds are slow and the ratios are what counts):
before the sessions, ours in one process was x0.85 (airline) and x1.12 (retail) of tau2's loop;
with them, x3.24 (airline: tau2 6.13 s/sim, ours 1.89) and x3.34 (retail: 2.22, 0.67). What
remains is tau2's own work: validating each environment's database and hashing both. A pool of
processes pays for its workers' start (each imports tau2 and litellm) only on files of a few
hundred simulations.

    .venv/bin/python benchmarks/bench_tau2_rescore.py [--domain airline --domain mock] [--tasks 10] \\
        [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def build(domain: str, n: int, folder: Path) -> Path:
    from tooleval_nb.tau2 import domains, results, trajectory

    split = "small" if domain == "telecom" else None
    tasks = domains.load_tasks(domain, split)[:n]
    sims = [trajectory.gold_simulation(domain, t, trial=0) for t in tasks]
    sims += [trajectory.noop_simulation(t, trial=1) for t in tasks]
    data = results.new_results(
        domain, tasks, sims, agent_model="scripted", user_model="scripted-user",
        num_trials=2, max_steps=100, max_errors=10,
    )  # fmt: skip
    return results.write_results(data, folder / f"{domain}.json")


def tau2_loop(path: Path) -> tuple[list[float | None], float]:
    from tau2.data_model.simulation import Results
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.metrics.agent_metrics import compute_metrics

    start = time.perf_counter()
    loaded = Results.load(path)
    tasks = {task.id: task for task in loaded.tasks}
    rewards: list[float | None] = []
    for sim in loaded.simulations:
        try:
            sim.reward_info = evaluate_simulation(
                simulation=sim, task=tasks[sim.task_id], evaluation_type=EvaluationType.ALL,
                solo_mode=False, domain=loaded.info.environment_info.domain_name,
            )  # fmt: skip
            rewards.append(sim.reward_info.reward)
        except Exception:  # tau2's own script would stop the file here
            rewards.append(None)
    if all(r is not None for r in rewards):
        compute_metrics(loaded)
    return rewards, time.perf_counter() - start


def ours(path: Path, workers: int) -> tuple[list[float | None], float]:
    import tooleval_nb as te

    start = time.perf_counter()
    run = te.rescore_tau2(path, workers=workers)
    run.tau2_scores()
    rewards = [None if r != r else r for r in run.tau2_results_df()["reward"].tolist()]
    return rewards, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", action="append", default=None)
    parser.add_argument("--tasks", type=int, default=10, help="tasks per domain (x2 simulations)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    domains = args.domain or ["airline", "retail", "telecom", "mock"]
    print(f"load average at start: {_load()}")
    from tooleval_nb.tau2.domains import tau2_registry

    t0 = time.perf_counter()
    tau2_registry()
    print(
        f"tau2 import (registry, litellm): {time.perf_counter() - t0:.2f} s (once, not timed below)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for domain in domains:
            path = build(domain, args.tasks, Path(tmp))
            theirs, t_tau2 = tau2_loop(path)
            mine, t_one = ours(path, 1)
            pooled, t_pool = ours(path, args.workers)
            n = len(theirs)
            assert mine == theirs == pooled, (domain, mine, theirs, pooled)
            print(
                f"{domain:8} {n:4} simulations: tau2 {t_tau2 / n:.3f} s/sim, ours (1 process) "
                f"{t_one / n:.3f} s/sim (x{t_tau2 / t_one:.2f}), ours ({args.workers} "
                f"processes) {t_pool / n:.3f} s/sim (x{t_tau2 / t_pool:.2f}); rewards equal"
            )
    print(f"load average at end: {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
