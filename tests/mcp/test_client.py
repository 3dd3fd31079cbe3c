"""Targets, connecting and listing: transports guessed right, failures clear and bounded."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Iterator

import pytest

from tooleval_nb.errors import MCPImportError
from tooleval_nb.mcp import list_tools_async, resolve_target


@pytest.mark.parametrize(
    ("target", "transport", "kind"),
    [
        ("http://127.0.0.1:8000/sse", None, "sse"),
        ("https://example.test/sse/", None, "sse"),
        ("http://127.0.0.1:8000/mcp", None, "streamable_http"),
        ("http://127.0.0.1:8000/", None, "streamable_http"),
        ("http://127.0.0.1:8000/mcp", "sse", "sse"),
        ("http://127.0.0.1:8000/sse", "streamable-http", "streamable_http"),
        ("python server.py --flag", None, "stdio"),
        (["python", "server.py"], "stdio", "stdio"),
    ],
    ids=[
        "sse-path",
        "sse-trailing-slash",
        "mcp-path",
        "root-path",
        "forced-sse",
        "forced-http-hyphen",
        "command-string",
        "command-list",
    ],
)
def test_resolve_target_guesses_transport(target, transport, kind) -> None:
    assert resolve_target(target, transport).transport == kind


def test_resolve_target_splits_command_and_hides_secrets() -> None:
    cmd = resolve_target("python 'my server.py' --x 1")
    assert cmd.command == ["python", "my server.py", "--x", "1"]
    assert cmd.label == "python 'my server.py' --x 1"
    url = resolve_target("https://user:pw@host.test:8443/sse?token=abc")
    assert url.label == "https://host.test:8443/sse"


@pytest.mark.parametrize(
    ("target", "transport", "needle"),
    [
        ("", None, "empty"),
        ("ws://127.0.0.1/sse", None, "http:// and https://"),
        ("http://127.0.0.1/sse", "stdio", "is a URL"),
        ("python server.py", "sse", "command line"),
        ("http://127.0.0.1/sse", "websocket", "unknown MCP transport"),
    ],
    ids=["empty", "websocket-url", "url-as-stdio", "command-as-sse", "unknown-transport"],
)
def test_resolve_target_rejects_mismatches(target, transport, needle) -> None:
    with pytest.raises(MCPImportError, match=needle):
        resolve_target(target, transport)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("path", ["/sse", "/mcp"], ids=["sse", "streamable_http"])
async def test_unreachable_url_is_a_clear_error(path: str) -> None:
    url = f"http://127.0.0.1:{_free_port()}{path}"
    start = time.monotonic()
    with pytest.raises(MCPImportError, match="could not reach MCP server") as info:
        await list_tools_async(url, connect_timeout=5)
    assert time.monotonic() - start < 5
    assert "127.0.0.1" in str(info.value) and "running" in str(info.value)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts TCP connections (backlog) but never answers a byte."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield int(s.getsockname()[1])


@pytest.mark.parametrize("path", ["/sse", "/mcp"], ids=["sse", "streamable_http"])
async def test_silent_server_times_out_on_connect(silent_port: int, path: str) -> None:
    start = time.monotonic()
    with pytest.raises(MCPImportError, match=r"did not complete the connection within 1 s"):
        await list_tools_async(f"http://127.0.0.1:{silent_port}{path}", connect_timeout=1)
    # the 1 s limit, then closing the half-open stream: well under the default limit; 4 s was
    # exceeded by 0.02 s on a loaded 2-core machine (two test workers and another job)
    assert time.monotonic() - start < 8


async def test_slow_listing_times_out(slow_list_url: str) -> None:
    start = time.monotonic()
    with pytest.raises(MCPImportError, match=r"did not list its tools within 1 s"):
        await list_tools_async(slow_list_url, list_timeout=1)
    assert time.monotonic() - start < 8


async def test_wrong_http_transport_says_which_endpoint(sse_url: str) -> None:
    with pytest.raises(MCPImportError, match="transport="):
        await list_tools_async(sse_url, transport="streamable_http", connect_timeout=5)


async def test_missing_command_is_a_clear_error() -> None:
    with pytest.raises(MCPImportError, match="was not found"):
        await list_tools_async(["no-such-mcp-server-command-xyz"], connect_timeout=5)


async def test_crashing_command_shows_its_stderr() -> None:
    cmd = [
        sys.executable,
        "-c",
        "import sys; print('no config file', file=sys.stderr); sys.exit(3)",
    ]
    with pytest.raises(MCPImportError, match="(?s)exited.*no config file"):
        await list_tools_async(cmd, connect_timeout=10)


async def test_stdio_server_that_never_answers_times_out() -> None:
    cmd = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    start = time.monotonic()
    with pytest.raises(MCPImportError, match="did not complete the connection within 1 s"):
        await list_tools_async(cmd, connect_timeout=1)
    assert time.monotonic() - start < 8


async def test_listing_reports_server_and_tools(http_url: str) -> None:
    listing = await list_tools_async(http_url)
    assert listing.server_name == "tooleval-demo"
    assert listing.instructions == "Weather and arithmetic for tests."
    assert [t["name"] for t in listing.tools] == [
        "get_weather",
        "calculate",
        "slow_task",
        "broken_schema",
    ]
    assert set(listing.rejected) == {"bad_required"}
    assert listing.pages == 1 and not listing.truncated


async def test_sse_client_on_streamable_endpoint_says_which_endpoint(http_url: str) -> None:
    start = time.monotonic()
    with pytest.raises(MCPImportError, match="transport=") as info:
        await list_tools_async(http_url, transport="sse", connect_timeout=5)
    assert time.monotonic() - start < 6, str(info.value)


class PagedClient:
    """Stands in for a connected ``mcp.Client``: serves tools/list pages by cursor."""

    def __init__(self, n: int, page: int, loop_cursor: bool = False) -> None:
        self.n, self.page, self.loop_cursor = n, page, loop_cursor
        self.calls = 0

    async def list_tools(self, *, cursor: str | None = None, cache_mode: str = "use"):
        from mcp_types import ListToolsResult, Tool

        assert cache_mode == "bypass"
        self.calls += 1
        start = int(cursor or 0)
        end = min(start + self.page, self.n)
        tools = [Tool(name=f"t{i}", input_schema={"type": "object"}) for i in range(start, end)]
        more = end < self.n
        nxt = "0" if self.loop_cursor else (str(end) if more else None)
        return ListToolsResult(tools=tools, next_cursor=nxt)


@pytest.mark.parametrize(
    ("n", "page", "max_tools", "loop", "expected"),
    [
        (10, 3, 100, False, (10, False, 4)),
        (10, 5, 10, False, (10, False, 2)),
        (10, 3, 6, False, (6, True, 2)),
        (10, 4, 5, False, (5, True, 2)),
        (10, 3, 100, True, (6, True, 2)),
        (0, 3, 100, False, (0, False, 1)),
    ],
    ids=["all-pages", "exactly-max", "cut-on-page-edge", "cut-mid-page", "cursor-loop", "empty"],
)
async def test_fetch_tools_follows_cursors(n, page, max_tools, loop, expected) -> None:
    from tooleval_nb.mcp.client import fetch_tools

    client = PagedClient(n, page, loop)
    tools, truncated, pages = await fetch_tools(client, max_tools=max_tools)  # type: ignore[arg-type]
    assert (len(tools), truncated, pages) == expected
    assert tools[:1] == ([{"name": "t0", "inputSchema": {"type": "object"}}] if n else [])
