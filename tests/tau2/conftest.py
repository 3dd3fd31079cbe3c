"""Shared τ²-bench fixtures: results files of scripted conversations (gold and greet-and-stop),
built against tau2's own environments and written through our writer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("tau2.domains.airline.environment")

from tooleval_nb.tau2 import domains, results, trajectory  # noqa: E402


def build_results(domain: str, tasks, simulations, *, model: str = "scripted", trials: int = 1):
    return results.new_results(
        domain,
        tasks,
        simulations,
        agent_model=model,
        user_model="scripted-user",
        num_trials=trials,
        max_steps=100,
        max_errors=10,
    )


@pytest.fixture(scope="session")
def tau2_file(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``tau2_file(domain, split, pattern, n=None)``: a results file whose trial ``t`` of each
    task is the gold conversation when ``pattern[t]`` is ``"g"``, greet-and-stop when ``"n"``."""
    made: dict[tuple, Path] = {}

    def make(domain: str, split: str | None, pattern: str, n: int | None = None) -> Path:
        key = (domain, split, pattern, n)
        if key not in made:
            tasks = domains.load_tasks(domain, split)[:n]
            sims = []
            for trial, kind in enumerate(pattern):
                for task in tasks:
                    sim = (
                        trajectory.gold_simulation(domain, task, trial=trial)
                        if kind == "g"
                        else trajectory.noop_simulation(task, trial=trial)
                    )
                    sims.append(sim)
            data = build_results(domain, tasks, sims, trials=len(pattern))
            path = tmp_path_factory.mktemp("tau2") / f"{domain}-{split}-{pattern}-{n}.json"
            made[key] = results.write_results(data, path)
        return made[key]

    return make
