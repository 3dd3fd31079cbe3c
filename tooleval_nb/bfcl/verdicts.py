"""One verdict per BFCL entry, equal to the official checker's, with our partial credit beside it.

The verdict comes from BFCL's ``result`` as written to the result file, through the same path
the official checker takes: the handler's decoding (``fc``: each call's arguments parsed as JSON,
a text reply is a decoding failure; ``prompt``: the text read as a Python call list, or BFCL's
JSON list for ``prompt_format="json"``), then
:func:`tooleval_nb.bfcl_rules.checker.bfcl_verdict` (``underscore_to_dot`` in ``fc`` mode, since
the names were offered with ``_``).

Beside it, the partial credit of :func:`tooleval_nb.scoring.score_calls` on the same decoded
calls: ``tool_score`` (expected calls whose tool was called), ``param_score`` (arguments right,
averaged over the paired calls) and ``call_matches`` (per expected call: paired with a call of
the right tool and every argument right). An entry whose model call failed is a failure
(``error_type="inference_error"``) whatever its category.

Multi-turn and memory entries take the same columns: BFCL's verdict from
:mod:`.multiturn_check` and :mod:`.memory_check`, and beside it the per-turn credit BFCL lacks
(:data:`TURN_COLUMNS`: turns run and passed, the first failing turn and why, the turns passed
when each is replayed from the ground truth's state); ``overall`` is then the share of the
ground truth's turns passed. Their AST credit columns stay empty.

Pure: entries and data in, rows out (multi-turn runs BFCL's environment classes).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..bfcl_rules.categories import (
    is_format_sensitivity,
    is_memory,
    is_multi_turn,
    is_relevance,
    language_of,
)
from ..bfcl_rules.checker import BfclVerdict, bfcl_verdict, format_sensitivity_verdict
from ..bfcl_rules.data import CategoryData
from ..bfcl_rules.decode import DecodeError, decode_result
from ..scoring.calls import compute_overall, score_calls
from ..toolcall import ToolCall
from .memory_check import memory_verdict
from .multiturn_check import multi_turn_verdict
from .results import ERROR_PREFIX, model_dir_name

__all__ = [
    "ENTRY_COLUMNS",
    "VERDICT_COLUMNS",
    "CREDIT_COLUMNS",
    "entry_verdict",
    "decode_json_list",
    "partial_credit",
    "judge",
    "verdict_rows",
    "INFERENCE_ERROR",
    "TURN_COLUMNS",
    "judge_multi_turn",
    "judge_memory",
]

#: the error type of an entry whose model call failed
INFERENCE_ERROR = "inference_error"

#: columns of the per-entry frame (``BfclRun.bfcl_results_df()``), in order:
#: who (model, mode, category, id), BFCL's verdict (passed, error_type, error), what went wrong
#: (errored: the model call failed; decoder_failed: BFCL could not read calls from the reply),
#: our partial credit on the same calls (tool_score, param_score, overall, calls_expected,
#: calls_made, calls_matched, call_matches), then the raw result and its usage.
ENTRY_COLUMNS: tuple[str, ...] = (
    "model",
    "mode",
    "category",
    "id",
    "passed",
    "error_type",
    "error",
    "errored",
    "decoder_failed",
    "tool_score",
    "param_score",
    "overall",
    "calls_expected",
    "calls_made",
    "calls_matched",
    "call_matches",
    "turns_expected",
    "turns_run",
    "turns_passed",
    "first_failed_turn",
    "first_failure",
    "replay_turns_passed",
    "result",
    "latency",
    "input_token_count",
    "output_token_count",
)

_JSON_LIST = re.compile(r"\[\s*{.*?}\s*(?:,\s*{.*?}\s*)*\]", re.DOTALL)
_JSON_REGION = re.compile(r"\[.*\]", re.DOTALL)


def decode_json_list(text: Any) -> list[dict[str, Any]]:
    """BFCL's JSON return format ``[{"function": name, "parameters": {...}}]`` as decoded calls.

    As BFCL reads it: the outermost ``[...]``, then the first list of objects in it; text that
    is not JSON decodes to no call; an element without ``function`` or ``parameters`` fails.
    """
    if not isinstance(text, str):
        raise DecodeError(f"result is a {type(text).__name__}, not text")
    s = text.strip("`\n ")
    if not s.startswith("["):
        s = "[" + s
    if not s.endswith("]"):
        s = s + "]"
    region = _JSON_REGION.search(s)
    if region:
        s = region.group(0)
    match = _JSON_LIST.search(s)
    if match:
        s = match.group(0)
    try:
        items = json.loads(s)
    except ValueError:
        return []
    if isinstance(items, (dict, str)):
        return []  # BFCL iterates over its keys / characters: nothing is a call
    if not isinstance(items, list):
        raise DecodeError(f"a JSON {type(items).__name__} is not a call list")
    out = []
    for item in items:
        if isinstance(item, dict):
            if "function" not in item or "parameters" not in item:
                raise DecodeError("a JSON call needs 'function' and 'parameters'")
            out.append({item["function"]: item["parameters"]})
    return out


def _fc_shape(result: Any) -> Any:
    """What BFCL's function-calling decoder accepts: a call list; ``""`` reads as no call, any
    other text (a reply without tool calls) cannot be decoded."""
    if isinstance(result, str):
        return [] if result == "" else None
    return result


def entry_verdict(
    result: Any,
    question: Mapping[str, Any],
    truth: Sequence[Any] | None,
    category: str,
    mode: str,
    prompt_format: str = "python",
) -> BfclVerdict:
    """BFCL's verdict of one written ``result`` (see the module docstring)."""
    if isinstance(result, str) and result.startswith(ERROR_PREFIX):
        return BfclVerdict(False, INFERENCE_ERROR, (result,))
    functions = question["function"]
    if is_format_sensitivity(category):  # prompt mode only; each entry its own format
        return format_sensitivity_verdict(result, functions, truth or [], str(question["id"]))
    if mode == "fc":
        if isinstance(result, str) and result:  # a text reply: BFCL's FC decoder fails on it
            if "irrelevance" in category:
                return BfclVerdict(True)
            kind = "relevance_error" if is_relevance(category) else "ast_decoder"
            return BfclVerdict(
                False,
                f"{kind}:decoder_failed",
                ("Invalid syntax. Failed to decode AST. The reply is text, not tool calls.",),
            )
        return bfcl_verdict(_fc_shape(result), functions, truth, category, underscore_to_dot=True)
    if prompt_format == "json":
        try:
            decoded: Any = decode_json_list(result)
        except DecodeError:
            decoded = None  # fails BFCL's decoding the same way
        return bfcl_verdict(decoded, functions, truth, category)
    return bfcl_verdict(result if isinstance(result, str) else None, functions, truth, category)


def _decoded_calls(
    result: Any, category: str, mode: str, prompt_format: str, api_names: Mapping[str, str]
) -> list[ToolCall]:
    try:
        if mode == "fc":
            shaped = _fc_shape(result)
            decoded = decode_result(shaped) if shaped is not None else []
        elif prompt_format == "json":
            decoded = decode_json_list(result)
        else:
            lang = "Python" if is_relevance(category) else language_of(category)
            decoded = decode_result(result, lang) if isinstance(result, str) else []
    except DecodeError:
        return []
    calls: list[ToolCall] = []
    for item in decoded:
        if isinstance(item, dict) and len(item) == 1:
            ((name, args),) = item.items()
            if isinstance(args, dict):
                calls.append(
                    ToolCall.create(
                        api_names.get(str(name), str(name)),
                        json.dumps(args, default=str),
                        id=f"call_{len(calls)}",
                    )
                )
    return calls


def partial_credit(
    result: Any,
    question: Mapping[str, Any],
    truth: Sequence[Any] | None,
    category: str,
    mode: str,
    prompt_format: str = "python",
) -> dict[str, Any]:
    """``tool_score, param_score, overall, calls_expected, calls_made, calls_matched,
    call_matches`` of one entry, on the calls BFCL decodes from ``result``."""
    functions = question["function"]
    errored = isinstance(result, str) and result.startswith(ERROR_PREFIX)
    # fc: the names were offered with "_" for "."; prompt: the model wrote the names itself
    api_names = (
        {str(f["name"]).replace(".", "_"): str(f["name"]) for f in functions}
        if mode == "fc"
        else {}
    )
    calls = [] if errored else _decoded_calls(result, category, mode, prompt_format, api_names)
    if is_relevance(category):
        wanted = category == "live_relevance"
        ok = (bool(calls) == wanted) and not errored
        score = 1.0 if ok else 0.0
        return {
            "tool_score": score,
            "param_score": None,
            "overall": score,
            "calls_expected": 1 if wanted else 0,
            "calls_made": len(calls),
            "calls_matched": int(ok and wanted),
            "call_matches": [ok] if wanted else [],
        }
    expected = [([name], dict(args)) for call in truth or [] for name, args in call.items()]
    # without the tools: they name each wrong value's problem (a wrong type or value), which
    # none of these columns shows; right or wrong, and the pairing, never depend on them
    scores, _ = score_calls(expected, calls)
    matches = [
        c.tool_score >= 1.0 and (c.param_score is None or c.param_score >= 1.0) for c in scores
    ]
    tool_score = sum(c.tool_score for c in scores) / len(scores) if scores else 0.0
    given = [c.param_score for c in scores if c.param_score is not None]
    param_score = sum(given) / len(given) if given else None
    return {
        "tool_score": tool_score,
        "param_score": param_score,
        "overall": compute_overall(tool_score, param_score),
        "calls_expected": len(scores),
        "calls_made": len(calls),
        "calls_matched": sum(matches),
        "call_matches": matches,
    }


#: the columns :func:`judge` fills: BFCL's verdict, then our partial credit
VERDICT_COLUMNS: tuple[str, ...] = ("passed", "error_type", "error", "errored", "decoder_failed")
CREDIT_COLUMNS: tuple[str, ...] = (
    "tool_score",
    "param_score",
    "overall",
    "calls_expected",
    "calls_made",
    "calls_matched",
    "call_matches",
)


#: multi-turn and memory: the per-turn credit beside BFCL's verdict (None elsewhere)
TURN_COLUMNS: tuple[str, ...] = (
    "turns_expected",
    "turns_run",
    "turns_passed",
    "first_failed_turn",
    "first_failure",
    "replay_turns_passed",
)
_NO_CREDIT = dict.fromkeys(CREDIT_COLUMNS)
_NO_TURNS = dict.fromkeys(TURN_COLUMNS)


def judge_multi_turn(
    result: Any,
    question: Mapping[str, Any],
    truth: Sequence[Any],
    mode: str,
    credit: bool = True,
    model_name: str = "tooleval",
) -> dict[str, Any]:
    """BFCL's multi-turn verdict (:data:`VERDICT_COLUMNS`) and, with ``credit``, the per-turn
    credit (:data:`TURN_COLUMNS`, replay included) and ``overall`` (share of turns passed).
    ``model_name``: BFCL's folder name of the model (names the checker's instances)."""
    v = multi_turn_verdict(
        result,
        question,
        truth,
        "fc" if mode == "fc" else "prompt",
        model_name=model_name,
        replay=credit,
        credit=credit,
    )
    out: dict[str, Any] = {
        "passed": v.passed,
        "error_type": v.error_type,
        "error": v.error,
        "errored": isinstance(result, str) and result.startswith(ERROR_PREFIX),
        "decoder_failed": False,
    }
    if credit:
        out.update(_NO_CREDIT)
        out["overall"] = v.turns_passed / v.turns_expected if v.turns_expected else 0.0
        out.update(
            turns_expected=v.turns_expected,
            turns_run=v.turns_run,
            turns_passed=v.turns_passed,
            first_failed_turn=v.first_failed_turn,
            first_failure=v.first_failure,
            replay_turns_passed=v.replay_turns_passed,
        )
    return out


def judge_memory(
    result: Any, answers: Sequence[str], mode: str, credit: bool = True
) -> dict[str, Any]:
    """BFCL's memory (agentic) verdict; with ``credit``, ``overall`` 1 or 0 and one turn."""
    v = memory_verdict(result, answers, "fc" if mode == "fc" else "prompt")
    out: dict[str, Any] = {
        "passed": v.passed,
        "error_type": v.error_type,
        "error": v.error,
        "errored": isinstance(result, str) and result.startswith(ERROR_PREFIX),
        "decoder_failed": False,
    }
    if credit:
        out.update(_NO_CREDIT)
        ran = int(type(result) is list and len(result) == 1)
        out.update(
            overall=float(v.passed),
            turns_expected=1,
            turns_run=ran,
            turns_passed=int(v.passed),
            first_failed_turn=None if v.passed else 0,
            first_failure=None if v.passed else f"{v.error_type}: {v.error}",
            replay_turns_passed=None,
        )
    return out


def judge(
    result: Any,
    question: Mapping[str, Any],
    truth: Sequence[Any] | None,
    category: str,
    mode: str,
    prompt_format: str = "python",
    credit: bool = True,
    model_name: str | None = None,
) -> dict[str, Any]:
    """BFCL's verdict of one ``result`` (:data:`VERDICT_COLUMNS`) and, with ``credit``, our
    partial credit beside it (:data:`CREDIT_COLUMNS`; multi-turn and memory:
    :data:`TURN_COLUMNS`). ``model_name``: multi-turn only, BFCL's folder name of the model
    (default ``tooleval``)."""
    if is_multi_turn(category):
        return judge_multi_turn(
            result, question, truth or [], mode, credit, model_name or "tooleval"
        )
    if is_memory(category):
        return judge_memory(result, truth or [], mode, credit)
    verdict = entry_verdict(result, question, truth, category, mode, prompt_format)
    out: dict[str, Any] = {
        "passed": verdict.passed,
        "error_type": verdict.error_type,
        "error": verdict.errors[0] if verdict.errors else None,
        "errored": verdict.error_type == INFERENCE_ERROR,
        "decoder_failed": str(verdict.error_type).startswith("ast_decoder:"),
    }
    if credit:
        out.update(partial_credit(result, question, truth, category, mode, prompt_format))
        out.update(_NO_TURNS)
    return out


def verdict_rows(
    entries: Iterable[Mapping[str, Any]],
    data: CategoryData,
    *,
    model: str,
    mode: str,
    prompt_format: str = "python",
    credit: bool = True,
    judged: Mapping[str, tuple[Any, Mapping[str, Any]]] | None = None,
    bfcl_model: str | None = None,
) -> list[dict[str, Any]]:
    """One :data:`ENTRY_COLUMNS` row per written entry of one category (``credit=False``
    leaves the partial-credit columns empty, for the verdicts alone).

    Multi-turn: the checker's instances are named after ``bfcl_model``, the model's result
    folder name (default ``model_dir_name(model, mode)``), as the official checker names them.

    ``judged``: entry id -> ``(result, judge(result, ...))`` for entries judged already, with
    credit (while the run went: :mod:`.tally`); an entry whose result is that one takes it,
    any other is judged here (the judgement is a function of the result alone).
    """
    rows = []
    category = data.category
    answers = data.answers
    keep = (*VERDICT_COLUMNS, *CREDIT_COLUMNS, *TURN_COLUMNS) if credit else VERDICT_COLUMNS
    if bfcl_model is None and is_multi_turn(category):
        bfcl_model = model_dir_name(model, mode)
    for entry in entries:
        entry_id = entry["id"]
        result = entry.get("result")
        known = judged.get(entry_id) if judged is not None else None
        if known is not None and known[0] == result:
            part = {k: known[1][k] for k in keep}
        else:
            truth = answers.get(entry_id) if answers is not None else None
            part = judge(
                result,
                data.by_id[entry_id],
                truth,
                category,
                mode,
                prompt_format,
                credit,
                bfcl_model,
            )
        rows.append(
            {
                "model": model,
                "mode": mode,
                "category": category,
                "id": entry_id,
                **part,
                "result": result,
                "latency": entry.get("latency"),
                "input_token_count": entry.get("input_token_count"),
                "output_token_count": entry.get("output_token_count"),
            }
        )
    return rows
