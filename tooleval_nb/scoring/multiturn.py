"""Multi-turn (tool chain) scoring, as the seed defines it.

For a chain of calls ending (hopefully) in the expected final call:

* completion: the weighted tool + parameter score (0.6 / 0.4) of the final expected call: the
  last call to an acceptable final tool, else the last call made (tool score 0); 0 with no calls;
* efficiency: ``optimal_hops / actual_hops`` capped at 1 (1 when ``optimal_hops`` is not set and
  the model made at least one call; 0 with no calls);
* redundancy penalty: 0.1 per call identical (name and arguments) to the call just before it;
* detour penalty: 0.1 per call whose tool is neither a valid prerequisite nor the final tool
  (no penalty when ``valid_prerequisites`` is not set);
* overall: ``completion * efficiency - redundancy - detour``, clamped to [0, 1].
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..suite import EvalCase, ParamScoring, ScoringConfig, Tool
from ..toolcall import ToolCall
from .calls import compute_overall, param_scores
from .result import CallScore, TurnScore

__all__ = [
    "PENALTY_PER_CALL",
    "MultiTurnScore",
    "efficiency",
    "redundancy_penalty",
    "detour_penalty",
    "multi_turn_overall",
    "score_chain",
]

PENALTY_PER_CALL = 0.1


@dataclass(slots=True)
class MultiTurnScore:
    """The parts of a chain's score (see the module docstring)."""

    completion: float
    efficiency: float
    redundancy_penalty: float
    detour_penalty: float
    overall: float
    n_hops: int
    final: CallScore | None
    turns: list[TurnScore] = field(default_factory=list)


def efficiency(optimal_hops: int | None, actual_hops: int) -> float:
    """``optimal / actual`` capped at 1; 1 when optimal is unknown; 0 when nothing was called."""
    if actual_hops <= 0:
        return 0.0
    if optimal_hops is None:
        return 1.0
    return min(1.0, optimal_hops / actual_hops)


def _key(call: ToolCall) -> tuple[str, str]:
    args = call.parsed_arguments()
    text = json.dumps(args, sort_keys=True) if args is not None else call.function.arguments
    return call.function.name.lower(), text


def _redundant(calls: Sequence[ToolCall]) -> list[bool]:
    keys = [_key(c) for c in calls]
    return [i > 0 and keys[i] == keys[i - 1] for i in range(len(keys))]


def redundancy_penalty(calls: Sequence[ToolCall]) -> float:
    """0.1 per call identical to the call just before it."""
    return PENALTY_PER_CALL * sum(_redundant(calls))


def _detours(
    calls: Sequence[ToolCall], valid: Sequence[str] | None, final_names: Sequence[str]
) -> list[bool]:
    if valid is None:
        return [False] * len(calls)
    allowed = {v.lower() for v in valid} | {f.lower() for f in final_names}
    return [c.function.name.lower() not in allowed for c in calls]


def detour_penalty(
    calls: Sequence[ToolCall], valid_prerequisites: Sequence[str] | None, final_names: Sequence[str]
) -> float:
    """0.1 per call outside the valid prerequisites and the final tool (0 when not set)."""
    return PENALTY_PER_CALL * sum(_detours(calls, valid_prerequisites, final_names))


def multi_turn_overall(
    completion: float, efficiency: float, redundancy: float, detour: float
) -> float:
    """``completion * efficiency - redundancy - detour`` clamped to [0, 1]."""
    return min(1.0, max(0.0, completion * efficiency - redundancy - detour))


def score_chain(
    case: EvalCase,
    calls: Sequence[ToolCall],
    *,
    mode: ParamScoring = "exact",
    config: ScoringConfig | None = None,
    tools: Sequence[Tool] | None = None,
) -> MultiTurnScore:
    """Score the ordered calls of a multi-turn case (every call over the chain)."""
    final_names = case.expected_names()
    wanted = {n.lower() for n in final_names}
    final_index = None
    for i in range(len(calls) - 1, -1, -1):
        if calls[i].function.name.lower() in wanted:
            final_index = i
            break
    if final_index is None and calls:
        final_index = len(calls) - 1
    final: CallScore | None = None
    completion = 0.0
    if final_index is not None and final_names:
        call = calls[final_index]
        tool_score = 1.0 if call.function.name.lower() in wanted else 0.0
        parsed = call.parsed_arguments()
        pscores = []
        ps = None
        if case.expected_params is not None:
            schema = next((t.properties for t in tools or [] if t.name.lower() in wanted), None)
            pscores = param_scores(
                {k: [v] for k, v in case.expected_params.items()},
                parsed or {},
                mode,
                config,
                schema,
            )
            ps = sum(1 for p in pscores if p.correct) / len(pscores) if pscores else 1.0
        completion = compute_overall(tool_score, ps)
        final = CallScore(
            index=0,
            expected_name=final_names[0],
            acceptable_names=final_names,
            actual_index=final_index,
            actual_name=call.function.name,
            tool_score=tool_score,
            param_score=ps,
            overall=completion,
            params=pscores,
            parse_error=parsed is None,
        )
    eff = efficiency(case.optimal_hops, len(calls))
    redundant = _redundant(calls)
    detours = _detours(calls, case.valid_prerequisites, final_names)
    red = PENALTY_PER_CALL * sum(redundant)
    det = PENALTY_PER_CALL * sum(detours)
    turns = []
    for i, c in enumerate(calls):
        role: Literal["final", "prerequisite", "detour"] = (
            "final"
            if i == final_index and c.function.name.lower() in wanted
            else "detour"
            if detours[i]
            else "prerequisite"
        )
        args: dict[str, Any] | None = c.parsed_arguments()
        turns.append(
            TurnScore(
                index=i, name=c.function.name, arguments=args, role=role, redundant=redundant[i]
            )
        )
    return MultiTurnScore(
        completion=completion,
        efficiency=eff,
        redundancy_penalty=red,
        detour_penalty=det,
        overall=multi_turn_overall(completion, eff, red, det),
        n_hops=len(calls),
        final=final,
        turns=turns,
    )
