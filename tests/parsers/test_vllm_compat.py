"""compat="vllm": each format read as vLLM's parser of the same name serves it (issue 48).

The vectors are the shapes vLLM's own tests check, written anew: text around the calls, several
calls, nested and escaped arguments, malformed input. Each is checked whole and streamed (the
stream's last delta settles it to the same reading), and against our default reading where the
two differ on purpose.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval_nb.errors import ParserError
from tooleval_nb.parsers import StreamingToolReconstructor, get_parser, parse_tool_calls
from tooleval_nb.parsers.vllm import VLLM_FORMATS, VLLM_UNREAD
from tooleval_nb.parsers.vllm._pythonic import looks_like_calls

V3B, V3E = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
V3CB, V3CE, V3S = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
S3B, S3E = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
S3CB, S3CE, S3S = "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>"


def _v3(name: str, args: str) -> str:
    return f"{V3CB}function{V3S}{name}\n```json\n{args}\n```{V3CE}"


def _s3(name: str, params: dict[str, str]) -> str:
    body = "".join(
        f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in params.items()
    )
    return f'{S3CB}function{S3S}<steptml:invoke name="{name}">{body}</steptml:invoke>{S3CE}'


_A1, _A_CUT, _A_LINES = '{"a": 1}', '{"a": ', '{\n"a": 1\n}'
_S3_F, _S3_OPEN_G = _s3("f", {"a": "1"}), f'{S3CB}function{S3S}<steptml:invoke name="g">'

_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "metric": {"type": "boolean"},
                "temp": {"type": "number"},
            },
        },
    },
}

#: (format, scenario, output, expected calls as (name, arguments dict), expected content)
VECTORS: list[tuple[str, str, str, list[tuple[str, dict[str, Any]]], str | None]] = [
    # hermes: content is the text before the first block; text after the calls is dropped
    ("hermes", "no_call", "Just text.", [], "Just text."),
    (
        "hermes",
        "text_after_calls_dropped",
        'Sure. <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call> Done.',
        [("f", {"a": 1})],
        "Sure.",
    ),
    (
        "hermes",
        "two_calls_text_between_dropped",
        '<tool_call>{"name": "f", "arguments": {}}</tool_call> and '
        '<tool_call>{"name": "g", "arguments": {"s": "a\\"b\\\\c"}}</tool_call>',
        [("f", {}), ("g", {"s": 'a"b\\c'})],
        None,
    ),
    (
        "hermes",
        "unclosed_block_read_to_the_end",
        '<tool_call>{"name": "f", "arguments": {"nested": {"x": [1, 2]}}}',
        [("f", {"nested": {"x": [1, 2]}})],
        None,
    ),
    (
        "hermes",
        "string_arguments_decoded",
        '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>',
        [("f", {"a": 1})],
        None,
    ),
    (
        "hermes",
        "malformed_json_whole_output_is_content",
        'Hi <tool_call>{"name": "f", "arguments": {"a": 1}</tool_call>',
        [],
        'Hi <tool_call>{"name": "f", "arguments": {"a": 1}</tool_call>',
    ),
    (
        "hermes",
        "missing_arguments_is_content",
        '<tool_call>{"name": "f"}</tool_call>',
        [],
        '<tool_call>{"name": "f"}</tool_call>',
    ),
    # longcat: hermes with its own tags
    (
        "longcat",
        "text_after_calls_dropped",
        'Ok <longcat_tool_call>{"name": "f", "arguments": {"a": "x"}}</longcat_tool_call> bye',
        [("f", {"a": "x"})],
        "Ok",
    ),
    (
        "longcat",
        "malformed_input",
        '<longcat_tool_call>{"name": "func", "arguments": {</longcat_tool_call>',
        [],
        '<longcat_tool_call>{"name": "func", "arguments": {</longcat_tool_call>',
    ),
    # granite-20b-fc: objects after markers, text after each object dropped
    (
        "granite-20b-fc",
        "two_calls",
        'Let me. <function_call> {"name": "f", "arguments": {"a": 1}} trailing '
        '<function_call> {"name": "g", "arguments": {}}',
        [("f", {"a": 1}), ("g", {})],
        "Let me.",
    ),
    (
        "granite-20b-fc",
        "malformed_input",
        '<function_call> {"name": "f", "arguments": {"a": }}',
        [],
        '<function_call> {"name": "f", "arguments": {"a": }}',
    ),
    # internlm: one call; parameters or arguments; text after dropped; errors raise in vLLM
    (
        "internlm",
        "parameters_key",
        'Checking.<|action_start|><|plugin|>\n{"name": "f", "parameters": {"city": "Paris"}}'
        "<|action_end|> and more",
        [("f", {"city": "Paris"})],
        "Checking.",
    ),
    (
        "internlm",
        "malformed_input_raises_in_vllm",
        '<|action_start|><|plugin|>{"name": "func", "parameters": {</|action_end|>',
        [],
        '<|action_start|><|plugin|>{"name": "func", "parameters": {</|action_end|>',
    ),
    (
        "internlm",
        "two_markers_raise_in_vllm",
        '<|action_start|><|plugin|>{"name": "f", "parameters": {}}<|action_end|>'
        '<|action_start|><|plugin|>{"name": "g", "parameters": {}}<|action_end|>',
        [],
        '<|action_start|><|plugin|>{"name": "f", "parameters": {}}<|action_end|>'
        '<|action_start|><|plugin|>{"name": "g", "parameters": {}}<|action_end|>',
    ),
    # gigachat3: content before <|message_sep|>; arguments must be an object
    (
        "gigachat3",
        "content_then_call",
        'Looking it up.<|message_sep|>function call<|role_sep|>\n{"name": "f", "arguments": '
        '{"q": "кот"}}',
        [("f", {"q": "кот"})],
        "Looking it up.",
    ),
    (
        "gigachat3",
        "string_arguments_are_no_call",
        'function call<|role_sep|>\n{"name": "f", "arguments": "{}"}',
        [],
        'function call<|role_sep|>\n{"name": "f", "arguments": "{}"}',
    ),
    (
        "gigachat3",
        "trailing_eos_cut",
        'function call<|role_sep|>\n{"name": "f", "arguments": {"a": [1, {"b": null}]}}</s>',
        [("f", {"a": [1, {"b": None}]})],
        'function call<|role_sep|>\n{"name": "f", "arguments": {"a": [1, {"b": null}]}}',
    ),
    # deepseek_v3: one-line pattern, text after the section dropped
    (
        "deepseek_v3",
        "two_calls_text_after_dropped",
        f"Ok{V3B}{_v3('f', _A1)}\n{_v3('g', '{}')}{V3E} trailing",
        [("f", {"a": 1}), ("g", {})],
        "Ok",
    ),
    (
        "deepseek_v3",
        "multiline_arguments_are_not_read",
        f"Ok{V3B}{_v3('f', _A_LINES)}{V3E} trailing",
        [],
        "Ok",
    ),
    (
        "deepseek_v3",
        "malformed_arguments_are_content",
        f"{V3B}{_v3('f', _A_CUT)}{V3E}",
        [],
        f"{V3B}{_v3('f', _A_CUT)}{V3E}",
    ),
    # deepseek_v31: name<sep>arguments on one line; the rest after the section start dropped
    (
        "deepseek_v31",
        "two_calls_text_after_dropped",
        f"Ok{V3B}{V3CB}f{V3S}{_A1}{V3CE}{V3CB}g{V3S}{{}}{V3CE}{V3E} after",
        [("f", {"a": 1}), ("g", {})],
        "Ok",
    ),
    (
        "deepseek_v31",
        "multiline_arguments_are_not_read",
        f"{V3B}{V3CB}f{V3S}{_A_LINES}{V3CE}{V3E}",
        [],
        "",
    ),
    # kimi_k2: functions.name:N ids; text after the section dropped
    (
        "kimi_k2",
        "two_calls",
        "Let me <|tool_calls_section_begin|><|tool_call_begin|>functions.get:0"
        '<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|>'
        "<|tool_call_begin|>functions.put:1<|tool_call_argument_begin|>{}<|tool_call_end|>"
        "<|tool_calls_section_end|> after",
        [("get", {"city": "Oslo"}), ("put", {})],
        "Let me",
    ),
    (
        "kimi_k2",
        "malformed_arguments_are_content",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get:0"
        '<|tool_call_argument_begin|>{"city": <|tool_call_end|><|tool_calls_section_end|>',
        [],
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get:0"
        '<|tool_call_argument_begin|>{"city": <|tool_call_end|><|tool_calls_section_end|>',
    ),
    # step3: section must close; content before and after it; values typed by schema
    (
        "step3",
        "typed_values_and_text_after_kept",
        f"Before {S3B}{_s3('get_weather', {'city': ' Paris ', 'days': '3', 'metric': 'True'})}"
        f"{S3E} after",
        [("get_weather", {"city": "Paris", "days": 3, "metric": True})],
        "Before  after",
    ),
    (
        "step3",
        "unclosed_section_is_content",
        f"{S3B}{_S3_F}",
        [],
        f"{S3B}{_S3_F}",
    ),
    (
        "step3",
        "call_without_end_is_skipped",
        f"{S3B}{_S3_F}{_S3_OPEN_G}{S3E}",
        [("f", {"a": "1"})],
        None,
    ),
    # llama3_json: every top-level object a call; text around dropped
    (
        "llama3_json",
        "text_around_dropped",
        'Sure: {"name": "f", "parameters": {"a": {"b": 1}}}; {"name": "g", "arguments": {}} ok',
        [("f", {"a": {"b": 1}}), ("g", {})],
        None,
    ),
    (
        "llama3_json",
        "a_brace_that_does_not_decode",
        'Use {x} then {"name": "f", "arguments": {}}',
        [],
        'Use {x} then {"name": "f", "arguments": {}}',
    ),
    (
        "llama3_json",
        "missing_name",
        '<|python_tag|>{"arguments": {}}',
        [],
        '<|python_tag|>{"arguments": {}}',
    ),
    # phi4_mini_json: functools[...] to its first ]
    (
        "phi4_mini_json",
        "two_calls_text_dropped",
        'Calling functools[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "parameters": '
        '{"s": "x"}}] now',
        [("f", {"a": 1}), ("g", {"s": "x"})],
        None,
    ),
    (
        "phi4_mini_json",
        "malformed_input_is_an_empty_message",
        'functools[{"name": "func", "arguments": {]',
        [],
        "",
    ),
    # jamba: one <tool_calls> list
    (
        "jamba",
        "content_before_kept_after_dropped",
        'Hi <tool_calls>[{"name": "f", "arguments": {"a": [1, 2]}}]</tool_calls> bye',
        [("f", {"a": [1, 2]})],
        "Hi",
    ),
    (
        "jamba",
        "unclosed_is_content",
        '<tool_calls>[{"name": "f", "arguments": {}}]',
        [],
        '<tool_calls>[{"name": "f", "arguments": {}}]',
    ),
    # granite: the whole output one list
    (
        "granite",
        "tool_call_token",
        ' <|tool_call|>[{"name": "f", "arguments": {"u": "é"}}]',
        [("f", {"u": "é"})],
        None,
    ),
    (
        "granite",
        "text_after_list_is_content",
        '<tool_call>[{"name": "f", "arguments": {}}] done',
        [],
        '<tool_call>[{"name": "f", "arguments": {}}] done',
    ),
    # minimax: one object per line in <tool_calls>; text after dropped
    (
        "minimax",
        "two_calls_one_per_line",
        'Sure.\n<tool_calls>\n{"name": "f", "arguments": {"a": 1}}\nnot json\n'
        '{"name": "g", "arguments": {}}\n</tool_calls> bye',
        [("f", {"a": 1}), ("g", {})],
        "Sure.",
    ),
    (
        "minimax",
        "calls_inside_think_are_not_calls",
        '<think><tool_calls>\n{"name": "f", "arguments": {}}\n</tool_calls></think>No call.',
        [],
        '<think><tool_calls>\n{"name": "f", "arguments": {}}\n</tool_calls></think>No call.',
    ),
    (
        "minimax",
        "malformed_lines_leave_only_the_text_before",
        'Hi\n<tool_calls>\n{"name": "f", "arguments": {</tool_calls> tail',
        [],
        "Hi",
    ),
    # granite4: strictly paired blocks; the text outside them joined
    (
        "granite4",
        "text_around_kept",
        'Sure. <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call> Done.',
        [("f", {"a": 1})],
        "Sure.  Done.",
    ),
    (
        "granite4",
        "malformed_unclosed_is_content",
        '<tool_call>{"name": "f", "arguments": {}}',
        [],
        '<tool_call>{"name": "f", "arguments": {}}',
    ),
    (
        "granite4",
        "malformed_two_starts_is_content",
        '<tool_call><tool_call>{"name": "f", "arguments": {}}</tool_call>',
        [],
        '<tool_call><tool_call>{"name": "f", "arguments": {}}</tool_call>',
    ),
    # ernie45: content before the first block, text after dropped
    (
        "ernie45",
        "two_calls_text_after_dropped",
        'Checking.\n<tool_call>\n{"name": "f", "arguments": {"q": {"l": [1]}}}\n</tool_call>\n'
        '<tool_call>{"name": "g", "arguments": {}}</tool_call>\nDone.',
        [("f", {"q": {"l": [1]}}), ("g", {})],
        "Checking.",
    ),
    (
        "ernie45",
        "malformed_input_is_content",
        '<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>',
        [],
        '<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>',
    ),
    # hunyuan_a13b: the first decodable <tool_calls> block outside <think>
    (
        "hunyuan_a13b",
        "two_calls_text_after_dropped",
        'Ok <tool_calls>[{"name": "f", "arguments": {"city": "東京"}}, {"name": "g", '
        '"arguments": {}}]</tool_calls> after',
        [("f", {"city": "東京"}), ("g", {})],
        "Ok",
    ),
    (
        "hunyuan_a13b",
        "malformed_block_is_content",
        '助手：<tool_calls>[{"name": "f", "arguments": {]</tool_calls>',
        [],
        '<tool_calls>[{"name": "f", "arguments": {]</tool_calls>',
    ),
    # the pythonic family
    (
        "pythonic",
        "list_of_calls",
        "[f(a=1, b='x'), g()]",
        [("f", {"a": 1, "b": "x"}), ("g", {})],
        None,
    ),
    ("pythonic", "text_after_is_no_call", "[f(a=1)] done", [], "[f(a=1)] done"),
    ("pythonic", "negative_number_is_no_call", "[f(a=-1)]", [], "[f(a=-1)]"),
    (
        "pythonic",
        "json_literals",
        "[f(a=null, b=true, c={'k': [false]})]",
        [("f", {"a": None, "b": True, "c": {"k": [False]}})],
        None,
    ),
    ("pythonic", "positional_is_no_call", "[f(1, a=2)]", [], "[f(1, a=2)]"),
    ("pythonic", "escaped_string", "[f(s='it\\'s \"q\"\\n')]", [("f", {"s": 'it\'s "q"\n'})], None),
    (
        "llama4_pythonic",
        "python_tags",
        "<|python_start|>[f(a=1)]<|python_end|>",
        [("f", {"a": 1})],
        None,
    ),
    (
        "olmo3",
        "one_call_per_line",
        "<function_calls>f(a=1)\ng(b='x')</function_calls>",
        [("f", {"a": 1}), ("g", {"b": "x"})],
        None,
    ),
    ("olmo3", "prose_is_content", "Just prose here.", [], "Just prose here."),
    (
        "lfm2",
        "text_around_kept_joined",
        "Sure.<|tool_call_start|>[get(city='Paris')]<|tool_call_end|>It is sunny.",
        [("get", {"city": "Paris"})],
        "Sure.\nIt is sunny.",
    ),
    (
        "lfm2",
        "echo_after_end_dropped",
        "<|tool_call_start|>[f(a=1)]<|tool_call_end|>[f(a=1)]<|tool_call_end|> ok",
        [("f", {"a": 1})],
        "ok",
    ),
    (
        "lfm2",
        "multiline_string_arg_escaped",
        "<|tool_call_start|>[exec(command='cat > f.py << EOF\\nprint(1)\\nEOF')]<|tool_call_end|>",
        [("exec", {"command": "cat > f.py << EOF\nprint(1)\nEOF"})],
        None,
    ),
    (
        "lfm2",
        "multiline_string_arg_raw_newline_is_content",
        "<|tool_call_start|>[exec(command='cat > f.py << EOF\nprint(1)')]<|tool_call_end|>",
        [],
        "<|tool_call_start|>[exec(command='cat > f.py << EOF\nprint(1)')]<|tool_call_end|>",
    ),
    ("lfm2", "unclosed_block_read", "Hi<|tool_call_start|>[f()]", [("f", {})], "Hi"),
    (
        "lfm2",
        "not_a_list",
        "<|tool_call_start|>f(a=1)<|tool_call_end|>",
        [],
        "<|tool_call_start|>f(a=1)<|tool_call_end|>",
    ),
]

_QC = "<tool_call>\n<function=get_weather>\n{}</function>\n</tool_call>"
_MM = '<minimax:tool_call>\n<invoke name="get_weather">\n{}</invoke>\n</minimax:tool_call>'


def _qp(key: str, value: str) -> str:
    return f"<parameter={key}>\n{value}\n</parameter>\n"


def _mp(key: str, value: str) -> str:
    return f'<parameter name="{key}">{value}</parameter>\n'


#: the second step's formats: values typed by the tools' schema, and what vLLM does not catch
VECTORS += [
    (
        "qwen3_coder",
        "values_typed_by_the_schema",
        _QC.format(
            _qp("city", "42") + _qp("days", "3") + _qp("metric", "yes") + _qp("temp", "2.0")
        ),
        [("get_weather", {"city": "42", "days": 3, "metric": False, "temp": 2})],
        None,
    ),
    (
        "qwen3_coder",
        "malformed_infinite_number_is_content",
        _QC.format(_qp("temp", "inf")),
        [],
        _QC.format(_qp("temp", "inf")),
    ),
    (
        "seed_oss",
        "unknown_tool_values_stay_text",
        "<seed:tool_call>\n<function=other>\n<parameter=n>\n3\n</parameter>\n</function>\n"
        "</seed:tool_call>",
        [("other", {"n": "3"})],
        None,
    ),
    (
        "minimax_m2",
        "values_typed_by_the_schema",
        _MM.format(_mp("metric", "yes") + _mp("temp", "2.5") + _mp("days", "x") + _mp("city", "7")),
        [("get_weather", {"metric": True, "temp": 2.5, "days": "x", "city": "7"})],
        None,
    ),
    (
        "glm45",
        "string_values_raw_others_decoded",
        "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value> 07 </arg_value>"
        "<arg_key>days</arg_key><arg_value> 3 </arg_value></tool_call>",
        [("get_weather", {"city": " 07 ", "days": 3})],
        None,
    ),
    (
        "mistral",
        "malformed_second_marker_raises_in_vllm_pre_v11",
        '[TOOL_CALLS][{"name": "f", "arguments": {}}][TOOL_CALLS][{"name": "g", "arguments": {}}]',
        [],
        '[TOOL_CALLS][{"name": "f", "arguments": {}}][TOOL_CALLS][{"name": "g", "arguments": {}}]',
    ),
    (
        "mistral",
        "v11_args_token_dropped_from_the_name",
        'Ok [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
        [("get_weather", {"city": "Paris"})],
        "Ok",
    ),
    (
        "xlam",
        "calls_after_think",
        '<think>hm</think>[{"name": "f", "arguments": {"a": 1}}, {"name": "g"}]',
        [("f", {"a": 1})],
        "<think>hm</think>",
    ),
    (
        "xlam",
        "a_list_that_is_not_calls_is_an_empty_message",
        "[1, 2]",
        [],
        "",
    ),
]

#: step3p5: vLLM's expat machine (checked against vLLM 0.16.0's parser, run outside this suite)
VECTORS += [
    (
        "step3p5",
        "values_typed_by_the_schema_others_raw",
        _QC.format(
            _qp("city", "Tokyo") + _qp("days", "3") + _qp("metric", "True") + _qp("temp", "21.5")
        ),
        [("get_weather", {"city": "Tokyo", "days": 3, "metric": True, "temp": 21.5})],
        None,
    ),
    (
        "step3p5",
        "missing_equals_mended_for_a_known_tool",
        "<tool_call>\n<function get_weather>\n"
        + _qp("city", "Tokyo")
        + "</function>\n</tool_call>",
        [("get_weather", {"city": "Tokyo"})],
        None,
    ),
    (
        "step3p5",
        "missing_gt_mended_for_a_known_parameter",
        _QC.format("<parameter=city:\nTokyo\n</parameter>\n"),
        [("get_weather", {"city": "Tokyo"})],
        None,
    ),
    (
        "step3p5",
        "unknown_tool_without_equals_is_no_call",
        "<tool_call>\n<function get_time>\n" + _qp("city", "Tokyo") + "</function>\n</tool_call>",
        [],
        "",
    ),
    (
        "step3p5",
        "text_between_calls_kept_text_after_dropped",
        "hello" + _QC.format(_qp("city", "Tokyo")) + "hi" + _QC.format("") + " bye",
        [("get_weather", {"city": "Tokyo"}), ("get_weather", {})],
        "hellohi",
    ),
    (
        "step3p5",
        "a_partial_tag_at_the_end_is_lost",
        "Hi <tool",
        [],
        "Hi ",
    ),
    (
        "step3p5",
        "malformed_integer_written_raw_is_not_json",
        _QC.format(_qp("days", "three")),
        [],
        _QC.format(_qp("days", "three")),
    ),
    (
        "step3p5",
        "malformed_null_of_an_integer_is_not_json",
        _QC.format(_qp("city", "null") + _qp("days", "null")),
        [],
        _QC.format(_qp("city", "null") + _qp("days", "null")),
    ),
    (
        "step3p5",
        "malformed_unclosed_call_is_cut_short",
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo",
        [],
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo",
    ),
]

TOOLS = [_WEATHER]


def _calls(info: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls]


@pytest.mark.parametrize(
    ("fmt", "scenario", "text", "calls", "content"),
    VECTORS,
    ids=[f"{v[0]}-{v[1]}" for v in VECTORS],
)
def test_vllm_reading(
    fmt: str, scenario: str, text: str, calls: list[Any], content: str | None
) -> None:
    info = parse_tool_calls(text, fmt, TOOLS, compat="vllm")
    assert _calls(info) == calls
    assert info.content == (content if calls or content is not None else "")
    if "malformed" in scenario:
        assert info.problems  # a malformed call is content with a problem, never silent
    for chunks in (list(text), [text[i : i + 3] for i in range(0, len(text), 3)]):
        parser = get_parser(fmt, TOOLS, compat="vllm")
        recon = StreamingToolReconstructor()
        for chunk in chunks:
            recon.append_delta(parser.feed(chunk))
        recon.append_delta(parser.finish())
        final = recon.result()
        assert (_calls(final), final.content, final.problems) == (
            calls,
            info.content,
            info.problems,
        )


def test_the_two_modes_differ_where_documented() -> None:
    text = 'Sure. <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call> Done.'
    ours = parse_tool_calls(text, "hermes")
    theirs = parse_tool_calls(text, "hermes", compat="vllm")
    assert _calls(ours) == _calls(theirs) == [("f", {"a": 1})]
    assert ours.content == "Sure.  Done." and theirs.content == "Sure."


def test_unknown_compat_and_unread_format_say_what_to_do() -> None:
    with pytest.raises(ParserError, match="unknown compat 'sglang'"):
        parse_tool_calls("x", "hermes", compat="sglang")  # type: ignore[arg-type]
    with pytest.raises(ParserError, match="unknown compat"):
        get_parser("hermes", compat="VLLM")  # type: ignore[arg-type]
    unread = sorted(set(__import__("tooleval_nb").parsers.PARSER_FORMATS) - set(VLLM_FORMATS))
    assert unread == sorted(VLLM_UNREAD) == ["json", "openai"]
    for fmt in unread:  # each says why, names the formats read, and what to use instead
        for call in (parse_tool_calls, get_parser):
            with pytest.raises(ParserError) as raised:
                if call is parse_tool_calls:
                    parse_tool_calls("x", fmt, compat="vllm")
                else:
                    get_parser(fmt, compat="vllm")
            message = str(raised.value)
            assert VLLM_UNREAD[fmt] in message and "compat='default'" in message
            assert "hermes" in message and "qwen3_coder" in message
    with pytest.raises(ParserError, match="no tool-call parser of that name"):
        parse_tool_calls("x", "json", compat="vllm")


_VLLM_PATTERN = re.compile(
    r"\[([a-zA-Z]+\w*\(([a-zA-Z]+\w*=.*,\s*)*([a-zA-Z]+\w*=.*\s)?\),\s*)*"
    r"([a-zA-Z]+\w*\(([a-zA-Z]+\w*=.*,\s*)*([a-zA-Z]+\w*=.*\s*)?\)\s*)+\]",
    re.DOTALL,
)


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.sampled_from(["[", "]", "(", ")", ",", " ", "\n", "f", "g1", "a=", "1", "=", "'", "x"]),
        max_size=12,
    )
)
def test_the_one_pass_pattern_decides_as_vllms_regex(pieces: list[str]) -> None:
    text = "".join(pieces)
    for candidate in (text, "[" + text):
        assert looks_like_calls(candidate) == (_VLLM_PATTERN.match(candidate) is not None)


# ---------------------------------------------------------------------------- the run's raw-text mode
def test_the_raw_text_mode_reads_replies_in_the_models_compat() -> None:
    from tooleval_nb.errors import ModelConfigError
    from tooleval_nb.models import ModelSpec
    from tooleval_nb.models.wire import RawTextWire, wire_for
    from tooleval_nb.runner.plan import make_targets
    from tooleval_nb.runner.settings import RunSettings

    text = 'Sure. <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call> Done.'
    message = {"role": "assistant", "content": text}
    for compat, content in (("default", "Sure.  Done."), ("vllm", "Sure.")):
        spec = ModelSpec(model="openai/m", mode="hermes", parser_compat=compat)
        wire = wire_for(spec)
        assert wire is wire_for(spec)  # one wire per mode and compat
        reading = wire.read(message, [], {})
        assert [(c.function.name, c.function.arguments) for c in reading.calls] == [
            ("f", '{"a": 1}')
        ]
        assert reading.content == content
    assert "parser_compat" not in ModelSpec(model="openai/m").model_dump()  # stored as before
    targets = make_targets(["openai/m"], "hermes", "vllm")
    assert targets[0].spec.parser_compat == "vllm" and targets[0].spec.mode == "hermes"
    assert RunSettings(parser_compat="vllm").parser_compat == "vllm"
    with pytest.raises(ModelConfigError, match="parser_compat='default'"):
        RawTextWire("openai", "vllm")


# ---------------------------------------------------------------------------- the corpus
@pytest.mark.parametrize("fmt", sorted(__import__("tooleval_nb").parsers.PARSER_FORMATS))
def test_the_corpus_cases_of_vllms_shapes_pass_in_both_modes(fmt: str) -> None:
    """The corpus's ``vllm_*`` cases (malformed input, text after calls, nested and escaped
    arguments, several calls) pass in our reading and, with their ``vllm`` expectation where
    vLLM differs, in vLLM's; streamed or whole. Every format has them; the formats without a
    vLLM reading (``VLLM_UNREAD``) run in our reading only."""
    from tooleval_nb.parsers import check_parser, load_corpus

    corpus = load_corpus(fmt)
    cases = [c for c in corpus.cases if c.scenario_name.startswith("vllm_")]
    assert len(cases) >= 2
    if fmt in VLLM_UNREAD:
        assert all(c.vllm is None for c in cases)
    else:
        assert any(c.vllm is not None for c in cases) or fmt in ("gigachat3", "xlam")
    for compat in ("default",) if fmt in VLLM_UNREAD else ("default", "vllm"):
        frame = check_parser(fmt, cases, compat=compat)  # type: ignore[arg-type]
        failed = frame[~frame["passed"]]
        assert failed.empty, (compat, failed[["scenario", "mode", "reason"]].to_string())


# ---------------------------------------------------------------------------- linear-time finders
_FINDER_PIECES = [
    "<a>",
    "</a>",
    "<a",
    "a>",
    "x",
    "\n",
    " ",
    "```",
    "json",
    "<k>",
    "</k>",
    "<v>",
    "</v>",
]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_FINDER_PIECES), max_size=16))
def test_the_linear_finders_find_what_vllms_patterns_find(pieces: list[str]) -> None:
    """vLLM's lazy patterns rescan to the end from every opening tag that is never closed; the
    readings find the same matches in one pass."""
    from tooleval_nb.parsers.vllm import _listed, _reading, _xml

    text = "".join(pieces)
    assert _reading.blocks(text, "<a>", "</a>") == [
        (m.start(), m.end(), m.group(1)) for m in re.finditer(r"<a>(.*?)</a>", text, re.S)
    ]
    assert _listed._fences(text) == [
        (m.start(), m.end(), m.group(1)) for m in re.finditer(r"```(?:json)?\s*([\s\S]*?)```", text)
    ]
    keyed = text.replace("<k>", "<arg_key>").replace("</k>", "</arg_key>")
    keyed = keyed.replace("<v>", "<arg_value>").replace("</v>", "</arg_value>")
    assert _xml._glm_pairs(keyed) == re.findall(
        r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>", keyed, re.S
    )
    bracketed = text.replace("<a>", "[{").replace("</a>", "}]")
    span = re.search(r"\[{.*}\]", bracketed, re.S)
    expected = None
    if span is not None:
        try:
            expected = json.loads(span.group(0))
        except ValueError:
            expected = None
    assert _listed._pre_v11_span(bracketed) == expected


@pytest.mark.parametrize(
    ("fmt", "unit"),
    [
        ("xlam", "<tool_call>"),
        ("xlam", "```json "),
        ("glm45", "<tool_call>a\n<arg_key>k</arg_key> "),
        ("minimax_m2", "<minimax:tool_call><invoke name="),
        ("mistral", "[TOOL_CALLS] [{"),
        ("qwen3_coder", "<tool_call><function="),
        ("step3p5", "<tool_call><function="),
        ("step3p5", "<parameter=a\n"),
        ("seed_oss", "<seed:tool_call><function=a><parameter="),
        ("jamba", "<tool_calls>"),
        ("hunyuan_a13b", "<tool_calls><think>"),
        ("hunyuan_a13b", "<think>x</think><tool_calls>x</tool_calls>"),
        ("deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"),
        ("phi4_mini_json", "functools["),
        ("minimax", "<think><tool_calls>"),
    ],
)
def test_junk_of_unclosed_tags_reads_in_linear_time(fmt: str, unit: str) -> None:
    """20,000 unclosed tags (a few hundred KB): vLLM's own patterns take minutes on such junk
    (each opening tag rescans to the end); the readings take well under a second, so the bound
    here is loose enough for a loaded machine and still far below the quadratic time."""
    import time

    started = time.perf_counter()
    info = parse_tool_calls(unit * 20_000, fmt, compat="vllm")
    assert time.perf_counter() - started < 10
    assert not info.tool_calls or fmt in ("qwen3_coder", "seed_oss")


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.sampled_from(["<b>", "<s>", "<e>", "x", "\n", "functools[", "]", "["]), max_size=14)
)
def test_the_first_steps_finders_find_what_vllms_patterns_find(pieces: list[str]) -> None:
    from tooleval_nb.parsers.vllm import _json, _tokens

    text = "".join(pieces)
    v31 = text.replace("<b>", _tokens._V31_BEGIN).replace("<s>", _tokens._V31_SEP)
    v31 = v31.replace("<e>", _tokens._V31_END)
    pattern = re.compile(r"<｜tool▁call▁begin｜>(.*?)<｜tool▁sep｜>(.*?)<｜tool▁call▁end｜>")
    assert _tokens._v31_calls(v31) == pattern.findall(v31)
    assert _json._cut(text, "<b>", "<e>", keep=None) == re.sub(r"<b>.*?<e>", "", text, flags=re.S)
    found = re.search(r"functools\[(.*?)\]", text, re.S)
    reading = parse_tool_calls(text, "phi4_mini_json", compat="vllm")
    if found is None:
        assert reading.content == text and not reading.tool_calls
    else:
        try:
            json.loads("[" + found.group(1) + "]")
        except ValueError:  # the list vLLM cut does not decode: an empty message
            assert reading.content == "" and not reading.tool_calls


# ---------------------------------------------------------------------------- hunyuan's think check
def _held_by_a_think(text: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The check as first written: every think block tested for every block (quadratic)."""
    from tooleval_nb.parsers.vllm._reading import blocks

    thinks = [(a, b) for a, b, _ in blocks(text, "<think>", "</think>")]
    return [f for f in found if not any(f[0] > a and f[1] < b for a, b in thinks)]


def test_the_hunyuan_think_sweep_keeps_every_corpus_reading() -> None:
    """The one-pass think check keeps the blocks the all-pairs check kept, on every case of the
    hunyuan_a13b corpus (and the same cases with think blocks around and inside them)."""
    from tooleval_nb.parsers import load_corpus
    from tooleval_nb.parsers.vllm import _json
    from tooleval_nb.parsers.vllm._reading import blocks

    texts = [c.model_output for c in load_corpus("hunyuan_a13b").cases]
    texts += [f"<think>{t}</think>{t}<think>a</think>{t}" for t in texts]
    assert len(texts) > 20
    for text in texts:
        found = blocks(text, "<tool_calls>", "</tool_calls>")
        assert _json._outside_thinks(text, found) == _held_by_a_think(text, found), text


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["<think>", "</think>", "<tool_calls>", "</tool_calls>", "x", "[]", " "]),
        max_size=16,
    )
)
def test_the_hunyuan_think_sweep_keeps_what_the_pairwise_check_keeps(pieces: list[str]) -> None:
    from tooleval_nb.parsers.vllm import _json
    from tooleval_nb.parsers.vllm._reading import blocks

    text = "".join(pieces)
    found = blocks(text, "<tool_calls>", "</tool_calls>")
    assert _json._outside_thinks(text, found) == _held_by_a_think(text, found)
