"""The heap frozen out of the garbage collector's scans while a run goes, and its young
generation collected less often."""

from __future__ import annotations

import gc
import threading

__all__ = ["freeze_heap", "thaw_heap", "RUN_GEN0_THRESHOLD"]

#: the garbage collector's first threshold while a run goes (CPython's default is 700): a
#: case allocates hundreds of short-lived containers (the reply's JSON, its score, its row),
#: nearly all freed by reference counting, yet every 700 allocations not yet freed start a
#: collection; with 64 cases in flight that is a collection every few cases, and an older
#: generation's now and then (measured at 0 ms x 64: 0.08 to 0.1 ms of CPU per case, a tenth
#: of the runner's; with this threshold under 0.01 ms). Cyclic garbage waits a little longer
#: for its collection; nothing else changes
RUN_GEN0_THRESHOLD = 10_000

#: runs between their start and close (the heap is frozen while there is one); jobs may run
#: on loops in several threads, hence the lock
_running = 0
_running_lock = threading.Lock()
#: the collector's thresholds before the first run started (restored when the last one ends)
_thresholds: tuple[int, ...] | None = None


def freeze_heap() -> None:
    """While a run goes, the objects that existed when the first one started (the kernel's
    imports, pandas, pydantic, the suite) are left out of the garbage collector's scans
    (``gc.freeze``). Otherwise a full collection, triggered by the rows and events the run
    allocates, walks all of them and stops the loop for tens of milliseconds (about 70 ms with
    this package's imports), delaying every reply waiting to be read. The young generation is
    collected after :data:`RUN_GEN0_THRESHOLD` allocations instead of 700. Nothing is lost:
    the last run to close unfreezes them and restores the thresholds (:func:`thaw_heap`), and
    garbage among them is then collected as usual."""
    global _running, _thresholds
    with _running_lock:
        if _running == 0:
            gc.freeze()
            _thresholds = gc.get_threshold()
            first, *rest = _thresholds
            if first and first < RUN_GEN0_THRESHOLD:  # 0: the collector's thresholds are off
                gc.set_threshold(RUN_GEN0_THRESHOLD, *rest)
        _running += 1


def thaw_heap() -> None:
    global _running, _thresholds
    with _running_lock:
        _running = max(0, _running - 1)
        if _running == 0:
            gc.unfreeze()
            if _thresholds is not None:
                gc.set_threshold(*_thresholds)
                _thresholds = None
