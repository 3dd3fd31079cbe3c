"""Tidy tool calls: every call a run's model made, one row each, and its arguments, one row each.

Built from stored result rows (with their ``detail``: the hops and the full score), pure.

``CALL_COLUMNS`` (:meth:`Run.calls_df`, one row per call made), then one ``arg_<name>`` column
per argument name seen in the run (the value the model gave, None where a call did not give it):

=================  ===============================================================================
run_id, model      the run and the target's label
mode               native | hermes | pythonic
case_id, sample    the case and the repeat index
turn               the model call (hop) that made it, from 0; chains and agent loops have several
position           its place among that hop's calls, from 0
call_index         its place among all the case's calls (what the score's pairing refers to)
call_id            the id the model (or the parser) gave it
tool_name          the tool called, as the model wrote it
arguments          the arguments as a dict (None when they were not a JSON object)
arguments_error    why the arguments could not be read (None when they could)
expected_tool      the expected call it was paired with when scored (None: unpaired, extra)
tool_matched       the paired expected call accepts this tool name
args_matched       every expected argument of the pair is right (None: arguments not scored)
matched            paired, right tool and right arguments: the call the case wanted
=================  ===============================================================================

``ARGUMENT_COLUMNS`` (:meth:`Run.arguments_df`, one row per argument given, plus one per expected
argument the call left out, ``present`` False): the call's keys above (``run_id`` ... ``tool_name``)
then ``argument``, ``value``, ``present``, ``expected`` (the acceptable values, None when the
argument was not expected) and ``correct`` (None when it was not scored).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "CALL_COLUMNS",
    "ARGUMENT_COLUMNS",
    "ARG_PREFIX",
    "call_rows",
    "calls_frame",
    "arguments_frame",
]

CALL_COLUMNS: tuple[str, ...] = (
    "run_id",
    "model",
    "mode",
    "case_id",
    "sample",
    "turn",
    "position",
    "call_index",
    "call_id",
    "tool_name",
    "arguments",
    "arguments_error",
    "expected_tool",
    "tool_matched",
    "args_matched",
    "matched",
)
_KEY_COLUMNS = CALL_COLUMNS[: CALL_COLUMNS.index("tool_name") + 1]
ARGUMENT_COLUMNS: tuple[str, ...] = (
    *_KEY_COLUMNS,
    "argument",
    "value",
    "present",
    "expected",
    "correct",
)
#: the prefix of the per-argument columns of ``calls_df``
ARG_PREFIX = "arg_"


def _arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    if isinstance(raw, Mapping):
        return dict(raw), None
    if raw is None or raw == "":
        return {}, None
    try:
        value = json.loads(raw)
    except (TypeError, ValueError) as exc:
        return None, f"not JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"a JSON {type(value).__name__}, not an object"
    return value, None


def _calls_by_hop(
    row: Mapping[str, Any], detail: Mapping[str, Any]
) -> list[tuple[int | None, int, dict[str, Any]]]:
    """``(turn, position, call)`` of every call, in order; from the hops when they hold exactly
    the row's calls, else from ``tool_calls`` with no turn known (an agent callable's trace)."""
    flat = json.loads(row.get("tool_calls") or "[]")
    hops = detail.get("hops") or []
    by_hop: list[tuple[int | None, int, dict[str, Any]]] = [
        (turn, pos, call)
        for turn, hop in enumerate(hops)
        for pos, call in enumerate(hop.get("tool_calls") or [])
    ]
    if len(by_hop) == len(flat):
        return by_hop
    return [(None, pos, call) for pos, call in enumerate(flat)]


def call_rows(
    rows: Iterable[Mapping[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The call rows and the argument rows of stored result rows (``detail`` included)."""
    calls: list[dict[str, Any]] = []
    arguments: list[dict[str, Any]] = []
    for row in rows:
        detail = json.loads(row.get("detail") or "{}")
        score = detail.get("score") or {}
        paired = {
            c["actual_index"]: c
            for c in score.get("calls") or []
            if c.get("actual_index") is not None
        }
        for index, (turn, position, call) in enumerate(_calls_by_hop(row, detail)):
            function = call.get("function") or {}
            args, problem = _arguments(function.get("arguments"))
            pair = paired.get(index)
            params = {p["name"]: p for p in (pair or {}).get("params") or []}
            args_ok = (
                None
                if pair is None or pair.get("param_score") is None
                else bool(pair["param_score"] >= 1.0)
            )
            tool_ok = bool(pair is not None and pair.get("tool_score", 0.0) >= 1.0)
            out = {
                "run_id": row["run_id"],
                "model": row["model"],
                "mode": row["mode"],
                "case_id": row["case_id"],
                "sample": row["sample"],
                "turn": turn,
                "position": position,
                "call_index": index,
                "call_id": call.get("id"),
                "tool_name": function.get("name"),
                "arguments": args,
                "arguments_error": problem,
                "expected_tool": pair.get("expected_name") if pair else None,
                "tool_matched": tool_ok,
                "args_matched": args_ok,
                "matched": tool_ok and args_ok is not False,
            }
            calls.append(out)
            keys = {k: out[k] for k in _KEY_COLUMNS}
            for name, value in (args or {}).items():
                scored = params.get(name)
                arguments.append(
                    {
                        **keys,
                        "argument": name,
                        "value": value,
                        "present": True,
                        "expected": scored["expected"] if scored else None,
                        "correct": scored["correct"] if scored else None,
                    }
                )
            for name, scored in params.items():
                if name not in (args or {}):
                    arguments.append(
                        {
                            **keys,
                            "argument": name,
                            "value": None,
                            "present": False,
                            "expected": scored["expected"],
                            "correct": scored["correct"],
                        }
                    )
    return calls, arguments


def calls_frame(calls: list[dict[str, Any]]) -> pd.DataFrame:
    """``CALL_COLUMNS`` plus one ``arg_<name>`` column per argument name, in order seen."""
    import pandas as pd

    df = pd.DataFrame.from_records(calls, columns=list(CALL_COLUMNS))
    names = list(dict.fromkeys(k for c in calls for k in (c["arguments"] or {})))
    for name in names:
        df[f"{ARG_PREFIX}{name}"] = [(c["arguments"] or {}).get(name) for c in calls]
    for name in ("call_id", "tool_name", "arguments", "arguments_error", "expected_tool"):
        df[name] = _none_for_missing(df[name])
    df["turn"] = df["turn"].astype("Int64")
    df["args_matched"] = df["args_matched"].astype("boolean")
    for name in ("tool_matched", "matched"):
        df[name] = df[name].astype(bool)
    return df


def _none_for_missing(column: pd.Series) -> pd.Series:
    """An object column with None (not NaN) where a value is missing."""
    return column.astype(object).where(column.notna(), None)


def arguments_frame(arguments: list[dict[str, Any]]) -> pd.DataFrame:
    """``ARGUMENT_COLUMNS``, one row per argument."""
    import pandas as pd

    df = pd.DataFrame.from_records(arguments, columns=list(ARGUMENT_COLUMNS))
    for name in ("call_id", "tool_name", "value", "expected"):
        df[name] = _none_for_missing(df[name])
    df["turn"] = df["turn"].astype("Int64")
    df["present"] = df["present"].astype(bool)
    df["correct"] = df["correct"].astype("boolean")
    return df
