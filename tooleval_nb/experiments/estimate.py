"""``te.estimate``: measure calls per second on *this* machine before a long job.

A short probe (3 cases by default, response cache off, one at a time) gives the seconds per call;
the ETA of ``n_calls`` follows. The probe is an ordinary run in the store.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..aio import run_sync
from .config import Config
from .evaluate import evaluate_async

if TYPE_CHECKING:  # pragma: no cover
    from ..suite import Suite

__all__ = ["Estimate", "estimate", "estimate_async", "format_duration"]


@dataclass(frozen=True)
class Estimate:
    """Seconds per call measured by a probe, and the ETA of ``n_calls``."""

    n_calls: int
    seconds_per_call: float
    probe_calls: int
    run_id: str | None = None

    @property
    def eta_seconds(self) -> float:
        return self.n_calls * self.seconds_per_call

    def __str__(self) -> str:
        return (
            f"{self.n_calls} calls × {self.seconds_per_call:.2f} s/call (measured on "
            f"{self.probe_calls} calls) ≈ {format_duration(self.eta_seconds)}"
        )


def format_duration(seconds: float) -> str:
    """``"42 s"``, ``"3.5 min"``, ``"1.2 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


async def estimate_async(
    suite: Suite,
    config: Config | None = None,
    n_calls: int = 100,
    *,
    probe: int = 3,
    store: Any = None,
    verbose: bool = True,
) -> Estimate:
    """Probe ``config`` on ``probe`` cases (cache off, sequential) and print the ETA."""
    cfg = config or Config()
    ids = [c.id for c in suite.cases if not c.draft][: max(1, probe)]
    start = time.perf_counter()
    ev = await evaluate_async(
        suite,
        cfg,
        [i for i in ids if i],
        store=store,
        repeats=1,
        max_concurrency=1,
        cache=False,
        name="estimate-probe",
    )
    wall = time.perf_counter() - start
    calls = max(1, ev.calls or len(ids))
    est = Estimate(
        n_calls=n_calls, seconds_per_call=wall / calls, probe_calls=calls, run_id=ev.run_id
    )
    if verbose:
        print(f"ETA: {est}")
    return est


def estimate(
    suite: Suite, config: Config | None = None, n_calls: int = 100, **kwargs: Any
) -> Estimate:
    """Sync twin of :func:`estimate_async`."""
    return run_sync(estimate_async(suite, config, n_calls, **kwargs))
