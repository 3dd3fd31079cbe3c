"""Starting a benchmark's run: the run options it sets itself, the models' labels known before
the run, and the runner's job prepared with the benchmark's agent.

The order a benchmark follows (``bfcl/run.py``): check its own arguments and
:func:`run_options`; check its output folder for each of :func:`target_labels`; build its suite
and agent; :func:`prepare` the job; give the agent what the job knows (the run id, for its side
files: :func:`~.files.run_folder`; the cells stored already: :func:`~.agent.done_cells`); wrap
the job in its :class:`~.job.BenchmarkJob` with its follower, and ``start()`` it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..runner import Job
from ..runner.launch import prepare_job
from ..runner.plan import make_targets
from ..suite import Suite
from .agent import CaseAgent

__all__ = ["prepare", "run_options", "target_labels"]


def run_options(
    function: str,
    options: Mapping[str, Any],
    own: Mapping[str, Any],
    *,
    refused: Iterable[str] = (),
    reason: str,
    advice: str,
) -> dict[str, Any]:
    """The run options passed to ``run_eval``: the user's, with the benchmark's ``own`` set
    over them. A user option the benchmark sets itself (a key of ``own``, or one of
    ``refused``) is a TypeError that says why and what to do instead."""
    taken = sorted(set(options) & (set(own) | set(refused)))
    if taken:
        raise TypeError(f"{function} sets {', '.join(taken)} itself ({reason}); {advice}")
    return {**options, **own}


def target_labels(model: Any, mode: str) -> list[str]:
    """The labels a run of ``model`` stores its results under (as the runner makes them,
    unique), known before the run: an output folder is checked for each before anything
    runs. ``mode``: the runner's mode (``native``, or a parser's name)."""
    return [target.label for target in make_targets(model, mode)]  # type: ignore[arg-type]


def prepare(
    suite: Suite,
    model: Any,
    *,
    store: Any = None,
    agent: CaseAgent | None = None,
    options: Mapping[str, Any],
) -> Job:
    """The runner's job for the benchmark's suite (``run_eval``'s preparation: the plan, the
    store, resume), not started; ``agent`` runs the cases that are conversations."""
    return prepare_job(suite, model, store=store, agent=agent, **options)
