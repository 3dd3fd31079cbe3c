"""Storing finished cases in batches: one transaction for the cases finished together.

The executor's finisher scores the cases whose replies arrived, adds each row with its events
(:meth:`ResultWriter.add`), and commits them together (:meth:`ResultWriter.commit`:
:meth:`~.results.Results.write_results`, the rows, their events and the job's counter in ONE
transaction). Only after the COMMIT are the batch's events published, in order. So "nothing
finished is lost" holds per batch: whatever a subscriber was told is finished is on disk, and a
process killed mid-run loses only cases nobody was told about (a resume runs exactly those).

A batch is what the finisher scored since its last commit: one case on a quiet run (it is
committed once :data:`~.finish.COMMIT_AFTER_S` passed, before the next reply of a serial run),
the cases of a burst of replies together (up to ``max_concurrency``). It runs on the loop: a
writer thread would hold the GIL against the loop in every handoff, which cost more than
SQLite's own time (on a busy two-core machine, measured). What does not run on the loop is the
copy of the write-ahead log into the database, with its fsyncs: the store's checkpoint thread
(:class:`~.database.Checkpointer`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .events import Event
from .record import ResultRow
from .results import SummaryRow
from .store import Store

__all__ = ["ResultWriter"]

#: a case waiting for the commit: its row, its events, what to call when it was stored already
_Row = tuple[ResultRow, list[Event], Callable[[], Any] | None]


class ResultWriter:
    """Batches one job's finished cases.

    Args:
        store: the run store.
        job_id: the job whose counter and events are updated.
        publish: called with each event of a case once its batch committed.
    """

    def __init__(self, store: Store, job_id: str, publish: Callable[[Event], Any]) -> None:
        self.store = store
        self.job_id = job_id
        self.publish = publish
        self._rows: list[_Row] = []
        #: per model label: the :class:`~.results.SummaryRow` of every row this writer stored
        #: (the executor summarises a target from them instead of reading them back)
        self.summary_rows: dict[str, list[SummaryRow]] = {}
        #: rows found stored already (by a concurrent resume), so not written by this writer
        self.duplicates = 0

    def add(
        self,
        record: ResultRow,
        events: list[Event],
        on_duplicate: Callable[[], Any] | None = None,
    ) -> None:
        """Queue one finished case for the next commit. When its row turns out to be stored
        already, nothing of it is written nor published and ``on_duplicate()`` is called."""
        self._rows.append((record, events, on_duplicate))

    @property
    def pending(self) -> int:
        """Cases queued for the next commit."""
        return len(self._rows)

    def commit(self) -> int:
        """Write the queued cases in one transaction, then publish their events; returns how
        many were written. On a store error nothing is written, the batch stays queued for the
        next commit (a disk freed, a lock released: nothing finished is lost) and the error
        propagates."""
        rows, self._rows = self._rows, []
        if not rows:
            return 0
        try:
            written = self.store.write_results(
                self.job_id,
                [(record, [(e.type, e.ts, e.data) for e in events]) for record, events, _ in rows],
            )
        except BaseException:
            self._rows = rows + self._rows
            raise
        for (record, events, on_duplicate), new in zip(rows, written, strict=True):
            if new:
                self.summary_rows.setdefault(record.model, []).append(SummaryRow.of(record))
                for event in events:
                    self.publish(event)
            else:
                self.duplicates += 1
                if on_duplicate is not None:
                    on_duplicate()
        return sum(written)
