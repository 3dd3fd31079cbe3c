"""Streaming a call as it is written: the call-stream protocol every format's body reader follows.

A :class:`CallStream` reads the body of one marked region (the text between ``<tool_call>``
and ``</tool_call>``, a bracketed list, a harmony message body) a piece at a time and builds
:class:`StreamCall` s: a call's ``name`` as soon as it is certain, then its ``parts``, the
fragments of its arguments string, as they become certain. The fragments of a call always
concatenate to a JSON object string, exactly the text a whole-body reader writes
(``json.dumps(value, ensure_ascii=False)``): values are re-written in that canonical form as they
arrive, so nothing sent has to be taken back.

:class:`HeldStream` is the base of the readers that scan their own syntax (Python calls, XML-ish
markup, special-token sequences): it holds back the tail of a piece that cannot be read yet (a
partial marker) and reads it again with the next piece.

The readers: :mod:`._jsonstream` (JSON bodies), :mod:`._pystream` (Python calls),
:mod:`._xmlstream` (XML-ish parameters), :mod:`._seqstream` (special-token sections).

A stream never raises: the first malformed byte sets :attr:`CallStream.error` and the stream
stops reading. Whether that error can still change the result is the parser's business
(:class:`~.protocol.ToolParser`): before any delta of the region was sent, the region is read
whole as before; after, the calls already sent stay calls and the error goes to ``problems``.
"""

from __future__ import annotations

__all__ = ["StreamCall", "CallStream", "HeldStream"]


class StreamCall:
    """A call being streamed: its name once certain, and its arguments fragments.

    Attributes:
        name: the function name; None until it is certain.
        parts: the arguments fragments so far (they concatenate to a JSON object string once
            the call is closed).
        closed: the call's arguments are complete.
    """

    __slots__ = ("name", "parts", "closed")

    def __init__(self, name: str | None = None) -> None:
        self.name = name
        self.parts: list[str] = []
        self.closed = False

    @property
    def arguments(self) -> str:
        return "".join(self.parts)


class CallStream:
    """Base of the incremental body readers (see the module docstring).

    Attributes:
        calls: the calls found so far, in order; only calls with a name may be sent.
        error: why the body stopped being a valid call (None while it is valid).
        error_at: where the text that is not part of a complete call starts once an error
            showed: the end of the last call that closed properly.
        done_at: body characters that belong to the calls of :attr:`complete` (for an unclosed
            list: where the last closed call ends).
    """

    def __init__(self) -> None:
        self.calls: list[StreamCall] = []
        self.error: str | None = None
        self.error_at = 0
        self.fed = 0
        self.done_at = 0
        #: after :meth:`finish`: the calls that closed properly (not closed by a repair)
        self.completed: list[StreamCall] = []

    def feed(self, text: str) -> None:
        """Read the next piece of the body."""
        if self.error is not None or not text:
            self.fed += len(text)
            return
        try:
            self._feed(text)
        except Exception as exc:  # a reader bug must not break the parser: stop streaming
            self._fail(f"the stream reader failed ({type(exc).__name__}: {exc})")
        self.fed += len(text)

    def finish(self, closed: bool) -> None:
        """The body ended (``closed``: at its closing marker; otherwise the output ended).

        Afterwards every call is closed: arguments cut short are ended with the closers they
        need, and :attr:`error` says why when the body was not complete.
        """
        if self.error is None:
            try:
                self._finish(closed)
            except Exception as exc:
                self._fail(f"the stream reader failed ({type(exc).__name__}: {exc})")
        if self.error is not None:
            # the text of the call cut short is content too (its call, once sent, stays)
            self.error_at = self.done_at
        self.completed = self.complete
        for call in self.calls:
            if not call.closed:
                self._repair(call)
                call.closed = True

    @property
    def complete(self) -> list[StreamCall]:
        """The calls whose arguments closed properly (a prefix of :attr:`calls`)."""
        out = []
        for call in self.calls:
            if not call.closed or call.name is None:
                break
            out.append(call)
        return out

    # ---------------------------------------------------------------- for subclasses
    def _feed(self, text: str) -> None:
        raise NotImplementedError

    def _finish(self, closed: bool) -> None:
        raise NotImplementedError

    def _repair(self, call: StreamCall) -> None:
        """End the arguments of a call cut short (default: ``{}`` when nothing was written)."""
        if not call.parts:
            call.parts.append("{}")

    def _fail(self, reason: str) -> None:
        if self.error is None:
            self.error = reason
            self.error_at = self.fed


class HeldStream(CallStream):
    """A call stream that scans its own syntax with :meth:`_run`, holding back the text it
    cannot read yet (a partial marker at the end of a piece) until the next piece comes.

    :meth:`_run` reads ``data`` from its start and returns how far it read; ``_base`` is the
    body offset of ``data[0]`` (for :attr:`~CallStream.done_at`). :meth:`_end_body` checks the
    state once the body ended (called only while there is no error).
    """

    def __init__(self) -> None:
        super().__init__()
        self._held = ""
        self._base = 0

    def _feed(self, text: str) -> None:
        data = self._held + text if self._held else text
        self._base = self.fed - len(self._held)
        self._held = ""
        i = self._run(data, False)
        if self.error is None:
            self._held = data[i:]

    def _finish(self, closed: bool) -> None:
        data, self._held = self._held, ""
        self._base = self.fed - len(data)
        self._run(data, True)
        if self.error is None:
            self._end_body(closed)

    def _run(self, data: str, final: bool) -> int:
        raise NotImplementedError

    def _end_body(self, closed: bool) -> None:
        raise NotImplementedError
