"""The meta model's prompt for prompt tuning (OPRO with GEPA-style feedback) and its parsing.

The meta-prompt holds the task, a compact tool digest, the best past prompts in full *ascending*
by dev score (so the best is last, nearest the answer), up to four failed dev cases (user message,
expected call, actual call, failure mode) and the constraints. The answer must be
``{"prompts": [{"text", "rationale"}]}``; anything else is a failed meta call.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..calls import actual_calls_of, expected_calls_of
from ..llm_call import extract_json

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ...suite import Suite

__all__ = ["META_SCHEMA", "META_MARK", "meta_messages", "parse_meta", "failure_feedback"]

META_MARK = "You write system prompts for a tool-calling assistant"

META_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["prompts"],
    "properties": {
        "prompts": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["text"],
                "properties": {"text": {"type": "string"}, "rationale": {"type": "string"}},
            },
        }
    },
}


def failure_feedback(results: pd.DataFrame, k: int = 4) -> list[dict[str, str]]:
    """Up to ``k`` failed dev cases of a results frame, one per failure mode first."""
    failed = results[~results["passed"].astype(bool)]
    seen: set[str] = set()
    picked: list[dict[str, Any]] = []
    rows = failed.drop_duplicates("case_id").to_dict("records")
    for r in sorted(rows, key=lambda r: str(r.get("failure_mode"))):
        mode = str(r.get("failure_mode"))
        if mode not in seen and len(picked) < k:
            seen.add(mode)
            picked.append(r)
    for r in rows:
        if len(picked) >= k:
            break
        if r not in picked:
            picked.append(r)
    return [
        {
            "user": str(r.get("prompt") or "")[:120],
            "expected": json.dumps(expected_calls_of(r.get("expected")), default=str)[:200],
            "actual": json.dumps(actual_calls_of(r.get("tool_calls")), default=str)[:200]
            or str(r.get("content") or "")[:120],
            "failure_mode": str(r.get("failure_mode")),
        }
        for r in picked
    ]


def meta_messages(
    suite: Suite,
    history: list[tuple[str, float]],
    feedback: list[dict[str, str]],
    n: int,
    max_tokens: int,
) -> list[dict[str, str]]:
    """The one meta call of a generation."""
    digest = "\n".join(
        f"- {t.name}({', '.join(t.required)}): {t.function.description[:80]}" for t in suite.tools
    )
    past = "\n\n".join(
        f"Prompt (dev score {score:.2f}):\n{text or '(no system prompt)'}"
        for text, score in sorted(history, key=lambda h: h[1])[-5:]
    )
    fails = (
        "\n".join(
            f"- user: {f['user']} | expected: {f['expected']} | got: {f['actual']} | "
            f"{f['failure_mode']}"
            for f in feedback[:4]
        )
        or "(none)"
    )
    body = (
        f"Tools:\n{digest}\n\nPast prompts, worst to best:\n{past or '(none)'}\n\n"
        f"Failed cases:\n{fails}\n\nWrite {n} new system prompts that would score higher. "
        f"Each at most {max_tokens} tokens. Do not mention specific values from the "
        "examples."
    )
    system = (
        f"{META_MARK}. Answer with JSON only, following this schema: "
        f"{json.dumps(META_SCHEMA)} (for example "
        '{"prompts": [{"text": "...", "rationale": "..."}]}).'
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": body}]


def parse_meta(text: str | None) -> list[tuple[str, str]] | None:
    """``[(prompt text, rationale)]`` from a meta reply, or None when it does not parse."""
    data = extract_json(text)
    if not isinstance(data, dict) or not isinstance(data.get("prompts"), list):
        return None
    out = []
    for item in data["prompts"]:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            out.append((item["text"], str(item.get("rationale") or "")))
        elif isinstance(item, str):
            out.append((item, ""))
    return out or None
