"""The run store: one SQLite database (WAL) holding jobs, runs, per-case results and events.

* Where: the ``store=`` argument (a path or a :class:`Store`), else the ``TOOLEVAL_STORE``
  environment variable, else ``runs.db`` under the user's data directory (platformdirs).
* Concurrency: WAL mode, ``busy_timeout``, one connection per thread (and per process), and every
  write in one ``BEGIN IMMEDIATE`` transaction, so two notebooks may share a store.
* Durability: a finished case is written with its events and the job's counter in one
  transaction (several cases share one when they finish together: :meth:`Store.write_results`,
  used by :mod:`.writer`), and is reported only after that commit, so a process killed mid-run
  loses only cases nobody was told were finished. The results table is keyed by
  ``(run_id, model, mode, case_id, sample)``: a resumed run never writes a case twice.
* Checkpoints: no connection of ours copies the write-ahead log back into the database as part
  of a commit (SQLite's automatic checkpoint is off). A thread of the store's own does it
  (:class:`_Checkpointer`, a ``PASSIVE`` checkpoint at most every :data:`CHECKPOINT_EVERY_S`
  while writes go on), so that a commit on the event loop never waits for the log's copy and
  its ``fsync`` calls: about 20 ms each, three or four times per 1,000 stored cases.
* Schema changes are migrations (:mod:`.schema`) numbered in the ``schema_version`` table.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..credentials import redact
from ..errors import StoreError
from ..scoring.frame import summarize_rows
from .record import RESULT_FIELDS
from .schema import INSERT_RESULT, MIGRATIONS, REQUIRED_TABLES

__all__ = ["Store", "resolve_store", "summary_of", "SUMMARY_FIELDS", "default_store_path",
           "owner_id", "owner_alive", "EventRow"]

#: the result columns a per-model summary reads (:func:`summary_of`)
SUMMARY_FIELDS = ("passed", "error", "tool_score", "param_score", "overall", "latency_ms")

#: an event as stored: ``(type, ts, data)``
EventRow = tuple[str, float, dict[str, Any]]

ENV_VAR = "TOOLEVAL_STORE"
ENV_MAX_JOBS = "TOOLEVAL_MAX_JOBS"
DEFAULT_MAX_JOBS = 2

#: how often (seconds) the checkpoint thread copies the write-ahead log into the database at
#: most, while commits go on (SQLite's automatic checkpoint, off on our connections, would run
#: one inside a commit after every 1,000 pages written)
CHECKPOINT_EVERY_S = 0.5

#: after how long (seconds) without a commit the checkpoint thread ends (a commit starts it)
CHECKPOINT_IDLE_S = 30.0

log = logging.getLogger(__name__)


def default_store_path() -> Path:
    """``runs.db`` under the user's data directory (platformdirs)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("tooleval_nb", appauthor=False)) / "runs.db"


def owner_id() -> str:
    """``host:pid`` of this process: the owner recorded on the jobs it runs."""
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_alive(owner: str | None, updated_at: float | None = None, *, stale_after: float = 120.0
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


class Store:
    """A run store on one SQLite file. Use :func:`resolve_store` to share one per path.

    Args:
        path: the database file (created with its folder when missing).
        max_jobs: how many jobs may run at once on this store (across processes); more queue.
            Default: ``TOOLEVAL_MAX_JOBS`` or 2.
    """

    def __init__(self, path: str | os.PathLike[str], *, max_jobs: int | None = None) -> None:
        self.path = Path(path).expanduser().resolve()
        env_jobs = os.environ.get(ENV_MAX_JOBS)
        self.max_jobs = max_jobs or (int(env_jobs) if env_jobs else DEFAULT_MAX_JOBS)
        self._local = threading.local()
        self._checkpointer = _Checkpointer(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder of the run store {self.path}: {exc}; "
                             f"pass store='some/writable/runs.db' or set {ENV_VAR}") from exc
        self._migrate()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    # -- connections -------------------------------------------------------------------------
    def connection(self) -> sqlite3.Connection:
        """This thread's connection (a new one after a fork)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            return conn
        try:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None,
                                   check_same_thread=True)
            conn.execute("PRAGMA busy_timeout = 30000")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"the run store {self.path} cannot use WAL mode (got {mode}); "
                                 "put it on a local disk")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA wal_autocheckpoint = 0")  # the checkpoint thread's work
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the run store {self.path}: {exc}; pass another "
                             f"store= path or set {ENV_VAR}") from exc
        conn.row_factory = sqlite3.Row
        self._local.conn = conn
        self._local.pid = os.getpid()
        return conn

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on error)."""
        conn = self.connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        self._checkpointer.poke()

    def _migrate(self) -> None:
        conn = self.connection()
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        with self.transaction() as c:
            row = c.execute("SELECT MAX(version) FROM schema_version").fetchone()
            version = row[0] or 0
            if version > len(MIGRATIONS):
                raise StoreError(f"the run store {self.path} has schema version {version}, newer "
                                 f"than this tooleval_nb knows ({len(MIGRATIONS)}); upgrade "
                                 "tooleval_nb or use another store")
            for number in range(version + 1, len(MIGRATIONS) + 1):
                for statement in MIGRATIONS[number - 1].split(";"):
                    if statement.strip():
                        c.execute(statement)
                c.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
            tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            missing = sorted(REQUIRED_TABLES - tables)
            if missing:
                raise StoreError(f"the run store {self.path} says schema version {version} but "
                                 f"has no table {', '.join(missing)} (written by a pre-release "
                                 "tooleval_nb?); move the file aside or use another store "
                                 "(store=... or TOOLEVAL_STORE)")

    @property
    def schema_version(self) -> int:
        return self.connection().execute("SELECT MAX(version) FROM schema_version").fetchone()[0]

    # -- jobs and runs -----------------------------------------------------------------------
    def create_job(self, *, job_id: str, run_id: str, config: dict[str, Any] | str,
                   config_key: str, n_total: int, run_name: str | None, suite_name: str,
                   suite_fingerprint: str,
                   targets: list[dict[str, Any]], settings: dict[str, Any],
                   drafts_skipped: int = 0) -> None:
        """Insert a queued job (owned by this process) and its run, in one transaction
        (``config``: the data, or its JSON text when the caller has it already)."""
        now = time.time()
        with self.transaction() as c:
            c.execute("INSERT INTO jobs (id, run_id, status, config_key, n_total, owner, "
                      "created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?)",
                      (job_id, run_id, config_key, n_total, owner_id(), now, now))
            # the configuration (the whole suite) lives apart: the jobs row is updated per case
            c.execute("INSERT INTO job_configs (job_id, config_json) VALUES (?, ?)",
                      (job_id, config if isinstance(config, str) else _dumps(config)))
            c.execute("INSERT INTO runs (id, job_id, name, suite_name, suite_fingerprint, "
                      "targets_json, settings_json, status, n_total, created_at, drafts_skipped) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)",
                      (run_id, job_id, run_name, suite_name, suite_fingerprint,
                       _dumps(redact(targets)), _dumps(redact(settings)), n_total, now,
                       drafts_skipped))

    def job(self, job_id: str) -> dict[str, Any]:
        """The job row as a dict (``config`` decoded); StoreError when unknown."""
        row = self.connection().execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise StoreError(f"no job {job_id!r} in the run store {self.path}; "
                             "te.history() lists the runs and their job ids")
        out = dict(row)
        config = self.connection().execute(
            "SELECT config_json FROM job_configs WHERE job_id = ?", (job_id,)).fetchone()
        out["config"] = json.loads(config[0]) if config else {}
        return out

    def run_row(self, run_id: str) -> dict[str, Any]:
        """The run row as a dict (targets and settings decoded); StoreError when unknown."""
        row = self.connection().execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id!r} in the run store {self.path}; "
                             "te.history() lists the runs in this store")
        out = dict(row)
        # redacted when read too: a store written before credentials were refused may hold some
        out["targets"] = redact(json.loads(out.pop("targets_json")))
        out["settings"] = redact(json.loads(out.pop("settings_json")))
        return out

    def find_resumable(self, config_key: str) -> str | None:
        """The newest unfinished job with this configuration whose process is gone, if any."""
        rows = self.connection().execute(
            "SELECT id, status, owner, updated_at FROM jobs WHERE config_key = ? AND status IN "
            "('queued', 'running', 'interrupted') ORDER BY created_at DESC", (config_key,)
        ).fetchall()
        for row in rows:
            if not owner_alive(row["owner"], row["updated_at"]):
                return row["id"]
        return None

    def completed_run(self, name: str, *, since: float = 0.0) -> str | None:
        """The newest completed run named ``name`` created at or after ``since``, if any (a
        caller that names its runs uniquely finds the one a killed process finished but had
        not yet recorded)."""
        row = self.connection().execute(
            "SELECT id FROM runs WHERE name = ? AND status = 'completed' AND created_at >= ? "
            "ORDER BY created_at DESC LIMIT 1", (name, since)).fetchone()
        return None if row is None else row[0]

    def claim_job(self, job_id: str, owner: str) -> bool:
        """Start ``job_id`` for ``owner`` if a job slot is free; False when it must keep queueing.

        Jobs marked running by dead processes are marked ``interrupted`` on the way. Raises
        StoreError when the job is already running in another live process.
        """
        now = time.time()
        with self.transaction() as c:
            row = c.execute("SELECT status, owner, updated_at FROM jobs WHERE id = ?",
                            (job_id,)).fetchone()
            if row is None:
                raise StoreError(f"no job {job_id!r} in the run store {self.path}")
            if (row["status"] == "running" and row["owner"] != owner
                    and owner_alive(row["owner"], row["updated_at"])):
                raise StoreError(f"job {job_id!r} is already running in process {row['owner']}; "
                                 "wait for it or cancel it there")
            alive = 0
            for other in c.execute("SELECT id, owner, updated_at FROM jobs WHERE status = "
                                   "'running' AND id != ?", (job_id,)).fetchall():
                if owner_alive(other["owner"], other["updated_at"]):
                    alive += 1
                else:
                    c.execute("UPDATE jobs SET status = 'interrupted' WHERE id = ?", (other["id"],))
                    c.execute("UPDATE runs SET status = 'interrupted' WHERE job_id = ?",
                              (other["id"],))
            if alive >= self.max_jobs:
                c.execute("UPDATE jobs SET status = 'queued', owner = ?, updated_at = ? "
                          "WHERE id = ?", (owner, now, job_id))
                return False
            c.execute("UPDATE jobs SET status = 'running', owner = ?, error = NULL, "
                      "started_at = COALESCE(started_at, ?), finished_at = NULL, updated_at = ? "
                      "WHERE id = ?", (owner, now, now, job_id))
            c.execute("UPDATE runs SET status = 'running', finished_at = NULL WHERE job_id = ?",
                      (job_id,))
        return True

    def finish_job(self, job_id: str, status: str, error: str | None = None,
                   events: Sequence[tuple[str, float, dict[str, Any]]] = ()) -> None:
        """Mark a job (and its run) completed / failed / cancelled, with its closing events."""
        now = time.time()
        with self.transaction() as c:
            c.execute("UPDATE jobs SET status = ?, error = ?, finished_at = ?, updated_at = ? "
                      "WHERE id = ?", (status, error, now, now, job_id))
            c.execute("UPDATE runs SET status = ?, finished_at = ? WHERE job_id = ?",
                      (status, now, job_id))
            self._insert_events(c, job_id, events)

    def add_events(self, job_id: str, events: Sequence[tuple[str, float, dict[str, Any]]]) -> None:
        """Append events (type, ts, data) to a job in one transaction."""
        with self.transaction() as c:
            self._insert_events(c, job_id, events)

    @staticmethod
    def _insert_events(c: sqlite3.Connection, job_id: str,
                       events: Sequence[tuple[str, float, dict[str, Any]]]) -> None:
        if events:
            c.executemany("INSERT INTO events (job_id, type, ts, data_json) VALUES (?, ?, ?, ?)",
                          [(job_id, t, ts, _dumps(d)) for t, ts, d in events])

    def events(self, job_id: str) -> list[dict[str, Any]]:
        """A job's stored events in publication order: ``{"type", "ts", **data}``."""
        rows = self.connection().execute(
            "SELECT type, ts, data_json FROM events WHERE job_id = ? ORDER BY id", (job_id,))
        return [{"type": r[0], "ts": r[1], **json.loads(r[2])} for r in rows]

    # -- results -----------------------------------------------------------------------------
    def write_result(self, job_id: str, record: dict[str, Any],
                     events: Sequence[tuple[str, float, dict[str, Any]]] = ()) -> bool:
        """Write one finished case (its row, its events, the job counter) in one transaction.

        Returns False, writing nothing, when this case × model × sample is already stored.
        """
        return self.write_results(job_id, [(record, events)])[0]

    def write_results(self, job_id: str,
                      items: Sequence[tuple[dict[str, Any], Sequence[EventRow]]]) -> list[bool]:
        """Write a batch of finished cases in ONE transaction: each row, then (only when the row
        was new) its events, then the job's counter.

        Returns, per item, whether it was written (False: that case × model × sample was already
        stored, and nothing of it was written). All or nothing: on an error the whole batch is
        rolled back.
        """
        written: list[bool] = []
        with self.transaction() as c:
            for record, events in items:
                new = c.execute(INSERT_RESULT, tuple(map(record.get, RESULT_FIELDS))).rowcount == 1
                written.append(new)
                if new:
                    self._insert_events(c, job_id, events)
            if any(written):
                c.execute("UPDATE jobs SET n_done = n_done + ?, updated_at = ? WHERE id = ?",
                          (sum(written), time.time(), job_id))
        return written

    def done_keys(self, run_id: str) -> set[tuple[str, str, str, int]]:
        """``(model, mode, case_id, sample)`` of every case already stored for ``run_id``."""
        rows = self.connection().execute(
            "SELECT model, mode, case_id, sample FROM results WHERE run_id = ?", (run_id,))
        return {(r[0], r[1], r[2], r[3]) for r in rows}

    def results(self, run_id: str, *, detail: bool = True) -> list[dict[str, Any]]:
        """Every stored result row of a run, in model, case and sample order (without the
        large ``detail`` column when ``detail=False``: see :meth:`result_detail`)."""
        columns = RESULT_FIELDS if detail else tuple(f for f in RESULT_FIELDS if f != "detail")
        rows = self.connection().execute(
            f"SELECT {', '.join(columns)} FROM results WHERE run_id = ? ORDER BY model_index, "
            "case_index, sample, model, case_id", (run_id,))
        rows.row_factory = None  # plain tuples: zipping them is faster than sqlite3.Row
        return [dict(zip(columns, r, strict=True)) for r in rows]

    def result_detail(self, run_id: str, model: str, case_id: str, sample: int) -> str | None:
        """The ``detail`` JSON text of one stored result (None when there is no such row)."""
        row = self.connection().execute(
            "SELECT detail FROM results WHERE run_id = ? AND model = ? AND case_id = ? AND "
            "sample = ?", (run_id, model, case_id, sample)).fetchone()
        return None if row is None else row[0]

    def summary(self, run_id: str, model: str) -> dict[str, Any]:
        """Aggregates of one model's stored results (for the ``tool_eval_summary`` event):
        :func:`summary_of` its rows."""
        cursor = self.connection().execute(
            f"SELECT {', '.join(SUMMARY_FIELDS)} FROM results WHERE run_id = ? AND model = ?",
            (run_id, model))
        cursor.row_factory = None  # plain tuples
        return summary_of(cursor.fetchall())

    def count_results(self, run_id: str) -> int:
        return self.connection().execute("SELECT COUNT(*) FROM results WHERE run_id = ?",
                                         (run_id,)).fetchone()[0]

    # -- history -----------------------------------------------------------------------------
    def runs(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Every run, newest first, with its job's status and result aggregates."""
        sql = """
            SELECT r.id AS run_id, r.job_id, r.name, r.suite_name, r.suite_fingerprint,
                   r.targets_json, r.settings_json, r.status, r.n_total, r.created_at,
                   r.finished_at, j.owner, j.error, j.updated_at,
                   COUNT(x.case_id) AS n_results, SUM(x.passed) AS n_passed,
                   SUM(x.error IS NOT NULL) AS n_errored, AVG(x.overall) AS overall
            FROM runs r LEFT JOIN jobs j ON j.id = r.job_id
                        LEFT JOIN results x ON x.run_id = r.id
            GROUP BY r.id ORDER BY r.created_at DESC"""
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        out = []
        for row in self.connection().execute(sql):
            item = dict(row)
            item["targets"] = redact(json.loads(item.pop("targets_json")))
            item["settings"] = redact(json.loads(item.pop("settings_json")))
            out.append(item)
        return out

    def delete_run(self, run_id: str) -> None:
        """Delete a run with its results, its job and the job's events."""
        row = self.run_row(run_id)
        if row["status"] == "running":
            job = self.job(row["job_id"]) if row["job_id"] else None
            if job and owner_alive(job["owner"], job["updated_at"]):
                raise StoreError(f"run {run_id!r} is still running (job {row['job_id']!r}); "
                                 "cancel the job first")
        with self.transaction() as c:
            c.execute("DELETE FROM results WHERE run_id = ?", (run_id,))
            c.execute("DELETE FROM runs WHERE id = ?", (run_id,))
            if row["job_id"]:
                c.execute("DELETE FROM events WHERE job_id = ?", (row["job_id"],))
                c.execute("DELETE FROM jobs WHERE id = ?", (row["job_id"],))
                c.execute("DELETE FROM job_configs WHERE job_id = ?", (row["job_id"],))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


_STORES: dict[tuple[int, Path], Store] = {}
_STORES_LOCK = threading.Lock()


class _Checkpointer:
    """Copies a store's write-ahead log into its database on a daemon thread of its own.

    Every commit pokes it (a flag set: no wait). It then waits :data:`CHECKPOINT_EVERY_S`, so
    that one checkpoint covers the commits of that time, and runs ``PRAGMA
    wal_checkpoint(PASSIVE)`` on a connection of its own, closed again after. A passive
    checkpoint never blocks a writer nor waits for a reader, and SQLite releases the GIL while
    it copies and syncs, so the thread that committed, usually the one running the event loop,
    goes on at once. What a checkpoint leaves (pages a reader still needs) is taken by a later
    one; SQLite itself checkpoints when the last connection to the database closes. A crash
    mid-checkpoint loses nothing: the log stays valid until it is copied. The thread ends after
    :data:`CHECKPOINT_IDLE_S` without a commit (the next one starts it again), so an idle store
    holds no thread and no file open for it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._lock = threading.Lock()
        #: checkpoints run so far (for tests and diagnostics)
        self.runs = 0

    def poke(self) -> None:
        """Ask for a checkpoint soon (starts the thread when none runs, as after a fork)."""
        self._wake.set()
        if not self._running():
            with self._lock:
                if not self._running():
                    self._wake = threading.Event()
                    self._wake.set()
                    self._thread = threading.Thread(target=self._run, args=(self._wake,),
                                                    daemon=True,
                                                    name=f"tooleval-checkpoint-{self.path.name}")
                    self._pid = os.getpid()
                    self._thread.start()

    def _running(self) -> bool:
        """Whether this process's thread is alive (a forked child has none)."""
        thread = self._thread
        return thread is not None and self._pid == os.getpid() and thread.is_alive()

    def _run(self, wake: threading.Event) -> None:
        while wake.wait(CHECKPOINT_IDLE_S):
            time.sleep(CHECKPOINT_EVERY_S)
            wake.clear()
            try:
                conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                finally:
                    conn.close()
                self.runs += 1
            except sqlite3.Error as exc:  # busy or gone: the next commit pokes again
                log.debug("run store %s: checkpoint failed: %s", self.path, exc)


def summary_of(rows: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """The summary of one model's result rows (:data:`SUMMARY_FIELDS`, as stored): the score
    columns of :func:`tooleval_nb.scoring.summarize_rows`, the one definition of a per-model
    summary, and the mean latency. With no row yet, the rates and means are None (nothing
    measured), not 0."""
    scores = summarize_rows(r[:5] for r in rows)
    latency = [r[5] for r in rows if r[5] is not None]  # fsum: the same in any row order
    return {**scores, "latency_mean_ms": math.fsum(latency) / len(latency) if latency else None}


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
