"""Resume trusts only its own (issue 46): a job from a store someone shared runs nothing, spawns
nothing and sends no key until ``trust=True``; the user's own jobs resume as before."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

import pytest

import tooleval_nb as te
from tooleval_nb.cli import main
from tooleval_nb.errors import StoreError
from tooleval_nb.runner.trust import job_reach


@pytest.fixture(autouse=True)
def _own_key(tmp_path, monkeypatch, store_path):
    monkeypatch.setenv("TOOLEVAL_TRUST_KEY", str(tmp_path / "my-trust.key"))


def _finished_job(fake, make_suite, model_of):
    job = te.run_eval(make_suite(2), [model_of(fake)], progress="none", cache=False)
    assert job.status == "completed"
    return job


def _tamper(job, marker_dir):
    """Make the stored job another user's: its suite names code outside any suite folder, its
    live tools a command line, its agent a module; its results gone so that all would run."""
    outside = marker_dir / "outside.py"
    outside.write_text(
        f"from pathlib import Path\nPath({str(marker_dir / 'GRADER')!r}).write_text('ran')\n"
        "def check(trace, case):\n    return True\n"
    )
    conn = job.store.connection()
    (text,) = conn.execute(
        "SELECT config_json FROM job_configs WHERE job_id = ?", (job.id,)
    ).fetchone()
    config = json.loads(text)
    config["suite"]["cases"][0]["graders"] = [
        {"type": "code", "module": str(outside), "function": "check"}
    ]
    spawn = f"open({str(marker_dir / 'SPAWNED')!r}, 'w').write('ran')"
    config["settings"]["live_tools"] = [sys.executable, "-c", spawn]
    conn.execute(
        "UPDATE job_configs SET config_json = ? WHERE job_id = ?", (json.dumps(config), job.id)
    )
    conn.execute("DELETE FROM results WHERE run_id = ?", (job.run_id,))
    conn.execute("UPDATE jobs SET status = 'failed', n_done = 0 WHERE id = ?", (job.id,))
    return config


def test_a_shared_stores_job_runs_nothing_without_trust(fake, make_suite, model_of, tmp_path):
    job = _finished_job(fake, make_suite, model_of)
    config = _tamper(job, tmp_path)
    requests = fake.requests
    for _ in range(2):  # twice in one process
        with pytest.raises(StoreError) as info:
            te.resume(job.id, progress="none")
        message = str(info.value)
        assert "not signed by your key" in message and "trust=True" in message
        assert f"spawns {sys.executable} -c" in message
        assert f"runs code grader c000: {tmp_path / 'outside.py'} : check()" in message
        assert f"calls openai/fake at {fake.url}" in message
    assert not (tmp_path / "GRADER").exists() and not (tmp_path / "SPAWNED").exists()
    assert fake.requests == requests  # no key was sent anywhere
    assert job.store.job(job.id).status == "failed"  # left alone
    reach = job_reach(config)
    assert reach.commands and reach.code and reach.endpoints


def test_trust_true_resumes_it(fake, make_suite, model_of, tmp_path):
    job = _finished_job(fake, make_suite, model_of)
    _tamper(job, tmp_path)
    with pytest.raises(te.JobError):  # the command is no MCP server: the job fails after
        te.resume(job.id, progress="none", trust=True).result()
    assert (tmp_path / "SPAWNED").exists()


def test_another_users_key_makes_the_job_foreign(fake, make_suite, model_of, tmp_path, monkeypatch):
    job = _finished_job(fake, make_suite, model_of)
    again = te.resume(job.id, progress="none")  # one's own job: no question
    assert len(again.result().results_df()) == 2
    monkeypatch.setenv("TOOLEVAL_TRUST_KEY", str(tmp_path / "someone-else.key"))
    with pytest.raises(StoreError, match="not signed by your key"):
        te.resume(job.id, progress="none")
    assert oct((tmp_path / "someone-else.key").stat().st_mode & 0o777) == "0o600"


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs chown (root)")
def test_a_store_file_of_another_user_needs_trust(fake, make_suite, model_of, store_path):
    job = _finished_job(fake, make_suite, model_of)
    os.chown(store_path, 12345, -1)
    try:
        with pytest.raises(StoreError, match="belongs to another user"):
            te.resume(job.id, progress="none")
        assert len(te.resume(job.id, progress="none", trust=True).result().results_df()) == 2
    finally:
        os.chown(store_path, 0, -1)


def test_a_job_recorded_elsewhere_needs_trust(fake, make_suite, model_of):
    job = _finished_job(fake, make_suite, model_of)
    conn = job.store.connection()
    (text,) = conn.execute(
        "SELECT config_json FROM job_configs WHERE job_id = ?", (job.id,)
    ).fetchone()
    config = json.loads(text)
    config["origin"]["host"] = "elsewhere.example"
    conn.execute(
        "UPDATE job_configs SET config_json = ? WHERE job_id = ?", (json.dumps(config), job.id)
    )
    with pytest.raises(StoreError, match="recorded on host 'elsewhere.example'"):
        te.resume(job.id, progress="none")


def test_the_resume_command_needs_trust_too(fake, make_suite, model_of, tmp_path, store_path):
    job = _finished_job(fake, make_suite, model_of)
    _tamper(job, tmp_path)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(
            ["resume", job.id, "--store", store_path, "--progress", "none"], out=io.StringIO()
        )
    assert code == 1 and "--trust on the command line" in err.getvalue()
    assert not (tmp_path / "SPAWNED").exists() and not (tmp_path / "GRADER").exists()
    out = io.StringIO()
    own = te.run_eval(make_suite(3), [model_of(fake)], progress="none", cache=False)
    assert main(["resume", own.id, "--store", store_path, "--progress", "none"], out=out) == 0
    assert f"runs: {own.run_id}" in out.getvalue()
