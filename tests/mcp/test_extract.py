"""Reading weak models' drafts: JSON extraction, salvage, argument cleaning (pure)."""

from __future__ import annotations

import pytest

from tooleval_nb.mcp.extract import (
    clean_arguments,
    enum_values,
    extract_json_object,
    fill_required,
    param_schema,
    salvage_fields,
)
from tooleval_nb.suite import Tool

WEATHER = Tool.create(
    "get_weather",
    "Weather for a city.",
    {
        "city": {"type": "string"},
        "days": {"type": "integer", "minimum": 1},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        "alerts": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["brief", "full"]},
    },
    required=["city", "unit", "mode"],
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"prompt": "Weather in Oslo?", "arguments": {"city": "Oslo"}}',
            {"prompt": "Weather in Oslo?", "arguments": {"city": "Oslo"}},
        ),
        (
            'Sure! Here it is:\n```json\n{"prompt": "Hi there", "arguments": {}}\n```\nDone.',
            {"prompt": "Hi there", "arguments": {}},
        ),
        (
            '{"prompt": "Hi there", "arguments": {"city": "Oslo",},}',
            {"prompt": "Hi there", "arguments": {"city": "Oslo"}},
        ),
        (
            "{'prompt': 'Hi there', 'arguments': {'alerts': True, 'x': None}}",
            {"prompt": "Hi there", "arguments": {"alerts": True, "x": None}},
        ),
        (
            "{'prompt': 'Hi there', 'arguments': {'alerts': true, 'x': null}}",
            {"prompt": "Hi there", "arguments": {"alerts": True, "x": None}},
        ),
        (
            '{"prompt": "Weather in Oslo?", "arguments": {"city": "Os',
            {"prompt": "Weather in Oslo?", "arguments": {"city": "Os"}},
        ),
        ("{&#34;prompt&#34;: &#34;Weather in Oslo?&#34;}", {"prompt": "Weather in Oslo?"}),
        ('{"note": "x"} then {"prompt": "Weather {today}?"}', {"prompt": "Weather {today}?"}),
        ('{"note": "only this"}', {"note": "only this"}),
        ("no json here", None),
        ("", None),
        ('{"a": [1, 2}', None),
    ],
    ids=[
        "plain",
        "prose-and-fence",
        "trailing-commas",
        "python-literals",
        "json-words-in-python",
        "cut-off",
        "html-escaped",
        "prefers-wanted-key",
        "falls-back-to-first",
        "no-object",
        "empty",
        "mismatched-brackets",
    ],
)
def test_extract_json_object(text: str, expected) -> None:
    assert extract_json_object(text, want="prompt") == expected


def test_salvage_fields_from_broken_json() -> None:
    raw = (
        '{&#34;prompt&#34;: &#34;Weather in \\"Oslo\\"?&#34;, &#34;unit&#34;: {celsius}, '
        '"days": 3, \'alerts\': false, "city": null, "prompt": "second"'
    )
    assert salvage_fields(raw, ["prompt", "unit", "days", "alerts", "city", "mode"]) == {
        "prompt": 'Weather in "Oslo"?',
        "days": 3,
        "alerts": False,
        "city": None,
    }
    assert salvage_fields(None, ["prompt"]) == {}


def test_clean_arguments_keeps_what_fits() -> None:
    kept, notes = clean_arguments(
        WEATHER,
        {
            "city": "Oslo",
            "days": "3",
            "unit": "Celsius",
            "alerts": "TRUE",
            "mode": "verbose",
            "country": "NO",
        },
    )
    assert kept == {"city": "Oslo", "days": 3, "unit": "celsius", "alerts": True}
    assert notes == [
        "dropped mode='verbose': 'verbose' is not one of ['brief', 'full']",
        "dropped 'country': not a parameter of get_weather",
    ]


@pytest.mark.parametrize(
    ("value", "kept", "n_notes"),
    [
        ({"days": 0}, {}, 1),
        ({"days": "2.5"}, {}, 1),
        ({"city": 5}, {}, 1),
        ("city=Oslo", {}, 1),
        (None, {}, 0),
        ([], {}, 0),
    ],
    ids=["below-minimum", "float-for-integer", "number-for-string", "string", "none", "empty-list"],
)
def test_clean_arguments_drops_what_does_not(value, kept, n_notes) -> None:
    out, notes = clean_arguments(WEATHER, value)
    assert out == kept and len(notes) == n_notes


def test_fill_required_from_default_and_enum() -> None:
    args, notes = fill_required(WEATHER, {"days": 2})
    assert args == {"days": 2, "unit": "celsius", "mode": "brief"}
    assert notes == ["required argument 'city' is missing: fill it in"]


#: what an MCPServer lists for ``mode: Mode, unit: Unit | None = None`` (Enum parameters)
THERMOSTAT = Tool.create(
    "set_thermostat",
    "Set a room's thermostat.",
    {
        "type": "object",
        "required": ["room", "mode"],
        "$defs": {
            "Mode": {"enum": ["heat", "cool", "off"], "title": "Mode", "type": "string"},
            "Unit": {"enum": ["celsius", "fahrenheit"], "type": "string"},
        },
        "definitions": {"Level": {"type": "integer", "minimum": 1, "maximum": 5}},
        "properties": {
            "room": {"type": "string"},
            "mode": {"$ref": "#/$defs/Mode", "description": "What the thermostat does"},
            "unit": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}], "default": None},
            "level": {"$ref": "#/definitions/Level"},
            "lost": {"$ref": "#/$defs/Missing"},
            "remote": {"$ref": "https://example.invalid/schema.json"},
        },
    },
)


def test_refs_to_defs_and_definitions_are_validated() -> None:
    kept, notes = clean_arguments(
        THERMOSTAT, {"room": "hall", "mode": "HEAT", "unit": "Fahrenheit", "level": "3"}
    )
    assert kept == {"room": "hall", "mode": "heat", "unit": "fahrenheit", "level": 3}
    assert notes == []
    kept, notes = clean_arguments(THERMOSTAT, {"mode": "warm", "unit": "kelvin", "level": 9})
    assert kept == {}
    assert notes == [
        "dropped mode='warm': 'warm' is not one of ['heat', 'cool', 'off']",
        "dropped unit='kelvin': 'kelvin' is not one of ['celsius', 'fahrenheit']",
        "dropped level=9: 9 is greater than the maximum of 5",
    ]


def test_refs_that_cannot_be_resolved_are_notes_not_errors() -> None:
    kept, notes = clean_arguments(THERMOSTAT, {"room": "hall", "lost": 1, "remote": "x"})
    assert kept == {"room": "hall", "lost": 1, "remote": "x"}  # kept, for a person to check
    assert len(notes) == 2 and all("could not check it against its schema" in n for n in notes)
    assert notes[0] == (
        "kept lost=1: could not check it against its schema (its $ref "
        "'#/$defs/Missing' cannot be resolved); check it"
    )
    assert "'https://example.invalid/schema.json' cannot be resolved" in notes[1]


def test_param_schema_resolves_local_refs() -> None:
    assert param_schema(THERMOSTAT, "mode") == {
        "enum": ["heat", "cool", "off"],
        "title": "Mode",
        "type": "string",
        "description": "What the thermostat does",
    }
    assert param_schema(THERMOSTAT, "unit")["anyOf"][0]["enum"] == ["celsius", "fahrenheit"]
    assert enum_values(param_schema(THERMOSTAT, "unit")) == ["celsius", "fahrenheit"]
    assert param_schema(THERMOSTAT, "lost") == {"$ref": "#/$defs/Missing"}
    assert param_schema(THERMOSTAT, "nope") == {}
    args, notes = fill_required(THERMOSTAT, {})
    assert args == {"mode": "heat"} and notes == ["required argument 'room' is missing: fill it in"]
