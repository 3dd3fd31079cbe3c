"""``te.tune_prompt``: search system prompts (and few-shot examples) on dev, confirm on holdout.

1. The base prompt, no system prompt and :data:`DEFAULT_SYSTEM_PROMPT` are always scored.
2. Each generation proposes candidates from the meta model (one JSON call with past prompts and
   failure feedback) and from deterministic operators (:mod:`.operators`), so a tiny meta model
   that writes junk still makes progress; with ``operators="auto"`` the meta model is dropped
   after two failed calls in a row.
3. Filters reject empty, over-long, duplicate, near-duplicate and *leaking* candidates (holdout
   values), each with its reason.
4. Candidates race over the dev cases against the base prompt (never dropped); parents come from
   the Pareto front of per-case dev scores, weighted by the cases each leads.
5. It stops on the budget, after ``patience`` generations without a better dev LCB, when every
   dev case is solved, or after ``generations``.
6. The top ``confirm_top_k`` and the base are evaluated once on the holdout (fresh seeds);
   ``promote_if`` decides which candidate is confirmed.

Stored in ``prompt_tunes``, ``prompt_candidates`` and ``prompt_generations``; calling it again with
the same arguments resumes it.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ExperimentError
from .budget import Budget
from .config import Config, FewShot
from .llm_call import JsonCaller
from .meta import META_SCHEMA, failure_feedback, meta_messages, parse_meta
from .operators import (
    DEFAULT_SYSTEM_PROMPT,
    OPERATORS,
    apply_operator,
    count_tokens,
    holdout_values,
    leaked_value,
    text_hash,
    trigram_similarity,
)
from .prompt_tune_result import Candidate, PromptTune
from .race import Arm, Racer
from .split import Split
from .store import experiment_store, new_id
from .sweep_result import PromoteMode

if TYPE_CHECKING:  # pragma: no cover
    from ..suite import Suite

__all__ = ["tune_prompt", "tune_prompt_async"]

PromoteIf = Literal["holdout_ci_low>0", "holdout_mean>0", "always"]


def _pareto(cands: list[Candidate], metric: str, cap: int) -> list[Candidate]:
    """Candidates no other candidate beats on one case without losing on another."""
    import pandas as pd

    if not cands:
        return []
    table = pd.concat([c.dev_scores(metric) for c in cands], axis=1).fillna(0.0).to_numpy()
    front = []
    for i, c in enumerate(cands):
        col = table[:, i]
        dominated = any((table[:, j] >= col).all() and (table[:, j] > col).any()
                        for j in range(len(cands)) if j != i)
        if not dominated:
            front.append((float(col.mean()), c))
    front.sort(key=lambda mc: (-mc[0], mc[1].id))
    return [c for _, c in front][:cap]


def _weights(front: list[Candidate], metric: str) -> list[float]:
    import pandas as pd

    table = pd.concat([c.dev_scores(metric) for c in front], axis=1)
    best = table.max(axis=1)
    return [1.0 + float((table.iloc[:, i] >= best - 1e-9).sum()) for i in range(len(front))]


class _Tuner:
    def __init__(self, suite: Suite, base: Config, sp: Split, tune_id: str, es: Any,
                 racer: Racer, caller: JsonCaller | None, settings: dict[str, Any]) -> None:
        self.suite, self.base, self.split, self.id, self.es = suite, base, sp, tune_id, es
        self.racer, self.caller, self.s = racer, caller, settings
        self.dev_cases = [suite.case(i) for i in sp.dev]
        self.holdout_vals = holdout_values(suite.case(i) for i in sp.holdout)
        self.dev_vals = holdout_values(self.dev_cases)
        self.cands: list[Candidate] = []
        self.meta_failures = 0
        self.order = list(sp.dev)
        random.Random(settings["seed"]).shuffle(self.order)

    # -- candidates ----------------------------------------------------------------------------
    def add(self, gen: int, op: str, parents: list[int], text: str | None,
            shots: tuple[FewShot, ...] = (), rationale: str = "", check: bool = True
            ) -> Candidate:
        cand = Candidate(id=len(self.cands), generation=gen, operator=op, parents=parents,
                         text=text.strip() if isinstance(text, str) else None, few_shot=shots,
                         rationale=rationale)
        if check:
            cand.rejected_reason = self._reject_reason(cand)
        value = leaked_value(cand.text, (), self.dev_vals)
        cand.copies_dev_values = value is not None
        self.cands.append(cand)
        self._save(cand)
        return cand

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
            if [s.case_id for s in other.few_shot] == ids and \
                    trigram_similarity(other.text, cand.text) >= 0.9:
                return f"near_duplicate of c{other.id}"
        return None

    def _save(self, c: Candidate) -> None:
        self.es.upsert("prompt_candidates", {
            "tune_id": self.id, "id": c.id, "generation": c.generation, "operator": c.operator,
            "parent_ids_json": c.parents, "text": c.text, "text_hash": text_hash(c.text,
                                                                                c.few_shot),
            "few_shot_json": [s.model_dump() for s in c.few_shot], "rationale": c.rationale,
            "rejected_reason": c.rejected_reason, "dev_score": c.stats.get("dev_score"),
            "dev_lcb": c.stats.get("dev_lcb"), "holdout_score": c.stats.get("holdout_score"),
            "holdout_delta": c.stats.get("holdout_delta"), "on_front": int(c.on_front),
            "eliminated_at": c.eliminated_at,
            "extra_json": {"copies_dev_values": c.copies_dev_values}}, ("tune_id", "id"))

    def restore(self) -> int:
        """Reload stored candidates; returns the next generation to propose."""
        rows = self.es.select("prompt_candidates", {"tune_id": self.id}, order="id")
        for r in rows:
            shots = tuple(FewShot.model_validate(s) for s in json.loads(r["few_shot_json"] or
                                                                        "[]"))
            extra = json.loads(r["extra_json"] or "{}")
            self.cands.append(Candidate(
                id=r["id"], generation=r["generation"], operator=r["operator"],
                parents=json.loads(r["parent_ids_json"] or "[]"), text=r["text"],
                few_shot=shots, rationale=r["rationale"] or "",
                rejected_reason=r["rejected_reason"],
                copies_dev_values=bool(extra.get("copies_dev_values"))))
        return max((c.generation for c in self.cands), default=-1) + 1

    # -- one generation ------------------------------------------------------------------------
    async def propose(self, gen: int, front: list[Candidate], result: PromptTune) -> bool:
        """Add generation ``gen``'s candidates; returns whether the meta call parsed."""
        rng = random.Random(f"{self.s['seed']}:{gen}")
        n = self.s["population"]
        leader = front[0] if front else result.base_candidate
        parsed = None
        mode = self.s["operators"]
        if self.caller is not None and mode in ("auto", "meta") and \
                (mode == "meta" or self.meta_failures < 2) and self.racer.tracker.can_afford(1):
            history = [(c.text or "", c.stats.get("dev_score", 0.0)) for c in self.cands
                       if c.stats.get("dev_n")]
            source = leader.dev or result.base_candidate.dev
            feedback = failure_feedback(_frame(source)) if source else []
            text, _ = await self.caller.ask(
                meta_messages(self.suite, history, feedback, max(1, math.ceil(n / 2)),
                              self.s["max_prompt_tokens"]), META_SCHEMA, "prompts")
            self.racer.tracker.charge(1)
            parsed = parse_meta(text)
            self.meta_failures = 0 if parsed else self.meta_failures + 1
            for prompt, why in (parsed or [])[:n]:
                self.add(gen, "meta", [leader.id], prompt, leader.few_shot, why)
        ops = [o for o in OPERATORS if o != "add_example" or self.s["search_few_shot"]]
        weights = _weights(front, self.racer.metric) if front else [1.0]
        pool = front or [result.base_candidate]
        k = 0
        while sum(c.generation == gen for c in self.cands) < n and (mode != "meta" or not parsed):
            op = ops[(gen + k) % len(ops)]
            k += 1
            parent = rng.choices(pool, weights=weights[:len(pool)])[0]
            other = rng.choice(pool) if len(pool) > 1 else None
            if op == "crossover" and (other is None or other is parent):
                op = "add_rule"
            text, shots = apply_operator(op, (parent.text, parent.few_shot),
                                         (other.text, other.few_shot) if other else None,
                                         rng=rng, mode=self.base.mode, suite=self.suite,
                                         dev_cases=self.dev_cases,
                                         max_tokens=self.s["max_prompt_tokens"])
            parents = [parent.id] + ([other.id] if op == "crossover" and other else [])
            self.add(gen, op, parents, text, shots)
            if k > 5 * n:
                break
        return bool(parsed)

    async def evaluate(self, gen: int, front: list[Candidate]) -> None:
        """Race this generation's accepted candidates with the front and the base on dev."""
        base = next(c for c in self.cands if c.operator == "base")
        todo = [base, *[c for c in front if c is not base],
                *[c for c in self.cands if c.generation == gen and c.rejected_reason is None
                  and c is not base]]
        arms = [Arm(id=c.item_id, config=c.config(self.base), is_base=c is base) for c in todo]
        await self.racer.race(arms, self.order, batch=self.s["batch"])
        for cand, arm in zip(todo, arms, strict=True):
            cand.add_dev(arm.evals)
            if not arm.alive and cand.generation == gen:
                cand.eliminated_at = arm.eliminated_at


def _frame(evals: list[Any]) -> Any:
    from .evaluate import combine

    return combine(evals)


async def tune_prompt_async(suite: Suite, base: Config | None = None, *,
                            split: Split | None = None, meta_model: Any = "default",
                            operators: Literal["auto", "meta", "rules"] = "auto",
                            population: int = 6, generations: int = 4,
                            search_few_shot: bool = True, budget: Budget | None = None,
                            patience: int = 2, max_prompt_tokens: int = 200,
                            confirm_top_k: int = 3,
                            promote_if: PromoteIf = "holdout_ci_low>0", seed: int = 0,
                            store: Any = None, experiment: Any = None, metric: str = "score",
                            repeats: int = 2, batch: int | None = None, parallel: int = 2,
                            cache: bool = True, resume: bool = True,
                            auto_promote: bool = True, promote: PromoteMode = "confirm",
                            on_event: Any = None) -> PromptTune:
    """Async core of :func:`tune_prompt` (same arguments)."""
    from .split import split as make_split

    base = (base or Config()).canonical()
    budget = budget or Budget(calls=400, minutes=20)
    sp = split or (experiment.split if experiment is not None else make_split(suite, seed=seed))
    if not sp.dev:
        raise ExperimentError("the split has no dev cases to tune on")
    es = experiment_store(store)
    if meta_model == "default":
        from ..models import DEFAULT_MODEL

        meta_model = DEFAULT_MODEL
    settings = {"population": population, "generations": generations, "operators": operators,
                "search_few_shot": search_few_shot, "patience": patience,
                "max_prompt_tokens": max_prompt_tokens, "confirm_top_k": confirm_top_k,
                "promote_if": promote_if, "seed": seed, "metric": metric, "repeats": repeats,
                "batch": batch, "budget": budget.model_dump()}
    meta_key = meta_model.to_json() if isinstance(meta_model, Config) else meta_model
    key = hashlib.sha256(json.dumps([suite.fingerprint(), base.key, sp.model_dump(), settings,
                                     meta_key, getattr(experiment, "id", None)],
                                    sort_keys=True, default=str).encode()).hexdigest()[:20]
    rows = es.select("prompt_tunes", {"key": key}, order="created_at DESC") if resume else []
    tune_id = rows[0]["id"] if rows else new_id("pt")
    if not rows:
        es.insert("prompt_tunes", {"id": tune_id, "key": key,
                                   "experiment_id": getattr(experiment, "id", None),
                                   "suite_fp": suite.fingerprint(),
                                   "base_config_json": base.to_json(), "meta_model": meta_key,
                                   "settings_json": settings, "split_json": sp.model_dump(),
                                   "status": "running", "created_at": time.time()})
    tracker = budget.tracker()
    racer = Racer(suite, es, tune_id, tracker, repeats=repeats, seed=seed, metric=metric,
                  eliminate=True, parallel=parallel, cache=cache, on_event=on_event)
    # the meta reply holds ceil(population / 2) prompts of at most max_prompt_tokens each: a
    # tighter max_tokens keeps a rambling small meta model from costing minutes
    meta_tokens = min(512, 64 + math.ceil(population / 2) * (max_prompt_tokens + 16))
    caller = None if operators == "rules" or meta_model is None else \
        JsonCaller(meta_model, 10_000, 120.0, "auto", {"temperature": 0.7,
                                                       "max_tokens": meta_tokens})
    tuner = _Tuner(suite, base, sp, tune_id, es, racer, caller, settings)
    result = PromptTune(tune_id=tune_id, base=base, candidates=tuner.cands, generations=[],
                        n_dev=len(sp.dev), metric=metric, seed=seed, promote_if=promote_if,
                        racer=racer, store=es, split=sp, suite=suite, promote_mode=promote)
    next_gen = tuner.restore()
    if next_gen == 0:
        tuner.add(0, "base", [], base.system_prompt, base.few_shot, check=False)
        if base.system_prompt:
            tuner.add(0, "no_prompt", [], None, (), check=False)
        tuner.add(0, "default", [], DEFAULT_SYSTEM_PROMPT, ())
    best_lcb, stale = -math.inf, 0
    front: list[Candidate] = []
    for gen in range(0, generations + 1):
        meta_parsed = None
        if gen > 0 and gen >= next_gen:
            meta_parsed = await tuner.propose(gen, front, result)
        await tuner.evaluate(gen, front)
        result.refresh_stats()
        full = [c for c in tuner.cands if c.rejected_reason is None
                and c.stats.get("dev_n", 0) >= len(sp.dev)]
        front = _pareto(full, metric, population)
        for c in tuner.cands:
            c.on_front = c in front
            tuner._save(c)
        lcb = max((c.stats.get("dev_lcb", -math.inf) for c in full if c.operator != "base"),
                  default=-math.inf)
        gen_cands = [c for c in tuner.cands if c.generation == gen]
        result.generations.append({
            "generation": gen, "n_proposed": len(gen_cands),
            "n_rejected": sum(c.rejected_reason is not None for c in gen_cands),
            "meta_parsed": meta_parsed, "best_dev_lcb": lcb, "calls_used": tracker.calls_used})
        es.upsert("prompt_generations", {"tune_id": tune_id, **result.generations[-1]},
                  ("tune_id", "generation"))
        stale = 0 if lcb > best_lcb + 1e-9 else stale + 1
        best_lcb = max(best_lcb, lcb)
        if racer.stop_reason and "budget" in racer.stop_reason:
            result.stop_reason = racer.stop_reason
            break
        if front and bool((front[0].dev_scores(metric) >= 1.0 - 1e-9).all()):
            result.stop_reason = "every dev case solved"
            break
        if gen > 0 and stale >= patience:
            result.stop_reason = f"{patience} generations without a better dev LCB"
            break
    result.stop_reason = result.stop_reason or f"{generations} generations"
    if promote != "copy":
        await _confirm(result, tuner, confirm_top_k, seed)
    for c in tuner.cands:
        tuner._save(c)
    win = result.winner
    es.update("prompt_tunes", {"id": tune_id}, status="completed",
              best_cand_id=win.id if win else None, calls_used=tracker.calls_used,
              message=result.message, finished_at=time.time())
    if experiment is not None:
        result.link(experiment)
        if auto_promote and win is not None:
            await result.promote_async(experiment)
    return result


async def _confirm(result: PromptTune, tuner: _Tuner, top_k: int, seed: int) -> None:
    ids = result.split.ids("holdout")
    if not ids:
        return
    picks = result.ranked()[:top_k]
    for cand in [result.base_candidate, *picks]:
        arm = Arm(id=cand.item_id, config=cand.config(result.base))
        ev = await tuner.racer.cell(arm, 0, "holdout", ids, seed=seed + 1000)
        if ev is None:
            result.stop_reason = f"{result.stop_reason}; budget spent before confirmation"
            break
        cand.holdout = [ev]
    result.refresh_stats()
    passing = [c for c in picks if result.passes(c)]
    if passing:
        key = "holdout_delta" if result.promote_if != "holdout_ci_low>0" else "holdout_ci_low"
        result.confirmed_id = max(passing, key=lambda c: (c.stats.get(key, -math.inf),
                                                          -c.id)).id


def tune_prompt(suite: Suite, base: Config | None = None, **kwargs: Any) -> PromptTune:
    """Tune the system prompt (and few-shot examples) of ``base`` on the dev split.

    Args:
        suite: the suite. ``base``: the starting config (its prompt is always scored).
        split: dev / holdout split (default ``te.split(suite)``).
        meta_model: a model string or :class:`Config` writing candidates (default the embedded
            model; None = operators only).
        operators: ``auto`` (meta + operators; meta dropped after 2 failures), ``meta`` or
            ``rules``.
        population: candidates per generation and Pareto front size. ``generations``: limit.
        search_few_shot: let ``add_example`` add a dev case as a few-shot example.
        budget: ``te.Budget`` (default 400 calls / 20 min). ``patience``: generations without
            a better dev LCB before stopping. ``max_prompt_tokens``: length limit.
        confirm_top_k: candidates confirmed on the holdout. ``promote_if``:
            ``holdout_ci_low>0`` (default), ``holdout_mean>0`` or ``always``.
        seed, store, metric, repeats, batch, parallel, cache: as for :func:`sweep`.
        experiment: link to an experiment (and promote the confirmed winner into its best).
        promote: ``"confirm"`` (default: confirm on the holdout, gated by ``promote_if``) or
            ``"copy"`` (exploration only: no holdout run; the best dev LCB above 0 is promoted
            on its dev results, flagged selection-biased).

    Returns:
        A :class:`PromptTune` with ``candidates_df()``, ``generations_df()``,
        ``case_matrix_df()``, ``best``, ``diff()``, ``promote()``.
    """
    from .evaluate import run_sync

    return run_sync(tune_prompt_async(suite, base, **kwargs))
