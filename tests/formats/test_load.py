"""load_suite / load_suites / save_suite: choosing the format, directories, errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tooleval_nb.errors import SuiteError
from tooleval_nb.formats import example_suite, load_suite, load_suites, save_suite
from tooleval_nb.suite import Suite

QUESTION = {
    "id": "irrelevance_0",
    "question": [[{"role": "user", "content": "Hi"}]],
    "function": [
        {
            "name": "f",
            "description": "",
            "parameters": {"type": "dict", "properties": {}, "required": []},
        }
    ],
}


def test_directory_loads_every_suite_file_sorted(tmp_path: Path) -> None:
    save_suite(example_suite(), tmp_path / "b.json")
    save_suite(example_suite().model_copy(update={"name": "yaml one"}), tmp_path / "a.yaml")
    (tmp_path / "c.yml").write_text("name: only\ninput: Hi\n")
    (tmp_path / "notes.txt").write_text("not a suite")
    (tmp_path / ".hidden.json").write_text("{")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "broken.json").write_text("{")
    suites = load_suite(tmp_path)
    assert isinstance(suites, list)
    assert [s.name for s in suites] == ["yaml one", "Weather API Suite", "c"]
    assert load_suites(tmp_path) == suites
    assert load_suites(tmp_path / "b.json") == [suites[1]]


def test_directory_errors_are_gathered_and_nothing_loads(tmp_path: Path) -> None:
    save_suite(example_suite(), tmp_path / "good.json")
    (tmp_path / "bad1.json").write_text('{"name": "x", "tools": 3}')
    (tmp_path / "bad2.yaml").write_text("input: no name\n")
    with pytest.raises(SuiteError) as info:
        load_suite(tmp_path)
    assert info.value.path == str(tmp_path)
    assert [p.split(": ")[0] for p in info.value.problems] == [
        str(tmp_path / "bad1.json"),
        str(tmp_path / "bad2.yaml"),
    ]
    assert str(info.value).startswith(f"{tmp_path}: 2 problem(s) in its suite files; nothing was")


def test_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="no suite files"):
        load_suite(tmp_path)


def test_bfcl_file_is_recognised_by_content(tmp_path: Path) -> None:
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(QUESTION) + "\n")
    suite = load_suite(path)
    assert isinstance(suite, Suite) and suite.name == "bfcl_irrelevance"
    assert suite.cases[0].tools is not None


def test_format_can_be_forced(tmp_path: Path) -> None:
    path = tmp_path / "suite.txt"
    path.write_text("name: a\ninput: Hi\n")
    with pytest.raises(SuiteError, match="unknown suite file type '.txt'"):
        load_suite(path)
    suite = load_suite(path, format="seed_yaml")
    assert isinstance(suite, Suite) and suite.cases[0].name == "a"
    with pytest.raises(SuiteError, match="invalid JSON"):
        load_suite(path, format="seed_json")


def test_missing_path() -> None:
    with pytest.raises(SuiteError, match="file not found"):
        load_suite("no/such/suite.yaml")


def test_bundled_data_directory_loads(data_dir: Path, tmp_path: Path) -> None:
    # the bundled folder also holds graders.py and data/parsers/: neither is a suite file
    copy = tmp_path / "data"
    shutil.copytree(data_dir, copy, ignore=shutil.ignore_patterns("__pycache__"))
    names = [s.name for s in load_suites(copy)]
    assert names == sorted(names) and "agent_booking" in names
