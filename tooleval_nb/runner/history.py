"""The store's history: list runs, load one, delete one, resume an interrupted job."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..cluster import resolve_executor
from ..errors import StoreError
from .events import Callback, as_callbacks
from .jobs import Job
from .launch import attach_progress
from .plan import Plan
from .run import Run
from .slots import owner_alive, owner_id
from .store import Store, resolve_store
from .trust import check_trust

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["history", "load_run", "delete_run", "resume", "HISTORY_COLUMNS"]

#: ``history()`` columns, one row per run, newest first. ``status`` shows ``interrupted`` for a
#: run whose process died; ``n_results`` counts stored case × model × sample rows of ``n_total``;
#: ``pass_rate`` and ``overall`` are over the stored rows; ``created_at`` and ``finished_at`` are UTC
#: times to the second.
HISTORY_COLUMNS = (
    "run_id",
    "job_id",
    "name",
    "created_at",
    "finished_at",
    "status",
    "suite",
    "suite_fingerprint",
    "models",
    "n_total",
    "n_results",
    "n_passed",
    "n_errored",
    "pass_rate",
    "overall",
    "temperature",
    "tool_choice",
)

StoreArg = Store | str | os.PathLike[str] | None


def history(store: StoreArg = None, limit: int | None = None) -> pd.DataFrame:
    """Every run in the store as a DataFrame (columns: :data:`HISTORY_COLUMNS`)."""
    import pandas as pd

    rows = []
    for r in resolve_store(store).runs(limit):
        status = r.status
        if status in ("running", "queued") and not owner_alive(r.owner, r.updated_at):
            status = "interrupted"
        n = r.n_results
        rows.append(
            {
                "run_id": r.id,
                "job_id": r.job_id,
                "name": r.name,
                "created_at": _to_second(r.created_at),
                "finished_at": _to_second(r.finished_at) if r.finished_at else pd.NaT,
                "status": status,
                "suite": r.suite_name,
                "suite_fingerprint": r.suite_fingerprint,
                "models": [t["label"] for t in r.targets],
                "n_total": r.n_total,
                "n_results": n,
                "n_passed": int(r.n_passed or 0),
                "n_errored": int(r.n_errored or 0),
                "pass_rate": (r.n_passed or 0) / n if n else float("nan"),
                "overall": r.overall if r.overall is not None else float("nan"),
                "temperature": r.settings.get("temperature"),
                "tool_choice": r.settings.get("tool_choice"),
            }
        )
    return pd.DataFrame(rows, columns=list(HISTORY_COLUMNS))


def _to_second(epoch: float) -> pd.Timestamp:
    """A stored time (epoch seconds) as the package shows times: UTC, to the second, without an
    offset (as an experiment's timeline and ``tooleval-nb history`` show them)."""
    import pandas as pd

    return pd.Timestamp(int(epoch), unit="s")


def _run_id(store: Store, run_or_job_id: str) -> str:
    if run_or_job_id.startswith("job_"):
        return store.job(run_or_job_id).run_id
    return run_or_job_id


def load_run(run_id: str, store: StoreArg = None) -> Run:
    """The run ``run_id`` (a job id works too) with everything stored so far."""
    the_store = resolve_store(store)
    return Run.load(the_store, _run_id(the_store, run_id))


def delete_run(run_id: str, store: StoreArg = None) -> None:
    """Delete a run, its results, its job and the job's events (not while it runs)."""
    the_store = resolve_store(store)
    the_store.delete_run(_run_id(the_store, run_id))


def resume(
    job_id: str,
    store: StoreArg = None,
    *,
    models: Any = None,
    api_keys: Mapping[str, str] | None = None,
    agent: Any = None,
    callbacks: Callback | list[Callback] | Mapping[str, Callback] | None = None,
    progress: Any = "auto",
    live_tools: Any = None,
    executor: Any = "local",
    trust: bool = False,
) -> Job:
    """Finish an interrupted (or cancelled, or failed) job: only its missing cases run.

    A job that is not this user's own (recorded by another user or on another host, or kept in
    a store file another user owns: a shared store) is refused until ``trust=True``: the
    message lists what resuming would run or contact (the MCP command it spawns, the code
    graders it runs, the agent it imports, the endpoints your keys would go to); nothing runs
    before (see :mod:`tooleval_nb.runner.trust`).

    API keys are never stored: give them again with ``models`` (as in ``run_eval``) or
    ``api_keys={model: key}``, or have them in the environment. An agent callable that was not
    importable (defined in a notebook) must be given again as ``agent``. Live tools given as an
    MCP target are reopened; an executor object must be given again as ``live_tools``.
    ``executor`` (``"local"``, ``"ray"`` or a ``te.RayExecutor``) runs the missing cells there.

    Returns the :class:`Job`, started as ``run_eval`` starts one (in the background in a notebook).
    """
    the_store = resolve_store(store)
    row = the_store.job(job_id)
    if row.status in ("running", "queued") and row.alive:
        where = "this process" if row.owner == owner_id() else f"process {row.owner}"
        raise StoreError(
            f"job {job_id!r} is still {row.status} in {where}; await or cancel "
            "it there instead of resuming it"
        )
    check_trust(job_id, row.config, row.owner, the_store.path, trust)
    plan = Plan.from_config(
        row.config, models=models, agent=agent, api_keys=api_keys, live_tools=live_tools
    )
    plan.executor = resolve_executor(executor)
    job = Job(plan, the_store, job_id=job_id, run_id=row.run_id, callbacks=as_callbacks(callbacks))
    attach_progress(job, progress)
    job.emit(
        "job_created",
        {
            "job_id": job_id,
            "run_id": row.run_id,
            "status": "submitted",
            "resumed": True,
            "done": row.n_done,
            "total": plan.n_total,
        },
    )
    return job.start()
