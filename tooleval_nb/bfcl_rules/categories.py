"""BFCL's categories (V4), the group names that select several, and BFCL's rules on names.

Single-turn, non-live: ``simple_python``, ``simple_java``, ``simple_javascript``, ``multiple``,
``parallel``, ``parallel_multiple``, ``irrelevance``. Live: ``live_simple``, ``live_multiple``,
``live_parallel``, ``live_parallel_multiple``, ``live_irrelevance``, ``live_relevance``.
Multi-turn: ``multi_turn_base``, ``multi_turn_miss_func``, ``multi_turn_miss_param``,
``multi_turn_long_context``. Agentic: memory, one category per backend (``memory_kv``,
``memory_vector``, ``memory_rec_sum``), and web search (``web_search_base``,
``web_search_no_snippet``). ``format_sensitivity``: 26 prompt variants of 200 single-turn
entries (prompt mode only; it does not count in the overall score).

Groups: ``non_live``, ``live``, ``single_turn``, ``multi_turn``, ``memory``, ``web_search``,
``agentic`` and ``all``. ``all`` is every category that can run offline here
(:func:`offline_categories`): web search needs a search API and the internet, and
``memory_vector`` needs sentence-transformers and faiss (:data:`NOT_OFFLINE`,
:func:`not_run_reason`); a group that holds such a category names it as not run
(:func:`select_categories`), and naming one alone is an error that says why.

The rules on names are bfcl-eval's (``bfcl_eval/utils.py``): a category from an entry id
(:func:`category_of`) or a file name (:func:`category_of_file`), its language
(:func:`language_of`), its folder (:func:`group_of`, :func:`folder_of`). Pure: no I/O (the
memory_vector check looks for the two packages without importing them).
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from ..errors import SuiteError

__all__ = [
    "Category",
    "Language",
    "CATEGORIES",
    "SINGLE_TURN",
    "NON_LIVE",
    "LIVE",
    "MULTI_TURN",
    "MEMORY",
    "MEMORY_BACKENDS",
    "MEMORY_SCENARIOS",
    "WEB_SEARCH",
    "AGENTIC",
    "FORMAT_SENSITIVITY",
    "KNOWN_CATEGORIES",
    "SCORING",
    "ENTRY_COUNTS",
    "OVERALL_WEIGHTS",
    "GROUPS",
    "NOT_OFFLINE",
    "SIMPLE_PARTS",
    "NON_LIVE_AST",
    "LIVE_AST",
    "HALLUCINATION",
    "VERSION_PREFIX",
    "Selection",
    "select_categories",
    "resolve_categories",
    "offline_categories",
    "not_run_reason",
    "memory_vector_available",
    "group_of",
    "folder_of",
    "language_of",
    "is_relevance",
    "is_multi_turn",
    "is_memory",
    "is_memory_prereq",
    "is_agentic",
    "is_web_search",
    "is_format_sensitivity",
    "category_of",
    "category_of_file",
    "memory_backend",
    "result_file_name",
    "score_file_name",
    "sort_key",
]

#: BFCL's file-name prefix for this data version
VERSION_PREFIX = "BFCL_v4"

Category = Literal[
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
    "memory_kv",
    "memory_vector",
    "memory_rec_sum",
    "format_sensitivity",
]

#: the language BFCL checks a category's values in
Language = Literal["Python", "Java", "JavaScript"]

NON_LIVE: tuple[str, ...] = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
)
LIVE: tuple[str, ...] = (
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)
#: the thirteen single-turn categories, in BFCL's order
SINGLE_TURN: tuple[str, ...] = NON_LIVE + LIVE
MULTI_TURN: tuple[str, ...] = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
#: memory backends, in BFCL's order (``memory_<backend>`` is a category)
MEMORY_BACKENDS: tuple[str, ...] = ("kv", "vector", "rec_sum")
MEMORY: tuple[str, ...] = tuple(f"memory_{b}" for b in MEMORY_BACKENDS)
#: the memory scenarios, each with its prerequisite conversation, in BFCL's order
MEMORY_SCENARIOS: tuple[str, ...] = ("student", "customer", "finance", "healthcare", "notetaker")
WEB_SEARCH: tuple[str, ...] = ("web_search_base", "web_search_no_snippet")
AGENTIC: tuple[str, ...] = MEMORY + WEB_SEARCH
FORMAT_SENSITIVITY = "format_sensitivity"
#: every category that runs here (given what it needs), in BFCL's order
CATEGORIES: tuple[str, ...] = SINGLE_TURN + MULTI_TURN + MEMORY + (FORMAT_SENSITIVITY,)
#: every category BFCL V4 has, the ones never run here included
KNOWN_CATEGORIES: tuple[str, ...] = SINGLE_TURN + MULTI_TURN + AGENTIC + (FORMAT_SENSITIVITY,)
#: group name -> its categories (``all``: see :func:`offline_categories`)
GROUPS: dict[str, tuple[str, ...]] = {
    "non_live": NON_LIVE,
    "live": LIVE,
    "single_turn": SINGLE_TURN,
    "multi_turn": MULTI_TURN,
    "memory": MEMORY,
    "web_search": WEB_SEARCH,
    "agentic": AGENTIC,
    "all": KNOWN_CATEGORIES,
}
#: why a category never runs offline here
NOT_OFFLINE: dict[str, str] = {
    c: (
        "web search needs a search API (SerpAPI, SERPAPI_API_KEY) and the internet: it is not "
        "run offline"
    )
    for c in WEB_SEARCH
}
_VECTOR_NEEDS = (
    "memory_vector needs sentence-transformers and faiss (pip install "
    "sentence-transformers faiss-cpu) and the all-MiniLM-L6-v2 encoder in the "
    "Hugging Face cache: not installed here"
)

#: the categories that count in BFCL V4's overall score (format sensitivity does not)
SCORING: tuple[str, ...] = SINGLE_TURN + MULTI_TURN + AGENTIC
#: entries per scoring category in BFCL V4's data (bfcl-eval counts a category not run with its
#: full size: it weighs the live overall)
ENTRY_COUNTS: dict[str, int] = {
    "simple_python": 400,
    "simple_java": 100,
    "simple_javascript": 50,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "irrelevance": 240,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "live_irrelevance": 884,
    "live_relevance": 16,
    **dict.fromkeys(MULTI_TURN, 200),
    **dict.fromkeys(MEMORY, 155),
    **dict.fromkeys(WEB_SEARCH, 100),
}
#: BFCL V4's overall score: the weight of each part (bfcl-eval's generate_leaderboard_csv;
#: it normalises them by their sum)
OVERALL_WEIGHTS: dict[str, int] = {
    "non_live": 10,
    "live": 10,
    "irrelevance": 10,
    "multi_turn": 30,
    "agentic": 40,
}
#: the parts of the non-live "simple" score (their unweighted mean)
SIMPLE_PARTS: tuple[str, ...] = ("simple_python", "simple_java", "simple_javascript")
#: the non-live overall: unweighted mean of simple (itself a mean) and these three
NON_LIVE_AST: tuple[str, ...] = ("multiple", "parallel", "parallel_multiple")
#: the live overall: mean over these categories weighted by their sample counts
LIVE_AST: tuple[str, ...] = (
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
)
#: hallucination measurement: irrelevance (no call wanted) and relevance (a call wanted)
HALLUCINATION: tuple[str, ...] = ("irrelevance", "live_irrelevance", "live_relevance")


def memory_vector_available() -> bool:
    """Whether sentence-transformers and faiss are installed (found, not imported: importing
    them loads torch)."""
    return all(importlib.util.find_spec(m) is not None for m in ("sentence_transformers", "faiss"))


def not_run_reason(category: str) -> str | None:
    """Why ``category`` cannot run offline here, or None when it can."""
    if category in NOT_OFFLINE:
        return NOT_OFFLINE[category]
    if category == "memory_vector" and not memory_vector_available():
        return _VECTOR_NEEDS
    return None


def offline_categories() -> tuple[str, ...]:
    """Every category that can run offline here (what ``all`` means), in BFCL's order."""
    return tuple(c for c in KNOWN_CATEGORIES if not_run_reason(c) is None)


@dataclass(frozen=True)
class Selection:
    """The categories a spec selects, and those its groups hold that are not run (with why)."""

    categories: tuple[str, ...]
    not_run: dict[str, str] = field(default_factory=dict)


def select_categories(spec: str | Iterable[str] | None = None) -> Selection:
    """The categories a spec selects (groups expanded, duplicates dropped, BFCL's order kept),
    and the categories its groups hold that cannot run here, each with why.

    Args:
        spec: a category or group name, a comma-separated string of them, or a list;
            None means ``all``.

    Raises:
        SuiteError: an unknown name (every valid category and group listed), or a category
            named alone that cannot run here (``web_search``, or ``memory_vector`` without its
            packages), with why.
    """
    if spec is None:
        names: list[str] = ["all"]
    elif isinstance(spec, str):
        names = [n.strip() for n in spec.split(",") if n.strip()]
    else:
        names = [str(n).strip() for n in spec]
    chosen: set[str] = set()
    not_run: dict[str, str] = {}
    unknown, refused = [], []
    for name in names:
        if name in GROUPS:
            for c in GROUPS[name]:
                reason = not_run_reason(c)
                if reason is None:
                    chosen.add(c)
                elif name == "web_search":
                    refused.append(f"{c}: {reason}")
                else:
                    not_run[c] = reason
        elif name in KNOWN_CATEGORIES:
            reason = not_run_reason(name)
            if reason is None:
                chosen.add(name)
            else:
                refused.append(f"{name}: {reason}")
        else:
            unknown.append(name)
    if unknown:
        raise SuiteError(
            f"unknown BFCL categor{'y' if len(unknown) == 1 else 'ies'} "
            f"{', '.join(map(repr, unknown))}; valid categories: {', '.join(CATEGORIES)}; "
            f"groups: {', '.join(GROUPS)} ({'; '.join(_not_offline_lines())})"
        )
    if refused:
        raise SuiteError(
            f"BFCL categories that cannot run here: {'; '.join(refused)}; "
            f"the categories that can: {', '.join(offline_categories())}"
        )
    if not chosen:
        raise SuiteError(f"no BFCL category given; name some of: {', '.join(CATEGORIES)}")
    for c in chosen:
        not_run.pop(c, None)
    return Selection(
        tuple(c for c in KNOWN_CATEGORIES if c in chosen),
        {c: not_run[c] for c in KNOWN_CATEGORIES if c in not_run},
    )


def _not_offline_lines() -> list[str]:
    lines = [
        "web_search_base, web_search_no_snippet: not run offline (a search API and the internet)"
    ]
    if not memory_vector_available():
        lines.append("memory_vector: needs sentence-transformers and faiss")
    return lines


def resolve_categories(spec: str | Iterable[str] | None = None) -> list[str]:
    """The category names :func:`select_categories` selects (the ones not run left out: ask
    :func:`select_categories` for them and why)."""
    return list(select_categories(spec).categories)


# -- BFCL's rules on names (bfcl_eval/utils.py) ------------------------------------------------
def is_format_sensitivity(category: str) -> bool:
    return "format_sensitivity" in category


def is_web_search(category: str) -> bool:
    return "web_search" in category


def is_memory(category: str) -> bool:
    return "memory" in category


def is_memory_prereq(category: str) -> bool:
    """A memory prerequisite (``memory_kv_prereq``): the conversation that fills the memory."""
    return "prereq" in category


def is_agentic(category: str) -> bool:
    return is_web_search(category) or is_memory(category)


def is_multi_turn(category: str) -> bool:
    return "multi_turn" in category


def is_relevance(category: str) -> bool:
    """The (ir)relevance categories: no possible-answer file, scored on call / no call."""
    return "relevance" in category


def language_of(category: str | None) -> Language:
    """The language BFCL checks a category's values in (``simple_java`` -> Java). Every
    category but the Java and JavaScript ones is Python (format sensitivity too)."""
    if category and "javascript" in category:
        return "JavaScript"
    if category and "java" in category:
        return "Java"
    return "Python"


def group_of(category: str) -> str:
    """BFCL's general group of a category or entry id: ``non_live``, ``live``, ``multi_turn``,
    ``agentic`` or ``format_sensitivity`` (bfcl-eval's ``get_general_grouping``)."""
    if is_format_sensitivity(category):
        return "format_sensitivity"
    if is_multi_turn(category):
        return "multi_turn"
    if is_agentic(category):
        return "agentic"
    if "live" in category:
        return "live"
    return "non_live"


def memory_backend(category: str) -> str:
    """``memory_kv`` (or ``memory_kv_prereq``) -> ``kv``."""
    if not is_memory(category):
        raise ValueError(f"{category!r} is not a memory category")
    return category.removeprefix("memory_").removesuffix("_prereq")


def folder_of(category: str) -> str:
    """The folder (relative, ``/``-separated) of a category's result and score files, as
    bfcl-eval lays them out: ``non_live``, ``live``, ``multi_turn``, ``format_sensitivity``,
    ``agentic`` and, for memory, ``agentic/memory/<backend>``."""
    group = group_of(category)
    if is_memory(category):
        return f"{group}/memory/{memory_backend(category)}"
    return group


def category_of(entry_id: str) -> str:
    """BFCL's category of an entry id: ``live_simple_19-3-15`` -> ``live_simple``;
    ``format_sensitivity_0:<config>:live_simple_23-5-1`` -> ``format_sensitivity``;
    ``memory_kv_prereq_22-student-0`` -> ``memory_kv_prereq``."""
    head = entry_id.split(":", 1)[0]
    return head.rsplit("_", 1)[0] if "_" in head else head


def sort_key(entry_id: str) -> tuple[int, str, int]:
    """BFCL's order of entries (bfcl-eval's ``sort_key``): memory prerequisites first, then web
    search, single-turn, multi-turn and memory; within a category by the entry's number (the one
    before any ``-``: ``live_simple_19-3-15`` -> 19; -1 when there is none)."""
    head, _, index = entry_id.split(":", 1)[0].rpartition("_")
    number = index.split("-", 1)[0]
    if is_memory_prereq(head):
        priority = 0
    elif is_web_search(head):
        priority = 1
    elif is_multi_turn(head):
        priority = 3
    elif is_memory(head):
        priority = 4
    else:
        priority = 2
    return (priority, head, int(number) if number.isdigit() else -1)


_FILE_NAME = re.compile(r"^BFCL_v\d+_(\w+?)(?:_score|_result)?\.jsonl?$")


def category_of_file(path: str | os.PathLike[str]) -> str | None:
    """The category in a BFCL file name (``BFCL_v4_live_simple_result.json`` ->
    ``live_simple``), or None when the name is not BFCL's."""
    m = _FILE_NAME.search(os.path.basename(os.fspath(path)))
    return m.group(1) if m else None


def result_file_name(category: str) -> str:
    """``BFCL_v4_<category>_result.json``."""
    return f"{VERSION_PREFIX}_{category}_result.json"


def score_file_name(category: str) -> str:
    """``BFCL_v4_<category>_score.json``."""
    return f"{VERSION_PREFIX}_{category}_score.json"
