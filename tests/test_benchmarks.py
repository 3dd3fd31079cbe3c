"""The benchmark scripts that need no model, browser or Ray still run: each at its smallest size,
in its own process, as a developer runs it (``benchmarks/bench_tau2.py`` had been broken for a
stop by a change of what ``run_tau2`` returns, with nothing to say so). What they print is
checked for the figures' lines, not for the figures (a benchmark's targets are judged by the
people running it on a quiet machine)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("tau2.domains.mock.environment")
pytestmark = pytest.mark.process


def _run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout


@pytest.mark.timeout(300)
def test_the_tau2_run_benchmark_runs() -> None:
    out = _run("benchmarks/bench_tau2.py", "--tasks", "2", "--trials", "1", "--rounds", "1")
    assert "round 1: ours" in out and "bare / ours, median of 1:" in out, out


@pytest.mark.timeout(300)
def test_the_tau2_rescore_benchmark_runs_and_rewards_are_equal() -> None:
    out = _run(
        "benchmarks/bench_tau2_rescore.py", "--domain", "mock", "--tasks", "2", "--workers", "1"
    )
    assert "mock" in out and "rewards equal" in out, out
