"""``te.sweep``: parameter sweeps by grid, seeded random, racing or (optionally) TPE.

Every trial is the base config with some swept keys changed (P4), evaluated through the runner
on the dev split (P1, P3). Trials are compared with the base config on the same cases and seeds
(P2); ``.best`` is the trial with the highest lower confidence bound of that paired delta among the
trials that beat the base after a Holm correction, else the base config itself, said plainly.
``.confirm()`` re-evaluates the top trials and the base on the holdout with fresh seeds;
``.promote(exp)`` hands the confirmed winner to an experiment's best rule.

A sweep is stored (tables ``sweeps``, ``sweep_trials``, ``eval_cells``) under a key made of its
settings: calling ``te.sweep`` again with the same arguments resumes it, re-running only the
cells that had not finished.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import TYPE_CHECKING, Any, Literal

from ...aio import run_sync
from ...errors import ExperimentError
from ...runner.database import new_id
from ..budget import Budget
from ..config import Config
from ..estimate import estimate_async, format_duration
from ..race import Arm, Racer
from ..split import Split
from ..split import split as make_split
from ..stats import describe_mde, mde
from ..store import experiment_store
from ..tracking import PromoteMode
from .result import Sweep
from .space import DEFAULT_SPACE, Space, Uniform

if TYPE_CHECKING:  # pragma: no cover
    from ...suite import Suite

__all__ = ["Strategy", "Select", "sweep", "sweep_async"]

Strategy = Literal["grid", "random", "race", "tpe"]
Select = Literal["lcb", "mean", "simplest"]


def _key(*parts: Any) -> str:
    blob = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


async def sweep_async(
    suite: Suite,
    base: Config | None = None,
    space: Space | None = None,
    *,
    strategy: Strategy | None = None,
    n_trials: int | None = None,
    budget: Budget | None = None,
    repeats: int | Literal["auto"] = "auto",
    split: Split | None = None,
    on: Literal["dev", "all"] = "dev",
    select: Select = "lcb",
    alpha: float = 0.05,
    seed: int = 0,
    metric: str = "score",
    store: Any = None,
    experiment: Any = None,
    batch: int | None = None,
    parallel: int = 2,
    cache: bool = True,
    preflight: bool = True,
    probe: bool = True,
    resume: bool = True,
    confirm_top_k: int = 3,
    auto_promote: bool = True,
    promote: PromoteMode = "confirm",
    on_event: Any = None,
    executor: Any = "local",
) -> Sweep:
    """Async core of :func:`sweep` (same arguments)."""
    base = base or Config()
    space = space or DEFAULT_SPACE
    budget = budget or Budget(calls=400, minutes=15)
    es = experiment_store(store)
    sp = split or (experiment.split if experiment is not None else _auto_split(suite, seed))
    dev_ids = sp.ids("all") if on == "all" else sp.ids("dev")
    if not dev_ids:
        raise ExperimentError(f"the split has no {on} cases; pass split=te.split(suite, ...)")
    reps = 2 if repeats == "auto" else int(repeats)
    if strategy == "random" or (strategy is None and n_trials is not None):
        expansion = space.sample(base, n_trials or 8, seed=seed)
    else:
        expansion = space.expand(base)
    configs = list(expansion.configs)
    assigns = list(expansion.assignments)
    base_canon = base.canonical()
    if base_canon.key not in {c.key for c in configs}:
        configs.insert(0, base_canon)
        assigns.insert(0, {k: base_canon.get(k) for k in space.keys})
    grid_calls = sum(len(dev_ids) * (1 if c.greedy else reps) for c in configs)
    chosen: Strategy = strategy or (
        "grid" if budget.calls is None or grid_calls <= budget.calls else "race"
    )
    if chosen == "grid" and budget.calls is not None and grid_calls > budget.calls:
        raise ExperimentError(
            f"a grid of {len(configs)} configs on {len(dev_ids)} dev cases needs about "
            f"{grid_calls} calls, over the budget of {budget.calls}: use strategy='race' (drops "
            f"clearly worse configs early), n_trials=... with strategy='random', or a larger "
            "te.Budget(calls=...)"
        )
    if chosen == "tpe":
        try:
            import optuna  # noqa: F401
        except ImportError:
            raise ExperimentError(
                "strategy='tpe' needs Optuna: pip install optuna (or use strategy='race')"
            ) from None
    key = _key(
        suite.fingerprint(),
        base_canon.key,
        space.to_json_dict(),
        chosen,
        n_trials,
        budget.model_dump(),
        seed,
        sp.model_dump(),
        on,
        select,
        alpha,
        metric,
        reps,
        batch,
        experiment.id if experiment is not None else None,
    )
    row = None
    if resume:
        rows = es.select("sweeps", {"key": key}, order="created_at DESC")
        row = rows[0] if rows else None
    sweep_id = row["id"] if row else new_id("sw")
    settings = {"alpha": alpha, "metric": metric, "repeats": reps, "n_trials": n_trials}
    if row is None:
        es.insert(
            "sweeps",
            {
                "id": sweep_id,
                "key": key,
                "experiment_id": getattr(experiment, "id", None),
                "suite_fp": suite.fingerprint(),
                "base_config_json": base.to_json(),
                "space_json": space.to_json_dict(),
                "strategy": chosen,
                "budget_json": budget.model_dump(),
                "seed": seed,
                "on_split": on,
                "select_rule": select,
                "settings_json": settings,
                "status": "running",
                "created_at": time.time(),
            },
        )
    else:
        es.update("sweeps", {"id": sweep_id}, status="running")
    arms = [
        Arm(id=f"t{i}", config=c, is_base=(c.key == base_canon.key), info={"params": a})
        for i, (c, a) in enumerate(zip(configs, assigns, strict=True))
    ]
    tracker = budget.tracker()
    mde80 = mde(len(dev_ids), 0.5)
    # the probe is part of the job: a resumed sweep pays the stored probe again (the budget is
    # the job's over its whole life, see tooleval_nb.experiments.race) instead of re-probing
    stored = json.loads(row["settings_json"] or "{}") if row is not None else {}
    probed = stored.get("probe")
    if probed:
        tracker.charge(int(probed.get("calls") or 0))
    if preflight:
        eta = "n/a"
        calls_hint = grid_calls if chosen != "race" else grid_calls // 2
        if probe and row is None:
            est = await estimate_async(suite, base, grid_calls, store=es.runs, verbose=False)
            tracker.charge(est.probe_calls)
            probed = {
                "calls": est.probe_calls,
                "seconds_per_call": est.seconds_per_call,
                "run_id": est.run_id,
            }
            es.update("sweeps", {"id": sweep_id}, settings_json={**settings, "probe": probed})
        if probed:
            eta = format_duration(calls_hint * float(probed["seconds_per_call"]))
        plus = " + the base config" if len(configs) > expansion.n_canonical else ""
        print(
            f"sweep {sweep_id}: {expansion.describe()}{plus} = {len(configs)} trials, "
            f"strategy {chosen}; {len(dev_ids)} {on} cases; about {grid_calls} calls for the "
            f"full grid{' (racing needs fewer)' if chosen == 'race' else ''}; budget "
            f"{budget.describe()}; ETA {eta}; MDE80 {describe_mde(mde80)} (paired SD 0.5 "
            "assumed)"
        )
        if mde80 > 0.10:
            print(
                f"  warning: with {len(dev_ids)} dev cases only effects above "
                f"~{min(100, round(100 * mde80))} points are detectable; add cases for finer "
                "answers"
            )
    racer = Racer(
        suite,
        es,
        sweep_id,
        tracker,
        repeats=reps,
        seed=seed,
        metric=metric,
        alpha=alpha,
        eliminate=(chosen == "race"),
        parallel=parallel,
        cache=cache,
        on_event=on_event,
        executor=executor,
    )
    order = _case_order(dev_ids, seed)
    try:
        if chosen == "tpe":
            await _tpe(racer, arms, order, space, base, n_trials or 12, seed)
        else:
            await racer.race(arms, order, batch=batch)
    except BaseException:
        es.update("sweeps", {"id": sweep_id}, status="interrupted", calls_used=tracker.calls_used)
        raise
    result = Sweep(
        sweep_id=sweep_id,
        suite=suite,
        base=base_canon,
        space=space,
        strategy=chosen,
        arms=arms,
        split=sp,
        on=on,
        select=select,
        alpha=alpha,
        seed=seed,
        metric=metric,
        repeats=reps,
        racer=racer,
        store=es,
        expansion=expansion,
        budget=budget,
        grid_calls=grid_calls,
        experiment=experiment,
    )
    result.save()
    if experiment is not None:
        entry = result.link(experiment)
        if auto_promote and promote == "copy":
            await result.promote_async(experiment, "copy")
        elif auto_promote and sp.holdout:
            _, why = await result.try_confirm(top_k=confirm_top_k, only_if_better=True)
            if result.confirm_note is not None:  # nothing to confirm: said in the entry
                experiment._note(entry, result.confirm_note)
            elif why is None:
                await result.promote_async(experiment)
            else:  # an ordinary budget outcome: said in the entry, nothing promoted
                experiment._note(
                    entry,
                    f"not confirmed: {why}; nothing promoted (run "
                    "sw.confirm() with a larger budget, then sw.promote(exp))",
                )
                print(f"sweep {sweep_id}: not confirmed: {why}; nothing promoted")
    return result


def sweep(
    suite: Suite, base: Config | None = None, space: Space | None = None, **kwargs: Any
) -> Sweep:
    """Sweep ``space`` around ``base`` on the dev split and pick the best config beyond noise.

    Args:
        suite: the suite.
        base: the starting config (the baseline every trial is compared with).
        space: ``te.space(...)`` (default :data:`te.DEFAULT_SPACE`).

    Keyword Args:
        strategy: ``grid`` (refuses when over budget), ``random`` (``n_trials`` seeded draws),
            ``race`` (F-race; the default when the grid is over budget) or ``tpe`` (Optuna).
        n_trials: trials for ``random`` / ``tpe``.
        budget: ``te.Budget(calls=..., minutes=...)`` (default 400 calls / 15 min).
        repeats: samples per case of sampled configs (``"auto"``: 2; greedy configs run once).
        split: dev / holdout split (default ``te.split(suite)``); ``on``: ``dev`` or ``all``.
        select: ``lcb`` (highest lower bound of the paired delta), ``mean`` or ``simplest``.
        alpha: level of the tests (Holm-corrected across trials for ``best``).
        seed: seeds the split order, random draws, sampling seeds and bootstraps.
        metric: ``score`` (overall) or ``passed``.
        store: the run store. ``experiment``: link (and by default confirm and promote).
        promote: ``"confirm"`` (default: the winner is confirmed on the holdout first) or
            ``"copy"`` (exploration only: the dev winner is promoted on its dev results, the
            entry flagged ``selection_biased`` and the resulting best unconfirmed).
        batch: cases per racing round (default ``max(4, ceil(n_dev / 5))``).
        parallel: trials evaluated at once. ``cache``: use the response cache.
        preflight: print the plan (configs, calls, ETA measured by a 3-call probe, MDE).
        resume: continue a stored sweep with the same arguments.
        executor: where the trials' runs go: ``"local"`` (default), ``"ray"`` or a
            ``te.RayExecutor`` (model replicas across a cluster: ``docs/cluster.md``).

    Returns:
        A :class:`Sweep` with ``trials_df()``, ``cases_df()``, ``effects_df()``, ``best``,
        ``confirm()``, ``promote()``.
    """
    return run_sync(sweep_async(suite, base, space, **kwargs))


def _auto_split(suite: Suite, seed: int) -> Split:
    if len([c for c in suite.cases if not c.draft]) < 4:
        return Split.whole(suite)
    return make_split(suite, seed=seed)


def _case_order(ids: list[str], seed: int) -> list[str]:
    import random

    order = list(ids)
    random.Random(seed).shuffle(order)
    return order


async def _tpe(
    racer: Racer,
    arms: list[Arm],
    order: list[str],
    space: Space,
    base: Config,
    n_trials: int,
    seed: int,
) -> None:
    """Optuna ask/tell on the real dev mean; the base config is enqueued first."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed))
    known = {a.config.key: a for a in arms}
    base_arm = next(a for a in arms if a.is_base)
    arms.clear()
    arms.append(base_arm)
    ev = await racer.cell(base_arm, 0, "dev", order)
    if ev is None:
        racer.stop_reason = "budget spent before the base config ran"
        return
    base_arm.evals.append(ev)
    for _ in range(n_trials):
        trial = study.ask()
        changes = {}
        for name, spec in space.values.items():
            if isinstance(spec, Uniform):
                changes[name] = trial.suggest_float(name, spec.low, spec.high)
            else:
                changes[name] = trial.suggest_categorical(name, list(spec))
        cfg = base.merge(**changes).canonical()
        arm = known.get(cfg.key) or Arm(
            id=f"t{len(known)}", config=cfg, info={"params": {k: cfg.get(k) for k in space.keys}}
        )
        known[cfg.key] = arm
        if arm not in arms:
            arms.append(arm)
            ev = await racer.cell(arm, 0, "dev", order)
            if ev is None:
                racer.stop_reason = racer.tracker.reason or "budget spent"
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                break
            arm.evals.append(ev)
        study.tell(trial, float(arm.scores(racer.metric).mean()))
    racer.cases_used = len(order)
    racer.stop_reason = racer.stop_reason or f"{n_trials} TPE trials"
