"""Deterministic prompt operators and candidate filters for prompt tuning (pure, seeded).

Operators make new prompts without any model, so a tune makes progress even when the meta model
writes junk: ``add_rule`` / ``drop_rule`` (from :data:`TOOL_RULES`), ``format_hint`` (matched to
the call mode), ``tool_digest``, ``add_example`` (one few-shot exchange from a *dev* case),
``crossover`` of two parents, and ``shorten``.

Filters run before any evaluation: empty or over-long prompts, exact duplicates (normalised
text), near-duplicates (character-trigram Jaccard ≥ 0.9), and *leakage*: a prompt that contains a
string argument value (≥ 3 characters) of any holdout case is rejected; one that copies dev
values is only flagged.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..config import FewShot

if TYPE_CHECKING:  # pragma: no cover
    from ...suite import EvalCase, Suite, Tool

__all__ = [
    "TOOL_RULES",
    "DEFAULT_SYSTEM_PROMPT",
    "OPERATORS",
    "add_rule",
    "drop_rule",
    "format_hint",
    "tool_digest",
    "example_from_case",
    "crossover",
    "shorten",
    "normalise",
    "text_hash",
    "trigram_similarity",
    "count_tokens",
    "holdout_values",
    "leaked_value",
    "apply_operator",
]

#: short rules for tool-calling system prompts
TOOL_RULES: tuple[str, ...] = (
    "If a tool matches the request, respond only with a tool call.",
    "Use parameter names exactly as in the schema.",
    "Never invent parameters.",
    "If no tool fits, answer in plain text.",
    "Always include every required parameter.",
    "Copy values exactly as the user wrote them.",
    "Use the types of the schema: numbers without quotes.",
    "Make one call per requested action.",
    "Call only the tools the request needs.",
    "Choose the tool whose description matches the request.",
    "Do not explain the call; just make it.",
    "Do not ask follow-up questions when the request gives every required value.",
)

#: the default prompt every tune scores beside the base prompt and no prompt
DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant with access to tools.\n"
    f"- {TOOL_RULES[0]}\n- {TOOL_RULES[1]}\n- {TOOL_RULES[3]}"
)

OPERATORS: tuple[str, ...] = (
    "add_rule",
    "format_hint",
    "tool_digest",
    "add_example",
    "crossover",
    "drop_rule",
    "shorten",
)

_FORMAT_HINTS = {
    "native": "Call tools through the function-calling interface; do not write calls as text.",
    "hermes": ('Write each call as <tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>.'),
    "pythonic": "Write calls as a Python list: [tool_name(param=value)].",
}


def _lines(text: str | None) -> list[str]:
    return [ln for ln in (text or "").splitlines() if ln.strip()]


def add_rule(text: str | None, rng: random.Random) -> str:
    """The prompt with one rule from :data:`TOOL_RULES` it does not have yet."""
    present = text or ""
    fresh = [r for r in TOOL_RULES if r not in present]
    if not fresh:
        return present
    return "\n".join([*_lines(text), f"- {rng.choice(fresh)}"])


def drop_rule(text: str | None, rng: random.Random) -> str:
    """The prompt without one of its ``- rule`` lines (unchanged when it has none)."""
    lines = _lines(text)
    rules = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("- ")]
    if not rules:
        return text or ""
    drop = rng.choice(rules)
    return "\n".join(ln for i, ln in enumerate(lines) if i != drop)


def format_hint(text: str | None, mode: str) -> str:
    hint = _FORMAT_HINTS.get(mode, _FORMAT_HINTS["native"])
    if hint in (text or ""):
        return text or ""
    return "\n".join([*_lines(text), hint])


def tool_digest(text: str | None, tools: Iterable[Tool]) -> str:
    """The prompt with a compact list of the tools (names, required params, descriptions)."""
    if "Tools:" in (text or ""):
        return text or ""
    digest = ["Tools:"]
    for t in tools:
        req = ", ".join(t.required) or "no required parameters"
        digest.append(f"- {t.name}({req}): {t.function.description[:80]}")
    return "\n".join([*_lines(text), *digest])


def example_from_case(case: EvalCase) -> FewShot:
    """A few-shot exchange from a (dev) case: its prompt and its first acceptable call(s)."""
    calls = tuple(
        {"name": c.name, "arguments": {k: v[0] for k, v in c.arguments.items() if v and v[0] != ""}}
        for c in case.expected_call_list()
    )
    content = None if calls else "No tool is needed for this request."
    return FewShot(user=case.prompt, calls=calls, content=content, case_id=case.id)


def crossover(a: str | None, b: str | None, rng: random.Random) -> str:
    """The first lines of ``a`` then the rule lines of ``b`` it lacks (shuffled, seeded)."""
    la, lb = _lines(a), _lines(b)
    extra = [ln for ln in lb if ln not in la]
    rng.shuffle(extra)
    keep = la[: max(1, (len(la) + 1) // 2)] if la else []
    return "\n".join([*keep, *extra[: max(1, len(extra) // 2 + 1)]])


def shorten(text: str | None, max_tokens: int) -> str:
    """Drop the longest non-first line, then more until the prompt fits ``max_tokens``."""
    lines = _lines(text)

    def drop_longest() -> None:
        lines.pop(max(range(1, len(lines)), key=lambda i: len(lines[i])))

    if len(lines) > 1:
        drop_longest()
    while len(lines) > 1 and count_tokens("\n".join(lines)) > max_tokens:
        drop_longest()
    return "\n".join(lines)


def apply_operator(
    name: str,
    parent: tuple[str | None, tuple[FewShot, ...]],
    other: tuple[str | None, tuple[FewShot, ...]] | None,
    *,
    rng: random.Random,
    mode: str,
    suite: Suite,
    dev_cases: list[EvalCase],
    max_tokens: int,
) -> tuple[str | None, tuple[FewShot, ...]]:
    """Apply operator ``name`` to ``parent`` (and ``other`` for crossover)."""
    text, shots = parent
    if name == "add_rule":
        return add_rule(text, rng), shots
    if name == "drop_rule":
        return drop_rule(text, rng), shots
    if name == "format_hint":
        return format_hint(text, mode), shots
    if name == "tool_digest":
        return tool_digest(text, suite.tools), shots
    if name == "add_example":
        used = {s.case_id for s in shots}
        pool = [c for c in dev_cases if c.id not in used and c.prompt]
        if not pool:
            return text, shots
        return text, (*shots, example_from_case(rng.choice(pool)))
    if name == "crossover":
        return crossover(text, other[0] if other else None, rng), shots
    if name == "shorten":
        return shorten(text, max_tokens), shots
    raise ValueError(f"unknown operator {name!r}; one of {OPERATORS}")


# -- filters -----------------------------------------------------------------------------------
def normalise(text: str | None) -> str:
    return re.sub(r"\s+", " ", (text or "").strip().lower())


def text_hash(text: str | None, shots: tuple[FewShot, ...] = ()) -> str:
    key = normalise(text) + "|" + ",".join(s.case_id or s.user for s in shots)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _trigrams(text: str) -> set[str]:
    t = normalise(text)
    return {t[i : i + 3] for i in range(max(1, len(t) - 2))}


def trigram_similarity(a: str | None, b: str | None) -> float:
    """Jaccard similarity of character trigrams (1.0 for identical normalised texts)."""
    ta, tb = _trigrams(a or ""), _trigrams(b or "")
    if not ta and not tb:
        return 1.0
    return len(ta & tb) / len(ta | tb)


def count_tokens(text: str | None) -> int:
    """A model-free token estimate: about 4 characters per token."""
    return (len(text or "") + 3) // 4


def holdout_values(cases: Iterable[EvalCase], min_len: int = 3) -> set[str]:
    """Every string argument value (≥ ``min_len`` characters) the cases expect."""
    out: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            if len(value.strip()) >= min_len:
                out.add(value.strip())
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    for case in cases:
        for call in case.expected_call_list():
            walk(call.arguments)
        walk(case.expected_params or {})
    return out


def leaked_value(text: str | None, shots: tuple[FewShot, ...], values: set[str]) -> str | None:
    """The first of ``values`` that appears as a whole word in the prompt or its examples."""
    blob = " ".join(
        [
            text or "",
            *(s.user for s in shots),
            *(str(c.get("arguments")) for s in shots for c in s.calls),
        ]
    ).lower()
    for value in sorted(values, key=lambda v: (-len(v), v)):
        if re.search(r"(?<!\w)" + re.escape(value.lower()) + r"(?!\w)", blob):
            return value
    return None
