"""Fixtures for the runner tests (the fake server, the store and the suite maker are
``tests/conftest.py``'s): a model entry for a fake server, the MCP servers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tooleval_nb.testing import FakeOpenAIServer, weather_suite

__all__ = ["model_for", "weather_suite"]


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
