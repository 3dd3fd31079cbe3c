"""Every corpus case, non-streaming and streaming, with exact expectations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval_nb.parsers import (
    PARSER_FORMATS,
    ExtractedToolCallInformation,
    StreamingToolReconstructor,
    check_parser,
    get_parser,
    load_corpus,
    parse_tool_calls,
)
from tooleval_nb.parsers.conformance import ParserCase, stream_differs
from tooleval_nb.parsers.corpus import CORPUS_DIR as REPO_CORPUS

CORPORA = {fmt: load_corpus(fmt) for fmt in PARSER_FORMATS}
CASES = [(fmt, case) for fmt, corpus in CORPORA.items() for case in corpus.cases]
IDS = [f"{fmt}-{case.scenario_name}" for fmt, case in CASES]


def _expected_args(case: ParserCase) -> list[tuple[str, str]]:
    return [(c.name, json.dumps(c.value(), ensure_ascii=False)) for c in case.expected_tool_calls]


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=IDS)
def test_non_streaming_exact(fmt: str, case: ParserCase) -> None:
    info = parse_tool_calls(case.model_output, fmt)
    assert info.tools_called is case.expected_tools_called
    # arguments: the exact string, key order and types as written
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == _expected_args(
        case
    )
    assert info.content == case.expected_content
    if "expected_reasoning" in case.model_fields_set:
        assert info.reasoning == case.expected_reasoning
    if case.expect_problem is not None:
        assert bool(info.problems) is case.expect_problem, info.problems


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=IDS)
def test_every_two_chunk_split_matches(fmt: str, case: ParserCase) -> None:
    """Split at every position (mid-name, mid-key, mid-value, between calls), and per char."""
    text = case.model_output
    reference = parse_tool_calls(text, fmt)
    want = (_calls(reference), reference.content, reference.reasoning, reference.problems)
    splits = [[text[:k], text[k:]] for k in range(len(text) + 1)] + [list(text)]
    if case.chunks:
        splits.append(case.chunks)
    for chunks in splits:
        parser = get_parser(fmt)
        recon = StreamingToolReconstructor()  # strict: a protocol violation raises
        for chunk in chunks:
            recon.append_delta(parser.feed(chunk))
        recon.append_delta(parser.finish())
        got = recon.result(parser.problems)
        if case.expect_problem:  # malformed: a call sent before its error showed is kept
            assert stream_differs(got, reference) is None, chunks
        else:
            assert (_calls(got), got.content, got.reasoning, got.problems) == want, chunks
        assert not recon.violations


def _calls(info: ExtractedToolCallInformation) -> list[tuple[str, str]]:
    return [(c.function.name, c.function.arguments) for c in info.tool_calls]


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_conformance_kit_passes_our_parsers(fmt: str) -> None:
    frame = check_parser(fmt, CORPORA[fmt])
    assert len(frame) == 2 * len(CORPORA[fmt])
    assert frame["passed"].all(), frame.loc[~frame["passed"], ["scenario", "mode", "reason"]]


@pytest.mark.parametrize("fmt", PARSER_FORMATS)
def test_corpus_covers_the_ten_patterns(fmt: str) -> None:
    corpus = CORPORA[fmt]
    assert {c.pattern for c in corpus.cases} == set(range(1, 11))
    names = [c.scenario_name for c in corpus.cases]
    assert len(names) == len(set(names))
    assert any(c.chunks for c in corpus.cases if c.pattern == 10)


def test_real_model_outputs_are_in_the_corpus() -> None:
    real = [c for c in CORPORA["hermes"].cases if c.source == "smollm2-135m"]
    assert len(real) >= 3
    assert any(c.expected_tools_called for c in real)
    assert any(c.expect_problem for c in real)


# ---------------------------------------------------------------------------- finding a corpus
def _copy_corpus(folder, fmt: str = "hermes", description: str = "copied") -> None:
    import yaml

    raw = yaml.safe_load((REPO_CORPUS / f"{fmt}.yaml").read_text(encoding="utf-8"))
    raw["description"] = description
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{fmt}.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), "utf-8")


def test_a_given_folder_is_searched(tmp_path) -> None:
    _copy_corpus(tmp_path / "mine")
    corpus = load_corpus("hermes", path=tmp_path / "mine")
    assert corpus.description == "copied" and len(corpus) == len(CORPORA["hermes"])
    assert corpus.path == str(tmp_path / "mine" / "hermes.yaml")
    assert load_corpus("hermes", path=tmp_path / "mine" / "hermes.yaml").description == "copied"


def test_a_given_folder_without_the_file_says_where_it_looked(tmp_path) -> None:
    from tooleval_nb.errors import ParserError

    with pytest.raises(ParserError, match="searched: .*empty.hermes.yaml.*path=") as info:
        load_corpus("hermes", path=tmp_path / "empty")
    assert "data/parsers" in str(info.value)  # and says where the corpus ships


def test_the_environment_variable_comes_first(tmp_path, monkeypatch) -> None:
    _copy_corpus(tmp_path / "env", description="from env")
    monkeypatch.setenv("TOOLEVAL_PARSER_CORPUS", str(tmp_path / "env"))
    assert load_corpus("hermes").description == "from env"
    assert load_corpus("json").path.endswith("data/parsers/json.yaml")  # others still found


def test_the_corpus_is_package_data_found_from_any_folder(tmp_path, monkeypatch) -> None:
    """The corpus ships inside the package (tooleval_nb/data/parsers, read with
    importlib.resources): found without the repository as the working directory."""
    from importlib.resources import files

    from tooleval_nb.parsers import corpus as corpus_mod

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLEVAL_PARSER_CORPUS", raising=False)
    shipped = files("tooleval_nb").joinpath("data", "parsers")
    assert corpus_mod.corpus_dirs() == [Path(str(shipped))]
    assert Path(load_corpus("hermes").path).resolve() == (REPO_CORPUS / "hermes.yaml").resolve()
