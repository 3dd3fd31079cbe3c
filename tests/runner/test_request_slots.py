"""A model whose server answers one request at a time gets one request at a time from the runner
(``ModelSpec.request_slots``): cases then run in suite order, without queueing at the server
while their timeouts run. The embedded model is such a server."""

from __future__ import annotations

import time

import pytest

import tooleval_nb as te
from tooleval_nb.models import ModelSpec
from tooleval_nb.testing import FakeOpenAIServer


class Arrivals:
    """A fake-server handler recording when each request arrived, by its prompt."""

    def __init__(self) -> None:
        self.at: list[tuple[float, str]] = []

    def __call__(self, body):
        self.at.append((time.monotonic(), body["messages"][-1]["content"]))
        return None  # the server's default answer


def _run(make_suite, store_path, **spec):
    arrivals = Arrivals()
    with FakeOpenAIServer(latency=0.3, handler=arrivals) as fake:
        model = {"model": "openai/fake", "api_base": fake.url, **spec}
        run = te.run_eval(
            make_suite(5),
            [model],
            max_concurrency=8,
            cache=False,
            store=store_path,
            progress="none",
        ).result()
    assert len(run.results_df()) == 5 and run.results_df()["error"].isna().all()
    return arrivals.at


def test_one_slot_sends_one_request_at_a_time_in_suite_order(make_suite, store_path):
    at = _run(make_suite, store_path, parallel_requests=1)
    times = [t for t, _ in at]
    # each request was sent only after the reply to the one before (0.3 s later)
    assert all(b - a >= 0.29 for a, b in zip(times, times[1:], strict=False)), times
    assert [p for _, p in at] == [f"get_weather city Town{i}" for i in range(5)]


def test_without_a_slot_limit_max_concurrency_rules(make_suite, store_path):
    times = [t for t, _ in _run(make_suite, store_path)]
    # several requests arrived before the first reply was due
    assert sum(t < times[0] + 0.29 for t in times) >= 2, times


@pytest.mark.parametrize(
    ("spec", "slots"),
    [
        ({"model": te.DEFAULT_MODEL}, 1),
        ({"model": te.DEFAULT_MODEL, "parallel_requests": 2}, 2),
        ({"model": "openai/gpt-4o-mini"}, None),
        ({"model": "openai/x", "api_base": "http://127.0.0.1:1/v1", "parallel_requests": 1}, 1),
    ],
    ids=["embedded", "embedded-given", "hosted", "local-server"],
)
def test_request_slots(spec, slots):
    assert ModelSpec.of(spec).request_slots == slots


@pytest.mark.parametrize("slots", [1, None], ids=["one-slot", "no-limit"])
def test_one_slot_grades_after_the_last_case(
    fake_server, make_suite, store_path, monkeypatch, slots
):
    """With one request at a time, LLM graders run after the target's last case: a judge's
    request between two cases would take a local server's cache from the suite's shared
    prompt prefix. Without a slot limit they run as cases finish (all of them, either way)."""
    from tooleval_nb import models
    from tooleval_nb.models import ModelReply
    from tooleval_nb.suite import GraderSpec

    arrivals = Arrivals()
    real = models.call_model_async

    async def judge(model, messages, *args, **kwargs):
        if not str(messages[-1]["content"]).startswith("Rate "):
            return await real(model, messages, *args, **kwargs)  # the cases' own calls
        arrivals.at.append((time.monotonic(), "judge"))
        return ModelReply(model=str(model), content="SCORE: 5\nReason: fine")

    monkeypatch.setattr(models, "call_model_async", judge)
    suite = make_suite(4)
    for case in suite.cases:
        case.graders = [
            GraderSpec(type="llm", prompt="Rate {{ output }}. SCORE: <1-5>", threshold=3)
        ]
    fake = fake_server(latency=0.2, handler=arrivals)
    model = {
        "model": "openai/fake",
        "api_base": fake.url,
        **({"parallel_requests": slots} if slots else {}),
    }
    run = te.run_eval(
        suite, [model], max_concurrency=4, cache=False, store=store_path, progress="none"
    ).result()
    df = run.results_df()
    assert len(df) == 4 and df["error"].isna().all()
    order = [p for _, p in arrivals.at]
    assert order.count("judge") == 4, order
    if slots == 1:
        assert order == [p for p in order if p != "judge"] + ["judge"] * 4, order
    assert run.results_df()["passed"].all()
