"""BFCL result files: the entry BFCL's generation step would have written for each stored case,
and the files themselves, laid out as BFCL lays them out.

Layout under an output folder (BFCL's ``result/`` tree, so ``bfcl evaluate`` reads it)::

    result/<model dir>/non_live/BFCL_v4_simple_python_result.json
    result/<model dir>/live/BFCL_v4_live_simple_result.json
    result/<model dir>/tooleval_bfcl.json       (which model, mode and data made the files)

``<model dir>`` is the model label with ``/`` turned into ``_`` (BFCL's registry-name rule),
``-FC`` appended in ``fc`` mode. One JSON object per line, sorted as BFCL sorts ids:
``{"id", "result", "input_token_count", "output_token_count", "latency"}``; an entry whose
model call failed holds ``"result": "Error during inference: ..."`` and ``"traceback"``.

``result`` is what BFCL's OpenAI-style handlers store: in ``fc`` mode the tool calls as
``[{name: "<arguments JSON>"}]`` under the names the model returned (dots offered as ``_``),
or the reply's text when it made no call; in ``prompt`` mode the reply's text, unchanged.
Both are read from the raw API response kept with each case.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..bfcl_rules.categories import VERSION_PREFIX, folder_of
from ..bfcl_rules.data import CategoryData, read_jsonl
from ..errors import SuiteError
from ..suite import Tool

__all__ = [
    "result_entry",
    "raw_result",
    "step_result",
    "multi_turn_entry",
    "sort_key",
    "model_name",
    "model_dir_name",
    "result_path",
    "write_result_file",
    "read_result_file",
    "check_result_file",
    "MANIFEST",
    "write_manifest",
    "read_manifest",
    "check_manifest",
    "ERROR_PREFIX",
]

#: the manifest file written beside a model's result folders
MANIFEST = "tooleval_bfcl.json"
_MODE_SUFFIX = re.compile(r" \[[^\]]*\]$")
#: how BFCL's generation step marks an entry whose inference failed
ERROR_PREFIX = "Error during inference: "


def sort_key(entry_id: str) -> tuple[str, int]:
    """BFCL's id order: category, then the number before any ``-`` (``live_simple_19-3-15``)."""
    head, _, index = entry_id.split(":")[0].rpartition("_")
    number = index.split("-")[0]
    return (head, int(number) if number.isdigit() else -1)


def model_name(label: str) -> str:
    """A run's model label without the runner's ``[mode]`` suffix (``m [pythonic]`` -> ``m``)."""
    return _MODE_SUFFIX.sub("", label)


def model_dir_name(label: str, mode: str) -> str:
    """BFCL's folder name for a model: the label without the runner's ``[mode]`` suffix,
    ``/`` -> ``_``, ``-FC`` for function-calling runs."""
    name = model_name(label).replace("/", "_")
    return f"{name}-FC" if mode == "fc" and not name.endswith("-FC") else name


def result_path(output: str | os.PathLike[str], model_dir: str, category: str) -> Path:
    """``<output>/result/<model dir>/<folder>/BFCL_v4_<category>_result.json`` (the folder as
    BFCL lays them out: ``non_live``, ``live``, ``multi_turn``, ``agentic/memory/kv`` ...)."""
    return (
        Path(output)
        / "result"
        / model_dir
        / folder_of(category)
        / f"{VERSION_PREFIX}_{category}_result.json"
    )


def _api_name(name: str, tools: Iterable[Tool]) -> str:
    for tool in tools:
        if tool.name == name:
            return tool.api_name
    return name


def raw_result(detail: Mapping[str, Any], mode: str, tools: Iterable[Tool] = ()) -> Any:
    """The BFCL ``result`` of one stored single-turn case (its first model call; see the
    module docstring)."""
    hops = detail.get("hops") or []
    if not hops:
        return None
    return step_result(hops[0], mode, tools)


def step_result(hop: Mapping[str, Any], mode: str, tools: Iterable[Tool] = ()) -> Any:
    """BFCL's ``model_responses`` of one model call (a hop): in ``fc`` mode the tool calls as
    ``[{name: "<arguments JSON>"}]`` (no ``tool_calls`` field: the reply's text), in ``prompt``
    mode the reply's text.

    From the raw response when it was kept; else rebuilt from the stored calls (the names
    turned back into the names sent) and text.
    """
    raw = hop.get("raw") or {}
    choices = raw.get("choices") if isinstance(raw, dict) else None
    if choices and isinstance(choices[0], dict) and isinstance(choices[0].get("message"), dict):
        message = choices[0]["message"]
        if mode == "fc":
            calls = message.get("tool_calls")
            if isinstance(calls, list):  # BFCL keeps [] as []; no tool_calls field -> the text
                return [
                    {
                        (c.get("function") or {}).get("name"): (c.get("function") or {}).get(
                            "arguments"
                        )
                    }
                    for c in calls
                ]
        return message.get("content")
    if mode == "fc":
        calls = hop.get("tool_calls") or []
        if calls:
            return [
                {_api_name(c["function"]["name"], tools): c["function"]["arguments"]} for c in calls
            ]
        return hop.get("content")
    return hop.get("raw_text", hop.get("content"))


def _turns(hops: list[Mapping[str, Any]], key: Any) -> list[list[Any]]:
    """Per-step values grouped by turn (BFCL's list of turns, each a list of steps)."""
    out: list[list[Any]] = []
    for hop in hops:
        turn = int(hop.get("turn") or 0)
        while len(out) <= turn:
            out.append([])
        out[turn].append(key(hop))
    return out


def _inference_log(hops: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """BFCL's ``inference_log`` without the state entries (as ``--exclude-state-log`` writes
    it): per turn the turn's query, then per step the assistant's reply, the handler's note and
    the tool results."""
    turns: list[dict[str, Any]] = []
    for hop in hops:
        turn = int(hop.get("turn") or 0)
        while len(turns) <= turn:
            turns.append({"begin_of_turn_query": []})
        if "turn_query" in hop:
            turns[turn]["begin_of_turn_query"] = hop["turn_query"]
        log: list[dict[str, Any]] = []
        assistant = {"role": "assistant", "content": hop.get("bfcl_result")}
        if hop.get("reasoning_content"):
            assistant["reasoning_content"] = hop["reasoning_content"]
        log.append(assistant)
        if "decode_error" in hop:
            log.append(
                {
                    "role": "handler_log",
                    "content": "Error decoding the model response. Proceed to next turn.",
                    "error": hop["decode_error"],
                }
            )
        elif "decoded" in hop:
            log.append(
                {
                    "role": "handler_log",
                    "content": "Successfully decoded model response.",
                    "model_response_decoded": hop["decoded"],
                }
            )
            if not hop.get("execution_results") and not hop["decoded"]:
                log.append(
                    {
                        "role": "handler_log",
                        "content": "Empty response from the model. Proceed to next turn.",
                        "model_response_decoded": hop["decoded"],
                    }
                )
        log += [{"role": "tool", "content": r} for r in hop.get("execution_results") or []]
        if hop.get("force_quit"):
            log.append(
                {"role": "handler_log", "content": "Model has been forced to quit after 20 steps."}
            )
        turns[turn][f"step_{int(hop.get('step') or 0)}"] = log
    return turns


def multi_turn_entry(row: Mapping[str, Any], detail: Mapping[str, Any]) -> dict[str, Any]:
    """The line BFCL writes for a multi-turn or memory entry: ``result`` a list of turns, each
    a list of steps (each step's ``model_responses``); ``input_token_count``,
    ``output_token_count`` and ``latency`` (seconds) in the same shape; ``inference_log``; and
    ``reasoning_content`` when a step had some. A failed entry: BFCL's error line."""
    if row.get("error"):
        return {
            "id": row["case_id"],
            "result": f"{ERROR_PREFIX}{row['error']}",
            "traceback": f"{row.get('error_type') or 'Error'}: {row['error']}",
        }
    hops = [h for h in detail.get("hops") or [] if "turn" in h]
    entry = {
        "id": row["case_id"],
        "result": _turns(hops, lambda h: h.get("bfcl_result")),
        "input_token_count": _turns(hops, lambda h: h.get("prompt_tokens") or 0),
        "output_token_count": _turns(hops, lambda h: h.get("completion_tokens") or 0),
        "latency": _turns(hops, lambda h: (h.get("latency_ms") or 0.0) / 1000.0),
        "inference_log": _inference_log(hops),
    }
    if any(h.get("reasoning_content") for h in hops):
        entry["reasoning_content"] = _turns(hops, lambda h: h.get("reasoning_content") or "")
    return entry


def result_entry(
    row: Mapping[str, Any], detail: Mapping[str, Any], mode: str, tools: Iterable[Tool] = ()
) -> dict[str, Any]:
    """The line BFCL would have written for one stored result row."""
    if row.get("error"):
        return {
            "id": row["case_id"],
            "result": f"{ERROR_PREFIX}{row['error']}",
            "traceback": f"{row.get('error_type') or 'Error'}: {row['error']}",
        }
    latency = row.get("latency_ms")
    return {
        "id": row["case_id"],
        "result": raw_result(detail, mode, tools),
        "input_token_count": row.get("prompt_tokens") or 0,
        "output_token_count": row.get("completion_tokens") or 0,
        "latency": (latency or 0.0) / 1000.0,
    }


def write_result_file(path: Path, entries: Iterable[Mapping[str, Any]]) -> Path:
    """Write entries sorted by BFCL's id order, one ``json.dumps`` line each (as BFCL does)."""
    ordered = sorted(entries, key=lambda e: sort_key(str(e["id"])))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text("".join(json.dumps(e) + "\n" for e in ordered), encoding="utf-8")
    tmp.replace(path)
    return path


def read_result_file(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The entries of a result file (SuiteError naming the file and line when malformed)."""
    return read_jsonl(
        path,
        what="BFCL result file",
        fields=("id", "result"),
        shape='{"id": ..., "result": ...}',
        hint="",
    )[1]


def _show(ids: list[str], n: int = 10) -> str:
    more = f" and {len(ids) - n} more" if len(ids) > n else ""
    return ", ".join(ids[:n]) + more


def check_result_file(
    path: str | os.PathLike[str], entries: list[dict[str, Any]], data: CategoryData
) -> None:
    """Refuse a result file whose ids are not entries of this dataset's category.

    Raises:
        SuiteError: ids of the file missing from the data, or repeated, shown.
    """
    known = data.by_id
    foreign = [e["id"] for e in entries if e["id"] not in known]
    if foreign:
        raise SuiteError(
            f"{path}: {len(foreign)} id(s) are not entries of {data.questions_path} "
            f"(another dataset version or category): {_show(foreign)}",
            path=str(path),
        )
    seen: set[str] = set()
    twice = [e["id"] for e in entries if e["id"] in seen or seen.add(e["id"])]  # type: ignore[func-returns-value]
    if twice:
        raise SuiteError(f"{path}: id(s) appear more than once: {_show(twice)}", path=str(path))


def write_manifest(folder: Path, facts: Mapping[str, Any]) -> Path:
    """Record which model, mode and data made a model folder's result files."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MANIFEST
    path.write_text(json.dumps(dict(facts), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def read_manifest(folder: Path) -> dict[str, Any] | None:
    path = folder / MANIFEST
    if not path.is_file():
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def check_manifest(
    folder: Path, model: str, mode: str, categories: Mapping[str, CategoryData]
) -> None:
    """Refuse to write over result files made by another model, mode or dataset version.

    Raises:
        SuiteError: naming the folder, what differs, and (for the data) the differing ids.
    """
    old = read_manifest(folder)
    if old is None:
        for category, data in categories.items():  # files without a manifest: check their ids
            path = folder / folder_of(category) / f"{VERSION_PREFIX}_{category}_result.json"
            if path.is_file():
                check_result_file(path, read_result_file(path), data)
        return
    if old.get("model") != model or old.get("mode") != mode:
        raise SuiteError(
            f"{folder}: holds BFCL results of model {old.get('model')!r} "
            f"({old.get('mode')} mode), not {model!r} ({mode} mode); choose "
            "another output folder",
            path=str(folder),
        )
    for category, data in categories.items():
        facts = (old.get("categories") or {}).get(category)
        if facts and facts.get("fingerprint") != data.fingerprint:
            path = folder / folder_of(category) / f"{VERSION_PREFIX}_{category}_result.json"
            entries = read_result_file(path) if path.is_file() else []
            foreign = [e["id"] for e in entries if e["id"] not in data.by_id]
            shown = (
                f"ids not in the current data: {_show(foreign)}"
                if foreign
                else f"same ids, different questions or answers (data fingerprint "
                f"{facts.get('fingerprint')} vs {data.fingerprint})"
            )
            raise SuiteError(
                f"{path}: written from another BFCL dataset version than "
                f"{data.questions_path}; {shown}; choose another output folder",
                path=str(path),
            )
