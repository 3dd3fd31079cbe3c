"""BFCL as a benchmark: any model on BFCL V4's categories that run offline, in one call.

``te.run_bfcl(model, categories, mode="fc" | "prompt", limit=None)`` builds the entries from
BFCL's data (:mod:`tooleval_nb.bfcl_rules.data`) as a suite (:mod:`.suite`, shown as BFCL shows
them: :mod:`tooleval_nb.bfcl_rules.prompt`), runs them through the runner, writes result files
the official checker reads (:mod:`.results`), and gives BFCL's verdicts with our partial
credit beside them (:mod:`.verdicts`, taken while the run goes: :mod:`.tally`) and the
leaderboard (:mod:`.scores`). :func:`score_result_files` (:mod:`.rescore`) scores files already on disk.

Multi-turn and memory entries run BFCL's own loop (:mod:`.loop`) against BFCL's own environment
classes (:mod:`.environments`), and are judged as BFCL's checkers judge them, with per-turn credit
and a replay score beside the verdict (:mod:`.multiturn_check`, :mod:`.memory_check`).

BFCL's rules themselves (categories, data, prompts, the AST checker) are the package below
scoring, :mod:`tooleval_nb.bfcl_rules`; the names of it users reach (``CATEGORIES``, ``GROUPS``,
``resolve_categories``, ``BfclData``, ``locate_data``) are re-exported here. The multi-turn and
memory checkers stay here: they execute BFCL's environment classes (bfcl-eval's code, which
memory's write files), and only the benchmark's verdicts use them.

Names load on first use: scoring result files never imports the runner or model code.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..bfcl_rules.categories import CATEGORIES, GROUPS, resolve_categories
    from ..bfcl_rules.data import BfclData, locate_data
    from .environments import Environments
    from .memory_check import memory_verdict
    from .multiturn_check import multi_turn_verdict
    from .rescore import score_result_files
    from .run import BfclJob, BfclRun, run_bfcl, run_bfcl_async
    from .scores import category_table, leaderboard
    from .verdicts import ENTRY_COLUMNS

__all__ = [
    "run_bfcl",
    "run_bfcl_async",
    "BfclJob",
    "BfclRun",
    "BfclData",
    "locate_data",
    "CATEGORIES",
    "GROUPS",
    "resolve_categories",
    "score_result_files",
    "leaderboard",
    "category_table",
    "ENTRY_COLUMNS",
    "Environments",
    "multi_turn_verdict",
    "memory_verdict",
]

_WHERE = {
    "run_bfcl": ".run",
    "run_bfcl_async": ".run",
    "BfclJob": ".run",
    "BfclRun": ".run",
    "BfclData": "..bfcl_rules.data",
    "locate_data": "..bfcl_rules.data",
    "CATEGORIES": "..bfcl_rules.categories",
    "GROUPS": "..bfcl_rules.categories",
    "resolve_categories": "..bfcl_rules.categories",
    "score_result_files": ".rescore",
    "leaderboard": ".scores",
    "category_table": ".scores",
    "ENTRY_COLUMNS": ".verdicts",
    "Environments": ".environments",
    "multi_turn_verdict": ".multiturn_check",
    "memory_verdict": ".memory_check",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'tooleval_nb.bfcl' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
