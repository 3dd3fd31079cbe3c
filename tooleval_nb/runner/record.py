"""One finished case as a row: the columns of ``Run.results_df()`` and how a case fills them.

``RESULT_COLUMNS`` (one row per case × model × sample), in order:

=====================  ==========================================================================
run_id                 the run
model                  the target's label (its model string, made unique when a run has twins)
mode                   native | hermes | pythonic (how tools were offered)
case_id, case_name     the case's id and name
category, tags         BFCL category (or None); the case's tags (a list)
prompt                 the case prompt (or the last user message of ``messages``)
expected               JSON text: expected_tool / expected_params / expected_calls / expected
tool_calls             JSON text: every call the model made (OpenAI shape), in order, all hops
content                the model's final text
tool_score ...         the scores of :func:`tooleval_nb.scoring.score_case` (``tool_score``,
                       ``param_score``, ``overall``, ``passed``, ``bfcl_pass``, ``bfcl_error``,
                       ``failure_mode``, ``completion``, ``efficiency``, ``redundancy_penalty``,
                       ``detour_penalty``)
n_hops                 model calls made for the case (1 for a single-turn case)
error, error_type      the error that remained after retries (None when the case ran)
latency_ms             summed over hops
prompt_tokens, completion_tokens, cost   summed over hops (cost None when unknown)
tries                  model requests made, retries included
fallback               tool_choice ``required`` fell back to ``auto``
cached                 every hop came from the response cache
sample, seed           the repeat index and the sampling seed (None when not seeded)
=====================  ==========================================================================
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict, cast

from ..jsontext import dumps as _dumps
from ..scoring.summary import SCORE_SUMMARY_COLUMNS
from ..suite import EvalCase
from ..toolcall import ToolCall

if TYPE_CHECKING:  # pragma: no cover
    from ..scoring.result import CaseScore

__all__ = [
    "RESULT_COLUMNS",
    "SUMMARY_COLUMNS",
    "RESULT_FIELDS",
    "CaseOutcome",
    "Hop",
    "ResultRow",
    "build_record",
    "expected_json",
    "calls_json",
    "tags_json",
]

RESULT_COLUMNS: tuple[str, ...] = (
    "run_id",
    "model",
    "mode",
    "case_id",
    "case_name",
    "category",
    "tags",
    "prompt",
    "expected",
    "tool_calls",
    "content",
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
    "error",
    "error_type",
    "latency_ms",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "tries",
    "fallback",
    "cached",
    "sample",
    "seed",
)

#: ``Run.summary_df()``: one row per model: who, then scoring's own summary columns
#: (:func:`tooleval_nb.scoring.summarize_scores`, the one per-model summary: ``n_cases`` counts
#: case × sample rows, ``n_cases = n_passed + n_failed + n_errored``, ``n_errored`` rows whose
#: model call failed after retries, scoring 0 in the means; ``pass_rate = n_passed / n_cases``;
#: ``param_score`` over the rows that score parameters), then the run's facts: latency
#: percentiles over every row, tokens and cost as sums, ``fallback_count`` rows where
#: tool_choice fell back to ``auto``.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "run_id",
    "model",
    "mode",
    *SCORE_SUMMARY_COLUMNS,
    "latency_p50_ms",
    "latency_p95_ms",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "fallback_count",
)

#: stored beside the columns: order keys, time, and the full detail (scores, hops, raw replies)
RESULT_FIELDS: tuple[str, ...] = RESULT_COLUMNS + (
    "model_index",
    "case_index",
    "finished_at",
    "detail",
)


class ResultRow(NamedTuple):
    """One result row: a case × model × sample, as built from a scored cell
    (:func:`build_record`), stored, and read back (the columns of :data:`RESULT_FIELDS`, in
    order; documented in the module docstring). ``detail`` is None when read without it."""

    run_id: str
    model: str
    mode: str
    case_id: str
    case_name: str | None
    category: str | None
    tags: str | None
    prompt: str | None
    expected: str | None
    tool_calls: str | None
    content: str | None
    tool_score: float | None
    param_score: float | None
    overall: float | None
    passed: int | None
    bfcl_pass: int | None
    bfcl_error: str | None
    failure_mode: str | None
    completion: float | None
    efficiency: float | None
    redundancy_penalty: float | None
    detour_penalty: float | None
    n_hops: int | None
    error: str | None
    error_type: str | None
    latency_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cost: float | None
    tries: int | None
    fallback: int | None
    cached: int | None
    sample: int
    seed: int | None
    model_index: int | None
    case_index: int | None
    finished_at: float | None
    detail: str | None


class Hop(TypedDict, total=False):
    """One model call of a case, as the outcome keeps it and its row's ``detail.hops`` stores
    it (:func:`tooleval_nb.runner.chains.add_hop` builds it; keys that do not apply are
    absent, not None). A dict on the wire and in SQLite, typed here."""

    #: the loop's round (0 for a single call)
    round: int
    #: the calls the model made (OpenAI shape), its text, and usage
    tool_calls: list[dict[str, Any]]
    content: str | None
    latency_ms: float
    prompt_tokens: int | None
    completion_tokens: int | None
    tries: int
    fallback: bool
    cached: bool
    #: raw-text modes: the text parsed, when it differs from ``content``
    raw_text: str
    #: what a raw-text parser kept apart from the content (``<think>``, analysis)
    reasoning_content: str
    parse_problems: list[str]
    #: the model call's error after retries
    error: str
    error_type: str | None
    #: the provider's raw reply, when kept
    raw: Any
    #: a chain's or agent loop's answers to the hop's calls
    tool_results: list[Any]
    #: the Ray replica that served the cell (``executor="ray"``)
    replica: str
    #: a user's agent callable: its one hop holds its trace's steps and status
    agent: bool
    steps: Any
    status: str
    #: a benchmark whose case holds a conversation of two models (τ²-bench): whose call this
    #: was (``agent`` or ``user``)
    role: str
    #: BFCL's multi-turn loop (:mod:`tooleval_nb.bfcl.loop`): the turn and step, the turn's
    #: query, BFCL's reading of the reply, its decoding and the environment's results
    turn: int
    step: int
    turn_query: Any
    bfcl_result: Any
    decode_error: str
    decoded: Any
    execution_results: Any
    force_quit: bool


@dataclass(slots=True)
class CaseOutcome:
    """What running one case produced, before scoring."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    content: str | None = None
    hops: list[Hop] = field(default_factory=list)
    latency_ms: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    tries: int = 0
    fallback: bool = False
    cached: bool = False
    error: str | None = None
    error_type: str | None = None
    parse_problems: list[str] = field(default_factory=list)
    trace: Any = None
    #: the case's verdict from its hook's own checker, ``(overall, passed)`` (τ²: tau2's
    #: reward, and whether tau2 counts it a success), which the stored row's ``overall``,
    #: ``tool_score`` and ``passed`` take instead of our scoring's; None: our scoring's
    verdict: tuple[float, bool] | None = None

    def add_usage(self, reply: Any) -> None:
        """Sum one model reply's latency, tokens, cost and tries into the outcome."""
        self.latency_ms += float(getattr(reply, "latency_ms", 0.0) or 0.0)
        self.prompt_tokens = _add(self.prompt_tokens, getattr(reply, "prompt_tokens", None))
        self.completion_tokens = _add(
            self.completion_tokens, getattr(reply, "completion_tokens", None)
        )
        self.cost = _add(self.cost, getattr(reply, "cost", None))
        self.tries += int(getattr(reply, "tries", 0) or 0)
        self.fallback = self.fallback or bool(getattr(reply, "fallback", False))
        self.parse_problems.extend(getattr(reply, "parse_problems", None) or [])


def _add(total: Any, value: Any) -> Any:
    if value is None:
        return total
    return value if total is None else total + value


def expected_json(case: EvalCase) -> str:
    """The case's expectations as compact JSON text (fields that are set only)."""
    data: dict[str, Any] = {}
    if case.expected_tool is not None:
        data["expected_tool"] = case.expected_tool
    if case.expected_params is not None:
        data["expected_params"] = case.expected_params
    if case.expected_calls:
        data["expected_calls"] = [c.model_dump(mode="json") for c in case.expected_calls]
    if case.expected is not None:
        data["expected"] = case.expected.model_dump(mode="json", exclude_none=True)
    if case.multi_turn:
        data["multi_turn"] = True
    return _dumps(data)


def tags_json(case: EvalCase) -> str:
    """The case's tags as JSON text (``[]`` for none, the usual case, without encoding)."""
    return _dumps(case.tags) if case.tags else "[]"


def calls_json(calls: list[ToolCall]) -> str:
    """Tool calls as JSON text in OpenAI shape (arguments kept as the model wrote them)."""
    return _dumps(
        [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments},
            }
            for c in calls
        ]
    )


def build_record(
    *,
    run_id: str,
    label: str,
    mode: str,
    model_index: int,
    case: EvalCase,
    case_index: int,
    sample: int,
    seed: int | None,
    outcome: CaseOutcome,
    score: CaseScore | None,
    expected: str | None = None,
    tags: str | None = None,
) -> ResultRow:
    """The stored row of one finished case.

    ``score`` is the case's :class:`tooleval_nb.scoring.CaseScore`, which holds its failure mode
    (``api_error`` for a model call that failed after retries: the scorer decides it), or None
    for a case whose scoring raised (the outcome's error says why): then the scores are 0,
    ``passed`` is False and there is no failure mode (no scorer judged the case).
    ``expected`` and ``tags`` are the case's JSON text when the caller has it already
    (computed here otherwise).
    """
    if score is None:
        tool_score, param_score, overall, passed = 0.0, None, 0.0, 0
        bfcl_pass = bfcl_error = failure_mode = None
        completion = efficiency = redundancy_penalty = detour_penalty = None
        score_json = "null"
    else:
        tool_score, param_score, overall = score.tool_score, score.param_score, score.overall
        passed = int(bool(score.passed))
        bfcl_pass = None if score.bfcl_pass is None else int(bool(score.bfcl_pass))
        bfcl_error, failure_mode = score.bfcl_error, score.failure_mode
        completion, efficiency = score.completion, score.efficiency
        redundancy_penalty, detour_penalty = score.redundancy_penalty, score.detour_penalty
        score_json = score.model_dump_json()
    detail: dict[str, Any] = {"hops": outcome.hops}
    if outcome.parse_problems:
        detail["parse_problems"] = outcome.parse_problems
    extra = ""
    if outcome.trace is not None:
        extra = f',"trace":{_json_of(outcome.trace)}'
    detail_json = f'{{"score":{score_json}{extra},' + _dumps(detail)[1:]
    return ResultRow(
        run_id,
        label,
        mode,
        cast("str", case.id),  # a suite gives each of its cases an id
        case.name,
        case.category,
        tags if tags is not None else tags_json(case),
        case.prompt_text,
        expected if expected is not None else expected_json(case),
        calls_json(outcome.tool_calls),
        outcome.content,
        tool_score,
        param_score,
        overall,
        passed,
        bfcl_pass,
        bfcl_error,
        failure_mode,
        completion,
        efficiency,
        redundancy_penalty,
        detour_penalty,
        len(outcome.hops),
        outcome.error,
        outcome.error_type,
        round(outcome.latency_ms, 3),
        outcome.prompt_tokens,
        outcome.completion_tokens,
        outcome.cost,
        outcome.tries,
        int(outcome.fallback),
        int(outcome.cached),
        sample,
        seed,
        model_index,
        case_index,
        time.time(),
        detail_json,
    )


def _json_of(obj: Any) -> str:
    if hasattr(obj, "model_dump_json"):
        return str(obj.model_dump_json())
    return _dumps(obj)
