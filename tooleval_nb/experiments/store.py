"""The experiment layer's tables, in the same SQLite file as the runner's runs.

Every trial, candidate and confirmation is an ordinary run in the runner's tables; these tables
only link runs to experiments, sweeps, prompt tunes and judge reports. ``eval_cells`` records each
evaluation a job asked for (an item on some cases, in some round): a resumed sweep or tune reuses
every finished cell and re-issues only unfinished ones, which the runner in turn resumes case by
case.

Schema versions live in ``experiments_schema_version`` (separate from the runner's).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from ..runner.store import resolve_store

__all__ = ["ExperimentStore", "experiment_store", "new_id"]

_MIGRATIONS: list[str] = [
    """
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
    """,
    # 2: one baseline per model (experiments not bound to a model compare models per model)
    """
    CREATE TABLE IF NOT EXISTS experiment_baselines (
        experiment_id TEXT NOT NULL, model TEXT NOT NULL, run_id TEXT NOT NULL,
        config_json TEXT NOT NULL, pinned_at REAL NOT NULL,
        PRIMARY KEY (experiment_id, model));
    INSERT OR IGNORE INTO experiment_baselines (experiment_id, model, run_id, config_json,
        pinned_at)
        SELECT id, COALESCE(json_extract(baseline_config_json, '$.model'), 'local/smollm2-135m'),
               baseline_run_id, baseline_config_json, created_at
        FROM experiments WHERE baseline_run_id IS NOT NULL;
    """,
]


def new_id(prefix: str) -> str:
    """A short unique id such as ``sw_3f2a9c1d0b7e``."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def _dumps(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


class ExperimentStore:
    """Typed access to the experiment tables of one run store.

    Args:
        runs: the runner's :class:`tooleval_nb.runner.Store` (its connection and transactions
            are shared, so a write here and a run's results never disagree about the file).
    """

    def __init__(self, runs: Any) -> None:
        self.runs = runs
        self._migrate()

    @property
    def path(self) -> Any:
        return self.runs.path

    def _migrate(self) -> None:
        conn = self.runs.connection()
        conn.execute(
            "CREATE TABLE IF NOT EXISTS experiments_schema_version (version INTEGER NOT NULL)"
        )
        with self.runs.transaction() as c:
            version = (
                c.execute("SELECT MAX(version) FROM experiments_schema_version").fetchone()[0] or 0
            )
            for number in range(version + 1, len(_MIGRATIONS) + 1):
                for statement in _MIGRATIONS[number - 1].split(";"):
                    if statement.strip():
                        c.execute(statement)
                c.execute("INSERT INTO experiments_schema_version (version) VALUES (?)", (number,))

    # -- generic helpers ---------------------------------------------------------------------
    def insert(self, table: str, row: dict[str, Any]) -> int:
        """Insert one row (dict/list values are stored as JSON); returns the rowid."""
        cols = list(row)
        values = [_dumps(v) if isinstance(v, (dict, list, tuple)) else v for v in row.values()]
        sql = (
            f"INSERT INTO {table} ({', '.join(_q(c) for c in cols)}) VALUES "
            f"({', '.join('?' for _ in cols)})"
        )
        with self.runs.transaction() as c:
            return int(c.execute(sql, values).lastrowid or 0)

    def upsert(self, table: str, row: dict[str, Any], key: tuple[str, ...]) -> None:
        """Insert or update the row identified by the ``key`` columns."""
        self.upsert_many([(table, row, key)])

    def upsert_many(self, rows: list[tuple[str, dict[str, Any], tuple[str, ...]]]) -> None:
        """Several :meth:`upsert` calls ``(table, row, key)`` in one transaction: all or none
        of them reach the file."""
        with self.runs.transaction() as c:
            for table, row, key in rows:
                cols = list(row)
                values = [
                    _dumps(v) if isinstance(v, (dict, list, tuple)) else v for v in row.values()
                ]
                updates = ", ".join(f"{_q(k)} = excluded.{_q(k)}" for k in cols if k not in key)
                c.execute(
                    f"INSERT INTO {table} ({', '.join(_q(k) for k in cols)}) VALUES "
                    f"({', '.join('?' for _ in cols)}) ON CONFLICT ({', '.join(key)}) DO "
                    + (f"UPDATE SET {updates}" if updates else "NOTHING"),
                    values,
                )

    def update(self, table: str, where: dict[str, Any], **values: Any) -> None:
        sets = ", ".join(f"{_q(c)} = ?" for c in values)
        cond = " AND ".join(f"{_q(c)} = ?" for c in where)
        args = [_dumps(v) if isinstance(v, (dict, list, tuple)) else v for v in values.values()]
        with self.runs.transaction() as c:
            c.execute(f"UPDATE {table} SET {sets} WHERE {cond}", [*args, *where.values()])

    def select(
        self, table: str, where: dict[str, Any] | None = None, order: str | None = None
    ) -> list[dict[str, Any]]:
        sql = f"SELECT * FROM {table}"
        args: list[Any] = []
        if where:
            sql += " WHERE " + " AND ".join(f"{_q(c)} = ?" for c in where)
            args = list(where.values())
        if order:
            sql += f" ORDER BY {order}"
        return [dict(r) for r in self.runs.connection().execute(sql, args)]

    def one(self, table: str, where: dict[str, Any]) -> dict[str, Any] | None:
        rows = self.select(table, where)
        return rows[0] if rows else None

    # -- evaluation cells (resume) -----------------------------------------------------------
    def cell(self, owner_id: str, item_id: str, round_: int, split: str) -> dict[str, Any] | None:
        return self.one(
            "eval_cells",
            {"owner_id": owner_id, "item_id": item_id, "round": round_, "split": split},
        )

    def save_cell(
        self,
        owner_id: str,
        item_id: str,
        round_: int,
        split: str,
        case_ids: list[str],
        *,
        run_id: str | None,
        status: str,
        calls: int = 0,
    ) -> None:
        self.upsert(
            "eval_cells",
            {
                "owner_id": owner_id,
                "item_id": item_id,
                "round": round_,
                "split": split,
                "case_ids_json": list(case_ids),
                "run_id": run_id,
                "status": status,
                "calls": calls,
                "created_at": time.time(),
            },
            ("owner_id", "item_id", "round", "split"),
        )

    def cells(self, owner_id: str) -> list[dict[str, Any]]:
        return self.select("eval_cells", {"owner_id": owner_id}, order="round, item_id")


def _q(name: str) -> str:
    return f'"{name}"'


_CACHE: dict[Any, ExperimentStore] = {}


def experiment_store(store: Any = None) -> ExperimentStore:
    """The :class:`ExperimentStore` on the run store ``store`` (a path, a Store, or None)."""
    runs = resolve_store(store)
    key = (id(runs), str(runs.path))
    found = _CACHE.get(key)
    if found is None or found.runs is not runs:
        found = _CACHE[key] = ExperimentStore(runs)
    return found
