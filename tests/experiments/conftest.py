"""Fixtures for the experiment tests: a two-tool weather suite with categories, and a judged run
(the fake servers and the store are ``tests/conftest.py``'s)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tooleval_nb.suite import EvalCase, Suite, Tool


def make_suite(n: int = 24, name: str = "weather") -> Suite:
    tool = Tool.create(
        "get_weather",
        "Current weather for a city",
        {"city": {"type": "string"}, "days": {"type": "integer"}},
        ["city"],
    )
    other = Tool.create("get_time", "Local time in a city", {"city": {"type": "string"}}, ["city"])
    cases = [
        EvalCase(
            id=f"w{i:02d}",
            prompt=f"get_weather city Town{i}",
            expected_tool="get_weather",
            expected_params={"city": f"Town{i}"},
            category="weather" if i % 3 else "forecast",
        )
        for i in range(n)
    ]
    return Suite(name=name, tools=[tool, other], cases=cases)


@pytest.fixture
def suite() -> Suite:
    return make_suite()


@pytest.fixture
def suite_of() -> Callable[..., Suite]:
    """``suite_of(n)``: the weather suite with ``n`` cases."""
    return make_suite


#: the start of every judge system prompt (:mod:`tooleval_nb.experiments.judge.llm`)
JUDGE_MARK = "You review the tool calls"


def is_judge(body: dict[str, Any]) -> bool:
    """Whether a request to a fake server comes from the judge (not the model under test)."""
    return any(JUDGE_MARK in str(m.get("content")) for m in body.get("messages") or [])


@pytest.fixture
def judged_run(suite, store, fake_server) -> Callable[..., Any]:
    """``judged_run(judge, target, n)`` → ``(server, config, evaluation)``: one fake server whose
    judge requests ``judge`` answers and whose other requests ``target`` answers, and the target
    evaluated on the first ``n`` cases of ``suite``."""
    from tooleval_nb.experiments import Config
    from tooleval_nb.experiments.evaluate import evaluate

    def make(judge: Callable[..., Any], target: Callable[..., Any], n: int) -> Any:
        server = fake_server(record=True, handler=lambda b: judge(b) if is_judge(b) else target(b))
        cfg = Config(model="openai/fake", api_base=server.url)
        return server, cfg, evaluate(suite, cfg, [c.id for c in suite.cases][:n], store=store)

    return make
