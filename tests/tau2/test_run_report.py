"""The report's τ² section reads a stored τ² run back from the store and scores it as the run
did (no model called); other runs are not τ² runs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import tooleval_nb as te
from tooleval_nb.report import tau2_frames
from tooleval_nb.tau2.domains import Tau2Error
from tooleval_nb.tau2.run import is_tau2_run, load_tau2_run, run_tau2_async
from tooleval_nb.testing import MockTransport
from tooleval_nb.testing.tau2_script import answer

pytest.importorskip("tau2.domains.airline.environment")


def test_a_stored_tau2_run_is_scored_again_for_the_report(tmp_path: Path, make_suite) -> None:
    store = str(tmp_path / "runs.db")
    made = asyncio.run(
        run_tau2_async(
            {"model": "openai/scripted", "transport": MockTransport(answer)},
            "mock",
            limit=2,
            trials=2,
            max_steps=30,
            store=store,
            cache=False,
        )
    )
    stored = te.load_run(made.id, store=store)
    assert is_tau2_run(stored)
    again = load_tau2_run(stored)
    assert again.tau2_results_df()["reward"].tolist() == made.tau2_results_df()["reward"].tolist()
    assert again.stored.spec.max_steps == 30 and again.stored.spec.trials == 2
    other = asyncio.run(
        te.run_eval_async(
            make_suite(1),
            [{"model": "openai/x", "transport": MockTransport()}],
            store=store,
            cache=False,
        )
    )
    assert not is_tau2_run(other)
    with pytest.raises(Tau2Error, match="is not a τ²-bench run"):
        load_tau2_run(other)
    frames = tau2_frames([other, stored])
    assert frames is not None
    scores, results = frames
    assert scores["pass^2"].tolist() == [1.0] and len(results) == 4
    assert tau2_frames([other]) is None
