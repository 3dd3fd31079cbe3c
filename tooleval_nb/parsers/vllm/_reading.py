"""What one of vLLM's parsers returns for a whole output, before it meets our data model."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Reading", "dumps", "no_calls"]


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
