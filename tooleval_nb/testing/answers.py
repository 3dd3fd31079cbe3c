"""What the fake OpenAI server answers: the default tool call read from the prompt, the fault
schedule and prompt markers, planted answers, and the completion envelope.

See :mod:`tooleval_nb.testing.fake_openai` for the HTTP side and the rules in full.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

__all__ = ["FAULTS", "Behaviour", "Fault", "Handler", "default_answer", "embedding"]

Fault = Literal[
    "429",
    "500",
    "503",
    "400",
    "401",
    "404",
    "hang",
    "disconnect",
    "malformed",
    "bad_shape",
    "context",
]
FAULTS: frozenset[str] = frozenset(Fault.__args__)  # type: ignore[attr-defined]

Handler = Callable[[dict[str, Any]], "dict[str, Any] | str | None"]

_FAULT_MARK = re.compile(r"\[fault:([a-z0-9_]+)(?:\*(\d+))?\]")
_LATENCY_MARK = re.compile(r"\[latency:([0-9.]+)\]")
#: a word, or a value in matching quotes that start and end a word ("New York", 'it''s' is a word)
_WORD = re.compile(r"""(?<!\S)(["'])(.*?)\1(?!\S)|\S+""", re.DOTALL)


def _words(segment: str) -> list[str]:
    """Split a prompt segment into words; quotes group words but never fail (apostrophes,
    an unmatched quote and any unicode are just characters of a word)."""
    return [m.group(2) if m.group(1) else m.group() for m in _WORD.finditer(segment)]


def _last_user_text(body: dict[str, Any]) -> str:
    for msg in reversed(body.get("messages") or []):
        if isinstance(msg, dict) and msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):  # content parts
                return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _convert(value: str, schema: Any) -> Any:
    kind = schema.get("type") if isinstance(schema, dict) else None
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            return float(value)
    except ValueError:
        return value
    if kind == "boolean" and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def default_answer(body: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    """The assistant message the server answers by default (see the module docstring)."""
    if text is None:
        text = _last_user_text(body)
    tools = body.get("tools") or []
    choice = body.get("tool_choice")
    schemas: dict[str, dict[str, Any]] = {}
    for tool in tools:
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and fn.get("name"):
            params = fn.get("parameters") or {}
            schemas[fn["name"]] = params.get("properties") or {}
    if not schemas or choice == "none":
        return {"role": "assistant", "content": f"No tool needed: {text}"}
    forced = None
    if isinstance(choice, dict):
        forced = (choice.get("function") or {}).get("name")
    calls = []
    for i, segment in enumerate(text.split(";")):
        words = _words(segment)
        if not words:
            continue
        name = words[0]
        if name not in schemas:
            if forced is None:
                continue
            name, words = forced, [forced, *words]
        props = schemas[name]
        pairs = words[1:]
        args = {
            pairs[j]: _convert(pairs[j + 1], props.get(pairs[j]))
            for j in range(0, len(pairs) - 1, 2)
        }
        calls.append(
            {
                "id": f"call_{zlib.crc32(segment.encode()):010d}{i:06d}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        )
        if forced is not None:
            break
    if not calls:
        return {"role": "assistant", "content": f"No tool needed: {text}"}
    return {"role": "assistant", "content": None, "tool_calls": calls}


class Behaviour:
    """Counters and answers shared by every connection of one server."""

    def __init__(
        self,
        *,
        latency: float,
        retry_after: float,
        hang: float,
        schedule: Mapping[int, str | None] | Sequence[str | None] | None,
        handler: Handler | None,
        reject_required: bool,
        record: bool,
        model: str,
    ):
        self.latency = latency
        self.retry_after = retry_after
        self.hang = hang
        if schedule is None:
            self.schedule: dict[int, str | None] = {}
        elif isinstance(schedule, Mapping):
            self.schedule = dict(schedule)
        else:
            self.schedule = {i + 1: f for i, f in enumerate(schedule)}
        for fault in self.schedule.values():
            if fault is not None and fault not in FAULTS:
                raise ValueError(
                    f"unknown fault {fault!r} in schedule; use one of {sorted(FAULTS)}"
                )
        self.handler = handler
        self.reject_required = reject_required
        self.record = record
        self.model = model
        self.requests = 0
        self.other_requests = 0
        self.bodies: list[dict[str, Any]] = []
        self.marker_counts: dict[tuple[str, str], int] = {}
        self.started = time.time()

    def respond(self, body: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None, float]:
        """(fault or None, completion dict or None, latency) for one chat request."""
        self.requests += 1
        n = self.requests
        if self.record:
            self.bodies.append(body)
        text = _last_user_text(body)
        latency = self.latency
        if "[latency:" in text:
            m = _LATENCY_MARK.search(text)
            if m:
                latency = float(m.group(1))
        fault: str | None = self.schedule.get(n)
        planted: Any = None
        if fault is None and self.handler is not None:
            planted = self.handler(body)
            if isinstance(planted, str):
                fault, planted = planted, None
        if fault is None and planted is None:
            if "[fault:" in text:
                m = _FAULT_MARK.search(text)
                if m:
                    times = int(m.group(2)) if m.group(2) else None
                    key = (m.group(0), text)
                    seen = self.marker_counts.get(key, 0) + 1
                    self.marker_counts[key] = seen
                    if times is None or seen <= times:
                        fault = m.group(1)
            if fault is None and self.reject_required and body.get("tool_choice") == "required":
                fault = "500"
        if fault is not None:
            return fault, None, latency
        if isinstance(planted, dict) and "choices" in planted:
            return None, planted, latency
        if isinstance(planted, dict):
            message = _normalise_message(planted)
        else:
            if "[" in text:
                text = _LATENCY_MARK.sub("", _FAULT_MARK.sub("", text)).strip()
            message = default_answer(body, text)
        return None, self.completion(body, message, text), latency

    def completion(
        self, body: dict[str, Any], message: dict[str, Any], text: str
    ) -> dict[str, Any]:
        prompt_tokens = (
            sum(
                len(str(m.get("content") or ""))
                for m in body.get("messages") or []
                if isinstance(m, dict)
            )
            // 4
            + 1
        )
        out = message.get("content") or json.dumps(message.get("tool_calls") or "")
        return {
            "id": f"chatcmpl-fake{self.requests}",
            "object": "chat.completion",
            "created": int(self.started),
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": len(out) // 4 + 1,
                "total_tokens": prompt_tokens + len(out) // 4 + 1,
            },
        }


def _normalise_message(msg: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": msg.get("content")}
    calls = []
    for i, call in enumerate(msg.get("tool_calls") or []):
        fn = call.get("function", call)
        args = fn.get("arguments", {})
        calls.append(
            {
                "id": call.get("id") or f"call_planted_{i}",
                "type": "function",
                "function": {
                    "name": fn.get("name", ""),
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
        )
    if calls:
        out["tool_calls"] = calls
    return out


def embedding(text: str, dims: int = 16) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [(b - 127.5) / 127.5 for b in digest[:dims]]
