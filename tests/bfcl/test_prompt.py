"""What a model is shown equals what bfcl-eval shows it (golden outputs of bfcl-eval 2026.3.23,
generated in its own venv: its native tools and its prompting messages, for entries of every
category, Java and JavaScript type notes and float notes included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval_nb.bfcl.data import BfclData
from tooleval_nb.bfcl.prompt import (
    bfcl_functions,
    bfcl_tools,
    openai_tool,
    prompt_messages,
    system_prompt,
)

GOLDEN = json.loads((Path(__file__).parent / "data" / "bfcl_eval_prompts.json").read_text())


@pytest.fixture(scope="module")
def data(bfcl_data):
    return BfclData(bfcl_data)


@pytest.mark.parametrize("golden", GOLDEN, ids=[g["id"] for g in GOLDEN])
def test_native_tools_equal_bfcl_eval(golden, data):
    entry = data.category(golden["category"]).by_id[golden["id"]]
    tools = [openai_tool(f) for f in bfcl_functions(entry["function"], golden["category"])]
    assert tools == golden["tools"]


@pytest.mark.parametrize("golden", GOLDEN, ids=[g["id"] for g in GOLDEN])
def test_prompting_messages_equal_bfcl_eval(golden, data):
    entry = data.category(golden["category"]).by_id[golden["id"]]
    assert prompt_messages(entry, golden["category"]) == golden["messages"]


def test_the_entry_itself_is_not_changed(data):
    entry = data.category("simple_java").questions[0]
    before = json.dumps(entry, sort_keys=True)
    prompt_messages(entry, "simple_java")
    bfcl_tools(entry["function"], "simple_java")
    assert json.dumps(entry, sort_keys=True) == before


def test_tools_keep_dotted_names_and_send_underscores(data):
    entry = data.category("simple_python").by_id["simple_python_1"]  # math.factorial
    tool = bfcl_tools(entry["function"], "simple_python")[0]
    assert tool.name == "math.factorial"
    assert tool.to_openai(api_names=True)["function"]["name"] == "math_factorial"
    assert tool.function.parameters["properties"]["number"]["x-bfcl-type"] == "integer"


def test_the_json_format_asks_for_bfcls_json_list():
    text = system_prompt([{"name": "f", "description": "d", "parameters": {}}], "json")
    assert '[{"function":"func_name1","parameters":' in text
    with pytest.raises(ValueError, match="prompt_format"):
        system_prompt([], "xml")  # type: ignore[arg-type]


def test_every_reference_schema_passes_the_meta_check_it_is_built_without(data):
    """bfcl_tools builds tools without pydantic's JSON Schema meta-check (BFCL sends its
    schemas unchecked): on the whole reference data nothing is lost, every schema passes it,
    and each tool equals the validated one."""
    from tooleval_nb.bfcl.categories import SINGLE_TURN as CATEGORIES
    from tooleval_nb.suite import Tool, schema_problem

    n = 0
    for category in CATEGORIES:
        for entry in data.category(category).questions:
            for tool in bfcl_tools(entry["function"], category):
                assert schema_problem(tool.function.parameters) is None, entry["id"]
                assert Tool.model_validate(tool.model_dump()) == tool
                n += 1
    assert n > 1000


def test_a_function_without_a_name_or_object_parameters_is_refused():
    with pytest.raises(ValueError, match="needs a name"):
        bfcl_tools([{"name": "", "parameters": {"type": "dict", "properties": {}}}],
                   "simple_python")
    with pytest.raises((TypeError, AttributeError)):
        bfcl_tools([{"name": "f", "parameters": {"type": "dict", "properties": [1]}}],
                   "simple_python")
