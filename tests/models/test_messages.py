"""Message assembly and the chatml adaptation for the embedded server."""

from __future__ import annotations

import pytest

from tooleval_nb.models import build_messages
from tooleval_nb.models.messages import DEFAULT_SYSTEM, for_chatml_tools, merge_system
from tooleval_nb.suite import EvalCase


def test_order_suite_then_run_then_case():
    case = EvalCase(prompt="What is the weather in Paris?")
    msgs = build_messages(case, suite_system_prompt="Suite rules.", system_prompt="Run rules.")
    assert msgs == [
        {"role": "system", "content": "Suite rules.\n\nRun rules."},
        {"role": "user", "content": "What is the weather in Paris?"},
    ]


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai/gpt-4o", "Be terse."),
        ("anthropic/claude-3", "Be kind."),
        ("ollama_chat/llama3", None),
    ],
    ids=["openai", "anthropic", "unlisted"],
)
def test_per_model_run_prompt(model, expected):
    prompts = {"openai::gpt-4o": "Be terse.", "anthropic::claude-3": "Be kind."}
    msgs = build_messages("hi", suite_system_prompt="Suite.", system_prompt=prompts, model=model)
    want = "Suite." + (f"\n\n{expected}" if expected else "")
    assert msgs[0] == {"role": "system", "content": want}
    assert msgs[-1] == {"role": "user", "content": "hi"}


def test_case_messages_keep_their_own_system_after_ours():
    case = EvalCase(
        messages=[
            {"role": "system", "content": "Case system."},
            {"role": "user", "content": "q1"},
            {"role": "assistant", "content": "a1"},
            {"role": "user", "content": "q2"},
        ]
    )
    msgs = build_messages(case, suite_system_prompt="Suite.")
    assert msgs[0]["content"] == "Suite.\n\nCase system."
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]


def test_no_system_when_nothing_given():
    assert build_messages("hi") == [{"role": "user", "content": "hi"}]


def test_merge_system_skips_blank_and_keeps_later_messages():
    msgs = merge_system(
        [
            {"role": "system", "content": " "},
            {"role": "developer", "content": "D"},
            {"role": "user", "content": "u"},
            {"role": "system", "content": "late"},
        ]
    )
    assert msgs == [
        {"role": "system", "content": "D"},
        {"role": "user", "content": "u"},
        {"role": "system", "content": "late"},
    ]


def test_chatml_adaptation_keeps_tool_history_as_text(tool_history):
    msgs = [
        *tool_history("get_weather"),
        {"role": "user", "content": [{"type": "text", "text": "And tomorrow?"}]},
    ]
    out = for_chatml_tools(msgs)
    assert out[0] == {"role": "system", "content": DEFAULT_SYSTEM}
    assert out[2] == {"role": "assistant", "content": 'functions.get_weather:\n{"city": "Paris"}'}
    assert out[3] == {"role": "user", "content": 'functions.get_weather returned:\n{"temp": 21}'}
    assert out[4] == {"role": "user", "content": "And tomorrow?"}
    assert all(set(m) == {"role", "content"} and isinstance(m["content"], str) for m in out)


def test_chatml_history_renders_plainly_through_the_template():
    """Through llama-cpp-python's own template, unescaped as the embedded server renders it:
    earlier calls read ``functions.<name>:`` then their arguments (after the template's
    ``message:``), with plain quotes, one per line."""
    import jinja2
    import llama_cpp.llama_chat_format as chat_format
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    source = chat_format.chatml_function_calling.__code__.co_consts
    template = next(
        c
        for c in source
        if isinstance(c, str) and "functions." in c and "{% for message in messages %}" in c
    )
    render = (
        ImmutableSandboxedEnvironment(autoescape=False, undefined=jinja2.StrictUndefined)
        .from_string(template)
        .render
    )
    calls = [
        {
            "id": "a",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        },
        {
            "id": "b",
            "type": "function",
            "function": {"name": "get_time", "arguments": '{"tz": "CET"}'},
        },
    ]
    msgs = for_chatml_tools(
        [
            {"role": "user", "content": "Weather and time in Paris?"},
            {"role": "assistant", "content": None, "tool_calls": calls},
        ]
    )
    text = render(messages=msgs, tool_calls=True, tools=[], add_generation_prompt=False)
    assert (
        '<|im_start|>assistant\nmessage:\nfunctions.get_weather:\n{"city": "Paris"}\n'
        'functions.get_time:\n{"tz": "CET"}<|im_end|>'
    ) in text
    assert "&#34;" not in text


def test_chatml_adaptation_keeps_a_given_system_prompt():
    out = for_chatml_tools(
        [{"role": "system", "content": "Mine."}, {"role": "user", "content": "x"}]
    )
    assert out[0] == {"role": "system", "content": "Mine."}
