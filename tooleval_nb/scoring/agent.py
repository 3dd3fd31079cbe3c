"""Agent expectations (seed ``agent-test-cases.md``) and trajectory matching.

Expectations, each checked against a :class:`~tooleval_nb.scoring.trace.Trace`:

* ``tools_called``: every listed tool was called at least once (any order);
* ``tools_not_called``: none of the listed tools was called;
* ``tool_call_order``: the listed tools appear in this order (a subsequence: other calls may sit
  between them);
* ``output_contains`` / ``output_not_contains``: substrings, ignoring case;
* ``output_equals``: the output equals the text (surrounding whitespace ignored);
* ``output_matches``: a regular expression found in the output (time-bounded);
* ``max_steps`` / ``min_steps``: bounds on the trace's steps;
* ``task_completed``: ``trace.status == "success"`` equals the given boolean.

Tool names compare ignoring case, as tool selection does.

Trajectory match (as LangChain agentevals has), comparing the model's calls with the case's
``reference_tools``:

* ``strict``: the same calls in the same order;
* ``unordered``: the same calls in any order (same counts);
* ``subset``: every model call is one of the reference calls (nothing beyond the reference);
* ``superset``: every reference call is among the model calls (extra calls allowed).

Two calls are "the same" when their names match and their arguments match in the arguments mode:
``exact`` (equal), ``ignore`` (names only), ``subset`` (the model's arguments are a subset of
the reference's), ``superset`` (the model's arguments include all of the reference's).
Calls are paired one to one (a maximum bipartite matching), so one model call cannot stand for
two reference calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..suite import ArgsMode, Expectations, ReferenceTool, ScoringConfig, TrajectoryMode
from ..toolcall import ToolCall
from .match import DEFAULT_REGEX_TIMEOUT, regex_search
from .result import ExpectationResult
from .trace import Trace

__all__ = ["check_expectations", "trajectory_match", "args_match", "is_subsequence"]


def is_subsequence(wanted: Sequence[str], names: Sequence[str]) -> bool:
    """Whether ``wanted`` appears in ``names`` in order (ignoring case), gaps allowed."""
    it = iter(n.lower() for n in names)
    return all(any(w.lower() == n for n in it) for w in wanted)


def check_expectations(
    expected: Expectations,
    trace: Trace,
    reference: Sequence[ReferenceTool] | None = None,
    config: ScoringConfig | None = None,
) -> list[ExpectationResult]:
    """Check every expectation that is set; one result per expectation, in the seed's order."""
    names = trace.tool_names
    lowered = {n.lower() for n in names}
    output = trace.output or ""
    out: list[ExpectationResult] = []

    def add(name: str, passed: bool, want: Any, got: Any, reason: str) -> None:
        out.append(
            ExpectationResult(
                name=name, passed=passed, expected=want, actual=got, reason="" if passed else reason
            )
        )

    if expected.tools_called is not None:
        missing = [t for t in expected.tools_called if t.lower() not in lowered]
        add(
            "tools_called",
            not missing,
            expected.tools_called,
            names,
            f"not called: {', '.join(missing)}",
        )
    if expected.tools_not_called is not None:
        called = [t for t in expected.tools_not_called if t.lower() in lowered]
        add(
            "tools_not_called",
            not called,
            expected.tools_not_called,
            names,
            f"called although forbidden: {', '.join(called)}",
        )
    if expected.tool_call_order is not None:
        add(
            "tool_call_order",
            is_subsequence(expected.tool_call_order, names),
            expected.tool_call_order,
            names,
            "the tools were not called in this order",
        )
    if expected.output_contains is not None:
        low = output.lower()
        absent = [s for s in expected.output_contains if s.lower() not in low]
        add(
            "output_contains",
            not absent,
            expected.output_contains,
            output,
            f"output lacks: {', '.join(repr(s) for s in absent)}",
        )
    if expected.output_not_contains is not None:
        low = output.lower()
        present = [s for s in expected.output_not_contains if s.lower() in low]
        add(
            "output_not_contains",
            not present,
            expected.output_not_contains,
            output,
            f"output contains: {', '.join(repr(s) for s in present)}",
        )
    if expected.output_equals is not None:
        add(
            "output_equals",
            output.strip() == expected.output_equals.strip(),
            expected.output_equals,
            output,
            "output differs",
        )
    if expected.output_matches is not None:
        timeout = config.regex_timeout if config and config.regex_timeout else DEFAULT_REGEX_TIMEOUT
        add(
            "output_matches",
            regex_search(expected.output_matches, output, timeout),
            expected.output_matches,
            output,
            "output does not match the pattern",
        )
    if expected.max_steps is not None:
        add(
            "max_steps",
            trace.steps <= expected.max_steps,
            expected.max_steps,
            trace.steps,
            f"{trace.steps} steps > {expected.max_steps}",
        )
    if expected.min_steps is not None:
        add(
            "min_steps",
            trace.steps >= expected.min_steps,
            expected.min_steps,
            trace.steps,
            f"{trace.steps} steps < {expected.min_steps}",
        )
    if expected.task_completed is not None:
        done = trace.status == "success"
        add(
            "task_completed",
            done == expected.task_completed,
            expected.task_completed,
            trace.status,
            f"status is {trace.status!r}",
        )
    if expected.trajectory_match is not None:
        ref = list(reference or [])
        ok = trajectory_match(
            trace.tool_calls, ref, expected.trajectory_match, expected.trajectory_args
        )
        add(
            f"trajectory_{expected.trajectory_match}",
            ok,
            [{"name": r.name, "args": r.args} for r in ref],
            names,
            f"the calls do not match the reference trajectory ({expected.trajectory_match}, "
            f"arguments {expected.trajectory_args})",
        )
    return out


def args_match(actual: dict[str, Any] | None, reference: dict[str, Any], mode: ArgsMode) -> bool:
    """Whether a call's arguments match the reference's in ``mode``."""
    if mode == "ignore":
        return True
    if actual is None:
        return False
    if mode == "exact":
        return actual == reference
    if mode == "subset":
        return all(k in reference and reference[k] == v for k, v in actual.items())
    return all(k in actual and actual[k] == v for k, v in reference.items())  # superset


def _same(call: ToolCall, ref: ReferenceTool, mode: ArgsMode) -> bool:
    return call.function.name.lower() == ref.name.lower() and args_match(
        call.parsed_arguments(), ref.args, mode
    )


def _max_matching(edges: list[list[int]], n_right: int) -> int:
    """Size of a maximum bipartite matching (augmenting paths); ``edges[left] = [right...]``."""
    match_right = [-1] * n_right

    def augment(u: int, seen: list[bool]) -> bool:
        for v in edges[u]:
            if not seen[v]:
                seen[v] = True
                if match_right[v] == -1 or augment(match_right[v], seen):
                    match_right[v] = u
                    return True
        return False

    return sum(augment(u, [False] * n_right) for u in range(len(edges)))


def trajectory_match(
    calls: Sequence[ToolCall],
    reference: Sequence[ReferenceTool],
    mode: TrajectoryMode = "strict",
    args: ArgsMode = "exact",
) -> bool:
    """Whether the model's calls match the reference trajectory (see the module docstring)."""
    if mode == "strict":
        return len(calls) == len(reference) and all(
            _same(c, r, args) for c, r in zip(calls, reference, strict=True)
        )
    edges = [[j for j, r in enumerate(reference) if _same(c, r, args)] for c in calls]
    matched = _max_matching(edges, len(reference))
    if mode == "unordered":
        return len(calls) == len(reference) and matched == len(calls)
    if mode == "subset":
        return matched == len(calls)
    return matched == len(reference)  # superset
