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
    """How ``case`` is scored: a ``chain`` (``multi_turn``), a ``call`` case (``expected_tool``
    or ``expected_calls``), an ``agent`` case (nothing expected but an ``expected`` block,
    ``reference_tools`` or graders), else ``no_call``."""
    if case.multi_turn:
        return "chain"
    if case.expected_tool is not None or case.expected_calls:
        return "call"
    if case.expected is not None or case.reference_tools or case.graders:
        return "agent"
    return "no_call"
