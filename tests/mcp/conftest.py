"""Real MCP servers of ours on 127.0.0.1 (see ``servers/demo_server.py``), started per session."""

from __future__ import annotations

import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parent / "servers" / "demo_server.py"
#: the tools every demo server has, in listing order
DEMO_TOOLS = ["get_weather", "calculate", "slow_task"]


def stdio_command(*args: str) -> list[str]:
    """The command line that runs the demo server over stdio."""
    return [sys.executable, str(SERVER), "--transport", "stdio", *args]


def _start(
    transport: str, *args: str, startup_timeout: float = 60.0
) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--transport", transport, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + startup_timeout
    # the server prints its port after binding, so one readable line is all we wait for
    ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
    line = proc.stdout.readline() if ready else ""
    if not line.startswith("PORT "):
        proc.kill()
        err = proc.stderr.read() if proc.stderr else ""
        raise RuntimeError(f"demo MCP server did not start: {line!r} {err[-2000:]}")
    return proc, int(line.split()[1])


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


@pytest.fixture(scope="session")
def start_server() -> Iterator[Callable[..., str]]:
    """Start a demo server over SSE or streamable HTTP; returns its URL. Stopped at the end."""
    procs: list[subprocess.Popen[str]] = []

    def start(transport: str, *args: str) -> str:
        proc, port = _start(transport, *args)
        procs.append(proc)
        path = "/sse" if transport == "sse" else "/mcp"
        return f"http://127.0.0.1:{port}{path}"

    yield start
    for proc in procs:
        _stop(proc)


@pytest.fixture
def own_server() -> Iterator[Callable[..., tuple[subprocess.Popen[str], str]]]:
    """Start a demo server this test may stop itself; returns ``(process, url)``."""
    procs: list[subprocess.Popen[str]] = []

    def start(transport: str, *args: str) -> tuple[subprocess.Popen[str], str]:
        proc, port = _start(transport, *args)
        procs.append(proc)
        return proc, f"http://127.0.0.1:{port}{'/sse' if transport == 'sse' else '/mcp'}"

    yield start
    for proc in procs:
        if proc.poll() is None:
            _stop(proc)
        else:
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()


@pytest.fixture(scope="session")
def sse_url(start_server: Callable[..., str]) -> str:
    return start_server("sse", "--invalid")


@pytest.fixture(scope="session")
def http_url(start_server: Callable[..., str]) -> str:
    return start_server("streamable-http", "--invalid")


@pytest.fixture(scope="session")
def huge_url(start_server: Callable[..., str]) -> str:
    """500 extra tools, listed in pages of 50."""
    return start_server("streamable-http", "--extra-tools", "500", "--page-size", "50")


@pytest.fixture(scope="session")
def slow_list_url(start_server: Callable[..., str]) -> str:
    """A server that takes 60 s to list its tools."""
    return start_server("sse", "--list-delay", "60")


@pytest.fixture(params=["sse", "streamable_http", "stdio"])
def any_target(request: pytest.FixtureRequest) -> str | list[str]:
    """The demo server (with its invalid tools) over each transport."""
    if request.param == "sse":
        return request.getfixturevalue("sse_url")
    if request.param == "streamable_http":
        return request.getfixturevalue("http_url")
    return stdio_command("--invalid")


@pytest.fixture(scope="session")
def stdio_cmd() -> Callable[..., list[str]]:
    """Builds the stdio command line of the demo server (extra flags as arguments)."""
    return stdio_command
