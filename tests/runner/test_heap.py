"""What a run does to the process's garbage collector (runner/heap.py, the one place): the heap
frozen and the young generation collected less often while a run goes, the collector paused
around a span, and everything restored after (two runs, nested; two runs through the runner)."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tooleval_nb as te
from tooleval_nb.models.transport import ChatRequest
from tooleval_nb.runner.heap import (
    KEEP_GC_ENV,
    RUN_GEN0_THRESHOLD,
    collector_paused,
    freeze_heap,
    thaw_heap,
)
from tooleval_nb.testing import MockTransport

#: set in the fresh process that runs this module's tests (see the test below)
INNER = "TOOLEVAL_TEST_HEAP_INNER"


@pytest.mark.process
def test_this_module_in_a_fresh_process(tmp_path: Path) -> None:
    """The collector is the process's: a run another test left open in this worker (or a freeze
    it made) would change what these tests see. So they run in a fresh interpreter, as in a
    kernel of its own, and this test fails with their report when any of them does."""
    if os.environ.get(INNER):
        pytest.skip("the fresh process itself")
    env = {**os.environ, INNER: "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            __file__,
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "--basetemp",
            str(tmp_path / "inner"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout, done.stdout[-2000:]


@pytest.fixture(autouse=True)
def _only_in_the_fresh_process(request: pytest.FixtureRequest) -> None:
    if request.node.name != "test_this_module_in_a_fresh_process" and not os.environ.get(INNER):
        pytest.skip("runs in a fresh process: test_this_module_in_a_fresh_process")


def test_thresholds_raised_during_runs_and_restored_after() -> None:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        freeze_heap()
        assert gc.get_threshold() == (RUN_GEN0_THRESHOLD, 10, 10)
        assert gc.get_freeze_count() > 0
        freeze_heap()  # a second run while the first goes
        thaw_heap()
        assert gc.get_threshold() == (RUN_GEN0_THRESHOLD, 10, 10)  # one run still goes
        thaw_heap()
        assert gc.get_threshold() == (700, 10, 10)
        assert gc.get_freeze_count() == 0
    finally:
        gc.set_threshold(*before)


def test_a_disabled_threshold_is_left_alone() -> None:
    before = gc.get_threshold()
    gc.set_threshold(0, 10, 10)
    try:
        freeze_heap()
        assert gc.get_threshold()[0] == 0
        thaw_heap()
        assert gc.get_threshold() == (0, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_a_freeze_made_before_the_run_is_never_unfrozen_by_it() -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    try:
        freeze_heap()
        assert gc.get_freeze_count() == frozen  # the run did not freeze on top of it
        thaw_heap()
        assert gc.get_freeze_count() == frozen  # ... nor unfreeze what it did not freeze
    finally:
        gc.unfreeze()


def test_keep_gc_leaves_the_collector_alone(monkeypatch) -> None:
    monkeypatch.setenv(KEEP_GC_ENV, "1")
    before = gc.get_threshold()
    freeze_heap()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    thaw_heap()
    with collector_paused():
        assert gc.isenabled()
    assert gc.get_threshold() == before


@pytest.mark.parametrize("collect_young", [False, True])
def test_collector_paused_restores_the_collector_twice(collect_young) -> None:
    assert gc.isenabled()
    for _ in range(2):
        with collector_paused(collect_young=collect_young):
            assert not gc.isenabled()
            with collector_paused():  # nested: the outer block's state is kept
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # a collector disabled already stays disabled
    finally:
        gc.enable()


def test_two_runs_in_one_process_leave_the_collector_as_they_found_it(
    tmp_path: Path, make_suite
) -> None:
    """Through the real runner: the collector's state during each run, and after it."""
    seen: list[tuple[tuple[int, ...], int, bool]] = []

    def answer(request: ChatRequest) -> dict[str, str]:
        seen.append((gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()))
        return {"role": "assistant", "content": "no call"}

    before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())
    for n in range(2):
        run = asyncio.run(
            te.run_eval_async(
                make_suite(3),
                [{"model": "openai/mock", "transport": MockTransport(answer)}],
                cache=False,
                store=str(tmp_path / "runs.db"),
                resume=False,
                name=f"gc-{n}",
            )
        )
        assert len(run.results_df()) == 3
        assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before
    assert len(seen) == 6
    raised = RUN_GEN0_THRESHOLD if 0 < before[0][0] < RUN_GEN0_THRESHOLD else before[0][0]
    assert all(threshold[0] == raised for threshold, _, _ in seen)
    assert all(frozen > 0 and enabled for _, frozen, enabled in seen)
