"""Where an MCP server is and how to reach it: :class:`MCPTarget`, and :func:`resolve_target`
for what a user typed. A target is a URL or a command line:

* ``http(s)://host/.../sse`` is an SSE endpoint (the transport of the seed's "Import from MCP");
* any other ``http(s)://`` URL is a streamable-HTTP endpoint (usually ``.../mcp``);
* a command line (a string or a list of arguments) starts a stdio server as a subprocess;
* ``transport=`` overrides the guess for URLs.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from ..credentials import redact_command
from ..errors import MCPImportError

__all__ = ["MCPTarget", "MCPTransport", "resolve_target"]

#: How the client talks to the server.
MCPTransport = Literal["sse", "streamable_http", "stdio"]


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
