"""SuiteEditor without a browser: set values, click, assert state."""

from __future__ import annotations

import json

import pytest

from tooleval_nb import SuiteError
from tooleval_nb.widgets import SuiteEditor

from .conftest import WEATHER


@pytest.fixture
def editor(weather_suite) -> SuiteEditor:
    return SuiteEditor(weather_suite)


def test_loads_a_suite(editor, weather_suite):
    assert editor.name_input.value == "fake weather"
    assert json.loads(editor.tools_input.value)[0]["function"]["name"] == "get_weather"
    assert len(editor.case_select.options) == len(weather_suite.cases)
    assert "milan_for_rome" in editor.cases_table.value
    assert editor.suite.model_dump() == weather_suite.model_dump()


def test_tools_are_validated_as_you_type(editor):
    editor.tools_input.value = '[{"type": "function", "function": {"name": "get_weather",'
    assert "not valid JSON at line 1" in editor.errors["tools"].value
    editor.tools_input.value = json.dumps([WEATHER.to_openai()])
    assert editor.errors["tools"].value == ""


def test_removing_a_tool_flags_the_cases_that_need_it(editor):
    editor.tools_input.value = json.dumps(
        [{"name": "search", "parameters": {"type": "object", "properties": {}}}]
    )
    assert "not among the tools" in editor.errors["cases"].value
    with pytest.raises(SuiteError, match="get_weather"):
        _ = editor.suite


def test_case_errors_show_next_to_their_field(editor):
    editor.case_prompt.value = "What is the weather in Rome?"
    editor.case_tool.value = "get_wether"
    assert "get_weather" in editor.errors["expected_tool"].value  # did you mean
    editor.case_tool.value = "get_weather"
    assert editor.errors["expected_tool"].value == ""
    editor.case_params.value = '{"city": "Rome", "units": "kelvin"}'
    assert "allowed values" in editor.errors["expected_params"].value
    assert editor.errors["prompt"].value == ""


def test_add_update_delete(editor, weather_suite):
    n = len(weather_suite.cases)
    editor.clear_button.click()
    editor.case_name.value = "rome"
    editor.case_prompt.value = "get_weather city Rome"
    editor.case_tool.value = "get_weather"
    editor.case_params.value = '{"city": "Rome"}'
    editor.case_tags.value = "smoke, new"
    editor.add_button.click()
    assert len(editor.suite.cases) == n + 1
    assert editor.suite.cases[-1].tags == ["smoke", "new"]
    assert editor.selected == n and not editor.delete_button.disabled

    editor.select_case(0)
    assert editor.case_prompt.value == "get_weather city Paris"
    editor.case_scoring.value = "case_insensitive"
    editor.update_button.click()
    assert editor.suite.cases[0].param_scoring == "case_insensitive"

    editor.select_case(1)
    editor.delete_button.click()
    assert [c.name for c in editor.suite.cases] == ["paris", "units", "chat", "rome"]
    assert editor.selected is None and editor.update_button.disabled


def test_a_case_added_from_a_loaded_draft_is_a_new_reviewed_case(weather_suite):
    draft = weather_suite.cases[0].model_copy(
        update={
            "id": "draft_paris",
            "draft": True,
            "tags": ["draft"],
            "metadata": {"draft": {"source": "model"}},
        }
    )
    editor = SuiteEditor(weather_suite.model_copy(update={"cases": [draft]}))
    editor.select_case(0)
    editor.case_prompt.value = "get_weather city Lyon"
    editor.case_params.value = '{"city": "Lyon"}'
    editor.add_button.click()
    added = editor.suite.cases[1]
    assert not added.draft and "draft" not in added.tags
    assert added.metadata["draft"] == {"source": "model", "accepted": True, "edited": True}
    assert added.name == "paris #2" and added.id != "draft_paris"  # ids and names stay unique
    assert editor.suite.cases[0].draft  # the draft itself is still waiting for review


def test_an_invalid_case_is_not_added(editor, weather_suite):
    editor.clear_button.click()
    editor.case_tool.value = "get_weather"
    editor.add_button.click()
    assert len(editor.cases) == len(weather_suite.cases)
    assert "needs a prompt" in editor.errors["prompt"].value


def test_export_and_import_through_the_buttons(editor, tmp_path):
    path = tmp_path / "out.yaml"
    editor.path_input.value = str(path)
    editor.export_button.click()
    assert path.exists() and "exported" in editor.status.value
    fresh = SuiteEditor()
    fresh.path_input.value = str(path)
    fresh.import_button.click()
    assert fresh.suite.model_dump() == editor.suite.model_dump()
    assert "imported" in fresh.status.value


def test_import_of_a_bad_file_shows_the_problems(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "tools": [], "test_cases": [{"prompt": ""}]}')
    editor = SuiteEditor()
    editor.import_file(str(bad))
    assert "bad.json" in editor.errors["suite"].value
    assert editor.name_input.value == "new suite"  # nothing was loaded


def test_export_refuses_an_invalid_suite(editor, tmp_path):
    editor.name_input.value = ""
    assert "needs a name" in editor.errors["name"].value
    assert editor.export_file(str(tmp_path / "x.json")) is None
    assert "needs a name" in editor.errors["suite"].value
    assert not (tmp_path / "x.json").exists()
