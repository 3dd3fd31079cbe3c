"""EvalCase: both seeds' fields, parallel expectations, conversations."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tooleval_nb.suite import EvalCase, Expectations, ExpectedCall, GraderSpec


def test_seed_001_fields() -> None:
    case = EvalCase.model_validate(
        {
            "prompt": "Book a flight from NYC to London for next Friday",
            "expected_tool": "book_flight",
            "expected_params": {"origin": "NYC", "destination": "London"},
            "multi_turn": True,
            "max_rounds": 5,
            "optimal_hops": 2,
            "valid_prerequisites": ["search_flights", "get_availability"],
            "mock_responses": {"search_flights": {"flights": [{"id": "FL123", "price": 450}]}},
            "param_scoring": "contains",
            "scoring_config": {"mode": "case_insensitive", "epsilon": 0.01},
        }
    )
    assert case.expected_names() == ["book_flight"]
    assert case.expected_call_list() == [
        ExpectedCall(name="book_flight", arguments={"origin": ["NYC"], "destination": ["London"]})
    ]
    assert case.scoring_config is not None and case.scoring_config.epsilon == 0.01


def test_seed_002_fields_and_input_alias() -> None:
    case = EvalCase.model_validate(
        {
            "name": "book_flight_basic",
            "input": "Book a flight to LA",
            "tags": "booking, smoke",
            "expected": {"tools_called": "book_flight", "output_contains": ["LA"], "max_steps": 5},
            "graders": [
                {"type": "llm", "prompt": "PASS or FAIL", "threshold": 4},
                {"type": "code", "module": "graders", "function": "check"},
            ],
            "timeout": 30,
            "retries": 3,
            "metadata": {"jira_ticket": "AGENT-123"},
            "reference_output": "Booked",
            "reference_tools": [{"name": "book_flight", "args": {}}],
        }
    )
    assert case.prompt == case.input == "Book a flight to LA"
    assert case.tags == ["booking", "smoke"]
    assert case.expected == Expectations(
        tools_called=["book_flight"], output_contains=["LA"], max_steps=5
    )
    assert case.expected_tool_names() == {"book_flight"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"expected_tool": "f"}, "field prompt: a case needs a prompt"),
        (
            {"prompt": "x", "expected_params": {"a": 1}},
            "field expected_params: set but expected_tool",
        ),
        ({"prompt": "x", "input": "y"}, "field input: give either 'prompt' or 'input'"),
        ({"prompt": "x", "multi_turn": True}, "field multi_turn: true but no final tool"),
        ({"prompt": "x", "expected_tool": "f", "optimal_hops": 9}, "field optimal_hops: 9 exceeds"),
        (
            {"prompt": "x", "expected_tool": "f", "expected_calls": [{"name": "g"}]},
            "field expected_calls: expected_tool and expected_calls name different tools",
        ),
        ({"prompt": "x", "param_scoring": "loose"}, "Input should be 'exact'"),
        ({"prompt": "x", "expected_tool": "f", "retries": -1}, "greater than or equal to 0"),
    ],
    ids=[
        "no-prompt",
        "params-without-tool",
        "prompt-and-input",
        "multi-turn-without-tool",
        "hops-over-rounds",
        "tool-vs-calls",
        "unknown-mode",
        "negative-retries",
    ],
)
def test_invalid_cases(data: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        EvalCase.model_validate(data)


def test_unknown_field_is_refused() -> None:
    with pytest.raises(ValidationError, match="expcted_tool"):
        EvalCase.model_validate({"prompt": "x", "expcted_tool": "f"})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"type": "llm"}, "an llm grader needs a prompt"),
        ({"type": "code", "module": "m"}, "a code grader needs module and function"),
        ({"type": "shell"}, "Input should be 'llm' or 'code'"),
    ],
    ids=["llm-no-prompt", "code-no-function", "unknown-type"],
)
def test_invalid_graders(spec: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        GraderSpec.model_validate(spec)


def test_expected_calls_wrap_single_values() -> None:
    call = ExpectedCall.model_validate({"name": "f", "arguments": {"a": 1, "b": [1, ""]}})
    assert call.arguments == {"a": [1], "b": [1, ""]}
    case = EvalCase(prompt="x", expected_calls=[call, ExpectedCall(name="g")])
    assert case.expected_names() == ["f"]
    assert [c.name for c in case.expected_call_list()] == ["f", "g"]


def test_expected_tool_list_and_none() -> None:
    assert EvalCase(prompt="x", expected_tool=["a", "b"]).expected_names() == ["a", "b"]
    assert EvalCase(prompt="x").expected_call_list() == []


def test_tool_mentions_name_their_fields() -> None:
    case = EvalCase.model_validate(
        {
            "prompt": "x",
            "expected_tool": ["a", "b"],
            "valid_prerequisites": ["c"],
            "mock_responses": {"d": {}},
            "expected": {"tool_call_order": ["e"]},
            "reference_tools": [{"name": "f"}],
        }
    )
    assert case.tool_mentions() == [
        ("expected_tool[0]", "a"),
        ("expected_tool[1]", "b"),
        ("valid_prerequisites[0]", "c"),
        ("mock_responses.d", "d"),
        ("expected.tool_call_order[0]", "e"),
        ("reference_tools[0].name", "f"),
    ]


@pytest.mark.parametrize(
    ("case", "system", "expected"),
    [
        (EvalCase(prompt="hi"), None, [{"role": "user", "content": "hi"}]),
        (
            EvalCase(prompt="hi"),
            "Be brief.",
            [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
        ),
        (
            EvalCase(
                messages=[{"role": "system", "content": "Own."}, {"role": "user", "content": "q"}]
            ),
            "Suite.",
            [{"role": "system", "content": "Suite.\n\nOwn."}, {"role": "user", "content": "q"}],
        ),
    ],
    ids=["prompt", "prompt-with-system", "conversation-with-system"],
)
def test_to_messages(case: EvalCase, system: str | None, expected: list) -> None:
    assert case.to_messages(system) == expected


def test_to_messages_does_not_change_the_case() -> None:
    case = EvalCase(
        messages=[{"role": "system", "content": "Own."}, {"role": "user", "content": "q"}]
    )
    case.to_messages("Suite.")
    assert case.messages is not None and case.messages[0]["content"] == "Own."


def test_prompt_text_and_label() -> None:
    case = EvalCase(
        id="c1",
        messages=[
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "last"},
        ],
    )
    assert case.prompt_text == "last" and case.label == "c1"
    assert EvalCase(name="n", prompt="p").label == "n"
