"""BFCL's multi-turn and memory loop (bfcl/loop.py) through run_bfcl, against the fake
OpenAI-compatible server (a real local HTTP server) and BFCL's own environment classes."""

from __future__ import annotations

import ast
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tooleval_nb.bfcl import run_bfcl
from tooleval_nb.bfcl_rules.data import BfclData, locate_data
from tooleval_nb.testing import bfcl_script
from tooleval_nb.testing.fake_openai import FakeOpenAIServer

pytest.importorskip("bfcl_eval.constants.default_prompts")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mt_data() -> Path:
    """BFCL's full data (an installed bfcl-eval's): the reference folder has no multi-turn."""
    try:
        return (
            locate_data(None)
            if not os.environ.get("TOOLEVAL_BFCL_DATA")
            else Path(os.environ["TOOLEVAL_BFCL_DATA"])
        )
    except Exception:  # noqa: BLE001
        pytest.skip("no BFCL data with the multi-turn categories (pip install bfcl-eval)")


@pytest.fixture(autouse=True)
def _script_data(mt_data, monkeypatch):
    monkeypatch.setenv("TOOLEVAL_BFCL_DATA", str(mt_data))
    bfcl_script.reset()


def _model(server):
    return {"model": "openai/fake", "api_base": server.url, "api_key": "k"}


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def _result_file(out: Path, model_dir: str, folder: str, category: str) -> list[dict]:
    return _lines(out / "result" / model_dir / folder / f"BFCL_v4_{category}_result.json")


def _steps(entry: dict) -> int:
    return sum(len(turn) for turn in entry["result"])


def test_fc_loop_runs_each_turn_against_the_environments(fake_server, mt_data, tmp_path):
    out = tmp_path / "out"
    server = fake_server(handler=bfcl_script.answer)
    run = run_bfcl(
        _model(server),
        "multi_turn_base",
        mode="fc",
        limit=2,
        data_dir=mt_data,
        store=tmp_path / "s.db",
        output=out,
        progress="none",
    ).result()
    bodies = server.bodies
    entries = _result_file(out, "openai_fake-FC", "multi_turn", "multi_turn_base")
    data = BfclData(mt_data).category("multi_turn_base")
    assert [e["id"] for e in entries] == ["multi_turn_base_0", "multi_turn_base_1"]
    for entry in entries:
        question = data.by_id[entry["id"]]["question"]
        assert len(entry["result"]) == len(question)  # one list of steps per turn
        for key in ("input_token_count", "output_token_count", "latency"):
            assert [len(t) for t in entry[key]] == [len(t) for t in entry["result"]]
        assert all(isinstance(step, (list, str)) for turn in entry["result"] for step in turn)
        assert entry["inference_log"][0]["begin_of_turn_query"] == question[0]
    assert sum(_steps(e) for e in entries) == len(bodies)
    # entry 1 (the script's ground truth): the calls, then the environment's results answer
    # each call by its id
    assert entries[1]["result"][0][0] == [{"ls": json.dumps({"a": True})}]
    step2 = [b for b in bodies if any(m["role"] == "tool" for m in b["messages"])]
    listing = next(b for b in step2 if b["messages"][0]["content"].startswith("I am alex"))
    assert listing["messages"][1]["role"] == "assistant" and listing["messages"][1]["tool_calls"]
    assert listing["messages"][2] == {
        "role": "tool",
        "tool_call_id": "call_0_0_0",
        "content": '{"current_directory_content": ["workspace"]}',
    }
    # the state carries across turns: turn 2 enters the folder turn 1 moved the log into
    log = entries[1]["inference_log"][2]["step_0"]
    assert {"role": "tool", "content": '{"current_working_directory": "archive"}'} in log
    # entry 0 (perturbed: a folder that does not exist): BFCL's error text, then its verdict
    moved = next(b for b in step2 if b["messages"][0]["content"].startswith("Move"))
    assert moved["messages"][2]["content"] == (
        '{"error": "cd: \'document_x\': No such file or directory"}'
    )
    df = run.bfcl_results_df().set_index("id")
    assert df.loc["multi_turn_base_1", "passed"]
    assert df.loc["multi_turn_base_0", "error_type"] == "multi_turn:instance_state_mismatch"


def test_prompt_loop_sends_results_as_one_user_message(fake_server, mt_data, tmp_path):
    out = tmp_path / "out"
    server = fake_server(handler=bfcl_script.answer)
    run_bfcl(
        _model(server),
        "multi_turn_base",
        mode="prompt",
        limit=1,
        data_dir=mt_data,
        store=tmp_path / "s.db",
        output=out,
        progress="none",
    ).result()
    bodies = server.bodies
    assert all("tools" not in b for b in bodies)
    assert bodies[0]["messages"][0]["role"] == "system"
    assert "[func_name1(params_name1=params_value1" in bodies[0]["messages"][0]["content"]
    entry = _result_file(out, "openai_fake", "multi_turn", "multi_turn_base")[0]
    assert isinstance(entry["result"][0][0], str) and entry["result"][0][0].startswith("[cd(")
    results = bodies[1]["messages"][-1]
    assert results["role"] == "user"  # the script's perturbed first call (see bfcl_script)
    listed = ast.literal_eval(results["content"])
    assert listed[0] == {
        "role": "tool",
        "name": "cd(folder='document_x')",
        "content": '{"error": "cd: \'document_x\': No such file or directory"}',
    }
    assert [x["name"] for x in listed[1:]] == [
        "mkdir(dir_name='temp')",
        "mv(source='final_report.pdf', destination='temp')",
    ]


def test_miss_func_adds_the_held_back_functions_at_their_turn(fake_server, mt_data, tmp_path):
    data = BfclData(mt_data).category("multi_turn_miss_func")
    entry = data.head(1)[0]
    ((turn, added),) = entry["missed_function"].items()
    names = {f["name"] for f in added}
    server = fake_server(handler=bfcl_script.answer)
    run_bfcl(
        _model(server),
        "multi_turn_miss_func",
        mode="fc",
        limit=1,
        data_dir=mt_data,
        store=tmp_path / "s.db",
        progress="none",
    ).result()
    fc = server.bodies
    server = fake_server(handler=bfcl_script.answer)
    run_bfcl(
        _model(server),
        "multi_turn_miss_func",
        mode="prompt",
        limit=1,
        data_dir=mt_data,
        store=tmp_path / "p.db",
        progress="none",
    ).result()
    prompt = server.bodies
    from bfcl_eval.constants import default_prompts

    for body in fc:
        users = [m for m in body["messages"] if m["role"] == "user"]
        offered = {t["function"]["name"] for t in body["tools"]}
        assert (names <= offered) == (len(users) > int(turn))
    at = next(
        b for b in fc if len([m for m in b["messages"] if m["role"] == "user"]) == int(turn) + 1
    )
    assert at["messages"][-1] == {
        "role": "user",
        "content": default_prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC,
    }
    added_tool = next(t for t in at["tools"] if t["function"]["name"] in names)
    assert "Note that the provided function" not in added_tool["function"]["description"]
    listed = [
        m["content"]
        for b in prompt
        for m in b["messages"]
        if m["role"] == "user"
        and m["content"].endswith(default_prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC)
    ]
    assert listed and listed[0].startswith(str(added))


def test_step_limit_ends_the_entry(fake_server, mt_data, tmp_path):
    out = tmp_path / "out"

    def always_ls(body):
        return {"tool_calls": [{"function": {"name": "ls", "arguments": {}}}]}

    server = fake_server(handler=always_ls)
    run_bfcl(
        _model(server),
        "multi_turn_base",
        mode="fc",
        limit=1,
        data_dir=mt_data,
        store=tmp_path / "s.db",
        output=out,
        progress="none",
    ).result()
    n = server.requests
    entry = _result_file(out, "openai_fake-FC", "multi_turn", "multi_turn_base")[0]
    assert len(entry["result"]) == 1 and len(entry["result"][0]) == 21 == n  # 20 + the one over
    assert entry["inference_log"][0]["step_20"][-1]["content"].startswith(
        "Model has been forced to quit"
    )


def test_text_that_is_not_a_call_ends_the_turn(fake_server, mt_data, tmp_path):
    out = tmp_path / "out"
    server = fake_server(handler=lambda body: {"content": "I will not."})
    run_bfcl(
        _model(server),
        "multi_turn_base",
        mode="prompt",
        limit=1,
        data_dir=mt_data,
        store=tmp_path / "s.db",
        output=out,
        progress="none",
    ).result()
    n = server.requests
    entry = _result_file(out, "openai_fake", "multi_turn", "multi_turn_base")[0]
    assert entry["result"] == [["I will not."]] * n and n == len(entry["result"])


def test_memory_prereqs_fill_the_memory_the_entries_start_from(fake_server, mt_data, tmp_path):
    out = tmp_path / "out"
    data = BfclData(mt_data).category("memory_kv")
    entry = data.head(1)[0]
    server = fake_server(handler=bfcl_script.answer)
    run_bfcl(
        _model(server),
        "memory_kv",
        mode="fc",
        limit=1,
        data_dir=mt_data,
        store=tmp_path / "s.db",
        output=out,
        progress="none",
    ).result()
    bodies = server.bodies
    folder = "agentic/memory/kv"
    prereq = _result_file(out, "openai_fake-FC", folder, "memory_kv_prereq")
    assert [e["id"] for e in prereq] == entry["depends_on"]
    memory = _result_file(out, "openai_fake-FC", folder, "memory_kv")
    assert [e["id"] for e in memory] == [entry["id"]] and len(memory[0]["result"]) == 1
    # the entry's system prompt shows the core memory the conversations wrote, and it ran last
    system = bodies[-1]["messages"][0]
    assert system["role"] == "system" and '"note_0"' in system["content"]
    assert "For your final answer to the user" in system["content"]
    snapshot = out / "result" / "openai_fake-FC" / folder / "memory_snapshot"
    assert (snapshot / f"{entry['scenario']}_final.json").is_file()
    assert len(list((snapshot / "prereq_checkpoints").glob("*.json"))) == len(prereq)


def test_two_runs_in_one_process_give_the_same_files_and_the_cache_replays_them(
    fake_server, mt_data, tmp_path
):
    """Stateful twice: two fresh runs (the second without the response cache) give the same
    files; the first run again asks the model nothing: every step of the loop, environments
    included, sends the requests it sent the first time, answered from the cache."""
    texts, urls = [], []
    for i, cache in enumerate((True, False)):
        out = tmp_path / f"out{i}"
        with FakeOpenAIServer(handler=bfcl_script.answer) as server:
            run_bfcl(
                _model(server),
                ["multi_turn_base", "memory_rec_sum"],
                mode="prompt",
                limit=2,
                data_dir=mt_data,
                store=tmp_path / f"s{i}.db",
                output=out,
                progress="none",
                cache=cache,
            ).result()
            assert server.requests > 0
            urls.append(server.url)
        files = sorted((out / "result").rglob("BFCL_v4_*_result.json"))
        texts.append([_strip(f) for f in files])
    assert texts[0] == texts[1] and len(texts[0]) == 3  # base, memory_rec_sum and its prereqs
    server = fake_server(handler=bfcl_script.answer, port=urlsplit(urls[0]).port)
    run_bfcl(
        _model(server),
        ["multi_turn_base", "memory_rec_sum"],
        mode="prompt",
        limit=2,
        data_dir=mt_data,
        store=tmp_path / "s2.db",
        output=tmp_path / "out2",
        progress="none",
    ).result()
    assert server.requests == 0
    files = sorted((tmp_path / "out2" / "result").rglob("BFCL_v4_*_result.json"))
    assert [_strip(f) for f in files] == texts[0]


def _strip(path: Path) -> list[dict]:
    """A result file without what changes from run to run (latencies)."""
    return [{k: v for k, v in e.items() if k not in ("latency",)} for e in _lines(path)]


_CHILD = """
import sys
from tooleval_nb.bfcl import run_bfcl
url, store, data = sys.argv[1:4]
run_bfcl({"model": "openai/fake", "api_base": url, "api_key": "k"}, "multi_turn_base", limit=6,
         store=store, data_dir=data, progress="none", cache=False, max_concurrency=1).result()
"""


def _stored(store: Path) -> set[str]:
    if not store.exists():
        return set()
    with sqlite3.connect(store) as db:
        try:
            return {r[0] for r in db.execute("SELECT case_id FROM results")}
        except sqlite3.OperationalError:
            return set()


@pytest.mark.slow
def test_a_killed_multi_turn_run_resumes_without_asking_a_finished_entry(
    fake_server, mt_data, tmp_path
):
    """The first process is killed (SIGKILL) once it has stored two entries; the second asks
    only the entries the first did not store, each from its first step (the requests counted
    on a fake server in a process of its own, which outlives both)."""
    store = tmp_path / "store.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOOLEVAL_BFCL_DATA": str(mt_data)}
    server = fake_server(
        handler="tooleval_nb.testing.bfcl_script:answer", process=True, latency=0.05
    )
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, server.url, str(store), str(mt_data)], env=env
    )
    try:
        deadline = time.monotonic() + 180
        while len(_stored(store)) < 2 and child.poll() is None:
            assert time.monotonic() < deadline, "the first process stored nothing"
            time.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    stored = _stored(store)
    n_first = server.requests
    run = run_bfcl(
        _model(server),
        "multi_turn_base",
        limit=6,
        store=store,
        data_dir=mt_data,
        progress="none",
        cache=False,
        max_concurrency=1,
        output=tmp_path / "out",
    ).result()
    n_second = server.requests - n_first
    assert 2 <= len(stored) < 6
    entries = _result_file(tmp_path / "out", "openai_fake-FC", "multi_turn", "multi_turn_base")
    assert len(entries) == 6 and len(run) == 6
    again = sum(_steps(e) for e in entries if e["id"] not in stored)
    assert n_second == again  # no request for a stored entry


def test_entries_chooses_the_entries_and_memory_brings_its_conversations(
    fake_server, mt_data, tmp_path
):
    from tooleval_nb.errors import SuiteError

    server = fake_server(handler=bfcl_script.answer)
    run = run_bfcl(
        _model(server),
        ["multi_turn_base", "memory_rec_sum", "simple_python"],
        mode="prompt",
        entries=["multi_turn_base_3", "memory_rec_sum_80-student-0"],
        data_dir=mt_data,
        store=tmp_path / "s.db",
        progress="none",
    ).result()
    ids = set(run.results_df()["case_id"])
    data = BfclData(mt_data).category("memory_rec_sum")
    prereqs = data.by_id["memory_rec_sum_80-student-0"]["depends_on"]
    assert ids == {"multi_turn_base_3", "memory_rec_sum_80-student-0", *prereqs}
    assert all("student" in p for p in prereqs)
    assert set(run.bfcl_results_df()["id"]) == {"multi_turn_base_3", "memory_rec_sum_80-student-0"}
    with pytest.raises(SuiteError, match="'multi_turn_base_999' are not entries"):
        run_bfcl(
            "openai/x",
            "multi_turn_base",
            entries=["multi_turn_base_999"],
            data_dir=mt_data,
            store=tmp_path / "t.db",
        )


@pytest.mark.model
def test_the_embedded_model_through_bfcls_loop(mt_data, tmp_path, monkeypatch):
    """One short entry (one class, two turns) with the real embedded model in prompt mode:
    the result file has BFCL's shape and our checker gives it a verdict and a turn view."""
    import tooleval_nb as te

    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    run = run_bfcl(
        te.DEFAULT_MODEL,
        "multi_turn_base",
        mode="prompt",
        entries=["multi_turn_base_3"],
        data_dir=mt_data,
        store=tmp_path / "s.db",
        output=out,
        progress="none",
        timeout=900,
    ).result()
    rows = run.results_df()
    assert rows["error"].isna().all(), rows["error"].tolist()
    (entry,) = _result_file(out, "local_smollm2-135m", "multi_turn", "multi_turn_base")
    assert entry["id"] == "multi_turn_base_3"
    assert 1 <= len(entry["result"]) <= 2 and all(
        isinstance(step, str) for turn in entry["result"] for step in turn
    )
    assert int(rows["n_hops"].iloc[0]) == _steps(entry)
    assert all(n > 0 for turn in entry["input_token_count"] for n in turn)
    verdict = run.bfcl_results_df().iloc[0]
    assert verdict["passed"] or str(verdict["error_type"]).startswith("multi_turn:")
    view = run.bfcl_turns_df("multi_turn_base_3")
    assert list(view["turn"]) == [t for t, turn in enumerate(entry["result"]) for _ in turn]
