"""The run store's tables, as numbered migrations (applied by :class:`~.database.Database`).

The runner's tables: ``jobs`` (one row per job, updated as cases finish: keep it small),
``job_configs`` (the configuration a job needs to resume: the suite, targets, settings), ``runs``,
``results`` (one row per case × model × sample, unique on ``(run_id, model, mode, case_id,
sample)``; columns ``record.RESULT_FIELDS``) and ``events``.

The experiment layer's tables (:data:`EXPERIMENT_TABLES`, read and written by
:mod:`tooleval_nb.experiments.store`) live in the same file under the same numbering (migration
3). They link runs to experiments, sweeps, prompt tunes and judge reports; every trial is an
ordinary run. Until this migration they had a numbering of their own, in
``experiments_schema_version`` (1: the tables, 2: ``experiment_baselines``, one baseline per
model): migration 3 creates what such a store lacks, fills ``experiment_baselines`` only when the
file had not reached that table's step, and drops the old numbering, so a store written before
it opens with every experiment.

Add a migration to change a table; never edit a released one.
"""

from __future__ import annotations

from ..models.spec import DEFAULT_MODEL
from .record import RESULT_FIELDS

__all__ = ["MIGRATIONS", "INSERT_RESULT", "REQUIRED_TABLES", "EXPERIMENT_TABLES"]

#: the experiment layer's tables (migration 3)
EXPERIMENT_TABLES = frozenset(
    {
        "experiments",
        "experiment_entries",
        "experiment_best_history",
        "experiment_baselines",
        "sweeps",
        "sweep_trials",
        "eval_cells",
        "prompt_tunes",
        "prompt_candidates",
        "prompt_generations",
        "judge_reports",
        "judge_verdicts",
    }
)

#: the tables every store has from migration 1 (a store lacking one was written by a pre-release
#: schema)
REQUIRED_TABLES = frozenset({"jobs", "job_configs", "runs", "results", "events"})


def _sql_text(value: str) -> str:
    """``value`` as an SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


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
    # 3: the experiment layer's tables, until now numbered apart (experiments_schema_version);
    # IF NOT EXISTS: a store written before holds some or all of them already
    """
    CREATE TABLE IF NOT EXISTS experiments_schema_version (version INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS experiments (
        id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, suite_name TEXT, suite_fp TEXT NOT NULL,
        split_json TEXT, model_scope TEXT, baseline_run_id TEXT, baseline_config_json TEXT,
        best_config_json TEXT, best_run_id TEXT, best_score REAL, best_ci_low REAL,
        best_ci_high REAL, best_delta REAL, best_source TEXT, best_confirmed INTEGER,
        best_rule TEXT NOT NULL DEFAULT 'ci', created_at REAL NOT NULL,
        status TEXT NOT NULL DEFAULT 'active', suite_json TEXT);
    CREATE TABLE IF NOT EXISTS experiment_entries (
        id INTEGER PRIMARY KEY AUTOINCREMENT, experiment_id TEXT NOT NULL, kind TEXT NOT NULL,
        ref_id TEXT, run_id TEXT, model TEXT, config_json TEXT, suite_fp TEXT, split_used TEXT,
        n_cases INTEGER, score REAL, ci_low REAL, ci_high REAL, created_at REAL NOT NULL,
        promoted_from TEXT, selection_biased INTEGER NOT NULL DEFAULT 0,
        comparable INTEGER NOT NULL DEFAULT 1, note TEXT, extra_json TEXT);
    CREATE INDEX IF NOT EXISTS entries_by_exp ON experiment_entries(experiment_id, id);
    CREATE TABLE IF NOT EXISTS experiment_best_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT, experiment_id TEXT NOT NULL, at REAL NOT NULL,
        config_json TEXT, run_id TEXT, score REAL, delta_vs_prev REAL, ci_low REAL,
        ci_high REAL, source TEXT, reason TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS experiment_baselines (
        experiment_id TEXT NOT NULL, model TEXT NOT NULL, run_id TEXT NOT NULL,
        config_json TEXT NOT NULL, pinned_at REAL NOT NULL,
        PRIMARY KEY (experiment_id, model));
    CREATE TABLE IF NOT EXISTS sweeps (
        id TEXT PRIMARY KEY, key TEXT NOT NULL, experiment_id TEXT, suite_fp TEXT NOT NULL,
        base_config_json TEXT NOT NULL, space_json TEXT NOT NULL, strategy TEXT NOT NULL,
        budget_json TEXT, seed INTEGER, on_split TEXT, select_rule TEXT, settings_json TEXT,
        status TEXT NOT NULL, best_trial_id INTEGER, calls_used INTEGER NOT NULL DEFAULT 0,
        message TEXT, created_at REAL NOT NULL, finished_at REAL);
    CREATE INDEX IF NOT EXISTS sweeps_by_key ON sweeps(key);
    CREATE TABLE IF NOT EXISTS sweep_trials (
        sweep_id TEXT NOT NULL, id INTEGER NOT NULL, params_json TEXT NOT NULL,
        config_json TEXT NOT NULL, canonical_key TEXT NOT NULL, is_base INTEGER NOT NULL,
        status TEXT NOT NULL, eliminated_at_case INTEGER, score REAL, ci_low REAL, ci_high REAL,
        delta REAL, delta_ci_low REAL, delta_ci_high REAL, p_value REAL, p_holm REAL,
        PRIMARY KEY (sweep_id, id));
    CREATE TABLE IF NOT EXISTS eval_cells (
        owner_id TEXT NOT NULL, item_id TEXT NOT NULL, round INTEGER NOT NULL,
        split TEXT NOT NULL, case_ids_json TEXT NOT NULL, run_id TEXT, status TEXT NOT NULL,
        calls INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL,
        PRIMARY KEY (owner_id, item_id, round, split));
    CREATE TABLE IF NOT EXISTS prompt_tunes (
        id TEXT PRIMARY KEY, key TEXT NOT NULL, experiment_id TEXT, suite_fp TEXT NOT NULL,
        base_config_json TEXT NOT NULL, meta_model TEXT, settings_json TEXT, split_json TEXT,
        status TEXT NOT NULL, best_cand_id INTEGER, calls_used INTEGER NOT NULL DEFAULT 0,
        message TEXT, created_at REAL NOT NULL, finished_at REAL);
    CREATE INDEX IF NOT EXISTS tunes_by_key ON prompt_tunes(key);
    CREATE TABLE IF NOT EXISTS prompt_candidates (
        tune_id TEXT NOT NULL, id INTEGER NOT NULL, generation INTEGER NOT NULL,
        operator TEXT NOT NULL, parent_ids_json TEXT, text TEXT, text_hash TEXT,
        few_shot_json TEXT, rationale TEXT, rejected_reason TEXT, dev_score REAL, dev_lcb REAL,
        holdout_score REAL, holdout_delta REAL, on_front INTEGER, eliminated_at INTEGER,
        extra_json TEXT, PRIMARY KEY (tune_id, id));
    CREATE TABLE IF NOT EXISTS prompt_generations (
        tune_id TEXT NOT NULL, generation INTEGER NOT NULL, n_proposed INTEGER,
        n_rejected INTEGER, meta_parsed INTEGER, best_dev_lcb REAL, calls_used INTEGER,
        PRIMARY KEY (tune_id, generation));
    CREATE TABLE IF NOT EXISTS judge_reports (
        id TEXT PRIMARY KEY, run_id TEXT, compare_run_id TEXT, judge_model TEXT,
        judge_params_json TEXT, prompt_version TEXT, facts_json TEXT, report_json TEXT,
        fallback_used INTEGER, mode_agreement REAL, n_unscored INTEGER, status TEXT NOT NULL,
        created_at REAL NOT NULL);
    CREATE TABLE IF NOT EXISTS judge_verdicts (
        id INTEGER PRIMARY KEY AUTOINCREMENT, report_id TEXT NOT NULL, case_id TEXT,
        sample INTEGER, "order" TEXT, failure_mode TEXT, root_cause TEXT, scorer_wrong INTEGER,
        scorer_wrong_reason TEXT, fix_kind TEXT, fix TEXT, confidence REAL, status TEXT NOT NULL,
        raw_json TEXT);
    INSERT OR IGNORE INTO experiment_baselines (experiment_id, model, run_id, config_json,
        pinned_at)
        SELECT id, COALESCE(json_extract(baseline_config_json, '$.model'), """
    + _sql_text(DEFAULT_MODEL)
    + """),
               baseline_run_id, baseline_config_json, created_at
        FROM experiments
        WHERE baseline_run_id IS NOT NULL
          AND COALESCE((SELECT MAX(version) FROM experiments_schema_version), 0) < 2;
    DROP TABLE experiments_schema_version;
    """,
]

INSERT_RESULT = (
    f"INSERT INTO results ({', '.join(RESULT_FIELDS)}) VALUES "
    f"({', '.join('?' for _ in RESULT_FIELDS)}) ON CONFLICT DO NOTHING"
)
