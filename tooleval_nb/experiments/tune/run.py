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
the same arguments resumes it. A generation's candidates are written together with its
``prompt_generations`` row (whether its meta call parsed) in one transaction, so a generation is in
the store whole or not at all: a tune killed while proposing proposes that generation again, one
killed while evaluating replays the stored generations (their cells, meta calls and budget, see
:mod:`.race`) and finishes the interrupted one without re-running a finished cell.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from typing import TYPE_CHECKING, Any, Literal

from ...aio import run_sync
from ...errors import ExperimentError
from ...models import DEFAULT_MODEL
from ...runner.database import new_id
from ..budget import Budget
from ..config import Config
from ..llm_call import JsonCaller
from ..race import Arm, Racer
from ..split import Split
from ..split import split as make_split
from ..store import experiment_store
from ..tracking import PromoteMode
from .operators import DEFAULT_SYSTEM_PROMPT
from .result import Candidate, PromptTune
from .tuner import Tuner, pareto

if TYPE_CHECKING:  # pragma: no cover
    from ...suite import Suite

__all__ = ["tune_prompt", "tune_prompt_async"]

PromoteIf = Literal["holdout_ci_low>0", "holdout_mean>0", "always"]


async def tune_prompt_async(
    suite: Suite,
    base: Config | None = None,
    *,
    split: Split | None = None,
    meta_model: Any = "default",
    operators: Literal["auto", "meta", "rules"] = "auto",
    population: int = 6,
    generations: int = 4,
    search_few_shot: bool = True,
    budget: Budget | None = None,
    patience: int = 2,
    max_prompt_tokens: int = 200,
    confirm_top_k: int = 3,
    promote_if: PromoteIf = "holdout_ci_low>0",
    seed: int = 0,
    store: Any = None,
    experiment: Any = None,
    metric: str = "score",
    repeats: int = 2,
    batch: int | None = None,
    parallel: int = 2,
    cache: bool = True,
    resume: bool = True,
    auto_promote: bool = True,
    promote: PromoteMode = "confirm",
    on_event: Any = None,
    executor: Any = "local",
) -> PromptTune:
    """Async core of :func:`tune_prompt` (same arguments)."""
    base = (base or Config()).canonical()
    budget = budget or Budget(calls=400, minutes=20)
    sp = split or (experiment.split if experiment is not None else make_split(suite, seed=seed))
    if not sp.dev:
        raise ExperimentError("the split has no dev cases to tune on")
    es = experiment_store(store)
    if meta_model == "default":
        meta_model = DEFAULT_MODEL
    settings = {
        "population": population,
        "generations": generations,
        "operators": operators,
        "search_few_shot": search_few_shot,
        "patience": patience,
        "max_prompt_tokens": max_prompt_tokens,
        "confirm_top_k": confirm_top_k,
        "promote_if": promote_if,
        "seed": seed,
        "metric": metric,
        "repeats": repeats,
        "batch": batch,
        "budget": budget.model_dump(),
    }
    meta_key = meta_model.to_json() if isinstance(meta_model, Config) else meta_model
    key = hashlib.sha256(
        json.dumps(
            [
                suite.fingerprint(),
                base.key,
                sp.model_dump(),
                settings,
                meta_key,
                getattr(experiment, "id", None),
            ],
            sort_keys=True,
            default=str,
        ).encode()
    ).hexdigest()[:20]
    rows = es.select("prompt_tunes", {"key": key}, order="created_at DESC") if resume else []
    tune_id = rows[0]["id"] if rows else new_id("pt")
    if not rows:
        es.insert(
            "prompt_tunes",
            {
                "id": tune_id,
                "key": key,
                "experiment_id": getattr(experiment, "id", None),
                "suite_fp": suite.fingerprint(),
                "base_config_json": base.to_json(),
                "meta_model": meta_key,
                "settings_json": settings,
                "split_json": sp.model_dump(),
                "status": "running",
                "created_at": time.time(),
            },
        )
    else:
        es.update("prompt_tunes", {"id": tune_id}, status="running")
    tracker = budget.tracker()
    racer = Racer(
        suite,
        es,
        tune_id,
        tracker,
        repeats=repeats,
        seed=seed,
        metric=metric,
        eliminate=True,
        parallel=parallel,
        cache=cache,
        on_event=on_event,
        executor=executor,
    )
    # the meta reply holds ceil(population / 2) prompts of at most max_prompt_tokens each: a
    # tighter max_tokens keeps a rambling small meta model from costing minutes
    meta_tokens = min(512, 64 + math.ceil(population / 2) * (max_prompt_tokens + 16))
    caller = (
        None
        if operators == "rules" or meta_model is None
        else JsonCaller(
            meta_model, 10_000, 120.0, "auto", {"temperature": 0.7, "max_tokens": meta_tokens}
        )
    )
    tuner = Tuner(suite, base, sp, tune_id, es, racer, caller, settings)
    result = PromptTune(
        tune_id=tune_id,
        base=base,
        candidates=tuner.cands,
        generations=[],
        n_dev=len(sp.dev),
        metric=metric,
        seed=seed,
        promote_if=promote_if,
        racer=racer,
        store=es,
        split=sp,
        suite=suite,
        promote_mode=promote,
        experiment=experiment,
    )
    try:
        await _run(result, tuner, tracker, generations, population, patience)
        if promote != "copy":
            await _confirm(result, tuner, confirm_top_k, seed)
    except BaseException:
        es.update(
            "prompt_tunes", {"id": tune_id}, status="interrupted", calls_used=tracker.calls_used
        )
        raise
    tuner.save_all()
    win = result.winner
    es.update(
        "prompt_tunes",
        {"id": tune_id},
        status="completed",
        best_cand_id=win.id if win else None,
        calls_used=tracker.calls_used,
        message=result.message,
        finished_at=time.time(),
    )
    if experiment is not None:
        result.link(experiment)
        if auto_promote and win is not None:
            await result.promote_async(experiment)
    return result


async def _run(
    result: PromptTune, tuner: Tuner, tracker: Any, generations: int, population: int, patience: int
) -> None:
    """The generations: stored ones are replayed (cells and meta calls reused, charged once),
    the rest proposed and raced."""
    es, metric, n_dev = tuner.es, result.metric, result.n_dev
    next_gen = tuner.restore()
    if next_gen == 0:
        base = tuner.base
        tuner.add(0, "base", [], base.system_prompt, base.few_shot, check=False)
        if base.system_prompt:
            tuner.add(0, "no_prompt", [], None, (), check=False)
        tuner.add(0, "default", [], DEFAULT_SYSTEM_PROMPT, ())
        tuner.commit(0, None)
    best_lcb, stale = -math.inf, 0
    front: list[Candidate] = []
    for gen in range(0, generations + 1):
        meta_parsed = None
        if gen < next_gen:
            meta_parsed = tuner.replay(gen)
        elif gen > 0:
            meta_parsed = await tuner.propose(gen, front, result)
        await tuner.evaluate(gen, front)
        result.refresh_stats()
        full = [
            c for c in tuner.cands if c.rejected_reason is None and c.stats.get("dev_n", 0) >= n_dev
        ]
        front = pareto(full, metric, population)
        for c in tuner.cands:
            c.on_front = c in front
        tuner.save_all()
        lcb = max(
            (c.stats.get("dev_lcb", -math.inf) for c in full if c.operator != "base"),
            default=-math.inf,
        )
        result.generations.append(tuner.generation_row(gen, meta_parsed, lcb, tracker.calls_used))
        es.upsert(
            "prompt_generations",
            {"tune_id": tuner.id, **result.generations[-1]},
            ("tune_id", "generation"),
        )
        stale = 0 if lcb > best_lcb + 1e-9 else stale + 1
        best_lcb = max(best_lcb, lcb)
        racer = tuner.racer
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


def _eligible(result: PromptTune) -> list[Candidate]:
    """Candidates that beat the base prompt on dev as ``promote_if`` asks: beyond noise (dev
    LCB > 0) for the default gate, by the mean for ``holdout_mean>0``, any for ``always``."""
    ranked = result.ranked()
    if result.promote_if == "always":
        return ranked
    key = "dev_delta" if result.promote_if == "holdout_mean>0" else "dev_lcb"
    return [c for c in ranked if c.stats.get(key, 0.0) > 0]


async def _confirm(result: PromptTune, tuner: Tuner, top_k: int, seed: int) -> None:
    ids = result.split.ids("holdout")
    if not ids:
        return
    picks = _eligible(result)[:top_k]
    if not picks:
        result.confirm_note = "nothing to confirm: no candidate beat the base prompt on dev" + (
            " beyond noise" if result.promote_if == "holdout_ci_low>0" else ""
        )
        return
    racer = tuner.racer
    arms = [
        Arm(id=c.item_id, config=c.config(result.base)) for c in [result.base_candidate, *picks]
    ]
    need = racer.need(arms, 0, "holdout", len(ids))
    if need and not racer.tracker.can_afford(need):
        result.confirm_note = (
            f"not confirmed: budget: confirming {len(arms)} candidates on "
            f"{len(ids)} holdout cases {racer.shortfall(need)}"
        )
        result.stop_reason = f"{result.stop_reason}; budget spent before confirmation"
        return
    for cand, arm in zip([result.base_candidate, *picks], arms, strict=True):
        ev = await racer.cell(arm, 0, "holdout", ids, seed=seed + 1000)
        if ev is None:
            result.confirm_note = (
                f"not confirmed: budget spent before confirming c{cand.id} "
                f"(it {racer.shortfall(racer.cost(arm, len(ids)))})"
            )
            result.stop_reason = f"{result.stop_reason}; budget spent before confirmation"
            break
        cand.holdout = [ev]
    result.refresh_stats()
    if not result.base_candidate.holdout:
        return
    passing = [c for c in picks if c.holdout and result.passes(c)]
    if passing:
        key = "holdout_delta" if result.promote_if != "holdout_ci_low>0" else "holdout_ci_low"
        result.confirmed_id = max(passing, key=lambda c: (c.stats.get(key, -math.inf), -c.id)).id


def tune_prompt(suite: Suite, base: Config | None = None, **kwargs: Any) -> PromptTune:
    """Tune the system prompt (and few-shot examples) of ``base`` on the dev split.

    Args:
        suite: the suite.
        base: the starting config (its prompt is always scored).

    Keyword Args:
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
        seed, store, metric, repeats, batch, parallel, cache, executor: as for :func:`sweep`.
        experiment: link to an experiment (and promote the confirmed winner into its best).
        promote: ``"confirm"`` (default: confirm on the holdout, gated by ``promote_if``) or
            ``"copy"`` (exploration only: no holdout run; the best dev LCB above 0 is promoted
            on its dev results, flagged selection-biased).

    Returns:
        A :class:`PromptTune` with ``candidates_df()``, ``generations_df()``,
        ``case_matrix_df()``, ``best``, ``diff()``, ``promote()``.
    """
    return run_sync(tune_prompt_async(suite, base, **kwargs))
