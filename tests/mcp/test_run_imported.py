"""An imported suite, with accepted cases, run end to end on the embedded model."""

from __future__ import annotations

import pytest

import tooleval_nb as te
from tooleval_nb.runner import RESULT_COLUMNS
from tooleval_nb.suite import EvalCase


@pytest.mark.model
def test_imported_suite_runs_on_the_embedded_model(stdio_cmd, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TOOLEVAL_STORE", str(tmp_path / "runs.db"))
    imported = te.import_mcp(stdio_cmd("--enum"))  # set_thermostat: Enum parameters ($ref)
    assert [t.name for t in imported.tools] == [
        "get_weather",
        "calculate",
        "slow_task",
        "set_thermostat",
    ]
    written = [  # as a reviewer would leave them after editing the drafts
        EvalCase(
            id="weather",
            prompt="What is the weather in Paris?",
            expected_tool="get_weather",
            expected_params={"city": "Paris"},
        ),
        EvalCase(
            id="product",
            prompt="What is 6 times 7?",
            expected_tool="calculate",
            expected_params={"operation": "multiply", "a": 6, "b": 7},
        ),
        EvalCase(
            id="heating",
            prompt="Turn the heating on in the kitchen.",
            expected_tool="set_thermostat",
            expected_params={"room": "kitchen", "mode": "heat"},
        ),
    ]
    drafts = [c.model_copy(update={"draft": True, "tags": ["draft", "mcp"]}) for c in written]
    suite = te.accept_drafts(imported.model_copy(update={"cases": drafts}))
    assert not any(c.draft for c in suite.cases)
    run = te.run_eval(
        suite,
        [te.DEFAULT_MODEL],
        tool_choice="auto",
        progress="none",
        timeout=60,
        max_concurrency=1,
        params={"max_tokens": 64},
    ).result()
    df = run.results_df()
    assert list(df.columns) == list(RESULT_COLUMNS)
    assert list(df["case_id"]) == ["weather", "product", "heating"]  # none skipped as a draft
    assert df["error"].isna().all(), df["error"].tolist()
    assert (df["latency_ms"] > 0).all() and (df["prompt_tokens"] > 0).all()
    assert df["tool_score"].between(0, 1).all() and df["overall"].between(0, 1).all()
    assert (df["passed"] == df["failure_mode"].isna()).all()
    summary = run.summary_df().iloc[0]
    assert summary["n_cases"] == 3
    assert te.history().iloc[0]["status"] == "completed"
