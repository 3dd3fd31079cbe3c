"""Rewards by tau2's own evaluator: each simulation scored as tau2's CLI scores it.

:func:`evaluate` calls tau2's ``evaluate_simulation`` with evaluation type ``ALL`` (what tau2's
run and its ``evaluate_trajectories`` script use): the reward basis of the task (DB,
COMMUNICATE, ENV_ASSERTION, ACTION) decides which parts multiply. A simulation ended by anything
but the agent or the user scores 0, as tau2 scores it; a simulation tau2 skipped (an
infrastructure error, ``skipped``) stays as tau2 leaves it: reward 0.

What tau2's evaluator refuses is reported as **not scored**, with the reason, never raised and
never given a reward: a simulation whose replayed tool answers differ from the stored ones
(tau2 replays every tool call against a fresh environment; an answer that holds a pydantic error
text differs when pydantic's version does, since the text carries a link with the version), a
task whose reward basis holds NL assertions (they need an LLM judge, which evaluation type
``ALL`` does not run), or any other error of the evaluator.

:func:`evaluate_many` scores many simulations in one scoring session (:mod:`.session`: each
large database parsed once, the cycle collector paused; the same evaluator call, about three
times as fast as tau2's own loop on airline and retail: benchmarks/bench_tau2_rescore.py), in a
pool of processes when there are enough of them to pay for the workers' start (each imports
tau2 once and keeps its session).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any

from .domains import tau2_registry
from .session import open_session, scoring_domain, scoring_session

if TYPE_CHECKING:  # pragma: no cover
    from tau2.data_model.simulation import Results, RewardInfo, SimulationRun
    from tau2.data_model.tasks import Task

__all__ = ["POOL_FROM", "Verdict", "evaluate", "evaluate_many", "is_solo_mode"]

#: the fewest simulations for which :func:`evaluate_many` starts a pool of processes (each
#: worker imports tau2 and litellm once: about 4 s, so a pool pays off on a few hundred)
POOL_FROM = 200
_PYDANTIC_VERSION = re.compile(r"errors\.pydantic\.dev/(\d+(?:\.\d+)*)/")


@dataclass(frozen=True)
class Verdict:
    """tau2's evaluation of one simulation: its reward info, or why it is not scored."""

    reward_info: RewardInfo | None
    not_scored: str | None = None

    @property
    def reward(self) -> float | None:
        """The reward (None when not scored)."""
        return None if self.reward_info is None else float(self.reward_info.reward)

    @property
    def scored(self) -> bool:
        return self.reward_info is not None


def is_solo_mode(results: Results) -> bool:
    """Whether a results file is a solo run: tau2's ``evaluate_trajectories.is_solo_mode`` rule
    (the agent ``llm_agent_solo`` with the user ``dummy_user``). That module imports rich, which
    the ``tau2`` extra does not install, so its two-line rule is restated here."""
    info = results.info
    return bool(
        info.agent_info.implementation == "llm_agent_solo"
        and info.user_info.implementation == "dummy_user"
    )


def evaluate(
    domain: str, task: Task, simulation: SimulationRun, *, solo_mode: bool = False
) -> Verdict:
    """tau2's reward for ``simulation`` of ``task`` in ``domain`` (evaluation type ``ALL``), or
    the reason it cannot be scored (see the module docstring). Never raises for the
    simulation's content."""
    tau2_registry()
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    with scoring_session():
        try:
            info = evaluate_simulation(
                simulation=simulation,
                task=task,
                evaluation_type=EvaluationType.ALL,
                solo_mode=solo_mode,
                domain=scoring_domain(domain),
            )
        except Exception as exc:  # noqa: BLE001 - every refusal of tau2's evaluator is a result
            return Verdict(None, _reason(exc))
    return Verdict(info)


def _reason(exc: Exception) -> str:
    text = str(exc)
    if isinstance(exc, ValueError) and text.startswith("Tool call:"):
        return _replay_differs(text)
    if "NL assertions are part of the reward basis" in text:
        return (
            "the task's reward basis holds NL assertions, which need an LLM judge (tau2's "
            "evaluation type ALL, which its CLI uses, does not run them)"
        )
    first = text.strip().splitlines()[0] if text.strip() else ""
    return f"tau2's evaluator failed: {type(exc).__name__}: {first[:300]}"


def _replay_differs(text: str) -> str:
    """The reason of tau2's refusal of a replay, from its message (tool call, returned,
    expected), with the pydantic versions when only those differ."""
    call, _, rest = text.partition("\n\nReturned:\n")
    returned, _, expected = rest.partition("\n\nExpected:\n")
    name = re.search(r"^name: (.*)$", call, re.M)
    ident = re.search(r"^id: (.*)$", call, re.M)
    what = f"tool call {ident.group(1) if ident else '?'} ({name.group(1) if name else '?'})"
    stored = _PYDANTIC_VERSION.findall(expected)
    here = _PYDANTIC_VERSION.findall(returned)
    if stored and here and set(stored) != set(here):
        same = _PYDANTIC_VERSION.sub("", expected) == _PYDANTIC_VERSION.sub("", returned)
        return (
            f"the replayed tool answers differ from the stored ones at {what}: the stored "
            f"answer is a pydantic error text of pydantic {stored[0]}, this one of pydantic "
            f"{here[0]}" + ("" if same else ", and its text differs too")
        )
    return (
        f"the replayed tool answers differ from the stored ones at {what}: stored "
        f"{_content(expected)!r}, replayed {_content(returned)!r}"
    )


def _content(message: str) -> str:
    found = re.search(
        r"^content: (.*?)(?:\n(?:Error|turn_idx|timestamp)\b|\Z)", message, re.M | re.S
    )
    value = found.group(1) if found else message
    return value if len(value) <= 160 else value[:157] + "..."


def _start_worker() -> None:
    """A pool worker: tau2 loaded (quiet, offline) before it unpickles its first tau2 object,
    and one scoring session for its life (the worker ends with the pool)."""
    tau2_registry()
    open_session()


def _evaluate_job(job: tuple[str, Any, Any, bool]) -> Verdict:
    domain, task, simulation, solo_mode = job
    return evaluate(domain, task, simulation, solo_mode=solo_mode)


def evaluate_many(
    domain: str,
    jobs: Sequence[tuple[Task, SimulationRun]],
    *,
    solo_mode: bool = False,
    workers: int | None = None,
) -> list[Verdict]:
    """tau2's verdicts for ``(task, simulation)`` pairs, in order.

    Args:
        workers: processes to use; None: one per core when there are :data:`POOL_FROM` or more
            simulations, else this process alone.
    """
    if workers is None:
        workers = (os.cpu_count() or 1) if len(jobs) >= POOL_FROM else 1
    workers = max(1, min(workers, len(jobs)))
    if workers == 1:
        with scoring_session():
            return [evaluate(domain, task, sim, solo_mode=solo_mode) for task, sim in jobs]
    tau2_registry()
    # spawn: a forked kernel (threads, an event loop) is not safe to copy
    with ProcessPoolExecutor(
        workers, mp_context=get_context("spawn"), initializer=_start_worker
    ) as pool:
        chunk = max(1, len(jobs) // (workers * 8))
        args = [(domain, task, sim, solo_mode) for task, sim in jobs]
        return list(pool.map(_evaluate_job, args, chunksize=chunk))
