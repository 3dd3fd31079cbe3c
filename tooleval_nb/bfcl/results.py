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

from ..errors import SuiteError
from ..suite import Tool
from .categories import VERSION_PREFIX, group_of
from .data import CategoryData, read_jsonl

__all__ = ["result_entry", "raw_result", "sort_key", "model_name", "model_dir_name", "result_path",
           "write_result_file", "read_result_file", "check_result_file", "MANIFEST",
           "write_manifest", "read_manifest", "check_manifest", "ERROR_PREFIX"]

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
    """``<output>/result/<model dir>/<group>/BFCL_v4_<category>_result.json``."""
    return (Path(output) / "result" / model_dir / group_of(category)
            / f"{VERSION_PREFIX}_{category}_result.json")


def _api_name(name: str, tools: Iterable[Tool]) -> str:
    for tool in tools:
        if tool.name == name:
            return tool.api_name
    return name


def raw_result(detail: Mapping[str, Any], mode: str, tools: Iterable[Tool] = ()) -> Any:
    """The BFCL ``result`` of one stored case (its first model call; see the module docstring).

    From the raw response when it was kept; else rebuilt from the stored calls (the names
    turned back into the names sent) and text.
    """
    hops = detail.get("hops") or []
    if not hops:
        return None
    hop = hops[0]
    raw = hop.get("raw") or {}
    choices = raw.get("choices") if isinstance(raw, dict) else None
    if choices and isinstance(choices[0], dict) and isinstance(choices[0].get("message"), dict):
        message = choices[0]["message"]
        if mode == "fc":
            calls = message.get("tool_calls")
            if isinstance(calls, list):  # BFCL keeps [] as []; no tool_calls field -> the text
                return [{(c.get("function") or {}).get("name"):
                         (c.get("function") or {}).get("arguments")} for c in calls]
        return message.get("content")
    if mode == "fc":
        calls = hop.get("tool_calls") or []
        if calls:
            return [{_api_name(c["function"]["name"], tools): c["function"]["arguments"]}
                    for c in calls]
        return hop.get("content")
    return hop.get("raw_text", hop.get("content"))


def result_entry(row: Mapping[str, Any], detail: Mapping[str, Any], mode: str,
                 tools: Iterable[Tool] = ()) -> dict[str, Any]:
    """The line BFCL would have written for one stored result row."""
    if row.get("error"):
        return {"id": row["case_id"], "result": f"{ERROR_PREFIX}{row['error']}",
                "traceback": f"{row.get('error_type') or 'Error'}: {row['error']}"}
    latency = row.get("latency_ms")
    return {"id": row["case_id"], "result": raw_result(detail, mode, tools),
            "input_token_count": row.get("prompt_tokens") or 0,
            "output_token_count": row.get("completion_tokens") or 0,
            "latency": (latency or 0.0) / 1000.0}


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
    return read_jsonl(path, what="BFCL result file", fields=("id", "result"),
                      shape='{"id": ..., "result": ...}', hint="")[1]


def _show(ids: list[str], n: int = 10) -> str:
    more = f" and {len(ids) - n} more" if len(ids) > n else ""
    return ", ".join(ids[:n]) + more


def check_result_file(path: str | os.PathLike[str], entries: list[dict[str, Any]],
                      data: CategoryData) -> None:
    """Refuse a result file whose ids are not entries of this dataset's category.

    Raises:
        SuiteError: ids of the file missing from the data, or repeated, shown.
    """
    known = data.by_id
    foreign = [e["id"] for e in entries if e["id"] not in known]
    if foreign:
        raise SuiteError(f"{path}: {len(foreign)} id(s) are not entries of {data.questions_path} "
                         f"(another dataset version or category): {_show(foreign)}",
                         path=str(path))
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


def check_manifest(folder: Path, model: str, mode: str,
                   categories: Mapping[str, CategoryData]) -> None:
    """Refuse to write over result files made by another model, mode or dataset version.

    Raises:
        SuiteError: naming the folder, what differs, and (for the data) the differing ids.
    """
    old = read_manifest(folder)
    if old is None:
        for category, data in categories.items():  # files without a manifest: check their ids
            path = folder / group_of(category) / f"{VERSION_PREFIX}_{category}_result.json"
            if path.is_file():
                check_result_file(path, read_result_file(path), data)
        return
    if old.get("model") != model or old.get("mode") != mode:
        raise SuiteError(f"{folder}: holds BFCL results of model {old.get('model')!r} "
                         f"({old.get('mode')} mode), not {model!r} ({mode} mode); choose "
                         "another output folder", path=str(folder))
    for category, data in categories.items():
        facts = (old.get("categories") or {}).get(category)
        if facts and facts.get("fingerprint") != data.fingerprint:
            path = folder / group_of(category) / f"{VERSION_PREFIX}_{category}_result.json"
            entries = read_result_file(path) if path.is_file() else []
            foreign = [e["id"] for e in entries if e["id"] not in data.by_id]
            shown = (f"ids not in the current data: {_show(foreign)}" if foreign else
                     f"same ids, different questions or answers (data fingerprint "
                     f"{facts.get('fingerprint')} vs {data.fingerprint})")
            raise SuiteError(f"{path}: written from another BFCL dataset version than "
                             f"{data.questions_path}; {shown}; choose another output folder",
                             path=str(path))
