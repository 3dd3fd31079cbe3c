"""Experiments: configs, paired statistics, sweeps, prompt tuning and judge reports.

Principles (``shared/design/experiments.md``): every trial is an ordinary run through the runner;
every comparison is paired and carries a CI; winners are chosen on dev and promoted only after a
holdout confirmation; configs compose; everything works offline under a budget.

The flat core holds what every tuner shares: :mod:`.config` (what a trial varies),
:mod:`.split` (dev / holdout), :mod:`.stats` (paired tests and intervals), :mod:`.compare`,
:mod:`.budget`, :mod:`.evaluate` (one config through the runner), :mod:`.race` (arms raced
over cases), :mod:`.estimate`, :mod:`.store`, and :mod:`.experiment` (a named line of work,
with its best config, :mod:`.tracking` and :mod:`.timeline`). Above it, one package per tuner:
:mod:`.sweep`, :mod:`.tune` (prompt tuning) and :mod:`.judge` (judge reports). Their charts live
in :mod:`tooleval_nb.charts`, their widgets in :mod:`tooleval_nb.widgets`.
"""

from __future__ import annotations

from .budget import Budget, BudgetTracker
from .compare import compare
from .config import SAMPLING_KEYS, Config, FewShot
from .estimate import Estimate, estimate, estimate_async
from .experiment import BestRecord, Experiment, experiment
from .judge import JudgeReport, judge_report, judge_report_async
from .split import Split, split
from .stats import PairedResult, paired
from .sweep import DEFAULT_SPACE, Space, Sweep, Uniform, space, sweep, sweep_async, uniform
from .tune import (
    DEFAULT_SYSTEM_PROMPT,
    OPERATORS,
    TOOL_RULES,
    Candidate,
    PromptTune,
    tune_prompt,
    tune_prompt_async,
)

__all__ = [
    "BestRecord",
    "Budget",
    "BudgetTracker",
    "Candidate",
    "Config",
    "DEFAULT_SPACE",
    "DEFAULT_SYSTEM_PROMPT",
    "Estimate",
    "Experiment",
    "FewShot",
    "JudgeReport",
    "OPERATORS",
    "PairedResult",
    "PromptTune",
    "SAMPLING_KEYS",
    "Space",
    "Split",
    "Sweep",
    "TOOL_RULES",
    "Uniform",
    "compare",
    "estimate",
    "estimate_async",
    "experiment",
    "judge_report",
    "judge_report_async",
    "paired",
    "space",
    "split",
    "sweep",
    "sweep_async",
    "tune_prompt",
    "tune_prompt_async",
    "uniform",
]
