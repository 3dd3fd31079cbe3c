"""Baselines (one per model) and the best rule of an experiment.

An experiment not bound to a model (``model=None``) pins one baseline per model: the first eval
run of each model. Every delta is computed against the baseline of the entry's own model, on their
common cases. An experiment bound to a model (``model="..."``) has one baseline; a run of another
model is linked without a delta and never becomes the best.

``best`` is tracked across all models: a candidate replaces it only when its paired delta against
the current best, on their common cases, has ``ci_low > 0`` (``best_rule="ci"``; ``"mean"``
accepts any positive delta). Every change is appended to ``experiment_best_history`` with its
reason. A tuner's ``promote="copy"`` (dev results reused, exploration only) may change the best, but
the best is then marked unconfirmed and its entry ``selection_biased``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from ..errors import ExperimentError
from ..runner.run import Run
from .compare import case_scores, compare_scores, run_label
from .config import Config
from .evaluate import config_from_run
from .stats import mean_ci

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["PromoteMode", "BestRecord", "Tracking", "COPY_NOTE"]

#: the note on an entry promoted with ``promote="copy"``
COPY_NOTE = (
    "promote='copy': the tuner's dev results were reused, not confirmed on a holdout "
    "(exploration only; selection-biased)"
)

#: how a tuner's winner reaches an experiment: confirmed on the holdout, or copied from dev
PromoteMode = Literal["confirm", "copy"]


class BestRecord(BaseModel):
    """A config with the evidence for it (the best, or a model's baseline)."""

    model_config = ConfigDict(frozen=True)

    config: Config
    run_id: str | None
    score: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    #: paired delta vs the baseline of the same model on common cases (0 for the baseline)
    delta: float | None = None
    confirmed: bool = False
    source: str = "baseline"

    @property
    def ci(self) -> tuple[float | None, float | None]:
        return (self.ci_low, self.ci_high)


class Tracking:
    """Baselines and best of an :class:`~.experiment.Experiment` (a mixin: it uses the
    experiment's ``store``, ``id``, ``model``, ``metric``, ``best_rule``, ``suite_fp``,
    ``_row()``, ``_frame()``, ``_insert_entry()`` and ``_note()``)."""

    store: Any
    id: str
    model: str | None
    metric: str
    best_rule: str
    suite_fp: str

    if TYPE_CHECKING:  # pragma: no cover

        def _row(self) -> dict[str, Any]: ...
        def _frame(self, run_ids: list[str]) -> pd.DataFrame: ...
        def _insert_entry(self, *args: Any, **kwargs: Any) -> int: ...
        def _note(self, entry_id: int, text: str) -> None: ...

    # -- baselines -------------------------------------------------------------------------------
    def _record(self, run_id: str, config: Config, source: str = "baseline") -> BestRecord:
        score, lo, hi = mean_ci(case_scores(self._frame([run_id]), self.metric)[0].to_numpy())
        return BestRecord(
            config=config,
            run_id=run_id,
            score=score,
            ci_low=lo,
            ci_high=hi,
            delta=0.0,
            confirmed=True,
            source=source,
        )

    @property
    def baseline(self) -> BestRecord | None:
        """The experiment's first pinned baseline (the bound model's), or None before any run."""
        row = self._row()
        if not row.get("baseline_run_id"):
            return None
        return self._record(
            row["baseline_run_id"], Config.from_json(row.get("baseline_config_json"))
        )

    def _baseline_rows(self) -> dict[str, dict[str, Any]]:
        rows = self.store.select(
            "experiment_baselines", {"experiment_id": self.id}, order="pinned_at"
        )
        return {r["model"]: r for r in rows}

    @property
    def baselines(self) -> dict[str, BestRecord]:
        """The baseline of every model seen so far, by model (first pinned first)."""
        return {
            m: self._record(r["run_id"], Config.from_json(r["config_json"]))
            for m, r in self._baseline_rows().items()
        }

    def baseline_for(self, model: str) -> BestRecord | None:
        """The baseline of ``model`` (None when no eval of that model was linked yet)."""
        row = self._baseline_rows().get(model)
        return self._record(row["run_id"], Config.from_json(row["config_json"])) if row else None

    def scope_reason(self, model: str | None) -> str | None:
        """Why an entry of ``model`` gets no delta in this experiment (None when it gets one)."""
        if self.model and model and model != self.model:
            return (
                f"experiment bound to model {self.model}: an entry of model {model} gets no "
                "delta (create the experiment with model=None to compare models)"
            )
        return None

    def pin_baseline(self, run: Any, config: Config | None = None) -> None:
        """Pin ``run`` (a Run or run id of this suite) as the baseline of its model; the best
        starts at it when there is none. Raises when the run is of another suite version, or of
        another model than the one the experiment is bound to."""
        run_id = run if isinstance(run, str) else run_label(run)
        if run_id is None:
            raise ExperimentError("pin_baseline needs a Run (or its run id)")
        loaded = Run.load(self.store.runs, run_id)
        fp = loaded.suite_fingerprint
        if fp is not None and fp != self.suite_fp:
            raise ExperimentError(
                f"run {run_id} is of another suite version (fingerprint {fp} ≠ "
                f"{self.suite_fp}); a baseline must be of this experiment's "
                "suite"
            )
        cfg = config or config_from_run(loaded)
        why = self.scope_reason(cfg.model)
        if why:
            raise ExperimentError(f"cannot pin run {run_id} as a baseline: {why}")
        self.store.upsert(
            "experiment_baselines",
            {
                "experiment_id": self.id,
                "model": cfg.model,
                "run_id": run_id,
                "config_json": cfg.to_json(),
                "pinned_at": time.time(),
            },
            ("experiment_id", "model"),
        )
        row = self._row()
        primary = (
            Config.from_json(row.get("baseline_config_json")).model
            if row.get("baseline_run_id")
            else None
        )
        if primary in (None, cfg.model):
            self.store.update(
                "experiments",
                {"id": self.id},
                baseline_run_id=run_id,
                baseline_config_json=cfg.to_json(),
            )
        if not row.get("best_config_json"):
            score, lo, hi = mean_ci(case_scores(self._frame([run_id]), self.metric)[0].to_numpy())
            self._set_best(
                cfg,
                run_id,
                score,
                lo,
                hi,
                0.0,
                source="baseline",
                confirmed=True,
                reason="baseline pinned",
                delta_prev=None,
            )

    # -- best ------------------------------------------------------------------------------------
    @property
    def best(self) -> BestRecord:
        """The best config so far (the baseline until something beats it beyond noise)."""
        row = self._row()
        if not row.get("best_config_json"):
            return BestRecord(
                config=Config(model=self.model or Config().model),
                run_id=None,
                source="none: no run yet",
            )
        return BestRecord(
            config=Config.from_json(row["best_config_json"]),
            run_id=row.get("best_run_id"),
            score=row.get("best_score"),
            ci_low=row.get("best_ci_low"),
            ci_high=row.get("best_ci_high"),
            delta=row.get("best_delta"),
            confirmed=bool(row.get("best_confirmed")),
            source=row.get("best_source") or "baseline",
        )

    def _set_best(
        self,
        cfg: Config,
        run_id: str | None,
        score: float | None,
        lo: float | None,
        hi: float | None,
        delta: float | None,
        *,
        source: str,
        confirmed: bool,
        reason: str,
        delta_prev: float | None,
    ) -> None:
        self.store.update(
            "experiments",
            {"id": self.id},
            best_config_json=cfg.to_json(),
            best_run_id=run_id,
            best_score=score,
            best_ci_low=lo,
            best_ci_high=hi,
            best_delta=delta,
            best_source=source,
            best_confirmed=int(confirmed),
        )
        self.store.insert(
            "experiment_best_history",
            {
                "experiment_id": self.id,
                "at": time.time(),
                "config_json": cfg.to_json(),
                "run_id": run_id,
                "score": score,
                "delta_vs_prev": delta_prev,
                "ci_low": lo,
                "ci_high": hi,
                "source": source,
                "reason": reason,
            },
        )

    def consider(
        self,
        config: Config,
        run_ids: list[str],
        *,
        source: str,
        reference: pd.DataFrame | None = None,
        confirmed: bool = True,
    ) -> tuple[bool, str]:
        """Apply the best rule to a candidate evaluated in ``run_ids``; returns (changed, why).

        ``reference`` are the current best config's results on the same cases when its own
        run does not cover them (a tuner's confirmation evaluates both). ``confirmed=False``
        (``promote="copy"``) records an unconfirmed best.
        """
        current = self.best
        if current.run_id is None:
            return False, "no baseline yet"
        why = self.scope_reason(config.model)
        if why:
            return False, why
        if config.key == current.config.key:
            return False, "same config as the current best"
        frame = self._frame(run_ids)
        ref = reference if reference is not None else self._frame([current.run_id])
        a = case_scores(ref, self.metric)[0]
        b = case_scores(frame, self.metric)[0]
        common = [c for c in b.index if c in a.index]
        if not common:
            return False, (
                "no case in common with the current best's run; evaluate both on the same split"
            )
        res = compare_scores(a.loc[common], b.loc[common])
        rule_ok = res.ci_low > 0 if self.best_rule == "ci" else res.delta > 0
        figure = (
            f"paired delta {res.delta:+.3f} [{res.ci_low:+.3f}, {res.ci_high:+.3f}] "
            f"on {res.n_common} cases ({res.method})"
        )
        if not rule_ok:
            return False, f"kept the best: {figure} does not pass best_rule={self.best_rule!r}"
        score, lo, hi = mean_ci(b.loc[common].to_numpy())
        delta = self.delta_vs_baseline(frame, config.model)
        label = "new best" if confirmed else "new (unconfirmed, selection-biased) best"
        self._set_best(
            config,
            run_ids[0],
            score,
            lo,
            hi,
            delta,
            source=source,
            confirmed=confirmed,
            reason=f"{label} from {source}: {figure}",
            delta_prev=res.delta,
        )
        return True, f"{label}: {figure}"

    def _common_with_baseline(
        self, frame: pd.DataFrame, model: str
    ) -> tuple[pd.Series, pd.Series] | None:
        """Per-case scores of the baseline of ``model`` and of ``frame`` on their common cases."""
        row = self._baseline_rows().get(model)
        if row is None:
            return None
        a = case_scores(self._frame([row["run_id"]]), self.metric)[0]
        b = case_scores(frame, self.metric)[0]
        common = [c for c in b.index if c in a.index]
        return (a.loc[common], b.loc[common]) if common else None

    def delta_vs_baseline(self, frame: pd.DataFrame, model: str) -> float | None:
        """Mean paired delta of ``frame`` vs the baseline of ``model`` on common cases."""
        pair = self._common_with_baseline(frame, model)
        return float(pair[1].mean() - pair[0].mean()) if pair else None

    def paired_vs_baseline(self, frame: pd.DataFrame, model: str) -> Any:
        """The paired comparison (:class:`~.stats.PairedResult`) of ``frame`` against the
        baseline of ``model`` on common cases; None without a baseline or common case."""
        pair = self._common_with_baseline(frame, model)
        return compare_scores(*pair) if pair else None

    def link_promoted(
        self,
        config: Config,
        run_ids: list[str],
        *,
        tuner: str,
        tuner_id: str,
        split_used: str,
        reference: pd.DataFrame | None = None,
        copy: bool = False,
    ) -> bool:
        """Link a tuner's promoted winner as a ``confirm`` entry and apply the best rule.

        ``copy=True`` (``promote="copy"``): the tuner's dev results are reused; the entry is
        ``selection_biased`` and a resulting best is unconfirmed. Returns whether best changed.
        """
        frame = self._frame(run_ids)
        scores = case_scores(frame, self.metric)[0]
        score, lo, hi = mean_ci(scores.to_numpy())
        entry = self._insert_entry(
            "confirm",
            run_ids[0],
            run_ids[0],
            config,
            self.suite_fp,
            split_used,
            len(scores),
            score,
            lo,
            hi,
            promoted_from=tuner_id,
            selection_biased=copy,
            note=COPY_NOTE if copy else None,
            extra={"run_ids": run_ids},
        )
        source = f"{tuner}:{tuner_id}" + (" (copy)" if copy else "")
        changed, why = self.consider(
            config, run_ids, source=source, reference=reference, confirmed=not copy
        )
        self._note(entry, why)
        print(f"{tuner.replace('_', ' ')} {tuner_id}: {why}")
        return changed
