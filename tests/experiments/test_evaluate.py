"""The bridge to the runner: a run's Config is the one the runner ran."""

from __future__ import annotations

from types import SimpleNamespace

import tooleval_nb.experiments as tx
from tooleval_nb.experiments.evaluate import config_from_run, evaluate
from tooleval_nb.models import ModelSpec
from tooleval_nb.runner import run_eval
from tooleval_nb.runner.plan import RunSettings


def sent(body: dict) -> dict:
    """What a request asked for, apart from the conversation itself."""
    return {k: v for k, v in body.items() if k not in ("messages", "tools")}


def test_config_from_a_default_run_sends_the_same_request(suite, store, fake_server):
    server = fake_server(record=True)
    ids = [c.id for c in suite.cases[:3]]
    run = run_eval(
        suite,
        [ModelSpec(model="openai/fake", api_base=server.url)],
        ids=ids,
        store=store,
        progress="none",
    ).result()
    cfg = config_from_run(run)
    assert cfg.tool_choice == run.settings["tool_choice"] == "required"  # the runner's default
    assert cfg.max_tokens is None  # the run sent no max_tokens: none is invented
    first = sent(server.bodies[0])
    evaluate(suite, cfg, ids, store=store, cache=False)
    assert sent(server.bodies[-1]) == first


def test_config_from_run_falls_back_to_the_runners_defaults():
    bare = SimpleNamespace(settings={}, targets=[{"spec": {"model": "openai/fake"}}])
    cfg = config_from_run(bare)
    defaults = RunSettings()
    assert cfg.tool_choice == defaults.tool_choice and cfg.temperature == defaults.temperature
    assert cfg.max_tokens is None and cfg.model == "openai/fake"
    ran = SimpleNamespace(
        settings={"tool_choice": "auto", "params": {"max_tokens": 64}},
        targets=[{"spec": {"model": "openai/fake"}}],
    )
    assert config_from_run(ran) == tx.Config(model="openai/fake", max_tokens=64)
