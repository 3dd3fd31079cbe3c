"""The score models: per parameter, per call, per turn, per expectation, and per case.

A :class:`CaseScore` carries both views of a case: the seed's partial-credit scores
(``tool_score``, ``param_score``, ``overall`` and their per-call / per-parameter / per-turn parts)
and the binary verdicts (``passed``, ``failure_mode``, BFCL's ``bfcl_pass`` / ``bfcl_error``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..suite import ParamScoring
from .trace import GradeResult

__all__ = [
    "FailureMode",
    "FAILURE_MODES",
    "ParamProblem",
    "ParamScore",
    "CallScore",
    "TurnScore",
    "ExpectationResult",
    "CaseScore",
    "SCORE_COLUMNS",
]

#: why a case failed, the first that applies in this order
FailureMode = Literal[
    "api_error",
    "parse_error",
    "no_call",
    "spurious_call",
    "wrong_tool",
    "missing_call",
    "missing_required_arg",
    "hallucinated_arg",
    "wrong_type",
    "wrong_value",
    "extra_call",
    "expectation_failed",
    "grader_failed",
]
FAILURE_MODES: tuple[str, ...] = FailureMode.__args__  # type: ignore[attr-defined]

ParamProblem = Literal["missing", "wrong_type", "wrong_value"]


class ParamScore(BaseModel):
    """One expected parameter of one expected call."""

    model_config = ConfigDict(frozen=True)

    name: str
    #: acceptable values ("" among them: the parameter may be left out)
    expected: list[Any]
    actual: Any = None
    present: bool
    correct: bool
    mode: ParamScoring = "exact"
    problem: ParamProblem | None = None


class CallScore(BaseModel):
    """One expected call and the model call paired with it (None when nothing was paired)."""

    model_config = ConfigDict(frozen=True)

    index: int
    expected_name: str
    #: every acceptable name (seed ``expected_tool`` lists)
    acceptable_names: list[str] = Field(default_factory=list)
    actual_index: int | None = None
    actual_name: str | None = None
    tool_score: float
    param_score: float | None
    overall: float
    params: list[ParamScore] = Field(default_factory=list)
    #: arguments the model gave that the tool's schema does not have
    hallucinated_args: list[str] = Field(default_factory=list)
    #: arguments the tool's schema requires that the model left out
    missing_required: list[str] = Field(default_factory=list)
    #: the model's arguments were not a JSON object
    parse_error: bool = False


class TurnScore(BaseModel):
    """One call of a multi-turn chain."""

    model_config = ConfigDict(frozen=True)

    index: int
    name: str
    arguments: dict[str, Any] | None = None
    role: Literal["final", "prerequisite", "detour"]
    #: same name and arguments as the call just before it
    redundant: bool = False


class ExpectationResult(BaseModel):
    """One seed-002 expectation (or a trajectory match) checked against the trace."""

    model_config = ConfigDict(frozen=True)

    name: str
    passed: bool
    expected: Any = None
    actual: Any = None
    reason: str = ""


class CaseScore(BaseModel):
    """Every score of one case (see the module docstring)."""

    case_id: str | None = None
    case_name: str | None = None
    category: str | None = None

    tool_score: float
    param_score: float | None = None
    overall: float
    passed: bool
    failure_mode: FailureMode | None = None
    bfcl_pass: bool | None = None
    bfcl_error: str | None = None

    calls: list[CallScore] = Field(default_factory=list)
    #: names of expected calls no model call was paired with (or paired with a wrong tool)
    missing_calls: list[str] = Field(default_factory=list)
    #: names of model calls beyond the expected ones
    extra_calls: list[str] = Field(default_factory=list)
    n_calls: int = 0

    multi_turn: bool = False
    completion: float | None = None
    efficiency: float | None = None
    redundancy_penalty: float | None = None
    detour_penalty: float | None = None
    n_hops: int = 0
    turns: list[TurnScore] = Field(default_factory=list)

    expectations: list[ExpectationResult] = Field(default_factory=list)
    grades: list[GradeResult] = Field(default_factory=list)
    error: str | None = None
    error_type: str | None = None

    @property
    def expectations_passed(self) -> bool | None:
        """All expectations passed (None when the case has none)."""
        return all(e.passed for e in self.expectations) if self.expectations else None

    def row(self) -> dict[str, Any]:
        """The flat columns of :data:`SCORE_COLUMNS` (for DataFrames)."""
        return {
            "case_id": self.case_id,
            "case_name": self.case_name,
            "category": self.category,
            "tool_score": self.tool_score,
            "param_score": self.param_score,
            "overall": self.overall,
            "passed": self.passed,
            "bfcl_pass": self.bfcl_pass,
            "bfcl_error": self.bfcl_error,
            "failure_mode": self.failure_mode,
            "completion": self.completion,
            "efficiency": self.efficiency,
            "redundancy_penalty": self.redundancy_penalty,
            "detour_penalty": self.detour_penalty,
            "n_hops": self.n_hops,
            "n_calls": self.n_calls,
            "missing_calls": list(self.missing_calls),
            "extra_calls": list(self.extra_calls),
            "expectations_passed": self.expectations_passed,
            "grades_passed": all(g.passed for g in self.grades) if self.grades else None,
            "error": self.error,
            "error_type": self.error_type,
        }


#: the columns of :meth:`CaseScore.row`, in order
SCORE_COLUMNS = [
    "case_id",
    "case_name",
    "category",
    "tool_score",
    "param_score",
    "overall",
    "passed",
    "bfcl_pass",
    "bfcl_error",
    "failure_mode",
    "completion",
    "efficiency",
    "redundancy_penalty",
    "detour_penalty",
    "n_hops",
    "n_calls",
    "missing_calls",
    "extra_calls",
    "expectations_passed",
    "grades_passed",
    "error",
    "error_type",
]
