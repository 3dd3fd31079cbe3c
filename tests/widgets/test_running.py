"""The run panel's pure logic: the form's values become run_eval arguments; events a table."""

from __future__ import annotations

import pytest

from tooleval_nb.runner.events import Event
from tooleval_nb.widgets.running import LiveResults, model_name, run_request


def test_request_from_valid_values():
    request, problems = run_request(
        ["local/smollm2-135m", " openai/x ", "openai/x"],
        temperature=0.3,
        tool_choice="auto",
        mode="hermes",
        system_prompt="Use tools.",
        tags="smoke, hard",
        max_cases=2,
        specs={"openai/x": {"model": "openai/x", "api_base": "u"}},
    )
    assert problems == {}
    assert request.models == ["local/smollm2-135m", {"model": "openai/x", "api_base": "u"}]
    assert request.options == {
        "temperature": 0.3,
        "tool_choice": "auto",
        "system_prompt": "Use tools.",
        "tags": ["smoke", "hard"],
        "mode": "hermes",
    }
    assert request.max_cases == 2


@pytest.mark.parametrize(
    "kwargs, field, message",
    [
        ({"models": []}, "models", "at least one model"),
        ({"temperature": 3.0}, "temperature", "between 0 and 2"),
        ({"tool_choice": "always"}, "tool_choice", "one of"),
        ({"mode": "xml"}, "mode", "one of"),
        ({"system_prompt": "{oops", "per_model_prompt": True}, "system_prompt", "JSON object"),
        (
            {"system_prompt": '{"other": "x"}', "per_model_prompt": True},
            "system_prompt",
            "no chosen model is called other",
        ),
        ({"max_cases": -1}, "max_cases", "0 (all)"),
    ],
    ids=[
        "no-model",
        "temperature",
        "tool-choice",
        "mode",
        "prompt-json",
        "prompt-model",
        "max-cases",
    ],
)
def test_request_problems_are_keyed_by_field(kwargs, field, message):
    values = {"models": ["m"], **kwargs}
    request, problems = run_request(values.pop("models"), **values)
    assert request is None
    assert any(message in m for m in problems[field]), problems


def test_per_model_prompts():
    request, _ = run_request(["a", "b"], system_prompt='{"a": "be brief"}', per_model_prompt=True)
    assert request.options["system_prompt"] == {"a": "be brief"}


def test_model_name_of_specs():
    assert model_name({"model": "openai/x", "label": "x-local"}) == "x-local"
    assert model_name({"model": "openai/x"}) == "openai/x"
    assert model_name("m") == "m"


def test_live_results_from_events():
    live = LiveResults(max_rows=2)
    live.update(Event("tool_eval_init", "j", {"targets": [{"model": "m", "total": 3}]}))
    for i, passed in enumerate([True, False, True]):
        live.update(
            Event(
                "tool_eval_result",
                "j",
                {
                    "model": "m",
                    "case_id": f"c{i}",
                    "sample": 0,
                    "passed": passed,
                    "overall": 1.0 if passed else 0.25,
                    "failure_mode": None if passed else "wrong_tool",
                    "latency_ms": 12.5,
                    "error": None,
                },
            )
        )
    assert len(live.rows) == 3 and not live.finished
    table = live.table_html()
    assert "data-rows='3'" in table and "1 earlier rows not shown" in table
    assert "c0" not in table and "wrong_tool" in table
    progress = live.progress_html()
    assert "3/3" in progress and "2 passed" in progress and "score 0.750" in progress
    live.update(Event("job_failed", "j", {"error": "boom <b>"}))
    assert live.finished and "boom &lt;b&gt;" in live.progress_html()
