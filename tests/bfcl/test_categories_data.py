"""Categories, groups, and where BFCL's data comes from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tooleval_nb.bfcl_rules import categories as cat_mod
from tooleval_nb.bfcl_rules import data as data_mod
from tooleval_nb.bfcl_rules.categories import (
    CATEGORIES,
    KNOWN_CATEGORIES,
    LIVE,
    MEMORY,
    MULTI_TURN,
    NON_LIVE,
    SINGLE_TURN,
    category_of,
    category_of_file,
    folder_of,
    group_of,
    language_of,
    offline_categories,
    resolve_categories,
    select_categories,
)
from tooleval_nb.bfcl_rules.data import DATA_ENV, BfclData, locate_data
from tooleval_nb.bfcl_rules.prompt import FORMAT_SENSITIVITY_CONFIGS
from tooleval_nb.errors import SuiteError


@pytest.fixture
def no_vector(monkeypatch):
    """memory_vector's packages absent (whatever is installed here)."""
    monkeypatch.setattr(cat_mod, "memory_vector_available", lambda: False)


@pytest.fixture
def with_vector(monkeypatch):
    monkeypatch.setattr(cat_mod, "memory_vector_available", lambda: True)


OFFLINE = [*SINGLE_TURN, *MULTI_TURN, "memory_kv", "memory_rec_sum", "format_sensitivity"]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("simple_python", ["simple_python"]),
        ("irrelevance,simple_python", ["simple_python", "irrelevance"]),
        (["live", "multiple"], ["multiple", *LIVE]),
        ("non_live", list(NON_LIVE)),
        ("single_turn", list(SINGLE_TURN)),
        ("multi_turn", list(MULTI_TURN)),
        ("memory", ["memory_kv", "memory_rec_sum"]),
        ("agentic", ["memory_kv", "memory_rec_sum"]),
        ("multi_turn_miss_func,format_sensitivity", ["multi_turn_miss_func", "format_sensitivity"]),
        (None, OFFLINE),
        ("all", OFFLINE),
    ],
    ids=[
        "one",
        "comma-list-in-bfcl-order",
        "group-and-name",
        "non_live",
        "single_turn",
        "multi_turn",
        "memory",
        "agentic",
        "two-new",
        "none",
        "all",
    ],
)
def test_resolve_categories(no_vector, spec, expected):
    assert resolve_categories(spec) == expected


def test_all_is_every_category_that_runs_offline_and_names_the_rest(no_vector):
    selection = select_categories("all")
    assert list(selection.categories) == OFFLINE == list(offline_categories())
    assert list(selection.not_run) == ["memory_vector", "web_search_base", "web_search_no_snippet"]
    assert "sentence-transformers and faiss" in selection.not_run["memory_vector"]
    assert "search API" in selection.not_run["web_search_base"]
    memory = select_categories("memory")
    assert memory.categories == ("memory_kv", "memory_rec_sum")
    assert list(memory.not_run) == ["memory_vector"]
    assert select_categories("multi_turn").not_run == {}


def test_memory_vector_runs_where_its_packages_are(with_vector):
    assert resolve_categories("memory") == list(MEMORY)
    assert "memory_vector" in resolve_categories("all")
    assert list(select_categories("all").not_run) == ["web_search_base", "web_search_no_snippet"]


def test_memory_vector_is_found_without_importing_its_packages():
    before = set(sys.modules)
    cat_mod.memory_vector_available()
    assert not {"sentence_transformers", "faiss", "torch"} & (set(sys.modules) - before)


@pytest.mark.parametrize("spec", ["web_search", "web_search_base", "memory_kv,web_search"])
def test_web_search_asked_for_is_an_error_that_says_why(spec):
    with pytest.raises(SuiteError) as info:
        resolve_categories(spec)
    message = str(info.value)
    assert "web_search_base" in message and "search API" in message
    assert "multi_turn_base" in message  # what can run instead


def test_memory_vector_asked_for_without_its_packages_says_what_to_install(no_vector):
    with pytest.raises(SuiteError, match="memory_vector: .*pip install sentence-transformers"):
        resolve_categories("memory_vector")


def test_an_unknown_category_is_named_with_the_valid_ones_listed(no_vector):
    with pytest.raises(SuiteError) as info:
        resolve_categories(["simple_python", "multi_turn_bse", "simpel"])
    message = str(info.value)
    assert "'multi_turn_bse', 'simpel'" in message
    for name in (
        *CATEGORIES,
        "non_live",
        "live",
        "single_turn",
        "multi_turn",
        "memory",
        "all",
        "web_search_base",
        "memory_vector",
    ):
        assert name in message


def test_categories_in_groups_and_folders():
    assert len(SINGLE_TURN) == 13 and len(KNOWN_CATEGORIES) == 23
    assert {group_of(c) for c in NON_LIVE} == {"non_live"}
    assert {group_of(c) for c in LIVE} == {"live"}
    assert {group_of(c) for c in MULTI_TURN} == {"multi_turn"}
    assert {group_of(c) for c in MEMORY} == {"agentic"}
    assert group_of("format_sensitivity") == "format_sensitivity"
    assert folder_of("memory_rec_sum") == "agentic/memory/rec_sum"
    assert folder_of("memory_kv_prereq") == "agentic/memory/kv"
    assert folder_of("multi_turn_long_context") == "multi_turn"
    assert folder_of("live_simple") == "live"


def test_bfcl_names_of_entries_files_and_languages():
    assert category_of("live_simple_19-3-15") == "live_simple"
    assert category_of("memory_kv_prereq_22-student-0") == "memory_kv_prereq"
    assert category_of("memory_rec_sum_3-customer-3") == "memory_rec_sum"
    assert category_of(f"format_sensitivity_7:{FORMAT_SENSITIVITY_CONFIGS[3]}:parallel_9") == (
        "format_sensitivity"
    )
    assert category_of_file("x/BFCL_v4_multi_turn_base_result.json") == "multi_turn_base"
    assert category_of_file("BFCL_v3_simple_score.json") == "simple"
    assert category_of_file("notes.json") is None
    assert [
        language_of(c) for c in ("simple_java", "simple_javascript", "multi_turn_base", None)
    ] == ["Java", "JavaScript", "Python", "Python"]


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
    monkeypatch.setattr(
        data_mod.importlib.metadata,
        "distribution",
        lambda name: Dist() if name == "bfcl-eval" else None,
    )
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
    good = [
        json.dumps({"id": f"simple_python_{i}", "question": [[]], "function": []}) for i in range(3)
    ]
    (tmp_path / "BFCL_v4_simple_python.json").write_text(
        "\n".join([*good, '{"id": "simple_python_3", "question": [[]], "function": [}']) + "\n"
    )
    (tmp_path / "possible_answer" / "BFCL_v4_simple_python.json").write_text(
        "".join(
            json.dumps({"id": f"simple_python_{i}", "ground_truth": [{"f": {}}]}) + "\n"
            for i in range(4)
        )
    )
    data = BfclData(tmp_path).category("simple_python")
    assert len(data) == 4 and data.ids[-1] == "simple_python_3"
    assert [q["id"] for q in data.head(3)] == [
        "simple_python_0",
        "simple_python_1",
        "simple_python_2",
    ]
    assert data.answers is not None and data.answers["simple_python_1"] == [{"f": {}}]
    assert "simple_python_3" in data.by_id and "simple_python_9" not in data.by_id
    with pytest.raises(SuiteError, match="BFCL_v4_simple_python.json, line 4: not JSON"):
        _ = data.questions
    with pytest.raises(KeyError):
        data.by_id["simple_python_9"]


def test_a_line_whose_id_differs_from_its_start_is_refused(tmp_path):
    (tmp_path / "BFCL_v4_irrelevance.json").write_text(
        '{"id": "irrelevance_0", "id": "irrelevance_9"}\n'
    )
    data = BfclData(tmp_path).category("irrelevance")
    with pytest.raises(SuiteError, match="line 1: field id"):
        data.head(1)


def test_answers_that_do_not_match_the_questions_are_refused(tmp_path):
    (tmp_path / "possible_answer").mkdir()
    (tmp_path / "BFCL_v4_multiple.json").write_text(
        json.dumps({"id": "multiple_0", "question": [[]], "function": []}) + "\n"
    )
    (tmp_path / "possible_answer" / "BFCL_v4_multiple.json").write_text(
        json.dumps({"id": "multiple_9", "ground_truth": []}) + "\n"
    )
    with pytest.raises(SuiteError, match="no ground truth for 1 question.*multiple_0"):
        BfclData(tmp_path).category("multiple")


def test_ids_are_read_at_once_or_line_by_line_with_the_same_ids_and_line_numbers(tmp_path):
    """Every line starting with its id (BFCL's files) is indexed in one pass; blank lines,
    CRLF endings and a line that does not start with its id take the line-by-line path, and
    both give the same ids and name the same line numbers."""
    lines = [
        json.dumps({"id": f"irrelevance_{i}", "question": [[]], "function": []}) for i in range(4)
    ]
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
        "\r\n".join([lines[0], "", lines[1][:-1], lines[3]]) + "\r\n", newline=""
    )
    data = BfclData(bad).category("irrelevance")
    assert data.ids == ["irrelevance_0", "irrelevance_1", "irrelevance_3"]
    with pytest.raises(SuiteError, match="BFCL_v4_irrelevance.json, line 3: not JSON"):
        data.head(2)


# -- the stateful categories' data -------------------------------------------------------------
def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _doc(name: str) -> dict:
    return {
        "name": name,
        "description": f"{name} it.",
        "parameters": {"type": "dict", "properties": {}, "required": []},
    }


@pytest.fixture
def small_data(tmp_path) -> Path:
    """A data folder with BFCL's layout for multi-turn, memory and format sensitivity."""
    docs = tmp_path / "multi_turn_func_doc"
    _jsonl(docs / "gorilla_file_system.json", [_doc("ls"), _doc("cd"), _doc("sort")])
    _jsonl(docs / "math_api.json", [_doc("add")])
    _jsonl(docs / "memory_kv.json", [_doc("core_memory_add"), _doc("archival_memory_add")])
    turns = [[{"role": "user", "content": "list"}], [], [{"role": "user", "content": "sort"}]]
    _jsonl(
        tmp_path / "BFCL_v4_multi_turn_miss_func.json",
        [
            {
                "id": "multi_turn_miss_func_0",
                "question": turns,
                "initial_config": {"GorillaFileSystem": {"root": {}}},
                "path": ["GorillaFileSystem.ls"],
                "involved_classes": ["GorillaFileSystem", "MathAPI"],
                "missed_function": {"1": ["sort"]},
                "excluded_function": [],
            }
        ],
    )
    _jsonl(
        tmp_path / "possible_answer" / "BFCL_v4_multi_turn_miss_func.json",
        [{"id": "multi_turn_miss_func_0", "ground_truth": [["ls()"], [], ["sort('a')"]]}],
    )
    _jsonl(
        tmp_path / "BFCL_v4_memory.json",
        [
            {
                "id": "memory_0-student-0",
                "question": [[{"role": "user", "content": "My major?"}]],
                "involved_classes": ["MemoryAPI"],
                "scenario": "student",
            },
            {
                "id": "memory_1-customer-0",
                "question": [[{"role": "user", "content": "My name?"}]],
                "involved_classes": ["MemoryAPI"],
                "scenario": "customer",
            },
        ],
    )
    _jsonl(
        tmp_path / "possible_answer" / "BFCL_v4_memory.json",
        [
            {"id": "memory_0-student-0", "ground_truth": ["CS"], "source": "..."},
            {"id": "memory_1-customer-0", "ground_truth": ["Michael"], "source": "..."},
        ],
    )
    prereq = tmp_path / "memory_prereq_conversation"
    n = 0
    for scenario in ("student", "customer", "finance", "healthcare", "notetaker"):
        rows = []
        for k in range(2):
            rows.append(
                {
                    "id": f"memory_prereq_{n}-{scenario}-{k}",
                    "topic": "t",
                    "question": [[{"role": "user", "content": f"{scenario} {k}"}]],
                    "involved_classes": ["MemoryAPI"],
                    "scenario": scenario,
                }
            )
            n += 1
        _jsonl(prereq / f"memory_{scenario}.json", rows)
    _jsonl(
        tmp_path / "BFCL_v4_simple_python.json",
        [
            {
                "id": f"simple_python_{i}",
                "question": [[{"role": "user", "content": "q"}]],
                "function": [_doc("f")],
            }
            for i in range(3)
        ],
    )
    _jsonl(
        tmp_path / "possible_answer" / "BFCL_v4_simple_python.json",
        [{"id": f"simple_python_{i}", "ground_truth": [{"f": {}}]} for i in range(3)],
    )
    (tmp_path / "BFCL_v4_format_sensitivity.json").write_text(
        json.dumps({"simple_python": ["simple_python_2", "simple_python_0"]})
    )
    return tmp_path


def test_multi_turn_entries_get_their_classes_docs_less_the_missed_ones(small_data):
    data = BfclData(small_data).category("multi_turn_miss_func")
    entry = data.head(1)[0]
    assert [f["name"] for f in entry["function"]] == ["ls", "cd", "add"]
    assert {k: [f["name"] for f in v] for k, v in entry["missed_function"].items()} == {
        "1": ["sort"]
    }
    assert entry["question"][1] == [] and entry["initial_config"] == {
        "GorillaFileSystem": {"root": {}}
    }
    assert data.answers is not None
    assert data.answers["multi_turn_miss_func_0"] == [["ls()"], [], ["sort('a')"]]
    assert "Python 3 syntax" not in entry["function"][0]["description"]  # prompt.py's hints


def test_memory_entries_per_backend_with_their_prerequisite_conversations(small_data):
    data = BfclData(small_data).category("memory_kv")
    assert data.ids == ["memory_kv_0-student-0", "memory_kv_1-customer-0"]
    entry = data.by_id["memory_kv_1-customer-0"]
    assert entry["involved_classes"] == ["MemoryAPI_kv"]
    assert [f["name"] for f in entry["function"]] == ["core_memory_add", "archival_memory_add"]
    assert entry["depends_on"] == ["memory_kv_prereq_2-customer-0", "memory_kv_prereq_3-customer-1"]
    first = entry["question"][0]
    assert (
        first[0]["role"] == "system"
        and first[0]["content"].startswith("For your final answer to the user")
        and first[1]["content"] == "My name?"
    )
    assert data.answers is not None and data.answers["memory_kv_0-student-0"] == ["CS"]
    assert [e["id"] for e in data.prereq][:3] == [
        "memory_kv_prereq_0-student-0",
        "memory_kv_prereq_1-student-1",
        "memory_kv_prereq_2-customer-0",
    ]
    assert [e["depends_on"] for e in data.prereq[:2]] == [[], ["memory_kv_prereq_0-student-0"]]
    assert all(e["question"][0][0]["role"] == "user" for e in data.prereq)  # no answer format
    assert len(data.prereq) == 10
    with pytest.raises(SuiteError, match="memory_rec_sum.json"):  # no docs for that backend
        BfclData(small_data).category("memory_rec_sum")


def test_format_sensitivity_is_each_listed_entry_under_each_config(small_data):
    data = BfclData(small_data).category("format_sensitivity")
    assert len(data) == 2 * 26 == 2 * len(FORMAT_SENSITIVITY_CONFIGS)
    # the category file's order, not the list's
    assert data.ids[0] == f"format_sensitivity_0:{FORMAT_SENSITIVITY_CONFIGS[0]}:simple_python_0"
    assert data.ids[26] == (
        f"format_sensitivity_26:{FORMAT_SENSITIVITY_CONFIGS[0]}:simple_python_2"
    )
    assert data.answers is not None and data.answers[data.ids[30]] == [{"f": {}}]
    assert data.by_id[data.ids[1]]["function"] == [_doc("f")]


def test_bad_stateful_data_is_named(small_data):
    (small_data / "BFCL_v4_format_sensitivity.json").write_text(
        json.dumps({"simple_python": ["simple_python_7"]})
    )
    with pytest.raises(SuiteError, match="field simple_python: ids not in"):
        BfclData(small_data).category("format_sensitivity")
    _jsonl(
        small_data / "BFCL_v4_multi_turn_miss_func.json",
        [{"id": "multi_turn_miss_func_0", "question": [], "involved_classes": ["Nowhere"]}],
    )
    with pytest.raises(SuiteError, match="no function docs for BFCL class 'Nowhere'"):
        BfclData(small_data).category("multi_turn_miss_func").head(1)
    _jsonl(
        small_data / "BFCL_v4_multi_turn_miss_func.json",
        [{"id": "multi_turn_miss_func_0", "question": []}],
    )
    with pytest.raises(SuiteError, match="line 1 .*field involved_classes is missing"):
        BfclData(small_data).category("multi_turn_miss_func").head(1)


# -- against bfcl-eval's own data and loader ---------------------------------------------------
def test_the_new_categories_from_bfcl_eval_data(bfcl_full_data):
    data = bfcl_full_data
    for category in MULTI_TURN:
        assert len(data.category(category)) == 200
    memory = data.category("memory_kv")
    assert len(memory) == 155 and len(memory.prereq) == 37
    assert len(data.category("format_sensitivity")) == 200 * 26


_COMPARE = textwrap.dedent("""
    import json, sys
    from bfcl_eval import utils
    from tooleval_nb.bfcl_rules.data import BfclData
    data = BfclData(sys.argv[1])
    out = {}
    for category in sys.argv[2:]:
        theirs = utils.load_dataset_entry(category, include_language_specific_hint=False)
        ours = data.category(category)
        mine = {e["id"]: e for e in [*ours.prereq, *ours.questions]}
        if category == "format_sensitivity":  # bfcl-eval hints these once even so
            for e in theirs:
                e.pop("function")
            mine = {k: {f: v for f, v in e.items() if f != "function"} for k, e in mine.items()}
        truth = utils.load_ground_truth_entry(category)
        answers = ([g["ground_truth"] for g in truth] if category == "format_sensitivity" else
                   {g["id"].replace("memory", category): g["ground_truth"] for g in truth})
        ok_answers = (answers == [ours.answers[e["id"]] for e in theirs]
                      if category == "format_sensitivity" else
                      all(ours.answers[k] == v for k, v in answers.items()))
        out[category] = [sorted(e["id"] for e in theirs) == sorted(mine),
                         all(mine[e["id"]] == e for e in theirs), ok_answers]
    print(json.dumps(out))
""")


def test_entries_equal_bfcl_evals_own_loader(bfcl_full_data, tmp_path):
    """bfcl-eval's load_dataset_entry / load_ground_truth_entry, run in a subprocess (its
    import writes folders under BFCL_PROJECT_ROOT), give the same entries and answers."""
    probe = subprocess.run(
        [sys.executable, "-c", "import bfcl_eval.utils"],
        env={**os.environ, "BFCL_PROJECT_ROOT": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"bfcl_eval.utils does not import here: {probe.stderr.strip()[-200:]}")
    categories = [*MULTI_TURN, "memory_kv", "memory_rec_sum", "format_sensitivity"]
    done = subprocess.run(
        [sys.executable, "-c", _COMPARE, str(bfcl_full_data.folder), *categories],
        env={**os.environ, "BFCL_PROJECT_ROOT": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        c: [True, True, True] for c in categories
    }
