"""``te.replay_tau2``: a second agent against the user turns of a stored τ² run (scripted
models, ``MockTransport``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tooleval_nb.models.transport import ChatRequest
from tooleval_nb.tau2.domains import Tau2Error
from tooleval_nb.tau2.replay import replay_tau2, user_scripts
from tooleval_nb.tau2.run import run_tau2_async
from tooleval_nb.testing import MockTransport
from tooleval_nb.testing.tau2_script import answer, answer_inaction

pytest.importorskip("tau2.domains.airline.environment")


def _said(results: Any) -> dict[tuple[str, int], list[str | None]]:
    return {k: [m.content for m in said] for k, said in user_scripts(results).items()}


def _is_user(request: ChatRequest) -> bool:
    return "<scenario>" in str(request.messages[0].get("content"))


def test_a_second_agent_hears_the_stored_users_turns(tmp_path: Path) -> None:
    store = str(tmp_path / "runs.db")
    out = tmp_path / "gold.json"

    async def main() -> None:
        gold = await run_tau2_async(
            {"model": "openai/gold", "transport": MockTransport(answer)},
            "mock",
            limit=3,
            trials=2,
            store=store,
            cache=False,
            output=out,
        )
        idle = MockTransport(answer_inaction)
        for stored in (gold, out):  # the run, then its results file
            replay = await replay_tau2(
                stored, {"model": "openai/idle", "transport": idle}, store=store, cache=False
            )
            assert not any(_is_user(r) for r in idle.requests)  # every user turn replayed
            first = _said(gold.stored.tau2_results())
            again = _said(replay.stored.tau2_results())
            assert again.keys() == first.keys()
            for key, said in again.items():
                assert said == first[key][: len(said)] and said[-1] == "###STOP###"
            sims = replay.stored.tau2_results().simulations
            assert [(s.task_id, s.trial, s.seed) for s in sims] == [
                (s.task_id, s.trial, s.seed) for s in gold.stored.tau2_results().simulations
            ]
            idle.requests.clear()

    asyncio.run(main())


def test_after_its_turns_the_user_model_goes_on(tmp_path: Path) -> None:
    async def main() -> None:
        gold = await run_tau2_async(
            {"model": "openai/gold", "transport": MockTransport(answer)},
            "mock",
            task_ids=["create_task_1"],
            store=str(tmp_path / "runs.db"),
            cache=False,
        )
        idle = MockTransport(answer_inaction)
        replay = await replay_tau2(
            gold,
            {"model": "openai/idle", "transport": idle},
            turns=1,
            store=str(tmp_path / "runs.db"),
            cache=False,
        )
        (sim,) = replay.stored.tau2_results().simulations
        said = [m.content for m in sim.messages if m.role == "user"]
        assert said[0] == _said(gold.stored.tau2_results())[("create_task_1", 0)][0]
        assert sum(_is_user(r) for r in idle.requests) == len(said) - 1

    asyncio.run(main())


def test_what_cannot_be_replayed_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"info": 1}')
    with pytest.raises(Tau2Error, match="bad.json"):
        replay_tau2(bad, {"model": "openai/x", "transport": MockTransport(answer)})
    with pytest.raises(TypeError, match="replays a τ² run"):
        replay_tau2(42, "openai/x")
