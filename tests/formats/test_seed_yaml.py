"""Seed-002 YAML: single and multi-document files, the suite header, round trips, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval_nb.errors import SuiteError
from tooleval_nb.formats import example_suite, load_suite, save_suite, seed_yaml
from tooleval_nb.suite import Expectations, Suite

SEED_EXAMPLE = """\
# tests/evals/booking.yaml

name: book_flight_basic
input: "Book a flight to LA"
expected:
  tools_called: [book_flight]
tags: [booking, simple]

---

name: book_flight_roundtrip
input: "Book a roundtrip flight to LA"
expected:
  tools_called: [book_flight]
  output_contains: ["roundtrip", "return"]
tags: [booking, complex]

---

name: book_flight_with_preferences
input: "Book a flight to LA, window seat, vegetarian meal"
expected:
  tools_called: [book_flight, set_preferences]
  output_contains: ["window", "vegetarian"]
tags: [booking, complex]
"""

HEADER = """\
kind: suite
name: booking
description: Booking agent
system_prompt: Be brief.
tools:
  - type: function
    function:
      name: book_flight
      description: Book a flight.
      parameters:
        type: object
        properties:
          to: {type: string}
        required: [to]
"""


def load(tmp_path: Path, text: str, name: str = "cases.yaml") -> Suite:
    path = tmp_path / name
    path.write_text(text)
    suite = load_suite(path)
    assert isinstance(suite, Suite)
    return suite


def test_seed_multi_document_file_without_tools(tmp_path: Path) -> None:
    suite = load(tmp_path, SEED_EXAMPLE, "booking.yaml")
    assert suite.name == "booking" and suite.tools == []
    assert [c.name for c in suite.cases] == [
        "book_flight_basic",
        "book_flight_roundtrip",
        "book_flight_with_preferences",
    ]
    assert suite.cases[1].expected == Expectations(
        tools_called=["book_flight"], output_contains=["roundtrip", "return"]
    )
    assert suite.cases[2].tags == ["booking", "complex"]


def test_single_document_with_every_seed_field(tmp_path: Path) -> None:
    text = """\
name: book_flight_basic
input: |
  I need to book a flight.
  From: New York
description: |
  Tests a one-way booking.
expected:
  tools_called: [search_flights, book_flight]
  tools_not_called: [delete_booking]
  tool_call_order: [search_flights, book_flight]
  output_contains: ["confirmation"]
  output_not_contains: ["error"]
  output_equals: "Booking confirmed. Reference: ABC123"
  output_matches: "Confirmation: [A-Z]{3}\\\\d{3}"
  max_steps: 5
  min_steps: 2
  task_completed: true
graders:
  - type: llm
    prompt: "Answer: PASS or FAIL"
    model: gpt-4o-mini
    threshold: 4
  - type: code
    module: my_graders
    function: custom_check
timeout: 120
retries: 3
tags: [booking, critical, smoke]
metadata:
  author: alice
  created_date: 2024-01-15
reference_output: |
  Your flight has been booked.
reference_tools:
  - name: search_flights
    args: {from: NYC, to: LA, date: "2024-03-15"}
"""
    case = load(tmp_path, text).cases[0]
    assert case.prompt == "I need to book a flight.\nFrom: New York\n"
    assert (
        case.expected is not None and case.expected.output_matches == "Confirmation: [A-Z]{3}\\d{3}"
    )
    assert case.expected.task_completed is True and case.expected.min_steps == 2
    assert [g.type for g in case.graders] == ["llm", "code"] and case.graders[0].threshold == 4
    assert case.timeout == 120 and case.retries == 3
    assert case.metadata == {"author": "alice", "created_date": "2024-01-15"}  # dates stay text
    assert case.reference_tools is not None and case.reference_tools[0].args["date"] == "2024-03-15"


def test_header_document_gives_name_tools_and_cross_checks(tmp_path: Path) -> None:
    suite = load(
        tmp_path,
        HEADER + "---\nname: a\ninput: Fly to Rome\nexpected_tool: book_flight\n"
        "expected_params: {to: Rome}\n",
    )
    assert (suite.name, suite.description, suite.system_prompt) == (
        "booking",
        "Booking agent",
        "Be brief.",
    )
    assert [t.name for t in suite.tools] == ["book_flight"]
    with pytest.raises(
        SuiteError,
        match=r"case 0 \('a'\): field expected.tools_called\[0\]: tool "
        r"'book_hotel' is not among the tools offered",
    ):
        load(tmp_path, HEADER + "---\nname: a\ninput: x\nexpected: {tools_called: [book_hotel]}\n")


def test_header_cases_list_documents_and_tools_file(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(json.dumps(example_suite().model_dump(mode="json")))
    text = """\
kind: suite
tools_file: tools.json
cases:
  - {name: a, input: Weather in Paris, expected_tool: get_weather}
---
- {name: b, input: Weather in Oslo}
- {name: c, input: Hi}
"""
    suite = load(tmp_path, text)
    assert [c.name for c in suite.cases] == ["a", "b", "c"]
    assert [t.name for t in suite.tools] == ["get_weather"]


@pytest.mark.parametrize(
    "suite",
    [
        example_suite(),
        example_suite().model_copy(
            update={"system_prompt": "Line one.\nLine two.\n", "description": ""}
        ),
    ],
    ids=["example", "multi-line-text"],
)
def test_round_trip(tmp_path: Path, suite: Suite) -> None:
    path = tmp_path / "out.yml"
    save_suite(suite, path)
    text = path.read_text()
    assert text.startswith("kind: suite\nname: Weather API Suite\n")
    assert text.count("\n---\n") == len(suite.cases)
    assert load_suite(path) == suite
    assert seed_yaml.loads(seed_yaml.dumps(suite)) == suite


def test_saved_cases_start_with_name_and_input(tmp_path: Path) -> None:
    suite = load(tmp_path, SEED_EXAMPLE)
    text = seed_yaml.dumps(suite)
    assert "---\nname: book_flight_roundtrip\ninput: Book a roundtrip flight to LA\n" in text
    assert seed_yaml.loads(text) == suite


def yaml_problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    return [p.removeprefix(f"{path}: ") for p in info.value.problems]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "name: a\ninput: x\n---\ninput: y\n---\nname: c\ninput: z\nexpcted: {}\n",
            [
                "case 1 ('?', line 4): field name: required but missing; seed-002 cases need a unique name"
            ],
        ),
        (
            "name: a\ninput: x\n---\nname: b\ninput: y\nexpcted: {}\n---\nname: c\ninput: ''\n",
            [
                "case 1 ('b', line 4): field expcted: unknown field (did you mean 'expected'?); remove it "
                "or fix the spelling",
                "case 2 ('c', line 8): field prompt: a case needs a prompt (or input, or messages); add the "
                "user's text",
            ],
        ),
        (
            "name: a\ninput: x\n---\nkind: suite\nname: s\n",
            [
                "document 2 (line 4): field kind: the 'kind: suite' header must be the first document; "
                "move it to the top"
            ],
        ),
        (
            "kind: agent\n",
            [
                "document 1 (line 1): field kind: 'agent' is not a known kind; use "
                "'kind: suite' for the header, or leave kind out of cases"
            ],
        ),
        (
            "just text\n",
            [
                "document 1 (line 1): must be a case (a mapping with name and input), a list "
                "of cases or a 'kind: suite' header, got str"
            ],
        ),
        (
            "kind: suite\ntools_file: missing.json\ncolour: red\n",
            [
                "document 1 (line 1): field colour: unknown header field; the header fields are kind, name, "
                "description, system_prompt, tools, tools_file, cases"
            ],
        ),
        (
            "name: s\ntools: []\ncases:\n  - {name: a, input: x}\n",
            [
                "document 1 (line 1): field kind: missing; a document with tools and cases is a suite "
                "header: add 'kind: suite' to it (a case is a mapping with name and input)"
            ],
        ),
        (
            "name: s\ntools: []\n---\nname: a\ninput: x\n",
            [
                "document 1 (line 1): field kind: missing; a document with tools is a suite header: add "
                "'kind: suite' to it (a case is a mapping with name and input)"
            ],
        ),
    ],
    ids=[
        "missing-name",
        "case-fields-with-lines",
        "late-header",
        "unknown-kind",
        "scalar-document",
        "header-fields",
        "header-without-kind",
        "tools-without-kind",
    ],
)
def test_bad_yaml(tmp_path: Path, text: str, expected: list[str]) -> None:
    problems = yaml_problems(tmp_path, text)
    assert problems[: len(expected)] == expected


def test_a_case_with_its_own_tools_is_still_a_case(tmp_path: Path) -> None:
    text = (
        "name: a\ninput: Weather in Oslo\ntools:\n  - {name: get_weather, parameters: "
        "{type: object, properties: {city: {type: string}}}}\n"
    )
    suite = load(tmp_path, text)
    assert [c.name for c in suite.cases] == ["a"]
    assert [t.name for t in suite.cases[0].tools or []] == ["get_weather"]


def test_missing_tools_file_is_named(tmp_path: Path) -> None:
    problems = yaml_problems(tmp_path, "kind: suite\ntools_file: missing.json\n")
    assert len(problems) == 1
    assert "field tools_file:" in problems[0] and "missing.json: file not found" in problems[0]


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    problems = yaml_problems(tmp_path, "name: a\ninput: x\n---\nname: b\ninput: [unclosed\n")
    assert len(problems) == 1
    assert problems[0].startswith("line 6, column 1: invalid YAML: ")
    assert problems[0].endswith("; fix the syntax (a file with an error loads nothing)")
