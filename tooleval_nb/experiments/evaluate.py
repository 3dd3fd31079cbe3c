"""The one bridge from the experiment layer to the runner: evaluate a Config on some cases.

Every trial, candidate and confirmation goes through :func:`tooleval_nb.runner.run_eval_async`
(P1): it is an ordinary run in the store, with the runner's cache, resume and history. A run
started again with the same suite, targets and settings resumes the unfinished job (the runner
matches it by its configuration key), so a killed sweep re-issues only its unfinished cells.

A config maps to a run like this: ``model``/``api_base``/``mode`` make the target; temperature,
tool choice and the system prompt are run settings; ``max_tokens`` and ``params`` are sampling
parameters; few-shot examples are rendered as text after the system prompt (the runner builds the
messages, and text examples work in every mode).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..aio import run_sync
from ..models import ModelSpec
from ..runner import run_eval_async
from ..runner.run import Run
from ..runner.settings import TOOL_CHOICES, RunSettings
from ..runner.store import resolve_store
from .compare import case_scores
from .config import Config, thaw

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..suite import Suite
    from .config import FewShot


__all__ = [
    "Evaluation",
    "config_from_run",
    "evaluate",
    "evaluate_async",
    "load_evaluation",
    "render_few_shot",
    "run_kwargs",
    "settings_for",
    "target_for",
    "system_prompt_for",
    "seeds_for",
    "calls_made",
    "combine",
]


@dataclass
class Evaluation:
    """One config evaluated on some cases: the run and its results."""

    run_id: str
    results: pd.DataFrame
    #: new model requests this evaluation made (cache hits excluded)
    calls: int = 0

    def scores(self, metric: str = "score") -> pd.Series:
        """Per-case metric (mean over samples, errors count 0), indexed by case id."""
        return case_scores(self.results, metric)[0]


def render_few_shot(examples: tuple[FewShot, ...] | list[FewShot]) -> str:
    """Few-shot exchanges as text for the system prompt."""
    blocks = []
    for ex in examples:
        if ex.calls:
            answer = "; ".join(
                f"{c.get('name')}({json.dumps(c.get('arguments') or {})})" for c in ex.calls
            )
            blocks.append(f"User: {ex.user}\nAssistant calls: {answer}")
        else:
            blocks.append(f"User: {ex.user}\nAssistant: {ex.content or ''}")
    return "Examples:\n" + "\n\n".join(blocks) if blocks else ""


def system_prompt_for(config: Config) -> str | None:
    """The run's system prompt: the config's prompt, then its few-shot examples."""
    parts = [config.system_prompt or "", render_few_shot(config.few_shot)]
    text = "\n\n".join(p for p in parts if p)
    return text or None


def seeds_for(config: Config, repeats: int, base_seed: int = 0) -> tuple[int, list[int] | None]:
    """Repeats and seeds: greedy configs run once unseeded; sampled ones share the seed list
    ``base_seed + 1 .. base_seed + repeats`` (common random numbers across configs)."""
    if config.greedy:
        return 1, None
    return repeats, [base_seed + 1 + i for i in range(repeats)]


def target_for(config: Config) -> ModelSpec:
    """The model ``config`` asks: its model, endpoint and mode."""
    return ModelSpec(model=config.model, api_base=config.api_base, mode=config.mode)


def settings_for(config: Config, **overrides: Any) -> RunSettings:
    """The :class:`~tooleval_nb.runner.settings.RunSettings` of ``config`` (temperature, tool
    choice, system prompt with its few-shot examples, sampling parameters), with ``overrides``
    (repeats, seeds, ids, ...) applied."""
    params = thaw(config.params)
    if config.max_tokens is not None:
        params["max_tokens"] = config.max_tokens
    tool_choice: Any = config.tool_choice
    if tool_choice not in TOOL_CHOICES:
        tool_choice = {"type": "function", "function": {"name": tool_choice}}
    return RunSettings.build(
        temperature=config.temperature,
        tool_choice=tool_choice,
        system_prompt=system_prompt_for(config),
        params=params,
        **overrides,
    )


def run_kwargs(config: Config) -> dict[str, Any]:
    """``run_eval`` arguments for ``config``: ``models`` and ``settings``."""
    return {"models": [target_for(config)], "settings": settings_for(config)}


def calls_made(results: pd.DataFrame) -> int:
    """Model requests behind a results frame, cache hits excluded."""
    if results.empty or "tries" not in results:
        return 0
    fresh = results[~results["cached"].astype(bool)] if "cached" in results else results
    return int(fresh["tries"].fillna(1).clip(lower=1).sum())


def combine(evaluations: list[Evaluation]) -> pd.DataFrame:
    """The results of several evaluations of one config as one frame (first wins per cell)."""
    import pandas as pd

    frames = [e.results for e in evaluations if len(e.results)]
    if not frames:
        return evaluations[0].results.iloc[0:0] if evaluations else pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    return df.drop_duplicates(["case_id", "sample"], keep="first", ignore_index=True)


async def evaluate_async(
    suite: Suite,
    config: Config,
    case_ids: list[str] | None = None,
    *,
    store: Any = None,
    repeats: int = 1,
    base_seed: int = 0,
    name: str | None = None,
    max_concurrency: int = 8,
    cache: bool = True,
    progress: bool = False,
    executor: Any = "local",
) -> Evaluation:
    """Run ``config`` on ``case_ids`` of ``suite`` through the runner; the run is stored.

    ``executor`` is ``run_eval``'s: ``"local"``, ``"ray"`` or a ``te.RayExecutor``.
    """
    reps, seeds = seeds_for(config, repeats, base_seed)
    settings = settings_for(
        config,
        repeats=reps,
        seeds=seeds,
        ids=case_ids,
        cache=cache,
        max_concurrency=max_concurrency,
    )
    run = await run_eval_async(
        suite,
        [target_for(config)],
        settings,
        store=store,
        name=name,
        progress="text" if progress else "none",
        executor=executor,
    )
    results = run.results_df()
    return Evaluation(run_id=run.id, results=results, calls=calls_made(results))


def evaluate(
    suite: Suite, config: Config, case_ids: list[str] | None = None, **kwargs: Any
) -> Evaluation:
    """Sync twin of :func:`evaluate_async`."""
    return run_sync(evaluate_async(suite, config, case_ids, **kwargs))


def load_evaluation(store: Any, run_id: str) -> Evaluation:
    """A stored run as an :class:`Evaluation` (no new calls)."""
    run = Run.load(resolve_store(store), run_id)
    return Evaluation(run_id=run.id, results=run.results_df(), calls=0)


def config_from_run(run: Any) -> Config:
    """The Config a runner Run ran with (its first target and its settings).

    A setting the run does not record falls back to the runner's own default
    (:class:`tooleval_nb.runner.settings.RunSettings`: ``tool_choice="required"``), since that is
    what the runner sent, never to :class:`Config`'s defaults; a run without ``max_tokens``
    gives ``max_tokens=None`` (no limit was sent).
    """
    defaults = RunSettings()
    settings = getattr(run, "settings", {}) or {}
    targets = getattr(run, "targets", []) or [{}]
    target = targets[0].get("spec") or targets[0]  # runner: {"label", "spec": ModelSpec dump}
    params = {**(settings.get("params") or {}), **(target.get("params") or {})}
    max_tokens = params.pop("max_tokens", None)
    temperature = float(
        params.pop("temperature", settings.get("temperature", defaults.temperature))
    )
    choice = settings.get("tool_choice", defaults.tool_choice)
    if isinstance(choice, dict):
        choice = (choice.get("function") or {}).get("name", "auto")
    prompt = settings.get("system_prompt")
    return Config(
        model=target.get("model") or Config().model,
        api_base=target.get("api_base"),
        mode=settings.get("mode") or target.get("mode") or "native",
        temperature=temperature,
        tool_choice=choice,
        max_tokens=max_tokens,
        system_prompt=prompt if isinstance(prompt, str) else None,
        params={k: v for k, v in params.items() if k != "seed"},
    )
