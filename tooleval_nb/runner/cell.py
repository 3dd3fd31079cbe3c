"""One cell of a run, run to its outcome: :class:`CaseRunner`.

A cell is a target's case and sample. Running it means the model call, or a chain or agent loop
(:mod:`.chains`), or the user's agent callable, under the case's timeout and retries; the result
is a :class:`~.record.CaseOutcome`. Scoring and storing it are the executor's
(:mod:`.execute`), so a cell runs the same here or on a Ray replica (:mod:`tooleval_nb.cluster`),
which unpickles a ``CaseRunner`` and calls :meth:`CaseRunner.run_cell`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ..errors import ModelConfigError
from ..models import RetryPolicy, build_messages, call_model_async
from ..scoring.kind import case_kind
from ..suite import EvalCase, Tool
from .chains import add_hop, run_agent_callable, run_loop
from .limits import RateLimiter
from .live import close_live, open_live
from .plan import Plan, Target
from .record import CaseOutcome

__all__ = ["CaseRunner", "is_agent_case", "NO_LIMIT"]


def is_agent_case(case: EvalCase) -> bool:
    """A seed-002 agent case: no call is expected; the final output, the trajectory or graders
    judge it (as :func:`tooleval_nb.scoring.kind.case_kind` decides)."""
    return case_kind(case) == "agent"


class CaseRunner:
    """Runs one cell (a target's case and sample) to its :class:`CaseOutcome`: the model call,
    or a chain or agent loop (:mod:`.chains`), or the user's agent callable, under the case's
    timeout and retries. Scoring and storing are the :class:`Executor`'s.

    It pickles (the plan's settings, suite, targets and agent go with it), so a Ray replica
    runs cells with this very code (:meth:`run_cell`); live tools the job opened from an MCP
    target are not sent but opened again by the replica, and closed by :meth:`aclose`.
    """

    def __init__(self, plan: Plan) -> None:
        self.settings = plan.settings
        self.suite = plan.suite
        self.agent = plan.agent
        self.targets = plan.targets
        self.cases = dict(plan.cases)
        self.retry: Any = None
        if self.settings.retry is not None:
            self.retry = RetryPolicy(**self.settings.retry)
        self.live: Any = None
        self.live_owned = False
        #: per case: whether it runs as a loop (a chain or an agent case)
        self._loops: dict[int, bool] = {}
        self._opening: asyncio.Lock | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if self.live_owned:  # the job's MCP session stays here: a replica opens its own
            state["live"], state["live_owned"] = None, False
        state["_loops"], state["_opening"] = {}, None
        return state

    async def run_cell(
        self,
        target_index: int,
        case_index: int,
        sample: int,
        *,
        limiter: Any = None,
        api_base: str | None = None,
        replica: str | None = None,
    ) -> CaseOutcome:
        """One cell, as a replica runs it: ``api_base`` overrides the target's endpoint (the
        replica's own server), ``limiter`` is the group's shared rate limit, ``replica`` is
        written into each hop (``detail.hops[i].replica``: which replica served the cell)."""
        if self.live is None and self.settings.live_tools is not None:
            await self._open_live()
        target = self.targets[target_index]
        if api_base is not None:
            target = Target(
                label=target.label,
                index=target.index,
                spec=target.spec.model_copy(update={"api_base": api_base}),
            )
        case = self.cases[case_index]
        outcome = await self.attempts(
            target,
            case,
            self.suite.tools_for(case),
            self.settings.seed_for(sample),
            limiter if limiter is not None else NO_LIMIT,
        )
        if replica is not None:
            for hop in outcome.hops:
                hop["replica"] = replica
        return outcome

    @staticmethod
    def failed(error: str, error_type: str) -> CaseOutcome:
        """The outcome of a cell its replica could not run (its model server did not start)."""
        return CaseOutcome(error=error, error_type=error_type, tries=1)

    async def _open_live(self) -> None:
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self.live is None:
                self.live, self.live_owned = await open_live(
                    None, self.settings.live_tools, self.settings.live_tool_timeout
                )

    async def aclose(self) -> None:
        """Close the live tools this runner opened (a replica's own MCP session)."""
        live, self.live = self.live, None
        await close_live(live, self.live_owned)

    async def attempts(
        self, target: Target, case: EvalCase, tools: list[Tool], seed: int | None, limiter: Any
    ) -> CaseOutcome:
        """The case run with its retries (a model call or agent that failed; never one that
        merely scored badly) under its timeout. ``ModelConfigError`` propagates."""
        timeout = case.timeout or self.settings.case_timeout
        retries = case.retries or self.settings.retries
        outcome = CaseOutcome()
        tries = 0
        for _ in range(retries + 1):
            try:
                async with asyncio.timeout(timeout):
                    outcome = await self._run_case(target, case, tools, seed, limiter)
            except TimeoutError:
                outcome = CaseOutcome(
                    error=f"case {case.label!r} timed out after {timeout:g} s "
                    "(raise the case's timeout)",
                    error_type="timeout",
                    tries=1,
                )
            except ModelConfigError:
                raise  # misconfiguration: every case would fail alike; fail the job at once
            except Exception as exc:  # an agent callable or a model layer that raised
                outcome = CaseOutcome(
                    error=f"{type(exc).__name__}: {exc}", error_type=type(exc).__name__, tries=1
                )
            tries += outcome.tries
            if outcome.error is None:
                break
        outcome.tries = tries
        return outcome

    def _is_loop(self, case: EvalCase) -> bool:
        loop = self._loops.get(id(case))  # the plan's case objects live as long as the run
        if loop is None:
            loop = self._loops[id(case)] = case.multi_turn or is_agent_case(case)
        return loop

    async def _run_case(
        self, target: Target, case: EvalCase, tools: list[Tool], seed: int | None, limiter: Any
    ) -> CaseOutcome:
        if self.agent is not None:
            run_case = getattr(self.agent, "run_case", None)
            if run_case is None:
                return await run_agent_callable(self.agent, case)

            async def ask(
                msgs: list[dict[str, Any]],
                offered: list[Tool],
                tool_choice: Any,
                *,
                model: Any = None,
            ) -> Any:
                asked = target if model is None else Target(target.label, model, target.index)
                return await self._call(asked, msgs, offered, tool_choice, seed, limiter)

            ask.seed = seed  # type: ignore[attr-defined]  # the sample's seed (τ²'s trial)
            # an agent that asks the run's model itself (BFCL's multi-turn loop, τ²'s agent and
            # user): its requests are the cell's (cache, retries, rate limits); ``model`` asks
            # another model (τ²'s user simulator) the same way; None runs the case as usual
            outcome: CaseOutcome | None = await run_case(case, target.label, ask)
            if outcome is not None:
                return outcome
        messages = build_messages(
            case,
            suite_system_prompt=self.suite.system_prompt,
            system_prompt=self.settings.system_prompt,
            model=target.spec,
        )
        rounds = self.settings.max_rounds or case.max_rounds
        if self._is_loop(case):

            async def call(msgs: list[dict[str, Any]], tool_choice: Any) -> Any:
                return await self._call(target, msgs, tools, tool_choice, seed, limiter)

            return await run_loop(
                case,
                tools,
                messages,
                call,
                tool_choice=self.settings.tool_choice,
                rounds=rounds,
                stop_at=case.expected_names() if case.multi_turn else None,
                live=self.live,
                live_timeout=self.settings.live_tool_timeout,
            )
        outcome = CaseOutcome()
        reply = await self._call(target, messages, tools, self.settings.tool_choice, seed, limiter)
        add_hop(outcome, reply, 0)
        outcome.tool_calls = list(reply.tool_calls)
        outcome.content = reply.content
        outcome.cached = bool(getattr(reply, "cached", False))
        return outcome

    async def _call(
        self,
        target: Target,
        messages: list[dict[str, Any]],
        tools: list[Tool],
        tool_choice: Any,
        seed: int | None,
        limiter: Any,
    ) -> Any:
        params: dict[str, Any] = {
            "temperature": self.settings.temperature,
            **self.settings.params,
            **target.spec.params,
        }
        if seed is not None:
            params["seed"] = seed
        handle = None
        if limiter.active:
            estimate = len(json.dumps(messages, default=str)) / 4 + 64 * len(tools)
            handle = await limiter.acquire(estimate)
        reply = await call_model_async(
            target.spec,
            messages,
            tools=tools or None,
            tool_choice=tool_choice if tools else "none",
            timeout=self.settings.timeout,
            cache=self.settings.cache,
            retry=self.retry,
            **params,
        )
        if handle is not None:
            used = (reply.prompt_tokens or 0) + (reply.completion_tokens or 0)
            limiter.settle(handle, used or None)
        return reply


#: the limiter of a cell sent without one (no rpm / tpm set)
NO_LIMIT = RateLimiter()
