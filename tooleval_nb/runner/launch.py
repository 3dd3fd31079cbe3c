"""``run_eval`` / ``run_eval_async``: build a run's plan, find or create its job, start it."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ..aio import in_notebook, running_loop
from ..errors import SuiteError
from ..suite import Suite
from .events import Callback, as_callbacks
from .jobs import Job, new_id
from .live import describe_live, is_target
from .plan import Mode, Plan, RunSettings, callable_path, make_targets
from .progress import create_display, display_kinds
from .run import Run
from .store import Store, resolve_store

__all__ = ["run_eval", "run_eval_async", "ProgressMode", "attach_progress", "load_suite_arg"]

ProgressMode = Literal["auto", "widget", "text", "none"] | bool

log = logging.getLogger("tooleval_nb.runner")


def run_eval(suite: Suite | str | os.PathLike[str], models: Any = None, temperature: float = 0.0,
             tool_choice: Literal["required", "auto", "none"] | dict[str, Any] = "required",
             system_prompt: str | Mapping[str, str] | None = None, *,
             tags: Iterable[str] | str | None = None, ids: Iterable[str] | None = None,
             max_concurrency: int = 8, store: Store | str | os.PathLike[str] | None = None,
             cache: bool = True, mode: Mode | None = None, repeats: int = 1,
             seeds: Iterable[int] | None = None,
             callbacks: Callback | Iterable[Callback] | Mapping[str, Callback] | None = None,
             max_rounds: int | None = None, timeout: float | None = None,
             case_timeout: float | None = None, retries: int = 0, retry: Any = None,
             rpm: float | None = None,
             tpm: float | None = None, params: Mapping[str, Any] | None = None,
             agent: Any = None, name: str | None = None, progress: ProgressMode = "auto",
             resume: bool = True, live_tools: Any = None, live_tool_timeout: float | None = None,
             include_drafts: bool = False) -> Job:
    """Evaluate ``suite`` against ``models``; returns the :class:`Job`.

    In a notebook (a loop runs in this thread) the job runs as a task on the kernel's loop and
    this returns at once: ``run = await job`` (or ``job.result()`` once done). Elsewhere the call
    blocks until the run is finished, with a progress bar on stderr.

    Args:
        suite: a :class:`Suite` or the path of a suite file.
        models: litellm model strings, dicts (``model``, ``api_base``, ``api_key``, ``mode``,
            ``params``, ``label``; other keys are sampling parameters) or ``te.ModelSpec``
            objects; default ``[te.DEFAULT_MODEL]``.
        temperature, tool_choice: sent with every request (``required`` falls back to ``auto``
            where a provider rejects it; the fallback is recorded per result).
        system_prompt: after the suite's own: one string for all models, or a dict keyed
            ``provider::model_id`` (or the model string).
        tags, ids: evaluate only the cases with any of these tags / these ids.
        max_concurrency: concurrent cases per provider (default 8).
        store: the run store (a path or :class:`Store`); default ``TOOLEVAL_STORE`` or the user
            data directory.
        cache: use the on-disk response cache (temperature 0 replies are reused).
        mode: ``native`` | ``hermes`` | ``pythonic`` for every model (default: each model's own).
        repeats, seeds: samples per case; ``seeds`` (one per sample) is passed as ``seed``.
        callbacks: called with every :class:`~tooleval_nb.runner.events.Event` of the job: a
            callable, a list, or ``{event_type: callable}``.
        max_rounds: overrides each case's ``max_rounds`` for chains and agent loops.
        timeout: per-request timeout, seconds. ``case_timeout``: per-case bound for cases that
            set no ``timeout``. ``retries``: re-runs of a case that errored, for cases that set
            none. ``retry``: the per-request retry policy (a ``te.RetryPolicy`` or its fields as
            a dict; default 4 tries with exponential back-off and jitter).
        rpm, tpm: requests / tokens per minute per provider.
        params: extra sampling parameters for every model (top_p, max_tokens, ...).
        agent: a callable ``agent(case) -> Trace | dict`` (sync or async) that runs every case
            instead of the built-in loop.
        name: a label for the run in :func:`history`.
        progress: ``"auto"`` (a widget in notebooks, a bar on terminals), ``"widget"``,
            ``"text"``, ``"none"``.
        resume: finish an interrupted job with the same configuration in this store instead of
            starting over (cases already stored are never run again).
        live_tools: answer the tool calls of chains and agent loops with real tools instead of
            the cases' mock responses (off by default): an MCP target (a URL, a command line
            as a string or a list; the job connects once and disconnects at its end) or an
            object with ``async call(name, arguments) -> LiveToolResult``
            (``te.mcp.live.ToolExecutor``). Results go to the model and into each hop and trace.
        live_tool_timeout: seconds allowed for each live tool call (default 30); a timeout or
            a failing tool becomes the tool's error answer.
        include_drafts: evaluate draft cases too (skipped by default; the ``job_created`` /
            ``tool_eval_init`` events and ``Run.drafts_skipped`` say how many were skipped).
    """
    job = prepare_job(suite, models, temperature, tool_choice, system_prompt, tags=tags, ids=ids,
                      max_concurrency=max_concurrency, store=store, cache=cache, mode=mode,
                      repeats=repeats, seeds=seeds, callbacks=callbacks, max_rounds=max_rounds,
                      timeout=timeout, case_timeout=case_timeout, retries=retries, retry=retry,
                      rpm=rpm,
                      tpm=tpm, params=params, agent=agent, name=name, progress=progress,
                      resume=resume, live_tools=live_tools, live_tool_timeout=live_tool_timeout,
                      include_drafts=include_drafts)
    return job.start()


async def run_eval_async(suite: Suite | str | os.PathLike[str], models: Any = None,
                         temperature: float = 0.0,
                         tool_choice: Literal["required", "auto", "none"] | dict[str, Any]
                         = "required",
                         system_prompt: str | Mapping[str, str] | None = None, *,
                         progress: ProgressMode = "none", **options: Any) -> Run:
    """:func:`run_eval` for async code: awaits the job and returns the finished :class:`Run`
    (raises ``JobCancelled`` / ``JobError`` when it did not complete). Same options."""
    job = prepare_job(suite, models, temperature, tool_choice, system_prompt, progress=progress,
                      **options)
    job.start()
    return await job


def prepare_job(suite: Any, models: Any, temperature: float, tool_choice: Any,
                system_prompt: Any, *, store: Any = None, callbacks: Any = None,
                agent: Any = None, name: str | None = None, progress: ProgressMode = "auto",
                resume: bool = True, mode: Mode | None = None, tags: Any = None,
                ids: Any = None, seeds: Any = None, params: Mapping[str, Any] | None = None,
                live_tools: Any = None, **settings: Any) -> Job:
    """Build the plan, find (resume) or create the job, subscribe callbacks and progress."""
    suite = load_suite_arg(suite)
    settings_model = RunSettings(
        temperature=temperature, tool_choice=tool_choice, system_prompt=system_prompt,
        tags=[tags] if isinstance(tags, str) else (list(tags) if tags is not None else None),
        ids=list(ids) if ids is not None else None, mode=mode,
        seeds=list(seeds) if seeds is not None else None, params=dict(params or {}),
        agent=callable_path(agent) if agent is not None else None,
        live_tools=describe_live(live_tools), **settings)
    plan = Plan(suite=suite, targets=make_targets(models, mode), settings=settings_model,
                name=name, agent=agent,
                live_tools=None if is_target(live_tools) else live_tools)
    drafts = plan.n_drafts_skipped
    if not plan.cases:
        hint = (f"; {drafts} draft case(s) are skipped: accept them in the suite or pass "
                "include_drafts=True" if drafts else "; check the filters")
        raise SuiteError(f"no case of suite {suite.name!r} is selected (tags={tags!r}, "
                         f"ids={ids!r}){hint}")
    if drafts:
        log.info("suite %r: %d draft case(s) skipped (include_drafts=True runs them)",
                 suite.name, drafts)
    the_store = resolve_store(store)
    key = plan.config_key()
    job_id = the_store.find_resumable(key) if resume else None
    subscribers = as_callbacks(callbacks)
    if job_id is not None:
        row = the_store.job(job_id)
        job = Job(plan, the_store, job_id=job_id, run_id=row["run_id"], callbacks=subscribers)
        attach_progress(job, progress)
        job.emit("job_created", {"job_id": job_id, "run_id": row["run_id"], "status": "submitted",
                                 "resumed": True, "done": row["n_done"],
                                 "total": plan.n_total, "drafts_skipped": drafts})
        return job
    job_id, run_id = new_id("job"), new_id("run")
    the_store.create_job(job_id=job_id, run_id=run_id, config=plan.config(), config_key=key,
                         n_total=plan.n_total, run_name=name, suite_name=suite.name,
                         suite_fingerprint=plan.fingerprint, drafts_skipped=drafts,
                         targets=[t.to_config() for t in plan.targets],
                         settings=plan.settings.model_dump(mode="json"))
    job = Job(plan, the_store, job_id=job_id, run_id=run_id, callbacks=subscribers)
    attach_progress(job, progress)
    job.emit("job_created", {"job_id": job_id, "run_id": run_id, "status": "submitted",
                             "resumed": False, "done": 0, "total": plan.n_total,
                             "drafts_skipped": drafts})
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
                raise SuiteError(f"{os.fspath(suite)} holds {len(loaded)} suites; run them one at "
                                 "a time (te.load_suite gives the list)", path=os.fspath(suite))
            loaded = loaded[0]
        return loaded
    raise TypeError(f"suite must be a te.Suite or the path of a suite file, not "
                    f"{type(suite).__name__}")


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
