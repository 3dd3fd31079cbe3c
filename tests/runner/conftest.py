"""Fixtures for the runner tests: a fake OpenAI-compatible server, suites, a store path."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tooleval_nb.suite import EvalCase, Suite, Tool
from tooleval_nb.testing import FakeOpenAIServer

WEATHER = Tool.create(
    "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
)


def weather_suite(n: int, marks: dict[int, str] | None = None, name: str = "weather") -> Suite:
    """``n`` cases ``get_weather city Town{i}``; ``marks[i]`` is appended to case i's prompt."""
    marks = marks or {}
    return Suite(
        name=name,
        tools=[WEATHER],
        cases=[
            EvalCase(
                id=f"c{i:03d}",
                prompt=f"get_weather city Town{i} {marks.get(i, '')}".strip(),
                expected_tool="get_weather",
                expected_params={"city": f"Town{i}"},
                tags=["even" if i % 2 == 0 else "odd"],
            )
            for i in range(n)
        ],
    )


@pytest.fixture
def make_suite() -> Callable[..., Suite]:
    return weather_suite


def model_for(server: FakeOpenAIServer, **extra) -> dict:
    return {"model": "openai/fake", "api_base": server.url, "api_key": "sk-test-secret", **extra}


@pytest.fixture
def model_of() -> Callable[..., dict]:
    return model_for


def _mcp_fixtures():
    """tests/mcp/conftest.py (the demo MCP servers of ours), loaded once for the live-tool
    tests; its fixtures are re-exported below."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "mcp" / "conftest.py"
    spec = importlib.util.spec_from_file_location("tooleval_tests_runner_mcp_servers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_MCP = _mcp_fixtures()
start_server = _MCP.start_server
stdio_cmd = _MCP.stdio_cmd
