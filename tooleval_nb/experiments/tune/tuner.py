"""The prompt tuner's state (:func:`~.prompt_tune.tune_prompt` drives it generation by generation).

A :class:`Tuner` holds the candidates of one tune, rejects the empty, over-long, leaking, duplicate
and near-duplicate ones with their reason, proposes a generation (the meta model, then the
deterministic operators) and races it on dev. A generation's candidates are written with its
``prompt_generations`` row in one transaction (:meth:`Tuner.commit`), so the store holds a
generation whole or not at all; :meth:`Tuner.restore` and :meth:`Tuner.replay` bring a stored tune
back, meta calls and meta failures included.
"""

from __future__ import annotations

import json
import math
import random
from typing import TYPE_CHECKING, Any

from ..config import Config, FewShot
from ..evaluate import combine
from ..llm_call import JsonCaller
from ..race import Arm, Racer
from ..split import Split
from .meta import META_SCHEMA, failure_feedback, meta_messages, parse_meta
from .operators import (
    OPERATORS,
    apply_operator,
    count_tokens,
    holdout_values,
    leaked_value,
    text_hash,
    trigram_similarity,
)
from .result import Candidate, PromptTune

if TYPE_CHECKING:  # pragma: no cover
    from ...suite import Suite

__all__ = ["Tuner", "lead_weights", "pareto"]


def pareto(cands: list[Candidate], metric: str, cap: int) -> list[Candidate]:
    """Candidates no other candidate beats on one case without losing on another."""
    import pandas as pd

    if not cands:
        return []
    table = pd.concat([c.dev_scores(metric) for c in cands], axis=1).fillna(0.0).to_numpy()
    front = []
    for i, c in enumerate(cands):
        col = table[:, i]
        dominated = any(
            (table[:, j] >= col).all() and (table[:, j] > col).any()
            for j in range(len(cands))
            if j != i
        )
        if not dominated:
            front.append((float(col.mean()), c))
    front.sort(key=lambda mc: (-mc[0], mc[1].id))
    return [c for _, c in front][:cap]


def lead_weights(front: list[Candidate], metric: str) -> list[float]:
    import pandas as pd

    table = pd.concat([c.dev_scores(metric) for c in front], axis=1)
    best = table.max(axis=1)
    return [1.0 + float((table.iloc[:, i] >= best - 1e-9).sum()) for i in range(len(front))]


class Tuner:
    """The state of one prompt tune: its candidates (filtered, stored a generation at a time),
    the meta model's failures, and one generation's proposal and race."""

    def __init__(
        self,
        suite: Suite,
        base: Config,
        sp: Split,
        tune_id: str,
        es: Any,
        racer: Racer,
        caller: JsonCaller | None,
        settings: dict[str, Any],
    ) -> None:
        self.suite, self.base, self.split, self.id, self.es = suite, base, sp, tune_id, es
        self.racer, self.caller, self.s = racer, caller, settings
        self.dev_cases = [suite.case(i) for i in sp.dev]
        self.holdout_vals = holdout_values(suite.case(i) for i in sp.holdout)
        self.dev_vals = holdout_values(self.dev_cases)
        self.cands: list[Candidate] = []
        self.meta_failures = 0
        #: candidates added but not yet written (see :meth:`commit`)
        self._pending: list[Candidate] = []
        #: stored generations: whether their meta call parsed (None: no meta call)
        self.proposed: dict[int, bool | None] = {}
        self.order = list(sp.dev)
        random.Random(settings["seed"]).shuffle(self.order)

    # -- candidates ----------------------------------------------------------------------------
    def add(
        self,
        gen: int,
        op: str,
        parents: list[int],
        text: str | None,
        shots: tuple[FewShot, ...] = (),
        rationale: str = "",
        check: bool = True,
    ) -> Candidate:
        cand = Candidate(
            id=len(self.cands),
            generation=gen,
            operator=op,
            parents=parents,
            text=text.strip() if isinstance(text, str) else None,
            few_shot=shots,
            rationale=rationale,
        )
        if check:
            cand.rejected_reason = self._reject_reason(cand)
        value = leaked_value(cand.text, (), self.dev_vals)
        cand.copies_dev_values = value is not None
        self.cands.append(cand)
        self._pending.append(cand)
        return cand

    def commit(self, gen: int, meta_parsed: bool | None) -> None:
        """Write generation ``gen``'s new candidates and its proposal row in one transaction."""
        row = {"tune_id": self.id, **self.generation_row(gen, meta_parsed)}
        self.es.upsert_many(
            [
                *(("prompt_candidates", self._row(c), ("tune_id", "id")) for c in self._pending),
                ("prompt_generations", row, ("tune_id", "generation")),
            ]
        )
        self._pending.clear()
        self.proposed[gen] = meta_parsed

    def generation_row(
        self,
        gen: int,
        meta_parsed: bool | None,
        best_dev_lcb: float | None = None,
        calls_used: int | None = None,
    ) -> dict[str, Any]:
        """Generation ``gen``'s ``prompt_generations`` row (without ``tune_id``): its candidates
        proposed and rejected, whether its meta call parsed, and (once raced) its figures."""
        gen_cands = [c for c in self.cands if c.generation == gen]
        return {
            "generation": gen,
            "n_proposed": len(gen_cands),
            "n_rejected": sum(c.rejected_reason is not None for c in gen_cands),
            "meta_parsed": meta_parsed,
            "best_dev_lcb": best_dev_lcb,
            "calls_used": calls_used,
        }

    def replay(self, gen: int) -> bool | None:
        """A stored generation's proposal, as the interrupted process made it: its meta call is
        charged again (once: the budget is the job's) and counts towards the meta failures."""
        parsed = self.proposed.get(gen)
        if parsed is not None:
            self.racer.tracker.charge(1)
            self.meta_failures = 0 if parsed else self.meta_failures + 1
        return parsed

    def _reject_reason(self, cand: Candidate) -> str | None:
        if not (cand.text or cand.few_shot):
            return "empty"
        if count_tokens(cand.full_text()) > self.s["max_prompt_tokens"]:
            return f"too_long: over {self.s['max_prompt_tokens']} tokens"
        leak = leaked_value(cand.text, cand.few_shot, self.holdout_vals)
        if leak is not None:
            return f"leakage: contains the holdout value {leak!r}"
        digest = text_hash(cand.text, cand.few_shot)
        ids = [s.case_id for s in cand.few_shot]
        for other in self.cands:
            if other.rejected_reason is not None:
                continue
            if text_hash(other.text, other.few_shot) == digest:
                return f"duplicate of c{other.id}"
            if [s.case_id for s in other.few_shot] == ids and trigram_similarity(
                other.text, cand.text
            ) >= 0.9:
                return f"near_duplicate of c{other.id}"
        return None

    def save_all(self) -> None:
        """Write every stored candidate's figures (one transaction)."""
        self.es.upsert_many(
            [("prompt_candidates", self._row(c), ("tune_id", "id")) for c in self.cands]
        )

    def _row(self, c: Candidate) -> dict[str, Any]:
        return {
            "tune_id": self.id,
            "id": c.id,
            "generation": c.generation,
            "operator": c.operator,
            "parent_ids_json": c.parents,
            "text": c.text,
            "text_hash": text_hash(c.text, c.few_shot),
            "few_shot_json": [s.model_dump() for s in c.few_shot],
            "rationale": c.rationale,
            "rejected_reason": c.rejected_reason,
            "dev_score": c.stats.get("dev_score"),
            "dev_lcb": c.stats.get("dev_lcb"),
            "holdout_score": c.stats.get("holdout_score"),
            "holdout_delta": c.stats.get("holdout_delta"),
            "on_front": int(c.on_front),
            "eliminated_at": c.eliminated_at,
            "extra_json": {"copies_dev_values": c.copies_dev_values},
        }

    def restore(self) -> int:
        """Reload stored candidates and generations; returns the next generation to propose
        (after the last stored generation, even one that stored no candidate)."""
        rows = self.es.select("prompt_candidates", {"tune_id": self.id}, order="id")
        for r in rows:
            shots = tuple(FewShot.model_validate(s) for s in json.loads(r["few_shot_json"] or "[]"))
            extra = json.loads(r["extra_json"] or "{}")
            self.cands.append(
                Candidate(
                    id=r["id"],
                    generation=r["generation"],
                    operator=r["operator"],
                    parents=json.loads(r["parent_ids_json"] or "[]"),
                    text=r["text"],
                    few_shot=shots,
                    rationale=r["rationale"] or "",
                    rejected_reason=r["rejected_reason"],
                    copies_dev_values=bool(extra.get("copies_dev_values")),
                )
            )
        for g in self.es.select("prompt_generations", {"tune_id": self.id}):
            parsed = g["meta_parsed"]
            self.proposed[g["generation"]] = None if parsed is None else bool(parsed)
        return max(self.proposed, default=-1) + 1

    # -- one generation ------------------------------------------------------------------------
    async def propose(self, gen: int, front: list[Candidate], result: PromptTune) -> bool | None:
        """Add and store generation ``gen``'s candidates; returns whether the meta call parsed
        (None when no meta call was made)."""
        rng = random.Random(f"{self.s['seed']}:{gen}")
        n = self.s["population"]
        leader = front[0] if front else result.base_candidate
        parsed = None
        text_asked: bool | None = None
        mode = self.s["operators"]
        if (
            self.caller is not None
            and mode in ("auto", "meta")
            and (mode == "meta" or self.meta_failures < 2)
            and self.racer.tracker.can_afford(1)
        ):
            history = [
                (c.text or "", c.stats.get("dev_score", 0.0))
                for c in self.cands
                if c.stats.get("dev_n")
            ]
            source = leader.dev or result.base_candidate.dev
            feedback = failure_feedback(_frame(source)) if source else []
            text, _ = await self.caller.ask(
                meta_messages(
                    self.suite,
                    history,
                    feedback,
                    max(1, math.ceil(n / 2)),
                    self.s["max_prompt_tokens"],
                ),
                META_SCHEMA,
                "prompts",
            )
            self.racer.tracker.charge(1)
            text_asked = True
            parsed = parse_meta(text)
            self.meta_failures = 0 if parsed else self.meta_failures + 1
            for prompt, why in (parsed or [])[:n]:
                self.add(gen, "meta", [leader.id], prompt, leader.few_shot, why)
        ops = [o for o in OPERATORS if o != "add_example" or self.s["search_few_shot"]]
        weights = lead_weights(front, self.racer.metric) if front else [1.0]
        pool = front or [result.base_candidate]
        k = 0
        while sum(c.generation == gen for c in self.cands) < n and (mode != "meta" or not parsed):
            op = ops[(gen + k) % len(ops)]
            k += 1
            parent = rng.choices(pool, weights=weights[: len(pool)])[0]
            other = rng.choice(pool) if len(pool) > 1 else None
            if op == "crossover" and (other is None or other is parent):
                op = "add_rule"
            text, shots = apply_operator(
                op,
                (parent.text, parent.few_shot),
                (other.text, other.few_shot) if other else None,
                rng=rng,
                mode=self.base.mode,
                suite=self.suite,
                dev_cases=self.dev_cases,
                max_tokens=self.s["max_prompt_tokens"],
            )
            parents = [parent.id] + ([other.id] if op == "crossover" and other else [])
            self.add(gen, op, parents, text, shots)
            if k > 5 * n:
                break
        meta_parsed = None if text_asked is None else bool(parsed)
        self.commit(gen, meta_parsed)
        return meta_parsed

    async def evaluate(self, gen: int, front: list[Candidate]) -> None:
        """Race this generation's accepted candidates with the front and the base on dev."""
        base = next(c for c in self.cands if c.operator == "base")
        todo = [
            base,
            *[c for c in front if c is not base],
            *[
                c
                for c in self.cands
                if c.generation == gen and c.rejected_reason is None and c is not base
            ],
        ]
        arms = [Arm(id=c.item_id, config=c.config(self.base), is_base=c is base) for c in todo]
        await self.racer.race(arms, self.order, batch=self.s["batch"])
        for cand, arm in zip(todo, arms, strict=True):
            cand.add_dev(arm.evals)
            if not arm.alive and cand.generation == gen:
                cand.eliminated_at = arm.eliminated_at


def _frame(evals: list[Any]) -> Any:
    return combine(evals)
