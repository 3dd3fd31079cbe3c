"""Fixtures for the model layer: an isolated response cache, a fresh fallback memory, the fake
OpenAI-compatible server, and HTTP sessions closed after each test."""

from __future__ import annotations

from typing import Any

import pytest

from tooleval_nb.models import aclose, fallback
from tooleval_nb.suite import Tool
from tooleval_nb.testing import FakeOpenAIServer


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path / "cache"))
    fallback.forget()
    yield
    fallback.forget()


@pytest.fixture(autouse=True)
async def _close_sessions():
    yield
    await aclose()


@pytest.fixture
def fake():
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def tools() -> list[Tool]:
    return [
        Tool.create(
            "weather.get",
            "Get the weather for a city",
            {"city": {"type": "string"}, "days": {"type": "integer"}},
            required=["city"],
        ),
        Tool.create(
            "get_time", "Get the time in a timezone", {"tz": {"type": "string"}}, required=["tz"]
        ),
    ]


@pytest.fixture
def tool_history():
    """``make(name)``: a user turn, the assistant's call of tool ``name`` and the tool's result."""

    def make(name: str) -> list[dict[str, Any]]:
        return [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": name, "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 21}'},
        ]

    return make
