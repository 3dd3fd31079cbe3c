"""End-to-end runs of every experiment tool on the embedded SmolLM2 model (tiny budgets)."""

from __future__ import annotations

import re

import pytest

import tooleval_nb.experiments as tx
from tooleval_nb.formats import load_suite

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def small(data_dir):
    suite = load_suite(data_dir / "weather.json")
    return suite.filter(ids=[c.id for c in suite.cases[:4]])


@pytest.fixture(scope="module")
def mstore(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("model") / "runs.db")


def test_experiment_and_sweep_on_embedded_model(small, mstore, capsys):
    exp = tx.experiment("smol", suite=small, store=mstore)
    assert len(exp.split.holdout) == 2 and len(exp.split.dev) == 2
    exp.run(tx.Config())
    sw = exp.sweep(
        tx.space(tool_choice=["auto", "required"]), strategy="grid", budget=tx.Budget(calls=40)
    )
    out = capsys.readouterr().out
    assert "ETA" in out and "2 configs" in out
    # the ETA is measured by the probe on this machine: a number, never "n/a"
    eta = re.search(r"ETA (\S+) (\S+);", out)
    assert eta is not None and "ETA n/a" not in out, out
    assert float(eta.group(1)) >= 0 and eta.group(2) in ("s", "min", "h")
    trials = sw.trials_df()
    assert len(trials) == 2 and trials["score"].between(0, 1).all()
    assert sw.calls_used <= 40 and sw.confirmation is not None
    # confirmed on the holdout, or nothing beat the base on dev (then nothing is confirmed)
    assert not sw.confirmation.empty or sw.best_trial.is_base
    kinds = list(exp.timeline()["kind"])
    assert kinds[:2] == ["eval", "sweep"]
    run = exp.run_best(split="holdout", repeats=1)
    assert len(run.results_df()) == 2


def test_prompt_tune_on_embedded_model(small, mstore):
    pt = tx.tune_prompt(
        small,
        tx.Config(),
        population=2,
        generations=1,
        max_prompt_tokens=80,
        confirm_top_k=1,
        budget=tx.Budget(calls=40),
        store=mstore,
    )
    cands = pt.candidates_df()
    assert len(cands) >= 3 and set(cands["generation"]) == {0, 1}
    assert cands.loc[cands["operator"] == "base", "dev_n"].iloc[0] == 2
    assert pt.calls_used <= 40
    assert len(pt.generations_df()) == 2


def test_judge_report_on_embedded_model(small, mstore):
    exp = tx.experiment("smol", store=mstore)
    run_id = exp.baseline.run_id
    from tooleval_nb.runner import load_run

    run = load_run(run_id, store=mstore)
    rep = tx.judge_report(run, max_llm_calls=3, suite=small, store=mstore, score_mode="logprob")
    assert rep.llm_calls <= 3
    assert {v["status"] for v in rep.verdicts} <= {"scored", "unscored"}
    text = rep.summary()
    assert "## Failure modes" in text and "Judge reliability" in text
    # the embedded llama.cpp server returns top logprobs: scored verdicts carry G-Eval ratings
    v = rep.verdicts_df()
    scored = v[v["status"] == "scored"]
    assert (scored["score_mode"] == "logprob").all() and scored["confidence"].between(1, 5).all()


def test_embedded_judge_rating_from_logprobs():
    """One grammar-constrained verdict from the embedded model, with its logprob rating."""
    from tooleval_nb.aio import run_sync
    from tooleval_nb.experiments.judge.llm import VERDICT_SCHEMA, parse_verdict
    from tooleval_nb.experiments.judge.rating import rating_expectation
    from tooleval_nb.experiments.llm_call import JsonCaller

    caller = JsonCaller(None, 1, 120.0, "auto", None, top_logprobs=5)
    msgs = [
        {
            "role": "system",
            "content": "You review tool calls. Answer one JSON object: " + str(VERDICT_SCHEMA),
        },
        {
            "role": "user",
            "content": "User: weather in Paris\nExpected: get_weather(city="
            "'Paris')\nActual calls: none\nAssistant text: It is sunny.",
        },
    ]
    answer = run_sync(caller.ask_full(msgs, VERDICT_SCHEMA, "verdict"))
    verdict, why = parse_verdict(answer.text, "c1")
    assert verdict is not None, why
    rating, why = rating_expectation(answer.logprobs)
    assert rating is not None, why
    assert rating.label == verdict.confidence and 1 <= rating.expected <= 5
