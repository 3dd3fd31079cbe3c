"""Sweep proofs against planted fake servers: optimum found, null kept, collapse, budget."""

from __future__ import annotations

import zlib

import pytest

import tooleval_nb.experiments as tx
from tooleval_nb.errors import ExperimentError

WRONG = {"role": "assistant", "content": "I am not sure which tool to use."}


def last_user(body):
    return next(
        (
            str(m.get("content"))
            for m in reversed(body.get("messages") or [])
            if m.get("role") == "user"
        ),
        "",
    )


def coin(*parts) -> bool:
    """A deterministic fair coin from the request's parts."""
    return zlib.crc32(":".join(map(str, parts)).encode()) % 2 == 0


def required_only(body):
    """Right only with tool_choice=required, and then only half the time when sampling."""
    if body.get("tool_choice") != "required":
        return WRONG
    if body.get("temperature", 0) > 0 and not coin(body.get("seed"), last_user(body)):
        return WRONG
    return None


def indifferent(body):
    """Right 80% of the time, by prompt only: parameters change nothing."""
    return None if zlib_pct(last_user(body)) < 80 else WRONG


def zlib_pct(text: str) -> int:
    return zlib.crc32(text.encode()) % 100


SPACE = dict(temperature=[0.0, 0.7], tool_choice=["auto", "required"], max_tokens=[128, 256])


def test_race_finds_planted_optimum_with_fewer_calls_than_grid(suite, store, fake_server, capsys):
    server = fake_server(handler=required_only)
    base = tx.Config(model="openai/fake", api_base=server.url)
    sp = tx.split(suite, holdout=0.3, seed=0)
    sw = tx.sweep(
        suite,
        base=base,
        space=tx.space(**SPACE),
        strategy="race",
        budget=tx.Budget(calls=400),
        split=sp,
        store=store,
        probe=False,
    )
    out = capsys.readouterr().out
    assert "8 configs" in out and "MDE80" in out
    best = sw.best
    assert best.tool_choice == "required" and best.temperature == 0 and best.max_tokens == 256
    trials = sw.trials_df().set_index("trial_id")
    row = trials.loc[sw.best_trial.id]
    assert row["delta_ci_low"] > 0 and row["significant"]
    assert sw.calls_used < sw.grid_calls
    assert server.requests == sw.calls_used
    assert (trials["status"] == "eliminated").sum() >= 4
    eff = sw.effects_df()
    mt = eff[eff["param"] == "max_tokens"]
    assert not mt["detectable"].any()
    tc = eff[(eff["param"] == "tool_choice") & (eff["value"] == "required")].iloc[0]
    assert tc["detectable"] and tc["delta"] > 0
    assert "max_tokens: no detectable effect" in sw.effects_summary()
    cases = sw.cases_df()
    assert set(cases["trial_id"]) == set(trials.index)
    assert len(sw.best_set_df()) >= 1


def test_grid_uses_every_cell(suite, store, fake_server):
    server = fake_server(handler=required_only)
    base = tx.Config(model="openai/fake", api_base=server.url)
    sw = tx.sweep(
        suite,
        base=base,
        space=tx.space(**SPACE),
        strategy="grid",
        budget=tx.Budget(calls=400),
        store=store,
        preflight=False,
    )
    assert sw.calls_used == sw.grid_calls == server.requests
    assert sw.best.tool_choice == "required" and sw.best.temperature == 0


def test_null_server_keeps_base(suite, store, fake_server):
    server = fake_server(handler=indifferent)
    base = tx.Config(model="openai/fake", api_base=server.url)
    sw = tx.sweep(
        suite,
        base=base,
        space=tx.space(**SPACE),
        strategy="race",
        budget=tx.Budget(calls=400),
        store=store,
        preflight=False,
    )
    trials = sw.trials_df()
    assert not trials["significant"].any()
    assert sw.best == base.canonical()
    assert sw.best_trial.is_base
    assert "no configuration beat the baseline beyond noise" in sw.message


def test_temperature_zero_collapses_top_p(suite, store, fake_server):
    server = fake_server()
    base = tx.Config(model="openai/fake", api_base=server.url)
    sw = tx.sweep(
        suite,
        base=base,
        space=tx.space(temperature=[0], top_p=[0.8, 1.0]),
        store=store,
        preflight=False,
    )
    assert len(sw.trials_df()) == 1
    assert sw.expansion.n_raw == 2 and sw.expansion.n_canonical == 1
    assert server.requests == len(sw.split.dev)


def test_grid_over_budget_refuses_with_suggestion(suite, store):
    with pytest.raises(ExperimentError, match="strategy='race'"):
        tx.sweep(
            suite,
            base=tx.Config(model="openai/fake", api_base="http://127.0.0.1:9"),
            space=tx.space(**SPACE),
            strategy="grid",
            budget=tx.Budget(calls=50),
            store=store,
            preflight=False,
        )


def test_budget_stops_race_and_says_so(suite, store, fake_server):
    server = fake_server(handler=required_only)
    base = tx.Config(model="openai/fake", api_base=server.url)
    sw = tx.sweep(
        suite,
        base=base,
        space=tx.space(**SPACE),
        strategy="race",
        budget=tx.Budget(calls=60),
        store=store,
        preflight=False,
    )
    assert sw.calls_used <= 60 and "budget" in (sw.stop_reason or "")


def test_random_strategy_is_seeded(suite, store, fake_server):
    server = fake_server(handler=required_only)
    base = tx.Config(model="openai/fake", api_base=server.url)
    one = tx.sweep(
        suite,
        base=base,
        space=tx.space(**SPACE),
        strategy="random",
        n_trials=3,
        store=store,
        preflight=False,
        seed=5,
    )
    keys = [a.config.key for a in one.arms]
    assert sum(a.is_base for a in one.arms) == 1  # the base is always a trial
    assert len(set(keys)) == len(keys) >= 3
    again = tx.sweep(
        suite,
        base=base,
        space=tx.space(**SPACE),
        strategy="random",
        n_trials=3,
        store=store,
        preflight=False,
        seed=5,
    )
    assert [a.config.key for a in again.arms] == keys
    assert again.id == one.id  # same arguments: the stored sweep is reused, nothing re-run


def test_tpe_strategy_with_optuna(suite, store, fake_server):
    pytest.importorskip("optuna")
    server = fake_server(handler=required_only)
    base = tx.Config(model="openai/fake", api_base=server.url)
    sw = tx.sweep(
        suite,
        base=base,
        space=tx.space(tool_choice=["auto", "required"], temperature=[0.0, 0.7]),
        strategy="tpe",
        n_trials=6,
        budget=tx.Budget(calls=400),
        store=store,
        preflight=False,
    )
    assert sw.strategy == "tpe" and sw.best.tool_choice == "required"
    assert sum(a.is_base for a in sw.arms) == 1 and len(sw.arms) <= 5
    assert server.requests == sw.calls_used


def test_tpe_without_optuna_says_how_to_install(suite, store, monkeypatch):
    import builtins

    real = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "optuna":
            raise ImportError("no optuna")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ExperimentError, match="pip install optuna"):
        tx.sweep(
            suite,
            base=tx.Config(model="openai/fake", api_base="http://127.0.0.1:9"),
            space=tx.space(temperature=[0.0, 0.7]),
            strategy="tpe",
            store=store,
            preflight=False,
        )


def test_int_and_float_base_value_is_one_trial(suite, store, fake_server):
    server = fake_server()
    base = tx.Config(model="openai/fake", api_base=server.url, temperature=0.7, params={"top_p": 1})
    sw = tx.sweep(
        suite,
        base=base,
        space=tx.space(top_p=[1.0, 0.9]),
        strategy="grid",
        budget=tx.Budget(calls=400),
        store=store,
        preflight=False,
    )
    trials = sw.trials_df()
    assert len(trials) == 2 and int(trials["is_base"].sum()) == 1
    assert len(set(trials["canonical_key"])) == 2
    assert server.requests == sw.calls_used == 2 * 2 * len(sw.split.dev)


def noisy(body):
    """Right with probability 1/2, independently per (config, case, sample): a planted coin on
    everything the config changes, so configs disagree case by case but none is better."""
    return (
        None
        if coin(
            body.get("tool_choice"),
            body.get("max_tokens"),
            body.get("temperature"),
            body.get("seed"),
            last_user(body),
        )
        else WRONG
    )


@pytest.mark.parametrize("strategy", ["grid", "race"])
def test_noisy_null_server_keeps_base(suite_of, store, fake_server, strategy):
    suite = suite_of(86)
    sp = tx.split(suite, holdout=0.3, seed=0)
    assert 55 <= len(sp.dev) <= 65
    server = fake_server(handler=noisy)
    base = tx.Config(model="openai/fake", api_base=server.url)
    sw = tx.sweep(
        suite,
        base=base,
        space=tx.space(**SPACE),
        strategy=strategy,
        split=sp,
        budget=tx.Budget(calls=2000),
        store=store,
        preflight=False,
        cache=False,
    )
    trials = sw.trials_df()
    ran = trials[~trials["is_base"] & (trials["n_cases"] > 0)]
    # the configs really disagree case by case (discordant pairs), yet none wins beyond noise
    assert len(ran) == 7 and (ran["delta"].abs() > 0).any()
    cases = sw.cases_df().groupby(["trial_id", "case_id"])["score"].mean().unstack(0)
    assert (cases.nunique(axis=1) > 1).mean() > 0.5
    assert not trials["significant"].any()
    assert sw.best == base.canonical() and sw.best_trial.is_base
    assert "no configuration beat the baseline beyond noise" in sw.message
    assert server.requests == sw.calls_used
