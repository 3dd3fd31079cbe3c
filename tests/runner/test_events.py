"""The event bus: the seed's names, filtering, failing and async callbacks."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tooleval_nb.runner.events import EVENT_TYPES, Event, EventBus, as_callbacks


def test_seed_event_names():
    assert EVENT_TYPES == (
        "job_created",
        "tool_eval_init",
        "tool_eval_progress",
        "tool_eval_result",
        "tool_eval_summary",
        "tool_eval_complete",
        "job_progress",
        "job_completed",
        "job_failed",
        "job_cancelled",
    )


def test_subscribe_filter_unsubscribe():
    bus = EventBus()
    every, results = [], []
    stop = bus.subscribe(every.append)
    bus.subscribe(results.append, types=["tool_eval_result"])
    bus.publish(Event("job_created", "j"))
    bus.publish(Event("tool_eval_result", "j", {"case_id": "a"}))
    stop()
    bus.publish(Event("tool_eval_result", "j", {"case_id": "b"}))
    assert [e.type for e in every] == ["job_created", "tool_eval_result"]
    assert [e.data["case_id"] for e in results] == ["a", "b"]
    assert Event("job_created", "j", {"x": 1}).to_dict()["x"] == 1


def test_unknown_type_is_refused():
    with pytest.raises(ValueError, match="unknown event type"):
        EventBus().subscribe(print, types=["tool_eval_done"])


def test_failing_callback_is_logged_not_raised(caplog):
    bus = EventBus()
    seen = []

    def broken(event):
        raise RuntimeError("user bug")

    bus.subscribe(broken)
    bus.subscribe(seen.append)
    with caplog.at_level(logging.ERROR, logger="tooleval_nb.runner"):
        bus.publish(Event("job_completed", "j"))
    assert seen and "user bug" in caplog.text


async def test_async_callback_is_scheduled():
    bus = EventBus()
    got = asyncio.Event()

    async def callback(event):
        got.set()

    bus.subscribe(callback)
    bus.publish(Event("job_completed", "j"))
    await asyncio.wait_for(got.wait(), 5)


@pytest.mark.parametrize(
    "given, expected",
    [
        (None, []),
        (print, [(print, None)]),
        ([print, repr], [(print, None), (repr, None)]),
        ({"job_completed": print, "*": repr}, [(print, ["job_completed"]), (repr, None)]),
    ],
    ids=["none", "callable", "list", "mapping"],
)
def test_as_callbacks(given, expected):
    assert as_callbacks(given) == expected


def test_as_callbacks_errors():
    with pytest.raises(ValueError, match="unknown event type"):
        as_callbacks({"done": print})
    with pytest.raises(TypeError, match="not callable"):
        as_callbacks([1])
