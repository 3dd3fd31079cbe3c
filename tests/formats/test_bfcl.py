"""BFCL: every reference file loads, schemas convert, answers are kept, files round-trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval_nb.errors import SuiteError
from tooleval_nb.formats import bfcl, load_bfcl, load_suite, save_bfcl
from tooleval_nb.suite import EvalCase, Suite, Tool

COUNTS = {
    "simple_python": 400,
    "simple_java": 100,
    "simple_javascript": 50,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "irrelevance": 240,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "live_irrelevance": 884,
    "live_relevance": 16,
}


@pytest.fixture(scope="module")
def reference(bfcl_data: Path) -> dict[str, Suite]:
    suites = load_suite(bfcl_data)
    assert isinstance(suites, list)
    return {s.name.removeprefix("bfcl_"): s for s in suites}


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_every_reference_file_loads(reference: dict[str, Suite]) -> None:
    assert {k: len(s) for k, s in reference.items()} == COUNTS
    assert sum(COUNTS.values()) == 3641
    for category, suite in reference.items():
        assert {c.category for c in suite.cases} == {category}
        assert all(c.tags == ["bfcl", category] and c.tools is not None for c in suite.cases)
    assert sum(c.tools == [] for c in reference["live_irrelevance"].cases) == 4  # no functions


@pytest.mark.parametrize(
    ("category", "language"),
    [
        ("simple_python", "python"),
        ("simple_java", "java"),
        ("simple_javascript", "javascript"),
        ("live_multiple", "python"),
    ],
    ids=["python", "java", "javascript", "live"],
)
def test_language(reference: dict[str, Suite], category: str, language: str) -> None:
    assert {c.metadata["bfcl_language"] for c in reference[category].cases} == {language}


def test_answers_are_kept_whole(reference: dict[str, Suite], bfcl_data: Path) -> None:
    for category in ("parallel", "parallel_multiple", "live_parallel_multiple"):
        truth = {
            a["id"]: a["ground_truth"]
            for a in lines(bfcl_data / "possible_answer" / f"BFCL_v4_{category}.json")
        }
        for case in reference[category].cases:
            assert [{c.name: c.arguments} for c in case.expected_calls or []] == truth[case.id]
    assert max(len(c.expected_calls or []) for c in reference["parallel"].cases) >= 3


def test_no_answer_categories(reference: dict[str, Suite]) -> None:
    for category in ("irrelevance", "live_irrelevance"):
        assert all(c.expected_call_list() == [] for c in reference[category].cases)
    for case in reference["live_relevance"].cases:
        assert case.expected_tool == [t.name for t in case.tools or []]
        assert case.expected_params is None


def test_messages_come_from_the_question(reference: dict[str, Suite]) -> None:
    case = reference["simple_python"].case("simple_python_0")
    assert case.messages == [
        {
            "role": "user",
            "content": "Find the area of a triangle with a base of 10 units and height of 5 units.",
        }
    ]
    assert case.prompt == "" and case.prompt_text.startswith("Find the area")
    systems = [
        c
        for c in reference["live_irrelevance"].cases
        if c.messages and c.messages[0]["role"] == "system"
    ]
    assert systems  # BFCL's own system messages are kept in place


def test_schema_conversion_keeps_the_gorilla_types() -> None:
    params = {
        "type": "dict",
        "required": ["a"],
        "properties": {
            "a": {"type": "float", "description": "x"},
            "b": {"type": "tuple", "items": {"type": "dict", "properties": {"c": {"type": "any"}}}},
            "d": {"type": "array", "items": {"type": "array", "items": {"type": "float"}}},
            "e": {"type": "HashMap", "additionalProperties": {"type": "long"}},
            "f": {"description": "no type"},
            "g": {"type": "weird"},
        },
    }
    out = bfcl.to_openai_parameters(params)
    assert out["type"] == "object" and out["x-bfcl-type"] == "dict"
    props = out["properties"]
    assert props["a"] == {"type": "number", "x-bfcl-type": "float", "description": "x"}
    assert props["b"]["type"] == "array" and props["b"]["items"]["type"] == "object"
    assert props["b"]["items"]["properties"]["c"] == {"type": "string", "x-bfcl-type": "any"}
    assert props["d"]["items"]["items"] == {"type": "number", "x-bfcl-type": "float"}
    assert props["e"]["additionalProperties"] == {"type": "integer", "x-bfcl-type": "long"}
    assert props["f"] == {"description": "no type", "type": "string", "x-bfcl-type": None}
    assert props["g"] == {"type": "string", "x-bfcl-type": "weird"}
    assert bfcl.to_gorilla_parameters(out) == params
    Tool.create("f", "", out)  # valid JSON Schema


def test_java_parameters_are_presented_as_strings(reference: dict[str, Suite]) -> None:
    tool = (reference["simple_java"].case("simple_java_1").tools or [])[0]
    props = tool.function.parameters["properties"]
    assert {p["type"] for p in props.values()} == {"string"}
    assert props["useShortName"]["x-bfcl-type"] == "boolean"
    assert props["params"]["x-bfcl-type"] == "HashMap"


def test_dotted_names_are_kept(reference: dict[str, Suite]) -> None:
    tool = (reference["simple_python"].case("simple_python_1").tools or [])[0]
    assert tool.name == "math.factorial" and tool.api_name == "math_factorial"


def test_data_inconsistencies_are_recorded_not_raised(reference: dict[str, Suite]) -> None:
    flagged = {
        k: sum(bool(c.metadata.get("bfcl_problems")) for c in s.cases) for k, s in reference.items()
    }
    assert flagged["simple_python"] == 0 and flagged["live_multiple"] > 0
    case = reference["live_multiple"].case("live_multiple_87-38-4")
    assert case.metadata["bfcl_problems"] == [
        "field expected_calls[0].arguments.type: 'openai' is not one of the allowed values "
        "['all', 'postgres', 'openapi', 'graphql'] of tool 'list_servers'; use one of them or fix "
        "the enum"
    ]


def test_saving_gives_back_the_same_json(
    reference: dict[str, Suite], bfcl_data: Path, tmp_path: Path
) -> None:
    for category, suite in reference.items():
        qpath, apath = save_bfcl(suite, tmp_path)
        original = bfcl_data / f"BFCL_v4_{category}.json"
        assert Path(qpath).name == original.name
        assert lines(Path(qpath)) == lines(original), category
        answers = bfcl_data / "possible_answer" / original.name
        if answers.exists():
            assert apath is not None and lines(Path(apath)) == lines(answers), category
        else:
            assert apath is None
    for category in ("simple_java", "live_parallel", "live_relevance"):
        assert bfcl.load(tmp_path / f"BFCL_v4_{category}.json") == reference[category]


def test_hand_written_suite_to_bfcl_and_back(data_dir: Path, tmp_path: Path) -> None:
    parallel = load_suite(data_dir / "parallel.json")
    assert isinstance(parallel, Suite)
    qpath, apath = save_bfcl(parallel, tmp_path, category="parallel")
    assert apath is not None
    back = load_bfcl(qpath, apath)
    assert [c.id for c in back.cases] == [c.id for c in parallel.cases]
    for old, new in zip(parallel.cases, back.cases, strict=True):
        assert new.expected_calls == old.expected_calls
        assert new.messages == old.to_messages(parallel.system_prompt)
        assert [t.name for t in new.tools or []] == [t.name for t in parallel.tools]
    sent = (back.cases[0].tools or [])[0].to_openai()
    assert sent == parallel.tools[0].to_openai()  # object->dict->object, string stays string


def test_irrelevance_suite_writes_no_answers(data_dir: Path, tmp_path: Path) -> None:
    suite = load_suite(data_dir / "irrelevance.json")
    assert isinstance(suite, Suite)
    qpath, apath = save_bfcl(suite, tmp_path)
    assert apath is None and Path(qpath).name == "BFCL_v4_irrelevance.json"
    back = load_bfcl(qpath)
    assert back.name == "bfcl_irrelevance" and all(not c.expected_call_list() for c in back.cases)


QUESTION = {
    "id": "simple_python_0",
    "question": [[{"role": "user", "content": "5!"}]],
    "function": [
        {
            "name": "math.factorial",
            "description": "n!",
            "parameters": {
                "type": "dict",
                "properties": {"number": {"type": "integer"}},
                "required": ["number"],
            },
        }
    ],
}
ANSWER = {"id": "simple_python_0", "ground_truth": [{"math.factorial": {"number": [5]}}]}


def write_pair(
    tmp_path: Path, questions: list, answers: list | None, name: str = "BFCL_v4_simple_python.json"
) -> Path:
    qpath = tmp_path / name
    qpath.write_text(
        "".join((q if isinstance(q, str) else json.dumps(q)) + "\n" for q in questions)
    )
    if answers is not None:
        (tmp_path / "possible_answer").mkdir(exist_ok=True)
        (tmp_path / "possible_answer" / name).write_text(
            "".join((a if isinstance(a, str) else json.dumps(a)) + "\n" for a in answers)
        )
    return qpath


def bfcl_problems(path: Path) -> list[str]:
    with pytest.raises(SuiteError) as info:
        bfcl.load(path)
    return info.value.problems


def test_small_pair_loads(tmp_path: Path) -> None:
    suite = bfcl.load(write_pair(tmp_path, [QUESTION], [ANSWER]))
    case = suite.cases[0]
    assert isinstance(case, EvalCase) and case.id == "simple_python_0"
    assert case.expected_calls is not None and case.expected_calls[0].arguments == {"number": [5]}


def test_every_broken_line_is_reported(tmp_path: Path) -> None:
    qpath = write_pair(tmp_path, [QUESTION, "{broken", '"text"'], [ANSWER])
    assert bfcl_problems(qpath) == [
        f"{qpath}, line 2: not JSON (Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)); each line must be one JSON object",
        f"{qpath}, line 3: each line must be one JSON object, not str",
    ]


def test_answers_and_questions_must_match(tmp_path: Path) -> None:
    second = {**QUESTION, "id": "simple_python_1"}
    stray = {**ANSWER, "id": "simple_python_9"}
    qpath = write_pair(tmp_path, [QUESTION, second], [ANSWER, stray, {"id": "x"}])
    apath = tmp_path / "possible_answer" / qpath.name
    assert bfcl_problems(qpath) == [
        f"{apath}: line 3 ('x'): field ground_truth: must be a list of {{function name: "
        "{parameter: [acceptable values]}}",
        f"{qpath}: line 2, case 1 ('simple_python_1'): no ground truth for this id in {apath}; "
        "add its answer line",
        f"{apath}: line 2: field id: 'simple_python_9' has no question in {qpath}; remove it or "
        "add the question",
    ]


def test_bad_entries(tmp_path: Path) -> None:
    bad_schema = {
        **QUESTION,
        "function": [
            {
                "name": "f",
                "parameters": {
                    "type": "dict",
                    "properties": {"a": {"type": "integer", "minimum": "zero"}},
                },
            }
        ],
    }
    bad_truth = {**ANSWER, "ground_truth": [{"math.factorial": [5]}]}
    qpath = write_pair(
        tmp_path,
        [bad_schema, {"id": "simple_python_1", "question": "hi"}],
        [bad_truth, {**ANSWER, "id": "simple_python_1"}],
    )
    apath = tmp_path / "possible_answer" / qpath.name
    assert bfcl_problems(qpath) == [
        f"{qpath}: line 1, case 0 ('simple_python_0'): field function[0].parameters ('f'): "
        "parameters are not valid JSON Schema at properties/a/minimum: 'zero' is not of type "
        "'number'",
        f"{apath}: line 1 ('simple_python_0'): field ground_truth[0].math.factorial: must map "
        "parameters to lists of acceptable values",
        f"{qpath}: line 2, case 1 ('simple_python_1'): field question: must be a list of turns, "
        "each a list of {role, content} messages",
        f"{qpath}: line 2, case 1 ('simple_python_1'): field function: must be a list of "
        "function schemas",
    ]


def test_missing_answer_file(tmp_path: Path) -> None:
    qpath = write_pair(tmp_path, [QUESTION], None)
    with pytest.raises(
        SuiteError,
        match="no possible-answer file found .*category "
        "'simple_python' needs one: pass answers_path",
    ):
        bfcl.load(qpath)


def test_category_from_the_ids_when_the_name_says_nothing(tmp_path: Path) -> None:
    qpath = write_pair(tmp_path, [{**QUESTION, "id": "irrelevance_3"}], None, name="mine.jsonl")
    suite = load_suite(qpath)
    assert isinstance(suite, Suite) and suite.name == "bfcl_irrelevance"


def test_extra_keys_and_turns_survive(tmp_path: Path) -> None:
    entry = {
        **QUESTION,
        "question": [[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]],
        "initial_config": {"x": 1},
    }
    answer = {**ANSWER, "note": "kept"}
    qpath = write_pair(tmp_path, [entry], [answer])
    suite = bfcl.load(qpath)
    meta = suite.cases[0].metadata
    assert meta["bfcl_turns"] == [1, 1] and meta["bfcl_extra"] == {"initial_config": {"x": 1}}
    out = tmp_path / "out"
    q2, a2 = save_bfcl(suite, out)
    assert lines(Path(q2)) == [entry] and a2 is not None and lines(Path(a2)) == [answer]
