"""``te.rescore_tau2(path)``: tau2 results files on disk, anyone's, scored again by tau2's own
evaluator, simulation by simulation, as tau2's ``evaluate_trajectories`` scores them (the
domain from the file's environment info, solo mode from its agent and user, the tasks from the
file), except that a simulation tau2 refuses is reported as not scored rather than stopping the
file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .domains import Tau2Error, tau2_registry
from .evaluate import Verdict, evaluate_many, is_solo_mode
from .outcome import ScoredResults, Tau2Run
from .results import load_results, unknown_fields
from .session import is_private_domain

if TYPE_CHECKING:  # pragma: no cover
    from tau2.data_model.simulation import Results

__all__ = ["expand_paths", "rescore_tau2", "score_results"]

PathLike = str | os.PathLike[str]


def expand_paths(paths: PathLike | Iterable[PathLike]) -> list[Path]:
    """Files from files and folders (a folder's ``*.json``, sorted), in order, once each."""
    items = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    out: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                raise Tau2Error(f"τ²-bench results folder {path} holds no .json file")
            out.extend(found)
        elif path.exists():
            out.append(path)
        else:
            raise Tau2Error(f"τ²-bench results file {path} does not exist")
    unique = list(dict.fromkeys(out))
    if not unique:
        raise Tau2Error("rescore_tau2: no results file given")
    return unique


def score_results(
    results: Results,
    *,
    source: str | None = None,
    workers: int | None = None,
    computed: Mapping[tuple[str, int], Verdict] | None = None,
) -> ScoredResults:
    """tau2's verdict on every simulation of ``results`` (a simulation whose task the results
    do not hold is not scored, with that reason). ``computed``: ``(task id, trial)`` -> tau2's
    verdict already computed on that very simulation (a run's own cells): not evaluated again."""
    known = [name for name in tau2_registry().get_domains() if not is_private_domain(name)]
    domain = str(results.info.environment_info.domain_name)
    if domain not in known:
        where = f"τ²-bench results file {source}" if source else "τ²-bench results"
        raise Tau2Error(
            f"{where}: field info.environment_info.domain_name is {domain!r}, which tau2 "
            f"{'' if source else 'here '}does not know (its domains: "
            f"{', '.join(known)})"
        )
    solo = is_solo_mode(results)
    tasks = {task.id: task for task in results.tasks}
    computed = computed or {}

    def key(simulation: Any) -> tuple[str, int]:
        return (str(simulation.task_id), int(simulation.trial or 0))

    jobs = [
        (tasks[s.task_id], s)
        for s in results.simulations
        if s.task_id in tasks and key(s) not in computed
    ]
    verdicts = iter(evaluate_many(domain, jobs, solo_mode=solo, workers=workers))
    ordered = [
        Verdict(None, f"the results hold no task {simulation.task_id!r}")
        if simulation.task_id not in tasks
        else computed[key(simulation)]
        if key(simulation) in computed
        else next(verdicts)
        for simulation in results.simulations
    ]
    return ScoredResults(results, ordered, source=source, solo_mode=solo)


def rescore_tau2(paths: PathLike | Iterable[PathLike], *, workers: int | None = None) -> Tau2Run:
    """Score tau2 results files again with tau2's own evaluator.

    Args:
        paths: a results file, a folder of them (``*.json``), or several.
        workers: processes to evaluate in (None: one per core for a file of many simulations,
            else this process; see :func:`.evaluate.evaluate_many`).

    Returns:
        A :class:`~tooleval_nb.tau2.Tau2Run`: ``tau2_results_df()``, ``tau2_scores()``,
        ``explain(...)``, ``inaction_baseline()``.

    Raises:
        Tau2Error: a file that does not exist, is not JSON, or is not tau2 26.3's ``Results``
            shape (naming the file, the simulation and the field), or names a domain tau2 does
            not know.
    """
    parts = []
    for path in expand_paths(paths):
        results = load_results(path)
        part = score_results(results, source=str(path), workers=workers)
        part.unknown_fields = unknown_fields(path)
        parts.append(part)
    return Tau2Run(parts)
