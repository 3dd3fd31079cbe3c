"""The experiment layer's tables, read and written in the run store.

Every trial, candidate and confirmation is an ordinary run in the runner's tables; these tables
only link runs to experiments, sweeps, prompt tunes and judge reports. ``eval_cells`` records each
evaluation a job asked for (an item on some cases, in some round): a resumed sweep or tune reuses
every finished cell and re-issues only unfinished ones, which the runner in turn resumes case by
case.

The tables are the run store's own: created and migrated with the runner's
(:mod:`tooleval_nb.runner.schema`, migration 3, which also opens a store written when they had a
numbering of their own), their ids are the store's (:func:`~tooleval_nb.runner.database.new_id`)
and their JSON columns are written as the store writes JSON
(:func:`~tooleval_nb.runner.database.dumps`).
"""

from __future__ import annotations

import os
import time
from typing import Any

from ..runner.database import dumps
from ..runner.store import Store, resolve_store

__all__ = ["ExperimentStore", "experiment_store"]


def _stored(value: Any) -> Any:
    """A column's value as stored: a dict, list or tuple as JSON text, anything else as is."""
    return dumps(value) if isinstance(value, (dict, list, tuple)) else value


class ExperimentStore:
    """Typed access to the experiment tables of one run store.

    Args:
        runs: the runner's :class:`tooleval_nb.runner.Store` (its connection and transactions
            are shared, so a write here and a run's results never disagree about the file; it
            migrated these tables when it opened the file).
    """

    def __init__(self, runs: Store) -> None:
        self.runs = runs

    @property
    def path(self) -> Any:
        return self.runs.path

    # -- generic helpers ---------------------------------------------------------------------
    def insert(self, table: str, row: dict[str, Any]) -> int:
        """Insert one row (dict/list values are stored as JSON); returns the rowid."""
        cols = list(row)
        values = [_stored(v) for v in row.values()]
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
                values = [_stored(v) for v in row.values()]
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
        args = [_stored(v) for v in values.values()]
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


def experiment_store(store: Store | str | os.PathLike[str] | None = None) -> ExperimentStore:
    """The :class:`ExperimentStore` on the run store ``store`` (a path, a Store, or None: the
    default store, as for runs)."""
    return ExperimentStore(resolve_store(store))
