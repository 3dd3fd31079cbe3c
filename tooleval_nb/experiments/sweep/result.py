"""The result of a sweep: trial, case and effect tables, the LCB winner, confirmation, promotion.

Columns of :meth:`Sweep.trials_df`: ``trial_id``, one column per swept key, ``canonical_key,
run_id, n_cases, n_samples, score, ci_low, ci_high, delta, delta_ci_low, delta_ci_high, p_value,
p_holm, significant, eliminated_at, pass_rate, latency_p50_ms, tokens_out_mean, errors, status,
is_base, n_changed``. ``delta`` is paired against the base trial on common dev cases;
``significant`` means it beats the base beyond noise (``p_holm < alpha`` and ``delta_ci_low > 0``).
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from ...aio import run_sync
from ...display import mimebundle
from ...errors import ExperimentError
from ..compare import case_scores, compare_scores
from ..config import Config
from ..display import html_table
from ..evaluate import combine, evaluate_async
from ..stats import describe_mde, holm, mde, mean_ci
from ..tracking import PromoteMode
from .effects import effects_frame

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ...suite import Suite
    from ..race import Arm

__all__ = ["Sweep"]

#: columns of :meth:`Sweep.confirm`'s frame
CONFIRM_COLUMNS = [
    "trial_id",
    "config_diff",
    "is_base",
    "n_cases",
    "score",
    "ci_low",
    "ci_high",
    "delta",
    "delta_ci_low",
    "delta_ci_high",
    "p_value",
    "confirmed",
    "run_id",
]


class Sweep:
    """A finished (or budget-stopped) sweep. Built by :func:`tooleval_nb.experiments.sweep`."""

    def __init__(
        self,
        *,
        sweep_id: str,
        suite: Suite,
        base: Config,
        space: Any,
        strategy: str,
        arms: list[Arm],
        split: Any,
        on: str,
        select: str,
        alpha: float,
        seed: int,
        metric: str,
        repeats: int,
        racer: Any,
        store: Any,
        expansion: Any,
        budget: Any,
        grid_calls: int,
        experiment: Any = None,
    ) -> None:
        self.id = sweep_id
        self.suite = suite
        self.base = base
        self.space = space
        self.strategy = strategy
        self.arms = arms
        self.split = split
        self.on = on
        self.select = select
        self.alpha = alpha
        self.seed = seed
        self.metric = metric
        self.repeats = repeats
        self.racer = racer
        self.store = store
        self.expansion = expansion
        self.budget = budget
        self.grid_calls = grid_calls
        self.experiment = experiment
        #: the holdout confirmation (:meth:`confirm`); empty when no trial beat the base on dev
        #: (nothing to confirm); None before it ran or when the budget could not pay for it
        self.confirmation: pd.DataFrame | None = None
        #: why no holdout confirmation ran although one was asked for (nothing beat the base on
        #: dev), else None
        self.confirm_note: str | None = None
        self._trials: pd.DataFrame | None = None

    # -- figures -------------------------------------------------------------------------------
    @property
    def calls_used(self) -> int:
        return self.racer.tracker.calls_used

    @property
    def stop_reason(self) -> str | None:
        return self.racer.stop_reason

    @property
    def base_arm(self) -> Arm:
        return next(a for a in self.arms if a.is_base)

    def trials_df(self) -> pd.DataFrame:
        """One row per trial (see the module docstring)."""
        import pandas as pd

        if self._trials is not None:
            return self._trials.copy()
        base_scores = self.base_arm.scores(self.metric)
        rows = []
        for arm in self.arms:
            scores = arm.scores(self.metric)
            frame = arm.frame()
            score, lo, hi = mean_ci(scores.to_numpy()) if len(scores) else (math.nan,) * 3
            rec: dict[str, Any] = {
                "trial_id": arm.id,
                **arm.info.get("params", {}),
                "canonical_key": arm.config.key,
                "run_id": arm.run_ids[0] if arm.run_ids else None,
                "n_cases": len(scores),
                "n_samples": int(frame["sample"].nunique()) if len(frame) else 0,
                "score": score,
                "ci_low": lo,
                "ci_high": hi,
            }
            if arm.is_base or not len(scores):
                rec.update(
                    delta=0.0 if arm.is_base else math.nan,
                    delta_ci_low=0.0 if arm.is_base else math.nan,
                    delta_ci_high=0.0 if arm.is_base else math.nan,
                    p_value=math.nan,
                    mde80=math.nan,
                )
            else:
                res = compare_scores(base_scores, scores, seed=self.seed, ci=1 - self.alpha)
                rec.update(
                    delta=res.delta,
                    delta_ci_low=res.ci_low,
                    delta_ci_high=res.ci_high,
                    p_value=res.p_value,
                    mde80=res.mde80,
                )
            lat = frame["latency_ms"].dropna() if len(frame) else frame
            rec.update(
                eliminated_at=arm.eliminated_at,
                pass_rate=float(frame["passed"].astype(float).mean()) if len(frame) else math.nan,
                latency_p50_ms=float(lat.median()) if len(lat) else math.nan,
                tokens_out_mean=float(frame["completion_tokens"].astype(float).mean())
                if len(frame) and frame["completion_tokens"].notna().any()
                else math.nan,
                errors=int(frame["error"].notna().sum()) if len(frame) else 0,
                status="base"
                if arm.is_base
                else (
                    "eliminated" if not arm.alive else ("not run" if not len(scores) else "alive")
                ),
                is_base=arm.is_base,
                n_changed=len(arm.config.diff(self.base)),
            )
            rows.append(rec)
        df = pd.DataFrame(rows)
        df["p_holm"] = holm(df["p_value"].tolist())
        df["significant"] = (df["p_holm"] < self.alpha) & (df["delta_ci_low"] > 0)
        lead = [
            "trial_id",
            *self.space.keys,
            "canonical_key",
            "run_id",
            "n_cases",
            "n_samples",
            "score",
            "ci_low",
            "ci_high",
            "delta",
            "delta_ci_low",
            "delta_ci_high",
            "p_value",
            "p_holm",
            "significant",
            "eliminated_at",
            "pass_rate",
            "latency_p50_ms",
            "tokens_out_mean",
            "errors",
            "status",
            "is_base",
            "n_changed",
            "mde80",
        ]
        self._trials = df[lead]
        return self._trials.copy()

    def cases_df(self) -> pd.DataFrame:
        """Long format: ``trial_id, case_id, sample, seed, score, passed, failure_mode,
        latency_ms, run_id``."""
        import pandas as pd

        parts = []
        for arm in self.arms:
            frame = arm.frame()
            if len(frame):
                parts.append(
                    pd.DataFrame(
                        {
                            "trial_id": arm.id,
                            "case_id": frame["case_id"],
                            "sample": frame["sample"],
                            "seed": frame["seed"],
                            "score": frame["overall"].astype(float).fillna(0.0),
                            "passed": frame["passed"].astype(bool),
                            "failure_mode": frame["failure_mode"],
                            "latency_ms": frame["latency_ms"],
                            "run_id": frame["run_id"],
                        }
                    )
                )
        cols = [
            "trial_id",
            "case_id",
            "sample",
            "seed",
            "score",
            "passed",
            "failure_mode",
            "latency_ms",
            "run_id",
        ]
        return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)

    def effects_df(self) -> pd.DataFrame:
        """Per swept key and value: its marginal effect against the base config's value (see
        :func:`tooleval_nb.experiments.effects.effects_frame`)."""
        return effects_frame(
            self.arms,
            self.space.keys,
            self.base,
            metric=self.metric,
            seed=self.seed,
            alpha=self.alpha,
        )

    def effects_summary(self) -> str:
        """E.g. ``"tool_choice=required +0.45 ± 0.12; temperature: no detectable effect"``."""
        eff = self.effects_df()
        parts = []
        for key in self.space.keys:
            part = eff[(eff["param"] == key) & eff["detectable"]]
            if part.empty:
                parts.append(f"{key}: no detectable effect")
            for _, r in part.iterrows():
                parts.append(
                    f"{key}={r['value']} {r['delta']:+.2f} ± {(r['ci_high'] - r['ci_low']) / 2:.2f}"
                )
        return "; ".join(parts)

    def best_set_df(self) -> pd.DataFrame:
        """Trials not significantly worse than the leader (highest dev score)."""
        df = self.trials_df()
        ran = df[df["n_cases"] > 0]
        leader = self.arms[int(ran["score"].idxmax())]
        keep = []
        for arm in self.arms:
            if not len(arm.scores()):
                continue
            res = compare_scores(
                leader.scores(self.metric),
                arm.scores(self.metric),
                seed=self.seed,
                ci=1 - self.alpha,
            )
            if arm is leader or res.ci_high >= 0:
                keep.append(arm.id)
        return df[df["trial_id"].isin(keep)].reset_index(drop=True)

    def ranking(self) -> list[str]:
        """Trial ids, best first, by the selection rule (the base last among equals)."""
        df = self.trials_df()
        df = df[(df["n_cases"] > 0) & ~df["is_base"]].copy()
        df["lat"] = df["latency_p50_ms"].fillna(np.inf)
        if self.select == "mean":
            df = df.sort_values(["delta", "n_changed", "lat"], ascending=[False, True, True])
        elif self.select == "simplest":
            df = df.sort_values(
                ["significant", "n_changed", "delta_ci_low", "lat"],
                ascending=[False, True, False, True],
            )
        else:
            df = df.sort_values(
                ["significant", "delta_ci_low", "n_changed", "lat"],
                ascending=[False, False, True, True],
            )
        return list(df["trial_id"])

    @property
    def best_trial(self) -> Arm:
        """The selected trial (the base when nothing beats it beyond noise)."""
        df = self.trials_df().set_index("trial_id")
        for tid in self.ranking():
            row = df.loc[tid]
            ok = row["delta"] > 0 if self.select == "mean" else bool(row["significant"])
            if ok:
                return next(a for a in self.arms if a.id == tid)
        return self.base_arm

    @property
    def best(self) -> Config:
        """The winner's config (the base config when nothing beats it beyond noise)."""
        return self.best_trial.config

    @property
    def message(self) -> str:
        """The verdict in one sentence."""
        best = self.best_trial
        df = self.trials_df().set_index("trial_id")
        if best.is_base:
            mdes = df["mde80"].dropna()
            value = float(mdes.median()) if len(mdes) else mde(max(1, df["n_cases"].max()), 0.5)
            return (
                "no configuration beat the baseline beyond noise; MDE at this suite size "
                f"{describe_mde(value)}; .best is the base config"
            )
        row = df.loc[best.id]
        return (
            f"best {best.id}: {best.config.describe_diff(self.base)}: "
            f"{row['delta']:+.3f} [{row['delta_ci_low']:+.3f}, {row['delta_ci_high']:+.3f}]"
            f" vs base on {int(row['n_cases'])} {self.on} cases (p_holm={row['p_holm']:.3g})"
        )

    # -- confirmation and promotion --------------------------------------------------------------
    async def try_confirm(
        self,
        top_k: int = 3,
        split: str = "holdout",
        repeats: int = 2,
        seed_offset: int = 1000,
        *,
        only_if_better: bool = False,
    ) -> tuple[pd.DataFrame | None, str | None]:
        """Confirm as :meth:`confirm` does; ``(None, why)`` instead of an exception when the
        budget cannot pay for the confirmation (then no holdout call is made at all). With
        ``only_if_better`` (auto-promotion, :meth:`promote`) and no trial that beat the base on
        dev, there is nothing to confirm: an empty frame, no holdout call, and the reason in
        :attr:`confirm_note`."""
        import pandas as pd

        if only_if_better and self.best_trial.is_base:
            self.confirm_note = (
                f"nothing to confirm: no trial beat the base config on {self.on} beyond noise"
            )
            self.confirmation = pd.DataFrame(columns=CONFIRM_COLUMNS)
            return self.confirmation, None
        self.confirm_note = None  # asked for: whatever an earlier call said no longer holds
        ids = self.split.ids(split)
        if not ids:
            raise ExperimentError(
                f"the split has no {split} cases to confirm on: build it with "
                "te.split(suite, holdout=0.3) (or confirm(split='dev') for "
                "fresh seeds only)"
            )
        picks = [a for a in self.arms if a.id in self.ranking()[:top_k]]
        todo = [self.base_arm, *picks]
        dev_repeats = self.racer.repeats
        self.racer.repeats = repeats
        try:
            need = self.racer.need(todo, 0, split, len(ids))
            if need and not self.racer.tracker.can_afford(need):
                return None, (
                    f"budget: confirming {len(todo)} trials on {len(ids)} {split} "
                    f"cases {self.racer.shortfall(need)}"
                )
            for arm in todo:
                ev = await self.racer.cell(arm, 0, split, ids, seed=self.seed + seed_offset)
                if ev is None:
                    return None, (
                        f"budget spent before confirming trial {arm.id} (it "
                        f"{self.racer.shortfall(self.racer.cost(arm, len(ids)))})"
                    )
                arm.holdout = [ev]
        finally:
            self.racer.repeats = dev_repeats
        base = _scores(self.base_arm.holdout, self.metric)
        rows = []
        for arm in todo:
            scores = _scores(arm.holdout, self.metric)
            score, lo, hi = mean_ci(scores.to_numpy())
            res = compare_scores(base, scores, seed=self.seed)
            rows.append(
                {
                    "trial_id": arm.id,
                    "config_diff": arm.config.describe_diff(self.base),
                    "is_base": arm.is_base,
                    "n_cases": len(scores),
                    "score": score,
                    "ci_low": lo,
                    "ci_high": hi,
                    "delta": res.delta,
                    "delta_ci_low": res.ci_low,
                    "delta_ci_high": res.ci_high,
                    "p_value": res.p_value,
                    "confirmed": (not arm.is_base) and res.ci_low > 0,
                    "run_id": arm.holdout[0].run_id,
                }
            )
        self.confirmation = pd.DataFrame(rows, columns=CONFIRM_COLUMNS)
        self.save()
        return self.confirmation, None

    async def confirm_async(
        self,
        top_k: int = 3,
        split: str = "holdout",
        repeats: int = 2,
        seed_offset: int = 1000,
        *,
        only_if_better: bool = False,
    ) -> pd.DataFrame:
        """Evaluate the top trials and the base on ``split`` with fresh seeds (see
        :meth:`confirm`); raises :class:`ExperimentError` when the budget cannot pay for it."""
        frame, why = await self.try_confirm(
            top_k, split, repeats, seed_offset, only_if_better=only_if_better
        )
        if frame is None:
            raise ExperimentError(
                f"sweep {self.id}: not confirmed: {why}; pass a larger "
                "te.Budget(calls=...) to te.sweep"
            )
        return frame

    def confirm(self, top_k: int = 3, split: str = "holdout", repeats: int = 2) -> pd.DataFrame:
        """Confirm the top ``top_k`` trials and the base on the holdout with fresh seeds.

        Returns one row per evaluated trial: ``trial_id, config_diff, is_base, n_cases, score,
        ci_low, ci_high, delta, delta_ci_low, delta_ci_high, p_value, confirmed, run_id``.
        """
        return run_sync(self.confirm_async(top_k, split, repeats))

    def promote(self, experiment: Any, mode: PromoteMode = "confirm") -> bool:
        """Hand the winner to ``experiment``: its swept keys are merged into the experiment's
        best config, linked as a ``confirm`` entry, and the best rule decides.

        ``mode="confirm"`` (default) promotes the trial confirmed on the holdout (running
        :meth:`confirm` first if needed). ``mode="copy"`` reuses the dev results of ``.best``
        without a holdout (exploration only): the entry is flagged ``selection_biased`` and a
        resulting best is unconfirmed.
        """
        return run_sync(self.promote_async(experiment, mode))

    async def promote_async(self, exp: Any, mode: PromoteMode = "confirm") -> bool:
        """Async twin of :meth:`promote`."""
        copy = mode == "copy"
        if copy:
            arm = self.best_trial
            if arm.is_base:
                print(f"sweep {self.id}: nothing to promote, {self.message}")
                return False
            evals, ref_evals, ids = arm.evals, self.base_arm.evals, self.split.ids(self.on)
        else:
            if self.confirmation is None:
                await self.confirm_async(only_if_better=True)
            conf = self.confirmation
            assert conf is not None
            if conf.empty:  # nothing to confirm (see try_confirm)
                print(f"sweep {self.id}: nothing to confirm or promote, {self.message}")
                return False
            winners = conf[conf["confirmed"]].sort_values("delta_ci_low", ascending=False)
            if winners.empty:
                print(
                    f"sweep {self.id}: nothing to promote, no trial beat the base on the "
                    "holdout beyond noise"
                )
                return False
            arm = next(a for a in self.arms if a.id == winners.iloc[0]["trial_id"])
            evals, ref_evals, ids = arm.holdout, self.base_arm.holdout, self.split.ids("holdout")
        current = exp.best.config
        cand = current.merge(**{k: arm.config.get(k) for k in self.space.keys}).canonical()
        reference = None
        if cand.key == arm.config.key:
            run_ids = [e.run_id for e in evals]
            if current.canonical().key == self.base.key:
                reference = combine(ref_evals)
        else:
            ev = await evaluate_async(
                self.suite,
                cand,
                ids,
                store=self.store.runs,
                repeats=self.repeats,
                base_seed=self.seed + (0 if copy else 1000),
                name=f"{self.id}:promote",
            )
            run_ids = [ev.run_id]
        return exp.link_promoted(
            cand,
            run_ids,
            tuner="sweep",
            tuner_id=self.id,
            split_used=self.on if copy else "holdout",
            reference=reference,
            copy=copy,
        )

    # -- persistence and display ---------------------------------------------------------------
    def save(self) -> None:
        """Write the trials and the sweep's status to the store."""
        df = self.trials_df()
        for arm, (_, row) in zip(self.arms, df.iterrows(), strict=True):
            self.store.upsert(
                "sweep_trials",
                {
                    "sweep_id": self.id,
                    "id": int(arm.id[1:]),
                    "params_json": arm.info["params"],
                    "config_json": arm.config.to_json(),
                    "canonical_key": arm.config.key,
                    "is_base": int(arm.is_base),
                    "status": row["status"],
                    "eliminated_at_case": arm.eliminated_at,
                    **{
                        k: _f(row[k])
                        for k in (
                            "score",
                            "ci_low",
                            "ci_high",
                            "delta",
                            "delta_ci_low",
                            "delta_ci_high",
                            "p_value",
                            "p_holm",
                        )
                    },
                },
                ("sweep_id", "id"),
            )
        self.store.update(
            "sweeps",
            {"id": self.id},
            status="completed",
            best_trial_id=int(self.best_trial.id[1:]),
            calls_used=self.calls_used,
            message=self.message,
            finished_at=time.time(),
        )

    def link(self, exp: Any) -> int:
        """Link this sweep to an experiment (one selection-biased ``sweep`` row)."""
        best = self.best_trial
        row = self.trials_df().set_index("trial_id").loc[best.id]
        return exp.link_tuner(
            "sweep",
            self.id,
            best.config,
            best.run_ids,
            note=self.message,
            extra={"dev_delta": _f(row["delta"])},
        )

    def __repr__(self) -> str:
        return (
            f"Sweep(id={self.id!r}, strategy={self.strategy!r}, trials={len(self.arms)}, "
            f"calls={self.calls_used}, best={self.best!r})"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        def page() -> str:
            import html

            table = html_table(self.trials_df())
            return (
                f"<b>Sweep {self.id}</b> ({html.escape(self.strategy)}, "
                f"{self.calls_used} calls; stop: {html.escape(str(self.stop_reason))})<br>"
                f"{html.escape(self.message)}{table}"
            )

        return mimebundle(f"{self!r}\n{self.message}", page)


def _f(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) else out


def _scores(evals: list[Any], metric: str) -> pd.Series:
    return case_scores(combine(evals), metric)[0]
