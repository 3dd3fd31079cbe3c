"""What a run does to the process's garbage collector: the one place that touches it.

Python's cyclic garbage collector runs in the kernel that runs the evaluation, and a full
collection walks every object of the process (the kernel's imports, pandas, pydantic, the
suite: tens of milliseconds with this package's imports) while the event loop waits. A run
allocates many short-lived containers that reference counting frees anyway, so without care
the collector stops the loop often, for nothing. Two things are done, and both are undone:

* **While a run goes** (:func:`freeze_heap` at its start, :func:`thaw_heap` at its close,
  called by :mod:`.execute`): the objects that existed when the first run started are moved
  out of the collector's scans (``gc.freeze()``), and the youngest generation is collected
  after :data:`RUN_GEN0_THRESHOLD` allocations instead of CPython's 700. When the last of the
  process's runs closes (runs may overlap, on loops in several threads), the objects are
  unfrozen (``gc.unfreeze()``) and the thresholds restored to what they were; garbage among
  them is then collected as usual. If something else had frozen objects before the first run
  (``gc.get_freeze_count() > 0``), the freeze is skipped, so that the thaw never unfreezes what
  it did not freeze; a threshold of 0 (automatic collection off) is left as it is.
* **Around work that allocates much and keeps little or nothing** (:func:`collector_paused`:
  a BFCL run's preparation, each multi-turn entry's judging): the collector is disabled for
  the span (``gc.disable()``) and enabled again after it, if it was enabled before; reference
  counting still frees what is dropped meanwhile.

Nothing else in the package calls :mod:`gc`. ``TOOLEVAL_KEEP_GC=1`` in the environment (read
when a run starts, or a span begins) leaves the collector exactly as it is: no freeze, no
threshold, no pause (runs are then slower where the collector interrupts them; results are the
same). See docs/runs.md.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Iterator

__all__ = [
    "freeze_heap",
    "thaw_heap",
    "collector_paused",
    "RUN_GEN0_THRESHOLD",
    "KEEP_GC_ENV",
]

#: the garbage collector's first threshold while a run goes (CPython's default is 700): a
#: case allocates hundreds of short-lived containers (the reply's JSON, its score, its row),
#: nearly all freed by reference counting, yet every 700 allocations not yet freed start a
#: collection; with 64 cases in flight that is a collection every few cases, and an older
#: generation's now and then (measured at 0 ms x 64: 0.08 to 0.1 ms of CPU per case, a tenth
#: of the runner's; with this threshold under 0.01 ms). Cyclic garbage waits a little longer
#: for its collection; nothing else changes
RUN_GEN0_THRESHOLD = 10_000
#: the environment variable that leaves the garbage collector alone (``1``)
KEEP_GC_ENV = "TOOLEVAL_KEEP_GC"

#: runs between their start and close; jobs may run on loops in several threads, hence the lock
_running = 0
_running_lock = threading.Lock()
#: the collector's thresholds before the first run started (restored when the last one ends)
_thresholds: tuple[int, ...] | None = None
#: whether the first run froze the heap (the last one unfreezes it only then)
_froze = False


def _keep_gc() -> bool:
    return os.environ.get(KEEP_GC_ENV, "").strip() == "1"


def freeze_heap() -> None:
    """A run starts: the first of the process's runs freezes the heap and raises the young
    generation's threshold (see the module docstring). Each call is matched by one
    :func:`thaw_heap`."""
    global _running, _thresholds, _froze
    with _running_lock:
        if _running == 0 and not _keep_gc():
            if gc.get_freeze_count() == 0:  # never take over a freeze made by someone else
                gc.freeze()
                _froze = True
            _thresholds = gc.get_threshold()
            first, *rest = _thresholds
            if first and first < RUN_GEN0_THRESHOLD:  # 0: the collector's thresholds are off
                gc.set_threshold(RUN_GEN0_THRESHOLD, *rest)
        _running += 1


def thaw_heap() -> None:
    """A run closes: the last of the process's runs unfreezes what the first froze and restores
    the thresholds it found."""
    global _running, _thresholds, _froze
    with _running_lock:
        _running = max(0, _running - 1)
        if _running == 0:
            if _froze:
                gc.unfreeze()
                _froze = False
            if _thresholds is not None:
                gc.set_threshold(*_thresholds)
                _thresholds = None


@contextlib.contextmanager
def collector_paused(collect_young: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector for the ``with`` block (nested blocks and a
    collector disabled already are left as they are; nothing with ``TOOLEVAL_KEEP_GC=1``).

    A full collection finds no garbage when the objects just allocated all stay alive (a run's
    preparation) or are freed by reference counting (a multi-turn entry's environments, whose
    state is copied and compared call by call): pausing it for such a span is faster and loses
    nothing. ``collect_young``: on leaving, collect the youngest generation only (the block's
    own cyclic garbage, never the whole heap). A block run once per item then costs a small
    collection of its own objects instead of the full collections its allocations would
    trigger (measured on the 1,600 multi-turn results of ``benchmarks/bench_bfcl.py``: 0.08 s
    of collection instead of 3 s).
    """
    if _keep_gc():
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collect_young:
            gc.collect(0)
        if was_enabled:
            gc.enable()
