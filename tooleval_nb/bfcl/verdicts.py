"""One verdict per BFCL entry, equal to the official checker's, with our partial credit beside it.

The verdict comes from BFCL's ``result`` as written to the result file, through the same path
the official checker takes: the handler's decoding (``fc``: each call's arguments parsed as JSON,
a text reply is a decoding failure; ``prompt``: the text read as a Python call list, or BFCL's
JSON list for ``prompt_format="json"``), then :func:`tooleval_nb.scoring.bfcl_verdict`
(``underscore_to_dot`` in ``fc`` mode, since the names were offered with ``_``).

Beside it, the partial credit of :func:`tooleval_nb.scoring.score_calls` on the same decoded
calls: ``tool_score`` (expected calls whose tool was called), ``param_score`` (arguments right,
averaged over the paired calls) and ``call_matches`` (per expected call: paired with a call of
the right tool and every argument right). An entry whose model call failed is a failure
(``error_type="inference_error"``) whatever its category.

Pure: entries and data in, rows out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..scoring.bfcl import BfclVerdict, bfcl_verdict
from ..scoring.bfcl_decode import DecodeError, decode_result
from ..scoring.calls import compute_overall, score_calls
from ..toolcall import ToolCall
from .categories import is_relevance, language_of
from .data import CategoryData
from .results import ERROR_PREFIX

__all__ = ["ENTRY_COLUMNS", "VERDICT_COLUMNS", "CREDIT_COLUMNS", "entry_verdict",
           "decode_json_list", "partial_credit", "judge", "verdict_rows", "INFERENCE_ERROR"]

#: the error type of an entry whose model call failed
INFERENCE_ERROR = "inference_error"

#: columns of the per-entry frame (``BfclRun.bfcl_results_df()``), in order:
#: who (model, mode, category, id), BFCL's verdict (passed, error_type, error), what went wrong
#: (errored: the model call failed; decoder_failed: BFCL could not read calls from the reply),
#: our partial credit on the same calls (tool_score, param_score, overall, calls_expected,
#: calls_made, calls_matched, call_matches), then the raw result and its usage.
ENTRY_COLUMNS: tuple[str, ...] = (
    "model", "mode", "category", "id", "passed", "error_type", "error", "errored",
    "decoder_failed", "tool_score", "param_score", "overall", "calls_expected", "calls_made",
    "calls_matched", "call_matches", "result", "latency", "input_token_count",
    "output_token_count")

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


def entry_verdict(result: Any, question: Mapping[str, Any], truth: Sequence[Any] | None,
                  category: str, mode: str, prompt_format: str = "python") -> BfclVerdict:
    """BFCL's verdict of one written ``result`` (see the module docstring)."""
    if isinstance(result, str) and result.startswith(ERROR_PREFIX):
        return BfclVerdict(False, INFERENCE_ERROR, (result,))
    functions = question["function"]
    if mode == "fc":
        if isinstance(result, str) and result:  # a text reply: BFCL's FC decoder fails on it
            if "irrelevance" in category:
                return BfclVerdict(True)
            kind = "relevance_error" if is_relevance(category) else "ast_decoder"
            return BfclVerdict(False, f"{kind}:decoder_failed", (
                "Invalid syntax. Failed to decode AST. The reply is text, not tool calls.",))
        return bfcl_verdict(_fc_shape(result), functions, truth, category, underscore_to_dot=True)
    if prompt_format == "json":
        try:
            decoded: Any = decode_json_list(result)
        except DecodeError:
            decoded = None  # fails BFCL's decoding the same way
        return bfcl_verdict(decoded, functions, truth, category)
    return bfcl_verdict(result if isinstance(result, str) else None, functions, truth, category)


def _decoded_calls(result: Any, category: str, mode: str, prompt_format: str,
                   api_names: Mapping[str, str]) -> list[ToolCall]:
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
            (name, args), = item.items()
            if isinstance(args, dict):
                calls.append(ToolCall.create(api_names.get(str(name), str(name)),
                                             json.dumps(args, default=str),
                                             id=f"call_{len(calls)}"))
    return calls


def partial_credit(result: Any, question: Mapping[str, Any], truth: Sequence[Any] | None,
                   category: str, mode: str, prompt_format: str = "python") -> dict[str, Any]:
    """``tool_score, param_score, overall, calls_expected, calls_made, calls_matched,
    call_matches`` of one entry, on the calls BFCL decodes from ``result``."""
    functions = question["function"]
    errored = isinstance(result, str) and result.startswith(ERROR_PREFIX)
    # fc: the names were offered with "_" for "."; prompt: the model wrote the names itself
    api_names = ({str(f["name"]).replace(".", "_"): str(f["name"]) for f in functions}
                 if mode == "fc" else {})
    calls = [] if errored else _decoded_calls(result, category, mode, prompt_format, api_names)
    if is_relevance(category):
        wanted = category == "live_relevance"
        ok = (bool(calls) == wanted) and not errored
        score = 1.0 if ok else 0.0
        return {"tool_score": score, "param_score": None, "overall": score,
                "calls_expected": 1 if wanted else 0, "calls_made": len(calls),
                "calls_matched": int(ok and wanted), "call_matches": [ok] if wanted else []}
    expected = [([name], dict(args)) for call in truth or [] for name, args in call.items()]
    # without the tools: they name each wrong value's problem (a wrong type or value), which
    # none of these columns shows; right or wrong, and the pairing, never depend on them
    scores, _ = score_calls(expected, calls)
    matches = [c.tool_score >= 1.0 and (c.param_score is None or c.param_score >= 1.0)
               for c in scores]
    tool_score = sum(c.tool_score for c in scores) / len(scores) if scores else 0.0
    given = [c.param_score for c in scores if c.param_score is not None]
    param_score = sum(given) / len(given) if given else None
    return {"tool_score": tool_score, "param_score": param_score,
            "overall": compute_overall(tool_score, param_score),
            "calls_expected": len(scores), "calls_made": len(calls),
            "calls_matched": sum(matches), "call_matches": matches}


#: the columns :func:`judge` fills: BFCL's verdict, then our partial credit
VERDICT_COLUMNS: tuple[str, ...] = ("passed", "error_type", "error", "errored",
                                    "decoder_failed")
CREDIT_COLUMNS: tuple[str, ...] = ("tool_score", "param_score", "overall", "calls_expected",
                                   "calls_made", "calls_matched", "call_matches")


def judge(result: Any, question: Mapping[str, Any], truth: Sequence[Any] | None,
          category: str, mode: str, prompt_format: str = "python",
          credit: bool = True) -> dict[str, Any]:
    """BFCL's verdict of one ``result`` (:data:`VERDICT_COLUMNS`) and, with ``credit``, our
    partial credit beside it (:data:`CREDIT_COLUMNS`)."""
    verdict = entry_verdict(result, question, truth, category, mode, prompt_format)
    out: dict[str, Any] = {
        "passed": verdict.passed, "error_type": verdict.error_type,
        "error": verdict.errors[0] if verdict.errors else None,
        "errored": verdict.error_type == INFERENCE_ERROR,
        "decoder_failed": str(verdict.error_type).startswith("ast_decoder:")}
    if credit:
        out.update(partial_credit(result, question, truth, category, mode, prompt_format))
    return out


def verdict_rows(entries: Iterable[Mapping[str, Any]], data: CategoryData, *, model: str,
                 mode: str, prompt_format: str = "python", credit: bool = True,
                 judged: Mapping[str, tuple[Any, Mapping[str, Any]]] | None = None
                 ) -> list[dict[str, Any]]:
    """One :data:`ENTRY_COLUMNS` row per written entry of one category (``credit=False``
    leaves the partial-credit columns empty, for the verdicts alone).

    ``judged``: entry id -> ``(result, judge(result, ...))`` for entries judged already, with
    credit (while the run went: :mod:`.tally`); an entry whose result is that one takes it,
    any other is judged here (the judgement is a function of the result alone).
    """
    rows = []
    category = data.category
    answers = data.answers
    keep = (*VERDICT_COLUMNS, *CREDIT_COLUMNS) if credit else VERDICT_COLUMNS
    for entry in entries:
        entry_id = entry["id"]
        result = entry.get("result")
        known = judged.get(entry_id) if judged is not None else None
        if known is not None and known[0] == result:
            part = {k: known[1][k] for k in keep}
        else:
            truth = answers.get(entry_id) if answers is not None else None
            part = judge(result, data.by_id[entry_id], truth, category, mode, prompt_format,
                         credit)
        rows.append({
            "model": model, "mode": mode, "category": category, "id": entry_id, **part,
            "result": result, "latency": entry.get("latency"),
            "input_token_count": entry.get("input_token_count"),
            "output_token_count": entry.get("output_token_count")})
    return rows
