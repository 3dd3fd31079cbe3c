"""The parsers' data model (the seed's names): what a whole-text parse returns and what a
stream sends.

* :class:`ExtractedToolCallInformation`: the result of parsing a whole output.
* :class:`DeltaMessage`, :class:`DeltaToolCall`, :class:`DeltaFunctionCall`: what a streaming
  parser emits (see :mod:`.protocol` for the streaming contract, :mod:`._settle` for how a
  stream's last delta settles it to the whole-text parse).
* :func:`final_content`: the content rule both modes share; :data:`Compat`: how an output is
  read (ours, or exactly as vLLM serves it).

These are re-exported by :mod:`.protocol`, where they have always been imported from.
"""

from __future__ import annotations

import html
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..display import mimebundle
from ..toolcall import ToolCall

__all__ = [
    "Compat",
    "COMPAT_MODES",
    "ExtractedToolCallInformation",
    "DeltaFunctionCall",
    "DeltaToolCall",
    "DeltaMessage",
    "final_content",
]

#: How a parser reads a whole output: ``"default"`` (ours: text around the calls is content, a
#: malformed call is content with a problem) or ``"vllm"`` (exactly what vLLM's
#: ``--tool-call-parser`` of the same name serves, see :mod:`.vllm`)
Compat = Literal["default", "vllm"]
COMPAT_MODES: tuple[str, ...] = ("default", "vllm")


class ExtractedToolCallInformation(BaseModel):
    """The tool calls and the content found in one model output.

    Attributes:
        tools_called: whether any tool call was found (always ``bool(tool_calls)``).
        tool_calls: the calls, OpenAI-shaped, arguments as a JSON string with types preserved.
        content: the text that is not a tool call. The original output when no call was found;
            otherwise the remaining text stripped, or None when only whitespace remains.
        reasoning: reasoning text kept apart from content (harmony ``analysis`` channel, hermes
            ``<scratch_pad>``), or None.
        problems: one sentence per malformed or suspicious part (a malformed call is a result to
            score, never an exception).
    """

    model_config = ConfigDict(frozen=True)

    tools_called: bool
    tool_calls: list[ToolCall] = Field(default_factory=list)
    content: str | None = None
    reasoning: str | None = None
    problems: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> ExtractedToolCallInformation:
        if self.tools_called != bool(self.tool_calls):
            raise ValueError("tools_called must be True exactly when tool_calls is not empty")
        return self

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return mimebundle(repr(self), self._html)

    def _html(self) -> str:
        rows = "".join(
            f"<tr><td>{i}</td><td><code>{html.escape(c.function.name)}</code></td>"
            f"<td><code>{html.escape(c.function.arguments)}</code></td></tr>"
            for i, c in enumerate(self.tool_calls)
        )
        parts = [f"<b>{len(self.tool_calls)} tool call(s)</b>"]
        if rows:
            parts.append(f"<table><tr><th>#</th><th>name</th><th>arguments</th></tr>{rows}</table>")
        for label, value in (("content", self.content), ("reasoning", self.reasoning)):
            if value is not None:
                parts.append(f"<div><b>{label}:</b> <pre>{html.escape(value)}</pre></div>")
        if self.problems:
            items = "".join(f"<li>{html.escape(p)}</li>" for p in self.problems)
            parts.append(f"<div><b>problems:</b><ul>{items}</ul></div>")
        return "".join(parts)


class DeltaFunctionCall(BaseModel):
    """The function part of a streaming tool-call delta."""

    name: str | None = None
    arguments: str | None = None


class DeltaToolCall(BaseModel):
    """One streaming update to the tool call at ``index``.

    ``id``, ``type`` and ``function.name`` are present on the first delta of an index only;
    ``function.arguments`` fragments concatenate to the full arguments string. ``withdrawn``
    (in a stream's last delta only) takes the call back: it is not among the final calls (the
    whole-text parse of the same text does not have it; the reason is in the delta's
    ``problems``), and its index stays used.
    """

    index: int = Field(ge=0)
    id: str | None = None
    type: Literal["function"] | None = None
    function: DeltaFunctionCall = Field(default_factory=DeltaFunctionCall)
    withdrawn: bool = False


class DeltaMessage(BaseModel):
    """One streaming update: a content fragment, a reasoning fragment and/or tool-call deltas.

    A stream's last delta may also settle it to the whole-text parse: ``content_from`` (and
    ``reasoning_from``) cut the content received so far back to its first N characters before
    this delta's ``content`` is appended, and ``problems`` lists the output's problems (sent
    once, in the last delta).
    """

    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[DeltaToolCall] = Field(default_factory=list)
    content_from: int | None = Field(default=None, ge=0)
    reasoning_from: int | None = Field(default=None, ge=0)
    problems: list[str] = Field(default_factory=list)


def final_content(text: str, tools_called: bool) -> str | None:
    """The content rule shared by both modes: the text as is when no call was found, otherwise
    the text stripped (None when nothing but whitespace remains)."""
    if not tools_called:
        return text
    return text.strip() or None
