"""Budget accounting and budget outcomes of tuners: every call is charged once, a resumed job
pays what the interrupted one paid, and a confirmation the budget cannot pay for is a stated
outcome, never an exception."""

from __future__ import annotations

import json
import re

import pytest

import tooleval_nb.experiments as tx
from tooleval_nb.aio import run_sync
from tooleval_nb.errors import ExperimentError

WRONG = {"role": "assistant", "content": "no"}
PHRASE = "Consult the forecast oracle."
META_MARK = "You write system prompts"


def required_only(body):
    return None if body.get("tool_choice") == "required" else WRONG


def system_of(body) -> str:
    return " ".join(
        str(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system"
    )


def phrase_meta(body):
    if META_MARK in system_of(body):
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
    return None if PHRASE in system_of(body) else WRONG


def entry(exp, kind):
    tl = exp.timeline()
    rows = tl[tl["kind"] == kind]
    assert len(rows) == 1, tl[["kind", "note"]]
    return rows.iloc[0]


def test_race_sweep_with_nothing_better_on_dev_links_without_confirming(suite, store, fake_server):
    server = fake_server(handler=required_only)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    exp = tx.experiment("b", suite=suite, store=store)
    exp.run(cfg)
    before = server.requests
    sw = exp.sweep(
        tx.space(tool_choice=["auto", "required"], max_tokens=[128, 256], temperature=[0, 0.7]),
        strategy="race",
        budget=tx.Budget(calls=70),
        preflight=False,
    )  # used to raise "budget spent before confirming t3 (None)"
    assert sw.best_trial.is_base and sw.confirmation is not None and sw.confirmation.empty
    assert list(sw.confirmation.columns)[:2] == ["trial_id", "config_diff"]
    assert server.requests - before == sw.calls_used <= 70
    note = entry(exp, "sweep")["note"]
    assert "nothing to confirm: no trial beat the base config on dev beyond noise" in note
    assert "confirm" not in set(exp.timeline()["kind"])
    assert exp.best.source == "baseline"


def test_an_explicit_confirm_runs_the_holdout_even_when_nothing_beat_the_base(
    suite, store, fake_server
):
    server = fake_server(handler=lambda body: None)  # every config answers right: a null
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    sp = tx.split(suite, holdout=0.3, seed=0)
    sw = tx.sweep(
        suite,
        base=cfg,
        space=tx.space(tool_choice=["auto", "required"]),
        split=sp,
        strategy="grid",
        preflight=False,
        store=store,
        cache=False,
    )
    assert sw.best_trial.is_base
    empty, _ = run_sync(sw.try_confirm(only_if_better=True))  # what auto-promotion does
    assert empty.empty and sw.confirm_note.startswith("nothing to confirm")
    before = server.requests
    conf = sw.confirm(top_k=1)  # asked for: the holdout runs (only auto-promotion skips it)
    assert len(conf) == 2 and conf["is_base"].sum() == 1 and not conf["confirmed"].any()
    assert server.requests - before == 2 * len(sp.holdout)  # 2 configs (greedy: 1 repeat)
    assert sw.confirm_note is None


def test_sweep_whose_holdout_is_over_budget_is_linked_with_the_reason(
    suite, store, fake_server, capsys
):
    server = fake_server(handler=required_only)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    sp = tx.split(suite, holdout=0.3, seed=0)
    exp = tx.experiment("short", suite=suite, split=sp, store=store)
    exp.run(cfg)
    before = server.requests
    budget = 2 * len(sp.dev) + 3  # the dev grid fits, the holdout (2 x holdout) does not
    sw = exp.sweep(
        tx.space(tool_choice=["auto", "required"]),
        strategy="grid",
        budget=tx.Budget(calls=budget),
        preflight=False,
        cache=False,
    )
    assert sw.best.tool_choice == "required"  # it did beat the base on dev
    assert sw.confirmation is None and server.requests - before == sw.calls_used
    note = entry(exp, "sweep")["note"]
    want = (
        f"not confirmed: budget: confirming 2 trials on {len(sp.holdout)} holdout cases "
        f"needs {2 * len(sp.holdout)} calls, 3 left of the budget of {budget}"
    )
    assert want in note and "None" not in note
    assert "not confirmed: budget" in capsys.readouterr().out
    assert "confirm" not in set(exp.timeline()["kind"]) and exp.best.source == "baseline"
    # asked for explicitly, confirming is an error that says what is missing and what to do
    with pytest.raises(ExperimentError, match=r"needs \d+ calls, 3 left.*larger te\.Budget"):
        sw.confirm()
    assert server.requests - before == sw.calls_used  # nothing was spent trying


def test_tune_whose_holdout_is_over_budget_is_linked_with_the_reason(
    suite, store, fake_server, tmp_path
):
    server = fake_server(handler=phrase_meta)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    sp = tx.split(suite, holdout=0.3, seed=0)
    args = dict(
        meta_model=cfg, population=2, generations=1, patience=3, search_few_shot=False, cache=False
    )
    free = tx.tune_prompt(
        suite, cfg, split=sp, store=str(tmp_path / "free.db"), budget=tx.Budget(calls=1000), **args
    )
    assert free.winner is not None  # with money, the phrase is confirmed
    dev_calls = int(free.generations_df()["calls_used"].iloc[-1])
    exp = tx.experiment("tune-short", suite=suite, split=sp, store=store)
    exp.run(cfg)
    before = server.requests
    pt = exp.tune_prompt(budget=tx.Budget(calls=dev_calls + 1), **args)
    assert pt.winner is None and pt.best == pt.base
    assert server.requests - before == pt.calls_used == dev_calls
    assert pt.message.startswith("not confirmed: budget: confirming")
    note = entry(exp, "prompt_tune")["note"]
    assert "not confirmed: budget" in note and "1 left of the budget" in note
    assert "confirm" not in set(exp.timeline()["kind"]) and exp.best.source == "baseline"


def test_tune_with_nothing_better_on_dev_does_not_confirm(suite, store, fake_server):
    server = fake_server(handler=lambda body: WRONG)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    exp = tx.experiment("flat", suite=suite, store=store)
    exp.run(cfg)
    pt = exp.tune_prompt(
        meta_model=None, operators="rules", population=2, generations=1, budget=tx.Budget(calls=400)
    )
    assert pt.winner is None and all(not c.holdout for c in pt.candidates)
    assert "nothing to confirm: no candidate beat the base prompt on dev" in pt.message
    assert "nothing to confirm" in entry(exp, "prompt_tune")["note"]


def test_resumed_sweep_pays_its_probe_like_an_uninterrupted_one(suite, store, fake_server, capsys):
    server = fake_server(handler=required_only)
    base = tx.Config(model="openai/fake", api_base=server.url)
    args = dict(
        base=base,
        space=tx.space(tool_choice=["auto", "required"]),
        strategy="grid",
        budget=tx.Budget(calls=400),
        store=store,
    )
    first = tx.sweep(suite, **args)
    assert server.requests == first.calls_used == first.grid_calls + 3  # 3 probe calls
    again = tx.sweep(suite, **args)  # the same sweep: resumed from the store
    assert again.id == first.id and server.requests == first.calls_used
    assert again.calls_used == first.calls_used
    etas = re.findall(r"ETA (\S+ \S+);", capsys.readouterr().out)
    assert len(etas) == 2 and all(re.fullmatch(r"\d+(\.\d)? (s|min|h)", e) for e in etas)
