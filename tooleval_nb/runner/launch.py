"""``run_eval`` / ``run_eval_async``: build a run's plan, find or create its job, start it."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ..aio import in_notebook, running_loop
from ..cluster import resolve_executor
from ..errors import SuiteError
from ..suite import Suite
from .database import new_id
from .events import Callback, as_callbacks
from .jobs import Job
from .live import describe_live, is_target
from .plan import Plan, callable_path, import_callable, make_targets
from .progress import create_display, display_kinds
from .run import Run
from .settings import RunSettings, positional_temperature
from .store import Store, resolve_store

__all__ = ["run_eval", "run_eval_async", "ProgressMode", "attach_progress", "load_suite_arg"]

ProgressMode = Literal["auto", "widget", "text", "none"] | bool

log = logging.getLogger("tooleval_nb.runner")


def run_eval(
    suite: Suite | str | os.PathLike[str],
    models: Any = None,
    settings: RunSettings | Mapping[str, Any] | None = None,
    *,
    store: Store | str | os.PathLike[str] | None = None,
    callbacks: Callback | Iterable[Callback] | Mapping[str, Callback] | None = None,
    progress: ProgressMode = "auto",
    name: str | None = None,
    resume: bool = True,
    agent: Any = None,
    live_tools: Any = None,
    executor: Any = "local",
    **overrides: Any,
) -> Job:
    """Evaluate ``suite`` against ``models``; returns the :class:`Job`.

    In a notebook (a loop runs in this thread) the job runs as a task on the kernel's loop and
    this returns at once: ``run = await job`` (or ``job.result()`` once done). Elsewhere the call
    blocks until the run is finished, with a progress bar on stderr.

    How the models are asked is one :class:`~tooleval_nb.runner.settings.RunSettings`:
    ``settings`` (an object or a dict of its fields; default: its defaults) with ``overrides``
    applied, so ``run_eval(suite, models, temperature=0.7, tags=["smoke"])`` and
    ``run_eval(suite, models, te.RunSettings(temperature=0.7), tags=["smoke"])`` are the same
    run. The settings, each documented on ``RunSettings``: ``temperature``, ``tool_choice``
    (default ``required``, falling back to ``auto`` where a provider rejects it; the fallback is
    recorded per result), ``system_prompt``, ``tags``, ``ids``, ``max_concurrency``, ``cache``,
    ``mode``, ``repeats``, ``seeds``, ``max_rounds``, ``timeout`` (per request),
    ``case_timeout``, ``retries``, ``retry`` (a ``te.RetryPolicy``), ``rpm``, ``tpm``,
    ``params`` (extra sampling parameters), ``live_tool_timeout``, ``include_drafts``.

    Args:
        suite: a :class:`Suite` or the path of a suite file.
        models: litellm model strings, dicts (``model``, ``api_base``, ``api_key``, ``mode``,
            ``params``, ``label``; other keys are sampling parameters) or ``te.ModelSpec``
            objects; default ``[te.DEFAULT_MODEL]``.
        settings: a ``te.RunSettings`` (or a dict of its fields) the overrides apply to.
        store: the run store (a path or :class:`Store`); default ``TOOLEVAL_STORE`` or the user
            data directory.
        callbacks: called with every :class:`~tooleval_nb.runner.events.Event` of the job: a
            callable, a list, or ``{event_type: callable}``.
        progress: ``"auto"`` (a widget in notebooks, a bar on terminals), ``"widget"``,
            ``"text"``, ``"none"``.
        name: a label for the run in :func:`history`.
        resume: finish an interrupted job with the same configuration in this store instead of
            starting over (cases already stored are never run again).
        agent: a callable ``agent(case) -> Trace | dict`` (sync or async) that runs every case
            instead of the built-in loop.
        live_tools: answer the tool calls of chains and agent loops with real tools instead of
            the cases' mock responses (off by default): an MCP target (a URL, a command line
            as a string or a list; the job connects once and disconnects at its end) or an
            object with ``async call(name, arguments) -> LiveToolResult``
            (``te.mcp.live.ToolExecutor``). Results go to the model and into each hop and trace.
        executor: where the cells run: ``"local"`` (default: this process's event loop),
            ``"ray"`` (a Ray cluster: ``te.RayExecutor()`` with its defaults) or a
            ``te.RayExecutor`` for control. The store, events and results are the same.
        **overrides: fields of ``RunSettings``; an unknown name is a TypeError listing them.
    """
    job = prepare_job(
        suite,
        models,
        settings,
        store=store,
        callbacks=callbacks,
        progress=progress,
        name=name,
        resume=resume,
        agent=agent,
        live_tools=live_tools,
        executor=executor,
        **overrides,
    )
    return job.start()


async def run_eval_async(
    suite: Suite | str | os.PathLike[str],
    models: Any = None,
    settings: RunSettings | Mapping[str, Any] | None = None,
    *,
    progress: ProgressMode = "none",
    **options: Any,
) -> Run:
    """:func:`run_eval` for async code: awaits the job and returns the finished :class:`Run`
    (raises ``JobCancelled`` / ``JobError`` when it did not complete). Same options."""
    job = prepare_job(suite, models, settings, progress=progress, **options)
    job.start()
    return await job


def prepare_job(
    suite: Any,
    models: Any,
    settings: RunSettings | Mapping[str, Any] | None = None,
    *,
    store: Any = None,
    callbacks: Any = None,
    agent: Any = None,
    name: str | None = None,
    progress: ProgressMode = "auto",
    resume: bool = True,
    live_tools: Any = None,
    executor: Any = "local",
    **overrides: Any,
) -> Job:
    """Build the plan, find (resume) or create the job, subscribe callbacks and progress."""
    executor = resolve_executor(executor)  # a bad executor or a missing Ray fails here
    suite = load_suite_arg(suite)
    if isinstance(settings, (int, float)) and not isinstance(settings, bool):
        overrides = {**positional_temperature(settings), **overrides}
        settings = None
    if agent is not None:
        overrides["agent"] = callable_path(agent)
    if live_tools is not None:
        overrides["live_tools"] = describe_live(live_tools)
    settings_model = RunSettings.build(settings, **overrides)
    if agent is None and settings_model.agent:
        agent = import_callable(settings_model.agent)
    plan = Plan(
        suite=suite,
        targets=make_targets(models, settings_model.mode, settings_model.parser_compat),
        settings=settings_model,
        name=name,
        agent=agent,
        live_tools=None if is_target(live_tools) else live_tools,
        executor=executor,
    )
    tags, ids = settings_model.tags, settings_model.ids
    drafts = plan.n_drafts_skipped
    if not plan.cases:
        hint = (
            f"; {drafts} draft case(s) are skipped: accept them in the suite or pass "
            "include_drafts=True"
            if drafts
            else "; check the filters"
        )
        raise SuiteError(
            f"no case of suite {suite.name!r} is selected (tags={tags!r}, ids={ids!r}){hint}"
        )
    if drafts:
        log.info(
            "suite %r: %d draft case(s) skipped (include_drafts=True runs them)", suite.name, drafts
        )
    the_store = resolve_store(store)
    key = plan.config_key()
    job_id = the_store.find_resumable(key) if resume else None
    subscribers = as_callbacks(callbacks)
    if job_id is not None:
        row = the_store.job(job_id)
        job = Job(plan, the_store, job_id=job_id, run_id=row.run_id, callbacks=subscribers)
        attach_progress(job, progress)
        job.emit(
            "job_created",
            {
                "job_id": job_id,
                "run_id": row.run_id,
                "status": "submitted",
                "resumed": True,
                "done": row.n_done,
                "total": plan.n_total,
                "drafts_skipped": drafts,
            },
        )
        return job
    job_id, run_id = new_id("job"), new_id("run")
    the_store.create_job(
        job_id=job_id,
        run_id=run_id,
        config=plan.config_json(),
        config_key=key,
        n_total=plan.n_total,
        run_name=name,
        suite_name=suite.name,
        suite_fingerprint=plan.fingerprint,
        drafts_skipped=drafts,
        targets=[t.to_config() for t in plan.targets],
        settings=plan.settings.model_dump(mode="json"),
    )
    job = Job(plan, the_store, job_id=job_id, run_id=run_id, callbacks=subscribers)
    attach_progress(job, progress)
    job.emit(
        "job_created",
        {
            "job_id": job_id,
            "run_id": run_id,
            "status": "submitted",
            "resumed": False,
            "done": 0,
            "total": plan.n_total,
            "drafts_skipped": drafts,
        },
    )
    return job


def load_suite_arg(suite: Any) -> Suite:
    """A Suite as given, or loaded from a path."""
    if isinstance(suite, Suite):
        return suite
    if isinstance(suite, (str, os.PathLike)):
        from ..formats import load_suite

        loaded = load_suite(suite)
        if isinstance(loaded, list):
            if len(loaded) != 1:
                raise SuiteError(
                    f"{os.fspath(suite)} holds {len(loaded)} suites; run them one at "
                    "a time (te.load_suite gives the list)",
                    path=os.fspath(suite),
                )
            loaded = loaded[0]
        return loaded
    raise TypeError(
        f"suite must be a te.Suite or the path of a suite file, not {type(suite).__name__}"
    )


def attach_progress(job: Job, progress: ProgressMode) -> None:
    """Subscribe the progress display ``progress`` asks for (see :func:`run_eval`)."""
    if progress is True:
        progress = "auto"
    if progress is False or progress == "none":
        return
    if progress == "auto":
        if running_loop() is None:
            progress = "text"
        elif in_notebook():
            progress = "widget" if "widget" in display_kinds() else "text"
        else:
            return
    display = create_display(progress)  # ValueError names the registered kinds
    job.subscribe(display)
    show = getattr(display, "display", None)
    if callable(show):
        show()  # a notebook widget shows itself below the running cell
