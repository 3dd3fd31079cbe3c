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

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:  # each public name once: mypy and IDEs read it, attach() loads from it
    from ..bfcl_rules.categories import CATEGORIES as CATEGORIES
    from ..bfcl_rules.categories import GROUPS as GROUPS
    from ..bfcl_rules.categories import resolve_categories as resolve_categories
    from ..bfcl_rules.data import BfclData as BfclData
    from ..bfcl_rules.data import locate_data as locate_data
    from .environments import Environments as Environments
    from .memory_check import memory_verdict as memory_verdict
    from .multiturn_check import multi_turn_verdict as multi_turn_verdict
    from .rescore import score_result_files as score_result_files
    from .run import BfclJob as BfclJob
    from .run import BfclRun as BfclRun
    from .run import run_bfcl as run_bfcl
    from .run import run_bfcl_async as run_bfcl_async
    from .scores import category_table as category_table
    from .scores import leaderboard as leaderboard
    from .verdicts import ENTRY_COLUMNS as ENTRY_COLUMNS

if not TYPE_CHECKING:
    __getattr__, __dir__, __all__ = attach(__name__)
