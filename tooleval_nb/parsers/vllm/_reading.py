"""What one of vLLM's parsers returns for a whole output, before it meets our data model."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Reading", "blocks", "dumps", "no_calls"]


@dataclass
class Reading:
    """vLLM's answer: ``(name, arguments string)`` per call and the content it serves (None for
    none); ``error`` when its parser raises (the server then answers with an error)."""

    calls: list[tuple[Any, Any]] = field(default_factory=list)
    content: str | None = None
    error: str | None = None
    problems: list[str] = field(default_factory=list)


def no_calls(text: str, problem: str | None = None) -> Reading:
    """vLLM's fallback: no calls, the whole output as content."""
    return Reading(content=text, problems=[problem] if problem else [])


def dumps(value: Any) -> str:
    """Arguments as vLLM writes them: ``json.dumps(value, ensure_ascii=False)``."""
    return json.dumps(value, ensure_ascii=False)


def blocks(text: str, start: str, end: str, pos: int = 0) -> list[tuple[int, int, str]]:
    """``(start index, end index, body)`` of every ``start ... end`` block, as
    ``re.finditer(start(.*?)end, re.S)`` finds them, in linear time: where no ``end`` follows a
    ``start``, none follows a later one, so the search stops instead of scanning to the end of
    the text again from each later ``start``."""
    found = []
    while (i := text.find(start, pos)) != -1:
        j = text.find(end, i + len(start))
        if j == -1:
            break
        found.append((i, j + len(end), text[i + len(start) : j]))
        pos = j + len(end)
    return found
