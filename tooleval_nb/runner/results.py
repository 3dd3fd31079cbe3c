"""The run store's runs, results and events: written as cases finish, read as typed rows.

* Durability: a finished case is written with its events and the job's counter in one
  transaction (several cases share one when they finish together: :meth:`Results.write_results`,
  used by :mod:`.writer`), and is reported only after that commit, so a process killed mid-run
  loses only cases nobody was told were finished. The results table is keyed by
  ``(run_id, model, mode, case_id, sample)``: a resumed run never writes a case twice.
* Reads return typed rows: :class:`RunRow` (one run), :class:`RunListing` (a run with its job's
  state and result aggregates, for the history), :class:`ResultRow` (one case × model × sample,
  the columns of :data:`.record.RESULT_FIELDS` in order) and :class:`EventRow`.
* Score aggregation: :func:`summary_of` a model's rows (:class:`SummaryRow`) is its
  :class:`ModelSummary`.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..credentials import redact
from ..errors import StoreError
from ..scoring.summary import summarize_rows
from .database import Database, dumps
from .record import RESULT_FIELDS, ResultRow
from .schema import INSERT_RESULT

__all__ = [
    "Results",
    "ResultRow",
    "RunRow",
    "RunListing",
    "EventRow",
    "DoneKey",
    "summary_of",
    "SummaryRow",
    "ModelSummary",
    "SUMMARY_FIELDS",
    "insert_events",
]


class SummaryRow(NamedTuple):
    """The columns of one result row a per-model summary reads (:func:`summary_of`)."""

    passed: int | None
    error: str | None
    tool_score: float | None
    param_score: float | None
    overall: float | None
    latency_ms: float | None

    @classmethod
    def of(cls, row: ResultRow) -> SummaryRow:
        """The summary's columns of a result row."""
        return cls(
            row.passed, row.error, row.tool_score, row.param_score, row.overall, row.latency_ms
        )


#: the result columns a per-model summary reads, in :class:`SummaryRow`'s order
SUMMARY_FIELDS: tuple[str, ...] = SummaryRow._fields


@dataclass(frozen=True, slots=True)
class ModelSummary:
    """One model's summary in a run: scoring's per-model summary
    (:func:`tooleval_nb.scoring.summarize_rows`: counts, rates and means; with no row yet the
    rates and means are None, nothing measured) and the mean latency. The ``tool_eval_summary``
    event carries :meth:`as_data`."""

    n_cases: int
    n_passed: int
    n_failed: int
    n_errored: int
    pass_rate: float | None
    tool_score: float | None
    param_score: float | None
    overall: float | None
    latency_mean_ms: float | None

    def as_data(self) -> dict[str, Any]:
        """The fields as the event's payload has them (in this order)."""
        return {
            "n_cases": self.n_cases,
            "n_passed": self.n_passed,
            "n_failed": self.n_failed,
            "n_errored": self.n_errored,
            "pass_rate": self.pass_rate,
            "tool_score": self.tool_score,
            "param_score": self.param_score,
            "overall": self.overall,
            "latency_mean_ms": self.latency_mean_ms,
        }


#: a stored case's key within its run: ``(model, mode, case_id, sample)``
DoneKey = tuple[str, str, str, int]


class EventRow(NamedTuple):
    """An event as stored: its type, time (epoch seconds) and data. Writes take any
    ``(type, ts, data)`` tuple."""

    type: str
    ts: float
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RunRow:
    """One stored run (``targets`` and ``settings`` decoded, credentials redacted)."""

    id: str
    job_id: str | None
    name: str | None
    suite_name: str | None
    suite_fingerprint: str | None
    targets: list[dict[str, Any]]
    settings: dict[str, Any]
    status: str
    n_total: int
    created_at: float
    finished_at: float | None
    drafts_skipped: int


@dataclass(frozen=True, slots=True)
class RunListing(RunRow):
    """A run as the history lists it: the run, its job's owner, error and last update, and the
    aggregates of its stored results (None sums when it has none)."""

    owner: str | None
    error: str | None
    updated_at: float | None
    n_results: int
    n_passed: int | None
    n_errored: int | None
    overall: float | None


def summary_of(rows: Sequence[SummaryRow]) -> ModelSummary:
    """The summary of one model's result rows: the score columns of
    :func:`tooleval_nb.scoring.summarize_rows`, the one definition of a per-model summary, and
    the mean latency. With no row yet, the rates and means are None (nothing measured), not 0."""
    scores = summarize_rows(
        (r.passed, r.error, r.tool_score, r.param_score, r.overall) for r in rows
    )
    latency = [r.latency_ms for r in rows if r.latency_ms is not None]  # fsum: any row order
    return ModelSummary(
        **scores, latency_mean_ms=math.fsum(latency) / len(latency) if latency else None
    )


def insert_events(
    c: sqlite3.Connection, job_id: str, events: Sequence[tuple[str, float, Mapping[str, Any]]]
) -> None:
    """Append events ``(type, ts, data)`` to a job, inside the caller's transaction."""
    if events:
        c.executemany(
            "INSERT INTO events (job_id, type, ts, data_json) VALUES (?, ?, ?, ?)",
            [(job_id, t, ts, dumps(d)) for t, ts, d in events],
        )


#: the result columns read without ``detail`` (NULL in its place: the row keeps its shape)
_WITHOUT_DETAIL = ", ".join("NULL" if f == "detail" else f for f in RESULT_FIELDS)

_RUN_LISTING_SQL = """
    SELECT r.id, r.job_id, r.name, r.suite_name, r.suite_fingerprint,
           r.targets_json, r.settings_json, r.status, r.n_total, r.created_at,
           r.finished_at, r.drafts_skipped, j.owner, j.error, j.updated_at,
           COUNT(x.case_id), SUM(x.passed), SUM(x.error IS NOT NULL), AVG(x.overall)
    FROM runs r LEFT JOIN jobs j ON j.id = r.job_id
                LEFT JOIN results x ON x.run_id = r.id
    GROUP BY r.id ORDER BY r.created_at DESC"""


def _decoded(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A runs row read with its targets and settings JSON at positions 5 and 6: decoded, and
    redacted (a store written before credentials were refused may hold some)."""
    return (*row[:5], redact(json.loads(row[5])), redact(json.loads(row[6])), *row[7:])


class Results(Database):
    """The runs, results and events tables of a run store (part of :class:`~.store.Store`)."""

    # -- writes ------------------------------------------------------------------------------
    def add_events(
        self, job_id: str, events: Sequence[tuple[str, float, Mapping[str, Any]]]
    ) -> None:
        """Append events (type, ts, data) to a job in one transaction."""
        with self.transaction() as c:
            insert_events(c, job_id, events)

    def write_result(
        self,
        job_id: str,
        record: ResultRow,
        events: Sequence[tuple[str, float, Mapping[str, Any]]] = (),
    ) -> bool:
        """Write one finished case (its row, its events, the job counter) in one transaction.

        Returns False, writing nothing, when this case × model × sample is already stored.
        """
        return self.write_results(job_id, [(record, events)])[0]

    def write_results(
        self,
        job_id: str,
        items: Sequence[tuple[ResultRow, Sequence[tuple[str, float, Mapping[str, Any]]]]],
    ) -> list[bool]:
        """Write a batch of finished cases in ONE transaction: each row, then (only when the row
        was new) its events, then the job's counter.

        Returns, per item, whether it was written (False: that case × model × sample was already
        stored, and nothing of it was written). All or nothing: on an error the whole batch is
        rolled back.
        """
        if not items:
            return []
        rows = [record for record, _ in items]  # a ResultRow is the INSERT's tuple
        with self.transaction() as c:
            # the usual batch, none of it stored before: every row in one call, then every
            # event in one (the same rows and events in the same order as one by one); a row
            # found stored already (a concurrent resume) undoes that and goes row by row
            c.execute("SAVEPOINT batch")
            if c.executemany(INSERT_RESULT, rows).rowcount == len(rows):
                c.execute("RELEASE batch")
                written = [True] * len(rows)
                insert_events(c, job_id, [e for _, events in items for e in events])
            else:
                c.execute("ROLLBACK TO batch")
                c.execute("RELEASE batch")
                written = []
                for row, (_, events) in zip(rows, items, strict=True):
                    new = c.execute(INSERT_RESULT, row).rowcount == 1
                    written.append(new)
                    if new:
                        insert_events(c, job_id, events)
            if any(written):
                c.execute(
                    "UPDATE jobs SET n_done = n_done + ?, updated_at = ? WHERE id = ?",
                    (sum(written), time.time(), job_id),
                )
        return written

    # -- reads -------------------------------------------------------------------------------
    def events(self, job_id: str) -> list[EventRow]:
        """A job's stored events in publication order."""
        rows = self.connection().execute(
            "SELECT type, ts, data_json FROM events WHERE job_id = ? ORDER BY id", (job_id,)
        )
        return [EventRow(r[0], r[1], json.loads(r[2])) for r in rows]

    def done_keys(self, run_id: str) -> set[DoneKey]:
        """``(model, mode, case_id, sample)`` of every case already stored for ``run_id``."""
        rows = self.connection().execute(
            "SELECT model, mode, case_id, sample FROM results WHERE run_id = ?", (run_id,)
        )
        return {(r[0], r[1], r[2], r[3]) for r in rows}

    def results(self, run_id: str, *, detail: bool = True) -> list[ResultRow]:
        """Every stored result row of a run, in model, case and sample order (``detail`` None
        when ``detail=False``: the large column is read by :meth:`result_detail`)."""
        columns = ", ".join(RESULT_FIELDS) if detail else _WITHOUT_DETAIL
        cursor = self.connection().execute(
            f"SELECT {columns} FROM results WHERE run_id = ? ORDER BY model_index, "
            "case_index, sample, model, case_id",
            (run_id,),
        )
        cursor.row_factory = None  # plain tuples, made rows in one pass
        return list(map(ResultRow._make, cursor.fetchall()))

    def result_detail(self, run_id: str, model: str, case_id: str, sample: int) -> str | None:
        """The ``detail`` JSON text of one stored result (None when there is no such row)."""
        row = (
            self.connection()
            .execute(
                "SELECT detail FROM results WHERE run_id = ? AND model = ? AND case_id = ? AND "
                "sample = ?",
                (run_id, model, case_id, sample),
            )
            .fetchone()
        )
        return None if row is None else row[0]  # type: ignore[no-any-return]

    def summary(self, run_id: str, model: str) -> ModelSummary:
        """Aggregates of one model's stored results (for the ``tool_eval_summary`` event):
        :func:`summary_of` its rows."""
        cursor = self.connection().execute(
            f"SELECT {', '.join(SUMMARY_FIELDS)} FROM results WHERE run_id = ? AND model = ?",
            (run_id, model),
        )
        cursor.row_factory = None  # plain tuples
        return summary_of(list(map(SummaryRow._make, cursor.fetchall())))

    def count_results(self, run_id: str) -> int:
        """How many result rows ``run_id`` has stored."""
        return int(
            self.connection()
            .execute("SELECT COUNT(*) FROM results WHERE run_id = ?", (run_id,))
            .fetchone()[0]
        )

    # -- runs --------------------------------------------------------------------------------
    def run_row(self, run_id: str) -> RunRow:
        """The run ``run_id``; StoreError when unknown."""
        cursor = self.connection().execute(
            "SELECT id, job_id, name, suite_name, suite_fingerprint, targets_json, "
            "settings_json, status, n_total, created_at, finished_at, drafts_skipped "
            "FROM runs WHERE id = ?",
            (run_id,),
        )
        cursor.row_factory = None
        row = cursor.fetchone()
        if row is None:
            raise StoreError(
                f"no run {run_id!r} in the run store {self.path}; "
                "te.history() lists the runs in this store"
            )
        return RunRow(*_decoded(row))

    def completed_run(self, name: str, *, since: float = 0.0) -> str | None:
        """The newest completed run named ``name`` created at or after ``since``, if any (a
        caller that names its runs uniquely finds the one a killed process finished but had
        not yet recorded)."""
        row = (
            self.connection()
            .execute(
                "SELECT id FROM runs WHERE name = ? AND status = 'completed' AND created_at >= ? "
                "ORDER BY created_at DESC LIMIT 1",
                (name, since),
            )
            .fetchone()
        )
        return None if row is None else row[0]  # type: ignore[no-any-return]

    def runs(self, limit: int | None = None) -> list[RunListing]:
        """Every run, newest first, with its job's state and result aggregates."""
        sql = _RUN_LISTING_SQL if limit is None else f"{_RUN_LISTING_SQL} LIMIT {int(limit)}"
        cursor = self.connection().execute(sql)
        cursor.row_factory = None
        return [RunListing(*_decoded(r)) for r in cursor]
