"""Runs as background jobs in the kernel, persisted in SQLite, resumable, with history.

    >>> job = te.run_eval(suite, [te.DEFAULT_MODEL])      # in a notebook: returns at once
    >>> run = await job                                   # or job.result() once finished
    >>> run.results_df(); run.summary_df()
    >>> te.history(); te.load_run(run.id); te.resume(job.id); te.delete_run(run.id)

Modules: :mod:`.launch` (run_eval), :mod:`.jobs` (Job, queueing, cancel), :mod:`.execute` (the
eval: scheduling, finishing), :mod:`.chains` (multi-turn chains, agent loops and callables),
:mod:`.live` (mock or live tool answers), :mod:`.writer` (batched commits), :mod:`.store`
(SQLite: :mod:`.database`, :mod:`.slots` (the job-slot queue), :mod:`.results`), :mod:`.record` (the result columns), :mod:`.run` (Run and its DataFrames),
:mod:`.history`, :mod:`.events`, :mod:`.progress`, :mod:`.limits` (rpm/tpm), :mod:`.plan`
(targets), :mod:`.settings` (RunSettings: the one definition of a run's settings), :mod:`.bridge` (the runner's name for :mod:`tooleval_nb.aio`).
"""

from __future__ import annotations

from ..aio import run_sync
from .events import BUS, EVENT_TYPES, Event, EventBus
from .history import delete_run, history, load_run, resume
from .jobs import Job
from .launch import run_eval, run_eval_async
from .record import RESULT_COLUMNS, SUMMARY_COLUMNS
from .run import Run
from .settings import TOOL_CHOICES, RunSettings, ToolChoice
from .store import Store

__all__ = [
    "run_eval",
    "run_eval_async",
    "resume",
    "history",
    "load_run",
    "delete_run",
    "Job",
    "Run",
    "Store",
    "Event",
    "EventBus",
    "EVENT_TYPES",
    "BUS",
    "subscribe",
    "run_sync",
    "RESULT_COLUMNS",
    "SUMMARY_COLUMNS",
    "RunSettings",
    "ToolChoice",
    "TOOL_CHOICES",
]


def subscribe(callback, types=None):  # type: ignore[no-untyped-def]
    """Hear every job's events in this process: ``callback(event)``; returns an unsubscribe
    function. ``types`` limits it to some event names (:data:`EVENT_TYPES`)."""
    return BUS.subscribe(callback, types)
