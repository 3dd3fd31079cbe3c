"""score_case end to end: kinds, failure modes, BFCL verdicts on ordinary suites."""

from __future__ import annotations

import pytest

from tooleval_nb.errors import RegexTimeoutError
from tooleval_nb.scoring import FAILURE_MODES, score_case
from tooleval_nb.suite import EvalCase, ScoringConfig, Tool

WEATHER = Tool.create(
    "get_weather",
    "Current weather",
    {
        "city": {"type": "string"},
        "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer"},
    },
    required=["city"],
)
SEARCH = Tool.create("search", "Search", {"q": {"type": "string"}}, required=["q"])
TOOLS = [WEATHER, SEARCH]


def oa(name, arguments):
    """An OpenAI-shaped tool call dict (arguments as a JSON string)."""
    import json

    return {
        "id": "call_1",
        "type": "function",
        "function": {
            "name": name,
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        },
    }


def weather_case(**kw):
    base = dict(
        prompt="Weather in Paris for 3 days?",
        expected_tool="get_weather",
        expected_params={"city": "Paris", "days": 3},
        tools=TOOLS,
    )
    return EvalCase(**{**base, **kw})


@pytest.mark.parametrize(
    ("calls", "tool", "param", "overall", "failure", "bfcl"),
    [
        ([oa("get_weather", {"city": "paris", "days": 3})], 1.0, 1.0, 1.0, None, (True, None)),
        (
            [oa("get_weather", {"city": "Paris", "days": 3, "units": "celsius"})],
            1.0,
            1.0,
            1.0,
            None,
            (False, "simple_function_checker:unexpected_param"),
        ),
        (
            [oa("get_weather", {"city": "Paris", "days": "3"})],
            1.0,
            0.5,
            0.8,
            "wrong_type",
            (False, "type_error:simple"),
        ),
        (
            [oa("get_weather", {"city": "Rome", "days": 3})],
            1.0,
            0.5,
            0.8,
            "wrong_value",
            (False, "value_error:string"),
        ),
        (
            [oa("get_weather", {"days": 3})],
            1.0,
            0.5,
            0.8,
            "missing_required_arg",
            (False, "simple_function_checker:missing_required"),
        ),
        (
            [oa("get_weather", {"city": "Paris", "days": 3, "wind": True})],
            1.0,
            1.0,
            1.0,
            "hallucinated_arg",
            (False, "simple_function_checker:unexpected_param"),
        ),
        (
            [oa("search", {"q": "Paris weather"})],
            0.0,
            0.0,
            0.0,
            "wrong_tool",
            (False, "simple_function_checker:wrong_func_name"),
        ),
        ([], 0.0, 0.0, 0.0, "no_call", (False, "multiple_function_checker:wrong_count")),
        (
            [oa("get_weather", "{city: Paris")],
            1.0,
            0.0,
            0.6,
            "parse_error",
            (False, "ast_decoder:decoder_failed"),
        ),
        (
            [oa("get_weather", {"city": "Paris", "days": 3}), oa("search", {"q": "x"})],
            1.0,
            1.0,
            1.0,
            "extra_call",
            (False, "multiple_function_checker:wrong_count"),
        ),
    ],
    ids=[
        "right",
        "extra-optional-arg",
        "wrong-type",
        "wrong-value",
        "missing-required",
        "hallucinated",
        "wrong-tool",
        "no-call",
        "broken-json",
        "extra-call",
    ],
)
def test_single_call_case(calls, tool, param, overall, failure, bfcl):
    s = score_case(weather_case(), calls)
    assert (s.tool_score, s.param_score) == (tool, pytest.approx(param))
    assert s.overall == pytest.approx(overall)
    assert s.failure_mode == failure and s.passed is (failure is None)
    # two tools offered: BFCL's "multiple" rules
    assert (s.bfcl_pass, s.bfcl_error) == bfcl
    assert s.failure_mode is None or s.failure_mode in FAILURE_MODES


def test_params_not_scored_and_acceptable_tools():
    case = EvalCase(
        prompt="Find quantum computing",
        expected_tool=["search", "web_search"],
        tools=[SEARCH, Tool.create("web_search", parameters={"q": {"type": "string"}})],
    )
    s = score_case(case, [oa("web_search", {"q": "quantum"})])
    assert (s.tool_score, s.param_score, s.overall, s.passed) == (1.0, None, 1.0, True)
    assert s.bfcl_pass is None  # no values to check


def test_acceptable_tools_with_params_bfcl_tries_each_name():
    case = EvalCase(
        prompt="Find quantum computing",
        expected_tool=["search", "web_search"],
        expected_params={"q": "quantum computing"},
        tools=[SEARCH, Tool.create("web_search", parameters={"q": {"type": "string"}})],
    )
    s = score_case(case, [oa("web_search", {"q": "Quantum-Computing"})])
    assert s.bfcl_pass is True and s.param_score == 0.0  # BFCL normalises "-", exact does not


def test_empty_expected_params_score_one():
    case = EvalCase(
        prompt="What time is it?",
        expected_tool="get_time",
        expected_params={},
        tools=[Tool.create("get_time")],
    )
    assert score_case(case, [oa("get_time", {})]).overall == 1.0
    nothing = score_case(case, [])
    assert (nothing.tool_score, nothing.param_score, nothing.overall) == (0.0, 0.0, 0.0)
    assert nothing.failure_mode == "no_call"


@pytest.mark.parametrize(
    ("calls", "tool", "passed", "failure", "bfcl"),
    [
        ([], 1.0, True, None, (True, None)),
        (
            [oa("search", {"q": "x"})],
            0.0,
            False,
            "spurious_call",
            (False, "irrelevance_error:decoder_success"),
        ),
    ],
    ids=["nothing-called", "called-anyway"],
)
def test_no_call_expected(calls, tool, passed, failure, bfcl):
    case = EvalCase(prompt="Tell me a joke", expected_tool=None, tools=TOOLS)
    s = score_case(case, calls)
    assert (s.tool_score, s.param_score, s.overall) == (tool, None, tool)
    assert (s.passed, s.failure_mode, (s.bfcl_pass, s.bfcl_error)) == (passed, failure, bfcl)


def test_parallel_expected_calls():
    case = EvalCase(
        prompt="Weather in Paris and Rome",
        tools=TOOLS,
        expected_calls=[
            {"name": "get_weather", "arguments": {"city": ["Paris"], "units": ["", "celsius"]}},
            {"name": "get_weather", "arguments": {"city": ["Rome"], "units": ["", "celsius"]}},
        ],
    )
    both = score_case(
        case,
        [
            oa("get_weather", {"city": "Rome"}),
            oa("get_weather", {"city": "Paris", "units": "celsius"}),
        ],
    )
    assert both.passed and both.overall == 1.0 and (both.bfcl_pass, both.bfcl_error) == (True, None)
    one = score_case(case, [oa("get_weather", {"city": "Rome"})])
    assert one.tool_score == 0.5 and one.param_score == pytest.approx(0.5)
    assert [c.overall for c in one.calls] == [0.0, 1.0]
    assert one.missing_calls == ["get_weather"] and one.failure_mode == "missing_call"
    assert one.bfcl_error == "parallel_function_checker_no_order:wrong_count"
    assert [c.actual_index for c in one.calls] == [None, 0]


def test_model_error_is_a_failed_case():
    s = score_case(weather_case(), [], error="429 rate limited", error_type="ModelRateLimitError")
    assert (s.tool_score, s.overall, s.passed, s.failure_mode) == (0.0, 0.0, False, "api_error")
    assert s.error_type == "ModelRateLimitError"
    nocall = score_case(EvalCase(prompt="hi", tools=TOOLS), [], error="boom")
    assert nocall.overall == 0.0 and not nocall.passed


def test_regex_timeout_names_the_case():
    case = weather_case(
        name="slow_regex",
        expected_params={"city": "(a|aa)+$"},
        param_scoring="regex",
        scoring_config=ScoringConfig(regex_timeout=0.1),
    )
    with pytest.raises(RegexTimeoutError, match="case 'slow_regex'"):
        score_case(case, [oa("get_weather", {"city": "a" * 40 + "b"})])


def test_modes_other_than_exact_skip_the_ordinary_bfcl_verdict():
    case = weather_case(param_scoring="fuzzy", expected_params={"city": "Paris"})
    s = score_case(case, [oa("get_weather", {"city": "Pariss"})])
    assert s.passed and s.bfcl_pass is None


def test_bfcl_category_case_uses_gorilla_types_from_tools():
    from tooleval_nb.formats import bfcl as bfcl_format

    params = bfcl_format.to_openai_parameters(
        {
            "type": "dict",
            "properties": {
                "x": {"type": "float"},
                "items": {"type": "tuple", "items": {"type": "integer"}},
            },
            "required": ["x"],
        }
    )
    tool = Tool.create("math.f", parameters=params)
    case = EvalCase(
        prompt="f",
        tools=[tool],
        category="simple_python",
        expected_calls=[{"name": "math.f", "arguments": {"x": [2.0], "items": [[1, 2]]}}],
    )
    ok = score_case(case, [oa("math.f", {"x": 2, "items": [1, 2]})])
    assert (ok.bfcl_pass, ok.bfcl_error) == (True, None)
    bad = score_case(case, [oa("math.f", {"x": 2, "items": [1, "2"]})])
    assert (bad.bfcl_pass, bad.bfcl_error) == (False, "type_error:nested")


def test_text_answer_in_a_bfcl_category_is_a_decoder_failure():
    case = EvalCase(
        prompt="f",
        tools=[WEATHER],
        category="simple_python",
        expected_calls=[{"name": "get_weather", "arguments": {"city": ["Paris"]}}],
    )
    s = score_case(case, [], "I cannot do that.")
    assert (s.bfcl_pass, s.bfcl_error) == (False, "ast_decoder:decoder_failed")
    irr = EvalCase(prompt="f", tools=[WEATHER], category="irrelevance")
    assert score_case(irr, [], "No tool fits.").bfcl_pass is True


def test_row_has_every_score_column():
    from tooleval_nb.scoring import SCORE_COLUMNS

    row = score_case(weather_case(), [oa("get_weather", {"city": "Paris", "days": 3})]).row()
    assert list(row) == SCORE_COLUMNS
