"""The suite editor's pure logic: parse, validate field by field, import and export."""

from __future__ import annotations

import json

import pytest

from tooleval_nb import SuiteError
from tooleval_nb.widgets.editing import (
    CaseForm,
    build_case,
    build_suite,
    case_rows,
    case_to_form,
    export_suite,
    import_suite,
    parse_tools,
)

from .conftest import WEATHER

TOOLS_TEXT = json.dumps([WEATHER.to_openai()])


@pytest.mark.parametrize(
    "text, problem",
    [
        ('[{"type": "function", "function": {"name": "f"}', "not valid JSON at line 1, column"),
        ('"just text"', "must be a JSON list of tools"),
        (
            '[{"type": "function", "function": {"name": "f", "parameters": {"type": "string"}}}]',
            "tool 0 ('f'): function.parameters",
        ),
        ('[{"name": "f"}, {"name": "F"}]', "defined twice"),
        ('[{"type": "function", "function": {"description": "no name"}}]', "tool 0 ('?')"),
    ],
    ids=["syntax", "not-a-list", "bad-schema", "duplicate", "no-name"],
)
def test_parse_tools_names_the_problem(text, problem):
    tools, problems = parse_tools(text)
    assert tools is None
    assert any(problem in p for p in problems), problems


def test_parse_tools_accepts_flat_and_wrapped_forms():
    flat, _ = parse_tools('[{"name": "f", "parameters": {"type": "object", "properties": {}}}]')
    wrapped, _ = parse_tools(json.dumps({"tools": [WEATHER.to_openai()]}))
    assert [t.name for t in flat] == ["f"] and [t.name for t in wrapped] == ["get_weather"]
    assert parse_tools("  ") == ([], [])


@pytest.mark.parametrize(
    "form, field, message",
    [
        (CaseForm(prompt="", expected_tool="get_weather"), "prompt", "needs a prompt"),
        (CaseForm(prompt="p", expected_tool="get_wether"), "expected_tool", "get_weather"),
        (
            CaseForm(prompt="p", expected_tool="get_weather", expected_params="{city: 1}"),
            "expected_params",
            "not valid JSON",
        ),
        (
            CaseForm(prompt="p", expected_tool="get_weather", expected_params="[1]"),
            "expected_params",
            "must be a JSON object",
        ),
        (
            CaseForm(prompt="p", expected_tool="get_weather", expected_params='{"town": "x"}'),
            "expected_params",
            "'town' is not a parameter",
        ),
        (
            CaseForm(
                prompt="p", expected_tool="get_weather", expected_params='{"units": "kelvin"}'
            ),
            "expected_params",
            "not one of the allowed values",
        ),
        (
            CaseForm(prompt="p", expected_tool="", expected_params='{"city": "x"}'),
            "expected_params",
            "expected_tool is null",
        ),
        (CaseForm(prompt="p", param_scoring="approximately"), "param_scoring", "not one of"),
    ],
    ids=[
        "no-prompt",
        "unknown-tool",
        "params-syntax",
        "params-not-object",
        "unknown-param",
        "enum",
        "params-without-tool",
        "scoring-mode",
    ],
)
def test_build_case_puts_each_problem_on_its_field(form, field, message):
    case, problems = build_case(form, [WEATHER])
    assert case is None
    assert field in problems, problems
    assert any(message in m for m in problems[field]), problems[field]


def test_build_case_and_back():
    form = CaseForm(
        name="n",
        prompt="Weather in Paris?",
        expected_tool="get_weather | search",
        expected_params='{"city": "Paris"}',
        param_scoring="fuzzy",
        tags="a, b",
    )
    case, problems = build_case(form)
    assert problems == {}
    assert case.expected_tool == ["get_weather", "search"]
    assert case.expected_params == {"city": "Paris"} and case.tags == ["a", "b"]
    again = case_to_form(case)
    assert (again.expected_tool, again.param_scoring, again.tags) == (
        "get_weather | search",
        "fuzzy",
        "a, b",
    )
    assert build_case(again)[0] == case


def test_case_to_form_keeps_fields_the_form_does_not_show():
    case, _ = build_case(
        CaseForm(
            prompt="p", expected_tool="get_weather", extra={"multi_turn": True, "max_rounds": 3}
        )
    )
    form = case_to_form(case)
    assert form.extra["multi_turn"] is True and form.extra["max_rounds"] == 3


def test_build_suite_reports_every_problem():
    suite, problems = build_suite("", "", "", "[oops", [])
    assert suite is None and set(problems) == {"name", "tools"}
    case, _ = build_case(CaseForm(prompt="p", expected_tool="get_weather"))
    other = '[{"name": "search", "parameters": {"type": "object", "properties": {}}}]'
    suite, problems = build_suite("s", "", "", other, [case])
    assert suite is None and "not among the tools" in problems["cases"][0]
    suite, problems = build_suite("s", "d", "  be brief ", TOOLS_TEXT, [case])
    assert problems == {} and suite.system_prompt == "be brief" and len(suite) == 1
    assert case_rows(suite.cases)[0]["expected_tool"] == "get_weather"


@pytest.mark.parametrize(
    "name, fmt",
    [("s.json", "auto"), ("s.yaml", "auto"), ("s.txt", "seed_json"), ("bfcl_dir", "bfcl")],
    ids=["json", "yaml", "forced-json", "bfcl"],
)
def test_export_then_import_round_trips(tmp_path, weather_suite, name, fmt):
    written = export_suite(weather_suite, tmp_path / name, fmt)
    path = written.split(" and ")[0]
    loaded = import_suite(
        path, "bfcl" if fmt == "bfcl" else ("seed_json" if fmt == "seed_json" else "auto")
    )
    assert [c.prompt_text for c in loaded.cases] == [c.prompt for c in weather_suite.cases]
    assert [t.name for t in loaded.tools_for(loaded.cases[0])] == ["get_weather"]


def test_import_reports_a_bad_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "test_cases": [{"expected_tool": "f"}]}')
    with pytest.raises(SuiteError) as info:
        import_suite(bad)
    assert "bad.json" in str(info.value)
