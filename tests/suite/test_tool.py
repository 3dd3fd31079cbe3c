"""Tool: OpenAI tool schemas, checked as JSON Schema."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tooleval_nb.suite import FunctionDef, Tool, schema_problem, strip_extensions


def test_create_from_properties_or_full_schema() -> None:
    a = Tool.create("get_weather", "Weather", {"city": {"type": "string"}}, required=["city"])
    b = Tool.create(
        "get_weather",
        "Weather",
        {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
    )
    assert a == b
    assert a.name == "get_weather" and a.required == ["city"] and list(a.properties) == ["city"]


def test_flat_form_is_accepted() -> None:
    tool = Tool.model_validate(
        {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}}
    )
    assert tool.function.name == "f" and tool.type == "function"


def test_a_parameter_named_type_is_not_taken_for_the_schema_type() -> None:
    tool = Tool.create("set_mode", "", {"type": {"type": "string"}})
    assert tool.properties == {"type": {"type": "string"}}


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        (
            {"type": "object", "properties": {"a": {"type": "strin"}}},
            "at properties/a/type: 'strin' is not a JSON Schema type",
        ),
        ({"type": "object", "required": "a"}, "at required: 'a' is not of type 'array'"),
        ({"type": "array"}, "must describe an object (type 'object'), got type 'array'"),
        (
            {"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}},
            "at properties/a/minLength",
        ),
    ],
    ids=["bad-type", "required-not-list", "not-object", "negative-minlength"],
)
def test_invalid_schemas_are_refused_with_the_place(params: dict, needle: str) -> None:
    assert needle in (schema_problem(params) or "")
    with pytest.raises(ValidationError, match="parameters are not valid|must describe"):
        FunctionDef(name="f", parameters=params)


def test_schema_problem_of_non_mapping() -> None:
    assert schema_problem(["a"]) == "parameters must be a JSON Schema object, got list"


def test_declared_draft_is_used() -> None:
    # prefixItems is only a keyword in 2020-12; a wrong value there is only caught by that draft
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"p": {"type": "array", "prefixItems": "nope"}},
    }
    assert "prefixItems" in (schema_problem(schema) or "")
    del schema["$schema"]
    assert schema_problem(schema) is None


def test_api_name_and_to_openai() -> None:
    tool = Tool.create(
        "math.factorial",
        "n!",
        {"number": {"type": "integer", "x-bfcl-type": "integer", "default": {"x-kept": 1}}},
    )
    assert tool.api_name == "math_factorial"
    sent = tool.to_openai(api_names=True)
    assert sent["function"]["name"] == "math_factorial"
    assert sent["function"]["parameters"]["properties"]["number"] == {
        "type": "integer",
        "default": {"x-kept": 1},
    }
    kept = tool.to_openai(extensions=True)
    assert kept["function"]["parameters"]["properties"]["number"]["x-bfcl-type"] == "integer"
    assert kept["function"]["name"] == "math.factorial"


def test_strip_extensions_keeps_property_names_and_data() -> None:
    schema = {
        "type": "object",
        "x-a": 1,
        "properties": {"x-name": {"type": "string", "x-b": 2}, "e": {"enum": [{"x-c": 1}]}},
        "items": [{"x-d": 1, "type": "string"}],
    }
    assert strip_extensions(schema) == {
        "type": "object",
        "properties": {"x-name": {"type": "string"}, "e": {"enum": [{"x-c": 1}]}},
        "items": [{"type": "string"}],
    }


_INVALID = [
    {"type": "object", "properties": {"a": {"type": "strin"}}},
    {"type": "object", "required": "a"},
    {"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}},
    {"type": "object", "properties": []},
    {"type": "object", "properties": {"a": {"items": 3}}},
    {"type": "object", "properties": {"a": {"enum": "x"}}},
    {"type": "object", "properties": {"a": {"maximum": "9"}}},
    {"type": "object", "additionalProperties": "no"},
    {"type": "object", "properties": {"a": {"anyOf": []}}},
    {"type": ["object", "strin"]},
    {"type": "object", "required": ["a", "a"]},
]


def test_the_compiled_meta_check_agrees_with_jsonschema(monkeypatch) -> None:
    """After the compile threshold, fastjsonschema's acceptance is trusted: it must accept
    what jsonschema accepts (BFCL's reference tools, when present, and our bundled suites) and
    must never accept what jsonschema refuses."""
    import json
    from pathlib import Path

    import jsonschema

    from tooleval_nb.formats import load_suites
    from tooleval_nb.suite import tool as tool_mod

    monkeypatch.setattr(tool_mod, "_SCHEMA_VERDICTS", {})
    monkeypatch.setattr(tool_mod, "_checks", tool_mod._COMPILE_AFTER)
    meta = jsonschema.Draft7Validator(jsonschema.Draft7Validator.META_SCHEMA)
    valid = [
        {
            "type": "object",
            "properties": {"a": {"type": "integer", "minimum": 1.0}},
            "required": ["a"],
        },
        {"type": "object", "properties": {"d": {"type": "string", "format": "date"}}},
    ]
    root = Path(__file__).resolve().parents[2]
    for path in sorted((root / "data").glob("*.json")):
        valid += [t.function.parameters for s in load_suites(path) for t in s.tools]
    bfcl = root.parent / "shared" / "reference" / "bfcl" / "data" / "BFCL_v4_live_multiple.json"
    if bfcl.is_file():
        from tooleval_nb.bfcl_rules.prompt import bfcl_tools

        for line in bfcl.read_text().splitlines()[:150]:
            valid += [
                t.function.parameters
                for t in bfcl_tools(json.loads(line)["function"], "live_multiple")
            ]
    assert len(valid) > 20
    for schema in valid:
        assert meta.is_valid(schema)
        before = json.dumps(schema, sort_keys=True)
        assert tool_mod._compiled_accepts(jsonschema.Draft7Validator, schema), schema
        assert json.dumps(schema, sort_keys=True) == before  # checked, never changed
        assert schema_problem(schema) is None
    assert jsonschema.Draft7Validator in tool_mod._COMPILED
    for schema in _INVALID:
        assert not meta.is_valid(schema)
        assert not tool_mod._compiled_accepts(jsonschema.Draft7Validator, schema), schema
        assert schema_problem(schema), schema
