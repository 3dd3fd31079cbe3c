"""Seed-001 JSON: load, save, round trip, and messages for bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval_nb.errors import SuiteError
from tooleval_nb.formats import example_suite, load_suite, save_suite, seed_json
from tooleval_nb.suite import Suite

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "units": {"type": "string", "enum": ["c", "f"]},
            },
            "required": ["city"],
        },
    },
}


def write(tmp_path: Path, data: object, name: str = "s.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def test_example_suite_is_the_seed_template() -> None:
    suite = example_suite()
    assert suite.name == "Weather API Suite" and [t.name for t in suite.tools] == ["get_weather"]
    assert [c.expected_params for c in suite.cases] == [
        {"city": "Paris"},
        {"city": "Tokyo", "units": "fahrenheit"},
    ]
    assert seed_json.to_dict(suite) == seed_json.EXAMPLE


def test_round_trip_of_every_field(tmp_path: Path) -> None:
    case = {
        "name": "full",
        "prompt": "Book it",
        "expected_tool": ["get_weather"],
        "expected_params": {"city": "Paris"},
        "param_scoring": "fuzzy",
        "scoring_config": {"threshold": 0.8, "param_modes": {"city": "fuzzy"}, "custom": 1},
        "multi_turn": True,
        "max_rounds": 4,
        "optimal_hops": 2,
        "valid_prerequisites": ["get_weather"],
        "mock_responses": {"get_weather": {"t": 20}},
        "expected": {"tools_called": ["get_weather"], "output_contains": ["20"]},
        "graders": [{"type": "code", "module": "graders", "function": "f"}],
        "description": "d",
        "timeout": 30,
        "retries": 2,
        "tags": ["a"],
        "metadata": {"k": [1, {"x": None}]},
        "reference_output": "20 degrees",
        "reference_tools": [{"name": "get_weather", "args": {"city": "Paris"}}],
        "category": "cat",
        "draft": True,
        "messages": [{"role": "user", "content": "Book it"}],
        "tools": [TOOL],
    }
    path = write(
        tmp_path,
        {
            "name": "s",
            "description": "d",
            "system_prompt": "sp",
            "tools": [TOOL],
            "test_cases": [case, {"prompt": "Hi", "expected_tool": None}],
        },
    )
    suite = load_suite(path)
    assert isinstance(suite, Suite) and suite.source == str(path)
    out = tmp_path / "out" / "again.json"
    save_suite(suite, out)
    again = load_suite(out)
    assert again == suite
    saved = json.loads(out.read_text())
    assert list(saved) == ["name", "description", "system_prompt", "tools", "test_cases"]
    assert saved["test_cases"][0] == case  # nothing added, nothing lost
    assert saved["test_cases"][1] == {"prompt": "Hi"}


def test_cases_key_and_input_alias(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "name": "s",
            "tools": [TOOL],
            "cases": [{"name": "a", "input": "Weather in Oslo", "expected_tool": "get_weather"}],
        },
    )
    suite = load_suite(path)
    assert isinstance(suite, Suite) and suite.cases[0].prompt == "Weather in Oslo"


def test_name_defaults_to_the_file_stem(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, {"tools": [], "test_cases": [{"prompt": "x"}]}, "mine.json"))
    assert isinstance(suite, Suite) and suite.name == "mine" and suite.description == ""


def problems_of(path: Path) -> list[str]:
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert str(path) in str(info.value)
    assert all(p.startswith(str(path)) for p in info.value.problems)
    return [p.removeprefix(f"{path}: ") for p in info.value.problems]


def test_every_structural_problem_is_reported(tmp_path: Path) -> None:
    bad_tool = {
        "type": "function",
        "function": {
            "name": "broken",
            "parameters": {"type": "object", "properties": {"a": {"type": "strin"}}},
        },
    }
    path = write(
        tmp_path,
        {
            "name": "s",
            "tools": [TOOL, bad_tool, TOOL],
            "colour": "red",
            "test_cases": [
                {"name": "one", "prompt": "x", "expcted_tool": "get_weather"},
                {"name": "two", "prompt": "x", "param_scoring": "loose"},
                {"prompt": "", "expected_tool": "get_weather"},
                "not a case",
                {"name": "five", "prompt": "x", "timeout": "soon"},
            ],
        },
    )
    assert problems_of(path) == [
        "field colour: unknown suite field; the suite fields are name, description, "
        "system_prompt, tools, test_cases, cases",
        "tools[1] ('broken'): field function.parameters: parameters are not valid JSON Schema at "
        "properties/a/type: 'strin' is not a JSON Schema type; use string, number, integer, "
        "boolean, array, object or null",
        "tools[2] ('get_weather'): field function.name: 'get_weather' is already the name of "
        "tools[0]; tool names must be unique",
        "case 0 ('one'): field expcted_tool: unknown field (did you mean 'expected_tool'?); "
        "remove it or fix the spelling",
        "case 1 ('two'): field param_scoring: Input should be 'exact', 'case_insensitive', "
        "'contains', 'numeric_tolerance', 'regex', 'fuzzy' or 'semantic' (got 'loose')",
        "case 2 ('?'): field prompt: a case needs a prompt (or input, or messages); add the "
        "user's text",
        "case 3 ('?'): must be a mapping of case fields, got text",
        "case 4 ('five'): field timeout: input should be a valid number, unable to parse string "
        "as a number, got text 'soon'",
    ]


def test_cross_check_problems_name_file_case_and_field(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "name": "s",
            "tools": [TOOL],
            "test_cases": [
                {"name": "a", "prompt": "x", "expected_tool": "get_wether"},
                {
                    "name": "b",
                    "prompt": "x",
                    "expected_tool": "get_weather",
                    "expected_params": {"town": "Oslo", "units": "k"},
                },
            ],
        },
    )
    assert problems_of(path) == [
        "case 0 ('a'): field expected_tool: tool 'get_wether' is not among the tools offered "
        "(get_weather) (did you mean 'get_weather'?); add the tool or fix the name",
        "case 1 ('b'): field expected_params.town: 'town' is not a parameter of tool "
        "'get_weather' (it has: city, units); fix the name or the schema",
        "case 1 ('b'): field expected_params.units: 'k' is not one of the allowed values "
        "['c', 'f'] of tool 'get_weather'; use one of them or fix the enum",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"name": "s",\n  "tools": [,]}', "line 2, column 13: invalid JSON: Expecting value"),
        (
            '["a list"]',
            "the file must hold one suite object with name, tools and test_cases, got a list",
        ),
        ('{"name": 3, "tools": {}, "test_cases": {}}', "field name: must be text, got a number"),
        (
            '{"name": "s", "tools": {}, "test_cases": []}',
            "field tools: must be a list of OpenAI tools, got a mapping",
        ),
        ('{"name": "s", "test_cases": {"a": 1}}', "field test_cases: must be a list of cases"),
        ('{"name": "s", "test_cases": [], "cases": []}', "both test_cases and cases are given"),
    ],
    ids=["syntax", "not-object", "name-type", "tools-type", "cases-type", "both-case-keys"],
)
def test_bad_files(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(SuiteError, match=message) as info:
        load_suite(path)
    assert str(info.value).startswith(str(path))


def test_missing_file() -> None:
    with pytest.raises(SuiteError, match="nope.json: file not found; check the path"):
        load_suite("nope.json")


def test_save_suite_picks_json_for_other_suffixes(tmp_path: Path) -> None:
    save_suite(example_suite(), tmp_path / "suite.txt")
    assert json.loads((tmp_path / "suite.txt").read_text())["name"] == "Weather API Suite"
