"""The racing engine shared by sweeps and prompt tunes: evaluate arms on dev cases in rounds.

Each round adds ``batch`` dev cases to every arm still alive; every (arm, round) evaluation is one
ordinary run, recorded as an ``eval_cells`` row so that a resumed job reuses it. With elimination
on (F-race), once ``min_cases`` cases are in, an arm is dropped when the one-sided
``1 - alpha`` upper bound of its paired delta against the current leader is below 0. The base arm
is never dropped, so every survivor ends with a full paired delta against it. The race stops when
one arm is left, the cases run out, or the budget is spent.

Budget accounting: the budget is the *job's* budget, over its whole life. Each cell is charged
once, with the model calls it cost, whether this process ran it or reloaded it from the store:
a tune that re-races the base and the front every generation reuses their stored cells without
paying for them again, and a job resumed after a kill pays, as it replays its stored cells in
order, exactly what the interrupted process had paid, so it takes the same decisions and ends
with the same ``calls_used`` as an uninterrupted job (requests lost in flight are not counted).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .compare import case_scores, compare_scores
from .config import Config
from .evaluate import Evaluation, calls_made, combine, evaluate_async, load_evaluation

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..suite import Suite
    from .budget import BudgetTracker
    from .store import ExperimentStore

__all__ = ["Arm", "Racer", "default_batch", "live_trials"]


def default_batch(n_cases: int) -> int:
    """Cases added per round: ``max(4, ceil(n / 5))``."""
    return max(4, math.ceil(n_cases / 5))


@dataclass
class Arm:
    """One candidate config under evaluation."""

    id: str
    config: Config
    is_base: bool = False
    alive: bool = True
    eliminated_at: int | None = None
    evals: list[Evaluation] = field(default_factory=list)
    holdout: list[Evaluation] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    _frame: Any = None

    def frame(self) -> pd.DataFrame:
        if self._frame is None or len(self._frame) != sum(len(e.results) for e in self.evals):
            self._frame = combine(self.evals)
        return self._frame

    def scores(self, metric: str = "score") -> pd.Series:
        frame = self.frame()
        if frame.empty:
            import pandas as pd

            return pd.Series(dtype=float)
        return case_scores(frame, metric)[0]

    @property
    def run_ids(self) -> list[str]:
        return [e.run_id for e in self.evals]

    @property
    def n_cases(self) -> int:
        return len(self.scores())


class Racer:
    """Evaluates arms round by round on a suite's dev cases (see the module docstring).

    Args:
        suite: the whole suite.
        store: the experiment store (cells) whose ``runs`` is the run store.
        owner_id: the sweep or tune id (cells are keyed by it).
        tracker: the job's budget.
        repeats: samples per case for sampled configs (greedy ones run once).
        seed: base seed (common random numbers: every arm uses the same seed list).
        metric: the per-case metric compared.
        alpha: one-sided level of the elimination test.
        eliminate: race (drop clearly worse arms) or not (grid, random, tpe).
        min_cases: cases needed before any elimination.
        parallel: arms evaluated at once.
        cache: use the model response cache.
        on_event: called with ``(kind, data)`` after each cell and round (for live displays).
        executor: where each cell's run goes: ``"local"``, ``"ray"`` or a ``te.RayExecutor``
            (``run_eval``'s ``executor``).
    """

    def __init__(
        self,
        suite: Suite,
        store: ExperimentStore,
        owner_id: str,
        tracker: BudgetTracker,
        *,
        repeats: int = 2,
        seed: int = 0,
        metric: str = "score",
        alpha: float = 0.05,
        eliminate: bool = True,
        min_cases: int = 8,
        parallel: int = 2,
        cache: bool = True,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
        executor: Any = "local",
    ) -> None:
        self.suite = suite
        self.executor = executor
        self.store = store
        self.owner_id = owner_id
        self.tracker = tracker
        self.repeats = repeats
        self.seed = seed
        self.metric = metric
        self.alpha = alpha
        self.eliminate = eliminate
        self.min_cases = min_cases
        self.parallel = max(1, parallel)
        self.cache = cache
        self.on_event = on_event or (lambda kind, data: None)
        self.stop_reason: str | None = None
        self.cases_used = 0
        #: (item, round, split) of every cell charged to the tracker by this job
        self._charged: set[tuple[str, int, str]] = set()

    def cost(self, arm: Arm, n_cases: int) -> int:
        return n_cases * (1 if arm.config.greedy else self.repeats)

    def need(self, arms: list[Arm], round_: int, split: str, n_cases: int) -> int:
        """Calls these cells still cost this job: cells it already paid for are free (a cell
        stored by an interrupted process is paid again, once, as it was then)."""
        return sum(
            self.cost(a, n_cases) for a in arms if (a.id, round_, split) not in self._charged
        )

    def shortfall(self, need: int) -> str:
        """Why ``need`` more calls cannot be made (for messages)."""
        if self.tracker.out_of_time:
            return self.tracker.reason or "time budget spent"
        return (
            f"needs {need} calls, {self.tracker.remaining_calls} left of the budget of "
            f"{self.tracker.budget.calls}"
        )

    def _charge(self, key: tuple[str, int, str], calls: int) -> None:
        if key not in self._charged:
            self._charged.add(key)
            self.tracker.charge(calls)

    async def cell(
        self, arm: Arm, round_: int, split: str, case_ids: list[str], *, seed: int | None = None
    ) -> Evaluation | None:
        """Evaluate ``arm`` on ``case_ids`` (or reuse the stored cell); None when over budget."""
        key = (arm.id, round_, split)
        found = self.store.cell(self.owner_id, arm.id, round_, split)
        if found is not None and found["status"] == "done" and found["run_id"]:
            ev = load_evaluation(self.store.runs, found["run_id"])
            ev.calls = int(found["calls"] or 0)
            self._charge(key, ev.calls)  # once per job (see the module docstring)
            return ev
        name = f"{self.owner_id}:{arm.id}:{split}{round_}"  # one run name per cell
        if found is not None and found["status"] == "running":
            # a killed job started this cell: its run may have completed before the cell was
            # recorded as done; then it is this cell's evaluation, and nothing is asked again
            run_id = self.store.runs.completed_run(name, since=found["created_at"] or 0.0)
            if run_id is not None:
                ev = load_evaluation(self.store.runs, run_id)
                ev.calls = calls_made(ev.results)
                self._charge(key, ev.calls)
                self.store.save_cell(
                    self.owner_id,
                    arm.id,
                    round_,
                    split,
                    case_ids,
                    run_id=run_id,
                    status="done",
                    calls=ev.calls,
                )
                return ev
        if not self.tracker.can_afford(self.cost(arm, len(case_ids))):
            return None
        self.store.save_cell(
            self.owner_id, arm.id, round_, split, case_ids, run_id=None, status="running"
        )
        ev = await evaluate_async(
            self.suite,
            arm.config,
            case_ids,
            store=self.store.runs,
            repeats=self.repeats,
            cache=self.cache,
            base_seed=self.seed if seed is None else seed,
            name=name,
            executor=self.executor,
        )
        self._charge(key, ev.calls)
        self.store.save_cell(
            self.owner_id,
            arm.id,
            round_,
            split,
            case_ids,
            run_id=ev.run_id,
            status="done",
            calls=ev.calls,
        )
        self.on_event(
            "cell",
            {"arm": arm.id, "round": round_, "split": split, "calls": self.tracker.calls_used},
        )
        return ev

    async def _gather(self, jobs: list[tuple[Arm, Any]]) -> list[Evaluation | None]:
        gate = asyncio.Semaphore(self.parallel)

        async def one(coro: Any) -> Evaluation | None:
            async with gate:
                return await coro

        return list(await asyncio.gather(*(one(c) for _, c in jobs)))

    async def race(self, arms: list[Arm], case_ids: list[str], batch: int | None = None) -> None:
        """Run the rounds (arms keep their dev evaluations in ``arm.evals``)."""
        step = batch or (default_batch(len(case_ids)) if self.eliminate else len(case_ids))
        self.stop_reason = None
        seen = 0
        round_ = 0
        while seen < len(case_ids):
            ids = case_ids[seen : seen + step]
            alive = [a for a in arms if a.alive]
            need = self.need(alive, round_, "dev", len(ids))
            if need and not self.tracker.can_afford(need):
                self.stop_reason = self.tracker.reason or (
                    f"budget: round {round_ + 1} needs {need} calls, "
                    f"{self.tracker.remaining_calls} left"
                )
                break
            results = await self._gather([(a, self.cell(a, round_, "dev", ids)) for a in alive])
            for arm, ev in zip(alive, results, strict=True):
                if ev is None:  # budget ran out inside the round: drop the partial round
                    self.stop_reason = self.tracker.reason or "budget spent mid-round"
                else:
                    arm.evals.append(ev)
            if self.stop_reason:
                break
            seen += len(ids)
            self.cases_used = seen
            round_ += 1
            if self.eliminate and seen >= self.min_cases:
                self._eliminate(arms, seen)
            self.on_event(
                "round",
                {
                    "round": round_,
                    "cases": seen,
                    "alive": [a.id for a in arms if a.alive],
                    "calls": self.tracker.calls_used,
                    "arms": arms,
                },
            )
            if self.eliminate and sum(a.alive for a in arms) <= 1:
                self.stop_reason = "one configuration left"
                break
        if self.stop_reason is None:
            self.stop_reason = "all dev cases used"

    def _eliminate(self, arms: list[Arm], seen: int) -> None:
        alive = [a for a in arms if a.alive]
        means = {a.id: float(a.scores(self.metric).mean()) for a in alive}
        leader = max(alive, key=lambda a: (means[a.id], a.is_base))
        lead_scores = leader.scores(self.metric)
        for arm in alive:
            if arm is leader or arm.is_base:
                continue
            res = compare_scores(
                lead_scores, arm.scores(self.metric), ci=1 - 2 * self.alpha, seed=self.seed
            )
            if res.ci_high < 0:
                arm.alive = False
                arm.eliminated_at = seen


def live_trials(arms: list[Arm], metric: str = "score", seed: int = 0) -> pd.DataFrame:
    """Provisional trial figures while a race runs (for the live forest plot)."""
    import pandas as pd

    base = next((a for a in arms if a.is_base), arms[0])
    ref = base.scores(metric)
    rows = []
    for arm in arms:
        scores = arm.scores(metric)
        if arm is base or not len(scores):
            d = lo = hi = 0.0 if arm is base else math.nan
        else:
            res = compare_scores(ref, scores, seed=seed, n_boot=2000)
            d, lo, hi = res.delta, res.ci_low, res.ci_high
        rows.append(
            {
                "trial_id": arm.id,
                "delta": d,
                "delta_ci_low": lo,
                "delta_ci_high": hi,
                "n_cases": len(scores),
                "score": float(scores.mean()) if len(scores) else math.nan,
                "is_base": arm is base,
                "status": "eliminated" if not arm.alive else "alive",
                "significant": bool(lo > 0) if lo == lo else False,
            }
        )
    return pd.DataFrame(rows)
