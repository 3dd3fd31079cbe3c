"""BFCL verdicts for whole result files: ``te.bfcl_check(results, questions, answers)``.

It reads the files (with :func:`.data.read_jsonl`); the verdicts come from the pure
:func:`.checker.bfcl_verdict`. Files are BFCL's JSON Lines: results
``{"id", "result"}``, questions ``{"id", "function", ...}``, possible answers
``{"id", "ground_truth"}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ScoringError
from .categories import category_of, is_relevance, sort_key
from .checker import BfclVerdict, bfcl_verdict
from .data import read_jsonl

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["bfcl_check", "check_entries", "BFCL_CHECK_COLUMNS"]

#: columns of the frame :func:`bfcl_check` returns
BFCL_CHECK_COLUMNS = ["id", "passed", "error_type", "category", "error"]


def _objects(path: str | Path, what: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """The objects of one JSON Lines file (SuiteError naming the file, the line and the field)."""
    return read_jsonl(path, what=what, fields=fields, hint="check the path").objects


def check_entries(
    results: Iterable[Mapping[str, Any]],
    questions: Mapping[str, Mapping[str, Any]],
    answers: Mapping[str, Any] | None,
    *,
    underscore_to_dot: bool = False,
    category: str | None = None,
) -> list[tuple[str, BfclVerdict]]:
    """Verdicts for in-memory entries (ids -> question / ground truth); no I/O."""
    out = []
    for entry in results:
        entry_id = entry["id"]
        cat = category or category_of(entry_id)
        question = questions.get(entry_id)
        if question is None:
            raise ScoringError(
                f"result {entry_id!r} has no question; give the questions file of category {cat!r}"
            )
        truth = None
        if not is_relevance(cat):
            if answers is None or entry_id not in answers:
                raise ScoringError(
                    f"result {entry_id!r} has no possible answer; give the "
                    f"possible-answer file of category {cat!r}"
                )
            truth = answers[entry_id]
        out.append(
            (
                entry_id,
                bfcl_verdict(
                    entry.get("result"),
                    question["function"],
                    truth,
                    cat,
                    underscore_to_dot=underscore_to_dot,
                ),
            )
        )
    return out


def bfcl_check(
    results_path: str | Path,
    questions_path: str | Path,
    answers_path: str | Path | None = None,
    underscore_to_dot: bool = False,
    category: str | None = None,
) -> pd.DataFrame:
    """BFCL verdicts for a result file, one row per id, as BFCL's own checker decides.

    Args:
        results_path: the model's ``BFCL_v4_<category>_result.json`` (JSON Lines).
        questions_path: the category's question file (``BFCL_v4_<category>.json``).
        answers_path: its possible-answer file; by default ``possible_answer/<same name>`` next to
            the questions. Not needed for the (ir)relevance categories.
        underscore_to_dot: compare expected names with ``.`` turned into ``_`` (FC models whose
            API forbids dots in function names).
        category: force a category instead of reading it from each id.

    Returns:
        A DataFrame with columns ``id, passed, error_type, category, error`` sorted as BFCL sorts
        ids. A question with no result is a failed row (``error_type="missing_result"``).
    """
    import pandas as pd

    results = _objects(results_path, "BFCL result file", ("id",))
    questions = {q["id"]: q for q in _objects(questions_path, "BFCL question file", ("id",))}
    if answers_path is None:
        guess = Path(questions_path).parent / "possible_answer" / Path(questions_path).name
        answers_path = guess if guess.exists() else None
    answers = None
    if answers_path is not None:
        answers = {
            a["id"]: a["ground_truth"]
            for a in _objects(answers_path, "BFCL possible-answer file", ("id", "ground_truth"))
        }
    verdicts = check_entries(
        results, questions, answers, underscore_to_dot=underscore_to_dot, category=category
    )
    rows = [
        {
            "id": i,
            "passed": v.passed,
            "error_type": v.error_type,
            "category": category or category_of(i),
            "error": v.errors[0] if v.errors else None,
        }
        for i, v in verdicts
    ]
    seen = {i for i, _ in verdicts}
    for qid in questions:
        if qid not in seen:
            rows.append(
                {
                    "id": qid,
                    "passed": False,
                    "error_type": "missing_result",
                    "category": category or category_of(qid),
                    "error": f"no result for {qid} in {results_path}",
                }
            )
    rows.sort(key=lambda r: (sort_key(str(r["id"])), str(r["id"])))
    return pd.DataFrame(rows, columns=BFCL_CHECK_COLUMNS)
