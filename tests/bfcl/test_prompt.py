"""What a model is shown equals what bfcl-eval shows it (golden outputs of bfcl-eval 2026.3.23,
generated in its own venv: its native tools and its prompting messages, for entries of every
category, Java and JavaScript type notes and float notes included)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tooleval_nb.bfcl_rules.data import BfclData
from tooleval_nb.bfcl_rules.prompt import (
    DEFAULT_PROMPT_CONFIG,
    FORMAT_SENSITIVITY_CONFIGS,
    PromptConfig,
    bfcl_functions,
    bfcl_tools,
    config_system_prompt,
    function_doc,
    openai_tool,
    parse_prompt_config,
    prompt_config_of,
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
    from tooleval_nb.bfcl_rules.categories import SINGLE_TURN as CATEGORIES
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
        bfcl_tools(
            [{"name": "", "parameters": {"type": "dict", "properties": {}}}], "simple_python"
        )
    with pytest.raises((TypeError, AttributeError)):
        bfcl_tools(
            [{"name": "f", "parameters": {"type": "dict", "properties": [1]}}], "simple_python"
        )


# -- format sensitivity: BFCL's 26 prompt configurations ---------------------------------------
FORMAT_GOLDEN = json.loads(
    gzip.decompress(
        (Path(__file__).parent / "data" / "bfcl_eval_format_prompts.json.gz").read_bytes()
    )
)


def test_format_sensitivity_prompts_equal_bfcl_eval(bfcl_full_data):
    """Two entries (nested, enum and default parameters; one with its own system message)
    under all 26 configurations, as bfcl-eval 2026.3.23's prompting handler builds them
    (functions hinted twice, as its generation does)."""
    assert len(FORMAT_GOLDEN) == 2 * 26
    data = bfcl_full_data.category("format_sensitivity")
    for golden in FORMAT_GOLDEN:
        assert (
            prompt_messages(data.by_id[golden["id"]], "format_sensitivity") == (golden["messages"])
        ), golden["id"]


def test_prompt_configurations():
    assert len(FORMAT_SENSITIVITY_CONFIGS) == 26 == len(set(FORMAT_SENSITIVITY_CONFIGS))
    assert FORMAT_SENSITIVITY_CONFIGS[0] == (
        "ret_fmt=python&tool_call_tag=True&func_doc_fmt=python&prompt_fmt=plaintext&style=classic"
    )
    assert parse_prompt_config(FORMAT_SENSITIVITY_CONFIGS[-1]) == PromptConfig(
        "python", False, "json", "plaintext", "experimental"
    )
    assert parse_prompt_config(DEFAULT_PROMPT_CONFIG).tool_call_tag is False
    assert prompt_config_of("simple_python_3") == DEFAULT_PROMPT_CONFIG
    assert (
        prompt_config_of(f"format_sensitivity_9:{FORMAT_SENSITIVITY_CONFIGS[9]}:multiple_4")
        == FORMAT_SENSITIVITY_CONFIGS[9]
    )
    with pytest.raises(ValueError, match="not a BFCL prompt configuration"):
        parse_prompt_config("ret_fmt=yaml&tool_call_tag=False")
    with pytest.raises(ValueError, match="two ':'"):
        prompt_config_of("a:b")


def test_the_default_configuration_is_the_default_system_prompt():
    functions = [
        {"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {}}}
    ]
    assert config_system_prompt(DEFAULT_PROMPT_CONFIG, functions) == system_prompt(functions)


def test_function_docs_in_xml_and_python_by_hand():
    fn = {
        "name": "book",
        "description": "Book it.",
        "parameters": {
            "type": "dict",
            "required": ["city"],
            "properties": {
                "city": {"type": "string", "description": "Where.", "enum": ["A", "B"]},
                "days": {
                    "type": "array",
                    "items": {"type": "integer"},
                    "description": "When.",
                    "default": [1],
                },
                "who": {
                    "type": "dict",
                    "description": "Guest.",
                    "properties": {"name": {"type": "string", "description": "Name."}},
                },
            },
        },
    }
    assert function_doc([fn], "xml") == (
        '<function name="book">\n  <desc>Book it.</desc>\n  <params>\n'
        '    <param name="city" type="string" required="true">\n'
        "      <desc>Where. Enum values: ['A', 'B'].</desc>\n    </param>\n"
        '    <param name="days" type="array[integer]" required="false" default="[1]">\n'
        "      <desc>When.</desc>\n    </param>\n"
        '    <param name="who" type="dict" required="false">\n      <desc>Guest.</desc>\n'
        "      <params>\n"
        '        <param name="name" type="string" required="true">\n'
        "          <desc>Name.</desc>\n        </param>\n      </params>\n    </param>\n"
        "  </params>\n</function>\n"
    )
    assert function_doc([fn], "python") == (
        '# Function: book\n    """\n    Book it.\n\n    Args:\n'
        "        city (str): Where. Enum values: ['A', 'B'].\n"
        "        days (list[int], default=[1]): When.\n"
        "        who (dict): Guest.\n            name (str): Name.\n"
        '    """\n\n\n\n'
    )  # the doc, then "\n\n".join([doc, "\n"])
    with pytest.raises(ValueError, match="json, xml or python"):
        function_doc([fn], "yaml")
