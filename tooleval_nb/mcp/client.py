"""Connecting to MCP servers and listing their tools, with the official ``mcp`` SDK.

A target is a URL or a command line:

* ``http(s)://host/.../sse`` is an SSE endpoint (the transport of the seed's "Import from MCP");
* any other ``http(s)://`` URL is a streamable-HTTP endpoint (usually ``.../mcp``);
* a command line (a string or a list of arguments) starts a stdio server as a subprocess;
* ``transport=`` overrides the guess for URLs.

Every step is bounded: connecting (including the protocol handshake) by ``connect_timeout`` and
listing by ``list_timeout``. Whatever goes wrong (refused connection, HTTP error, a server that
never answers, a command that is not found or exits) surfaces as one :class:`MCPImportError`
whose message names the target, the step and what to try next.
"""

from __future__ import annotations

import importlib.metadata
import math
import shlex
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING, Any, Literal, TextIO, cast
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from ..credentials import redact_command
from ..errors import MCPImportError
from .failures import describe_failure, endpoint_hint, single_leaf, stderr_tail
from .wire import ScreenedTransport, ToolScreen

if TYPE_CHECKING:  # pragma: no cover
    from mcp import Client

__all__ = [
    "MCPTransport",
    "MCPTarget",
    "MCPListing",
    "resolve_target",
    "open_client",
    "fetch_tools",
    "list_tools_async",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_LIST_TIMEOUT",
    "DEFAULT_MAX_TOOLS",
]

#: How the client talks to the server.
MCPTransport = Literal["sse", "streamable_http", "stdio"]

DEFAULT_CONNECT_TIMEOUT = 20.0
DEFAULT_LIST_TIMEOUT = 30.0
#: more tools than this are cut (with a warning); models choke on huge tool lists anyway
DEFAULT_MAX_TOOLS = 1000
#: a paginating server that never stops is cut after this many pages
_MAX_PAGES = 1000
#: how long a server's event stream may stay silent; our own timeouts bound every request, and
#: a live-tools connection must survive the quiet stretches of a long run
_STREAM_IDLE = 3600.0


class MCPTarget(BaseModel):
    """Where an MCP server is and how to reach it (see the module docstring)."""

    model_config = ConfigDict(frozen=True)

    transport: MCPTransport
    url: str | None = None
    command: list[str] | None = None
    #: credentials often (API keys for a stdio server, an ``Authorization`` header): never
    #: shown nor dumped
    env: dict[str, str] | None = Field(default=None, repr=False, exclude=True)
    cwd: str | None = None
    headers: dict[str, str] | None = Field(default=None, repr=False, exclude=True)

    @property
    def label(self) -> str:
        """How messages and imported suites name the target: the URL without credentials or
        query, or the command line with its credential flags' values redacted."""
        if self.url is not None:
            parts = urlsplit(self.url)
            host = parts.hostname or ""
            netloc = f"{host}:{parts.port}" if parts.port else host
            return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        return shlex.join(redact_command(self.command or []))


def resolve_target(
    target: str | Sequence[str] | MCPTarget,
    transport: str | None = None,
    *,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    headers: dict[str, str] | None = None,
) -> MCPTarget:
    """Turn what a user typed into an :class:`MCPTarget`.

    Args:
        target: a URL, a command line (string or list of arguments), or an MCPTarget.
        transport: ``"sse"``, ``"streamable_http"`` (also ``"streamable-http"``, ``"http"``) or
            ``"stdio"``; None guesses from the target.
        env: extra environment variables for a stdio server (the SDK passes it only HOME,
            LOGNAME, PATH, SHELL, TERM and USER from ours, plus these).
        cwd: working directory of a stdio server.
        headers: extra HTTP headers (e.g. ``Authorization``) for URL targets.

    Raises:
        MCPImportError: the target is empty, or the transport does not fit it.
    """
    if isinstance(target, MCPTarget):
        return target
    kind = _transport_name(transport)
    if isinstance(target, str) and target.strip().lower().startswith(("http://", "https://")):
        url = target.strip()
        if kind == "stdio":
            raise MCPImportError(
                f"MCP target {url!r} is a URL but transport='stdio' was given; "
                "give a command line for stdio, or transport='sse' / "
                "'streamable_http' for a URL"
            )
        if kind is None:
            kind = "sse" if urlsplit(url).path.rstrip("/").endswith("/sse") else "streamable_http"
        return MCPTarget(transport=kind, url=url, headers=headers)
    if isinstance(target, str) and "://" in target:
        raise MCPImportError(
            f"MCP target {target!r}: only http:// and https:// URLs are "
            "supported (or a command line for a stdio server)"
        )
    command = shlex.split(target) if isinstance(target, str) else [str(a) for a in target]
    if not command:
        raise MCPImportError(
            "MCP target is empty: give the server's URL (e.g. "
            "'http://127.0.0.1:8000/sse') or the command that starts it"
        )
    if kind not in (None, "stdio"):
        raise MCPImportError(
            f"MCP target {shlex.join(command)!r} is a command line, which runs "
            f"over stdio, but transport={transport!r} was given; give a URL for "
            "SSE or streamable HTTP"
        )
    return MCPTarget(transport="stdio", command=command, env=env, cwd=cwd)


def _transport_name(transport: str | None) -> MCPTransport | None:
    if transport is None:
        return None
    key = transport.strip().lower().replace("-", "_")
    names: dict[str, MCPTransport] = {
        "sse": "sse",
        "streamable_http": "streamable_http",
        "http": "streamable_http",
        "stdio": "stdio",
    }
    if key not in names:
        raise MCPImportError(
            f"unknown MCP transport {transport!r}: use 'sse', 'streamable_http' or 'stdio'"
        )
    return names[key]


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
