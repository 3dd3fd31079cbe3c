"""run_bfcl end to end against the fake OpenAI-compatible server (a real local HTTP server)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tooleval_nb.bfcl import run_bfcl, run_bfcl_async
from tooleval_nb.bfcl.rescore import score_result_files
from tooleval_nb.bfcl_rules.data import BfclData
from tooleval_nb.bfcl_rules.prompt import prompt_messages
from tooleval_nb.errors import ModelConfigError, SuiteError

CATS = ["simple_python", "parallel", "irrelevance"]


def _user_text(body):
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


def _fc_handler(body):
    """Right on simple_python_1 (math.factorial), a text reply on everything else."""
    if "factorial of 5" in _user_text(body):
        return {
            "tool_calls": [{"function": {"name": "math_factorial", "arguments": {"number": 5}}}]
        }
    return {"content": "I cannot help with that."}


def _prompt_handler(body):
    if "factorial of 5" in _user_text(body):
        return {"content": "[math.factorial(number=5)]"}
    return {"content": "None of the functions fit."}


def _model(server):
    return {"model": "openai/fake", "api_base": server.url, "api_key": "k"}


def test_fc_mode_end_to_end(fake_server, bfcl_data, tmp_path, store):
    server = fake_server(handler=_fc_handler)
    run = run_bfcl(
        _model(server),
        CATS,
        mode="fc",
        limit=3,
        store=store,
        data_dir=bfcl_data,
        output=tmp_path / "out",
        progress="none",
    ).result()
    bodies = server.bodies
    sent = next(b for b in bodies if "factorial of 5" in _user_text(b))
    assert [t["function"]["name"] for t in sent["tools"]] == ["math_factorial"]
    assert sent.get("tool_choice") in (None, "auto")  # BFCL's handlers leave the choice open
    df = run.bfcl_results_df()
    assert len(df) == 9
    ok = df.set_index("id")
    assert ok.loc["simple_python_1", "passed"] and ok.loc["simple_python_1", "tool_score"] == 1.0
    assert not ok.loc["simple_python_0", "passed"]
    assert ok.loc["simple_python_0", "error_type"] == "ast_decoder:decoder_failed"
    assert ok.loc["irrelevance_0", "passed"]
    folder = tmp_path / "out" / "result" / "openai_fake-FC"
    lines = (folder / "non_live" / "BFCL_v4_simple_python_result.json").read_text().splitlines()
    entries = [json.loads(x) for x in lines]
    assert [e["id"] for e in entries] == ["simple_python_0", "simple_python_1", "simple_python_2"]
    assert entries[1]["result"] == [{"math_factorial": '{"number": 5}'}]
    assert entries[0]["result"] == "I cannot help with that."
    assert set(entries[0]) == {"id", "result", "input_token_count", "output_token_count", "latency"}
    # the files rescored from disk give the same verdicts
    again = score_result_files(folder, "fc", data=bfcl_data)
    assert list(again["passed"]) == list(df["passed"])
    board = run.bfcl_scores().iloc[0]
    assert board["simple_python"] == pytest.approx(1 / 3) and board["irrelevance"] == 1.0
    assert board["n_decoder_failed"] == 2 + 3  # the text replies on simple_python and parallel
    score = tmp_path / "out" / "score_tooleval" / "openai_fake-FC"
    header = json.loads(
        (score / "non_live" / "BFCL_v4_simple_python_score.json").read_text().splitlines()[0]
    )
    assert header == {"accuracy": 1 / 3, "correct_count": 1, "total_count": 3}
    # the CSV files, written without pandas, read back as the frames they hold
    import pandas as pd

    written = pd.read_csv(score / "entries.csv")
    expected = df.drop(columns=["result"])
    assert list(written.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(
        written[["id", "passed", "error_type", "tool_score"]],
        expected[["id", "passed", "error_type", "tool_score"]],
        check_dtype=False,
    )
    pd.testing.assert_frame_equal(
        pd.read_csv(score / "leaderboard.csv"), run.bfcl_scores(), check_dtype=False
    )


def test_entries_are_judged_while_the_run_goes_as_they_are_at_the_end(
    fake_server, bfcl_data, tmp_path, store
):
    """Each stored entry is judged during the run (its result read from its stored reply);
    the run's frame and files equal those of the same run judged only at the end."""
    from tooleval_nb.bfcl.run import BfclRun

    server = fake_server(handler=_fc_handler)
    job = run_bfcl(
        _model(server),
        CATS,
        mode="fc",
        limit=3,
        store=store,
        data_dir=bfcl_data,
        progress="none",
    )
    run = job.result()
    judged = job.tally.judged[run.models[0]]
    assert sorted(judged) == sorted(c.id for c in run.suite.cases)
    late = BfclRun.of(run, run.spec, run.suite)  # no tally: everything read at the end
    assert late.bfcl_entries() == run.bfcl_entries()
    assert late.bfcl_results_df().equals(run.bfcl_results_df())
    assert judged["simple_python_1"][0] == [{"math_factorial": '{"number": 5}'}]
    assert judged["simple_python_1"][1]["passed"] is True


def test_prompt_mode_sends_bfcls_prompt_and_keeps_the_raw_text(
    fake_server, bfcl_data, tmp_path, store
):
    server = fake_server(handler=_prompt_handler)
    run = run_bfcl(
        _model(server),
        ["simple_python"],
        mode="prompt",
        limit=2,
        store=store,
        data_dir=bfcl_data,
        output=tmp_path / "out",
        progress="none",
    ).result()
    bodies = server.bodies
    entry = BfclData(bfcl_data).category("simple_python").by_id["simple_python_1"]
    sent = next(b for b in bodies if "factorial of 5" in _user_text(b))
    assert "tools" not in sent
    want = prompt_messages(entry, "simple_python")
    # the models layer strips a system message's ends: BFCL's prompt ends with one "\n" more
    want[0]["content"] = want[0]["content"].strip()
    assert sent["messages"] == want
    path = (
        tmp_path
        / "out"
        / "result"
        / "openai_fake"
        / "non_live"
        / "BFCL_v4_simple_python_result.json"
    )
    results = [json.loads(x)["result"] for x in path.read_text().splitlines()]
    assert results == ["None of the functions fit.", "[math.factorial(number=5)]"]
    assert list(run.bfcl_results_df()["passed"]) == [False, True]


def test_async_twin(fake_server, bfcl_data, store):
    import asyncio

    server = fake_server(handler=_prompt_handler)
    run = asyncio.run(
        run_bfcl_async(
            _model(server),
            "simple_python",
            mode="prompt",
            limit=2,
            store=store,
            data_dir=bfcl_data,
        )
    )
    assert run.bfcl_scores().iloc[0]["simple_python"] == 0.5


def test_a_model_without_native_tools_is_told_to_use_prompt_mode(fake_server, bfcl_data, store):
    server = fake_server(handler=lambda body: "400")
    with pytest.raises(ModelConfigError, match="mode='prompt'"):
        run_bfcl(
            _model(server),
            "simple_python",
            limit=2,
            store=store,
            data_dir=bfcl_data,
            progress="none",
        ).result()


def test_an_entry_too_long_for_the_context_window_is_its_own_error(
    fake_server, bfcl_data, store, tmp_path
):
    # llama.cpp's 400 for messages over the context window: not a model without native tools
    # (a run of one long entry raised that before); the entries stay, errored, in the files
    server = fake_server(handler=lambda body: "context")
    run = run_bfcl(
        _model(server),
        "simple_python",
        limit=2,
        store=store,
        data_dir=bfcl_data,
        output=tmp_path / "out",
        progress="none",
    ).result()
    df = run.bfcl_results_df()
    assert list(df["passed"]) == [False, False] and df["errored"].all()
    path = next((tmp_path / "out" / "result").rglob("BFCL_v4_simple_python_result.json"))
    results = [json.loads(x)["result"] for x in path.read_text().splitlines()]
    assert all("maximum context length" in r for r in results), results


def test_bad_input(bfcl_data, store, tmp_path):
    with pytest.raises(SuiteError, match="unknown BFCL category 'simple'.*simple_python"):
        run_bfcl("openai/x", "simple", data_dir=bfcl_data, store=store)
    with pytest.raises(TypeError, match="run_bfcl sets tool_choice"):
        run_bfcl(
            "openai/x", "simple_python", data_dir=bfcl_data, store=store, tool_choice="required"
        )
    with pytest.raises(SuiteError, match="mode must be 'fc'"):
        run_bfcl(
            "openai/x",
            "simple_python",
            mode="native",
            data_dir=bfcl_data,  # type: ignore[arg-type]
            store=store,
        )
    # an output folder holding another model's results is refused before any call
    (tmp_path / "out" / "result" / "openai_x-FC").mkdir(parents=True)
    (tmp_path / "out" / "result" / "openai_x-FC" / "tooleval_bfcl.json").write_text(
        json.dumps({"model": "openai/other", "mode": "fc"})
    )
    with pytest.raises(SuiteError, match="holds BFCL results of model 'openai/other'"):
        run_bfcl(
            "openai/x", "simple_python", data_dir=bfcl_data, store=store, output=tmp_path / "out"
        )


_CHILD = """
import sys
from tooleval_nb.bfcl import run_bfcl
url, store, data = sys.argv[1:4]
run_bfcl({"model": "openai/fake", "api_base": url, "api_key": "k"}, "simple_python", limit=6,
         store=store, data_dir=data, progress="none", cache=False, max_concurrency=1).result()
"""


@pytest.mark.slow
def test_a_killed_run_resumes_without_asking_a_finished_entry_again(
    fake_server, bfcl_data, tmp_path
):
    """The first process is killed (SIGKILL) while its 4th request hangs; the second finishes
    the run and asks only the entries the first did not store."""
    store = tmp_path / "store.db"
    asked: list[str] = []
    fourth = threading.Event()
    first_process = threading.Event()
    first_process.set()

    def handler(body):
        asked.append(_user_text(body))
        if first_process.is_set() and len(asked) >= 4:
            fourth.set()
            return "hang"
        return {"content": "no call"}

    server = fake_server(handler=handler)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, server.url, str(store), str(bfcl_data)], env=env
    )
    try:
        assert fourth.wait(120), "the first process never reached its 4th request"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    first_process.clear()
    import sqlite3

    with sqlite3.connect(store) as db:
        stored = {r[0] for r in db.execute("SELECT case_id FROM results")}
    n_first = len(asked)
    run = run_bfcl(
        _model(server),
        "simple_python",
        limit=6,
        store=store,
        data_dir=bfcl_data,
        progress="none",
        cache=False,
        max_concurrency=1,
    ).result()
    questions = {
        q["question"][0][-1]["content"]: q["id"]
        for q in BfclData(bfcl_data).category("simple_python").questions[:6]
    }
    second = [questions[t] for t in asked[n_first:]]
    assert stored, "the first process stored nothing before it was killed"
    assert not set(second) & stored
    assert set(second) | stored == set(questions.values())
    assert len(run) == 6
    # the entries stored by the killed process were not judged by this one: read at the end
    judged = run.tally.judged.get(run.models[0], {})
    assert set(judged) == set(second)
    df = run.bfcl_results_df()
    assert sorted(df["id"]) == sorted(questions.values())
    assert (df["result"] == "no call").all() and not df["passed"].any()
