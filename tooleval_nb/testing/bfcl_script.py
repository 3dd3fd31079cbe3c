"""A scripted BFCL model for the fake OpenAI server: it answers BFCL's multi-turn and memory
entries with their ground truth, turn by turn, and sometimes not (a perturbation chosen from the
entry's id), so that a run of BFCL's loop gives result files with passes and every kind of
failure, fast and deterministically. For tests and for the official-agreement proof; never a
model's score.

Give :func:`answer` as the fake server's handler (``FakeOpenAIServer(handler=answer)``, or
``handler="tooleval_nb.testing.bfcl_script:answer"`` with ``process=True``). The entries are read from
BFCL's data (``TOOLEVAL_BFCL_DATA`` or an installed bfcl-eval) on the first request.

How it answers a request: the entry is the one whose first user message (and later turn
messages, when several entries share it) the conversation holds; the turn is the number of
turn messages seen, the step the number of assistant messages since the last one.

* multi-turn, step 0: the turn's ground-truth calls (tool calls in ``fc`` mode, named by the
  function docs' parameters where the truth gives a value by position; ``[f(a=1), ...]`` text in
  ``prompt`` mode); a later step, or a turn without calls: a text answer.
* memory prerequisite conversations: one memory write per turn (``core_memory_add`` /
  ``memory_append``), then a text answer; memory entries: one memory read, then BFCL's answer
  format holding the first accepted answer.
* perturbations (``crc32(id) % 6``): 0 drops the last call of turn 1, 1 changes a value of
  turn 0's first call, 2 answers the last turn with text only, 3 answers memory with
  "I do not know"; else the ground truth.
"""

from __future__ import annotations

import ast
import json
import threading
import zlib
from typing import Any

from ..bfcl_rules.data import BfclData

__all__ = ["answer", "truth_calls", "reset", "CATEGORIES"]

#: the categories the script knows
CATEGORIES = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
    "memory_kv",
    "memory_rec_sum",
)

_RESULTS = "[{'role': 'tool'"
_lock = threading.Lock()
_index: dict[str, list[tuple[str, dict[str, Any], Any]]] | None = None


def reset() -> None:
    """Forget the index (tests that change the data folder)."""
    global _index
    with _lock:
        _index = None


def _first_user(turns: list[list[dict[str, Any]]]) -> str:
    for message in turns[0] if turns else []:
        if message.get("role") == "user":
            return str(message.get("content"))
    return ""


def _build() -> dict[str, list[tuple[str, dict[str, Any], Any]]]:
    data = BfclData()
    out: dict[str, list[tuple[str, dict[str, Any], Any]]] = {}
    for category in CATEGORIES:
        part = data.category(category)
        for entry in [*(getattr(part, "prereq", None) or []), *part.questions]:
            truth = part.answers.get(entry["id"]) if part.answers is not None else None
            out.setdefault(_first_user(entry["question"]), []).append((category, entry, truth))
    return out


def _entries() -> dict[str, list[tuple[str, dict[str, Any], Any]]]:
    global _index
    with _lock:
        if _index is None:
            _index = _build()
        return _index


def _turn_messages(messages: list[dict[str, Any]]) -> list[str]:
    return [
        str(m.get("content"))
        for m in messages
        if m.get("role") == "user" and not str(m.get("content")).startswith(_RESULTS)
    ]


def _find(messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any], Any] | None:
    said = _turn_messages(messages)
    found = _entries().get(said[0] if said else "", [])
    for category, entry, truth in found:
        turns = entry["question"]
        if all(
            i >= len(turns) or not turns[i] or _first_user([turns[i]]) == text
            for i, text in enumerate(said)
        ):
            return category, entry, truth
    return found[0] if found else None


def _literal(node: ast.expr) -> Any:
    return ast.literal_eval(node)


def truth_calls(source: str, functions: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """A ground-truth call string as ``(name, arguments)``, positional values named by the
    function doc's parameters (required first, then the others, in the doc's order)."""
    node = ast.parse(source.strip(), mode="eval").body
    if not isinstance(node, ast.Call):
        raise ValueError(f"not a call: {source!r}")
    name = ast.unparse(node.func)
    args = {str(k.arg): _literal(k.value) for k in node.keywords}
    if node.args:
        doc = next((f for f in functions if f.get("name") == name), {})
        params = doc.get("parameters") or {}
        order = [
            *params.get("required", []),
            *[p for p in params.get("properties", {}) if p not in params.get("required", [])],
        ]
        free = [p for p in order if p not in args]
        for pname, value in zip(free, node.args, strict=False):
            args[pname] = _literal(value)
    return name, args


def _source(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def _perturb(
    kind: int, turn: int, last: int, calls: list[tuple[str, dict[str, Any]]]
) -> list[tuple[str, dict[str, Any]]] | None:
    if kind == 0 and turn == 1 and calls:
        return calls[:-1]
    if kind == 1 and turn == 0 and calls:
        name, args = calls[0]
        changed = dict(args)
        for key, value in changed.items():
            if isinstance(value, str):
                changed[key] = value + "_x"
                break
        return [(name, changed), *calls[1:]]
    if kind == 2 and turn == last:
        return None
    return calls


def _reply(
    calls: list[tuple[str, dict[str, Any]]] | None, fc: bool, text: str, turn: int, step: int
) -> dict[str, Any]:
    if not calls:
        return {"content": text}
    if fc:
        return {
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{turn}_{step}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args) in enumerate(calls)
            ],
        }
    return {"content": "[" + ", ".join(_source(n, a) for n, a in calls) + "]"}


def answer(body: dict[str, Any]) -> dict[str, Any] | None:
    """The fake server's handler (see the module docstring); None for a conversation that is
    not a known BFCL entry (the server's default answer)."""
    messages = body.get("messages") or []
    found = _find(messages)
    if found is None:
        return None
    category, entry, truth = found
    fc = bool(body.get("tools"))
    said = _turn_messages(messages)
    turn = len(said) - 1
    last_user = max(
        i
        for i, m in enumerate(messages)
        if m.get("role") == "user" and not str(m.get("content")).startswith(_RESULTS)
    )
    step = sum(1 for m in messages[last_user:] if m.get("role") == "assistant")
    kind = zlib.crc32(entry["id"].encode()) % 6
    if category.startswith("memory") and "prereq" not in entry["id"] and step < 2:
        if step == 0:
            read: tuple[str, dict[str, Any]] = (
                ("core_memory_retrieve_all", {}) if "kv" in category else ("memory_retrieve", {})
            )
            return _reply([read], fc, "", turn, step)
        said_answer = "I do not know" if kind == 3 else str((truth or ["?"])[0])
        return {"content": repr({"answer": said_answer, "context": "from memory"})}
    if step > 0:
        return {"content": "Done."}
    if category.startswith("memory"):
        text = str(said[-1])[:80]
        call = (
            ("core_memory_add", {"key": f"note_{turn}", "value": text})
            if "kv" in category
            else ("memory_append", {"text": text})
        )
        return _reply([call], fc, "Noted.", turn, step)
    functions = [
        *entry.get("function", []),
        *[f for docs in (entry.get("missed_function") or {}).values() for f in docs],
    ]
    turns = truth or []
    calls = [truth_calls(s, functions) for s in (turns[turn] if turn < len(turns) else [])]
    return _reply(_perturb(kind, turn, len(turns) - 1, calls), fc, "I have done it.", turn, step)
