"""Experiments: a pinned baseline, a timeline of linked runs and tuners, and a tracked best.

``te.experiment(name, suite=..., store=...)`` gets or creates the experiment in the run store.
Each entry is a run (``eval``, ``confirm``) or a tuner / report (``sweep``, ``prompt_tune``,
``judge``) linked to it. The first eval pins the baseline. ``best`` changes only when a
candidate's paired delta against the current best, on their common cases, has ``ci_low > 0``
(``best_rule="ci"``; ``"mean"`` accepts any positive delta); a tuner's dev-only figures never
qualify; every change is logged in ``experiment_best_history`` with its reason.

An experiment is bound to a suite fingerprint: a run of another suite version is linked with
``comparable=False`` and no delta, and the timeline says why. It may be bound to a model; if not,
each model gets its own baseline (its first eval) and every delta is computed against the
baseline of the entry's model (:mod:`.tracking`).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, Literal

from ..aio import run_sync
from ..display import mimebundle
from ..errors import ExperimentError
from ..runner.database import new_id
from ..runner.run import Run
from ..suite import Suite as SuiteModel
from .compare import case_scores, run_label
from .config import Config
from .display import html_table
from .evaluate import combine, config_from_run, evaluate_async, load_evaluation
from .judge.run import judge_report
from .split import Split, SplitName, split
from .stats import mean_ci
from .store import ExperimentStore, experiment_store
from .sweep.run import sweep
from .timeline import best_history_frame, timeline_frame
from .tracking import BestRecord, Tracking
from .tune.run import tune_prompt

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..suite import Suite

__all__ = ["BestRecord", "Experiment", "EntryKind", "experiment", "config_from_run"]

EntryKind = Literal["eval", "sweep", "prompt_tune", "judge", "confirm"]
BestRule = Literal["ci", "mean"]


class Experiment(Tracking):
    """One experiment (see the module docstring). Build it with :func:`experiment`."""

    def __init__(self, store: ExperimentStore, row: dict[str, Any], suite: Suite) -> None:
        self.store = store
        self.id: str = row["id"]
        self.name: str = row["name"]
        self.suite = suite
        self.suite_fp: str = row["suite_fp"]
        self.split = Split.model_validate_json(row["split_json"])
        self.model: str | None = row.get("model_scope")
        self.best_rule: BestRule = row.get("best_rule") or "ci"
        self.metric = "score"
        self._frames: dict[str, pd.DataFrame] = {}

    def __repr__(self) -> str:
        return (
            f"Experiment(name={self.name!r}, suite={self.suite.name!r}, "
            f"entries={len(self._entries())}, best={self.best.source!r})"
        )

    # -- rows ----------------------------------------------------------------------------------
    def _row(self) -> dict[str, Any]:
        row = self.store.one("experiments", {"id": self.id})
        assert row is not None
        return row

    def _entries(self) -> list[dict[str, Any]]:
        return self.store.select("experiment_entries", {"experiment_id": self.id}, order="id")

    def _frame(self, run_ids: list[str]) -> pd.DataFrame:
        key = ",".join(run_ids)
        if key not in self._frames:
            evals = [load_evaluation(self.store.runs, r) for r in run_ids]
            self._frames[key] = combine(evals)
        return self._frames[key]

    @staticmethod
    def _run_ids(entry: dict[str, Any]) -> list[str]:
        extra = json.loads(entry.get("extra_json") or "{}")
        ids = extra.get("run_ids") or ([entry["run_id"]] if entry.get("run_id") else [])
        return list(ids)

    # -- linking -------------------------------------------------------------------------------
    def link(
        self,
        run: Any,
        *,
        kind: EntryKind = "eval",
        config: Config | None = None,
        split_used: str = "all",
        note: str | None = None,
        promoted_from: str | None = None,
        consider: bool = True,
        source: str | None = None,
    ) -> int:
        """Link an existing run as an entry; the first eval pins the baseline.

        Returns the entry id. ``consider=False`` links without applying the best rule.
        """
        run_id = run if isinstance(run, str) else run_label(run)
        if run_id is None:
            raise ExperimentError("link needs a Run (or its run id)")
        loaded = Run.load(self.store.runs, run_id)
        cfg = config or config_from_run(loaded)
        fp = loaded.suite_fingerprint
        comparable = fp == self.suite_fp
        if not comparable:
            note = ((note + "; ") if note else "") + (
                f"run on another suite version (fingerprint {fp} ≠ {self.suite_fp}): no delta"
            )
        frame = self._frame([run_id])
        scores = case_scores(frame, self.metric)[0]
        score, lo, hi = mean_ci(scores.to_numpy())
        entry = self._insert_entry(
            kind,
            run_id,
            run_id,
            cfg,
            fp,
            split_used,
            len(scores),
            score,
            lo,
            hi,
            promoted_from=promoted_from,
            comparable=comparable,
            note=note,
        )
        if comparable and kind in ("eval", "confirm"):
            scope = self.scope_reason(cfg.model)
            had_best = bool(self._row().get("best_config_json"))
            if scope:
                self._note(entry, scope)
            elif cfg.model not in self._baseline_rows():
                self.pin_baseline(run_id, cfg)
                self._note(
                    entry,
                    f"first run of model {cfg.model}: pinned as its baseline"
                    if had_best
                    else "first run: pinned as baseline",
                )
            if not scope and had_best and consider:
                _, why = self.consider(cfg, [run_id], source=source or f"{kind}:{run_id}")
                self._note(entry, why)
        return entry

    def _insert_entry(
        self,
        kind: str,
        ref_id: str | None,
        run_id: str | None,
        cfg: Config | None,
        fp: str | None,
        split_used: str,
        n_cases: int | None,
        score: float | None,
        lo: float | None,
        hi: float | None,
        *,
        promoted_from: str | None = None,
        selection_biased: bool = False,
        comparable: bool = True,
        note: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> int:
        return self.store.insert(
            "experiment_entries",
            {
                "experiment_id": self.id,
                "kind": kind,
                "ref_id": ref_id,
                "run_id": run_id,
                "model": cfg.model if cfg else None,
                "config_json": cfg.to_json() if cfg else None,
                "suite_fp": fp,
                "split_used": split_used,
                "n_cases": n_cases,
                "score": score,
                "ci_low": lo,
                "ci_high": hi,
                "created_at": time.time(),
                "promoted_from": promoted_from,
                "selection_biased": int(selection_biased),
                "comparable": int(comparable),
                "note": note,
                "extra_json": extra,
            },
        )

    def _note(self, entry_id: int, text: str) -> None:
        row = self.store.one("experiment_entries", {"id": entry_id}) or {}
        old = row.get("note")
        self.store.update(
            "experiment_entries", {"id": entry_id}, note=f"{old}; {text}" if old else text
        )

    def link_tuner(
        self,
        kind: Literal["sweep", "prompt_tune"],
        ref_id: str,
        config: Config,
        run_ids: list[str],
        *,
        note: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> int:
        """Link a tuner's winner on dev (selection-biased: it never qualifies as best)."""
        frame = self._frame(run_ids) if run_ids else None
        score = lo = hi = None
        n = None
        if frame is not None and len(frame):
            s = case_scores(frame, self.metric)[0]
            score, lo, hi = mean_ci(s.to_numpy())
            n = len(s)
        return self._insert_entry(
            kind,
            ref_id,
            run_ids[0] if run_ids else None,
            config,
            self.suite_fp,
            "dev",
            n,
            score,
            lo,
            hi,
            selection_biased=True,
            note=note,
            extra={**(extra or {}), "run_ids": run_ids},
        )

    def link_judge(self, report: Any) -> int:
        """Link a judge report (its findings count and top failure mode)."""
        facts = report.facts
        modes = facts.failure_modes
        top = modes["failure_mode"].iloc[0] if len(modes) else None
        return self._insert_entry(
            "judge",
            report.id,
            report.run_id,
            None,
            self.suite_fp,
            "all",
            facts.summary.get("n_cases"),
            None,
            None,
            None,
            extra={"n_findings": len(report.findings_df()), "top_failure_mode": top},
        )

    # -- running -------------------------------------------------------------------------------
    async def run_async(
        self,
        config: Config | None = None,
        *,
        split: SplitName = "all",
        repeats: int = 1,
        seed: int = 0,
        suite: Suite | None = None,
        note: str | None = None,
        kind: EntryKind = "eval",
        promoted_from: str | None = None,
    ) -> Any:
        """Evaluate ``config`` (default: the best config) on a split and link the run."""
        if config is not None:
            cfg = config
        elif self._row().get("best_config_json"):
            cfg = self.best.config
        else:
            cfg = Config(model=self.model or Config().model)
        target = suite or self.suite
        ids = self.split.ids(split) if target is self.suite else None
        ev = await evaluate_async(
            target,
            cfg,
            ids,
            store=self.store.runs,
            repeats=repeats,
            base_seed=seed,
            name=f"{self.name}:{kind}",
        )
        self.link(
            ev.run_id,
            kind=kind,
            config=cfg,
            split_used=split,
            note=note,
            promoted_from=promoted_from,
        )
        return Run.load(self.store.runs, ev.run_id)

    def run(self, config: Config | None = None, **kwargs: Any) -> Any:
        """Sync twin of :meth:`run_async`; returns the Run."""
        return run_sync(self.run_async(config, **kwargs))

    async def run_best_async(
        self, split: SplitName = "holdout", repeats: int = 2, seed: int = 1000
    ) -> Any:
        """Re-run the best config (with its stored model) on ``split`` with fresh seeds."""
        best = self.best
        if best.run_id is None:
            raise ExperimentError(
                f"experiment {self.name!r} has no run yet: exp.run(te.Config()) first"
            )
        which: SplitName = split if self.split.ids(split) else "all"
        run = await self.run_async(
            best.config, split=which, repeats=repeats, seed=seed, note="run_best"
        )
        now = self.paired_vs_baseline(self._frame([run.id]), best.config.model)
        dev = self._tuner_estimate(best.source)
        step = "confirmation" if best.confirmed else "unconfirmed (dev, copy)"
        parts = [
            f"tuning estimate {dev:+.3f} (dev)" if dev is not None else "",
            f"{step} {best.delta:+.3f}" if best.delta is not None else "",
            f"now {now.delta:+.3f} ± {(now.ci_high - now.ci_low) / 2:.3f} ({which})"
            if now is not None
            else "",
        ]
        print(" → ".join(p for p in parts if p) or "best re-run")
        return run

    def run_best(self, split: SplitName = "holdout", repeats: int = 2, seed: int = 1000) -> Any:
        """Sync twin of :meth:`run_best_async`."""
        return run_sync(self.run_best_async(split, repeats, seed))

    def _tuner_estimate(self, source: str) -> float | None:
        ref = source.split(":", 1)[1].split(" ")[0] if ":" in source else None
        for entry in self._entries():
            if entry["kind"] in ("sweep", "prompt_tune") and entry["ref_id"] == ref:
                extra = json.loads(entry.get("extra_json") or "{}")
                return extra.get("dev_delta")
        return None

    # -- tuners --------------------------------------------------------------------------------
    def sweep(self, space: Any = None, **kwargs: Any) -> Any:
        """A parameter sweep from the best config, linked to this experiment."""
        return sweep(
            self.suite,
            base=self.best.config,
            space=space,
            split=self.split,
            store=self.store.runs,
            experiment=self,
            **kwargs,
        )

    def tune_prompt(self, **kwargs: Any) -> Any:
        """A prompt tune from the best config, linked to this experiment."""
        return tune_prompt(
            self.suite,
            base=self.best.config,
            split=self.split,
            store=self.store.runs,
            experiment=self,
            **kwargs,
        )

    def judge(self, run: Any, **kwargs: Any) -> Any:
        """A judge report on ``run``, linked to this experiment."""
        report = judge_report(run, store=self.store.runs, suite=self.suite, **kwargs)
        self.link_judge(report)
        return report

    # -- views -----------------------------------------------------------------------------------
    def timeline(self) -> pd.DataFrame:
        """One row per entry (columns :data:`~.timeline.TIMELINE_COLUMNS`), oldest first."""
        return timeline_frame(self)

    def open_entry(self, entry_id: int) -> Any:
        """What a timeline entry stands for: its Run (``eval``, ``confirm``), or as a DataFrame
        the trials of a sweep, the candidates of a prompt tune, the verdicts of a judge report."""
        import pandas as pd

        e = self.store.one("experiment_entries", {"id": int(entry_id), "experiment_id": self.id})
        if e is None:
            raise ExperimentError(
                f"experiment {self.name!r} has no entry {entry_id}: pick one "
                "of exp.timeline()['entry_id']"
            )
        if e["kind"] in ("eval", "confirm"):
            return Run.load(self.store.runs, e["run_id"])
        table, key = {
            "sweep": ("sweep_trials", "sweep_id"),
            "prompt_tune": ("prompt_candidates", "tune_id"),
            "judge": ("judge_verdicts", "report_id"),
        }[e["kind"]]
        return pd.DataFrame(self.store.select(table, {key: e["ref_id"]}, order="id"))

    def best_history(self) -> pd.DataFrame:
        """Every change of ``best``, with its reason."""
        return best_history_frame(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        def page() -> str:
            import html

            best = self.best
            head = (
                f"<b>Experiment {html.escape(self.name)}</b> — suite "
                f"{html.escape(self.suite.name)}, best: {html.escape(best.source)} "
                f"({html.escape(best.config.describe_diff(Config()))})"
            )
            return head + html_table(self.timeline().drop(columns=["created_at"]))

        return mimebundle(repr(self), page)


def experiment(
    name: str,
    suite: Suite | None = None,
    *,
    split: Split | None = None,
    model: str | None = None,
    store: Any = None,
    best_rule: BestRule = "ci",
    holdout: float = 0.3,
    seed: int = 0,
) -> Experiment:
    """Get the experiment ``name`` from the run store, or create it for ``suite``.

    Args:
        name: unique name in the store.
        suite: the suite (required to create; optional to reopen: the stored suite is used).
        split: dev / holdout split (default: ``te.split(suite, holdout, seed=seed)``).
        model: bind the experiment to one model (informative; deltas are per model anyway).
        store: the run store (path or Store; default as for runs).
        best_rule: ``"ci"`` (paired CI above 0) or ``"mean"`` (any positive delta).
        holdout: holdout share for the default split.
        seed: seed of the default split.
    """
    es = experiment_store(store)
    row = es.one("experiments", {"name": name})
    if row is None:
        if suite is None:
            raise ExperimentError(
                f"no experiment {name!r} in {es.path}: pass suite=... to create it"
            )
        sp = split or _default_split(suite, holdout, seed)
        row = {
            "id": new_id("exp"),
            "name": name,
            "suite_name": suite.name,
            "suite_fp": suite.fingerprint(),
            "split_json": sp.model_dump_json(),
            "model_scope": model,
            "best_rule": best_rule,
            "created_at": time.time(),
            "status": "active",
            "suite_json": suite.model_dump_json(),
        }
        es.insert("experiments", row)
        row = es.one("experiments", {"name": name})
        assert row is not None
    elif suite is None:
        suite = SuiteModel.model_validate_json(row["suite_json"])
    return Experiment(es, row, suite)


def _default_split(suite: Suite, holdout: float, seed: int) -> Split:
    if len([c for c in suite.cases if not c.draft]) < 4:
        return Split.whole(suite)
    return split(suite, holdout=holdout, seed=seed)
