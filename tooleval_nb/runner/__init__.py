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
(targets), :mod:`.settings` (RunSettings: the one definition of a run's settings), :mod:`.heap` (what a run does to the process's garbage collector).

The names load on first use (:mod:`tooleval_nb._lazy`: each is written once, in the
``TYPE_CHECKING`` block below), so a module of the runner (:mod:`.heap`, :mod:`.settings`) can
be imported without the rest of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:  # the one list of public names; at run time _lazy.attach reads it
    from ..aio import run_sync as run_sync
    from .events import BUS as BUS
    from .events import EVENT_TYPES as EVENT_TYPES
    from .events import CaseProgressData as CaseProgressData
    from .events import CaseResultData as CaseResultData
    from .events import Event as Event
    from .events import EventBus as EventBus
    from .events import JobProgressData as JobProgressData
    from .events import subscribe as subscribe
    from .history import delete_run as delete_run
    from .history import history as history
    from .history import load_run as load_run
    from .history import resume as resume
    from .jobs import Job as Job
    from .launch import run_eval as run_eval
    from .launch import run_eval_async as run_eval_async
    from .record import RESULT_COLUMNS as RESULT_COLUMNS
    from .record import SUMMARY_COLUMNS as SUMMARY_COLUMNS
    from .record import Hop as Hop
    from .results import ModelSummary as ModelSummary
    from .results import SummaryRow as SummaryRow
    from .run import Run as Run
    from .settings import TOOL_CHOICES as TOOL_CHOICES
    from .settings import RunSettings as RunSettings
    from .settings import ToolChoice as ToolChoice
    from .store import Store as Store

if not TYPE_CHECKING:  # hidden from type checkers: they read the block above as plain imports
    __getattr__, __dir__, __all__ = attach(__name__)
