"""What travels from a cell's request to its stored row: the finished cell (its replies
arrived, not yet scored) and its target's tally.

A worker builds a :class:`FinishedCell` as soon as a case's replies are in; the finisher
(:mod:`.finish`) scores it (a :class:`~tooleval_nb.scoring.CaseScore`, or None when scoring
raised) and :mod:`.rows` builds its row and events."""

from __future__ import annotations

from dataclasses import dataclass

from ..suite import EvalCase, Tool
from .plan import Target
from .record import CaseOutcome

__all__ = ["FinishedCell", "TargetTally"]


@dataclass(slots=True)
class TargetTally:
    """A target's progress in this job: cases done (stored, or stored before) of its total."""

    done: int
    total: int


@dataclass(frozen=True, slots=True)
class FinishedCell:
    """One cell whose replies arrived: what it ran, and its outcome, waiting to be scored."""

    target: Target
    case_index: int
    case: EvalCase
    sample: int
    seed: int | None
    tools: list[Tool]
    outcome: CaseOutcome
    tally: TargetTally
