"""The conformance kit on parsers that are not ours: callables, streaming objects, bad parsers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tooleval_nb.errors import ParserError
from tooleval_nb.parsers import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    check_parser,
    get_parser,
    load_corpus,
    parse_tool_calls,
)
from tooleval_nb.parsers.conformance import CHECK_COLUMNS, ParserCase
from tooleval_nb.parsers.hermes import HermesParser


def test_columns_and_modes() -> None:
    frame = check_parser("pythonic", "pythonic")
    assert list(frame.columns) == CHECK_COLUMNS
    assert set(frame["mode"]) == {"non_streaming", "streaming"}
    assert frame["passed"].all()


def test_user_callable_returning_dicts() -> None:
    def vllm_like(text: str) -> dict[str, Any]:
        info = parse_tool_calls(text, "hermes")
        return {
            "tools_called": info.tools_called,
            "content": info.content,
            "reasoning_content": info.reasoning,
            "tool_calls": [c.model_dump() for c in info.tool_calls],
        }

    frame = check_parser(vllm_like, "hermes")
    non_streaming = frame[frame["mode"] == "non_streaming"]
    assert non_streaming["passed"].all(), non_streaming.loc[~non_streaming["passed"], "reason"]
    streaming = frame[frame["mode"] == "streaming"]
    assert set(streaming["status"]) == {"skipped"}
    assert frame["parser"].iloc[0] == "vllm_like"


def test_a_wrong_parser_fails_with_reasons() -> None:
    def greedy(text: str) -> dict[str, Any]:  # never finds calls, drops content
        return {"tools_called": False, "tool_calls": [], "content": None}

    frame = check_parser(greedy, "hermes", modes=("non_streaming",))
    failed = frame[~frame["passed"]]
    assert len(failed) > 10
    reasons = " ".join(failed["reason"])
    assert "tools_called is False, expected True" in reasons
    assert "content is" in reasons
    assert set(frame["status"]) == {"pass", "fail"}


def test_a_parser_that_raises_is_an_error_row() -> None:
    def broken(text: str) -> None:
        raise ValueError("boom")

    frame = check_parser(broken, "json", modes=("non_streaming",))
    assert set(frame["status"]) == {"error"}
    assert frame["reason"].str.contains("ValueError: boom").all()


class _NameTwice(HermesParser):
    """Breaks the protocol: sends the name again with the arguments."""

    def _call(self, name: str, arguments: str) -> None:
        super()._call(name, arguments)
        if self._stream and self._d_calls:
            first = self._d_calls[-1]
            self._d_calls[-1] = DeltaToolCall(
                index=first.index,
                id=first.id,
                type="function",
                function=DeltaFunctionCall(name=name),
            )
            self._d_calls.append(
                DeltaToolCall(
                    index=first.index, function=DeltaFunctionCall(name=name, arguments=arguments)
                )
            )


def test_streaming_protocol_violations_are_reported() -> None:
    frame = check_parser(_NameTwice, "hermes")
    streaming = frame[(frame["mode"] == "streaming") & ~frame["passed"]]
    assert len(streaming) > 5
    assert streaming["reason"].str.contains("sends its name again").all()
    assert frame[frame["mode"] == "non_streaming"]["passed"].all()


class _ForeignStream:
    """A duck-typed streaming parser emitting dict deltas (as another stack might)."""

    format = "foreign"

    def __init__(self) -> None:
        self.inner = get_parser("mistral")

    @property
    def problems(self) -> list[str]:  # says when a call sent early turned malformed
        return self.inner.problems

    def feed(self, delta: str) -> dict[str, Any] | None:
        out = self.inner.feed(delta)
        return out.model_dump() if out else None

    def finish(self) -> dict[str, Any] | None:
        out = self.inner.finish()
        return out.model_dump() if out else None


def test_duck_typed_streaming_object_is_copied_per_case() -> None:
    prototype = _ForeignStream()
    frame = check_parser(prototype, "mistral")
    assert frame["passed"].all(), frame.loc[~frame["passed"], "reason"].tolist()
    assert prototype.inner._content == []  # the prototype itself was never fed
    assert frame["parser"].iloc[0] == "foreign"


def test_streaming_differs_from_non_streaming_is_caught() -> None:
    class Lossy(HermesParser):
        def feed(self, delta: str) -> DeltaMessage | None:
            return super().feed(delta[:-1] if len(delta) > 1 else delta)

    frame = check_parser(Lossy, "hermes", chunkings=("random",))
    assert not frame[frame["mode"] == "streaming"]["passed"].all()


def test_list_of_cases() -> None:
    cases = [
        ParserCase(
            scenario_name="one",
            pattern=2,
            parser_name="json",
            model_output='{"name": "f", "arguments": {"a": 1}}',
            expected_tools_called=True,
            expected_tool_calls=[{"name": "f", "arguments": {"a": 1}}],
        )
    ]
    assert check_parser("json", cases)["passed"].all()


def test_types_are_compared_strictly() -> None:
    case = ParserCase(
        scenario_name="int-vs-float",
        pattern=4,
        parser_name="json",
        model_output='{"name": "f", "arguments": {"a": 1.0, "b": true}}',
        expected_tools_called=True,
        expected_tool_calls=[{"name": "f", "arguments": {"a": 1, "b": 1}}],
    )
    frame = check_parser("json", [case], modes=("non_streaming",))
    assert not frame["passed"].iloc[0]
    assert "arguments are" in frame["reason"].iloc[0]


def test_missing_corpus_names_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ParserError, match="not found; pass a format name"):
        load_corpus(tmp_path / "nope.yaml")


def test_invalid_case_names_file_and_case(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "format: json\ncases:\n  - scenario_name: broken\n    pattern: 2\n"
        "    model_output: x\n    expected_tools_called: true\n"
    )
    with pytest.raises(ParserError, match=r"bad.yaml: case 0 \(broken\)"):
        load_corpus(path)


def test_bad_parser_argument() -> None:
    with pytest.raises(ParserError, match="needs a format name"):
        check_parser(42, "json")


def test_mistral_corpus_demands_nine_character_ids() -> None:
    frame = check_parser("hermes", load_corpus("mistral"), modes=("non_streaming",))
    # hermes does not read [TOOL_CALLS] at all; where it finds nothing the ids rule is moot
    assert not frame["passed"].all()
    corpus = load_corpus("mistral")
    assert corpus.id_pattern == r"^[A-Za-z0-9]{9}$"


def test_calls_without_ids_fail() -> None:
    def no_ids(text: str) -> dict[str, Any]:
        info = parse_tool_calls(text, "json")
        return {
            "content": info.content,
            "tool_calls": [
                {"name": c.function.name, "arguments": c.function.arguments}
                for c in info.tool_calls
            ],
        }

    frame = check_parser(no_ids, "json", modes=("non_streaming",))
    with_calls = frame[frame["expected"] != ""]
    assert with_calls["reason"].str.contains("without an id").all()
    assert frame[frame["expected"] == ""]["passed"].all()
