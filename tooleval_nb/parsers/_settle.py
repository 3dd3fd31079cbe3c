"""How a stream ends where the whole-text parse does: the last delta settles the differences.

A streaming parser sends calls, argument fragments and content as soon as they are certain; a
client cannot take back a delta it has received. But the *final state* of a stream (what
:class:`~.reconstruct.StreamingToolReconstructor` rebuilds) must equal the whole-text parse of
the same text, for every input, malformed ones included. So when the stream ends,
:func:`settle` parses the whole text once (the same machine, or the ``compat`` reading), compares
it with what the stream sent, and writes the differences into the last delta:

* the calls sent that agree with the whole-text calls, in order from the first, stay;
* a call sent after them is **withdrawn** (``DeltaToolCall(index=k, withdrawn=True)``): the
  reconstructor drops it from its final calls; its index stays used;
* the whole-text calls not yet sent follow as new calls (new indexes), each in one delta;
* content (and reasoning) that differ are **cut back** to the longest prefix both share
  (``DeltaMessage.content_from``) and the whole-text rest follows in the delta's ``content``;
* the delta carries the whole-text parse's ``problems``: the reason a call was withdrawn is
  there, as the whole-text parse words it.

A stream of well-formed output needs none of this: its last delta carries only its problems
(none). The cost is one whole-text parse per stream, linear in the text.
"""

from __future__ import annotations

from typing import Any

from ..toolcall import FunctionCall, ToolCall
from .messages import DeltaFunctionCall, DeltaToolCall, ExtractedToolCallInformation

__all__ = ["SentState", "settle"]


class SentState:
    """What a stream has sent so far, as a client received it (ids, names, argument texts,
    content and reasoning lengths)."""

    __slots__ = ("ids", "names", "args", "content", "reasoning")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.names: list[str] = []
        self.args: list[list[str]] = []
        self.content: list[str] = []
        self.reasoning: list[str] = []

    def record(
        self,
        content: str,
        reasoning: str,
        calls: list[DeltaToolCall],
        cuts: tuple[int | None, int | None] = (None, None),
    ) -> None:
        for parts, cut in zip((self.content, self.reasoning), cuts, strict=True):
            if cut is not None:
                parts[:] = ["".join(parts)[:cut]]
        if content:
            self.content.append(content)
        if reasoning:
            self.reasoning.append(reasoning)
        for call in calls:
            if call.index == len(self.ids):
                self.ids.append(call.id or "")
                self.names.append(call.function.name or "")
                self.args.append([])
            if call.function.arguments and call.index < len(self.args):
                self.args[call.index].append(call.function.arguments)


def _rewind(sent: str, want: str) -> tuple[int, str] | None:
    """``(keep, rest)``: keep the first ``keep`` characters of ``sent``, then append ``rest`` to
    get ``want``; None when ``sent`` is already ``want``."""
    if sent == want:
        return None
    keep = 0
    limit = min(len(sent), len(want))
    while keep < limit and sent[keep] == want[keep]:
        keep += 1
    return keep, want[keep:]


def settle(parser: Any, whole: ExtractedToolCallInformation) -> ExtractedToolCallInformation:
    """Bring the parser's last delta (its pending ``_d_*`` buffers) and state to ``whole``.

    ``parser`` is a :class:`~.protocol.ToolParser` (which imports this module: typed loosely
    here so that the two do not import each other).

    ``parser._sent`` holds what earlier deltas sent; the pending buffers hold what the last
    delta would send. Returns the parser's final result: ``whole`` with the ids the stream sent.
    """
    sent: SentState = parser._sent
    flushed = len(sent.ids)
    # the state the client reaches if the pending deltas go out as they are
    total_names = list(sent.names)
    total_args = ["".join(a) for a in sent.args]
    total_ids = list(sent.ids)
    for call in parser._d_calls:
        if call.index == len(total_names):
            total_names.append(call.function.name or "")
            total_args.append("")
            total_ids.append(call.id or "")
        if call.function.arguments:
            total_args[call.index] += call.function.arguments
    want = [(c.function.name, c.function.arguments) for c in whole.tool_calls]
    agree = 0
    while (
        agree < len(want)
        and agree < len(total_names)
        and (total_names[agree], total_args[agree]) == want[agree]
    ):
        agree += 1
    # pending deltas of calls not yet introduced and not agreed on are never sent
    first_new = max(agree, flushed)
    deltas = [d for d in parser._d_calls if d.index < first_new]
    for index in range(agree, flushed):
        deltas.append(DeltaToolCall(index=index, withdrawn=True))
    calls = [
        ToolCall(id=total_ids[k], function=FunctionCall(name=want[k][0], arguments=want[k][1]))
        for k in range(agree)
    ]
    for j, extra in enumerate(whole.tool_calls[agree:]):
        deltas.append(
            DeltaToolCall(
                index=first_new + j,
                id=extra.id,
                type="function",
                function=DeltaFunctionCall(
                    name=extra.function.name, arguments=extra.function.arguments
                ),
            )
        )
        calls.append(extra)
    parser._d_calls = deltas
    # content and reasoning: the client's raw text must give the whole-text value under the
    # content rule (final_content); the whole-text value itself is such a raw text
    for field, want_text in (("content", whole.content), ("reasoning", whole.reasoning)):
        pending = getattr(parser, f"_d_{field}")
        have = "".join(getattr(sent, field)) + "".join(pending)
        target = want_text or ""
        if field == "content" and calls and (have.strip() or None) == want_text:
            continue  # equal under the content rule (stripped when there are calls)
        edit = _rewind(have, target)
        if edit is None:
            continue
        keep, rest = edit
        before = len("".join(getattr(sent, field)))
        if keep >= before:  # only the pending part changes: no cut needed
            setattr(parser, f"_d_{field}", [target[before:]] if target[before:] else [])
        else:
            setattr(parser, f"_rewind_{field}", keep)
            setattr(parser, f"_d_{field}", [rest] if rest else [])
    return whole.model_copy(update={"tool_calls": calls, "tools_called": bool(calls)})
