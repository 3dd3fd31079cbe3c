"""A sweep or a prompt tune killed with SIGKILL resumes and re-runs nothing that had finished."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading

import tooleval_nb.experiments as tx
from tooleval_nb.suite import Suite

SCRIPT = """
import sys
import tooleval_nb.experiments as tx
from tooleval_nb.suite import Suite

suite = Suite.model_validate_json(open(sys.argv[1]).read())
tx.sweep(suite, base=tx.Config(model="openai/fake", api_base=sys.argv[2]),
         space=tx.space(temperature=[0.0, 0.7], tool_choice=["auto", "required"]),
         strategy="grid", budget=tx.Budget(calls=500), store=sys.argv[3], preflight=False,
         cache=False, parallel=2)
print("finished")
"""


def sweep_args(suite: Suite, url: str, store: str) -> dict:
    return dict(
        base=tx.Config(model="openai/fake", api_base=url),
        space=tx.space(temperature=[0.0, 0.7], tool_choice=["auto", "required"]),
        strategy="grid",
        budget=tx.Budget(calls=500),
        store=store,
        preflight=False,
        cache=False,
        parallel=2,
    )


def run_until_killed(
    suite: Suite,
    source: str,
    url: str,
    store: str,
    tmp_path,
    child: dict[str, int],
    name: str = "worker.py",
) -> None:
    """Run the worker script ``source`` on ``suite`` in a child process (its pid in
    ``child["pid"]``, for the server's killer) and check that it was SIGKILLed unfinished."""
    suite_path = tmp_path / "suite.json"
    suite_path.write_text(suite.model_dump_json())
    script = tmp_path / name
    script.write_text(source)
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    proc = subprocess.Popen(
        [sys.executable, str(script), str(suite_path), url, store],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    child["pid"] = proc.pid
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL, (out, err)
    assert b"finished" not in out


def stored_results(store: str) -> int:
    with sqlite3.connect(store) as conn:
        return conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]


def some_stored(store: str) -> bool:
    """Whether the child has stored a result yet (read-only: never creates the file)."""
    try:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT COUNT(*) FROM results").fetchone()[0] > 0
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def test_sigkill_mid_sweep_then_resume(suite, store, fake_server, tmp_path):
    child: dict[str, int] = {}
    seen = [0]
    killed = threading.Event()

    def killer(body):
        # runs on the server's thread: SIGKILL the worker at its 25th request or the first one
        # after that once a result is stored (mid sweep, something finished; no sleeping)
        seen[0] += 1
        if seen[0] >= 25 and "pid" in child and not killed.is_set() and some_stored(store):
            killed.set()
            os.kill(child["pid"], signal.SIGKILL)
        return None

    server = fake_server(handler=killer, latency=0.01)
    run_until_killed(suite, SCRIPT, server.url, store, tmp_path, child)
    requests_at_kill = server.requests
    done_at_kill = stored_results(store)
    assert 0 < done_at_kill < requests_at_kill + 1

    sw = tx.sweep(suite, **sweep_args(suite, server.url, store))
    new_requests = server.requests - requests_at_kill
    new_results = stored_results(store) - done_at_kill
    # every case stored before the kill was reused: only the missing ones were requested
    assert new_requests == new_results
    total_cells = sum(len(sw.split.dev) * (1 if a.config.greedy else 2) for a in sw.arms)
    assert stored_results(store) == total_cells
    assert sw.best.tool_choice == "auto"  # the default answer is always right: base kept
    assert len(sw.trials_df()) == 4


def test_a_cell_whose_run_completed_before_the_kill_is_not_run_again(suite, store, fake_server):
    """The window between a cell's run completing and the sweep recording the cell as done:
    a kill there leaves the cell ``running`` with its run complete. The resumed sweep takes
    that run as the cell's evaluation and asks nothing again."""
    server = fake_server(latency=0.0)
    first = tx.sweep(suite, **sweep_args(suite, server.url, store))
    requests, results = server.requests, stored_results(store)
    with sqlite3.connect(store) as conn:  # as if killed just before the cells were saved done
        reopened = conn.execute(
            "UPDATE eval_cells SET status = 'running', run_id = NULL, created_at = 0"
        ).rowcount
    assert reopened >= 4
    again = tx.sweep(suite, **sweep_args(suite, server.url, store))
    assert server.requests == requests and stored_results(store) == results
    assert again.trials_df()["score"].tolist() == first.trials_df()["score"].tolist()
    with sqlite3.connect(store) as conn:
        statuses = {r[0] for r in conn.execute("SELECT status FROM eval_cells")}
    assert statuses == {"done"}


TUNE_SCRIPT = """
import sys
import tooleval_nb.experiments as tx
from tooleval_nb.suite import Suite

suite = Suite.model_validate_json(open(sys.argv[1]).read())
cfg = tx.Config(model="openai/fake", api_base=sys.argv[2])
tx.tune_prompt(suite, cfg, split=tx.split(suite, holdout=0.3, seed=0), meta_model=cfg,
               operators="auto", population=3, generations=3, patience=5,
               budget=tx.Budget(calls=2000), store=sys.argv[3], cache=False, parallel=2)
print("finished")
"""


def tune_args(suite: Suite, url: str, store: str) -> dict:
    cfg = tx.Config(model="openai/fake", api_base=url)
    return dict(
        base=cfg,
        split=tx.split(suite, holdout=0.3, seed=0),
        meta_model=cfg,
        operators="auto",
        population=3,
        generations=3,
        patience=5,
        budget=tx.Budget(calls=2000),
        store=store,
        cache=False,
        parallel=2,
    )


def digest_or_junk(broken: str):
    """A server where the meta model writes junk (dropped after two failures) and the tool
    digest ("Tools:") fixes every target case but the dev case ``broken``, which it breaks (so
    no prompt solves every dev case and every generation runs)."""

    def handler(body):
        system = " ".join(
            str(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system"
        )
        if "You write system prompts" in system:
            return {"role": "assistant", "content": "prompts: {not json"}
        user = next(
            str(m.get("content")) for m in reversed(body["messages"]) if m.get("role") == "user"
        )
        good = user != broken
        return None if ("Tools:" in system) == good else {"role": "assistant", "content": "no"}

    return handler


def test_sigkill_mid_prompt_tune_then_resume(suite, store, fake_server, tmp_path):
    child: dict[str, int] = {}
    armed = {"at": None}
    killed = threading.Event()
    answer = digest_or_junk(suite.case(tx.split(suite, holdout=0.3, seed=0).dev[0]).prompt)

    def killer(body):
        # on the server's thread: SIGKILL the worker at a planted request (no sleeping)
        if (
            armed["at"] is not None
            and server.requests >= armed["at"]
            and "pid" in child
            and not killed.is_set()
        ):
            killed.set()
            os.kill(child["pid"], signal.SIGKILL)
        return answer(body)

    server = fake_server(handler=killer, latency=0.01)
    whole_store = str(tmp_path / "whole.db")
    whole = tx.tune_prompt(suite, **tune_args(suite, server.url, whole_store))
    gens = whole.generations_df()
    assert list(gens["meta_parsed"]) == [None, False, False, None]  # meta dropped after two
    assert whole.calls_used == server.requests == stored_results(whole_store) + 2
    # kill the worker halfway through the evaluation of generation 2
    start = server.requests
    g1, g2 = (int(gens.loc[gens["generation"] == g, "calls_used"].iloc[0]) for g in (1, 2))
    armed["at"] = start + (g1 + g2) // 2

    run_until_killed(suite, TUNE_SCRIPT, server.url, store, tmp_path, child, name="tune_worker.py")
    requests_at_kill = server.requests
    done_at_kill = stored_results(store)
    assert 0 < done_at_kill < stored_results(whole_store)

    armed["at"] = None
    again = tx.tune_prompt(suite, **tune_args(suite, server.url, store))
    new_requests = server.requests - requests_at_kill
    new_results = stored_results(store) - done_at_kill
    # no finished cell and no meta call was asked again: only the missing cases were requested
    assert new_requests == new_results
    assert stored_results(store) == stored_results(whole_store)
    # and the resumed tune is the uninterrupted one
    assert again.best.system_prompt == whole.best.system_prompt
    assert "Tools:" in (again.best.system_prompt or "")
    assert [(c.generation, c.operator, c.text, c.rejected_reason) for c in again.candidates] == [
        (c.generation, c.operator, c.text, c.rejected_reason) for c in whole.candidates
    ]
    assert again.generations_df().equals(gens)
    assert again.calls_used == whole.calls_used
    assert again.message == whole.message
