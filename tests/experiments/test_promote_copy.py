"""promote="copy": a tuner's dev winner is promoted on its dev results, with no holdout run;
the entry is selection-biased and the best unconfirmed."""

from __future__ import annotations

import json

import pytest

import tooleval_nb.experiments as tx

PHRASE = "Consult the forecast oracle."
META_MARK = "You write system prompts"
WRONG = {"role": "assistant", "content": "I am not sure."}


def case_index(body) -> int | None:
    """The case a target request asks about (None for the meta model's requests)."""
    user = next(
        (
            str(m.get("content"))
            for m in reversed(body.get("messages") or [])
            if m.get("role") == "user"
        ),
        "",
    )
    tail = user.rsplit("Town", 1)[-1]
    return int(tail) if tail.isdigit() else None


def handler(body):
    system = " ".join(
        str(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system"
    )
    if META_MARK in system:
        return {
            "role": "assistant",
            "content": json.dumps(
                {
                    "prompts": [
                        {"text": f"You help with weather. {PHRASE}", "rationale": "the phrase"}
                    ]
                }
            ),
        }
    if body.get("tool_choice") == "required" or PHRASE in system:
        return None
    return WRONG


@pytest.fixture
def env(suite, store, fake_server):
    server = fake_server(handler=handler, record=True)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    sp = tx.split(suite, holdout=0.3, seed=0)
    exp = tx.experiment("copy", suite=suite, split=sp, store=store)
    exp.run(cfg)
    holdout = {int(c[1:]) for c in sp.holdout}
    return exp, server, holdout


def _holdout_requests(server, start, holdout) -> int:
    return sum(case_index(b) in holdout for b in server.bodies[start:])


def test_sweep_copy_promotes_the_dev_winner_flagged(env, capsys):
    exp, server, holdout = env
    start = len(server.bodies)
    sw = exp.sweep(
        tx.space(tool_choice=["auto", "required"]),
        promote="copy",
        budget=tx.Budget(calls=200),
        preflight=False,
    )
    assert _holdout_requests(server, start, holdout) == 0 and sw.confirmation is None
    best = exp.best
    assert best.config.tool_choice == "required" and not best.confirmed
    assert best.source == f"sweep:{sw.id} (copy)"
    tl = exp.timeline()
    assert list(tl["kind"]) == ["eval", "sweep", "confirm"]
    row = tl.iloc[-1]
    assert row["selection_biased"] and row["split_used"] == "dev" and row["is_best"]
    assert row["promoted_from"] == sw.id and "promote='copy'" in row["note"]
    assert row["delta"] > 0 and row["n_cases"] == len(exp.split.dev)
    assert "unconfirmed" in exp.best_history()["reason"].iloc[-1]
    assert "unconfirmed" in capsys.readouterr().out
    exp.run_best(split="holdout", repeats=1)  # the winner's curse line says what is unconfirmed
    line = capsys.readouterr().out
    assert "tuning estimate +" in line and "unconfirmed (dev, copy) +" in line and "± " in line


def test_sweep_copy_with_nothing_better_keeps_the_best(env, capsys):
    exp, server, _ = env
    sw = exp.sweep(
        tx.space(max_tokens=[128, 256]),
        promote="copy",
        budget=tx.Budget(calls=200),
        preflight=False,
    )
    assert sw.best_trial.is_base and exp.best.source == "baseline"
    assert list(exp.timeline()["kind"]) == ["eval", "sweep"]
    assert "nothing to promote" in capsys.readouterr().out


def test_prompt_tune_copy_skips_the_holdout(env):
    exp, server, holdout = env
    start = len(server.bodies)
    cfg = exp.best.config
    pt = exp.tune_prompt(
        meta_model=cfg,
        population=2,
        generations=1,
        promote="copy",
        budget=tx.Budget(calls=300),
        search_few_shot=False,
    )
    assert _holdout_requests(server, start, holdout) == 0
    assert PHRASE in pt.winner.text and "promote='copy'" in pt.message
    cands = pt.candidates_df()
    win = cands[cands["promoted"]].iloc[0]
    assert win["dev_lcb"] > 0 and win["holdout_delta"] != win["holdout_delta"]  # NaN
    best = exp.best
    assert PHRASE in best.config.system_prompt and not best.confirmed
    row = exp.timeline().iloc[-1]
    assert row["kind"] == "confirm" and row["selection_biased"] and row["split_used"] == "dev"
    # a copy tune has no holdout evidence to promote with mode="confirm"
    assert pt.promote(exp, mode="confirm") is False
