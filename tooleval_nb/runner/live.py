"""How a chain's tool calls are answered: the case's mock responses (the default), or live tools.

``run_eval(..., live_tools=...)`` switches chains and the built-in agent loop to real tools:

* ``None`` (default): each call is answered with the case's ``mock_responses`` (an error message
  for a tool it has none for);
* an MCP target (a URL, a command line as a string or a list): the job opens one
  :class:`tooleval_nb.mcp.live.MCPToolRunner` (``call_timeout=live_tool_timeout``) on its loop,
  connects and lists the tools before the first case, and closes it when the job ends,
  completed, failed or cancelled. A server that cannot be reached or listed in time fails the
  job at once (:class:`~tooleval_nb.errors.MCPImportError` naming the target), instead of
  every case getting a "could not reach" answer scored as the model's failure;
* an object with ``async call(name, arguments)`` returning a
  :class:`~tooleval_nb.mcp.live.LiveToolResult` (:class:`~tooleval_nb.mcp.live.ToolExecutor`):
  used as given (the caller owns it and closes it).

Only the tools offered to the case (the suite's, or the case's own) are called: a call to any
other tool, even one the server has (such as a tool the import skipped), gets the answer the mock
path gives, ``{"error": "unknown tool ..."}``, and is never sent to the executor.

A live call's message to the model is ``result.to_message(call.id)``; the hop and the trace hold
``result.model_dump()`` (content, error, latency). A tool that fails, hangs past
``live_tool_timeout`` or raises becomes the tool's error answer, never a crashed case. The job's
stored configuration keeps a description (the target, or ``object:module:Class``), never the
object: a resume reopens a target, and needs an object given again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from ..errors import MCPImportError, StoreError
from ..suite import EvalCase, Tool
from ..toolcall import ToolCall

__all__ = ["describe_live", "open_live", "close_live", "answer_call", "mock_result"]

LiveArg = str | Sequence[str] | Any


def is_target(value: Any) -> bool:
    """An MCP target: a URL or command line, or a list of command arguments."""
    return isinstance(value, str) or (
        isinstance(value, (list, tuple)) and all(isinstance(a, str) for a in value)
    )


def describe_live(live: LiveArg | None) -> str | list[str] | None:
    """What the job's configuration stores for ``live_tools`` (JSON, never the object)."""
    if live is None:
        return None
    if is_target(live):
        return live if isinstance(live, str) else list(live)
    if not callable(getattr(live, "call", None)):
        raise TypeError(
            f"live_tools={live!r:.80}: give an MCP target (a URL or a command line) "
            "or an object with `async call(name, arguments)` (a ToolExecutor)"
        )
    cls = type(live)
    return f"object:{cls.__module__}:{cls.__qualname__}"


async def open_live(
    live: LiveArg | None, description: str | list[str] | None, timeout: float | None
) -> tuple[Any, bool]:
    """The executor for a job and whether the job owns it (and must close it).

    ``live`` is the object given to ``run_eval`` / ``resume`` (None after a kernel restart: then
    ``description`` is reopened when it is a target).
    """
    if live is None and description is None:
        return None, False
    if live is None and isinstance(description, str) and description.startswith("object:"):
        raise StoreError(
            f"the run used live tools from an object ({description[7:]}) that is not "
            "stored; give it again: te.resume(job_id, live_tools=my_executor)"
        )
    given: Any = live if live is not None else description
    if not is_target(given):
        return given, False
    # the MCP client loads only for a run with live tools (a third of the runner's imports)
    from ..mcp.live import DEFAULT_CALL_TIMEOUT, MCPToolRunner

    runner = MCPToolRunner(given, call_timeout=timeout or DEFAULT_CALL_TIMEOUT)
    try:
        await runner.start()  # now, so an unreachable server fails the job, not every case
    except MCPImportError as exc:
        await runner.aclose()
        raise MCPImportError(
            f"live_tools={given!r} could not be opened: {exc}\nThe run answers tool calls with "
            "this server's tools: start it or fix the target, then run again; or leave "
            "live_tools out to answer with the cases' mock responses."
        ) from exc
    return runner, True


async def close_live(executor: Any, owned: bool) -> None:
    """Close an executor the job opened (never raises: closing must not fail a run)."""
    if owned and executor is not None:
        try:
            await executor.aclose()
        except Exception:  # noqa: BLE001 - the run's outcome stands
            pass


async def answer_call(
    case: EvalCase, tools: list[Tool], call: ToolCall, executor: Any, timeout: float | None
) -> tuple[dict[str, Any], Any]:
    """The tool message answering ``call`` and what the hop and trace record for it."""
    if executor is None:
        result = mock_result(case, tools, call)
        return (
            {
                "role": "tool",
                "tool_call_id": call.id,
                "name": call.name,
                "content": json.dumps(result, ensure_ascii=False, default=str),
            },
            result,
        )
    from ..mcp.live import LiveToolResult  # live tools: loaded by open_live already

    if call.name not in {t.name for t in tools}:  # never sent: the answer the mock path gives
        text = _unknown_tool(call.name, tools)
        res = LiveToolResult(
            name=call.name,
            arguments=call.function.arguments,
            content=json.dumps({"error": text}, ensure_ascii=False),
            is_error=True,
            error=text,
            error_type="unknown_tool",
        )
    else:
        res = await _live_call(executor, call, timeout)
    return res.to_message(call.id), res.model_dump(mode="json")


async def _live_call(executor: Any, call: ToolCall, timeout: float | None) -> Any:
    from ..mcp.live import LiveToolResult, MCPToolRunner  # live tools: loaded already

    arguments = call.function.arguments
    if isinstance(executor, MCPToolRunner):
        timeout = None  # it bounds its own calls (call_timeout) and connections
    try:
        async with asyncio.timeout(timeout):
            res = await executor.call(call.name, arguments)
    except TimeoutError:
        text = f"the tool did not answer within {timeout:g} s"
        return LiveToolResult(
            name=call.name,
            arguments=arguments,
            content=f"Error: {text}",
            is_error=True,
            error=text,
            error_type="timeout",
            latency_ms=(timeout or 0.0) * 1000,
        )
    except Exception as exc:  # a user's executor that raised: the tool's error answer
        text = f"{type(exc).__name__}: {exc}"
        return LiveToolResult(
            name=call.name,
            arguments=arguments,
            content=f"Error: {text}",
            is_error=True,
            error=text,
            error_type="protocol",
        )
    if isinstance(res, LiveToolResult):
        return res
    if hasattr(res, "to_message") and hasattr(res, "model_dump"):
        return res
    content = res if isinstance(res, str) else json.dumps(res, ensure_ascii=False, default=str)
    return LiveToolResult(name=call.name, arguments=arguments, content=content)


def mock_result(case: EvalCase, tools: list[Tool], call: ToolCall) -> Any:
    """The answer to one tool call in a chain: the case's mock response, else an error message."""
    mocks = case.mock_responses or {}
    if call.name in mocks:
        return mocks[call.name]
    lowered = {k.lower(): v for k, v in mocks.items()}
    if call.name.lower() in lowered:
        return lowered[call.name.lower()]
    if call.name not in {t.name for t in tools}:
        return {"error": _unknown_tool(call.name, tools)}
    return {"error": f"tool {call.name!r} returned no data (no mock response for it in this case)"}


def _unknown_tool(name: str, tools: list[Tool]) -> str:
    return f"unknown tool {name!r}; available tools: {', '.join(t.name for t in tools)}"
