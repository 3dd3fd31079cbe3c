"""The agent hook: how a benchmark runs its own conversation in a runner cell.

A benchmark whose cases are conversations (BFCL's multi-turn and memory entries, τ²-bench's
simulations) gives the runner an agent (``prepare_job(..., agent=...)``) with a
:meth:`CaseAgent.run_case` method. The runner's cell (``runner/cell.py``) calls it for every
case, before anything else: ``await agent.run_case(case, label, ask)``.

- ``case`` is the suite's :class:`~tooleval_nb.suite.EvalCase`; ``label`` the model's label
  (one agent serves every model of the run).
- ``ask(messages, tools, tool_choice)`` sends one request to the cell's model through the
  runner (its cache, retries, rate limits and cancellation; the seed of the cell's sample) and
  returns the :class:`~tooleval_nb.models.reply.ModelReply`; a failed request is a reply with
  ``error`` set, never an exception. ``ask(..., model=spec)`` sends it to another model through
  the same cell (its cache, retries, timeout, rate limit and cancellation; τ²-bench's user
  simulator), its calls counted with the cell's; ``ask.seed`` is the cell's sample seed (τ²'s
  trial).
- It returns a :class:`~tooleval_nb.runner.record.CaseOutcome` whose ``hops`` are the requests
  made (:func:`tooleval_nb.runner.chains.add_hop` records one reply as a hop; a benchmark adds
  its own keys to the hop, all kept in the stored detail), or None: not one of its cases, the
  runner runs the case as usual (one request).
- It runs on the runner's event loop: it must not block (file writes and slow work through
  ``asyncio.to_thread``). An exception is the case's error (the runner retries it as it
  retries a failed model call).
- It pickles: ``executor="ray"`` sends it to the replicas with the run's cells (leave a lock,
  an event or an open file out of ``__getstate__``).

A resumed run never calls it again for a case it stored; :func:`done_cells` names those cells
(an agent that orders its cases, as BFCL's memory entries wait for their prerequisites, must not
wait for one of them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ..models.reply import ModelReply
from ..runner import Job
from ..runner.record import CaseOutcome
from ..suite import EvalCase, Tool

__all__ = ["Ask", "CaseAgent", "done_cells"]

#: ``ask(messages, tools, tool_choice, *, model=None) -> ModelReply``: one request to the cell's
#: model (or to ``model``); ``ask.seed``: the cell's sample seed
Ask = Callable[[list[dict[str, Any]], list[Tool], Any], Awaitable[ModelReply]]


class CaseAgent(Protocol):
    """What a benchmark gives the runner as ``agent`` to run its own cases (see the module
    docstring for the contract)."""

    async def run_case(self, case: EvalCase, label: str, ask: Ask) -> CaseOutcome | None:
        """Run one case with ``ask`` (its requests to the model); None: run it as usual."""
        ...


def done_cells(job: Job) -> set[tuple[str, str, int]]:
    """``(model label, case id, sample)`` of every cell the job's run stored already (a resumed
    run: the runner does not run them again)."""
    return {
        (label, case_id, sample or 0)
        for label, _, case_id, sample in job.store.done_keys(job.run_id)
    }
