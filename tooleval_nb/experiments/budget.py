"""Budgets: every sweep, tune and judge report stops when its calls or minutes run out (P5).

A :class:`Budget` is the immutable limit a user passes; a :class:`BudgetTracker` counts what one
job spends against it. Model requests count; replies served from the response cache are free.

The budget is the *job's*, over its whole life, and each call is charged once: a cell a job reuses
(a prompt tune re-racing its base every generation) is not charged again, and a job resumed after a
kill pays again, once, for the cells, probe and meta calls the interrupted process had finished, as
it replays them in order. So a resumed job takes the decisions an uninterrupted one would and ends
with the same ``calls_used`` (requests lost in flight at the kill are not counted). The minutes
budget counts this process's time only.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Budget", "BudgetTracker"]


class Budget(BaseModel):
    """A limit on model calls and wall-clock minutes; whichever is hit first ends the job.

    Example:
        >>> Budget(calls=400, minutes=15)
        Budget(calls=400, minutes=15)
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: int | None = Field(default=None, ge=1)
    minutes: float | None = Field(default=None, gt=0)

    def tracker(self, calls_used: int = 0) -> BudgetTracker:
        """A fresh tracker (``calls_used`` carries spending over from a resumed job)."""
        return BudgetTracker(self, calls_used=calls_used)

    def __repr__(self) -> str:
        parts = [
            f"calls={self.calls}" if self.calls is not None else "",
            f"minutes={self.minutes:g}" if self.minutes is not None else "",
        ]
        return "Budget(" + ", ".join(p for p in parts if p) + ")"

    def describe(self) -> str:
        parts = [
            f"{self.calls} calls" if self.calls is not None else "",
            f"{self.minutes:g} min" if self.minutes is not None else "",
        ]
        return " / ".join(p for p in parts if p) or "unlimited"


class BudgetTracker:
    """Counts calls and time spent by one job against its :class:`Budget`."""

    def __init__(self, budget: Budget, calls_used: int = 0, *, clock=time.monotonic) -> None:
        self.budget = budget
        self.calls_used = calls_used
        self._clock = clock
        self._start = clock()

    @property
    def elapsed_minutes(self) -> float:
        return (self._clock() - self._start) / 60.0

    @property
    def remaining_calls(self) -> int | None:
        if self.budget.calls is None:
            return None
        return max(0, self.budget.calls - self.calls_used)

    def can_afford(self, calls: int) -> bool:
        """Whether ``calls`` more calls fit in what is left (and time is not up)."""
        if self.out_of_time:
            return False
        left = self.remaining_calls
        return left is None or calls <= left

    @property
    def out_of_time(self) -> bool:
        return self.budget.minutes is not None and self.elapsed_minutes >= self.budget.minutes

    @property
    def exhausted(self) -> bool:
        left = self.remaining_calls
        return self.out_of_time or (left is not None and left <= 0)

    @property
    def reason(self) -> str | None:
        """Why the budget is exhausted, or None."""
        if self.out_of_time:
            return f"time budget of {self.budget.minutes:g} min spent"
        left = self.remaining_calls
        if left is not None and left <= 0:
            return f"call budget of {self.budget.calls} spent"
        return None

    def charge(self, calls: int) -> None:
        """Record ``calls`` new model calls."""
        self.calls_used += max(0, int(calls))

    def used(self) -> dict[str, Any]:
        """``{"calls": used, "calls_budget": ..., "minutes": ..., "minutes_budget": ...}``."""
        return {
            "calls": self.calls_used,
            "calls_budget": self.budget.calls,
            "minutes": round(self.elapsed_minutes, 3),
            "minutes_budget": self.budget.minutes,
        }
