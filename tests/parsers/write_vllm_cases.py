"""Add the ``vllm_*`` cases to the corpus (issue 48): the shapes vLLM's own parser tests check
(malformed input, text after the calls, nested and escaped arguments, several calls in one
region), written for tooleval_nb, not copied. Each case's expectations, ours and (where vLLM
differs) vLLM's, are written here by hand from docs/parsers.md and vLLM's ``extract_tool_calls``;
running the script replaces the ``vllm_*`` cases of the formats it is given (all by default):

    .venv/bin/python tests/parsers/write_vllm_cases.py [FORMAT ...]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parents[2] / "data" / "parsers"
NOTE = "the shape of a case vLLM's tests check, written for tooleval_nb (issue 48)"

Calls = list[tuple[str, dict[str, Any]]]
SAME = object()  # vLLM serves what we do

#: format -> [(scenario, pattern, output, our calls, our content, problem?, vLLM's (calls, content) or SAME)]
CASES: dict[str, list[tuple[str, int, str, Calls, str | None, bool, Any]]] = {}


def case(
    fmt: str,
    scenario: str,
    pattern: int,
    text: str,
    calls: Calls,
    content: str | None,
    problem: bool = False,
    vllm: Any = SAME,
) -> None:
    CASES.setdefault(fmt, []).append((scenario, pattern, text, calls, content, problem, vllm))


W = ("get_weather", {"city": "Tokyo"})

# ---------------------------------------------------------------------------- mistral
case(
    "mistral",
    "vllm_text_after_call_v11",
    6,
    'Sure.[TOOL_CALLS]get_weather{"city": "Tokyo"} Done.',
    [W],
    "Sure. Done.",
    False,
    ([], 'Sure.[TOOL_CALLS]get_weather{"city": "Tokyo"} Done.'),
)
case(
    "mistral",
    "vllm_two_calls_v11",
    3,
    '[TOOL_CALLS]get_weather{"city": "Paris"}[TOOL_CALLS]get_time{"tz": "Europe/Paris"}',
    [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "Europe/Paris"})],
    None,
)
case(
    "mistral",
    "vllm_nested_escaped_pre_v11",
    7,
    '[TOOL_CALLS] [{"name": "run", "arguments": {"cmd": "say \\"hi\\" \\\\ ok", '
    '"opts": {"n": [1, 2]}}}, {"name": "f", "arguments": {}}]',
    [("run", {"cmd": 'say "hi" \\ ok', "opts": {"n": [1, 2]}}), ("f", {})],
    None,
)
case(
    "mistral",
    "vllm_malformed_input",
    8,
    'Hm.[TOOL_CALLS] [{"name": "f", "arguments": {"a": }}]',
    [],
    'Hm.[TOOL_CALLS] [{"name": "f", "arguments": {"a": }}]',
    True,
    ([], '[{"name": "f", "arguments": {"a": }}]'),
)

# ---------------------------------------------------------------------------- xlam
case(
    "xlam",
    "vllm_text_around_fenced_calls",
    6,
    'I will check.\n```json\n[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\n```\nDone.',
    [W],
    "I will check.\n\nDone.",
)
case(
    "xlam",
    "vllm_several_calls_string_arguments",
    3,
    '[{"name": "f", "arguments": "{\\"a\\": 1}"}, '
    '{"name": "g", "arguments": {"b": [1, {"c": null}], "s": "东京 \\"q\\""}}]',
    [("f", {"a": 1}), ("g", {"b": [1, {"c": None}], "s": '东京 "q"'})],
    None,
)
case(
    "xlam",
    "vllm_malformed_input",
    8,
    '[{"name": "f", "arguments": {"a": 1}',
    [],
    '[{"name": "f", "arguments": {"a": 1}',
    True,
)
case(
    "xlam",
    "vllm_tool_call_tag_then_text",
    6,
    '<tool_call>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]</tool_call> thanks',
    [W],
    "thanks",
)

# ---------------------------------------------------------------------------- qwen3_coder
_Q1 = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)
case(
    "qwen3_coder",
    "vllm_text_after_call",
    6,
    f"Let me check.\n{_Q1}\nDone.",
    [("get_weather", {"city": "Tokyo", "days": 3})],
    "Let me check.\n\nDone.",
    False,
    ([("get_weather", {"city": "Tokyo", "days": "3"})], "Let me check."),
)
case(
    "qwen3_coder",
    "vllm_two_calls_nested",
    3,
    '<tool_call>\n<function=f>\n<parameter=q>\n{"a": [1, 2], "b": "x\\"y"}\n</parameter>\n'
    "</function>\n</tool_call>\n<tool_call>\n<function=g>\n</function>\n</tool_call>",
    [("f", {"q": {"a": [1, 2], "b": 'x"y'}}), ("g", {})],
    None,
    False,
    ([("f", {"q": '{"a": [1, 2], "b": "x\\"y"}'}), ("g", {})], None),
)
case(
    "qwen3_coder",
    "vllm_malformed_input",
    8,
    "<tool_call>\n<function=get_weather\n</tool_call>",
    [],
    "<tool_call>\n<function=get_weather\n</tool_call>",
    True,
)
case(
    "qwen3_coder",
    "vllm_escaped_value",
    7,
    "<tool_call>\n<function=run>\n<parameter=cmd>\necho \"a<b\" && cat 'x'\n</parameter>\n"
    "</function>\n</tool_call>",
    [("run", {"cmd": "echo \"a<b\" && cat 'x'"})],
    None,
)

# ---------------------------------------------------------------------------- seed_oss
_S1 = (
    "<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n"
    "</function>\n</seed:tool_call>"
)
case(
    "seed_oss",
    "vllm_think_then_call",
    6,
    f"<seed:think>Need weather.</seed:think>Checking.{_S1}",
    [W],
    "Checking.",
    False,
    ([W], "<seed:think>Need weather.</seed:think>Checking."),
)
case(
    "seed_oss",
    "vllm_two_calls_text_after",
    3,
    f"{_S1}<seed:tool_call>\n<function=f>\n<parameter=n>\n[1, 2]\n</parameter>\n</function>\n"
    "</seed:tool_call> Done.",
    [W, ("f", {"n": [1, 2]})],
    "Done.",
    False,
    ([W, ("f", {"n": "[1, 2]"})], None),
)
case(
    "seed_oss",
    "vllm_malformed_unclosed_call",
    8,
    "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Tokyo",
    [],
    "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Tokyo",
    True,
    ([W], None),
)
case(
    "seed_oss",
    "vllm_null_value",
    4,
    "<seed:tool_call>\n<function=f>\n<parameter=x>\nnull\n</parameter>\n</function>\n"
    "</seed:tool_call>",
    [("f", {"x": None})],
    None,
)

# ---------------------------------------------------------------------------- glm45
case(
    "glm45",
    "vllm_text_after_call",
    6,
    "Sure.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Tokyo</arg_value>\n"
    "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>Done.",
    [("get_weather", {"city": "Tokyo", "days": 3})],
    "Sure.Done.",
    False,
    ([("get_weather", {"city": "Tokyo", "days": 3})], "Sure."),
)
case(
    "glm45",
    "vllm_no_newline_after_name",
    2,
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Tokyo</arg_value></tool_call>",
    [W],
    None,
    False,
    ([], "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Tokyo</arg_value></tool_call>"),
)
case(
    "glm45",
    "vllm_python_literal_value",
    7,
    "<tool_call>f\n<arg_key>opts</arg_key>\n<arg_value>{'a': [1, True], 'b': None}</arg_value>\n"
    "</tool_call>",
    [("f", {"opts": "{'a': [1, True], 'b': None}"})],
    None,
    False,
    ([("f", {"opts": {"a": [1, True], "b": None}})], None),
)
case(
    "glm45",
    "vllm_two_calls_second_unclosed",
    8,
    "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"
    "<tool_call>g\n<arg_key>b</arg_key>\n",
    [("f", {"a": 1})],
    "<tool_call>g\n<arg_key>b</arg_key>",
    True,
    ([("f", {"a": 1})], None),
)


# ---------------------------------------------------------------------------- minimax_m2
def _mm(name: str, params: str) -> str:
    return f'<invoke name="{name}">\n{params}</invoke>\n'


_MM_W = _mm(
    "get_weather",
    '<parameter name="city">Tokyo</parameter>\n<parameter name="days">3</parameter>\n',
)
case(
    "minimax_m2",
    "vllm_text_after_call",
    6,
    f"Let me check.<minimax:tool_call>\n{_MM_W}</minimax:tool_call>Done.",
    [("get_weather", {"city": "Tokyo", "days": 3})],
    "Let me check.Done.",
    False,
    ([("get_weather", {"city": "Tokyo", "days": "3"})], "Let me check."),
)
case(
    "minimax_m2",
    "vllm_two_invokes_one_block",
    3,
    "<minimax:tool_call>\n"
    + _mm("f", '<parameter name="q">{"a": [1, 2]}</parameter>\n')
    + _mm("g", "")
    + "</minimax:tool_call>",
    [("f", {"q": {"a": [1, 2]}}), ("g", {})],
    None,
    False,
    ([("f", {"q": '{"a": [1, 2]}'}), ("g", {})], None),
)
case(
    "minimax_m2",
    "vllm_unclosed_block",
    8,
    f"<minimax:tool_call>\n{_MM_W}",
    [("get_weather", {"city": "Tokyo", "days": 3})],
    None,
    True,
    ([], f"<minimax:tool_call>\n{_MM_W}"),
)
case(
    "minimax_m2",
    "vllm_none_value",
    4,
    "<minimax:tool_call>\n"
    + _mm("f", '<parameter name="x">None</parameter>\n')
    + "</minimax:tool_call>",
    [("f", {"x": "None"})],
    None,
    False,
    ([("f", {"x": None})], None),
)

# ---------------------------------------------------------------------------- the formats without
# vLLM-shaped cases before (issue 48, second step); json, openai and step3p5 have no vLLM reading
# here, so their cases hold our reading only
case(
    "hermes",
    "vllm_text_after_calls",
    6,
    'Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</tool_call> Done.',
    [W],
    "Sure.  Done.",
    False,
    ([W], "Sure."),
)
case(
    "hermes",
    "vllm_malformed_input",
    8,
    '<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>',
    [],
    '<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>',
    True,
)
case(
    "hermes",
    "vllm_closing_tag_inside_string",
    7,
    '<tool_call>{"name": "f", "arguments": {"s": "a\\"b</tool_call>"}}</tool_call>\n'
    '<tool_call>{"name": "g", "arguments": {}}</tool_call>',
    [("g", {})],
    '<tool_call>{"name": "f", "arguments": {"s": "a\\"b</tool_call>"}}</tool_call>',
    True,
    (
        [],
        '<tool_call>{"name": "f", "arguments": {"s": "a\\"b</tool_call>"}}</tool_call>\n'
        '<tool_call>{"name": "g", "arguments": {}}</tool_call>',
    ),
)
case(
    "llama3_json",
    "vllm_text_around_call",
    6,
    'Here: {"name": "get_weather", "parameters": {"city": "Tokyo"}} ok',
    [W],
    "Here:  ok",
    False,
    ([W], None),
)
case(
    "llama3_json",
    "vllm_two_calls_nested",
    3,
    '{"name": "f", "parameters": {"a": [1, {"b": "x}"}]}}; {"name": "g", "parameters": {}}',
    [("f", {"a": [1, {"b": "x}"}]}), ("g", {})],
    None,
)
case(
    "llama3_json",
    "vllm_malformed_input",
    8,
    '{"name": "f", "parameters": {"a": }}',
    [],
    '{"name": "f", "parameters": {"a": }}',
    True,
)
case(
    "phi4_mini_json",
    "vllm_list_in_arguments",
    4,
    'functools[{"name": "f", "arguments": {"l": [1, 2]}}]',
    [("f", {"l": [1, 2]})],
    None,
    False,
    ([], ""),
)
case(
    "phi4_mini_json",
    "vllm_two_calls",
    3,
    'functools[{"name": "f", "arguments": {"a": "x\\"y"}}, {"name": "g", "arguments": {}}]',
    [("f", {"a": 'x"y'}), ("g", {})],
    None,
)
case(
    "phi4_mini_json",
    "vllm_malformed_input",
    8,
    'functools[{"name": "f", "arguments": {"a": }}]',
    [],
    'functools[{"name": "f", "arguments": {"a": }}]',
    True,
    ([], ""),
)
case(
    "jamba",
    "vllm_text_after_calls",
    6,
    'Ok <tool_calls>[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {}}]'
    "</tool_calls> after",
    [("f", {"a": 1}), ("g", {})],
    "Ok  after",
    False,
    ([("f", {"a": 1}), ("g", {})], "Ok"),
)
case(
    "jamba",
    "vllm_unclosed_list",
    8,
    '<tool_calls>[{"name": "f", "arguments": {"a": 1}}]',
    [("f", {"a": 1})],
    None,
    True,
    ([], '<tool_calls>[{"name": "f", "arguments": {"a": 1}}]'),
)
case(
    "granite",
    "vllm_text_before_list",
    6,
    'Sure <|tool_call|>[{"name": "f", "arguments": {"a": 1}}]',
    [("f", {"a": 1})],
    "Sure",
    False,
    ([], 'Sure <|tool_call|>[{"name": "f", "arguments": {"a": 1}}]'),
)
case(
    "granite",
    "vllm_two_calls_nested",
    3,
    '<|tool_call|>[{"name": "f", "arguments": {"q": {"l": [1, "]"]}}}, {"name": "g", "arguments": {}}]',
    [("f", {"q": {"l": [1, "]"]}}), ("g", {})],
    None,
)
case(
    "granite4",
    "vllm_text_between_calls",
    6,
    'A<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>B'
    '<tool_call>{"name": "g", "arguments": {}}</tool_call>C',
    [("f", {"a": 1}), ("g", {})],
    "ABC",
)
case(
    "granite4",
    "vllm_unclosed_call",
    8,
    '<tool_call>{"name": "f", "arguments": {"a": 1}}',
    [("f", {"a": 1})],
    None,
    True,
    ([], '<tool_call>{"name": "f", "arguments": {"a": 1}}'),
)
case(
    "minimax",
    "vllm_text_after_calls",
    6,
    'Sure.\n<tool_calls>\n{"name": "f", "arguments": {"a": 1}}\n'
    '{"name": "g", "arguments": {"s": "x\\ny"}}\n</tool_calls>\nDone.',
    [("f", {"a": 1}), ("g", {"s": "x\ny"})],
    "Sure.\n\nDone.",
    False,
    ([("f", {"a": 1}), ("g", {"s": "x\ny"})], "Sure."),
)
case(
    "minimax",
    "vllm_object_across_lines",
    4,
    '<tool_calls>\n{"name": "f",\n "arguments": {"a": 1}}\n</tool_calls>',
    [("f", {"a": 1})],
    None,
    False,
    ([], ""),
)
case(
    "ernie45",
    "vllm_text_after_call",
    6,
    'Sure.\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\nDone.',
    [("f", {"a": 1})],
    "Sure.\n\nDone.",
    False,
    ([("f", {"a": 1})], "Sure."),
)
case(
    "ernie45",
    "vllm_nested_braces",
    7,
    '<tool_call>{"name": "f", "arguments": {"q": {"a": "}"}}}</tool_call>',
    [("f", {"q": {"a": "}"}})],
    None,
)
case(
    "hunyuan_a13b",
    "vllm_unicode_text_after",
    6,
    'Ok<tool_calls>[{"name": "f", "arguments": {"city": "東京"}}]</tool_calls>after',
    [("f", {"city": "東京"})],
    "Okafter",
    False,
    ([("f", {"city": "東京"})], "Ok"),
)
case(
    "hunyuan_a13b",
    "vllm_malformed_input",
    8,
    '<tool_calls>[{"name": "f", "arguments": {"a": }}]</tool_calls>',
    [],
    '<tool_calls>[{"name": "f", "arguments": {"a": }}]</tool_calls>',
    True,
)
V31B, V31E = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
V31CB, V31CE, V31S = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
case(
    "deepseek_v31",
    "vllm_text_after_call",
    6,
    f'Hi{V31B}{V31CB}f{V31S}{{"a": 1}}{V31CE}{V31E}bye',
    [("f", {"a": 1})],
    "Hibye",
    False,
    ([("f", {"a": 1})], "Hi"),
)
case(
    "deepseek_v31",
    "vllm_multiline_arguments",
    4,
    f'{V31B}{V31CB}f{V31S}{{\n"a": 1\n}}{V31CE}{V31E}',
    [("f", {"a": 1})],
    None,
    False,
    ([], ""),
)
K2S, K2E = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
K2C, K2A, K2X = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
case(
    "kimi_k2",
    "vllm_text_after_call",
    6,
    f'Hi{K2S}{K2C}functions.f:0{K2A}{{"a": 1}}{K2X}{K2E}bye',
    [("f", {"a": 1})],
    "Hibye",
    False,
    ([("f", {"a": 1})], "Hi"),
)
case(
    "kimi_k2",
    "vllm_two_calls_dotted_name",
    3,
    f'{K2S}{K2C}functions.f:0{K2A}{{"q": {{"l": [1]}}}}{K2X}'
    f"{K2C}functions.math.sum:1{K2A}{{}}{K2X}{K2E}",
    [("f", {"q": {"l": [1]}}), ("math.sum", {})],
    None,
    False,
    ([("f", {"q": {"l": [1]}}), ("sum", {})], None),
)
case(
    "pythonic",
    "vllm_text_after_calls",
    6,
    "[get_weather(city='Tokyo')] Done.",
    [W],
    "Done.",
    False,
    ([], "[get_weather(city='Tokyo')] Done."),
)
case(
    "pythonic",
    "vllm_negative_number",
    4,
    "[f(a=-1, b=[1, {'c': None}])]",
    [("f", {"a": -1, "b": [1, {"c": None}]})],
    None,
    False,
    ([], "[f(a=-1, b=[1, {'c': None}])]"),
)
case(
    "pythonic",
    "vllm_two_calls_escaped",
    7,
    "[f(s='it\\'s \"q\"'), g()]",
    [("f", {"s": 'it\'s "q"'}), ("g", {})],
    None,
)
case(
    "llama4_pythonic",
    "vllm_two_calls",
    3,
    "[get_weather(city='Tokyo'), f(n=[1, 2])]",
    [W, ("f", {"n": [1, 2]})],
    None,
)
case(
    "llama4_pythonic",
    "vllm_text_after_calls",
    6,
    "[get_weather(city='Tokyo')]\nDone.",
    [W],
    "Done.",
    False,
    ([], "[get_weather(city='Tokyo')]\nDone."),
)
case(
    "olmo3",
    "vllm_two_calls_json_literals",
    3,
    "<function_calls>get_weather(city='Tokyo')\nf(x=true, y=null)</function_calls>",
    [W, ("f", {"x": True, "y": None})],
    None,
)
case(
    "olmo3",
    "vllm_text_after_calls",
    6,
    "<function_calls>get_weather(city='Tokyo')</function_calls> Done.",
    [W],
    "Done.",
    False,
    ([W], None),
)
case(
    "json",
    "vllm_text_around_call",
    6,
    'Here: {"name": "get_weather", "arguments": {"city": "Tokyo"}} done',
    [W],
    "Here:  done",
)
case(
    "json",
    "vllm_malformed_input",
    8,
    '{"name": "f", "arguments": {"a": }}',
    [],
    '{"name": "f", "arguments": {"a": }}',
    True,
)
case(
    "openai",
    "vllm_call_as_served",
    2,
    ' to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Tokyo"}<|call|>',
    [W],
    None,
)
case(
    "openai",
    "vllm_final_message_no_call",
    1,
    "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final"
    "<|message|>Hi.<|return|>",
    [],
    "Hi.",
)
case(
    "step3p5",
    "vllm_text_before_call",
    6,
    "Hi\n<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n</function>\n"
    "</tool_call>",
    [W],
    "Hi",
)
case(
    "step3p5",
    "vllm_malformed_input",
    8,
    "<tool_call>\n<function=get_weather\n</tool_call>",
    [],
    "<tool_call>\n<function=get_weather\n</tool_call>",
    True,
)

_P3 = "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n"
case(
    "step3p5",
    "vllm_text_after_call",
    6,
    f"Let me check.\n{_P3}<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\nDone.",
    [("get_weather", {"city": "Tokyo", "days": 3})],
    "Let me check.\n\nDone.",
    False,
    ([("get_weather", {"city": "Tokyo", "days": "3"})], "Let me check."),
)
case(
    "step3p5",
    "vllm_text_between_calls",
    3,
    f"hello{_P3}</function>\n</tool_call>hi<tool_call>\n<function=f>\n</function>\n</tool_call> bye",
    [W, ("f", {})],
    "hellohi bye",
    False,
    ([W, ("f", {})], "hellohi"),
)
case(
    "step3p5",
    "vllm_nested_escaped_value",
    7,
    "<tool_call>\n<function=run>\n<parameter=cmd>\necho \"a<b\" && cat 'x' > y\n</parameter>\n"
    '<parameter=opts>\n{"n": [1, 2], "s": "東京"}\n</parameter>\n</function>\n</tool_call>',
    [("run", {"cmd": "echo \"a<b\" && cat 'x' > y", "opts": {"n": [1, 2], "s": "東京"}})],
    None,
    False,
    ([("run", {"cmd": "echo \"a<b\" && cat 'x' > y", "opts": '{"n": [1, 2], "s": "東京"}'})], None),
)
case(
    "step3p5",
    "vllm_malformed_missing_parameter_close",
    8,
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</function>\n</tool_call>",
    [],
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</function>\n</tool_call>",
    True,
    ([W], None),
)
case(
    "step3p5",
    "vllm_malformed_unclosed_call",
    8,
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo",
    [],
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo",
    True,
)


# ---------------------------------------------------------------------------- writing
def _calls(calls: Calls) -> list[dict[str, Any]]:
    return [{"name": n, "arguments": a} for n, a in calls]


def build(fmt: str) -> list[dict[str, Any]]:
    out = []
    for scenario, pattern, text, calls, content, problem, vllm in CASES[fmt]:
        entry: dict[str, Any] = {
            "scenario_name": scenario,
            "pattern": pattern,
            "model_output": text,
            "expected_tools_called": bool(calls),
            "expected_tool_calls": _calls(calls),
            "expected_content": content,
            "expect_problem": problem,
            "notes": NOTE,
        }
        if vllm is not SAME:
            v_calls, v_content = vllm
            entry["vllm"] = {
                "tools_called": bool(v_calls),
                "tool_calls": _calls(v_calls),
                "content": v_content,
            }
        out.append(entry)
    return out


def main(formats: list[str]) -> None:
    for fmt in formats or list(CASES):
        path = OUT / f"{fmt}.yaml"
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        kept = [c for c in data["cases"] if not str(c["scenario_name"]).startswith("vllm_")]
        data["cases"] = kept + build(fmt)
        path.write_text(
            yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=120), encoding="utf-8"
        )
        print(f"{path.name}: {len(CASES[fmt])} vllm_* cases")


if __name__ == "__main__":
    main(sys.argv[1:])
