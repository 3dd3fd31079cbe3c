"""A scored τ²-bench run: :class:`Tau2Run`, what ``te.rescore_tau2`` and ``te.run_tau2`` give.

It holds one :class:`ScoredResults` per results file (or per run): tau2's ``Results`` with every
simulation's reward recomputed by tau2's evaluator (:mod:`.evaluate`), and the verdicts beside
them. Its frames:

* :meth:`Tau2Run.tau2_results_df`: one row per simulation (:data:`RESULT_COLUMNS`);
* :meth:`Tau2Run.tau2_scores`: pass^1 … pass^k per model and domain, with intervals
  (:mod:`.scores`), optionally without the tasks that pass on inaction;
* :meth:`Tau2Run.tasks_df`: pass^k per task, and :meth:`Tau2Run.results_df`: the runner's
  columns (``case_id``, ``passed``, ``overall``); two runs compare with the experiments' paired
  statistics on either: ``te.compare(run_b, run_a, "passed")`` or
  ``te.compare(run_b.tasks_df(), run_a.tasks_df(), "pass^2")``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..display import mimebundle
from .baseline import inaction_baseline
from .evaluate import Verdict
from .explain import db_diff, failed_assertions, missing_actions, missing_communicate

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from tau2.data_model.simulation import Results

__all__ = ["RESULT_COLUMNS", "ScoredResults", "Tau2Run"]

#: the columns of :meth:`Tau2Run.tau2_results_df`, one row per simulation:
#: who and what (``model`` the agent's, ``user_model`` the user simulator's, ``domain``,
#: ``task_id``, ``trial``, ``simulation_id``); the ``reward`` by tau2's evaluator (None when
#: not scored) and each part of the reward basis (``db``, ``communicate``, ``env_assertion``,
#: ``action``, ``nl_assertion``: 1 or 0, None when not in the task's basis); how it ended
#: (``termination_reason``, ``error``: an infrastructure error, as tau2 records it); its cost
#: (``agent_cost``, ``user_cost``) and length (``steps``: messages); ``scored`` and, if not,
#: why (``not_scored``); the reward the file stored (``stored_reward``); why it failed
#: (``missing_communicate``, ``missing_actions``, ``failed_assertions``: lists); the task's
#: gold action count as tau2 counts it (``task_num_actions``), the run's ``num_trials``, and
#: the ``source`` file.
RESULT_COLUMNS = [
    "model",
    "user_model",
    "domain",
    "task_id",
    "trial",
    "simulation_id",
    "reward",
    "db",
    "communicate",
    "env_assertion",
    "action",
    "nl_assertion",
    "termination_reason",
    "error",
    "agent_cost",
    "user_cost",
    "steps",
    "scored",
    "not_scored",
    "stored_reward",
    "missing_communicate",
    "missing_actions",
    "failed_assertions",
    "task_num_actions",
    "num_trials",
    "source",
]
_PARTS = {
    "DB": "db",
    "COMMUNICATE": "communicate",
    "ENV_ASSERTION": "env_assertion",
    "ACTION": "action",
    "NL_ASSERTION": "nl_assertion",
}
_ERRORS = {"agent_error", "user_error"}


@dataclass
class ScoredResults:
    """One results file (or run): tau2's ``Results`` as read, and tau2's verdict per simulation
    (same order), its domain, whether it is a solo run, and fields tau2 26.3 does not know."""

    results: Results
    verdicts: list[Verdict]
    source: str | None = None
    solo_mode: bool = False
    unknown_fields: list[str] = field(default_factory=list)

    @property
    def domain(self) -> str:
        return str(self.results.info.environment_info.domain_name)

    @property
    def model(self) -> str:
        agent = self.results.info.agent_info
        return str(agent.llm or agent.implementation)

    def rescored(self) -> Results:
        """A copy of the results with tau2's recomputed rewards (a simulation that is not
        scored keeps no reward: ``reward_info`` None), as tau2's ``evaluate_trajectories``
        writes them."""
        copy = self.results.model_copy(deep=True)
        for simulation, verdict in zip(copy.simulations, self.verdicts, strict=True):
            simulation.reward_info = verdict.reward_info
        return copy

    def rows(self) -> list[dict[str, Any]]:
        info = self.results.info
        actions = _task_actions(self.results)
        out = []
        for simulation, verdict in zip(self.results.simulations, self.verdicts, strict=True):
            reward_info = verdict.reward_info
            breakdown = {
                _PARTS.get(getattr(k, "value", str(k)), str(k)): float(v)
                for k, v in ((reward_info.reward_breakdown or {}) if reward_info else {}).items()
            }
            reason = getattr(simulation.termination_reason, "value", simulation.termination_reason)
            error = None
            if reason in _ERRORS or simulation.skipped:
                error = str(reason) + (" (skipped by tau2)" if simulation.skipped else "")
            stored = simulation.reward_info.reward if simulation.reward_info else None
            out.append(
                {
                    "model": self.model,
                    "user_model": info.user_info.llm or info.user_info.implementation,
                    "domain": self.domain,
                    "task_id": simulation.task_id,
                    "trial": simulation.trial,
                    "simulation_id": simulation.id,
                    "reward": verdict.reward,
                    **{part: breakdown.get(part) for part in _PARTS.values()},
                    "termination_reason": reason,
                    "error": error,
                    "agent_cost": simulation.agent_cost,
                    "user_cost": simulation.user_cost,
                    "steps": len(simulation.messages),
                    "scored": verdict.scored,
                    "not_scored": verdict.not_scored,
                    "stored_reward": stored,
                    "missing_communicate": missing_communicate(reward_info),
                    "missing_actions": missing_actions(reward_info),
                    "failed_assertions": failed_assertions(reward_info),
                    "task_num_actions": actions.get(simulation.task_id),
                    "num_trials": info.num_trials,
                    "source": self.source,
                }
            )
        return out


def _task_actions(results: Results) -> dict[str, int]:
    """Each task's action count as tau2's ``Results.to_df`` counts it (-1: transfer only)."""
    if not results.tasks:
        return {}
    probe = results.model_copy(update={"simulations": []})
    from tau2.data_model.simulation import RewardInfo, SimulationRun

    probe.simulations = [
        SimulationRun(
            id=f"probe-{task.id}",
            task_id=task.id,
            start_time="",
            end_time="",
            duration=0.0,
            termination_reason="agent_stop",
            messages=[],
            reward_info=RewardInfo(reward=0.0),
        )  # fmt: skip
        for task in results.tasks
    ]
    frame = probe.to_df()
    return {
        str(k): int(v) for k, v in zip(frame["task_id"], frame["task_num_actions"], strict=True)
    }


class Tau2Run:
    """Scored τ²-bench simulations of one or more results files or runs."""

    def __init__(self, parts: Sequence[ScoredResults]) -> None:
        self.parts = list(parts)
        self._frame: pd.DataFrame | None = None

    # -- frames ---------------------------------------------------------------------------
    def tau2_results_df(self) -> pd.DataFrame:
        """One row per simulation (columns :data:`RESULT_COLUMNS`)."""
        import pandas as pd

        if self._frame is None:
            rows = [row for part in self.parts for row in part.rows()]
            self._frame = pd.DataFrame(rows, columns=RESULT_COLUMNS)
        return self._frame.copy()

    def tau2_scores(self, *, ci: float = 0.95, without_inaction: bool = False) -> pd.DataFrame:
        """Per model and domain: ``pass^1`` … ``pass^k`` (k = trials) each with its interval
        (``pass^k_low``, ``pass^k_high``), the average reward and cost per task
        (:func:`.scores.tau2_scores`). ``without_inaction``: leave out the tasks an agent that
        only greets and stops passes (:meth:`inaction_baseline`)."""
        from .scores import tau2_scores

        frame = self.tau2_results_df()
        if not without_inaction:
            return tau2_scores(frame, ci=ci)
        baseline = self.inaction_baseline()
        passing = baseline[baseline["passes_on_inaction"]]
        keep = frame.merge(passing[["domain", "task_id"]], how="left", indicator=True)
        frame = frame[(keep["_merge"] == "left_only").to_numpy()]
        return tau2_scores(frame, ci=ci)

    def tasks_df(self) -> pd.DataFrame:
        """pass^k per model, domain and task (``case_id`` = ``domain/task_id``): the frame
        ``te.compare`` pairs two runs on, with ``metric="pass^k"``."""
        import pandas as pd

        from .scores import task_pass_hat_k

        frame = self.tau2_results_df()
        frames = []
        for (model, domain), group in frame[frame["scored"]].groupby(["model", "domain"]):
            per_task = task_pass_hat_k(group, int(group["num_trials"].max()))
            per_task = per_task.reset_index()
            per_task.insert(0, "case_id", domain + "/" + per_task["task_id"].astype(str))
            per_task.insert(0, "domain", domain)
            per_task.insert(0, "model", model)
            frames.append(per_task)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def results_df(self) -> pd.DataFrame:
        """The simulations in the runner's columns (``case_id`` = ``domain/task_id``,
        ``sample`` = trial, ``passed``, ``overall`` = reward, ``model``), for ``te.compare``.
        A simulation that is not scored is left out."""
        from .scores import is_successful

        frame = self.tau2_results_df()
        frame = frame[frame["scored"]].copy()
        frame["case_id"] = frame["domain"] + "/" + frame["task_id"].astype(str)
        frame["sample"] = frame["trial"]
        frame["overall"] = frame["reward"].astype(float)
        frame["passed"] = frame["overall"].map(is_successful)
        return frame[["case_id", "model", "domain", "task_id", "sample", "passed", "overall"]]

    # -- why, and the baseline ------------------------------------------------------------
    def inaction_baseline(self) -> pd.DataFrame:
        """Per domain and task of the run: whether an agent that only greets and stops passes
        it (:func:`.baseline.inaction_baseline`)."""
        import pandas as pd

        frames = []
        seen: set[tuple[str, str]] = set()
        for part in self.parts:
            ids = {sim.task_id for sim in part.results.simulations}
            tasks = [
                task for task in part.results.tasks
                if task.id in ids and (part.domain, task.id) not in seen
            ]  # fmt: skip
            seen.update((part.domain, task.id) for task in tasks)
            frames.append(inaction_baseline(part.domain, tasks))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def explain(self, task_id: str, trial: int = 0, *, model: str | None = None) -> dict[str, Any]:
        """Why one simulation got its reward: the reward and its parts, the required strings
        not said, the gold actions not taken, the assertions that fail, and the database
        fields that differ from the gold replay (:mod:`.explain`)."""
        for part in self.parts:
            if model is not None and part.model != model:
                continue
            tasks = {task.id: task for task in part.results.tasks}
            for simulation, verdict in zip(part.results.simulations, part.verdicts, strict=True):
                if simulation.task_id == str(task_id) and (simulation.trial or 0) == trial:
                    info = verdict.reward_info
                    task = tasks[simulation.task_id]
                    return {
                        "model": part.model,
                        "domain": part.domain,
                        "task_id": simulation.task_id,
                        "trial": trial,
                        "reward": verdict.reward,
                        "not_scored": verdict.not_scored,
                        "reward_breakdown": dict(info.reward_breakdown or {}) if info else {},
                        "missing_communicate": missing_communicate(info),
                        "missing_actions": missing_actions(info),
                        "failed_assertions": failed_assertions(info),
                        "db_diff": db_diff(part.domain, task, simulation, solo_mode=part.solo_mode),
                    }
        raise KeyError(f"no simulation of task {task_id!r}, trial {trial} in this run")

    # -- files and display ----------------------------------------------------------------
    def rescored_results(self) -> list[Results]:
        """Each part's tau2 ``Results`` with the recomputed rewards."""
        return [part.rescored() for part in self.parts]

    def __len__(self) -> int:
        return sum(len(part.verdicts) for part in self.parts)

    def __repr__(self) -> str:
        labels = sorted({f"{p.model} on {p.domain}" for p in self.parts})
        return f"Tau2Run({len(self)} simulations: {', '.join(labels) or 'none'})"

    def _repr_mimebundle_(self, include: Iterable[str] | None = None, exclude: Any = None) -> dict:
        text = repr(self)
        return mimebundle(text, lambda: self.tau2_scores().to_html(index=False))
