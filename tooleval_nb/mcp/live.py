"""Calling the real tools of an MCP server during multi-turn chains (instead of mock responses).

The runner's multi-turn loop answers each tool call a model makes. By default it answers with
the case's ``mock_responses``; with an explicit switch it can hand the call to a
:class:`ToolExecutor` instead, such as :class:`MCPToolRunner`, which keeps one connection to the
server open for the whole run and returns a :class:`LiveToolResult` for every call, to be sent
back to the model (:meth:`LiveToolResult.to_message`) and recorded in the trace.

``call`` never raises for what a model or a server can get wrong: bad JSON arguments, an unknown
tool, a tool error, a timeout or a lost connection all come back as a result with ``error`` set.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from ..errors import MCPImportError
from ..suite import Tool
from .client import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_LIST_TIMEOUT,
    fetch_tools,
    open_client,
)
from .failures import describe_failure
from .failures import leaves as flatten
from .target import MCPTarget, resolve_target

if TYPE_CHECKING:  # pragma: no cover
    from mcp import Client

__all__ = [
    "LiveErrorType",
    "LiveToolResult",
    "ToolExecutor",
    "MCPToolRunner",
    "DEFAULT_CALL_TIMEOUT",
]

#: Why a live call failed.
LiveErrorType = Literal[
    "bad_arguments", "unknown_tool", "tool", "timeout", "connection", "protocol"
]

DEFAULT_CALL_TIMEOUT = 30.0


class LiveToolResult(BaseModel):
    """What one real tool call returned (or why it failed)."""

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    #: the text sent back to the model as the tool message
    content: str = ""
    #: the tool's ``structuredContent``, when it gave one
    structured: Any = None
    #: the tool (or the call) failed; ``content`` then explains why
    is_error: bool = False
    error: str | None = None
    error_type: LiveErrorType | None = None
    latency_ms: float = 0.0

    def to_message(self, tool_call_id: str) -> dict[str, Any]:
        """The OpenAI ``tool`` message answering the call ``tool_call_id``."""
        return {
            "role": "tool",
            "tool_call_id": tool_call_id,
            "name": self.name,
            "content": self.content,
        }


@runtime_checkable
class ToolExecutor(Protocol):
    """Anything that can execute a model's tool call for the runner's multi-turn loop."""

    async def call(self, name: str, arguments: dict[str, Any] | str | None) -> LiveToolResult: ...


class MCPToolRunner:
    """One open connection to an MCP server that executes tool calls for real.

    Use it as an async context manager (or call :meth:`start` and :meth:`aclose`)::

        async with MCPToolRunner("http://127.0.0.1:8000/sse", call_timeout=10) as live:
            result = await live.call("get_weather", {"city": "Paris"})

    The connection is held by a background task, so ``call`` may be awaited from any task of
    the same event loop, concurrently. The first call connects if :meth:`start` was not called.
    A lost connection is reopened on the next call; when reopening fails, later calls fail fast
    (``error_type="connection"``) until :meth:`start` succeeds again.

    Args:
        target: URL or command line of the server (as for :func:`~tooleval_nb.mcp.import_mcp`).
        transport: override the transport guessed from ``target``.
        call_timeout: seconds allowed for each tool call.
        connect_timeout: seconds allowed for connecting.
        list_timeout: seconds allowed for listing the tools once connected.
        tools: only these tools may be called (names or suite tools, e.g. ``suite.tools``;
            default: every tool the server lists, including tools an import skipped).
        env: as for :func:`~tooleval_nb.mcp.import_mcp`.
        cwd: as for :func:`~tooleval_nb.mcp.import_mcp`.
        headers: as for :func:`~tooleval_nb.mcp.import_mcp`.
    """

    def __init__(
        self,
        target: str | Sequence[str] | MCPTarget,
        *,
        transport: str | None = None,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        list_timeout: float = DEFAULT_LIST_TIMEOUT,
        tools: Iterable[str | Tool] | None = None,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.target = resolve_target(target, transport, env=env, cwd=cwd, headers=headers)
        self.call_timeout = call_timeout
        self.connect_timeout = connect_timeout
        self.list_timeout = list_timeout
        self.allowed = (
            {t if isinstance(t, str) else t.name for t in tools} if tools is not None else None
        )
        self.tool_names: list[str] = []
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        #: why the last (re)connection failed; calls fail fast until start() succeeds again
        self._failed: str | None = None

    def __repr__(self) -> str:
        state = "connected" if self._client is not None else "closed"
        return f"MCPToolRunner({self.target.label!r}, {state}, tools={len(self.tool_names)})"

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self) -> MCPToolRunner:
        """Connect (if not connected) and list the tools.

        Raises:
            MCPImportError: the server could not be reached or listed in time.
        """
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._client is not None:
                return self
            self._closing = asyncio.Event()
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._task = task = asyncio.create_task(
                self._hold(ready, self._closing), name=f"mcp-live {self.target.label}"
            )
            try:
                await ready
            except asyncio.CancelledError:  # stop connecting: leave no server process behind
                task.cancel()
                raise
            self._failed = None
        return self

    async def _hold(self, ready: asyncio.Future[None], closing: asyncio.Event) -> None:
        import anyio

        held: Client | None = None
        try:
            async with open_client(self.target, connect_timeout=self.connect_timeout) as client:
                try:
                    with anyio.fail_after(self.list_timeout):
                        listed, _, _ = await fetch_tools(client, max_tools=100_000)
                except TimeoutError as exc:
                    raise MCPImportError(
                        f"MCP server {self.target.label} did not list its "
                        f"tools within {self.list_timeout:g} s; raise "
                        "list_timeout if the server is just slow"
                    ) from exc
                except Exception as exc:  # an answer that is not valid MCP, a closed stream
                    raise MCPImportError(
                        describe_failure(self.target, "listing tools from", exc)
                    ) from exc
                self.tool_names = [t["name"] for t in listed]
                self._client = held = client
                ready.set_result(None)
                await closing.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(
                    exc
                    if isinstance(exc, Exception)
                    else MCPImportError(f"connecting to {self.target.label} was cancelled")
                )
            if not isinstance(exc, Exception):
                raise
        finally:
            if held is not None and self._client is held:
                self._client = None

    async def aclose(self) -> None:
        """Close the connection (stops a stdio server); safe to call twice."""
        task, self._task = self._task, None
        if self._closing is not None:
            self._closing.set()
        if task is not None:  # closing must not fail a run: the task's outcome is not raised
            done, _ = await asyncio.wait({task}, timeout=10.0)
            if not done:
                task.cancel()
                await asyncio.wait({task}, timeout=5.0)
            if task.done() and not task.cancelled():
                task.exception()  # retrieved, so asyncio does not log it

    async def __aenter__(self) -> MCPToolRunner:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- calls ----------------------------------------------------------------------------
    async def call(
        self, name: str, arguments: dict[str, Any] | str | None = None
    ) -> LiveToolResult:
        """Execute one tool call on the server; never raises for tool or server failures."""
        start = time.perf_counter()
        args = _parse_arguments(arguments)
        if not isinstance(args, dict):
            return _failed(name, arguments or "", "bad_arguments", args, start)
        client = await self._connected(name, args, start)
        if isinstance(client, LiveToolResult):
            return client
        if name not in self.tool_names or (self.allowed is not None and name not in self.allowed):
            usable = [n for n in self.tool_names if self.allowed is None or n in self.allowed]
            return _failed(
                name,
                args,
                "unknown_tool",
                f"unknown tool {name!r}; available tools: {', '.join(usable)}",
                start,
            )
        try:
            import anyio

            with anyio.fail_after(self.call_timeout + 1.0):  # the SDK's own timeout fires first
                result = await client.call_tool(name, args, read_timeout_seconds=self.call_timeout)
        except Exception as exc:
            kind, text = _classify(exc, self.call_timeout)
            if kind == "connection":
                await self._drop()
            return _failed(name, args, kind, text, start)
        content = _content_text(result)
        return LiveToolResult(
            name=name,
            arguments=args,
            content=content,
            structured=result.structured_content,
            is_error=bool(result.is_error),
            error=content if result.is_error else None,
            error_type="tool" if result.is_error else None,
            latency_ms=(time.perf_counter() - start) * 1000,
        )

    async def _connected(
        self, name: str, args: dict[str, Any], start: float
    ) -> Client | LiveToolResult:
        if self._client is None:  # not connected yet, or the connection was lost
            if self._failed is not None:
                return _failed(name, args, "connection", self._failed, start)
            try:
                await self.start()
            except MCPImportError as exc:
                self._failed = str(exc)
                return _failed(name, args, "connection", str(exc), start)
        assert self._client is not None
        return self._client

    async def _drop(self) -> None:
        self._client = None
        if self._closing is not None:
            self._closing.set()


def _parse_arguments(arguments: dict[str, Any] | str | None) -> dict[str, Any] | str:
    """The arguments as a dict, or a message saying why they are not a JSON object."""
    if arguments is None:
        return {}
    if isinstance(arguments, dict):
        return arguments
    if not arguments.strip():
        return {}
    try:
        value = json.loads(arguments)
    except ValueError as exc:
        return f"the arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return f"the arguments must be a JSON object, got {type(value).__name__}"
    return value


def _failed(
    name: str, args: dict[str, Any] | str, kind: LiveErrorType, text: str, start: float
) -> LiveToolResult:
    return LiveToolResult(
        name=name,
        arguments=args,
        content=f"Error: {text}",
        is_error=True,
        error=text,
        error_type=kind,
        latency_ms=(time.perf_counter() - start) * 1000,
    )


def _classify(exc: BaseException, timeout: float) -> tuple[LiveErrorType, str]:
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

    leaves = flatten(exc)
    err = next((e for e in leaves if isinstance(e, MCPError)), None)
    if isinstance(exc, TimeoutError) or (err is not None and err.code == REQUEST_TIMEOUT):
        return "timeout", f"the tool did not answer within {timeout:g} s"
    if err is not None and err.code == CONNECTION_CLOSED:
        return "connection", f"the connection closed during the call ({err})"
    if err is not None:
        return "protocol", f"the server refused the call ({err})"
    if any(isinstance(e, (OSError, ConnectionError)) for e in leaves):
        return "connection", f"the connection failed during the call ({leaves[0]})"
    return "protocol", f"{type(leaves[0]).__name__}: {leaves[0]}"


def _content_text(result: Any) -> str:
    """The text a model should see for a ``CallToolResult``."""
    parts: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind}: {getattr(block, 'mime_type', '')}]")
        elif kind == "resource":
            res = block.resource
            parts.append(getattr(res, "text", None) or f"[resource: {res.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource: {block.uri}]")
        else:
            parts.append(json.dumps(block.model_dump(mode="json", exclude_none=True)))
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)
