"""A short real run of a bundled suite against the embedded SmolLM2 model (llama.cpp)."""

from __future__ import annotations

import pytest

import tooleval_nb as te
from tooleval_nb.runner import RESULT_COLUMNS


@pytest.mark.model
def test_bundled_suite_against_embedded_model(data_dir, store_path, tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path / "cache"))
    suite = te.load_suite(data_dir / "weather.json")
    ids = [c.id for c in suite.cases[:4]]
    job = te.run_eval(
        suite, [te.DEFAULT_MODEL], ids=ids, max_concurrency=2, timeout=60, progress="none"
    )
    run = job.result()
    df = run.results_df()
    assert list(df.columns) == list(RESULT_COLUMNS) and list(df["case_id"]) == ids
    assert df["error"].isna().all(), df["error"].tolist()
    # the llama.cpp server answers tool_choice="required" with a 500: the fallback is recorded
    assert df["fallback"].all()
    assert (df["latency_ms"] > 0).all() and (df["prompt_tokens"] > 0).all()
    assert df["tool_score"].between(0, 1).all()
    assert (df["passed"] == df["failure_mode"].isna()).all()
    assert (df["tool_calls"].str.startswith("[")).all()
    summary = run.summary_df().iloc[0]
    assert summary["n_cases"] == 4 and summary["fallback_count"] == 4
    assert te.history().loc[0, "status"] == "completed"
