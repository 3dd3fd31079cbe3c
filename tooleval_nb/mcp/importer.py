"""``import_mcp``: connect to an MCP server, discover its tools, and make a new suite of them."""

from __future__ import annotations

from collections.abc import Sequence

from ..aio import run_sync
from ..suite import Suite
from .client import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_LIST_TIMEOUT,
    DEFAULT_MAX_TOOLS,
    MCPListing,
    list_tools_async,
)
from .convert import convert_tools, suite_from_tools
from .target import MCPTarget

__all__ = ["import_mcp", "import_mcp_async", "suite_from_listing"]


async def import_mcp_async(
    target: str | Sequence[str] | MCPTarget,
    name: str | None = None,
    *,
    transport: str | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    list_timeout: float = DEFAULT_LIST_TIMEOUT,
    max_tools: int = DEFAULT_MAX_TOOLS,
    strict: bool = False,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    headers: dict[str, str] | None = None,
) -> Suite:
    """Import the tools of an MCP server as a new suite (with no cases yet).

    Args:
        target: the server's URL (``http(s)://.../sse`` for SSE, any other ``http(s)`` URL for
            streamable HTTP) or the command line that starts a stdio server (a string or a list
            of arguments).
        name: the suite's name; default the server's own name.
        transport: ``"sse"``, ``"streamable_http"`` or ``"stdio"`` to override the guess.
        connect_timeout: seconds allowed for connecting and the protocol handshake.
        list_timeout: seconds allowed for listing the tools (all pages).
        max_tools: import at most this many tools (a warning says when the list was cut).
        strict: raise instead of warning when some tool has to be skipped.
        env: extra environment variables for a stdio server (it inherits only HOME, LOGNAME,
            PATH, SHELL, TERM and USER from this process, as the MCP SDK does; pass API keys
            and the like here).
        cwd: working directory for a stdio server.
        headers: extra HTTP headers (e.g. ``{"Authorization": "Bearer ..."}``) for URLs.

    Returns:
        A :class:`~tooleval_nb.suite.Suite` whose tools are the server's, in listing order.
        Add cases by hand, or draft them with :func:`~tooleval_nb.mcp.draft_cases`.

    Raises:
        MCPImportError: the server could not be reached, timed out, or listed no usable tool.

    Warns:
        MCPImportWarning: some tools were skipped (each with its reason) or the list was cut.
    """
    listing = await list_tools_async(
        target,
        transport=transport,
        connect_timeout=connect_timeout,
        list_timeout=list_timeout,
        max_tools=max_tools,
        env=env,
        cwd=cwd,
        headers=headers,
    )
    return suite_from_listing(listing, name, strict=strict, stacklevel=3)


def import_mcp(
    target: str | Sequence[str] | MCPTarget,
    name: str | None = None,
    *,
    transport: str | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    list_timeout: float = DEFAULT_LIST_TIMEOUT,
    max_tools: int = DEFAULT_MAX_TOOLS,
    strict: bool = False,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    headers: dict[str, str] | None = None,
) -> Suite:
    """Sync twin of :func:`import_mcp_async` (usable in a notebook cell; it blocks until done)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        suite = run_sync(
            lambda: import_mcp_async(
                target,
                name,
                transport=transport,
                connect_timeout=connect_timeout,
                list_timeout=list_timeout,
                max_tools=max_tools,
                strict=strict,
                env=env,
                cwd=cwd,
                headers=headers,
            )
        )
    for w in caught:  # re-issue in the caller's thread, pointing at the caller
        warnings.warn(w.message, w.category, stacklevel=2)
    return suite


def suite_from_listing(
    listing: MCPListing, name: str | None = None, *, strict: bool = False, stacklevel: int = 2
) -> Suite:
    """Build the suite for a listing (see :func:`import_mcp_async`)."""
    where = f"MCP server {listing.target.label}"
    converted = convert_tools(listing.tools, rejected=listing.rejected)
    server = listing.server_title or listing.server_name or listing.target.label
    description = (
        f"Tools imported from MCP server {server!r} ({listing.target.transport}: "
        f"{listing.target.label})."
    )
    if listing.instructions:
        description += f" Server instructions: {listing.instructions.strip()}"
    return suite_from_tools(
        converted,
        name or listing.server_name or _name_from(listing.target),
        description=description,
        source=f"mcp:{listing.target.label}",
        strict=strict,
        listed=len(listing.tools) + len(listing.rejected),
        truncated_at=listing.max_tools if listing.truncated else None,
        where=where,
        stacklevel=stacklevel + 1,
    )


def _name_from(target: MCPTarget) -> str:
    if target.command:
        return target.command[-1].rsplit("/", 1)[-1] or "mcp"
    return target.label.split("://", 1)[-1].split("/", 1)[0] or "mcp"
