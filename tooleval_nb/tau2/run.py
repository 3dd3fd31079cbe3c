"""``te.run_tau2``: any model on τ²-bench's domains, through the runner.

One call loads the domain's tasks (:mod:`.domains`), makes each task a case and each trial a
sample (:func:`.loop.task_case`, tau2's seeds), and runs them with the runner's ``agent`` hook
:class:`.loop.Tau2Loop` (one simulation per cell: tau2's orchestrator, the agent and the user
simulator asking through the cell), so the cache, retries, progress, cancellation, history,
resume and ``executor="ray"`` are the runner's. The stored simulations
(:class:`Tau2Simulations`, a :class:`~tooleval_nb.runner.Run`) form tau2's own ``Results`` per
model; ``output`` writes them as a tau2 results file (:mod:`.results`). The job gives a
:class:`Tau2Result`: those results scored by tau2's evaluator (:class:`~.outcome.Tau2Run`:
rewards, pass^k with intervals, why each task failed), with the run beside it.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..benchmark import BenchmarkJob, BenchmarkRun, prepare, target_labels
from ..benchmark import run_options as benchmark_options
from ..models.call import on_its_own_server
from ..models.spec import PARSER_FORMATS
from ..runner import Run
from ..runner.plan import make_targets
from ..suite import Suite
from .domains import (
    DEFAULT_SPLIT,
    Tau2Error,
    check_domain,
    load_tasks,
)
from .evaluate import Verdict
from .loop import (
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_STEPS,
    DEFAULT_SEED,
    Tau2Loop,
    task_case,
    trial_seeds,
)
from .outcome import Tau2Run
from .rescore import score_results
from .results import new_results, write_results

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from tau2.data_model.simulation import Results, SimulationRun

__all__ = [
    "Tau2Job",
    "Tau2Result",
    "Tau2Simulations",
    "Tau2Spec",
    "TAU2_MODES",
    "is_tau2_run",
    "load_tau2_run",
    "run_tau2",
    "run_tau2_async",
]

#: ``fc`` (native tools) or a raw-text format the calls are read from (our parsers' names)
TAU2_MODES: tuple[str, ...] = ("fc", *PARSER_FORMATS)
#: run options run_tau2 refuses (beside those it sets: mode, tool choice, repeats, seeds)
_REFUSED = ("agent", "ids", "tags")
#: the embedded server instance of a user simulator that is its embedded agent's own model
USER_SERVER = "tau2-user"
#: :meth:`Tau2Simulations.tau2_conversation_df`'s columns
CONVERSATION_COLUMNS = ("turn", "role", "requestor", "text", "calls", "error")


@dataclass
class Tau2Spec:
    """What a τ² run is: the domain and its tasks, the trials, tau2's limits, the mode, the
    user model and the output file."""

    domain: str
    tasks: list[Any]
    trials: int = 1
    split: str = DEFAULT_SPLIT
    max_steps: int = DEFAULT_MAX_STEPS
    max_errors: int = DEFAULT_MAX_ERRORS
    mode: str = "fc"
    user_model: Any = None
    output: Path | None = None
    seeds: list[int] = field(default_factory=list)
    #: ``(task id, trial)`` -> the user messages a replayed user says first
    scripts: dict[tuple[str, int], list[Any]] = field(default_factory=dict)
    #: what the replayed user turns came from (part of the cases: a replay resumes only itself)
    replay_of: str | None = None

    def runner_mode(self) -> str:
        return "native" if self.mode == "fc" else self.mode


def _spec(
    domain: str,
    trials: int,
    task_ids: Any,
    limit: int | None,
    max_steps: int,
    max_errors: int,
    mode: str,
    user_model: Any,
    output: Any,
    split: str | None,
) -> Tau2Spec:
    check_domain(domain)
    if mode not in TAU2_MODES:
        raise Tau2Error(
            f"mode must be 'fc' (native tools) or a raw-text format the calls are read from "
            f"({', '.join(TAU2_MODES[1:])}), not {mode!r}"
        )
    for name, value in (("trials", trials), ("max_steps", max_steps), ("max_errors", max_errors)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise Tau2Error(f"{name} must be a positive integer, not {value!r}")
    if limit is not None and (not isinstance(limit, int) or limit <= 0):
        raise Tau2Error(f"limit must be a positive integer or None, not {limit!r}")
    ids = [task_ids] if isinstance(task_ids, (str, int)) else task_ids
    tasks = load_tasks(domain, split, None if ids is None else [str(i) for i in ids])
    if limit is not None:
        tasks = tasks[:limit]
    return Tau2Spec(
        domain=domain,
        tasks=tasks,
        trials=trials,
        split=split or DEFAULT_SPLIT,
        max_steps=max_steps,
        max_errors=max_errors,
        mode=mode,
        user_model=user_model,
        output=Path(output) if output is not None else None,
        seeds=trial_seeds(trials),
    )


def build_run(spec: Tau2Spec, model: Any) -> tuple[Suite, Tau2Loop]:
    """The run's suite (one case per task) and the hook that runs its simulations."""
    # The user simulator, when it is the embedded model, speaks to a server process of its
    # own: agent and user alternate, and one KV cache would read each one's long prompt again
    # at every turn (the agent's holds the domain's policy: airline's is 5,300 tokens).
    users: dict[str, Any] = {}
    labels: dict[str, str] = {}
    user_label = None
    agents = make_targets(model, spec.runner_mode())  # type: ignore[arg-type]
    if spec.user_model is not None:
        user = make_targets(spec.user_model, spec.runner_mode())  # type: ignore[arg-type]
        if len(user) != 1:
            raise Tau2Error(f"user_model must be one model, not {len(user)}")
        user_label = user[0].label
        user_spec = on_its_own_server(user[0].spec, USER_SERVER)
        for target in agents:
            users[target.label], labels[target.label] = user_spec, user_label
    else:  # each agent's own model
        for target in agents:
            own = on_its_own_server(target.spec, USER_SERVER)
            if own is not target.spec:
                users[target.label] = own
    metadata = {
        "tau2_split": spec.split,
        "tau2_user_model": user_label,
        "tau2_max_steps": spec.max_steps,
        "tau2_max_errors": spec.max_errors,
        "tau2_replay_of": spec.replay_of,
    }
    cases = [task_case(task, spec.domain, metadata) for task in spec.tasks]
    suite = Suite.model_construct(
        name=f"tau2_{spec.domain}",
        description=f"τ²-bench {spec.domain} ({spec.split}): {len(cases)} tasks",
        cases=cases,
    )
    loop = Tau2Loop(
        spec.domain,
        {str(t.id): t for t in spec.tasks},
        spec.seeds,
        max_steps=spec.max_steps,
        max_errors=spec.max_errors,
        user_models=users,
        user_labels=labels,
        scripts=spec.scripts,
    )
    return suite, loop


def _run_options(spec: Tau2Spec, options: Mapping[str, Any]) -> dict[str, Any]:
    own = {
        "mode": spec.runner_mode(),
        "tool_choice": "auto",
        "repeats": spec.trials,
        "seeds": spec.seeds,
    }
    return {
        "temperature": 0.0,  # tau2's default for the agent and the user
        **benchmark_options(
            "run_tau2",
            options,
            own,
            refused=_REFUSED,
            reason="τ²'s tasks, trials, seeds and tool choice",
            advice="choose task_ids=..., trials=... and mode=... instead",
        ),
    }


def run_tau2(
    model: Any = None,
    domain: str = "airline",
    *,
    user_model: Any = None,
    trials: int = 1,
    task_ids: str | Iterable[str] | None = None,
    limit: int | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    max_errors: int = DEFAULT_MAX_ERRORS,
    mode: str = "fc",
    output: str | os.PathLike[str] | None = None,
    split: str | None = None,
    store: Any = None,
    **run_options: Any,
) -> Tau2Job:
    """Run a model as the agent of τ²-bench's ``domain``; returns the :class:`Tau2Job`.

    In a notebook the job runs on the kernel's loop and this returns at once
    (``run = await job``); elsewhere it blocks until the run is finished (``job.result()``).

    Args:
        model: the agent: a litellm model string, a dict, a ``te.ModelSpec``, or a list of
            them (each its own simulations); default the embedded offline model.
        domain: ``airline``, ``retail``, ``telecom`` (the user has tools too) or ``mock``.
        user_model: the user simulator's model (any model; default each agent's own), given
            tau2's user prompt; its requests are the run's too (cache, retries, cost).
        trials: simulations per task (pass^k up to k = trials); trial ``i`` sends tau2's
            ``i``-th seed with every request.
        task_ids: only these tasks (of the split), in this order.
        limit: the first ``limit`` tasks.
        max_steps: tau2's limit on a simulation's steps (default tau2's, 200).
        max_errors: tau2's limit on tool errors (default tau2's, 10).
        mode: ``"fc"`` offers the domain's tools as native tools; a raw-text format name
            (``hermes``, ``pythonic``, ...) describes them in the prompt and reads the calls
            from the reply text.
        output: write tau2's results file (``Results`` JSON) there once the run is finished.
        split: the task split (tau2's ``base`` by default; telecom's ``small`` is its 20-task
            ``tasks_small``).
        store: the run store (see ``run_eval``).
        **run_options: passed to the runner (``temperature``, default tau2's 0.0;
            ``max_concurrency``, ``cache``, ``timeout``, ``retries``, ``progress``, ``name``,
            ``resume``, ``executor``, ...).

    Raises:
        Tau2Error: an unknown domain, split or task (the valid ones listed), a bad mode or
            limit, or tau2 not installed (the install command named).
        ModelConfigError: in ``fc`` mode, a model that rejects native tools.
    """
    spec = _spec(
        domain, trials, task_ids, limit, max_steps, max_errors, mode, user_model, output, split
    )
    return start_tau2(spec, model, store, run_options)


def start_tau2(spec: Tau2Spec, model: Any, store: Any, options: Mapping[str, Any]) -> Tau2Job:
    """Prepare and start a τ² run of ``spec`` (run_tau2's and the replay's common part)."""
    return _job(spec, model, store, options).start()


def _job(spec: Tau2Spec, model: Any, store: Any, options: Mapping[str, Any]) -> Tau2Job:
    options = _run_options(spec, options)
    target_labels(model, options["mode"])  # bad models refused before anything runs
    suite, loop = build_run(spec, model)
    job = prepare(suite, model, store=store, agent=loop, options=options)
    return Tau2Job(job, spec, suite, loop.verdicts, loop.simulations)


async def run_tau2_async(model: Any = None, domain: str = "airline", **options: Any) -> Tau2Result:
    """:func:`run_tau2` for async code: the finished :class:`Tau2Result` (same arguments;
    ``progress`` defaults to ``"none"``)."""
    keys = (
        "user_model",
        "trials",
        "task_ids",
        "limit",
        "max_steps",
        "max_errors",
        "mode",
        "output",
        "split",
    )
    given = {k: options.pop(k) for k in keys if k in options}
    store = options.pop("store", None)
    spec = await asyncio.to_thread(
        _spec,
        domain,
        given.get("trials", 1),
        given.get("task_ids"),
        given.get("limit"),
        given.get("max_steps", DEFAULT_MAX_STEPS),
        given.get("max_errors", DEFAULT_MAX_ERRORS),
        given.get("mode", "fc"),
        given.get("user_model"),
        given.get("output"),
        given.get("split"),
    )
    return await _job(spec, model, store, {"progress": "none", **options}).start()


class Tau2Job(BenchmarkJob["Tau2Result"]):  # type: ignore[type-var]  # a scored Tau2Run
    """A τ² run in progress: a runner :class:`~tooleval_nb.runner.Job` whose result is a
    :class:`Tau2Simulations` (its results file written when an output was given). Everything else
    (``cancel``, ``progress``, ``status``, ``events``...) is the job's own."""

    def __init__(
        self,
        job: Any,
        spec: Tau2Spec,
        suite: Suite,
        verdicts: Mapping[str, Mapping[tuple[str, int], Verdict]] | None = None,
        simulations: Mapping[str, Mapping[tuple[str, int], SimulationRun]] | None = None,
    ) -> None:
        super().__init__(job)
        self.spec, self.suite = spec, suite
        #: tau2's verdicts on the simulations this process ran (:attr:`.loop.Tau2Loop.verdicts`)
        self.verdicts = verdicts if verdicts is not None else {}
        #: those simulations as stored (:attr:`.loop.Tau2Loop.simulations`)
        self.computed = simulations if simulations is not None else {}

    def __repr__(self) -> str:
        return (
            f"Tau2Job({self.spec.domain}, {len(self.spec.tasks)} tasks × "
            f"{self.spec.trials} trials, {self.job!r})"
        )

    def view(self, run: Run) -> Tau2Result:  # type: ignore[override]
        """The run as stored, scored (partial while running or after a cancel)."""
        return Tau2Simulations.of(run, self.spec, self.suite, self.computed).scored(self.verdicts)

    def finish(self, run: Run) -> Tau2Result:  # type: ignore[override]
        stored = Tau2Simulations.of(run, self.spec, self.suite, self.computed)
        if self.spec.mode == "fc":
            stored.check_native_tools(
                "τ² simulation",
                "run it with a raw-text mode (mode='hermes', 'pythonic', ...: the tools in the "
                "prompt, calls read from the text)",
            )
        if self.spec.output is not None:
            stored.write_tau2(self.spec.output)
        return stored.scored(self.verdicts)


class Tau2Simulations(BenchmarkRun):
    """A :class:`~tooleval_nb.runner.Run` of τ² simulations as the runner stored them: tau2's
    ``SimulationRun`` per cell, tau2's ``Results`` per model (:meth:`tau2_results`), tau2's
    results file (:meth:`write_tau2`)."""

    spec: Tau2Spec
    suite: Suite

    @classmethod
    def of(
        cls,
        run: Run,
        spec: Tau2Spec,
        suite: Suite,
        computed: Mapping[str, Mapping[tuple[str, int], SimulationRun]] | None = None,
    ) -> Tau2Simulations:
        """The run's simulations; ``computed``: label -> ``(task id, trial)`` -> a stored
        simulation this process has already read as tau2 does (the run's own cells: not read
        from the store again)."""
        out = cls.from_run(run)
        out.spec, out.suite = spec, suite
        out.__dict__["_simulations"] = None
        out.__dict__["_computed"] = computed or {}
        return out

    def simulations(self) -> dict[str, list[SimulationRun]]:
        """Model label -> its stored simulations (tau2's ``SimulationRun``), in task and trial
        order; a cell whose model call failed after its retries is the simulation tau2 records
        for a failed sample it skips."""
        cached: dict[str, list[SimulationRun]] | None = self.__dict__.get("_simulations")
        if cached is not None:
            return cached
        from tau2.data_model.simulation import SimulationRun

        order = {str(t.id): i for i, t in enumerate(self.spec.tasks)}
        out: dict[str, list[SimulationRun]] = {t["label"]: [] for t in self.targets}
        rows = sorted(self._rows, key=lambda r: (order.get(r.case_id, len(order)), r.sample or 0))
        computed: Mapping[str, Mapping[tuple[str, int], SimulationRun]]
        computed = self.__dict__.get("_computed") or {}

        def known(row: Any) -> SimulationRun | None:
            return computed.get(row.model, {}).get((row.case_id, row.sample or 0))

        details = self.stored_details(
            [(r.model, r.case_id, r.sample or 0) for r in rows if known(r) is None]
        )
        for row in rows:
            simulation = known(row)
            if simulation is None:
                trace = details.get((row.model, row.case_id, row.sample or 0), {}).get("trace")
                if trace is None:  # a cell that never reached its simulation
                    trace = _skipped(row, self.spec)
                simulation = SimulationRun.model_validate(trace)
            out.setdefault(row.model, []).append(simulation)
        self.__dict__["_simulations"] = out
        return out

    def tau2_results(self, model: str | None = None) -> Results:
        """tau2's ``Results`` of one model's simulations (default the run's first model), as
        :func:`.results.new_results` makes them for a run of ours."""
        label = model or self.models[0]
        spec = self.spec
        user = self.user_label(label)
        return new_results(
            spec.domain,
            spec.tasks,
            self.simulations().get(label, []),
            agent_model=label,
            user_model=user,
            num_trials=spec.trials,
            max_steps=spec.max_steps,
            max_errors=spec.max_errors,
            agent_args={"temperature": self.settings.get("temperature"), "mode": spec.mode},
            user_args={"temperature": self.settings.get("temperature")},
            seed=DEFAULT_SEED,
        )

    def user_label(self, label: str) -> str:
        """The label of the user simulator's model of the agent ``label`` (its own default)."""
        if self.spec.user_model is None:
            return label
        return target_labels(self.spec.user_model, self.spec.runner_mode())[0]

    def tau2_conversation_df(
        self, task_id: str, trial: int = 0, model: str | None = None
    ) -> pd.DataFrame:
        """One simulation turn by turn (columns :data:`CONVERSATION_COLUMNS`): each message's
        ``turn``, who sent it (``role``: ``assistant`` the agent, ``user``, ``tool`` an answer
        of the environment; ``requestor``: whose call a tool message answers, or who made the
        calls), its ``text``, its ``calls`` (``name(arguments)``), and ``error`` for a tool
        answer that failed.

        Args:
            task_id: a task of the run.
            trial: the trial (default 0).
            model: the agent's label (default the run's first).
        """
        import pandas as pd

        label = model or self.models[0]
        found = [
            s
            for s in self.simulations().get(label, [])
            if s.task_id == str(task_id) and (s.trial or 0) == trial
        ]
        if not found:
            raise KeyError(
                f"no stored simulation of task {task_id!r}, trial {trial}, model {label!r}"
            )
        rows = []
        for i, message in enumerate(found[0].messages):
            calls = getattr(message, "tool_calls", None) or []
            rows.append(
                {
                    "turn": message.turn_idx if message.turn_idx is not None else i,
                    "role": message.role,
                    "requestor": (
                        message.requestor
                        if message.role == "tool"
                        else (calls[0].requestor if calls else None)
                    ),
                    "text": message.content,
                    "calls": [f"{c.name}({json.dumps(c.arguments)})" for c in calls],
                    "error": bool(getattr(message, "error", False)),
                }
            )
        return pd.DataFrame(rows, columns=list(CONVERSATION_COLUMNS))

    def write_tau2(self, output: str | os.PathLike[str]) -> list[Path]:
        """Write tau2's results file of each model (:func:`.results.write_results`): ``output``
        itself for one model, else ``<output stem>_<model>.json`` beside it; returns the
        paths."""
        base = Path(output)
        labels = [t["label"] for t in self.targets]
        return [
            write_results(
                self.tau2_results(label),
                base if len(labels) == 1 else base.with_name(f"{base.stem}_{_slug(label)}.json"),
            )
            for label in labels
        ]

    def scored(
        self, computed: Mapping[str, Mapping[tuple[str, int], Verdict]] | None = None
    ) -> Tau2Result:
        """The stored simulations scored by tau2's evaluator: this module's :class:`~.outcome.Tau2Run`
        (``tau2_results_df``, ``tau2_scores``, ``explain``, ``inaction_baseline``), with this
        run beside it. ``computed``: label -> ``(task id, trial)`` -> tau2's verdict on a stored
        simulation, already computed on what was stored (the run's own cells), not evaluated
        again."""
        parts = [
            score_results(
                self.tau2_results(t["label"]),
                source=f"run {self.id}",
                computed=(computed or {}).get(t["label"]),
            )
            for t in self.targets
        ]
        return Tau2Result(parts, self)


class Tau2Result(Tau2Run):
    """A τ² run's scored simulations (:class:`~.outcome.Tau2Run`: ``tau2_results_df()``,
    ``tau2_scores()``, ``explain()``, ``inaction_baseline()``...) and the run that made them
    (:attr:`stored`, a :class:`Tau2Simulations`: its ``id``, ``store``, the runner's frames,
    tau2's ``Results``), whose conversations it shows turn by turn."""

    def __init__(self, parts: Any, stored: Tau2Simulations) -> None:
        super().__init__(parts)
        self.stored = stored

    @property
    def id(self) -> str:
        """The run's id in the store (``te.history``, ``te.load_run``)."""
        return str(self.stored.id)

    def tau2_conversation_df(
        self, task_id: str, trial: int = 0, model: str | None = None
    ) -> pd.DataFrame:
        """One simulation turn by turn (:meth:`Tau2Simulations.tau2_conversation_df`)."""
        return self.stored.tau2_conversation_df(task_id, trial, model)


def is_tau2_run(run: Run) -> bool:
    """Whether a stored run is a τ² run (its suite is ``tau2_<domain>``, made by run_tau2)."""
    return run.suite_name.startswith("tau2_") and run.job_id is not None


def load_tau2_run(run: Run) -> Tau2Result:
    """A stored τ² run (``te.load_run``, the report's runs) scored again: its tasks, trials and
    limits read from the run's stored suite and settings; no model is called.

    Raises:
        Tau2Error: the run is not a τ² run.
    """
    if not is_tau2_run(run):
        raise Tau2Error(f"run {run.id!r} (suite {run.suite_name!r}) is not a τ²-bench run")
    suite = Suite.model_validate(run.store.job(str(run.job_id)).config["suite"])
    meta = dict(suite.cases[0].metadata or {}) if suite.cases else {}
    domain = str(meta.get("tau2_domain") or run.suite_name.removeprefix("tau2_"))
    mode = str(run.settings.get("mode") or "native")
    spec = Tau2Spec(
        domain=domain,
        tasks=load_tasks(domain, meta.get("tau2_split"), [str(c.id) for c in suite.cases]),
        trials=int(run.settings.get("repeats") or 1),
        split=str(meta.get("tau2_split") or DEFAULT_SPLIT),
        max_steps=int(meta.get("tau2_max_steps") or DEFAULT_MAX_STEPS),
        max_errors=int(meta.get("tau2_max_errors") or DEFAULT_MAX_ERRORS),
        mode="fc" if mode == "native" else mode,
        user_model=meta.get("tau2_user_model"),
        seeds=list(run.settings.get("seeds") or []),
        replay_of=meta.get("tau2_replay_of"),
    )
    return Tau2Simulations.of(run, spec, suite).scored()


def _skipped(row: Any, spec: Tau2Spec) -> dict[str, Any]:
    """The simulation tau2 records for a sample that failed and was skipped (``run_tasks``
    with ``skip_failed_samples``): ``agent_error``, reward 0, no messages."""
    from tau2.utils.utils import get_now

    now = get_now()
    sample = row.sample or 0
    return {
        "id": f"{row.case_id}_{sample}_failed",
        "task_id": row.case_id,
        "start_time": now,
        "end_time": now,
        "duration": 0.0,
        "termination_reason": "agent_error",
        "messages": [],
        "trial": sample,
        "seed": spec.seeds[sample] if sample < len(spec.seeds) else None,
        "reward_info": {"reward": 0.0, "info": {"note": row.error}},
        "skipped": True,
    }


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-._" else "_" for c in label)
