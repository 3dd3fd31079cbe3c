"""The parser conformance kit: a corpus of model outputs with expected calls, and a checker.

``load_corpus("hermes")`` (see :mod:`.corpus`) reads the corpus of a format: the seed's ten
standard patterns (plain text, empty and whitespace, single call, parallel calls, every JSON type,
parameterless calls, surrounding text, escapes and unicode, malformed input, streaming splits)
plus real outputs of the embedded model (``source: smollm2-135m``).

``check_parser(parser, corpus)`` runs a parser over every case in both modes and returns one
DataFrame row per case and mode. The parser can be a format name, one of our parser classes, or a
user's parser: any object with ``feed(delta)`` / ``finish()`` (copied fresh for each case), any
class building one, or a plain callable ``text -> result`` (non-streaming only). Results may be
our models, another stack's objects with the same attributes, or dicts.

What is checked (the reason column names the first failure):

* ``tools_called``, the number of calls, each name, and each arguments string decoded as JSON and
  compared with types (``1`` is not ``1.0`` nor ``true``); ``""`` and ``"{}"`` are equal;
* ids: present, unique, matching the corpus's ``id_pattern`` (≥ 16 characters; Mistral: nine
  alphanumeric characters);
* content, compared stripped, ``None`` equal to ``""``; reasoning when the case gives it; that a
  problem was recorded for malformed cases when the parser reports ``problems``;
* streaming, under several chunkings (whole, per character, random sizes, and the case's own
  split points): the streaming protocol (checked by :class:`StreamingToolReconstructor`), the
  expectations above, and equality with the parser's own non-streaming result, malformed cases
  included (a call sent before its error showed is withdrawn in the stream's last delta);
* how early a call streams, measured per character on the case's first call: ``to_name``, the
  characters from the call's start (where the content before it ends) to the delta that sent
  its name, and ``to_arguments``, to the delta that sent its first arguments fragment (NaN
  when the case has no call or the parser does not stream).
"""

from __future__ import annotations

import copy
import json
import random
import re
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ParserError
from ..toolcall import to_tool_calls
from .corpus import (
    CORPUS_DIR,
    CORPUS_ENV,
    ExpectedParsedCall,
    ParserCase,
    ParserCorpus,
    corpus_dirs,
    load_corpus,
)
from .protocol import Compat, ToolParser
from .reconstruct import StreamingToolReconstructor
from .registry import compat_parser, get_parser, parse_as, parser_class

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "ExpectedParsedCall",
    "ParserCase",
    "ParserCorpus",
    "load_corpus",
    "check_parser",
    "CORPUS_DIR",
    "CORPUS_ENV",
    "corpus_dirs",
    "CHECK_COLUMNS",
    "Chunking",
    "stream_differs",
]

#: the chunkings ``check_parser`` streams each case with
Chunking = Literal["whole", "per_char", "random", "split_points"]

#: columns of the DataFrame ``check_parser`` returns, in order
CHECK_COLUMNS = [
    "parser",
    "format",
    "scenario",
    "pattern",
    "source",
    "mode",
    "status",
    "passed",
    "reason",
    "expected",
    "got",
    "seconds",
    "to_name",
    "to_arguments",
]


# ---------------------------------------------------------------------------- results
class _Outcome:
    """A parser's answer in one shape, whatever the parser returned."""

    __slots__ = ("calls", "content", "reasoning", "problems", "tools_called", "missing_ids")

    def __init__(self, result: Any) -> None:
        def get(name: str, default: Any = None) -> Any:
            if isinstance(result, dict):
                return result.get(name, default)
            return getattr(result, name, default)

        raw = result if isinstance(result, (list, tuple)) else (get("tool_calls") or [])
        # ToolCall.of invents ids for calls given without one: count them first
        self.missing_ids = sum(1 for item in raw if not _raw_id(item))
        if isinstance(result, (list, tuple)):
            self.calls, self.content, self.reasoning, self.problems = (
                to_tool_calls(result),
                None,
                None,
                None,
            )
            self.tools_called = bool(self.calls)
            return
        self.calls = to_tool_calls(raw)
        self.content = get("content")
        self.reasoning = get("reasoning", get("reasoning_content"))
        self.problems = get("problems")
        called = get("tools_called")
        self.tools_called = bool(self.calls) if called is None else bool(called)


def _raw_id(item: Any) -> Any:
    return item.get("id") if isinstance(item, dict) else getattr(item, "id", None)


def _canonical(arguments: str | None) -> str | None:
    if arguments is None or not arguments.strip():
        return "{}"
    try:
        return json.dumps(json.loads(arguments), sort_keys=True, ensure_ascii=False)
    except ValueError:
        return None


def _norm(text: str | None) -> str:
    return (text or "").strip()


def _expected(case: ParserCase, compat: Compat) -> ParserCase:
    """The case as the reading ``compat`` must answer it: in ``"vllm"``, a case's ``vllm``
    expectation replaces ours (its problems are not checked: vLLM reports none)."""
    if compat != "vllm" or case.vllm is None:
        return case
    return case.model_copy(
        update={
            "expected_tools_called": case.vllm.tools_called,
            "expected_tool_calls": case.vllm.tool_calls,
            "expected_content": case.vllm.content,
            "expect_problem": None,
        }
    )


def _compare(case: ParserCase, got: _Outcome, id_regex: re.Pattern[str]) -> list[str]:
    reasons: list[str] = []
    if got.tools_called != case.expected_tools_called:
        reasons.append(f"tools_called is {got.tools_called}, expected {case.expected_tools_called}")
    expected = case.expected_tool_calls
    if len(got.calls) != len(expected):
        reasons.append(f"{len(got.calls)} call(s), expected {len(expected)}")
    for k, (call, want) in enumerate(zip(got.calls, expected, strict=False)):
        if call.function.name != want.name:
            reasons.append(f"call {k} is {call.function.name!r}, expected {want.name!r}")
        args = _canonical(call.function.arguments)
        if args is None:
            reasons.append(f"call {k} arguments are not JSON: {call.function.arguments[:60]!r}")
        elif args != json.dumps(want.value(), sort_keys=True, ensure_ascii=False):
            reasons.append(
                f"call {k} arguments are {call.function.arguments[:80]}, expected "
                f"{json.dumps(want.value(), ensure_ascii=False)[:80]}"
            )
    if got.missing_ids:
        reasons.append(f"{got.missing_ids} call(s) without an id")
    ids = [c.id for c in got.calls]
    if len(set(ids)) != len(ids):
        reasons.append("tool-call ids are not unique")
    bad_ids = [i for i in ids if not i or not id_regex.search(i)]
    if bad_ids:
        reasons.append(f"id {bad_ids[0]!r} does not match {id_regex.pattern}")
    if _norm(got.content) != _norm(case.expected_content):
        reasons.append(
            f"content is {_norm(got.content)[:60]!r}, expected "
            f"{_norm(case.expected_content)[:60]!r}"
        )
    if "expected_reasoning" in case.model_fields_set:
        if _norm(got.reasoning) != _norm(case.expected_reasoning):
            reasons.append(
                f"reasoning is {_norm(got.reasoning)[:60]!r}, expected "
                f"{_norm(case.expected_reasoning)[:60]!r}"
            )
    if case.expect_problem is not None and got.problems is not None:
        if case.expect_problem and not got.problems:
            reasons.append("no problem was recorded for malformed input")
        elif not case.expect_problem and got.problems:
            reasons.append(f"a problem was recorded for clean input: {got.problems[0][:80]}")
    return reasons


def stream_differs(streamed: Any, whole: Any) -> str | None:
    """Why a streamed result breaks the streaming contract against the whole-text parse of the
    same output, or None.

    The two must be equal: calls with their exact arguments strings, content, reasoning and
    problems, for every output (a call withdrawn in the stream's last delta is not a call).
    """
    a, b = _Outcome(streamed), _Outcome(whole)
    left = [(c.function.name, c.function.arguments) for c in a.calls]
    right = [(c.function.name, c.function.arguments) for c in b.calls]
    if left != right:
        return f"streamed calls {left} differ from whole-text {right}"
    for field in ("content", "reasoning", "problems"):
        if getattr(a, field) != getattr(b, field):
            return (
                f"streamed {field} {str(getattr(a, field))[:80]!r} differs from whole-text "
                f"{str(getattr(b, field))[:80]!r}"
            )
    return None


def _same(a: _Outcome, b: _Outcome) -> str | None:
    """Why a streaming outcome differs from the non-streaming one, or None."""
    left = [(c.function.name, _canonical(c.function.arguments)) for c in a.calls]
    right = [(c.function.name, _canonical(c.function.arguments)) for c in b.calls]
    if left != right:
        return f"streaming calls {left} differ from non-streaming {right}"
    if _norm(a.content) != _norm(b.content):
        return (
            f"streaming content {_norm(a.content)[:50]!r} differs from non-streaming "
            f"{_norm(b.content)[:50]!r}"
        )
    if _norm(a.reasoning) != _norm(b.reasoning):
        return "streaming reasoning differs from non-streaming"
    return None


# ---------------------------------------------------------------------------- parsers
class _Adapter:
    """Uniform access to a parser given in any supported form."""

    def __init__(
        self, parser: Any, tools: Sequence[Any] | None, compat: Compat = "default"
    ) -> None:
        self.tools = tools
        self.parse: Callable[[str], Any] | None = None
        self.new_stream: Callable[[], Any] | None = None
        self.stream_note = ""
        ours = isinstance(parser, str) or (
            isinstance(parser, type) and issubclass(parser, ToolParser)
        )
        if compat != "default" and not ours:
            raise ParserError(
                f"check_parser(compat={compat!r}) applies to our formats (a name or a parser "
                f"class); {type(parser).__name__} parses as it parses: leave compat out"
            )
        if isinstance(parser, str):
            cls = parser_class(parser)
            self.name = cls.format
            self.parse = lambda text: parse_as(cls, text, tools, compat)
            self.new_stream = lambda: get_parser(cls.format, tools, compat=compat)
        elif isinstance(parser, type):
            self.name = getattr(parser, "format", "") or parser.__name__
            if issubclass(parser, ToolParser):
                cls2: type[ToolParser] = parser
                self.parse = lambda text: parse_as(cls2, text, tools, compat)
                self.new_stream = lambda: compat_parser(cls2, tools, compat)
            else:
                factory: Any = parser
                self.new_stream = factory
                if hasattr(factory, "parse"):
                    self.parse = lambda text: factory().parse(text)
        elif hasattr(parser, "feed") and hasattr(parser, "finish"):
            self.name = getattr(parser, "format", "") or type(parser).__name__
            prototype = copy.deepcopy(parser)
            self.new_stream = lambda: copy.deepcopy(prototype)
            if callable(getattr(parser, "parse", None)):
                self.parse = lambda text: copy.deepcopy(prototype).parse(text)
        elif callable(parser):
            self.name = getattr(parser, "__name__", type(parser).__name__)
            self.parse = parser
            self.stream_note = "the parser is a plain callable: no streaming interface"
        else:
            raise ParserError(
                f"check_parser() needs a format name, a parser class, an object "
                f"with feed()/finish(), or a callable text -> result; got "
                f"{type(parser).__name__}"
            )
        if self.parse is None and self.new_stream is not None:
            self.parse = self._parse_by_streaming

    def _parse_by_streaming(self, text: str) -> Any:
        return self.stream([text])[0]

    def stream(
        self, chunks: Iterable[str], timing: list[float] | None = None
    ) -> tuple[_Outcome, list[str]]:
        """Stream ``chunks``; with ``timing`` (a list), append how many characters after the
        first call's start its name and its first arguments fragment arrived."""
        assert self.new_stream is not None
        stream = self.new_stream()
        recon = StreamingToolReconstructor(strict=False)
        fed = start = 0
        at_name = at_args = None
        for chunk in chunks:
            fed += len(chunk)
            delta = stream.feed(chunk)
            recon.append_delta(delta)
            if timing is None or delta is None:
                continue
            if at_name is None and _get(delta, "content"):
                start = fed - len(chunk)  # the call starts after the content sent so far
            for call in _get(delta, "tool_calls") or []:
                if _get(call, "index") != 0:
                    continue
                function = _get(call, "function")
                if at_name is None and _get(function, "name"):
                    at_name = fed
                if at_args is None and _get(function, "arguments"):
                    at_args = fed
        recon.append_delta(stream.finish())
        if timing is not None:
            nan = float("nan")
            timing[:] = [
                nan if at_name is None else at_name - start,
                nan if at_args is None else at_args - start,
            ]
        result = recon.result(getattr(stream, "problems", None))
        outcome = _Outcome(result)
        if getattr(stream, "problems", None) is None:
            outcome.problems = None
        return outcome, recon.violations


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _chunkings(
    case: ParserCase, which: Sequence[str], rng: random.Random
) -> list[tuple[str, list[str]]]:
    text = case.model_output
    out: list[tuple[str, list[str]]] = []
    for kind in which:
        if kind == "whole":
            out.append(("whole", [text]))
        elif kind == "per_char":
            out.append(("per_char", list(text)))
        elif kind == "random":
            for trial in range(3):
                chunks, i = [], 0
                while i < len(text):
                    size = rng.randint(1, 8)
                    chunks.append(text[i : i + size])
                    i += size
                out.append((f"random#{trial}", chunks))
        elif kind == "split_points" and case.chunks is not None:
            out.append(("split_points", list(case.chunks)))
    return out


def _describe(calls: Iterable[Any]) -> str:
    parts = []
    for call in calls:
        if isinstance(call, ExpectedParsedCall):
            name, args = call.name, json.dumps(call.value(), ensure_ascii=False)
        else:
            name, args = call.function.name, call.function.arguments
        parts.append(f"{name}({args})")
    return "; ".join(parts)


def check_parser(
    parser: Any,
    corpus: ParserCorpus | str | Path | Sequence[ParserCase],
    *,
    modes: Sequence[Literal["non_streaming", "streaming"]] = ("non_streaming", "streaming"),
    chunkings: Sequence[Chunking] = ("whole", "per_char", "random", "split_points"),
    tools: Sequence[Any] | None = None,
    seed: int = 0,
    compat: Compat = "default",
) -> pd.DataFrame:
    """Run a parser over a corpus in both modes; one row per case and mode.

    Args:
        parser: a format name, a parser class, an object with ``feed``/``finish`` (and optionally
            ``parse``), or a callable ``text -> result``.
        corpus: a :class:`ParserCorpus`, a format name or path for :func:`load_corpus`, or a list
            of :class:`ParserCase`.
        modes: which modes to run.
        chunkings: how streaming splits each output (``random`` runs three seeded splits).
        tools: tools passed to our parsers (format names and classes).
        seed: seed of the random chunkings.
        compat: how our formats read the outputs: ``"default"`` or ``"vllm"`` (exactly as
            vLLM serves the format). In ``"vllm"`` a case's ``vllm`` expectation, when it has
            one, replaces ours; a case without one expects our reading, so a row where vLLM
            reads it differently fails and its reason says how.

    Returns:
        A DataFrame with :data:`CHECK_COLUMNS`: ``parser``, ``format`` (the corpus's),
        ``scenario``, ``pattern``, ``source``, ``mode``, ``status`` (pass / fail / error /
        skipped), ``passed``, ``reason`` (empty when passed), ``expected`` and ``got`` (calls as
        ``name(arguments)``), ``seconds``, ``to_name`` and ``to_arguments`` (streaming rows:
        characters from the first call's start to its name and to its first arguments
        fragment, streamed per character; NaN otherwise).
    """
    import pandas as pd

    if not isinstance(corpus, ParserCorpus):
        if isinstance(corpus, (str, Path)):
            corpus = load_corpus(corpus)
        else:
            cases = list(corpus)
            fmt = cases[0].parser_name if cases else ""
            corpus = ParserCorpus(
                format=fmt,
                cases=cases,
                id_pattern=r"^[A-Za-z0-9]{9}$" if fmt == "mistral" else r"^.{16,}$",
            )
    adapter = _Adapter(parser, tools, compat)
    id_regex = re.compile(corpus.id_pattern)
    rng = random.Random(seed)
    rows = []
    for case in (_expected(c, compat) for c in corpus.cases):
        base = {
            "parser": adapter.name,
            "format": corpus.format,
            "scenario": case.scenario_name,
            "pattern": case.pattern,
            "source": case.source,
            "expected": _describe(case.expected_tool_calls),
        }
        reference: _Outcome | None = None
        if adapter.parse is not None:
            start = time.perf_counter()
            try:
                answer = adapter.parse(case.model_output)
                reference = answer if isinstance(answer, _Outcome) else _Outcome(answer)
                reasons = _compare(case, reference, id_regex)
                status, got = ("fail" if reasons else "pass"), _describe(reference.calls)
            except Exception as exc:
                reasons, status, got = [f"{type(exc).__name__}: {exc}"], "error", ""
            if "non_streaming" in modes:
                rows.append(
                    {
                        **base,
                        "mode": "non_streaming",
                        "status": status,
                        "reason": "; ".join(reasons),
                        "got": got,
                        "seconds": time.perf_counter() - start,
                    }
                )
        if "streaming" not in modes:
            continue
        if adapter.new_stream is None:
            rows.append(
                {
                    **base,
                    "mode": "streaming",
                    "status": "skipped",
                    "reason": adapter.stream_note,
                    "got": "",
                    "seconds": 0.0,
                }
            )
            continue
        start = time.perf_counter()
        status, reason, got = "pass", "", ""
        timing: list[float] = []
        for label, chunks in _chunkings(case, chunkings, rng):
            try:
                outcome, violations = adapter.stream(
                    chunks, timing if label == "per_char" else None
                )
            except Exception as exc:
                status, reason = "error", f"{label}: {type(exc).__name__}: {exc}"
                break
            got = _describe(outcome.calls)
            reasons = violations + _compare(case, outcome, id_regex)
            if reference is not None:
                differs = _same(outcome, reference)
                if differs:
                    reasons.append(differs)
            if reasons:
                status, reason = "fail", f"{label} ({len(chunks)} chunks): {'; '.join(reasons)}"
                break
        to_name, to_args = timing if timing else (float("nan"), float("nan"))
        rows.append(
            {
                **base,
                "mode": "streaming",
                "status": status,
                "reason": reason,
                "got": got,
                "seconds": time.perf_counter() - start,
                "to_name": to_name,
                "to_arguments": to_args,
            }
        )
    frame = pd.DataFrame(rows, columns=[c for c in CHECK_COLUMNS if c != "passed"])
    frame.insert(CHECK_COLUMNS.index("passed"), "passed", frame["status"] == "pass")
    return frame
