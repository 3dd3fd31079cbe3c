"""The run store: one SQLite database (WAL) holding jobs, runs, per-case results and events.

:class:`Store` is the one object callers hold. It is made of three parts, each a module of its
own over the same :class:`~.database.Database` (one connection per thread):

* :mod:`.database`: the file, its connections and transactions, migrations, the checkpoint
  thread, and where the store lives (``store=``, else ``TOOLEVAL_STORE``, else ``runs.db`` under
  the user's data directory);
* :mod:`.slots`: the jobs and the cross-process job-slot queue (:class:`~.slots.JobRow`);
* :mod:`.results`: runs, results and events, written as cases finish and read as typed rows
  (:class:`~.results.RunRow`, :class:`~.results.ResultRow`, :class:`~.results.EventRow`,
  :class:`~.results.RunListing`), and a model's summary (:func:`~.results.summary_of`).

Here: :class:`Store` (the parts together, and what spans them: deleting a run) and
:func:`resolve_store` (one store per path per process).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..errors import StoreError
from .database import ENV_VAR, default_store_path
from .results import Results
from .slots import JobSlots

__all__ = ["Store", "resolve_store"]


class Store(JobSlots, Results):
    """A run store on one SQLite file. Use :func:`resolve_store` to share one per path.

    Args:
        path: the database file (created with its folder when missing).
        max_jobs: how many jobs may run at once on this store (across processes); more queue.
            Default: ``TOOLEVAL_MAX_JOBS`` or 2.
    """

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def delete_run(self, run_id: str) -> None:
        """Delete a run with its results, its job and the job's events (not while it runs)."""
        row = self.run_row(run_id)
        if row.status == "running" and row.job_id and self.job(row.job_id).alive:
            raise StoreError(
                f"run {run_id!r} is still running (job {row.job_id!r}); cancel the job first"
            )
        with self.transaction() as c:
            c.execute("DELETE FROM results WHERE run_id = ?", (run_id,))
            c.execute("DELETE FROM runs WHERE id = ?", (run_id,))
            if row.job_id:
                c.execute("DELETE FROM events WHERE job_id = ?", (row.job_id,))
                c.execute("DELETE FROM jobs WHERE id = ?", (row.job_id,))
                c.execute("DELETE FROM job_configs WHERE job_id = ?", (row.job_id,))


_STORES: dict[tuple[int, Path], Store] = {}
_STORES_LOCK = threading.Lock()


def resolve_store(store: Store | str | os.PathLike[str] | None = None) -> Store:
    """The :class:`Store` for ``store=``: an instance, a path, else ``TOOLEVAL_STORE``, else the
    default path. One instance per path per process."""
    if isinstance(store, Store):
        return store
    if store is None:
        store = os.environ.get(ENV_VAR) or default_store_path()
    path = Path(store).expanduser().resolve()
    key = (os.getpid(), path)
    with _STORES_LOCK:
        found = _STORES.get(key)
        if found is None:
            found = _STORES[key] = Store(path)
        return found
