"""The benchmark floor: a benchmark with its own cases, environments and checker, run through
the runner.

BFCL (:mod:`tooleval_nb.bfcl`) and τ²-bench (:mod:`tooleval_nb.tau2`) sit on this floor side by
side; neither imports the other. A benchmark's own rules (its data, prompts, checker) that
scoring needs live below scoring (BFCL's: :mod:`tooleval_nb.bfcl_rules`); its run side lives in
its package above the runner and uses what is here, the parts that are not its own:

========================  =====================================================================
:mod:`.launch`            :func:`run_options` (the user's run options, the ones the benchmark
                          sets itself refused by name), :func:`target_labels` (the models'
                          labels before the run, to check an output folder), :func:`prepare`
                          (the runner's job for the suite, with the benchmark's agent)
:mod:`.agent`             :class:`CaseAgent`, the runner's agent hook for cases that are
                          conversations (``run_case(case, label, ask)``; :data:`Ask`), and
                          :func:`done_cells` (the cells a resumed run stored already)
:mod:`.job`               :class:`BenchmarkJob`, the runner's job whose result is the
                          benchmark's run, and its :class:`Follower` (judging while it runs)
:mod:`.run`               :class:`BenchmarkRun`, the runner's run with the benchmark's views;
                          the stored detail of cells; a model that refused native tools
:mod:`.files`             :func:`run_folder` (a run's side files in the cache), :func:`write_csv`
========================  =====================================================================

The contract a benchmark follows (``bfcl/run.py`` is the worked example)::

    def run_mybench(model=None, ..., store=None, output=None, **run_options) -> MyJob:
        spec = ...                                   # its arguments checked: bad input refused
        options = run_options("run_mybench", run_options, {"mode": ..., "tool_choice": ...},
                              refused=(...), reason="...", advice="...")
        for label in target_labels(model, options["mode"]):
            ...                                      # the output folder checked, nothing run
        suite, agent = ...                           # its cases; its CaseAgent (or None)
        job = prepare(suite, model, store=store, agent=agent, options=options)
        agent.folder = run_folder("mybench", job.run_id)  # side files; done_cells(job): resume
        return MyJob(job, spec, follower).start()    # a BenchmarkJob[MyRun]

    async def run_mybench_async(...) -> MyRun:       # the same, then: return await job.start()

- **Cases** are a :class:`~tooleval_nb.suite.Suite` the runner runs: ids, categories, tags and
  ``metadata`` are the benchmark's. A case the runner can run alone (one request, a chain) is
  run by the runner; a conversation (BFCL's multi-turn entries, a τ² simulation) is run by the
  benchmark's :class:`CaseAgent` (see :mod:`.agent` for what ``run_case`` may and must do).
  Trials are the runner's repeats (``repeats=k``: a cell's ``sample``): each is a cell of its own.
- **Everything a run is** goes through the runner: the cache, retries, rate limits, progress,
  cancel, history, resume after a kill (a stored cell is never asked again) and
  ``executor="ray"`` (the agent pickles). The stored detail of a cell (its hops, with what the
  agent added to them) is where the benchmark reads its results back
  (:meth:`BenchmarkRun.stored_details`), during the run (a :class:`Follower`) or after it.
- **The job** is a :class:`BenchmarkJob` subclass: :meth:`~BenchmarkJob.view` gives the
  benchmark's run of a runner run (``job.snapshot()``), :meth:`~BenchmarkJob.finish` the
  finished one (its checks made, ``check_native_tools`` in ``fc`` mode, its files written when
  an output folder was given); ``await job`` in a notebook, ``job.result()`` elsewhere; every
  other attribute is the runner's job's.
- **The run** is a :class:`BenchmarkRun` subclass (``BfclRun``): the runner's views
  (``results_df``, ``summary``...) and the benchmark's (``bfcl_results_df``,
  ``tau2_scores``...), as DataFrames whose columns are defined once where they are built.
- **Files**: what the benchmark's own tools read (BFCL's result files, tau2's ``Results``) go
  to the output folder in that tool's own layout; side files of a run without one go to
  :func:`run_folder`; tables go out as CSV through :func:`write_csv` (no pandas needed to finish
  a run).

The floor imports the runner and what is below it, never a benchmark.
"""

from __future__ import annotations

from .agent import Ask, CaseAgent, done_cells
from .files import cache_folder, run_folder, write_csv
from .job import FOLLOWED_EVENTS, BenchmarkJob, Follower
from .launch import prepare, run_options, target_labels
from .run import BenchmarkRun, Cell

__all__ = [
    "Ask",
    "BenchmarkJob",
    "BenchmarkRun",
    "CaseAgent",
    "Cell",
    "FOLLOWED_EVENTS",
    "Follower",
    "cache_folder",
    "done_cells",
    "prepare",
    "run_folder",
    "run_options",
    "target_labels",
    "write_csv",
]
