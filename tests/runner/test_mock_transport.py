"""A transport object where a transport string is accepted: runs without a server through
``tooleval_nb.testing.MockTransport`` (the rest of the call and of the run is the real one)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import tooleval_nb as te
from tooleval_nb.errors import ModelConfigError, ModelRateLimitError, ModelServerError
from tooleval_nb.models import ModelSpec
from tooleval_nb.models.transport import ChatRequest, ChatResult
from tooleval_nb.testing import MockTransport


def _run(suite: te.Suite, transport: object, store: Path, **options: object) -> te.Run:
    return asyncio.run(
        te.run_eval_async(
            suite,
            [{"model": "openai/mock", "transport": transport}],
            cache=False,
            store=str(store),
            resume=False,
            **options,
        )
    )


def test_default_answers_score_and_store_without_a_server(tmp_path: Path, make_suite) -> None:
    mock = MockTransport()
    run = _run(make_suite(6), mock, tmp_path / "runs.db", max_concurrency=3)
    df = run.results_df()
    assert len(df) == 6 and df["passed"].all()
    assert len(mock.requests) == 6
    sent = mock.requests[0]
    assert (
        isinstance(sent, ChatRequest)
        and sent.tools
        and sent.tools[0]["function"]["name"] == ("get_weather")
    )
    # stored by name, never the object: the run's targets read it back as text
    stored = te.load_run(run.id, store=str(tmp_path / "runs.db"))
    assert "custom:MockTransport" in json.dumps(stored.targets)


def test_a_handler_answers_each_request_its_way(tmp_path: Path, make_suite) -> None:
    async def handler(request: ChatRequest) -> dict:
        city = request.messages[-1]["content"].rsplit(" ", 1)[-1]
        if city == "Town1":  # a wrong argument: scored, not an error
            city = "Elsewhere"
        if city == "Town2":
            return {"role": "assistant", "content": "I will not call a tool"}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{city}",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
                }
            ],
        }

    df = _run(make_suite(3), MockTransport(handler), tmp_path / "runs.db").results_df()
    by_case = df.set_index("case_id")
    assert bool(by_case.loc["c000", "passed"]) is True
    assert bool(by_case.loc["c001", "passed"]) is False and by_case.loc["c001", "error"] is None
    assert bool(by_case.loc["c002", "passed"]) is False
    assert by_case.loc["c002", "failure_mode"] is not None


def test_errors_raised_by_the_handler_take_the_real_retry_path(tmp_path: Path, make_suite) -> None:
    seen: list[str] = []

    def handler(request: ChatRequest) -> ChatResult | dict:
        prompt = request.messages[-1]["content"]
        seen.append(prompt)
        if "Town0" in prompt and seen.count(prompt) == 1:
            raise ModelRateLimitError("slow down", status_code=429, retry_after=0.0)
        if "Town1" in prompt:
            raise ModelServerError("down for good", status_code=503)
        return ChatResult(
            message={
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Town2"}'},
                    }
                ],
            }
        )

    df = _run(
        make_suite(3),
        MockTransport(handler),
        tmp_path / "runs.db",
        retry={"max_tries": 2, "base_delay": 0.0, "jitter": 0.0},
    ).results_df()
    by_case = df.set_index("case_id")
    assert int(by_case.loc["c000", "tries"]) == 2  # retried once, then answered
    assert by_case.loc["c001", "error_type"] == "ModelServerError"
    assert bool(by_case.loc["c001", "passed"]) is False
    assert bool(by_case.loc["c002", "passed"]) is True


def test_a_transport_is_checked_where_it_is_given() -> None:
    assert ModelSpec.of("openai/x", transport=MockTransport()).uses_direct() is False
    assert ModelSpec(model="openai/x", transport="direct", api_base="http://h/v1").uses_direct()
    with pytest.raises(ModelConfigError, match="unknown transport 'carrier-pigeon'"):
        ModelSpec.of("openai/x", transport="carrier-pigeon")
    with pytest.raises(ModelConfigError, match="lacks open, send, supports_required"):
        ModelSpec.of({"model": "openai/x", "transport": object()})
    assert ModelSpec(model="openai/x", transport=MockTransport()).model_dump()["transport"] == (
        "custom:MockTransport"
    )
