"""Draft cases: post-processing with scripted replies, then the real embedded model."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

import tooleval_nb.mcp.drafts as drafts
import tooleval_nb.models as models
from tooleval_nb.errors import SuiteError
from tooleval_nb.mcp import (
    MCPToolRunner,
    accept_drafts,
    discard_drafts,
    draft_case_async,
    draft_cases,
    draft_cases_async,
    import_mcp_async,
)
from tooleval_nb.models import ModelReply
from tooleval_nb.suite import EvalCase, Suite, Tool

WEATHER = Tool.create(
    "get_weather",
    "Get the current weather for a city.",
    {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
    },
    required=["city"],
)
CALC = Tool.create(
    "calculate",
    "Do arithmetic on two numbers.",
    {
        "operation": {"type": "string", "enum": ["add", "subtract", "multiply", "divide"]},
        "a": {"type": "number"},
        "b": {"type": "number"},
    },
    required=["operation", "a", "b"],
)
SUITE = Suite(
    name="demo",
    tools=[WEATHER, CALC],
    cases=[
        EvalCase(
            id="hand",
            prompt="Weather in Rome?",
            expected_tool="get_weather",
            expected_params={"city": "Rome"},
        )
    ],
)


class ScriptedModel:
    """Stands in for the model at the I/O edge: answers from a script, records the requests."""

    def __init__(self, answers: dict[str, str | None], error: str | None = None) -> None:
        self.answers = answers
        self.error = error
        self.requests: list[dict[str, Any]] = []

    async def __call__(
        self,
        model: Any,
        messages: list[dict[str, Any]],
        tools: Any = None,
        tool_choice: Any = "auto",
        **kwargs: Any,
    ) -> ModelReply:
        self.requests.append({"model": model, "messages": messages, **kwargs})
        tool = messages[-1]["content"].split("\n")[0].removeprefix("Tool: ")
        if self.error:
            return ModelReply(model=str(model), error=self.error, error_type="ModelTimeoutError")
        text = self.answers.get(tool)
        return ModelReply(model=str(model), content=text, raw_text=text)


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch):
    def install(answers: dict[str, str | None], error: str | None = None) -> ScriptedModel:
        fake = ScriptedModel(answers, error)
        monkeypatch.setattr(drafts, "call_model_async", fake)
        return fake

    return install


GOOD = {
    "get_weather": '{"prompt": "Is it raining in Lyon?", "arguments": {"city": "Lyon"}}',
    "calculate": 'Here: {"prompt": "What is 12 times 7?", "arguments": {"operation": '
    '"Multiply", "a": "12", "b": 7, "c": 1}}',
}


async def test_good_answers_become_draft_cases(scripted) -> None:
    fake = scripted(GOOD)
    suite = await draft_cases_async(SUITE, "some/model", timeout=5)
    assert [c.id for c in suite.cases] == ["hand", "draft_get_weather", "draft_calculate"]
    weather, calc = suite.cases[1:]
    assert (weather.prompt, weather.expected_tool, weather.expected_params) == (
        "Is it raining in Lyon?",
        "get_weather",
        {"city": "Lyon"},
    )
    assert weather.draft and weather.tags == ["draft", "mcp"]
    assert calc.expected_params == {"operation": "multiply", "a": 12, "b": 7}
    assert calc.metadata["draft"]["problems"] == ["dropped 'c': not a parameter of calculate"]
    assert calc.metadata["draft"]["source"] == "model"
    assert calc.metadata["draft"]["model"] == "some/model"
    assert not suite.cases[0].draft
    request = fake.requests[0]
    assert request["timeout"] == 5 and request["temperature"] == 0.0
    assert request["messages"][0]["role"] == "system"
    assert "- city (string; required)" in request["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("answer", "prompt", "params", "source", "problem"),
    [
        (
            "{&#34;prompt&#34;: &#34;Weather in Oslo today?&#34;, &#34;unit&#34;: {celsius} "
            "&#34;city&#34;: &#34;Oslo&#34;",
            "Weather in Oslo today?",
            {"city": "Oslo"},
            "model",
            "salvaged",
        ),
        (
            '{"prompt": "Weather in Oslo today?", "city": "Oslo", "unit": "FAHRENHEIT"}',
            "Weather in Oslo today?",
            {"city": "Oslo", "unit": "fahrenheit"},
            "model",
            None,
        ),
        (
            '{"prompt": "How much is one Apple share in euros right now?", "arguments": {}}',
            "get the current weather for a city: please help me with this.",
            None,
            "template",
            "copied the example",
        ),
        (
            "I cannot help with that.",
            "get the current weather for a city: please help me with this.",
            None,
            "template",
            "no usable JSON",
        ),
        (
            '{"prompt": "Tell me the weather", "arguments": {}}',
            "Tell me the weather",
            None,
            "model",
            "'city' is missing",
        ),
    ],
    ids=[
        "broken-json-salvaged",
        "top-level-arguments",
        "copied-example",
        "no-json",
        "missing-required",
    ],
)
async def test_weak_answers(scripted, answer, prompt, params, source, problem) -> None:
    scripted({"get_weather": answer})
    case = await draft_case_async(WEATHER, "m")
    assert case is not None
    assert (case.prompt, case.expected_params, case.metadata["draft"]["source"]) == (
        prompt,
        params,
        source,
    )
    problems = " | ".join(case.metadata["draft"]["problems"])
    assert (problem is None and not problems) or (problem is not None and problem in problems)


async def test_model_errors_give_templates_or_nothing(scripted) -> None:
    scripted({}, error="timed out after 5 s")
    case = await draft_case_async(CALC, "m")
    assert case is not None and case.metadata["draft"]["source"] == "template"
    assert case.expected_params == {"operation": "add"}
    assert "the model call failed: timed out after 5 s" in case.metadata["draft"]["problems"]
    assert await draft_case_async(CALC, "m", fallback=False) is None
    suite = await draft_cases_async(SUITE, "m", fallback=False)
    assert [c.id for c in suite.cases] == ["hand"]


async def test_several_drafts_per_tool_and_tool_choice(scripted) -> None:
    fake = scripted(GOOD)
    suite = await draft_cases_async(SUITE, "m", tools=["calculate"], per_tool=3)
    assert [c.id for c in suite.cases] == [
        "hand",
        "draft_calculate",
        "draft_calculate_2",
        "draft_calculate_3",
    ]
    assert {r["temperature"] for r in fake.requests} == {0.8}
    with pytest.raises(SuiteError, match=r"cannot draft cases for \['weather'\]"):
        await draft_cases_async(SUITE, "m", tools=["weather"])


async def test_sync_twin_inside_a_running_loop(scripted) -> None:
    scripted(GOOD)
    suite = draft_cases(SUITE, "m")
    assert len(suite.cases) == 3 and suite.cases[1].draft


async def test_drafts_for_an_enum_parameter_tool(scripted, stdio_cmd) -> None:
    """MCPServer lists an Enum parameter as a ``$ref`` into ``$defs``: drafting must resolve it
    (it used to raise a referencing error that failed the whole batch)."""
    suite = await import_mcp_async(stdio_cmd("--enum"))
    tool = suite.tool("set_thermostat")
    assert tool.properties["mode"] == {"$ref": "#/$defs/Mode"}  # what the fix is about
    assert tool.function.parameters["$defs"]["Mode"]["enum"] == ["heat", "cool", "off"]
    fake = scripted(
        {
            "get_weather": GOOD["get_weather"],
            "set_thermostat": (
                '{"prompt": "Turn the heating on in the kitchen", "arguments": '
                '{"room": "kitchen", "mode": "Heat", "unit": "kelvin"}}'
            ),
        }
    )
    drafted = await draft_cases_async(suite, "m")
    assert [c.expected_tool for c in drafted.cases] == [
        "get_weather",
        "calculate",
        "slow_task",
        "set_thermostat",
    ]
    thermostat = drafted.cases[-1]
    assert thermostat.metadata["draft"]["source"] == "model"
    assert thermostat.expected_params == {"room": "kitchen", "mode": "heat"}
    assert thermostat.metadata["draft"]["problems"] == [
        "dropped unit='kelvin': 'kelvin' is not one of ['celsius', 'fahrenheit']"
    ]
    (described,) = [
        r["messages"][-1]["content"]
        for r in fake.requests
        if r["messages"][-1]["content"].startswith("Tool: set_thermostat")
    ]
    assert '- mode (string; required; one of "heat", "cool", "off")' in described
    assert '- unit (string or null; one of "celsius", "fahrenheit"; default null)' in described
    # with fallback, a tool whose answer is junk still gets its (template) draft
    assert drafted.cases[1].metadata["draft"]["source"] == "template"


def test_accept_and_discard_drafts() -> None:
    drafted = Suite(
        name="demo",
        tools=[WEATHER, CALC],
        cases=[
            SUITE.cases[0],
            EvalCase(
                id="d1",
                prompt="Weather in Oslo?",
                expected_tool="get_weather",
                draft=True,
                tags=["draft", "mcp"],
                metadata={"draft": {"source": "model"}},
            ),
            EvalCase(
                id="d2", prompt="2+2?", expected_tool="calculate", draft=True, tags=["draft", "mcp"]
            ),
        ],
    )
    one = accept_drafts(drafted, ["d1"])
    assert [c.draft for c in one.cases] == [False, False, True]
    assert one.cases[1].tags == ["mcp"]
    assert one.cases[1].metadata["draft"] == {"source": "model", "accepted": True}
    assert drafted.cases[1].draft  # the original suite is unchanged
    assert [c.draft for c in accept_drafts(drafted).cases] == [False, False, False]
    assert [c.id for c in discard_drafts(drafted, "d2").cases] == ["hand", "d1"]
    assert [c.id for c in discard_drafts(drafted).cases] == ["hand"]
    with pytest.raises(SuiteError, match=r"cannot accept \['hand'\]: not draft cases"):
        accept_drafts(drafted, ["hand"])


@pytest.mark.model
async def test_embedded_model_drafts_cases_for_an_imported_suite(stdio_cmd) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        imported = await import_mcp_async(stdio_cmd("--invalid"))
    try:
        suite = await draft_cases_async(imported, tools=["get_weather"], timeout=120, cache=False)
    finally:
        await models.aclose()
    (case,) = suite.cases
    info = case.metadata["draft"]
    assert info["model"] == models.DEFAULT_MODEL
    assert not any(p.startswith("the model call failed") for p in info["problems"]), info
    assert info["raw"], "the embedded model answered nothing"
    assert case.draft and "draft" in case.tags and case.expected_tool == "get_weather"
    assert case.prompt.strip()
    Suite.model_validate(json.loads(suite.model_dump_json()))  # a valid suite, drafts included


@pytest.mark.model
async def test_short_suite_against_the_embedded_model_with_live_tools(stdio_cmd) -> None:
    """Import, ask the embedded model, execute its call on the real server, answer the model."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        suite = await import_mcp_async(stdio_cmd())
    system = {"role": "system", "content": "You are a helpful assistant with tools."}
    user = {"role": "user", "content": "What is the weather in Paris?"}
    try:
        async with MCPToolRunner(stdio_cmd(), call_timeout=10) as live:
            reply = await models.call_model_async(
                models.DEFAULT_MODEL,
                [system, user],
                tools=suite.tools,
                tool_choice="get_weather",
                timeout=120,
                cache=False,
            )
            assert reply.error is None, reply.error
            (call,) = reply.tool_calls
            assert call.name == "get_weather"
            result = await live.call(call.name, call.function.arguments)
            assert result.error_type in (None, "tool", "bad_arguments"), result
            # the named tool_choice makes the arguments a JSON object: the server answered
            assert result.error_type in (None, "tool") and result.latency_ms > 0, result
            if result.error_type is None:  # its answer for the city the model asked for
                assert isinstance(result.arguments, dict)
                city = result.arguments["city"]
                assert result.structured["temperature"] == sum(map(ord, city.lower())) % 30
            else:  # the server's own complaint about the arguments
                assert "get_weather" in result.content, result
            follow = await models.call_model_async(
                models.DEFAULT_MODEL,
                [
                    system,
                    user,
                    {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
                    result.to_message(call.id),
                ],
                tools=suite.tools,
                timeout=120,
                cache=False,
            )
            assert follow.error is None, follow.error
            assert follow.prompt_tokens and follow.prompt_tokens > reply.prompt_tokens  # it read it
    finally:
        await models.aclose()
