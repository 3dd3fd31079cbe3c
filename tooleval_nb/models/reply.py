"""The result of one model call: :class:`ModelReply`.

A reply is always returned, errors included: a call that failed after its retries carries
``error`` (the message) and ``error_type`` (the :mod:`tooleval_nb.errors` class name, e.g.
``"ModelRateLimitError"``), so a run records it instead of crashing.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..credentials import REDACTED, is_credential_key, mask
from ..toolcall import ToolCall

__all__ = ["ModelReply", "scrub_secrets"]


class ModelReply(BaseModel):
    """One model call's outcome: parsed tool calls, text, usage, timing and bookkeeping."""

    model_config = ConfigDict(extra="forbid")

    #: the model string called
    model: str = ""
    #: ``native``, ``hermes`` or ``pythonic`` (see :mod:`tooleval_nb.models.spec`)
    mode: str = "native"
    #: the parsed tool calls, names mapped back to the suite's names
    tool_calls: list[ToolCall] = Field(default_factory=list)
    #: the assistant's text (in raw-text mode: the text around the tool calls)
    content: str | None = None
    #: the assistant's text exactly as returned, before any parsing
    raw_text: str | None = None
    #: reasoning kept apart from the content by a raw-text parser (``<think>``, harmony analysis)
    reasoning_content: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    #: US dollars when litellm knows the price, else None
    cost: float | None = None
    #: duration of the answered request, milliseconds (0 for a cache hit's lookup)
    latency_ms: float = 0.0
    #: wall time of the whole call including retries and back-off, milliseconds
    total_ms: float = 0.0
    #: requests sent (1 = no retry)
    tries: int = 0
    #: ``tool_choice="required"`` was replaced by ``"auto"`` for this call
    fallback: bool = False
    #: the tool_choice actually sent
    tool_choice: Any = None
    cached: bool = False
    error: str | None = None
    error_type: str | None = None
    #: HTTP status of the last failed request, when there was one
    status_code: int | None = None
    #: problems met while reading the reply (malformed arguments, raw-text parse problems)
    parse_problems: list[str] = Field(default_factory=list)
    #: the provider's response as a dict, secrets removed
    raw: dict[str, Any] = Field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def tools_called(self) -> bool:
        return bool(self.tool_calls)

    def __repr__(self) -> str:
        if self.error:
            return (
                f"ModelReply(model={self.model!r}, error_type={self.error_type!r}, "
                f"error={self.error[:80]!r}, tries={self.tries})"
            )
        calls = ", ".join(f"{c.name}({c.function.arguments})" for c in self.tool_calls)
        text = self.content if self.content is None else self.content[:60]
        return (
            f"ModelReply(model={self.model!r}, mode={self.mode!r}, tool_calls=[{calls}], "
            f"content={text!r}, latency_ms={self.latency_ms:.0f}, tries={self.tries}"
            f"{', fallback=True' if self.fallback else ''}{', cached=True' if self.cached else ''})"
        )

    __str__ = __repr__


def scrub_secrets(value: Any, secrets: tuple[str, ...] = ()) -> Any:
    """A copy of ``value`` with credentials' values replaced (keys that
    :func:`~tooleval_nb.credentials.is_credential_key` names), and the given secret strings
    masked."""
    secrets = tuple(s for s in secrets if s and len(s) >= 6)
    return _scrub(value, secrets)


def _scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {
            k: (REDACTED if is_credential_key(k) else _scrub(v, secrets)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    if secrets and isinstance(value, str):
        return mask(value, secrets)
    return value
