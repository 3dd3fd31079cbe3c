"""Candidates and the result of a prompt tune: tables, the holdout-confirmed winner, promotion.

``candidates_df()`` columns: ``cand_id, generation, operator, parent_ids, text, n_tokens,
few_shot_ids, rejected_reason, copies_dev_values, dev_n, dev_score, dev_ci_low, dev_ci_high,
dev_delta, dev_lcb, dev_delta_ci_high, on_front, eliminated_at, holdout_score, holdout_delta, holdout_ci_low,
holdout_ci_high, promoted``. ``dev_lcb`` is the lower bound of the paired delta against the base
prompt on dev (selection-biased); the holdout figures are the confirmation. With
``promote="copy"`` (exploration only) there is no confirmation: the winner is the best dev LCB
above 0, promoted on its dev results and flagged selection-biased.
"""

from __future__ import annotations

import difflib
import html
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...aio import run_sync
from ...display import mimebundle
from ..compare import case_scores, compare_scores
from ..config import Config, FewShot
from ..display import html_table
from ..evaluate import Evaluation, combine, evaluate_async, render_few_shot
from ..stats import mean_ci
from .operators import count_tokens

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Candidate", "PromptTune"]


@dataclass
class Candidate:
    """One prompt candidate (a system prompt and its few-shot examples)."""

    id: int
    generation: int
    operator: str
    parents: list[int]
    text: str | None
    few_shot: tuple[FewShot, ...] = ()
    rationale: str = ""
    rejected_reason: str | None = None
    copies_dev_values: bool = False
    eliminated_at: int | None = None
    on_front: bool = False
    dev: list[Evaluation] = field(default_factory=list)
    holdout: list[Evaluation] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)

    @property
    def item_id(self) -> str:
        return f"c{self.id}"

    def config(self, base: Config) -> Config:
        return base.merge(system_prompt=self.text, few_shot=self.few_shot)

    def add_dev(self, evals: list[Evaluation]) -> None:
        known = {e.run_id for e in self.dev}
        self.dev.extend(e for e in evals if e.run_id not in known)

    def dev_scores(self, metric: str = "score") -> pd.Series:
        import pandas as pd

        frame = combine(self.dev) if self.dev else None
        if frame is None or frame.empty:
            return pd.Series(dtype=float)
        return case_scores(frame, metric)[0]

    def holdout_scores(self, metric: str = "score") -> pd.Series:
        import pandas as pd

        frame = combine(self.holdout) if self.holdout else None
        if frame is None or frame.empty:
            return pd.Series(dtype=float)
        return case_scores(frame, metric)[0]

    def full_text(self) -> str:
        parts = [self.text or "", render_few_shot(self.few_shot)]
        return "\n\n".join(p for p in parts if p)


class PromptTune:
    """A finished prompt tune. Built by :func:`tooleval_nb.experiments.tune_prompt`."""

    def __init__(
        self,
        *,
        tune_id: str,
        base: Config,
        candidates: list[Candidate],
        generations: list[dict[str, Any]],
        n_dev: int,
        metric: str,
        seed: int,
        promote_if: str,
        racer: Any,
        store: Any,
        split: Any,
        suite: Any,
        promote_mode: str = "confirm",
        experiment: Any = None,
    ) -> None:
        self.id = tune_id
        self.base = base
        self.candidates = candidates
        self.generations = generations
        self.n_dev = n_dev
        self.metric = metric
        self.seed = seed
        self.promote_if = promote_if
        self.racer = racer
        self.store = store
        self.split = split
        self.suite = suite
        self.confirmed_id: int | None = None
        self.stop_reason: str | None = None
        #: ``"confirm"`` (holdout-confirmed winner) or ``"copy"`` (dev winner, unconfirmed)
        self.promote_mode = promote_mode
        #: the experiment the tune is linked to (``exp.tune_prompt``), else None
        self.experiment = experiment
        #: why no holdout confirmation ran (nothing beat the base on dev; the budget), else None
        self.confirm_note: str | None = None

    @property
    def calls_used(self) -> int:
        return self.racer.tracker.calls_used

    @property
    def base_candidate(self) -> Candidate:
        return next(c for c in self.candidates if c.operator == "base")

    # -- statistics ----------------------------------------------------------------------------
    def refresh_stats(self) -> None:
        """Dev and holdout figures of every candidate (paired against the base prompt)."""
        base_dev = self.base_candidate.dev_scores(self.metric)
        base_hold = self.base_candidate.holdout_scores(self.metric)
        for c in self.candidates:
            st: dict[str, float] = {}
            dev = c.dev_scores(self.metric)
            if len(dev):
                st["dev_n"] = len(dev)
                st["dev_score"], st["dev_ci_low"], st["dev_ci_high"] = mean_ci(dev.to_numpy())
                if c is self.base_candidate:
                    st["dev_delta"], st["dev_lcb"], st["dev_delta_ci_high"] = 0.0, 0.0, 0.0
                else:
                    res = compare_scores(base_dev, dev, seed=self.seed)
                    st["dev_delta"], st["dev_lcb"] = res.delta, res.ci_low
                    st["dev_delta_ci_high"] = res.ci_high
            hold = c.holdout_scores(self.metric)
            if len(hold) and len(base_hold):
                st["holdout_score"] = float(hold.mean())
                res = compare_scores(base_hold, hold, seed=self.seed)
                st["holdout_delta"], st["holdout_ci_low"], st["holdout_ci_high"] = (
                    res.delta,
                    res.ci_low,
                    res.ci_high,
                )
            c.stats = st

    def ranked(self) -> list[Candidate]:
        """Evaluated candidates on the full dev split, best dev LCB first (base excluded)."""
        full = [
            c
            for c in self.candidates
            if c.operator != "base"
            and c.rejected_reason is None
            and c.stats.get("dev_n", 0) >= self.n_dev
        ]
        return sorted(
            full,
            key=lambda c: (
                -c.stats.get("dev_lcb", -math.inf),
                -c.stats.get("dev_score", 0.0),
                c.id,
            ),
        )

    def passes(self, c: Candidate) -> bool:
        """Whether ``c`` passes ``promote_if`` on the holdout."""
        if self.promote_if == "always":
            return "holdout_delta" in c.stats or bool(c.dev)
        if "holdout_delta" not in c.stats:
            return False
        if self.promote_if == "holdout_mean>0":
            return c.stats["holdout_delta"] > 0
        return c.stats["holdout_ci_low"] > 0

    @property
    def winner(self) -> Candidate | None:
        """The confirmed candidate (None when nothing passed ``promote_if``); with
        ``promote="copy"``, the best dev LCB above 0 (None when none is)."""
        if self.confirmed_id is None:
            if self.promote_mode == "copy":
                return next((c for c in self.ranked() if c.stats.get("dev_lcb", 0.0) > 0), None)
            return None
        return next(c for c in self.candidates if c.id == self.confirmed_id)

    @property
    def best(self) -> Config:
        """The confirmed winner's config (the base config when nothing was confirmed)."""
        win = self.winner
        return win.config(self.base) if win is not None else self.base

    @property
    def message(self) -> str:
        win = self.winner
        if self.promote_mode == "copy":
            if win is None:
                return "no candidate beat the base prompt on dev beyond noise; .best is the base"
            return (
                f"c{win.id} ({win.operator}) chosen on dev only (promote='copy', not "
                f"confirmed on a holdout): dev delta {win.stats['dev_delta']:+.3f}, lower "
                f"bound {win.stats['dev_lcb']:+.3f}"
            )
        if win is None:
            if self.confirm_note:
                return (
                    f"{self.confirm_note}; so no candidate passed {self.promote_if}: .best "
                    "is the base prompt"
                )
            return f"no candidate passed {self.promote_if} on the holdout; .best is the base prompt"
        st = {
            k: win.stats.get(k, math.nan)
            for k in ("holdout_delta", "holdout_ci_low", "holdout_ci_high", "dev_delta")
        }
        return (
            f"c{win.id} ({win.operator}) confirmed: holdout delta "
            f"{st['holdout_delta']:+.3f} [{st['holdout_ci_low']:+.3f}, "
            f"{st['holdout_ci_high']:+.3f}] (dev estimate {st['dev_delta']:+.3f})"
        )

    # -- frames --------------------------------------------------------------------------------
    def candidates_df(self) -> pd.DataFrame:
        """One row per candidate, rejected ones included (see the module docstring)."""
        import pandas as pd

        rows = []
        win = self.winner
        for c in self.candidates:
            st = c.stats
            rows.append(
                {
                    "cand_id": c.id,
                    "generation": c.generation,
                    "operator": c.operator,
                    "parent_ids": list(c.parents),
                    "text": c.text,
                    "n_tokens": count_tokens(c.full_text()),
                    "few_shot_ids": [s.case_id for s in c.few_shot],
                    "rejected_reason": c.rejected_reason,
                    "copies_dev_values": c.copies_dev_values,
                    "dev_n": st.get("dev_n", 0),
                    **{
                        k: st.get(k, math.nan)
                        for k in (
                            "dev_score",
                            "dev_ci_low",
                            "dev_ci_high",
                            "dev_delta",
                            "dev_lcb",
                            "dev_delta_ci_high",
                        )
                    },
                    "on_front": c.on_front,
                    "eliminated_at": c.eliminated_at,
                    **{
                        k: st.get(k, math.nan)
                        for k in (
                            "holdout_score",
                            "holdout_delta",
                            "holdout_ci_low",
                            "holdout_ci_high",
                        )
                    },
                    "promoted": win is not None and c.id == win.id,
                }
            )
        return pd.DataFrame(rows)

    def generations_df(self) -> pd.DataFrame:
        """``generation, n_proposed, n_rejected, meta_parsed, best_dev_lcb, calls_used``."""
        import pandas as pd

        return pd.DataFrame(
            self.generations,
            columns=[
                "generation",
                "n_proposed",
                "n_rejected",
                "meta_parsed",
                "best_dev_lcb",
                "calls_used",
            ],
        )

    def case_matrix_df(self) -> pd.DataFrame:
        """Long format candidate × dev case: ``cand_id, case_id, score, base_score, change``
        (``fixed`` / ``broken`` / ``same`` against the base prompt)."""
        import pandas as pd

        base = self.base_candidate.dev_scores(self.metric)
        rows = []
        for c in self.candidates:
            for case_id, score in c.dev_scores(self.metric).items():
                ref = base.get(case_id, math.nan)
                change = (
                    "same"
                    if ref != ref or abs(score - ref) < 1e-9
                    else "fixed"
                    if score > ref
                    else "broken"
                )
                rows.append(
                    {
                        "cand_id": c.id,
                        "case_id": case_id,
                        "score": float(score),
                        "base_score": float(ref),
                        "change": change,
                    }
                )
        return pd.DataFrame(rows, columns=["cand_id", "case_id", "score", "base_score", "change"])

    def diff(self) -> str:
        """An HTML diff of the best prompt (with its examples) against the base prompt."""
        base = self.base_candidate.full_text().splitlines()
        win = self.winner
        best = (win.full_text() if win else self.base_candidate.full_text()).splitlines()
        return difflib.HtmlDiff(wrapcolumn=70).make_table(base, best, "base", "best")

    # -- promotion -----------------------------------------------------------------------------
    def promote(self, experiment: Any, mode: str | None = None) -> bool:
        """Merge the winning prompt into the experiment's best config and apply its rule.

        ``mode``: ``"confirm"`` (the holdout-confirmed winner and its holdout results) or
        ``"copy"`` (the dev winner on its dev results; selection-biased, unconfirmed); default
        the tune's ``promote`` setting.
        """
        return run_sync(self.promote_async(experiment, mode))

    async def promote_async(self, exp: Any, mode: str | None = None) -> bool:
        copy = (mode or self.promote_mode) == "copy"
        win = (
            self.winner
            if not copy or self.promote_mode == "copy"
            else next((c for c in self.ranked() if c.stats.get("dev_lcb", 0.0) > 0), None)
        )
        if win is None:
            print(f"prompt tune {self.id}: nothing to promote ({self.message})")
            return False
        if not copy and not win.holdout:
            print(
                f"prompt tune {self.id}: c{win.id} was not confirmed on a holdout; use "
                "promote(exp, mode='copy') to promote it on its dev results"
            )
            return False
        evals, ref = (
            (win.dev, self.base_candidate.dev)
            if copy
            else (win.holdout, self.base_candidate.holdout)
        )
        ids = self.split.ids("dev" if copy else "holdout")
        current = exp.best.config
        cand = current.merge(system_prompt=win.text, few_shot=win.few_shot)
        reference = None
        if cand.key == win.config(self.base).key:
            run_ids = [e.run_id for e in evals]
            if current.key == self.base.key:
                reference = combine(ref)
        else:
            ev = await evaluate_async(
                self.suite,
                cand,
                ids,
                store=self.store.runs,
                repeats=self.racer.repeats,
                base_seed=self.seed + (0 if copy else 1000),
                name=f"{self.id}:promote",
            )
            run_ids = [ev.run_id]
        return exp.link_promoted(
            cand,
            run_ids,
            tuner="prompt_tune",
            tuner_id=self.id,
            split_used="dev" if copy else "holdout",
            reference=reference,
            copy=copy,
        )

    def link(self, exp: Any) -> int:
        lead = self.winner or (self.ranked()[0] if self.ranked() else self.base_candidate)
        return exp.link_tuner(
            "prompt_tune",
            self.id,
            lead.config(self.base),
            [e.run_id for e in lead.dev],
            note=self.message,
            extra={"dev_delta": lead.stats.get("dev_delta")},
        )

    # -- display -------------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (
            f"PromptTune(id={self.id!r}, candidates={len(self.candidates)}, "
            f"generations={len(self.generations)}, calls={self.calls_used}, "
            f"promoted={self.confirmed_id})"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        def page() -> str:
            cols = [
                "cand_id",
                "generation",
                "operator",
                "text",
                "rejected_reason",
                "dev_score",
                "dev_lcb",
                "holdout_delta",
                "holdout_ci_low",
                "promoted",
            ]
            return (
                f"<b>Prompt tune {html.escape(self.id)}</b>: {html.escape(self.message)}"
                + html_table(self.candidates_df()[cols])
                + self.diff()
            )

        return mimebundle(f"{self!r}\n{self.message}", page)
