"""Experiments: baseline pinning, the CI best rule, suite versions, promotion, run_best."""

from __future__ import annotations

import math

import pytest

import tooleval_nb.experiments as tx
from tooleval_nb.errors import ExperimentError
from tooleval_nb.experiments.experiment import config_from_run
from tooleval_nb.suite import EvalCase

PHRASE = "Always answer with a tool call."
WRONG = {"role": "assistant", "content": "I am not sure which tool to use."}


def _parts(body):
    user = next(
        (
            str(m.get("content"))
            for m in reversed(body.get("messages") or [])
            if m.get("role") == "user"
        ),
        "",
    )
    system = " ".join(
        str(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system"
    )
    return int(user.rsplit("Town", 1)[-1]), system


def additive(body):
    """Even cases need the phrase in the system prompt, odd ones tool_choice=required;
    'maybe' in the prompt fixes cases 0 and 2 only (a noisy improvement)."""
    i, system = _parts(body)
    if "maybe" in system and i in (0, 2):
        return None
    if i % 2 == 0:
        return None if PHRASE in system else WRONG
    return None if body.get("tool_choice") == "required" else WRONG


@pytest.fixture
def big_suite(request):
    from tooleval_nb.suite import Suite, Tool

    tool = Tool.create("get_weather", "Current weather", {"city": {"type": "string"}}, ["city"])
    cases = [
        EvalCase(
            id=f"w{i:02d}",
            prompt=f"get_weather city Town{i}",
            expected_tool="get_weather",
            expected_params={"city": f"Town{i}"},
        )
        for i in range(40)
    ]
    return Suite(name="weather40", tools=[tool], cases=cases)


@pytest.fixture
def exp_env(big_suite, store, fake_server):
    server = fake_server(handler=additive)
    base = tx.Config(model="openai/fake", api_base=server.url)
    sp = tx.split(big_suite, holdout=0.4, seed=0, by=None)
    exp = tx.experiment("weather", suite=big_suite, split=sp, store=store)
    return exp, base, server


def test_first_run_pins_baseline_and_reopen(exp_env, store):
    exp, base, _ = exp_env
    assert exp.baseline is None and exp.best.run_id is None
    run = exp.run(base)
    assert exp.baseline.run_id == run.id and exp.best.run_id == run.id
    assert exp.best.source == "baseline" and exp.best.config == base
    tl = exp.timeline()
    assert list(tl["kind"]) == ["eval"] and tl["is_baseline"].all() and tl["is_best"].all()
    assert tl["delta"].iloc[0] == 0.0
    again = tx.experiment("weather", store=store)
    assert again.id == exp.id and again.suite.fingerprint() == exp.suite.fingerprint()
    assert len(again.best_history()) == 1


def test_other_suite_version_has_no_delta(exp_env, big_suite):
    exp, base, _ = exp_env
    exp.run(base)
    changed = big_suite.model_copy(
        update={
            "cases": [
                *big_suite.cases,
                EvalCase(id="extra", prompt="get_weather city Town1", expected_tool="get_weather"),
            ]
        }
    )
    exp.run(base.merge(system_prompt=PHRASE), suite=changed)
    row = exp.timeline().iloc[-1]
    assert not row["comparable"] and math.isnan(row["delta"])
    assert "another suite version" in row["note"]
    assert exp.best.config == base  # not a candidate for best


def test_noisy_better_run_does_not_replace_best(exp_env):
    exp, base, _ = exp_env
    exp.run(base)
    exp.run(base.merge(system_prompt="maybe"))
    row = exp.timeline().iloc[-1]
    assert row["delta"] > 0 and row["delta_ci_low"] <= 0
    assert exp.best.config == base and "kept the best" in row["note"]
    assert len(exp.best_history()) == 1


def test_confirmed_winner_replaces_best_and_promotions_merge(exp_env, capsys):
    exp, base, server = exp_env
    exp.run(base)
    exp.run(base.merge(system_prompt=PHRASE))  # +50% on every case: a clear win
    assert exp.best.config.system_prompt == PHRASE
    sw = exp.sweep(
        tx.space(tool_choice=["auto", "required"]), budget=tx.Budget(calls=200), preflight=False
    )
    assert sw.best.tool_choice == "required"
    best = exp.best
    assert best.config.tool_choice == "required" and best.config.system_prompt == PHRASE
    assert best.source == f"sweep:{sw.id}" and best.confirmed
    tl = exp.timeline()
    assert list(tl["kind"]) == ["eval", "eval", "sweep", "confirm"]
    sweep_row, confirm_row = tl.iloc[2], tl.iloc[3]
    assert sweep_row["selection_biased"] and not sweep_row["is_best"]
    assert confirm_row["promoted_from"] == sw.id and confirm_row["is_best"]
    assert confirm_row["split_used"] == "holdout"
    hist = exp.best_history()
    assert len(hist) == 3 and "sweep" in hist["reason"].iloc[-1]
    # run_best re-runs the stored model on the holdout and prints the winner's curse line
    before = server.requests
    run = exp.run_best(split="holdout", repeats=1)
    out = capsys.readouterr().out
    assert "now +" in out and "(holdout)" in out and "confirmation +" in out and "± " in out
    assert config_from_run(run) == exp.best.config
    assert exp.timeline().iloc[-1]["note"].startswith("run_best")
    assert server.requests >= before  # greedy replies may come from the cache


def test_pin_baseline_refuses_other_suite(exp_env, big_suite, store):
    exp, base, _ = exp_env
    other = tx.experiment(
        "other", suite=big_suite.filter(ids=["w00", "w01", "w02", "w03"]), store=store
    )
    run = other.run(base)
    with pytest.raises(ExperimentError, match="another suite version"):
        exp.pin_baseline(run)


def test_unknown_experiment_needs_suite(store):
    with pytest.raises(ExperimentError, match="pass suite="):
        tx.experiment("nope", store=store)


def test_judge_entry_links_findings(exp_env):
    exp, base, _ = exp_env
    run = exp.run(base)
    rep = exp.judge(run, judge_model=base, max_llm_calls=1)
    row = exp.timeline().iloc[-1]
    assert row["kind"] == "judge" and row["ref_id"] == rep.id
    assert row["top_failure_mode"] == "no_call" and row["n_findings"] >= 1
    assert math.isnan(row["score"]) and not row["is_best"]
