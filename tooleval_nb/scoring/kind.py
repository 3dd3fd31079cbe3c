"""How a case is scored: :func:`case_kind` (see :mod:`.case` for what each kind means).

A pure function of the case alone, importing only the suite: the runner asks it of every case
before its request, without loading the scorer (which loads while a run's first requests are in
flight).
"""

from __future__ import annotations

from typing import Literal

from ..suite import EvalCase

__all__ = ["CaseKind", "case_kind"]

CaseKind = Literal["call", "no_call", "chain", "agent"]


def case_kind(case: EvalCase) -> CaseKind:
    """How ``case`` is scored: the first that applies of ``chain``, ``call`` and ``agent``,
    else ``no_call`` (each kind is described in :mod:`tooleval_nb.scoring.case`)."""
    if case.multi_turn:
        return "chain"
    if case.expected_tool is not None or case.expected_calls:
        return "call"
    if case.expected is not None or case.reference_tools or case.graders:
        return "agent"
    return "no_call"
