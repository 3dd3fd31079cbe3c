"""A scored cell's stored row and the events published once it is stored.

One :class:`CaseRows` per job: it knows the run's ids and totals, caches each case's stored
facts (tags and expectations as JSON text) and counts the cases done, so that each
``tool_eval_progress`` and ``job_progress`` event carries the counters as they were when its
case was built."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..suite import EvalCase
from .events import CaseProgressData, CaseResultData, Event, JobProgressData
from .finished import FinishedCell
from .record import ResultRow, build_record, expected_json, tags_json

if TYPE_CHECKING:  # pragma: no cover
    from ..scoring.result import CaseScore

__all__ = ["CaseRows"]


class CaseRows:
    """Builds the rows and events of one job's cases.

    Args:
        job_id, run_id: the job and its run.
        total: the job's cases in all (samples included), for ``job_progress``.
    """

    def __init__(self, job_id: str, run_id: str, total: int) -> None:
        self.job_id = job_id
        self.run_id = run_id
        self.total = total
        #: the job's cases done: stored before it started, or stored (or queued) by it
        self.done_total = 0
        #: per case: (tags JSON, expected JSON), computed on first use
        self._facts: dict[int, tuple[str, str]] = {}

    def build(
        self, cell: FinishedCell, score: CaseScore | None, *, last: bool
    ) -> tuple[ResultRow, list[Event]]:
        """A scored cell's row and events, counted done (:meth:`uncount` undoes it for a row
        found stored already). ``score`` None: scoring raised (the outcome's error says why).
        ``last``: the last case of its commit, which also carries the batch's
        ``job_progress``."""
        target = cell.target
        tags, expected = self._case_facts(cell.case)
        record = build_record(
            run_id=self.run_id,
            label=target.label,
            mode=target.mode,
            model_index=target.index,
            case=cell.case,
            case_index=cell.case_index,
            sample=cell.sample,
            seed=cell.seed,
            outcome=cell.outcome,
            score=score,
            tags=tags,
            expected=expected,
        )
        cell.tally.done += 1
        self.done_total += 1
        return record, self._events(cell, record, last)

    def uncount(self, cell: FinishedCell) -> None:
        """A cell whose row was stored already (by a concurrent resume): not counted."""
        cell.tally.done -= 1
        self.done_total -= 1

    def _events(self, cell: FinishedCell, record: ResultRow, last: bool) -> list[Event]:
        """``tool_eval_progress`` and ``tool_eval_result``, and for the last case of a commit
        the ``job_progress`` of the whole batch (one per case when cases finish one at a
        time)."""
        job_id, run_id, now = self.job_id, self.run_id, time.time()
        label, current, total = cell.target.label, cell.tally.done, cell.tally.total
        progress: CaseProgressData = {
            "run_id": run_id,
            "model": label,
            "case_id": record.case_id,
            "sample": record.sample,
            "current": current,
            "total": total,
        }
        result: CaseResultData = {
            "run_id": run_id,
            "model": label,
            "mode": cell.target.mode,
            "case_id": record.case_id,
            "sample": record.sample,
            "tool_score": record.tool_score,
            "param_score": record.param_score,
            "overall": record.overall,
            "passed": bool(record.passed),
            "failure_mode": record.failure_mode,
            "error": record.error,
            "latency_ms": record.latency_ms,
        }
        events = [
            Event("tool_eval_progress", job_id, progress, now),
            Event("tool_eval_result", job_id, result, now),
        ]
        if last:
            percent = round(100.0 * self.done_total / self.total, 2) if self.total else 100.0
            batch: JobProgressData = {
                "percent": percent,
                "done": self.done_total,
                "total": self.total,
                "detail": f"{label}: {current}/{total}",
            }
            events.append(Event("job_progress", job_id, batch, now))
        return events

    def _case_facts(self, case: EvalCase) -> tuple[str, str]:
        """A case's tags and expectations as stored (JSON text), computed once per run."""
        facts = self._facts.get(id(case))  # the plan's case objects live as long as the run
        if facts is None:
            facts = self._facts[id(case)] = (tags_json(case), expected_json(case))
        return facts
