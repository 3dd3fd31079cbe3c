"""Prompt tuning: search system prompts (and few-shot examples) on dev, confirm on the holdout.

* :mod:`.operators`: deterministic prompt edits (add / drop a rule, format hint, examples...);
* :mod:`.meta`: the meta model's prompt (OPRO with failure feedback) and its parsing;
* :mod:`.tuner`: one generation: proposals, filters, the Pareto front of parents;
* :mod:`.run`: ``te.tune_prompt`` / ``te.tune_prompt_async``, resumable;
* :mod:`.result`: the :class:`PromptTune` and its :class:`Candidate` rows.
"""

from __future__ import annotations

from .operators import DEFAULT_SYSTEM_PROMPT, OPERATORS, TOOL_RULES
from .result import Candidate, PromptTune
from .run import tune_prompt, tune_prompt_async

__all__ = [
    "Candidate",
    "DEFAULT_SYSTEM_PROMPT",
    "OPERATORS",
    "PromptTune",
    "TOOL_RULES",
    "tune_prompt",
    "tune_prompt_async",
]
