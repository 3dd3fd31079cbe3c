"""The run store's job-slot queue: jobs, their owners, and how many may run at once.

A store admits :attr:`JobSlots.max_jobs` running jobs at once, across processes (``TOOLEVAL_MAX_JOBS``
or 2); a job that finds no free slot stays ``queued`` and asks again (:meth:`JobSlots.claim_job`).
A job's owner is ``host:pid`` (:func:`owner_id`); a job marked running whose owner is gone
(:func:`owner_alive`) is ``interrupted`` and can be resumed (:meth:`JobSlots.find_resumable`).
Reads return :class:`JobRow`.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..credentials import redact
from ..envvars import count_from_env
from ..errors import StoreError
from .database import Database, dumps
from .results import insert_events

__all__ = ["JobSlots", "JobRow", "owner_id", "owner_alive", "ENV_MAX_JOBS", "DEFAULT_MAX_JOBS"]

ENV_MAX_JOBS = "TOOLEVAL_MAX_JOBS"
DEFAULT_MAX_JOBS = 2


def owner_id() -> str:
    """``host:pid`` of this process: the owner recorded on the jobs it runs."""
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_alive(
    owner: str | None, updated_at: float | None = None, *, stale_after: float = 120.0
) -> bool:
    """Whether the process named by ``owner`` (``host:pid``) still runs.

    On this host the pid is checked (zombies count as dead); on another host the owner counts as
    alive while its job was updated within ``stale_after`` seconds.
    """
    if not owner:
        return False
    host, _, pid_text = owner.rpartition(":")
    if host != socket.gethostname():
        return updated_at is not None and time.time() - updated_at < stale_after
    try:
        pid = int(pid_text)
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    try:  # a killed child not yet reaped by its parent is a zombie: dead for us
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return True


@dataclass(frozen=True, slots=True)
class JobRow:
    """One stored job: its state, counters, owner and times, and ``config`` (decoded: what a
    resume needs, the suite, targets and settings)."""

    id: str
    run_id: str
    kind: str
    status: str
    config_key: str
    n_total: int
    n_done: int
    owner: str | None
    error: str | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    updated_at: float | None
    config: dict[str, Any]

    @property
    def alive(self) -> bool:
        """Whether its owner process still runs (:func:`owner_alive`)."""
        return owner_alive(self.owner, self.updated_at)


_JOB_COLUMNS = (
    "id, run_id, kind, status, config_key, n_total, n_done, owner, error, created_at, "
    "started_at, finished_at, updated_at"
)


def _max_jobs_from_env() -> int | None:
    """``$TOOLEVAL_MAX_JOBS`` as a count of jobs, None when unset or empty."""
    return count_from_env(
        ENV_MAX_JOBS, StoreError, "the jobs a run store runs at once", str(DEFAULT_MAX_JOBS)
    )


class JobSlots(Database):
    """The jobs table of a run store and its slots (part of :class:`~.store.Store`).

    Args:
        path: the database file.
        max_jobs: how many jobs may run at once on this store (across processes); more queue.
            Default: ``TOOLEVAL_MAX_JOBS`` or 2.
    """

    def __init__(self, path: str | os.PathLike[str], *, max_jobs: int | None = None) -> None:
        self.max_jobs = max_jobs or _max_jobs_from_env() or DEFAULT_MAX_JOBS
        super().__init__(path)

    def create_job(
        self,
        *,
        job_id: str,
        run_id: str,
        config: dict[str, Any] | str,
        config_key: str,
        n_total: int,
        run_name: str | None,
        suite_name: str,
        suite_fingerprint: str,
        targets: list[dict[str, Any]],
        settings: dict[str, Any],
        drafts_skipped: int = 0,
    ) -> None:
        """Insert a queued job (owned by this process) and its run, in one transaction
        (``config``: the data, or its JSON text when the caller has it already)."""
        now = time.time()
        with self.transaction() as c:
            c.execute(
                "INSERT INTO jobs (id, run_id, status, config_key, n_total, owner, "
                "created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?)",
                (job_id, run_id, config_key, n_total, owner_id(), now, now),
            )
            # the configuration (the whole suite) lives apart: the jobs row is updated per case
            c.execute(
                "INSERT INTO job_configs (job_id, config_json) VALUES (?, ?)",
                (job_id, config if isinstance(config, str) else dumps(config)),
            )
            c.execute(
                "INSERT INTO runs (id, job_id, name, suite_name, suite_fingerprint, "
                "targets_json, settings_json, status, n_total, created_at, drafts_skipped) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)",
                (
                    run_id,
                    job_id,
                    run_name,
                    suite_name,
                    suite_fingerprint,
                    dumps(redact(targets)),
                    dumps(redact(settings)),
                    n_total,
                    now,
                    drafts_skipped,
                ),
            )

    def job(self, job_id: str) -> JobRow:
        """The job ``job_id`` with its configuration; StoreError when unknown."""
        conn = self.connection()
        cursor = conn.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,))
        cursor.row_factory = None
        row = cursor.fetchone()
        if row is None:
            raise StoreError(
                f"no job {job_id!r} in the run store {self.path}; "
                "te.history() lists the runs and their job ids"
            )
        config = conn.execute(
            "SELECT config_json FROM job_configs WHERE job_id = ?", (job_id,)
        ).fetchone()
        return JobRow(*(*row, json.loads(config[0]) if config else {}))

    def find_resumable(self, config_key: str) -> str | None:
        """The newest unfinished job with this configuration whose process is gone, if any."""
        rows = (
            self.connection()
            .execute(
                "SELECT id, owner, updated_at FROM jobs WHERE config_key = ? AND status IN "
                "('queued', 'running', 'interrupted') ORDER BY created_at DESC",
                (config_key,),
            )
            .fetchall()
        )
        for job_id, owner, updated_at in rows:
            if not owner_alive(owner, updated_at):
                return job_id  # type: ignore[no-any-return]
        return None

    def claim_job(self, job_id: str, owner: str) -> bool:
        """Start ``job_id`` for ``owner`` if a job slot is free; False when it must keep queueing.

        Jobs marked running by dead processes are marked ``interrupted`` on the way. Raises
        StoreError when the job is already running in another live process.
        """
        now = time.time()
        with self.transaction() as c:
            row = c.execute(
                "SELECT status, owner, updated_at FROM jobs WHERE id = ?", (job_id,)
            ).fetchone()
            if row is None:
                raise StoreError(f"no job {job_id!r} in the run store {self.path}")
            status, holder, updated_at = row
            if status == "running" and holder != owner and owner_alive(holder, updated_at):
                raise StoreError(
                    f"job {job_id!r} is already running in process {holder}; "
                    "wait for it or cancel it there"
                )
            alive = 0
            for other, other_owner, other_updated in c.execute(
                "SELECT id, owner, updated_at FROM jobs WHERE status = 'running' AND id != ?",
                (job_id,),
            ).fetchall():
                if owner_alive(other_owner, other_updated):
                    alive += 1
                else:
                    c.execute("UPDATE jobs SET status = 'interrupted' WHERE id = ?", (other,))
                    c.execute("UPDATE runs SET status = 'interrupted' WHERE job_id = ?", (other,))
            if alive >= self.max_jobs:
                c.execute(
                    "UPDATE jobs SET status = 'queued', owner = ?, updated_at = ? WHERE id = ?",
                    (owner, now, job_id),
                )
                return False
            c.execute(
                "UPDATE jobs SET status = 'running', owner = ?, error = NULL, "
                "started_at = COALESCE(started_at, ?), finished_at = NULL, updated_at = ? "
                "WHERE id = ?",
                (owner, now, now, job_id),
            )
            c.execute(
                "UPDATE runs SET status = 'running', finished_at = NULL WHERE job_id = ?", (job_id,)
            )
        return True

    def finish_job(
        self,
        job_id: str,
        status: str,
        error: str | None = None,
        events: Sequence[tuple[str, float, Mapping[str, Any]]] = (),
    ) -> None:
        """Mark a job (and its run) completed / failed / cancelled, with its closing events."""
        now = time.time()
        with self.transaction() as c:
            c.execute(
                "UPDATE jobs SET status = ?, error = ?, finished_at = ?, updated_at = ? "
                "WHERE id = ?",
                (status, error, now, now, job_id),
            )
            c.execute(
                "UPDATE runs SET status = ?, finished_at = ? WHERE job_id = ?",
                (status, now, job_id),
            )
            insert_events(c, job_id, events)
