"""While a run goes the heap is frozen and the young generation collected less often; the
collector's state is restored when the last run ends (two runs, nested)."""

from __future__ import annotations

import gc

from tooleval_nb.runner.heap import RUN_GEN0_THRESHOLD, freeze_heap, thaw_heap


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
