"""Batch scoring to DataFrames.

* :func:`scores_df`: one row per :class:`~tooleval_nb.scoring.result.CaseScore`, the columns of
  :data:`~tooleval_nb.scoring.result.SCORE_COLUMNS` after ``model``.
* :func:`score_cases` / :func:`score_cases_async`: score a suite's cases against one model's
  answers and return that frame.

Their summary, one row per model, is :mod:`.summary`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..suite import EvalCase, Suite, Tool
from .case import score_case, score_case_async
from .result import SCORE_COLUMNS, CaseScore

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["scores_df", "score_cases", "score_cases_async"]


def scores_df(scores: Iterable[CaseScore], *, model: str | None = None) -> pd.DataFrame:
    """One row per score: ``model`` then :data:`SCORE_COLUMNS`."""
    import pandas as pd

    rows = [{"model": model, **s.row()} for s in scores]
    return pd.DataFrame(rows, columns=["model", *SCORE_COLUMNS])


def _answer(answers: Any, case: EvalCase, index: int) -> Any:
    if isinstance(answers, Mapping):
        return answers.get(case.id) if case.id in answers else answers.get(case.name)
    return answers[index]


def _unpack(answer: Any) -> tuple[Any, str | None, str | None, str | None]:
    """(tool_calls, output, error, error_type) from a ModelReply-like object or a call list."""
    if answer is None:
        return [], None, None, None
    if hasattr(answer, "tool_calls") and hasattr(answer, "error"):
        return (
            answer.tool_calls,
            getattr(answer, "content", None),
            answer.error,
            getattr(answer, "error_type", None),
        )
    if isinstance(answer, Mapping) and ("tool_calls" in answer or "error" in answer):
        return (
            answer.get("tool_calls") or [],
            answer.get("content") or answer.get("output"),
            answer.get("error"),
            answer.get("error_type"),
        )
    return answer, None, None, None


def _jobs(
    cases: Suite | Sequence[EvalCase], answers: Any
) -> list[tuple[EvalCase, list[Tool] | None, Any]]:
    if isinstance(cases, Suite):
        return [(c, cases.tools_for(c), _answer(answers, c, i)) for i, c in enumerate(cases.cases)]
    return [(c, None, _answer(answers, c, i)) for i, c in enumerate(cases)]


def score_cases(
    cases: Suite | Sequence[EvalCase],
    answers: Mapping[str, Any] | Sequence[Any],
    *,
    model: str | None = None,
    grade: bool = True,
    base_dir: str | Path | None = None,
) -> pd.DataFrame:
    """Score every case against one model's answers; one row per case.

    Args:
        cases: a suite (its tools are used for cases without their own) or a list of cases.
        answers: per case (by case id or name, or in case order): a ``ModelReply``, a dict with
            ``tool_calls`` / ``content`` / ``error``, or the tool calls themselves.
        model: the model's name for the ``model`` column.
        grade: run the cases' graders.
        base_dir: where relative code-grader modules are found.
    """
    scores = []
    for case, tools, answer in _jobs(cases, answers):
        calls, output, error, error_type = _unpack(answer)
        scores.append(
            score_case(
                case,
                calls,
                output,
                tools=tools,
                error=error,
                error_type=error_type,
                grade=grade,
                base_dir=base_dir,
            )
        )
    return scores_df(scores, model=model)


async def score_cases_async(
    cases: Suite | Sequence[EvalCase],
    answers: Mapping[str, Any] | Sequence[Any],
    *,
    model: str | None = None,
    grade: bool = True,
    base_dir: str | Path | None = None,
) -> pd.DataFrame:
    """The async twin of :func:`score_cases` (LLM graders run concurrently)."""
    import asyncio

    jobs = []
    for case, tools, answer in _jobs(cases, answers):
        calls, output, error, error_type = _unpack(answer)
        jobs.append(
            score_case_async(
                case,
                calls,
                output,
                tools=tools,
                error=error,
                error_type=error_type,
                grade=grade,
                base_dir=base_dir,
            )
        )
    return scores_df(await asyncio.gather(*jobs), model=model)
