"""BFCL's single-turn categories (V4) and the group names that select several.

Non-live: ``simple_python``, ``simple_java``, ``simple_javascript``, ``multiple``, ``parallel``,
``parallel_multiple``, ``irrelevance``. Live: ``live_simple``, ``live_multiple``,
``live_parallel``, ``live_parallel_multiple``, ``live_irrelevance``, ``live_relevance``.
Groups: ``non_live``, ``live``, ``single_turn`` and ``all`` (the same thirteen: multi-turn and
agentic categories are not run here). Result files sit under BFCL's group folders
(``non_live/``, ``live/``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from ..errors import SuiteError

__all__ = ["Category", "CATEGORIES", "NON_LIVE", "LIVE", "GROUPS", "SIMPLE_PARTS",
           "NON_LIVE_AST", "LIVE_AST", "HALLUCINATION", "resolve_categories", "group_of",
           "language_of", "is_relevance", "VERSION_PREFIX"]

#: BFCL's file-name prefix for this data version
VERSION_PREFIX = "BFCL_v4"

Category = Literal[
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "irrelevance", "live_simple", "live_multiple", "live_parallel",
    "live_parallel_multiple", "live_irrelevance", "live_relevance"]

NON_LIVE: tuple[str, ...] = ("simple_python", "simple_java", "simple_javascript", "multiple",
                             "parallel", "parallel_multiple", "irrelevance")
LIVE: tuple[str, ...] = ("live_simple", "live_multiple", "live_parallel",
                         "live_parallel_multiple", "live_irrelevance", "live_relevance")
#: every category run here, in BFCL's order
CATEGORIES: tuple[str, ...] = NON_LIVE + LIVE
#: group name -> its categories
GROUPS: dict[str, tuple[str, ...]] = {
    "non_live": NON_LIVE, "live": LIVE, "single_turn": CATEGORIES, "all": CATEGORIES}
#: the parts of the non-live "simple" score (their unweighted mean)
SIMPLE_PARTS: tuple[str, ...] = ("simple_python", "simple_java", "simple_javascript")
#: the non-live overall: unweighted mean of simple (itself a mean) and these three
NON_LIVE_AST: tuple[str, ...] = ("multiple", "parallel", "parallel_multiple")
#: the live overall: mean over these categories weighted by their sample counts
LIVE_AST: tuple[str, ...] = ("live_simple", "live_multiple", "live_parallel",
                             "live_parallel_multiple")
#: hallucination measurement: irrelevance (no call wanted) and relevance (a call wanted)
HALLUCINATION: tuple[str, ...] = ("irrelevance", "live_irrelevance", "live_relevance")


def resolve_categories(spec: str | Iterable[str] | None = None) -> list[str]:
    """Category names (groups expanded, duplicates dropped, BFCL's order kept).

    Args:
        spec: a category or group name, a comma-separated string of them, or a list;
            None means ``all``.

    Raises:
        SuiteError: an unknown name, with every valid category and group listed.
    """
    if spec is None:
        names: list[str] = ["all"]
    elif isinstance(spec, str):
        names = [n.strip() for n in spec.split(",") if n.strip()]
    else:
        names = [str(n).strip() for n in spec]
    chosen: set[str] = set()
    unknown = []
    for name in names:
        if name in GROUPS:
            chosen.update(GROUPS[name])
        elif name in CATEGORIES:
            chosen.add(name)
        else:
            unknown.append(name)
    if unknown:
        raise SuiteError(
            f"unknown BFCL categor{'y' if len(unknown) == 1 else 'ies'} "
            f"{', '.join(map(repr, unknown))}; valid categories: {', '.join(CATEGORIES)}; "
            f"groups: {', '.join(GROUPS)} (multi-turn and agentic categories are not supported)")
    if not chosen:
        raise SuiteError(f"no BFCL category given; name some of: {', '.join(CATEGORIES)}")
    return [c for c in CATEGORIES if c in chosen]


def group_of(category: str) -> str:
    """BFCL's folder for a category's files: ``non_live`` or ``live``."""
    return "live" if category.startswith("live_") else "non_live"


def language_of(category: str) -> Literal["Python", "Java", "JavaScript"]:
    """The language BFCL checks a category's values in."""
    if category == "simple_java":
        return "Java"
    if category == "simple_javascript":
        return "JavaScript"
    return "Python"


def is_relevance(category: str) -> bool:
    """The (ir)relevance categories: no possible-answer file, scored on call / no call."""
    return "relevance" in category
