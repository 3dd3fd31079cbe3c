"""Cross-checks of cases against their tools: every problem reported, each naming its field."""

from __future__ import annotations

import pytest

from tooleval_nb.errors import SuiteError
from tooleval_nb.suite import EvalCase, Suite, Tool, case_problems
from tooleval_nb.suite.checks import case_warnings

WEATHER = Tool.create(
    "get_weather",
    "Weather",
    {"city": {"type": "string"}, "units": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
)
SEARCH = Tool.create("web_search", "Search", {"q": {"type": "string"}})
SEARCH2 = Tool.create("search", "Search", {"query": {"type": "string"}})
TOOLS = [WEATHER, SEARCH, SEARCH2]


def problems(**fields: object) -> list[str]:
    return case_problems(EvalCase.model_validate({"prompt": "x", **fields}), TOOLS)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {"expected_tool": "get_wether"},
            [
                "field expected_tool: tool 'get_wether' is not among the tools offered (get_weather, "
                "search, web_search) (did you mean 'get_weather'?); add the tool or fix the name"
            ],
        ),
        (
            {"expected_tool": "get_weather", "expected_params": {"cty": "Paris"}},
            [
                "field expected_params.cty: 'cty' is not a parameter of tool 'get_weather' (it has: "
                "city, units) (did you mean 'city'?); fix the name or the schema"
            ],
        ),
        (
            {"expected_tool": "get_weather", "expected_params": {"units": "kelvin"}},
            [
                "field expected_params.units: 'kelvin' is not one of the allowed values "
                "['celsius', 'fahrenheit'] of tool 'get_weather'; use one of them or fix the enum"
            ],
        ),
        (
            {
                "expected_calls": [
                    {"name": "get_weather", "arguments": {"units": ["celsius", "", "K"]}}
                ]
            },
            [
                "field expected_calls[0].arguments.units: 'K' is not one of the allowed values "
                "['celsius', 'fahrenheit'] of tool 'get_weather'; use one of them or fix the enum"
            ],
        ),
        (
            {"mock_responses": {"lookup": {}}, "expected_tool": "get_weather"},
            [
                "field mock_responses.lookup: tool 'lookup' is not among the tools offered (get_weather, "
                "search, web_search); add the tool or fix the name"
            ],
        ),
        (
            {"expected": {"tools_not_called": ["rm_rf"]}},
            [
                "field expected.tools_not_called[0]: tool 'rm_rf' is not among the tools offered "
                "(get_weather, search, web_search); add the tool or fix the name"
            ],
        ),
        (
            {"reference_tools": [{"name": "get_weather", "args": {"town": "Oslo"}}]},
            [
                "field reference_tools[0].args.town: 'town' is not a parameter of tool 'get_weather' "
                "(it has: city, units); fix the name or the schema"
            ],
        ),
    ],
    ids=[
        "unknown-tool",
        "unknown-param",
        "enum",
        "enum-among-acceptable-values",
        "mock-tool",
        "tools-not-called",
        "reference-args",
    ],
)
def test_each_problem_names_its_field(fields: dict, expected: list[str]) -> None:
    assert problems(**fields) == expected


@pytest.mark.parametrize(
    "fields",
    [
        {"expected_tool": "GET_WEATHER", "expected_params": {"units": "Celsius"}},
        {"expected_tool": ["search", "web_search"], "expected_params": {"q": "x"}},
        {
            "expected_tool": "get_weather",
            "expected_params": {"units": "^c"},
            "param_scoring": "regex",
        },
        {
            "expected_tool": "get_weather",
            "expected_params": {"units": "fahr"},
            "scoring_config": {"param_modes": {"units": "contains"}},
        },
        {"expected_calls": [{"name": "get_weather", "arguments": {"units": [["celsius"]]}}]},
    ],
    ids=[
        "case-insensitive",
        "param-of-any-acceptable-tool",
        "regex-pattern-not-enum-checked",
        "contains-not-enum-checked",
        "list-of-enum-values",
    ],
)
def test_accepted(fields: dict) -> None:
    assert problems(**fields) == []


def test_no_tools_means_no_tool_checks() -> None:
    case = EvalCase(name="agent", prompt="x", expected={"tools_called": ["book_flight"]})
    assert case_problems(case, []) == []
    assert len(Suite(name="agent", cases=[case])) == 1


def test_suite_reports_every_problem_with_file_and_case() -> None:
    cases = [
        EvalCase(name="a", prompt="x", expected_tool="nope"),
        EvalCase(
            name="b",
            prompt="x",
            expected_tool="get_weather",
            expected_params={"cty": "P", "units": "K"},
        ),
        EvalCase(name="a", prompt="y"),
    ]
    with pytest.raises(SuiteError) as info:
        Suite(name="s", tools=TOOLS, cases=cases, source="data/s.json")
    err = info.value
    assert err.path == "data/s.json"
    assert [p.split(": field ")[0] for p in err.problems] == [
        "data/s.json: case 0 ('a')",
        "data/s.json: case 1 ('b')",
        "data/s.json: case 1 ('b')",
        "data/s.json: case 2 ('a')",
    ]
    assert "field name: 'a' is already the name of case 0" in err.problems[3]
    assert "has 4 problem(s)" in str(err) and all(p in str(err) for p in err.problems)


def test_known_bfcl_problems_are_accepted_and_only_those() -> None:
    bad = {"prompt": "x", "expected_tool": "get_weather", "expected_params": {"units": "K"}}
    text = problems(**{k: v for k, v in bad.items() if k != "prompt"})[0]
    ok = EvalCase.model_validate({**bad, "metadata": {"bfcl_problems": [text]}})
    assert len(Suite(name="s", tools=TOOLS, cases=[ok])) == 1
    other = EvalCase.model_validate(
        {**bad, "expected_params": {"units": "R"}, "metadata": {"bfcl_problems": [text]}}
    )
    with pytest.raises(SuiteError, match="'R' is not one of the allowed values"):
        Suite(name="s", tools=TOOLS, cases=[other])


# -- acceptable alternatives that are not offered (seed 001's ["search", "web_search"]) ---------
ONLY_SEARCH = [SEARCH2]


def test_an_alternative_not_offered_is_a_warning_not_a_problem() -> None:
    case = EvalCase.model_validate(
        {
            "prompt": "x",
            "expected_tool": ["SEARCH", "web_search"],
            "expected_params": {"query": "cats"},
        }
    )
    assert case_problems(case, ONLY_SEARCH) == []
    assert case_warnings(case, ONLY_SEARCH) == [
        "field expected_tool[1]: acceptable tool 'web_search' is not offered, so the model "
        "cannot call it (offered: search); add the tool or drop the name"
    ]


def test_no_alternative_offered_is_still_a_problem() -> None:
    case = EvalCase.model_validate({"prompt": "x", "expected_tool": ["bing", "web_search"]})
    assert case_problems(case, ONLY_SEARCH) == [
        "field expected_tool: none of the acceptable tools ['bing', 'web_search'] is among the "
        "tools offered (search); add one of the tools or fix the names"
    ]
    assert case_warnings(case, ONLY_SEARCH) == []


def test_a_seed_file_with_an_alternative_not_offered_loads_with_a_warning(tmp_path) -> None:
    import json

    from tooleval_nb.formats import load_suite
    from tooleval_nb.suite.checks import SuiteWarning
    from tooleval_nb.suite.model import suite_warnings, warn_suite

    path = tmp_path / "seed.json"
    path.write_text(
        json.dumps(
            {
                "name": "seed",
                "tools": [SEARCH2.to_openai()],
                "test_cases": [
                    {
                        "name": "find",
                        "prompt": "find cats",
                        "expected_tool": ["search", "web_search"],
                    }
                ],
            }
        )
    )
    with pytest.warns(SuiteWarning, match="web_search") as loading:  # it loads, with a warning
        suite = load_suite(path)
    expected = (
        f"{path}: case 0 ('find'): field expected_tool[1]: acceptable tool 'web_search' "
        "is not offered"
    )
    (found,) = suite_warnings(suite)
    assert found.startswith(expected)
    assert [str(w.message) for w in loading] == [found]  # names the file, the case and the tool
    with pytest.warns(SuiteWarning, match="web_search") as caught:
        warn_suite(suite)
    assert str(caught[0].message) == found
    path.write_text(
        json.dumps(
            {
                "name": "seed",
                "tools": [SEARCH2.to_openai()],
                "test_cases": [
                    {"name": "find", "prompt": "find cats", "expected_tool": ["bing", "web_search"]}
                ],
            }
        )
    )
    with pytest.raises(SuiteError, match=r"case 0 \('find'\): field expected_tool: none of"):
        load_suite(path)
