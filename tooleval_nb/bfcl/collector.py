"""Python's cyclic garbage collector paused around work that allocates much and frees little.

A full collection walks every object of the process (tens of milliseconds with this package's
imports) and finds no garbage when the objects just allocated all stay alive (a run's
preparation) or are freed by reference counting (a multi-turn entry's environments, whose
state is copied and compared call by call). Pausing the collector for such a span is faster
and loses nothing: reference counting still frees what is dropped, and the collector runs as
usual afterwards (cyclic garbage made during the span is collected then).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["collector_paused"]


@contextlib.contextmanager
def collector_paused(collect_young: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector for the ``with`` block (nested blocks and a
    collector disabled already are left as they are).

    ``collect_young``: on leaving, collect the youngest generation only (the block's own
    cyclic garbage: the objects it allocated and dropped, never the whole heap). A block run
    once per item (a multi-turn entry) then costs a small collection of its own objects
    instead of the full collections its allocations would trigger (measured on the 1,600
    multi-turn results of ``benchmarks/bench_bfcl.py``: 0.08 s of collection instead of 3 s).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collect_young:
            gc.collect(0)
        if was_enabled:
            gc.enable()
