"""``te.replay_tau2``: another agent against the user turns of a stored τ² run.

A simulated user is a model too: two agents run on the same tasks meet two different users,
and part of the difference in their rewards is the simulator's. Replaying the user removes it:
every simulation of the stored run (``te.run_tau2``'s result, ``te.rescore_tau2``'s of one
file, tau2's ``Results``, or a results file, ours or anyone's) gives its user's messages, said again in the same order to the new
agent (:class:`~.user.Tau2User`'s script), whatever the agent answers; the first ``turns`` of
them (all by default), after which the user's model goes on. Same tasks, same trials and seeds,
same conversation starts: the new run is paired with the stored one simulation by simulation.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from .domains import Tau2Error, check_domain
from .loop import DEFAULT_MAX_ERRORS, DEFAULT_MAX_STEPS, trial_seeds
from .results import load_results
from .run import TAU2_MODES, Tau2Job, Tau2Spec, start_tau2

__all__ = ["replay_tau2", "user_scripts"]


def _results(stored: Any) -> Any:
    """tau2's ``Results`` of ``stored`` (a run's result, a rescored file, a Results, or a
    results file's path)."""
    from tau2.data_model.simulation import Results

    if isinstance(stored, Results):
        return stored
    if isinstance(stored, (str, os.PathLike)):
        return load_results(stored)  # another shape or version is refused, with what differs
    made = getattr(stored, "stored", None)  # a run of ours: its simulations as stored
    if made is not None:
        return made.tau2_results()
    parts = getattr(stored, "parts", None)  # a rescored file (te.rescore_tau2)
    if parts is not None:
        if len(parts) != 1:
            raise Tau2Error(f"replay_tau2 replays one results file; this run holds {len(parts)}")
        return parts[0].results
    raise TypeError(
        f"replay_tau2 replays a τ² run, tau2's Results or a results file, not {type(stored).__name__}"
    )


def user_scripts(results: Any, turns: int | None = None) -> dict[tuple[str, int], list[Any]]:
    """``(task id, trial)`` -> the user messages each stored simulation's user said (after the
    task's own message history), the first ``turns`` of them (all when None)."""
    tasks = {t.id: t for t in results.tasks}
    out: dict[tuple[str, int], list[Any]] = {}
    for sim in results.simulations:
        task = tasks.get(sim.task_id)
        state = getattr(task, "initial_state", None)
        history = len(state.message_history or []) if state is not None else 0
        said = [m for m in sim.messages[history:] if getattr(m, "role", None) == "user"]
        out[(sim.task_id, sim.trial or 0)] = said if turns is None else said[:turns]
    return out


def replay_tau2(
    stored: Any,
    model: Any = None,
    *,
    user_model: Any = None,
    turns: int | None = None,
    max_steps: int | None = None,
    max_errors: int | None = None,
    mode: str = "fc",
    output: str | os.PathLike[str] | None = None,
    store: Any = None,
    **run_options: Any,
) -> Tau2Job:
    """Run ``model`` as the agent of a stored τ² run's simulations, its user's turns replayed.

    Args:
        stored: the run whose users are replayed: ``te.run_tau2``'s result, a rescored file
            (``te.rescore_tau2``), tau2's ``Results`` or the path of a tau2 results file.
        model: the agent (as in :func:`~.run.run_tau2`).
        user_model: the model that goes on once a script ends (default each agent's own).
        turns: replay the first ``turns`` user messages of each simulation (all when None).
        max_steps: tau2's limit (default the stored run's).
        max_errors: tau2's limit (default the stored run's).
        mode: ``fc`` or a raw-text format (as in ``run_tau2``).
        output: write tau2's results file there.
        store: the run store.
        **run_options: passed to the runner (as in ``run_tau2``).

    Returns:
        The job; its run pairs with the stored one by (task, trial).
    """
    results = _results(stored)
    domain = check_domain(results.info.environment_info.domain_name)
    if mode not in TAU2_MODES:
        raise Tau2Error(f"mode must be one of {', '.join(TAU2_MODES)}, not {mode!r}")
    if turns is not None and (not isinstance(turns, int) or turns < 0):
        raise Tau2Error(f"turns must be a non-negative integer or None, not {turns!r}")
    scripts = user_scripts(results, turns)
    if not scripts:
        raise Tau2Error("the stored run has no simulation to replay")
    ids = list(dict.fromkeys(sim.task_id for sim in results.simulations))
    by_id = {t.id: t for t in results.tasks}
    trials = max(k for _, k in scripts) + 1
    digest = hashlib.sha256(
        json.dumps(
            {
                f"{t}/{k}": [m.model_dump(mode="json") for m in said]
                for (t, k), said in scripts.items()
            },
            sort_keys=True,
            default=str,
        ).encode()
    ).hexdigest()[:16]
    spec = Tau2Spec(
        domain=domain,
        tasks=[by_id[i] for i in ids],
        trials=trials,
        max_steps=max_steps or results.info.max_steps or DEFAULT_MAX_STEPS,
        max_errors=max_errors or results.info.max_errors or DEFAULT_MAX_ERRORS,
        mode=mode,
        user_model=user_model,
        output=Path(output) if output is not None else None,
        seeds=trial_seeds(trials),
        scripts=scripts,
        replay_of=digest,
    )
    return start_tau2(spec, model, store, run_options)
