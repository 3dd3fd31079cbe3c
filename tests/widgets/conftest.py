"""Widgets are tested without a browser: set values, click, assert state. Runs are real: the
runner against the local fake OpenAI-compatible server (``tooleval_nb.testing``)."""

from __future__ import annotations

import pytest

from tooleval_nb import Suite, Tool

WEATHER = Tool.create(
    "get_weather",
    "Current weather for a city",
    {"city": {"type": "string"}, "units": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    required=["city"],
)


@pytest.fixture
def weather_suite() -> Suite:
    """Prompts in the fake server's language: ``<tool> <key> <value>`` answers that call."""
    return Suite(
        name="fake weather",
        tools=[WEATHER],
        cases=[
            {
                "name": "paris",
                "prompt": "get_weather city Paris",
                "expected_tool": "get_weather",
                "expected_params": {"city": "Paris"},
                "tags": ["smoke"],
            },
            {
                "name": "milan_for_rome",
                "prompt": "get_weather city Milan",
                "expected_tool": "get_weather",
                "expected_params": {"city": "Rome"},
                "tags": ["hard"],
            },
            {
                "name": "units",
                "prompt": "get_weather city Oslo units celsius",
                "expected_tool": "get_weather",
                "expected_params": {"city": "Oslo", "units": "fahrenheit"},
                "tags": ["hard"],
            },
            {
                "name": "chat",
                "prompt": "hello there",
                "expected_tool": None,
                "tags": ["irrelevance"],
            },
        ],
    )


@pytest.fixture
def fake_model(fake) -> dict:
    """A model entry for the fake server (``tests/conftest.py``'s ``fake``)."""
    return {"model": "openai/fake", "api_base": fake.url, "api_key": "test-key"}


@pytest.fixture
def finished_run(weather_suite, fake_model, store):
    """A real run of the weather suite against the fake server (no event loop: blocks)."""
    from tooleval_nb import run_eval

    job = run_eval(weather_suite, [fake_model], store=store, progress="none", cache=False)
    return job.result()
