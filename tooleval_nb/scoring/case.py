"""``score_case``: every score of one case from the model's calls (and output, and trace).

A case is scored as one of four kinds:

* a **call case** (``expected_tool`` or ``expected_calls`` set): expected calls paired with the
  model's calls (:mod:`.calls`), seed tool / parameter / overall scores;
* a **no-call case** (nothing expected, no agent expectations): tool score 1 only when nothing
  was called;
* a **chain** (``multi_turn``): :mod:`.multiturn`;
* an **agent case** (nothing expected but an ``expected`` block, ``reference_tools`` or graders):
  the score is the fraction of expectations and graders that passed.

On top of any kind: the seed-002 expectations (:mod:`.agent`), graders (:mod:`.graders`), and
the BFCL verdict (:mod:`.bfcl`): for cases with a BFCL ``category`` with BFCL's rules, and for
ordinary call cases whose values are compared exactly (``exact`` / ``case_insensitive``) and whose
tools are known, as ``simple`` / ``multiple`` / ``parallel``; ordinary no-call cases as
``irrelevance``.

``passed`` is true when ``failure_mode`` is None: the first of (in order) ``api_error``,
``parse_error``, ``no_call``, ``spurious_call``, ``wrong_tool``, ``missing_call``,
``missing_required_arg``, ``hallucinated_arg`` (only when the tool's schema is known),
``wrong_type``, ``wrong_value``, ``extra_call``, ``expectation_failed``, ``grader_failed``. A chain
passes when its final call is fully right (its overall carries the efficiency penalties).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..bfcl_rules.adapt import tools_to_functions
from ..bfcl_rules.categories import is_relevance as is_relevance_category
from ..bfcl_rules.checker import BfclVerdict, bfcl_verdict, decoded_verdict
from ..errors import RegexTimeoutError
from ..memo import IdentityMemo
from ..suite import EvalCase, Tool
from ..toolcall import ToolCall, to_tool_calls
from .agent import check_expectations
from .calls import compute_overall, score_calls
from .graders import CallModel, run_graders, run_graders_async
from .kind import CaseKind, case_kind
from .multiturn import score_chain
from .result import CallScore, CaseScore, ExpectationResult
from .trace import GradeResult, Trace

__all__ = ["score_case", "score_case_async", "make_trace"]

_BFCL_MODES = {"exact", "case_insensitive"}


def make_trace(
    case: EvalCase, calls: Sequence[ToolCall], output: str | None, error: str | None = None
) -> Trace:
    """The trace of a single-answer run (what graders and expectations see)."""
    return Trace(
        input=case.prompt_text,
        output=output or "",
        tool_calls=list(calls),
        status="error" if error else "success",
        error=error,
    )


def score_case(
    case: EvalCase,
    tool_calls: Any = None,
    output: str | None = None,
    *,
    tools: Sequence[Tool] | None = None,
    trace: Trace | None = None,
    error: str | None = None,
    error_type: str | None = None,
    grade: bool = True,
    call: CallModel | None = None,
    base_dir: str | Path | None = None,
    code_graders: bool = True,
) -> CaseScore:
    """Score one case.

    Args:
        case: the case.
        tool_calls: the model's calls in order (every call of the chain for multi-turn cases), as
            ``ToolCall`` objects or OpenAI-shaped dicts; None takes ``trace.tool_calls``.
        output: the model's final text (for output expectations and graders).
        tools: the tools offered (default: the case's own); used for schema checks (hallucinated
            arguments, types) and BFCL verdicts.
        trace: the full trace when the runner has one (agent cases).
        error: the model call failed (its message): the case fails with ``api_error``.
        error_type: the error's class name, with ``error``.
        grade: run the case's graders (LLM graders call a model).
        call: replaces :func:`tooleval_nb.models.call_model_async` for LLM graders.
        base_dir: where relative code-grader modules are found (the suite's folder).
        code_graders: False refuses the case's code graders (graded as refused, nothing run).

    Returns:
        The case's :class:`CaseScore` (tool, parameter and overall scores, ``passed`` and the
        ``failure_mode``, each expected call's pairing and parameters, the chain's parts, the
        expectations' and graders' results).

    Raises:
        RegexTimeoutError: a ``regex`` expectation ran past its time bound (names the case).
        ScoringError: an invalid scoring configuration (unknown mode, invalid regex).
    """
    fields, get_trace, kind = _score(case, tool_calls, output, tools, trace, error, error_type)
    grades = (
        run_graders(case, get_trace(), call=call, base_dir=base_dir, code_graders=code_graders)
        if (grade and case.graders)
        else []
    )
    return _finish(fields, grades, kind)


async def score_case_async(
    case: EvalCase,
    tool_calls: Any = None,
    output: str | None = None,
    *,
    tools: Sequence[Tool] | None = None,
    trace: Trace | None = None,
    error: str | None = None,
    error_type: str | None = None,
    grade: bool = True,
    call: CallModel | None = None,
    base_dir: str | Path | None = None,
    code_graders: bool = True,
) -> CaseScore:
    """The async twin of :func:`score_case` (LLM graders are awaited, concurrently)."""
    fields, get_trace, kind = _score(case, tool_calls, output, tools, trace, error, error_type)
    grades = (
        await run_graders_async(
            case, get_trace(), call=call, base_dir=base_dir, code_graders=code_graders
        )
        if (grade and case.graders)
        else []
    )
    return _finish(fields, grades, kind)


# -- core --------------------------------------------------------------------------------------
def _score(
    case: EvalCase,
    tool_calls: Any,
    output: str | None,
    tools: Sequence[Tool] | None,
    trace: Trace | None,
    error: str | None,
    error_type: str | None,
) -> tuple[dict[str, Any], Callable[[], Trace], CaseKind]:
    """The score's fields but the grades' (:func:`_finish` makes the :class:`CaseScore`), the
    trace (made when first asked for: a call case without expectations or graders never looks
    at it) and the case's kind."""
    calls = (
        to_tool_calls(tool_calls)
        if tool_calls is not None
        else (list(trace.tool_calls) if trace is not None else [])
    )
    if output is None and trace is not None:
        output = trace.output

    def the_trace() -> Trace:  # made once, when first asked for
        nonlocal trace
        if trace is None:
            trace = make_trace(case, calls, output, error)
        return trace

    tools = list(tools) if tools is not None else list(case.tools or [])
    kind = case_kind(case)
    try:
        fields = _score_calls(case, kind, calls, output, tools, the_trace, error, error_type)
    except RegexTimeoutError as exc:
        raise RegexTimeoutError(f"case {case.label!r}: {exc}") from None
    return fields, the_trace, kind


def _score_calls(
    case: EvalCase,
    kind: CaseKind,
    calls: list[ToolCall],
    output: str | None,
    tools: list[Tool],
    trace: Callable[[], Trace],
    error: str | None,
    error_type: str | None,
) -> dict[str, Any]:
    cfg = case.scoring_config
    mode = cfg.mode if cfg is not None and cfg.mode else case.param_scoring
    fields: dict[str, Any] = {
        "case_id": case.id,
        "case_name": case.name,
        "category": case.category,
        "n_calls": len(calls),
        "error": error,
        "error_type": error_type,
    }
    call_scores: list[CallScore] = []
    #: each call's arguments, decoded once (for pairing and for the failure mode)
    parsed = [c.parsed_arguments() for c in calls]
    if kind == "chain":
        chain = score_chain(case, calls, mode=mode, config=cfg, tools=tools)
        final = chain.final
        fields.update(
            tool_score=final.tool_score if final else 0.0,
            param_score=(
                final.param_score if final else (None if case.expected_params is None else 0.0)
            ),
            overall=chain.overall,
            multi_turn=True,
            completion=chain.completion,
            efficiency=chain.efficiency,
            redundancy_penalty=chain.redundancy_penalty,
            detour_penalty=chain.detour_penalty,
            n_hops=chain.n_hops,
            turns=chain.turns,
        )
        call_scores = [final] if final else []
        if final is None or final.tool_score == 0.0:
            fields["missing_calls"] = case.expected_names()[:1]
    elif kind == "call":
        expected = _expected(case)
        call_scores, extra = score_calls(
            expected, calls, mode=mode, config=cfg, tools=tools, parsed=parsed
        )
        tool_score = sum(c.tool_score for c in call_scores) / len(call_scores)
        scored = [c.param_score for c in call_scores if c.param_score is not None]
        param_score = sum(scored) / len(scored) if scored else None
        fields.update(
            tool_score=tool_score,
            param_score=param_score,
            overall=compute_overall(tool_score, param_score),
            missing_calls=[c.expected_name for c in call_scores if c.tool_score == 0.0],
            extra_calls=[calls[j].function.name for j in extra],
            n_hops=len(calls),
        )
    else:
        tool_score = 1.0 if not calls else 0.0
        fields.update(
            tool_score=tool_score, param_score=None, overall=tool_score, n_hops=len(calls)
        )
        if kind == "no_call":
            fields["extra_calls"] = [c.function.name for c in calls]
    if error:
        fields.update(
            tool_score=0.0,
            overall=0.0,
            param_score=None if fields.get("param_score") is None else 0.0,
        )
    expectations: list[ExpectationResult] = []
    if case.expected is not None:
        expectations = check_expectations(case.expected, trace(), case.reference_tools, cfg)
    fields["calls"] = call_scores
    fields["expectations"] = expectations
    fields["bfcl_pass"], fields["bfcl_error"] = _bfcl(
        case, kind, calls, parsed, output, tools, mode
    )
    fields["passed"] = False  # decided in _finish, with the grades
    fields["failure_mode"] = _failure(kind, calls, call_scores, fields, error, parsed)
    return fields


def _expected(case: EvalCase) -> list[tuple[list[str], dict[str, list[Any]] | None]]:
    if case.expected_calls:
        return [([c.name], dict(c.arguments)) for c in case.expected_calls]
    names = case.expected_names()
    args = (
        None if case.expected_params is None else {k: [v] for k, v in case.expected_params.items()}
    )
    return [(names, args)]


def _failure(
    kind: CaseKind,
    calls: list[ToolCall],
    call_scores: list[CallScore],
    fields: dict[str, Any],
    error: str | None,
    parsed: Sequence[dict[str, Any] | None],
) -> str | None:
    if error:
        return "api_error"
    if any(p is None for p in parsed):
        return "parse_error"
    if kind == "no_call":
        return "spurious_call" if calls else None
    if kind == "agent":
        return None
    if not calls:
        return "no_call"
    if any(c.tool_score == 0.0 for c in call_scores) or not call_scores:
        paired_wrong = any(c.tool_score == 0.0 and c.actual_index is not None for c in call_scores)
        return (
            "wrong_tool"
            if paired_wrong or fields.get("extra_calls") or kind == "chain"
            else "missing_call"
        )
    problems = [p.problem for c in call_scores for p in c.params if p.problem]
    if "missing" in problems or any(c.missing_required for c in call_scores):
        return "missing_required_arg"
    if any(c.hallucinated_args for c in call_scores):
        return "hallucinated_arg"
    if "wrong_type" in problems:
        return "wrong_type"
    if "wrong_value" in problems:
        return "wrong_value"
    if kind == "call" and fields.get("extra_calls"):
        return "extra_call"
    return None


def _finish(fields: dict[str, Any], grades: list[GradeResult], kind: CaseKind) -> CaseScore:
    """The case's score: its fields (:func:`_score_calls`) with the grades' verdict, made once."""
    expectations: list[ExpectationResult] = fields["expectations"]
    failure = fields["failure_mode"]
    if failure is None and any(not e.passed for e in expectations):
        failure = "expectation_failed"
    if failure is None and any(not g.passed for g in grades):
        failure = "grader_failed"
    fields.update(grades=grades, failure_mode=failure, passed=failure is None)
    if kind == "agent":
        checks = [e.passed for e in expectations] + [g.passed for g in grades]
        value = 0.0 if fields["error"] else (sum(checks) / len(checks) if checks else 1.0)
        fields.update(tool_score=value, overall=value)
    return CaseScore(**fields)


# -- BFCL verdict ------------------------------------------------------------------------------
def _bfcl(
    case: EvalCase,
    kind: CaseKind,
    calls: list[ToolCall],
    parsed: Sequence[dict[str, Any] | None],
    output: str | None,
    tools: list[Tool],
    mode: str,
) -> tuple[bool | None, str | None]:
    if case.category:
        cat = case.category
        if "multi_turn" in cat or not tools:
            return None, None
        truth = case.expected_calls or None
        if truth is None and not is_relevance_category(cat):
            return None, None
        if calls:
            v = _verdict(calls, parsed, tools, truth, cat)
        else:
            v = bfcl_verdict(
                [output] if output and output.strip() else [], functions_of(tools), truth, cat
            )
        return v.passed, v.error_type
    if kind == "no_call":
        if not tools:
            return None, None
        v = _verdict(calls, parsed, tools, None, "irrelevance")
        return v.passed, v.error_type
    if kind != "call" or not tools or case.expected_params is None and not case.expected_calls:
        return None, None
    cfg = case.scoring_config
    modes = {mode, *((cfg.param_modes or {}).values() if cfg is not None else ())}
    if not modes <= _BFCL_MODES:
        return None, None
    by_name = {t.name.lower(): t for t in tools}
    if case.expected_calls:
        alternatives = [[(c.name, dict(c.arguments)) for c in case.expected_calls]]
    else:
        args = {k: [v] for k, v in (case.expected_params or {}).items()}
        alternatives = [[(n, args)] for n in case.expected_names()]
    first: tuple[bool | None, str | None] = (None, None)
    for alt in alternatives:
        if any(n.lower() not in by_name for n, _ in alt):
            continue
        gt = [{by_name[n.lower()].name: a} for n, a in alt]
        cat = "parallel" if len(alt) > 1 else ("simple" if len(tools) == 1 else "multiple")
        v = _verdict(calls, parsed, tools, gt, cat)
        if v.passed:
            return True, None
        if first == (None, None):
            first = (False, v.error_type)
    return first


def _verdict(
    calls: list[ToolCall],
    parsed: Sequence[dict[str, Any] | None],
    tools: list[Tool],
    truth: Any,
    category: str,
) -> BfclVerdict:
    """:func:`bfcl_verdict` of the model's calls, from their arguments as decoded for scoring
    when every one is a JSON object (else the checker decodes them, and says which is not)."""
    if any(p is None for p in parsed):
        return bfcl_verdict(calls, functions_of(tools), truth, category)
    decoded = [{c.function.name: p} for c, p in zip(calls, parsed, strict=True)]
    return decoded_verdict(decoded, functions_of(tools), truth, category)


def _functions(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    return tools_to_functions(list(tools))


#: the gorilla function dicts of a tools list (what :func:`bfcl_verdict` checks against),
#: memoised by the identity of the Tool objects: a run scores thousands of cases against the
#: same few tools (which are not changed once handed to a run, as the request side assumes:
#: :func:`tooleval_nb.models.wire._tool_parts`)
functions_of: IdentityMemo[list[dict[str, Any]]] = IdentityMemo(_functions)
