"""Experiments comparing several models: one baseline per model, deltas per model; a bound
experiment gives other models no delta; stores from before per-model baselines are migrated
(tests/experiments/test_store.py)."""

from __future__ import annotations

import math

import pytest

import tooleval_nb.experiments as tx
from tooleval_nb.errors import ExperimentError

PHRASE = "Always answer with a tool call."
WRONG = {"role": "assistant", "content": "Not sure."}


def by_model(body):
    """Model a: right on even cases, on all with the phrase (0.5 → 1.0).
    Model b: right on i % 4 == 0, and also on i % 4 == 1 with the phrase (0.25 → 0.5)."""
    user = next(
        str(m.get("content")) for m in reversed(body["messages"]) if m.get("role") == "user"
    )
    i = int(user.rsplit("Town", 1)[-1])
    phrase = any(
        PHRASE in str(m.get("content")) for m in body["messages"] if m.get("role") == "system"
    )
    if body["model"].endswith("fake-a"):
        return None if phrase or i % 2 == 0 else WRONG
    return None if i % 4 == 0 or (phrase and i % 4 == 1) else WRONG


@pytest.fixture
def models(fake_server):
    server = fake_server(handler=by_model)
    return (
        tx.Config(model="openai/fake-a", api_base=server.url),
        tx.Config(model="openai/fake-b", api_base=server.url),
    )


def test_each_model_gets_its_baseline_and_its_own_deltas(suite, store, models):
    a, b = models
    exp = tx.experiment("two-models", suite=suite, store=store)
    run_a = exp.run(a)
    run_b = exp.run(b)
    exp.run(a.merge(system_prompt=PHRASE))
    exp.run(b.merge(system_prompt=PHRASE))
    tl = exp.timeline()
    assert list(tl["model"]) == ["openai/fake-a", "openai/fake-b"] * 2
    assert list(tl["is_baseline"]) == [True, True, False, False]
    assert tl["delta"].tolist() == pytest.approx([0.0, 0.0, 0.5, 0.25])
    assert (tl["delta_ci_low"].iloc[2:] > 0).all()
    assert tl["config_diff"].iloc[3] == "system_prompt set (1 line)"  # vs b's own baseline
    assert "first run of model openai/fake-b: pinned as its baseline" in tl["note"].iloc[1]
    assert set(exp.baselines) == {"openai/fake-a", "openai/fake-b"}
    assert exp.baseline_for("openai/fake-b").run_id == run_b.id
    assert exp.baseline_for("openai/fake-b").score == pytest.approx(0.25)
    assert exp.baseline.run_id == run_a.id  # the first pinned stays the primary baseline
    # best is tracked across models: a+phrase beats everything; its delta is vs a's baseline
    best = exp.best
    assert best.config.model == "openai/fake-a" and best.config.system_prompt == PHRASE
    assert best.delta == pytest.approx(0.5)
    reopened = tx.experiment("two-models", store=store)
    assert set(reopened.baselines) == set(exp.baselines)


def test_bound_experiment_gives_other_models_no_delta(suite, store, models):
    a, b = models
    exp = tx.experiment("bound", suite=suite, model="openai/fake-a", store=store)
    exp.run(a)
    run_b = exp.run(b)
    row = exp.timeline().iloc[-1]
    assert math.isnan(row["delta"]) and not row["is_baseline"]
    assert "bound to model openai/fake-a" in row["note"]
    assert list(exp.baselines) == ["openai/fake-a"]
    assert exp.best.config.model == "openai/fake-a"
    with pytest.raises(ExperimentError, match="bound to model"):
        exp.pin_baseline(run_b)
