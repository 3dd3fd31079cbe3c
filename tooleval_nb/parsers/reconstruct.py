"""Rebuild tool calls from streaming deltas, checking the streaming protocol on the way.

The protocol (the seed's, as OpenAI streams tool calls):

* tool-call indexes are 0-based and introduced in order (a new index is the next one);
* the first delta of an index carries a non-empty ``id`` (unique in the message), ``type``
  ``"function"`` and the function ``name``;
* later deltas of that index carry neither id nor name, only ``arguments`` fragments, which
  concatenate to a JSON object string (or ``""``);
* fragments only append: each one extends what came before, so the text so far is always the
  start of a JSON object (a fragment that resends the arguments, or anything after the object
  closed, is a violation);
* a stream ends where the whole-text parse of its text does: its last delta may withdraw calls
  (``withdrawn``: they leave the final calls, their indexes stay used; a withdrawn index gets no
  more deltas), cut the content (or reasoning) received back to its first ``content_from``
  characters before appending its own, and carries the output's ``problems``, which
  :meth:`StreamingToolReconstructor.result` returns.

Each violation names the delta it was found in (``delta 7: ...``), counted from 1 over the
deltas appended (None deltas are not counted); :attr:`StreamingToolReconstructor.first_violation`
is the first one.

Deltas may be our :class:`DeltaMessage`, dicts of the same shape, or another stack's objects with
the same attributes (``reasoning_content`` is read as ``reasoning``).
"""

from __future__ import annotations

from typing import Any

from ..errors import ParserError
from ..toolcall import FunctionCall, ToolCall
from ._jsonwriter import JsonWriter
from .protocol import ExtractedToolCallInformation, final_content

__all__ = ["StreamingToolReconstructor"]


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


class StreamingToolReconstructor:
    """Accumulate :class:`DeltaMessage` s into complete tool calls and content.

    Args:
        strict: raise :class:`~tooleval_nb.errors.ParserError` at the first protocol violation;
            with ``strict=False`` violations are collected in :attr:`violations` instead.

    Attributes:
        other_content: the content text accumulated so far.
        reasoning: the reasoning text accumulated so far.
        violations: one sentence per protocol violation seen.
        n_deltas: how many deltas were appended.
        problems: the problems the stream reported (its last delta's ``problems``).
    """

    def __init__(self, *, strict: bool = True) -> None:
        self.strict = strict
        self.violations: list[str] = []
        self.n_deltas = 0
        self.problems: list[str] = []
        self._withdrawn: set[int] = set()
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._ids: list[str] = []
        self._names: list[str] = []
        self._args: list[list[str]] = []
        self._checks: list[JsonWriter] = []

    @property
    def first_violation(self) -> str | None:
        """The first protocol violation seen (``"delta N: ..."``), or None."""
        return self.violations[0] if self.violations else None

    @property
    def other_content(self) -> str:
        return "".join(self._content)

    @property
    def reasoning(self) -> str:
        return "".join(self._reasoning)

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The calls rebuilt so far."""
        return [
            ToolCall(id=i, function=FunctionCall(name=n, arguments="".join(a)))
            for k, (i, n, a) in enumerate(zip(self._ids, self._names, self._args, strict=True))
            if k not in self._withdrawn
        ]

    def append_delta(self, delta: Any) -> None:
        """Process one delta (None is ignored: a parser returns None when it has nothing)."""
        if delta is None:
            return
        self.n_deltas += 1
        for field, parts in (("content", self._content), ("reasoning", self._reasoning)):
            cut = _get(delta, f"{field}_from")
            if cut is None:
                continue
            text = "".join(parts)
            if not isinstance(cut, int) or isinstance(cut, bool) or not 0 <= cut <= len(text):
                self._violate(
                    f"delta {self.n_deltas}: {field}_from {cut!r} is not a position in the "
                    f"{len(text)} characters of {field} received"
                )
                continue
            parts[:] = [text[:cut]] if cut else []
        content = _get(delta, "content")
        if content is not None:
            if isinstance(content, str):
                self._content.append(content)
            else:
                self._violate(f"delta {self.n_deltas}: content is a {type(content).__name__}")
        reasoning = _get(delta, "reasoning", None)
        if reasoning is None:
            reasoning = _get(delta, "reasoning_content", None)
        if isinstance(reasoning, str):
            self._reasoning.append(reasoning)
        for call in _get(delta, "tool_calls") or []:
            self._append_call(call)
        problems = _get(delta, "problems")
        if problems:
            self.problems.extend(str(p) for p in problems)

    def _append_call(self, call: Any) -> None:
        where = f"delta {self.n_deltas}"
        index = _get(call, "index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            self._violate(f"{where}: tool-call index {index!r} is not an integer >= 0")
            return
        function = _get(call, "function")
        name = _get(function, "name") if function is not None else None
        arguments = _get(function, "arguments") if function is not None else None
        call_id, kind = _get(call, "id"), _get(call, "type")
        if index in self._withdrawn:
            self._violate(f"{where}: tool call {index} gets a delta after it was withdrawn")
            return
        if _get(call, "withdrawn", False):
            if index >= len(self._ids):
                self._violate(f"{where}: tool call {index} is withdrawn before it was sent")
            elif call_id or name or arguments:
                self._violate(f"{where}: tool call {index} is withdrawn with an id, name or text")
            self._withdrawn.add(index)
            return
        if index == len(self._ids):  # a new call
            if not isinstance(call_id, str) or not call_id:
                self._violate(f"{where}: tool call {index} is introduced without an id")
                call_id = f"missing-id-{index}"
            elif call_id in self._ids:
                self._violate(f"{where}: tool call {index} reuses the id {call_id!r}")
            if kind not in ("function", None):
                self._violate(f"{where}: tool call {index} has type {kind!r}, not 'function'")
            elif kind is None:
                self._violate(f"{where}: tool call {index} is introduced without type 'function'")
            if not isinstance(name, str) or not name:
                self._violate(f"{where}: tool call {index} is introduced without a name")
                name = ""
            self._ids.append(call_id)
            self._names.append(name)
            self._args.append([])
            self._checks.append(JsonWriter(None))
        elif index < len(self._ids):
            if call_id is not None and call_id != "":
                self._violate(f"{where}: tool call {index} sends its id again")
            if name is not None and name != "":
                self._violate(f"{where}: tool call {index} sends its name again")
        else:
            self._violate(f"{where}: tool-call index {index} skips index {len(self._ids)}")
            return
        if arguments is not None:
            if isinstance(arguments, str):
                self._args[index].append(arguments)
                self._check_fragment(index, arguments, where)
            else:
                self._violate(
                    f"{where}: tool call {index} arguments are a "
                    f"{type(arguments).__name__}, not text"
                )

    def _check_fragment(self, index: int, fragment: str, where: str) -> None:
        """Fragments only append: the arguments so far must stay the start of a JSON object."""
        check = self._checks[index]
        if check.error is not None or not fragment:
            return
        if check.done:
            if fragment.strip():
                self._violate(
                    f"{where}: tool call {index} sends arguments after its JSON object "
                    f"closed ({fragment[:40]!r}: a resent or replaced fragment?)"
                )
                check.error = "reported"
            return
        if not check.started and fragment.strip() and not fragment.lstrip().startswith("{"):
            check.error = "reported"
            self._violate(
                f"{where}: tool call {index} arguments do not start a JSON object "
                f"({fragment[:40]!r})"
            )
            return
        used = check.feed(fragment)
        if check.error is not None:
            self._violate(
                f"{where}: tool call {index} arguments stop being JSON "
                f"({check.error}) with the fragment {fragment[:40]!r}"
            )
        elif check.done and fragment[used:].strip():
            check.error = "reported"
            self._violate(
                f"{where}: tool call {index} sends arguments after its JSON object "
                f"closed ({fragment[used:][:40]!r}: a resent or replaced fragment?)"
            )

    def result(self, problems: list[str] | None = None) -> ExtractedToolCallInformation:
        """The rebuilt output, with the same content rule as non-streaming parsing.

        ``problems`` defaults to the ones the stream sent. Also checks that every call's
        arguments are a JSON object string (or empty).
        """
        if problems is None:
            problems = self.problems
        calls = self.tool_calls
        for k, call in enumerate(calls):
            if call.function.arguments.strip() and call.parsed_arguments() is None:
                self._violate(
                    f"tool call {k} arguments are not a JSON object: "
                    f"{call.function.arguments[:80]!r}"
                )
        return ExtractedToolCallInformation(
            tools_called=bool(calls),
            tool_calls=calls,
            content=final_content(self.other_content, bool(calls)),
            reasoning=self.reasoning or None,
            problems=list(problems or []),
        )

    def _violate(self, message: str) -> None:
        if message in self.violations:
            return
        self.violations.append(message)
        if self.strict:
            raise ParserError(f"streaming protocol violated: {message}")
