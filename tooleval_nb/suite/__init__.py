"""Suites: tools (OpenAI function schemas), evaluation cases, and the suite that holds them.

* :mod:`.tool`: :class:`Tool` / :class:`FunctionDef`, parameters checked as JSON Schema;
* :mod:`.case`: :class:`EvalCase` (every field of both seeds, plus parallel calls and BFCL
  conversations) and its parts (:class:`ExpectedCall`, :class:`ScoringConfig`,
  :class:`Expectations`, :class:`GraderSpec`, :class:`ReferenceTool`);
* :mod:`.checks`: cross-checks of a case against its tools;
* :mod:`.code`: the Python a suite's code graders name, where it is and whether it may run;
* :mod:`.model`: :class:`Suite`, which runs the cross-checks when built and raises every problem
  at once as one :class:`~tooleval_nb.errors.SuiteError`.

Files are read and written by :mod:`tooleval_nb.formats`.
"""

from __future__ import annotations

from .case import (
    ArgsMode,
    EvalCase,
    Expectations,
    ExpectedCall,
    GraderSpec,
    ParamScoring,
    ReferenceTool,
    ScoringConfig,
    TrajectoryMode,
)
from .checks import case_problems
from .code import GraderCode, GraderRefused, locate_grader, suite_code
from .model import Suite, SuiteText, fingerprint_of
from .tool import FunctionDef, Tool, schema_problem, strip_extensions

__all__ = [
    "ParamScoring",
    "TrajectoryMode",
    "ArgsMode",
    "FunctionDef",
    "Tool",
    "ExpectedCall",
    "ScoringConfig",
    "Expectations",
    "GraderSpec",
    "ReferenceTool",
    "EvalCase",
    "Suite",
    "case_problems",
    "GraderCode",
    "GraderRefused",
    "locate_grader",
    "suite_code",
    "SuiteText",
    "fingerprint_of",
    "schema_problem",
    "strip_extensions",
]
