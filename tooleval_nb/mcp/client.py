"""Connecting to MCP servers and listing their tools, with the official ``mcp`` SDK.

A target (:mod:`.target`) is a URL or a command line.

Every step is bounded: connecting (including the protocol handshake) by ``connect_timeout`` and
listing by ``list_timeout``. Whatever goes wrong (refused connection, HTTP error, a server that
never answers, a command that is not found or exits) surfaces as one :class:`MCPImportError`
whose message names the target, the step and what to try next.
"""

from __future__ import annotations

import importlib.metadata
import math
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING, Any, TextIO, cast

from pydantic import BaseModel, Field

from ..errors import MCPImportError
from .failures import describe_failure, endpoint_hint, single_leaf, stderr_tail
from .target import MCPTarget, MCPTransport, resolve_target
from .wire import ScreenedTransport, ToolScreen

if TYPE_CHECKING:  # pragma: no cover
    from mcp import Client

__all__ = [
    # a target is defined in .target; named here because the client takes one
    "MCPTransport",
    "MCPTarget",
    "resolve_target",
    "MCPListing",
    "open_client",
    "fetch_tools",
    "list_tools_async",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_LIST_TIMEOUT",
    "DEFAULT_MAX_TOOLS",
]

DEFAULT_CONNECT_TIMEOUT = 20.0
DEFAULT_LIST_TIMEOUT = 30.0
#: more tools than this are cut (with a warning); models choke on huge tool lists anyway
DEFAULT_MAX_TOOLS = 1000
#: a paginating server that never stops is cut after this many pages
_MAX_PAGES = 1000
#: how long a server's event stream may stay silent; our own timeouts bound every request, and
#: a live-tools connection must survive the quiet stretches of a long run
_STREAM_IDLE = 3600.0


def _transport(target: MCPTarget, timeout: float, errlog: IO[str] | None) -> Any:
    if target.transport == "stdio":
        from mcp.client.stdio import StdioServerParameters, stdio_client

        cmd = target.command or []
        params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=target.env, cwd=target.cwd)
        if errlog is None:
            return stdio_client(params)
        return stdio_client(params, errlog=cast(TextIO, errlog))
    assert target.url is not None
    if target.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(
            target.url, headers=target.headers, timeout=timeout, sse_read_timeout=_STREAM_IDLE
        )
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(
        headers=target.headers, timeout=httpx2.Timeout(timeout, read=_STREAM_IDLE)
    )
    return _owning(streamable_http_client(target.url, http_client=http), http)


@asynccontextmanager
async def _owning(inner: Any, http: Any) -> AsyncIterator[Any]:
    async with http, inner as streams:
        yield streams


@asynccontextmanager
async def open_client(
    target: MCPTarget,
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    screen: ToolScreen | None = None,
) -> AsyncIterator[Client]:
    """Connect to ``target`` and yield a ready ``mcp.Client`` (handshake done).

    The connection, including the handshake, must finish within ``connect_timeout`` seconds;
    failures to connect raise :class:`MCPImportError`. Errors raised by the body pass through.
    ``screen`` (a :class:`ToolScreen`) collects the tools dropped from ``tools/list`` answers.
    """
    from mcp import Client, Implementation

    version = importlib.metadata.version("tooleval_nb")  # not the facade: an upward arrow

    errlog: IO[str] | None = None
    if target.transport == "stdio":
        errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
    transport = ScreenedTransport(
        _transport(target, connect_timeout, errlog), screen or ToolScreen()
    )
    connected = False
    try:
        with _cancel_scope(connect_timeout) as scope:
            async with Client(
                transport, client_info=Implementation(name="tooleval_nb", version=version)
            ) as client:
                connected = True
                scope.deadline = math.inf
                yield client
        if scope.cancelled_caught and not connected:
            raise MCPImportError(
                f"MCP server {target.label} ({target.transport}) did not complete the "
                f"connection within {connect_timeout:g} s. Check that it is running and that "
                f"this is its {endpoint_hint(target)}; raise connect_timeout for a slow server."
                + stderr_tail(errlog)
            )
    except Exception as exc:
        # the SDK's task groups wrap what the body raised: hand back the one real error
        inner = single_leaf(exc)
        if connected or isinstance(inner, MCPImportError):
            if inner is exc:
                raise
            raise inner from inner.__cause__
        raise MCPImportError(
            describe_failure(target, "connecting", exc) + stderr_tail(errlog)
        ) from exc
    finally:
        if errlog is not None:
            errlog.close()


def _cancel_scope(seconds: float) -> Any:
    import anyio

    return anyio.CancelScope(deadline=anyio.current_time() + seconds)


async def fetch_tools(
    client: Client, *, max_tools: int = DEFAULT_MAX_TOOLS
) -> tuple[list[dict[str, Any]], bool, int]:
    """Every tool the connected server lists, following cursors.

    Returns:
        ``(tools, truncated, pages)``: raw MCP tool dicts (wire names, e.g. ``inputSchema``),
        whether ``max_tools`` (or a server whose cursor never ends) cut the list, and the number
        of pages read.
    """
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    pages = 0
    while True:
        page = await client.list_tools(cursor=cursor, cache_mode="bypass")
        pages += 1
        tools.extend(
            t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools
        )
        cursor = page.next_cursor
        if len(tools) >= max_tools:
            return tools[:max_tools], len(tools) > max_tools or cursor is not None, pages
        if cursor is None:
            return tools, False, pages
        if cursor in seen or pages >= _MAX_PAGES:
            return tools, True, pages
        seen.add(cursor)


class MCPListing(BaseModel):
    """What a server said when asked for its tools."""

    target: MCPTarget
    server_name: str | None = None
    server_title: str | None = None
    server_version: str | None = None
    instructions: str | None = None
    protocol_version: str | None = None
    #: raw MCP tool dicts, as listed (wire field names such as ``inputSchema``)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    #: tools dropped because the SDK would reject them: name -> reason
    rejected: dict[str, str] = Field(default_factory=dict)
    #: whether the list was cut at ``max_tools`` (or by a cursor that never ends)
    truncated: bool = False
    max_tools: int = DEFAULT_MAX_TOOLS
    pages: int = 0
    elapsed_ms: float = 0.0


async def list_tools_async(
    target: str | Sequence[str] | MCPTarget,
    *,
    transport: str | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    list_timeout: float = DEFAULT_LIST_TIMEOUT,
    max_tools: int = DEFAULT_MAX_TOOLS,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    headers: dict[str, str] | None = None,
) -> MCPListing:
    """Connect to an MCP server, list all its tools and disconnect.

    Raises:
        MCPImportError: the server could not be reached, timed out, or answered wrongly.
    """
    import anyio

    resolved = resolve_target(target, transport, env=env, cwd=cwd, headers=headers)
    if max_tools < 1:
        raise MCPImportError(f"max_tools must be at least 1, got {max_tools}")
    screen = ToolScreen()
    start = time.perf_counter()
    async with open_client(resolved, connect_timeout=connect_timeout, screen=screen) as client:
        try:
            with anyio.fail_after(list_timeout):
                tools, truncated, pages = await fetch_tools(client, max_tools=max_tools)
        except TimeoutError as exc:
            raise MCPImportError(
                f"MCP server {resolved.label} connected but did not list its tools within "
                f"{list_timeout:g} s; raise list_timeout if the server is just slow"
            ) from exc
        except Exception as exc:
            raise MCPImportError(describe_failure(resolved, "listing tools from", exc)) from exc
        info = client.server_info
        return MCPListing(
            target=resolved,
            server_name=info.name if info else None,
            server_title=getattr(info, "title", None) if info else None,
            server_version=(info.version or None) if info else None,
            instructions=client.instructions,
            protocol_version=client.protocol_version,
            tools=tools,
            rejected=dict(screen.rejected),
            truncated=truncated,
            max_tools=max_tools,
            pages=pages,
            elapsed_ms=(time.perf_counter() - start) * 1000,
        )
