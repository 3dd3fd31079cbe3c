"""The run store's tables, as numbered migrations (applied by :class:`~.store.Store`).

Tables: ``jobs`` (one row per job, updated as cases finish: keep it small), ``job_configs`` (the
configuration a job needs to resume: the suite, targets, settings), ``runs``, ``results`` (one row
per case × model × sample, unique on ``(run_id, model, mode, case_id, sample)``; columns
``record.RESULT_FIELDS``) and ``events``. Add a migration to change them; never edit a released one.
"""

from __future__ import annotations

from .record import RESULT_FIELDS

__all__ = ["MIGRATIONS", "INSERT_RESULT", "REQUIRED_TABLES"]

#: the tables every migrated store has (a store lacking one was written by a pre-release schema)
REQUIRED_TABLES = frozenset({"jobs", "job_configs", "runs", "results", "events"})

_RESULT_SQL_TYPES = {
    "tool_score": "REAL",
    "param_score": "REAL",
    "overall": "REAL",
    "passed": "INTEGER",
    "bfcl_pass": "INTEGER",
    "completion": "REAL",
    "efficiency": "REAL",
    "redundancy_penalty": "REAL",
    "detour_penalty": "REAL",
    "n_hops": "INTEGER",
    "latency_ms": "REAL",
    "prompt_tokens": "INTEGER",
    "completion_tokens": "INTEGER",
    "cost": "REAL",
    "tries": "INTEGER",
    "fallback": "INTEGER",
    "cached": "INTEGER",
    "sample": "INTEGER NOT NULL",
    "seed": "INTEGER",
    "model_index": "INTEGER",
    "case_index": "INTEGER",
    "finished_at": "REAL",
}

MIGRATIONS: list[str] = [
    # 1: the initial schema
    """
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'tool_eval',
        status TEXT NOT NULL,
        config_key TEXT NOT NULL,
        n_total INTEGER NOT NULL,
        n_done INTEGER NOT NULL DEFAULT 0,
        owner TEXT,
        error TEXT,
        created_at REAL NOT NULL,
        started_at REAL,
        finished_at REAL,
        updated_at REAL
    );
    CREATE INDEX jobs_by_key ON jobs(config_key, status);
    CREATE TABLE job_configs (
        job_id TEXT PRIMARY KEY,
        config_json TEXT NOT NULL
    );
    CREATE INDEX jobs_by_status ON jobs(status);
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        job_id TEXT,
        name TEXT,
        suite_name TEXT,
        suite_fingerprint TEXT,
        targets_json TEXT NOT NULL,
        settings_json TEXT NOT NULL,
        status TEXT NOT NULL,
        n_total INTEGER NOT NULL,
        created_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE TABLE results (
    """
    + ",\n".join(f"        {name} {_RESULT_SQL_TYPES.get(name, 'TEXT')}" for name in RESULT_FIELDS)
    + """
    );
    CREATE UNIQUE INDEX results_key ON results(run_id, model, mode, case_id, sample);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        job_id TEXT NOT NULL,
        type TEXT NOT NULL,
        ts REAL NOT NULL,
        data_json TEXT NOT NULL
    );
    CREATE INDEX events_by_job ON events(job_id, id);
    """,
    # 2: how many draft cases a run skipped
    """
    ALTER TABLE runs ADD COLUMN drafts_skipped INTEGER NOT NULL DEFAULT 0;
    """,
]

INSERT_RESULT = (
    f"INSERT INTO results ({', '.join(RESULT_FIELDS)}) VALUES "
    f"({', '.join('?' for _ in RESULT_FIELDS)}) ON CONFLICT DO NOTHING"
)
