"""Running a case beyond one call: multi-turn chains, the built-in agent loop, agent callables.

* chain (``multi_turn: true``): call the model, answer each tool call (:mod:`.live`: the case's
  mock response or a live tool), and repeat until the model calls an expected final tool, stops
  calling tools, or ``max_rounds`` is reached;
* built-in agent loop (seed 002 agent cases): the same loop run to the agent's final answer
  (``tool_choice`` relaxed to ``auto`` after the first step); its
  :class:`~tooleval_nb.scoring.Trace` is scored;
* a user's agent callable (sync or async) whose returned trace is scored.

Every model call is one hop of the outcome (:func:`add_hop`): its calls, text, raw text, parse
problems, usage, and the tool results that answered it.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..scoring.trace import Trace
from ..suite import EvalCase, Tool
from ..toolcall import ToolCall
from .live import answer_call
from .record import CaseOutcome, Hop

__all__ = ["Caller", "run_loop", "run_agent_callable", "add_hop", "call_dict", "coerce_trace"]

#: sends ``messages`` with ``tool_choice`` to the case's model; returns a ``ModelReply``
Caller = Callable[[list[dict[str, Any]], Any], Awaitable[Any]]


def call_dict(call: ToolCall) -> dict[str, Any]:
    """``call.model_dump(mode="json")``, built directly (it runs for every call of a run)."""
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.function.name, "arguments": call.function.arguments},
    }


def add_hop(outcome: CaseOutcome, reply: Any, round_: int) -> Hop:
    """Record one model reply as a hop of ``outcome`` (and sum its usage); returns the hop."""
    outcome.add_usage(reply)
    hop: Hop = {
        "round": round_,
        "tool_calls": [call_dict(c) for c in reply.tool_calls],
        "content": reply.content,
        "latency_ms": reply.latency_ms,
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "tries": reply.tries,
        "fallback": reply.fallback,
        "cached": reply.cached,
    }
    raw_text = getattr(reply, "raw_text", None)
    if raw_text is not None and raw_text != reply.content:  # raw-text modes: what was parsed
        hop["raw_text"] = raw_text
    reasoning = getattr(reply, "reasoning_content", None)
    if reasoning:  # what a raw-text parser kept apart from the content (<think>, analysis)
        hop["reasoning_content"] = reasoning
    problems = getattr(reply, "parse_problems", None)
    if problems:
        hop["parse_problems"] = list(problems)
    if reply.error:
        hop["error"] = reply.error
        hop["error_type"] = reply.error_type
    raw = getattr(reply, "raw", None)
    if raw:
        hop["raw"] = raw
    outcome.hops.append(hop)
    if reply.error and outcome.error is None:
        outcome.error = reply.error
        outcome.error_type = reply.error_type or "ModelError"
    return hop


async def run_loop(
    case: EvalCase,
    tools: list[Tool],
    messages: list[dict[str, Any]],
    call: Caller,
    *,
    tool_choice: Any,
    rounds: int,
    stop_at: Sequence[str] | None,
    live: Any = None,
    live_timeout: float | None = None,
) -> CaseOutcome:
    """A chain (``stop_at`` = the expected final tools) or an agent loop (``stop_at`` None).

    ``live`` answers the tool calls when given (a ToolExecutor), else the case's mocks do.
    """
    outcome = CaseOutcome(cached=True)
    messages = list(messages)
    stop_names = {n.lower() for n in stop_at or ()}
    all_results: list[Any] = []
    status = "max_rounds"
    for round_ in range(rounds):
        reply = await call(messages, tool_choice)
        outcome.cached = outcome.cached and bool(reply.cached)
        if reply.error:
            add_hop(outcome, reply, round_)
            status = "error"
            break
        outcome.content = reply.content
        calls = list(reply.tool_calls)
        outcome.tool_calls.extend(calls)
        hop = add_hop(outcome, reply, round_)
        if not calls:
            status = "success"
            break
        answers = [await answer_call(case, tools, c, live, live_timeout) for c in calls]
        results = [result for _, result in answers]
        hop["tool_results"] = results
        all_results.extend(results)
        if stop_names and any(c.name.lower() in stop_names for c in calls):
            status = "success"
            break
        messages.append(
            {
                "role": "assistant",
                "content": reply.content,
                "tool_calls": [call_dict(c) for c in calls],
            }
        )
        messages.extend(message for message, _ in answers)
        if stop_at is None and tool_choice == "required":
            tool_choice = "auto"  # an agent must be free to give its final answer
    if stop_at is None:
        outcome.trace = _make_trace(
            case, outcome.content, outcome.tool_calls, all_results, len(outcome.hops), status
        )
    return outcome


async def run_agent_callable(agent: Any, case: EvalCase) -> CaseOutcome:
    """Run a user's agent (sync in a worker thread, or async) and record its trace."""
    start = time.perf_counter()
    if inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(type(agent).__call__):
        trace = await agent(case)
    else:
        trace = await asyncio.to_thread(agent, case)
        if inspect.isawaitable(trace):
            trace = await trace
    outcome = CaseOutcome(latency_ms=(time.perf_counter() - start) * 1000.0, tries=1)
    trace = coerce_trace(trace, case)
    outcome.trace = trace
    outcome.content = trace.output
    outcome.tool_calls = list(trace.tool_calls)
    outcome.hops = [{"round": 0, "agent": True, "steps": trace.steps, "status": trace.status}]
    return outcome


def _make_trace(
    case: EvalCase,
    output: str | None,
    calls: list[ToolCall],
    results: list[Any],
    n_hops: int,
    status: str,
) -> Any:
    return Trace(
        input=case.prompt_text,
        output=output or "",
        tool_calls=calls,
        tool_results=results,
        n_steps=n_hops,
        status="success" if status == "success" else "error",
        error=None
        if status == "success"
        else f"the agent was still calling tools after {n_hops} round(s) (max_rounds)",
    )


def coerce_trace(trace: Any, case: EvalCase) -> Any:
    """What a user's agent returned, as a :class:`tooleval_nb.scoring.Trace`.

    Accepted: a Trace; a dict (or pydantic model) with Trace's fields, whose ``tool_calls``
    entries may also be ``{"name", "args", "result"}``; a plain string (the final output).
    """
    if isinstance(trace, Trace):
        return trace
    data = trace.model_dump() if hasattr(trace, "model_dump") else trace
    if isinstance(data, str):
        data = {"output": data}
    if not isinstance(data, dict):
        raise TypeError(
            f"the agent returned {type(trace).__name__}; return a te.Trace, a dict "
            "with output, tool_calls, n_steps and status, or a string"
        )
    data = {"input": case.prompt_text, **data}
    calls = data.get("tool_calls") or []
    if calls and all(isinstance(c, dict) and "args" in c for c in calls):
        if not data.get("tool_results"):
            data["tool_results"] = [c.get("result") for c in calls]
        data["tool_calls"] = [
            {"name": c.get("name", ""), "arguments": c.get("args")} for c in calls
        ]
    if isinstance(data.get("steps"), int) and data.get("n_steps") is None:
        data["n_steps"] = data.pop("steps")
    return Trace.model_validate(data)
