"""Judge reports: deterministic facts about a run, budgeted LLM verdicts on its failed cases, one
synthesis.

* :mod:`.facts`: score with CI, breakdowns, failure taxonomy, worst cases (no LLM);
* :mod:`.llm`: the judge's prompts, schemas and answer parsing;
* :mod:`.rating`: G-Eval expectations over the rating tokens' logprobs;
* :mod:`.run`: ``te.judge_report`` / ``te.judge_report_async``;
* :mod:`.result`: the :class:`JudgeReport`.
"""

from __future__ import annotations

from .facts import Facts, compute_facts
from .result import JudgeReport
from .run import judge_report, judge_report_async

__all__ = ["Facts", "JudgeReport", "compute_facts", "judge_report", "judge_report_async"]
