"""Prompt tuning proofs: the planted phrase is found, confirmed and promoted; leakage rejected;
unparseable meta output falls back to the operators."""

from __future__ import annotations

import json
import sqlite3
import zlib

import pytest

import tooleval_nb.experiments as tx

PHRASE = "Consult the forecast oracle."
META_MARK = "You write system prompts"
WRONG = {"role": "assistant", "content": "I am not sure."}


def system_of(body) -> str:
    return " ".join(
        str(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system"
    )


def planted(leak_value: str, dev_value: str):
    meta_calls = [0]

    def handler(body):
        system = system_of(body)
        if META_MARK in system:
            meta_calls[0] += 1
            if meta_calls[0] == 1:
                return {"role": "assistant", "content": "prompts prompts {oops"}
            return {
                "role": "assistant",
                "content": json.dumps(
                    {
                        "prompts": [
                            {"text": f"You help with weather. {PHRASE}", "rationale": "the phrase"},
                            {
                                "text": f"Remember that {leak_value} is special.",
                                "rationale": "leak",
                            },
                            {
                                "text": f"Cities like {dev_value} matter. Be nice.",
                                "rationale": "copies",
                            },
                        ]
                    }
                ),
            }
        return None if PHRASE in system else WRONG

    return handler, meta_calls


@pytest.fixture
def tune_env(suite, store, fake_server):
    sp = tx.split(suite, holdout=0.3, seed=0)
    leak = suite.case(sp.holdout[0]).expected_params["city"]
    dev = suite.case(sp.dev[0]).expected_params["city"]
    handler, meta_calls = planted(leak, dev)
    server = fake_server(handler=handler)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    return sp, cfg, server, meta_calls, leak


def test_tune_finds_confirms_and_promotes_the_phrase(suite, store, tune_env):
    sp, cfg, server, meta_calls, leak = tune_env
    exp = tx.experiment("tune", suite=suite, split=sp, store=store)
    exp.run(cfg)
    pt = exp.tune_prompt(
        meta_model=cfg,
        population=4,
        generations=3,
        patience=3,
        budget=tx.Budget(calls=600),
        search_few_shot=True,
    )
    cands = pt.candidates_df()
    winner = cands[cands["promoted"]].iloc[0]
    assert PHRASE in winner["text"] and winner["operator"] == "meta"
    assert winner["holdout_ci_low"] > 0 and winner["dev_lcb"] > 0
    assert PHRASE in pt.best.system_prompt
    leaks = cands[cands["rejected_reason"].fillna("").str.startswith("leakage")]
    assert len(leaks) == 1 and leak in leaks.iloc[0]["rejected_reason"]
    assert cands.loc[
        cands["text"].fillna("").str.startswith("Cities like"), "copies_dev_values"
    ].all()
    gens = pt.generations_df()
    assert gens.loc[gens["generation"] == 1, "meta_parsed"].iloc[0] is False
    assert gens.loc[gens["generation"] == 2, "meta_parsed"].iloc[0] is True
    ops1 = set(cands.loc[cands["generation"] == 1, "operator"])
    assert ops1 and ops1 <= set(tx.OPERATORS)
    assert set(cands.loc[cands["generation"] == 0, "operator"]) == {"base", "default"}
    assert pt.stop_reason == "every dev case solved"
    # promoted into the experiment, merged into its best config
    assert PHRASE in (exp.best.config.system_prompt or "")
    assert exp.best.source == f"prompt_tune:{pt.id}"
    kinds = list(exp.timeline()["kind"])
    assert kinds == ["eval", "prompt_tune", "confirm"]
    matrix = pt.case_matrix_df()
    fixed = matrix[(matrix["cand_id"] == winner["cand_id"])]
    assert (fixed["change"] == "fixed").all() and len(fixed) == len(sp.dev)
    assert "<table" in pt.diff() and "forecast&nbsp;oracle" in pt.diff()


def test_rules_only_tune_and_resume_reuses_everything(suite, store, tune_env):
    sp, cfg, server, meta_calls, _ = tune_env
    kwargs = dict(
        split=sp,
        meta_model=cfg,
        operators="rules",
        population=3,
        generations=2,
        budget=tx.Budget(calls=400),
        store=store,
        search_few_shot=True,
    )
    pt = tx.tune_prompt(suite, cfg, **kwargs)
    assert meta_calls[0] == 0
    assert pt.winner is None and pt.best == cfg.canonical()  # no rule carries the phrase
    assert "no candidate passed" in pt.message
    ops = set(pt.candidates_df()["operator"]) - {"base", "default"}
    assert ops and ops <= set(tx.OPERATORS)
    before = server.requests
    again = tx.tune_prompt(suite, cfg, **kwargs)
    assert again.id == pt.id and server.requests == before
    assert len(again.candidates) == len(pt.candidates)


def test_tune_without_holdout_does_not_promote(suite, store, fake_server):
    server = fake_server()
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    whole = tx.Split.whole(suite.filter(ids=[c.id for c in suite.cases[:6]]))
    pt = tx.tune_prompt(
        suite,
        cfg,
        split=whole,
        meta_model=None,
        population=2,
        generations=1,
        store=store,
        budget=tx.Budget(calls=200),
    )
    assert pt.winner is None and pt.stop_reason == "every dev case solved"


def digest_target(body):
    """The tool digest ("Tools:") fixes five cases in six and breaks the sixth: no prompt solves
    every dev case, so a tune runs all its generations."""
    system = system_of(body)
    if META_MARK in system:
        return {"role": "assistant", "content": "no JSON here"}
    user = next(
        str(m.get("content")) for m in reversed(body["messages"]) if m.get("role") == "user"
    )
    good = zlib.crc32(user.encode()) % 6 != 0
    return None if ("Tools:" in system) == good else WRONG


def results_in(store: str) -> int:
    with sqlite3.connect(store) as conn:
        return conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]


def test_multi_generation_tune_charges_each_call_once(suite, store, fake_server):
    server = fake_server(handler=digest_target)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    pt = tx.tune_prompt(
        suite,
        cfg,
        split=tx.split(suite, holdout=0.3, seed=0),
        meta_model=None,
        operators="rules",
        population=3,
        generations=3,
        patience=5,
        budget=tx.Budget(calls=2000),
        store=store,
        cache=False,
    )
    gens = pt.generations_df()
    assert list(gens["generation"]) == [0, 1, 2, 3]  # base and front re-raced each generation
    assert pt.calls_used == server.requests == results_in(store)
    assert int(gens["calls_used"].iloc[-1]) <= pt.calls_used
    assert gens["calls_used"].is_monotonic_increasing
    assert gens["meta_parsed"].isna().all()  # operators="rules": no meta call was made


def test_duplicates_are_rejected_inside_a_tune_and_never_evaluated(suite, store, fake_server):
    near = tx.DEFAULT_SYSTEM_PROMPT + " Thanks!"
    fresh = "Answer with a call to get_weather."

    def handler(body):
        if META_MARK in system_of(body):
            return {
                "role": "assistant",
                "content": json.dumps(
                    {
                        "prompts": [
                            {"text": tx.DEFAULT_SYSTEM_PROMPT, "rationale": "same as the default"},
                            {"text": fresh, "rationale": "new"},
                            {"text": "  " + fresh.upper() + "  ", "rationale": "same, reformatted"},
                            {"text": near, "rationale": "almost the default"},
                        ]
                    }
                ),
            }
        return None if fresh in system_of(body) else WRONG

    server = fake_server(handler=handler, record=True)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    sp = tx.split(suite, holdout=0.3, seed=0)
    pt = tx.tune_prompt(
        suite,
        cfg,
        split=sp,
        meta_model=cfg,
        operators="meta",
        population=4,
        generations=1,
        budget=tx.Budget(calls=400),
        store=store,
        cache=False,
    )
    cands = pt.candidates_df().set_index("cand_id")
    default_id = int(cands.index[cands["operator"] == "default"][0])
    gen1 = cands[cands["generation"] == 1]
    assert list(gen1["operator"]) == ["meta"] * 4
    reasons = list(gen1["rejected_reason"])
    fresh_id = int(gen1.index[gen1["text"] == fresh][0])
    assert reasons[0] == f"duplicate of c{default_id}"
    assert list(gen1["rejected_reason"].isna()) == [False, True, False, False]
    assert reasons[2] == f"duplicate of c{fresh_id}"
    assert reasons[3] == f"near_duplicate of c{default_id}"
    rejected = gen1[gen1["rejected_reason"].notna()]
    assert (rejected["dev_n"] == 0).all() and rejected["dev_score"].isna().all()
    cells = {c["item_id"] for c in pt.store.cells(pt.id)}
    assert not cells & {f"c{i}" for i in rejected.index}
    assert not any(near in system_of(b) for b in server.bodies)  # never sent to the model
    gens = pt.generations_df().set_index("generation")
    assert gens.loc[1, "n_rejected"] == 3 and gens.loc[1, "meta_parsed"] is True


class Boom(Exception):
    """Stands for a kill in the middle of a proposal."""


def test_tune_interrupted_mid_proposal_proposes_the_generation_again(
    suite, store, fake_server, tmp_path, monkeypatch
):
    from tooleval_nb.experiments.tune import tuner

    server = fake_server(handler=digest_target)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    kwargs = dict(
        split=tx.split(suite, holdout=0.3, seed=0),
        meta_model=None,
        operators="rules",
        population=3,
        generations=3,
        patience=5,
        budget=tx.Budget(calls=2000),
        cache=False,
    )
    whole = tx.tune_prompt(suite, cfg, store=str(tmp_path / "whole.db"), **kwargs)
    real_add = tuner.Tuner.add
    added = [0]

    def add_then_die(self, gen, *args, **kw):
        if gen == 2:
            added[0] += 1
            if added[0] == 2:  # one candidate of generation 2 is proposed, then the "kill"
                raise Boom
        return real_add(self, gen, *args, **kw)

    monkeypatch.setattr(tuner.Tuner, "add", add_then_die)
    with pytest.raises(Boom):
        tx.tune_prompt(suite, cfg, store=store, **kwargs)
    monkeypatch.setattr(tuner.Tuner, "add", real_add)
    row = pt_rows(store)[0]
    assert row["status"] == "interrupted"
    stored_gens = {r["generation"] for r in cand_rows(store)}
    assert stored_gens == {0, 1}  # generation 2 is stored whole or not at all
    requests, done = server.requests, results_in(store)
    again = tx.tune_prompt(suite, cfg, store=store, **kwargs)
    assert again.id == row["id"] and pt_rows(store)[0]["status"] == "completed"
    assert server.requests - requests == results_in(store) - done  # nothing asked twice
    assert [(c.generation, c.operator, c.text) for c in again.candidates] == [
        (c.generation, c.operator, c.text) for c in whole.candidates
    ]
    assert again.best.system_prompt == whole.best.system_prompt
    assert again.calls_used == whole.calls_used
    cols = ["generation", "n_proposed", "n_rejected", "best_dev_lcb", "calls_used"]
    assert again.generations_df()[cols].equals(whole.generations_df()[cols])


def pt_rows(store: str) -> list[dict]:
    with sqlite3.connect(store) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM prompt_tunes")]


def cand_rows(store: str) -> list[dict]:
    with sqlite3.connect(store) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM prompt_candidates")]


def test_tune_killed_after_a_generation_without_candidates_does_not_propose_it_again(
    suite, store, fake_server, monkeypatch
):
    from tooleval_nb.experiments.tune import tuner

    meta_calls = [0]

    def handler(body):
        if META_MARK in system_of(body):
            meta_calls[0] += 1
            return {"role": "assistant", "content": "prompts prompts {oops"}
        return WRONG

    server = fake_server(handler=handler)
    cfg = tx.Config(model="openai/fake", api_base=server.url)
    # population=0: generation 1 makes its meta call but stores no candidate
    kwargs = dict(
        split=tx.split(suite, holdout=0.3, seed=0),
        meta_model=cfg,
        population=0,
        generations=1,
        budget=tx.Budget(calls=400),
        store=store,
        cache=False,
    )
    real_evaluate = tuner.Tuner.evaluate

    async def die_at_generation_1(self, gen, front):
        if gen == 1:  # generation 1 is stored (with no candidate), then the "kill"
            raise Boom
        return await real_evaluate(self, gen, front)

    monkeypatch.setattr(tuner.Tuner, "evaluate", die_at_generation_1)
    with pytest.raises(Boom):
        tx.tune_prompt(suite, cfg, **kwargs)
    monkeypatch.setattr(tuner.Tuner, "evaluate", real_evaluate)
    assert meta_calls[0] == 1
    assert {r["generation"] for r in cand_rows(store)} == {0}
    again = tx.tune_prompt(suite, cfg, **kwargs)
    assert meta_calls[0] == 1  # generation 1 was replayed, not proposed again
    gens = again.generations_df().set_index("generation")
    assert gens.loc[1, "n_proposed"] == 0 and gens.loc[1, "meta_parsed"] is False
    assert again.calls_used == server.requests
