"""The heap frozen out of the garbage collector's scans while a run goes."""

from __future__ import annotations

import gc
import threading

__all__ = ["freeze_heap", "thaw_heap"]

#: runs between their start and close (the heap is frozen while there is one); jobs may run
#: on loops in several threads, hence the lock
_running = 0
_running_lock = threading.Lock()


def freeze_heap() -> None:
    """While a run goes, the objects that existed when the first one started (the kernel's
    imports, pandas, pydantic, the suite) are left out of the garbage collector's scans
    (``gc.freeze``). Otherwise a full collection, triggered by the rows and events the run
    allocates, walks all of them and stops the loop for tens of milliseconds (about 70 ms with
    this package's imports), delaying every reply waiting to be read. Nothing is lost: the
    last run to close unfreezes them (:func:`thaw_heap`), and garbage among them is then
    collected as usual."""
    global _running
    with _running_lock:
        if _running == 0:
            gc.freeze()
        _running += 1


def thaw_heap() -> None:
    global _running
    with _running_lock:
        _running = max(0, _running - 1)
        if _running == 0:
            gc.unfreeze()
