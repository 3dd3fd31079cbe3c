"""The Ray executor's lifecycle in a notebook kernel: each test checks a sequence of Ray runs in a
fresh process (``kernel.py``, standing for a kernel) on a real local Ray that the process starts
itself: that every run stored all its rows, that the process is alive at the end, and that
none of Ray's own printing reached the user's output. The sequences that need no Ray state of
their own share one kernel (:data:`SHARED`, one after another, as a user's cells); those that
kill Ray, start it themselves or follow a dead kernel have one each.

These tests start their own Ray (one per process): they use no ``ray_cluster`` fixture."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")  # installed with Ray's dependencies (in the lock)

KERNEL = Path(__file__).with_name("kernel.py")

#: what Ray prints on its own, which must stay out of a notebook's output
NOISE = (
    "SIGTERM handler",
    "Started a local Ray instance",
    "authentication token",
    "token authentication",
    "(Replica pid=",
    "(pid=",
    "Failed to connect to GCS",
    "The program will terminate",
    "Connecting to existing Ray cluster",
)


def kernel(
    sequence: str,
    tmp_path: Path,
    *,
    timeout: float = 900,
    expect_alive: bool = True,
    check: bool = True,
    **config: Any,
) -> list[dict[str, Any]]:
    """Run ``sequence`` (or several, comma-separated) in a new process; its steps (with
    ``check``: each run's rows checked, and no sequence failed)."""
    cfg = {"store": str(tmp_path / "runs.db"), **config}
    done = subprocess.run(
        [sys.executable, str(KERNEL), sequence, json.dumps(cfg)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    out = done.stdout
    if expect_alive:
        assert done.returncode == 0 and out.rstrip().endswith("alive"), (
            f"the kernel died (rc={done.returncode})\n{out[-3000:]}\n{done.stderr[-6000:]}"
        )
    steps = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if check:
        _check(steps, done.stderr)
    noise = [
        line for line in (out + done.stderr).splitlines() if any(mark in line for mark in NOISE)
    ]
    assert not noise, noise[:10]
    return steps


def _check(steps: list[dict[str, Any]], stderr: str = "") -> list[dict[str, Any]]:
    """``steps``, once none failed and every run stored all its rows."""
    failed = [s for s in steps if s["step"] == "failed"]
    assert not failed, f"{failed[0]['sequence']} raised:\n{failed[0]['error']}"
    for step in steps:
        if "want" in step:
            assert step["rows"] == step["want"], (step, stderr[-4000:])
    return steps


#: the sequences that need no Ray state of their own (each one's runs start what they need, and
#: ``reused``, last, shuts the session down and starts a new one): run one after another in
#: one kernel, as a user's cells are, instead of a kernel and a Ray each (which cost about 20 s
#: of CPU to start); ``ray_runs`` first, so the process's first cluster is started by a run
SHARED = ("ray_runs", "new_executors", "cancel", "two_jobs", "sweep_tune", "bfcl", "reused")


@pytest.fixture(scope="module")
def one_kernel(tmp_path_factory: pytest.TempPathFactory, bfcl_data: Path) -> dict[str, list]:
    """The :data:`SHARED` sequences' steps, by sequence, from one kernel."""
    steps = kernel(
        ",".join(SHARED),
        tmp_path_factory.mktemp("kernel"),
        timeout=1800,
        check=False,
        bfcl_data=str(bfcl_data),
    )
    parts: dict[str, list[dict[str, Any]]] = {}
    for step in steps:
        if step["step"] == "sequence":
            parts[step["name"]] = []
        else:
            parts[list(parts)[-1]].append(step)
    assert list(parts) == list(SHARED), list(parts)
    return parts


def _runs(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in steps if s["step"] == "run"]


def test_executor_ray_runs_three_times_in_one_kernel(one_kernel):
    # the second run used to end the process: the local cluster was started on a run's
    # worker thread and died with it (PR_SET_PDEATHSIG), then Ray waited 60 s for its GCS
    runs = _runs(_check(one_kernel["ray_runs"]))
    assert len(runs) == 3
    assert all(r["replicas"] == 0 for r in runs)  # each run stopped its own replicas


def test_new_executors_closed_collected_or_left_open(one_kernel):
    steps = _check(one_kernel["new_executors"])
    assert len(_runs(steps)) == 4
    assert next(s for s in steps if s["step"] == "collected")["stopped"]


def test_a_reused_executor_then_closed_then_a_new_session(one_kernel):
    steps = _check(one_kernel["reused"])
    runs = _runs(steps)
    assert len(runs) == 5 and all(r["replicas"] == 2 for r in runs)
    closed = next(s for s in steps if s["step"] == "closed")["error"]
    assert "was closed" in closed and "te.RayExecutor(" in closed
    shutdown = next(s for s in steps if s["step"] == "shutdown")
    assert shutdown == {"step": "shutdown", "ended": True, "again": False}


def test_a_cancelled_run_then_a_resume_then_a_new_run(one_kernel):
    steps = _check(one_kernel["cancel"])
    cancelled = [s["stored"] for s in steps if s["step"] == "cancelled"]
    assert len(cancelled) == 2 and all(4 <= n < 40 for n in cancelled), cancelled
    assert [s["rows"] for s in steps if s["step"] == "resumed"] == [40, 40]
    assert len(_runs(steps)) == 2


def test_jobs_at_once_share_the_session(one_kernel):
    assert len(_runs(_check(one_kernel["two_jobs"]))) == 6


def test_sweeps_and_prompt_tunes_on_ray(one_kernel):
    steps = _check(one_kernel["sweep_tune"])
    sweeps = [s for s in steps if s["step"] == "sweep"]
    tunes = [s for s in steps if s["step"] == "tune"]
    assert len(sweeps) == 2 and all(s["calls"] > 0 for s in sweeps), sweeps
    assert len(tunes) == 2 and all(t["calls"] > 0 for t in tunes), tunes
    assert len(_runs(steps)) == 1


def test_run_bfcl_three_times_then_tau2_twice_on_ray(one_kernel):
    """Both benchmarks of the floor on Ray in one kernel: BFCL three times, then τ² twice (the
    gold agent: every simulation rewarded 1 by tau2's evaluator; the greet-and-stop agent: none
    of these two tasks done). The rows stored from the replicas carry tau2's verdicts."""
    steps = _check(one_kernel["bfcl"])
    assert len([s for s in steps if s["step"] == "bfcl"]) == 3
    gold, idle = [s for s in steps if s["step"] == "tau2"]
    assert gold["agent"] == "gold" and gold["rewards"] == [1.0] * 4, gold
    assert idle["agent"] == "idle" and idle["rewards"] == [0.0] * 4, idle
    assert gold["overall"] == gold["rewards"] and idle["overall"] == idle["rewards"]


def test_a_session_the_user_started_is_attached_to_and_never_shut_down(tmp_path):
    steps = kernel("user_ray", tmp_path)
    assert len(_runs(steps)) == 4
    assert next(s for s in steps if s["step"] == "user") == {
        "step": "user",
        "ended": False,
        "initialized": True,
        "same": True,
    }


def test_ray_killed_from_outside_between_two_runs(tmp_path):
    steps = kernel("killed", tmp_path, idle=8)
    assert next(s for s in steps if s["step"] == "killed")["processes"] >= 2
    assert len(_runs(steps)) == 3


@pytest.mark.slow
def test_ray_killed_from_outside_and_the_kernel_idle_past_rays_60_s(tmp_path):
    # Ray's core worker ends its process 60 s after losing the GCS; the session is let go first
    steps = kernel("killed", tmp_path, idle=75)
    assert len(_runs(steps)) == 3


def test_a_restarted_kernel_starts_clean_after_one_that_died(tmp_path):
    steps = kernel("first", tmp_path, expect_alive=False)
    assert steps[-1]["step"] == "dying" and len(_runs(steps)) == 1
    pid = steps[-1]["pid"]
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    # the new kernel: the dead one's cluster files and any half-stopped process are left
    assert len(_runs(kernel("restart", tmp_path, timeout=300))) == 2


def test_a_half_stopped_ray_start_cluster_is_never_waited_for(tmp_path):
    # `ray start --head --block` whose raylet dies stops the rest and leaves its address in
    # Ray's cluster file: address=None starts a new local cluster, "auto" fails at once
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    head = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("ray")),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=1",
            "--include-dashboard=false",
            "--disable-usage-stats",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        for line in head.stdout:
            if "block forever" in line:
                break
        raylets = [p for p in psutil.Process(head.pid).children() if p.name() == "raylet"]
        assert raylets, "ray start did not start a raylet"
        raylets[0].kill()
        head.wait(timeout=60)
    finally:
        if head.poll() is None:
            head.kill()
            head.wait()
        head.stdout.close()
    try:
        steps = kernel("stale", tmp_path, timeout=300)
    finally:  # Ray's cluster file would send a later plain ray.init() to the dead cluster
        cluster_file = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
        with contextlib.suppress(OSError):
            if f":{port}" in cluster_file.read_text():
                cluster_file.unlink()
    assert len(_runs(steps)) == 2
    error = next(s for s in steps if s["step"] == "auto")["error"]
    assert "cannot be reached" in error, error
