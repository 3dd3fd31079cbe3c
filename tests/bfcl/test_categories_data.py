"""Categories, groups, and where BFCL's data comes from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval_nb.bfcl import data as data_mod
from tooleval_nb.bfcl.categories import CATEGORIES, LIVE, NON_LIVE, group_of, resolve_categories
from tooleval_nb.bfcl.data import DATA_ENV, BfclData, locate_data
from tooleval_nb.errors import SuiteError


@pytest.mark.parametrize(("spec", "expected"), [
    ("simple_python", ["simple_python"]),
    ("irrelevance,simple_python", ["simple_python", "irrelevance"]),
    (["live", "multiple"], ["multiple", *LIVE]),
    ("non_live", list(NON_LIVE)),
    ("single_turn", list(CATEGORIES)),
    (None, list(CATEGORIES)),
    ("all", list(CATEGORIES)),
], ids=["one", "comma-list-in-bfcl-order", "group-and-name", "non_live", "single_turn", "none",
        "all"])
def test_resolve_categories(spec, expected):
    assert resolve_categories(spec) == expected


def test_an_unknown_category_is_named_with_the_valid_ones_listed():
    with pytest.raises(SuiteError) as info:
        resolve_categories(["simple_python", "multi_turn_base", "simpel"])
    message = str(info.value)
    assert "'multi_turn_base', 'simpel'" in message
    for name in (*CATEGORIES, "non_live", "live", "single_turn", "all"):
        assert name in message


def test_thirteen_single_turn_categories_in_two_groups():
    assert len(CATEGORIES) == 13
    assert {group_of(c) for c in NON_LIVE} == {"non_live"}
    assert {group_of(c) for c in LIVE} == {"live"}


def test_data_from_a_folder(bfcl_data):
    data = BfclData(bfcl_data)
    simple = data.category("simple_python")
    assert simple.ids[:2] == ["simple_python_0", "simple_python_1"]
    assert simple.answers is not None and set(simple.answers) == set(simple.ids)
    assert data.category("irrelevance").answers is None  # no possible-answer file
    assert len(simple.fingerprint) == 16
    assert data.category("simple_python") is simple  # read once


def test_data_from_the_environment(bfcl_data, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(bfcl_data))
    assert locate_data() == Path(bfcl_data)


def test_without_data_the_error_gives_both_ways(monkeypatch):
    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.setattr(data_mod, "_installed_data", lambda: None)
    with pytest.raises(SuiteError) as info:
        locate_data()
    assert "data_dir=" in str(info.value) and "tooleval_nb[bfcl]" in str(info.value)


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(SuiteError, match="does not exist.*tooleval_nb\\[bfcl\\]"):
        locate_data(tmp_path / "nowhere")


def test_the_installed_distribution_is_found_by_its_files(tmp_path, monkeypatch):
    """bfcl-eval's data is located through its metadata, without importing its code."""
    folder = tmp_path / "bfcl_eval" / "data"
    folder.mkdir(parents=True)

    class Dist:
        def locate_file(self, path: str) -> Path:
            return tmp_path / path

    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.setattr(data_mod.importlib.metadata, "distribution",
                        lambda name: Dist() if name == "bfcl-eval" else None)
    assert locate_data() == folder


def test_a_missing_category_file_and_bad_lines_are_named(tmp_path):
    (tmp_path / "BFCL_v4_simple_python.json").write_text('{"id": "simple_python_0"}\nnot json\n')
    data = BfclData(tmp_path)
    with pytest.raises(SuiteError, match="BFCL_v4_multiple.json: no question file"):
        data.category("multiple")
    with pytest.raises(SuiteError, match="BFCL_v4_simple_python.json, line 2: not JSON"):
        data.category("simple_python")


def test_lines_are_parsed_when_used_and_a_late_bad_line_is_named_then(tmp_path):
    (tmp_path / "possible_answer").mkdir()
    good = [json.dumps({"id": f"simple_python_{i}", "question": [[]], "function": []})
            for i in range(3)]
    (tmp_path / "BFCL_v4_simple_python.json").write_text(
        "\n".join([*good, '{"id": "simple_python_3", "question": [[]], "function": [}']) + "\n")
    (tmp_path / "possible_answer" / "BFCL_v4_simple_python.json").write_text("".join(
        json.dumps({"id": f"simple_python_{i}", "ground_truth": [{"f": {}}]}) + "\n"
        for i in range(4)))
    data = BfclData(tmp_path).category("simple_python")
    assert len(data) == 4 and data.ids[-1] == "simple_python_3"
    assert [q["id"] for q in data.head(3)] == ["simple_python_0", "simple_python_1",
                                                "simple_python_2"]
    assert data.answers is not None and data.answers["simple_python_1"] == [{"f": {}}]
    assert "simple_python_3" in data.by_id and "simple_python_9" not in data.by_id
    with pytest.raises(SuiteError, match="BFCL_v4_simple_python.json, line 4: not JSON"):
        _ = data.questions
    with pytest.raises(KeyError):
        data.by_id["simple_python_9"]


def test_a_line_whose_id_differs_from_its_start_is_refused(tmp_path):
    (tmp_path / "BFCL_v4_irrelevance.json").write_text(
        '{"id": "irrelevance_0", "id": "irrelevance_9"}\n')
    data = BfclData(tmp_path).category("irrelevance")
    with pytest.raises(SuiteError, match="line 1: field id"):
        data.head(1)


def test_answers_that_do_not_match_the_questions_are_refused(tmp_path):
    (tmp_path / "possible_answer").mkdir()
    (tmp_path / "BFCL_v4_multiple.json").write_text(
        json.dumps({"id": "multiple_0", "question": [[]], "function": []}) + "\n")
    (tmp_path / "possible_answer" / "BFCL_v4_multiple.json").write_text(
        json.dumps({"id": "multiple_9", "ground_truth": []}) + "\n")
    with pytest.raises(SuiteError, match="no ground truth for 1 question.*multiple_0"):
        BfclData(tmp_path).category("multiple")


def test_ids_are_read_at_once_or_line_by_line_with_the_same_ids_and_line_numbers(tmp_path):
    """Every line starting with its id (BFCL's files) is indexed in one pass; blank lines,
    CRLF endings and a line that does not start with its id take the line-by-line path, and
    both give the same ids and name the same line numbers."""
    lines = [json.dumps({"id": f"irrelevance_{i}", "question": [[]], "function": []})
             for i in range(4)]
    lines[2] = json.dumps({"question": [[]], "id": "irrelevance_2", "function": []})
    variants = {
        "plain": "\n".join(lines) + "\n",
        "crlf_and_blanks": "\r\n".join([lines[0], "", lines[1], "  ", *lines[2:]]) + "\r\n",
    }
    for name, text in variants.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "BFCL_v4_irrelevance.json").write_text(text, newline="")
        data = BfclData(folder).category("irrelevance")
        assert data.ids == [f"irrelevance_{i}" for i in range(4)], name
        assert data.by_id["irrelevance_3"]["id"] == "irrelevance_3"
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "BFCL_v4_irrelevance.json").write_text(
        "\r\n".join([lines[0], "", lines[1][:-1], lines[3]]) + "\r\n", newline="")
    data = BfclData(bad).category("irrelevance")
    assert data.ids == ["irrelevance_0", "irrelevance_1", "irrelevance_3"]
    with pytest.raises(SuiteError, match="BFCL_v4_irrelevance.json, line 3: not JSON"):
        data.head(2)
