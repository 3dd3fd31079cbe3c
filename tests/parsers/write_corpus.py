"""Write the conformance corpora of the open-model formats (``data/parsers/<format>.yaml``).

Each format's call shape is written here by hand from its documentation (docs/parsers.md),
independently of ``render_tool_calls``; the ten standard patterns are the same for every format,
plus malformed inputs and a few cases of the format's own. Run it once, read the YAML, then edit
the YAML by hand where a case needs care (the script overwrites only the formats it is given):

    .venv/bin/python tests/parsers/write_corpus.py qwen3_coder glm45 ...
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parents[2] / "data" / "parsers"
Call = tuple[str, dict[str, Any]]
Writer = Callable[[list[Call]], str]


# ---------------------------------------------------------------------------- value spellings
def _obj(name: str, args: dict[str, Any], key: str = "arguments") -> str:
    return json.dumps({"name": name, key: args}, ensure_ascii=False)


def _raw(value: Any) -> str:
    """A raw-text XML-ish value: strings as written, everything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _py(value: Any, json_literals: bool = False) -> str:
    if isinstance(value, bool):
        return ("true" if value else "false") if json_literals else repr(value)
    if value is None:
        return "null" if json_literals else "None"
    if isinstance(value, list):
        return "[" + ", ".join(_py(v, json_literals) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_py(v, json_literals)}" for k, v in value.items()) + "}"
    return repr(value)


def _pycall(name: str, args: dict[str, Any], json_literals: bool = False) -> str:
    return f"{name}(" + ", ".join(f"{k}={_py(v, json_literals)}" for k, v in args.items()) + ")"


# ---------------------------------------------------------------------------- call shapes
def _each(template: Callable[[str, dict[str, Any]], str], sep: str = "\n") -> Writer:
    return lambda calls: sep.join(template(n, a) for n, a in calls)


def _qwen(open_tag: str, close_tag: str, inline: bool = False) -> Writer:
    def one(name: str, args: dict[str, Any]) -> str:
        params = "".join(
            f"<parameter={k}>{_raw(v)}</parameter>\n"
            if inline
            else f"<parameter={k}>\n{_raw(v)}\n</parameter>\n"
            for k, v in args.items()
        )
        return f"{open_tag}\n<function={name}>\n{params}</function>\n{close_tag}"

    return _each(one)


def _glm(name: str, args: dict[str, Any]) -> str:
    pairs = "".join(
        f"<arg_key>{k}</arg_key>\n<arg_value>{_raw(v)}</arg_value>\n" for k, v in args.items()
    )
    return f"<tool_call>{name}\n{pairs}</tool_call>"


def _invokes(calls: list[Call], prefix: str = "") -> list[str]:
    return [
        f'<{prefix}invoke name="{n}">\n'
        + "".join(
            f'<{prefix}parameter name="{k}">{_raw(v)}</{prefix}parameter>\n' for k, v in a.items()
        )
        + f"</{prefix}invoke>"
        for n, a in calls
    ]


DS_B, DS_E = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CB, DS_SEP, DS_CE = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"

WRITERS: dict[str, Writer] = {
    "qwen3_coder": _qwen("<tool_call>", "</tool_call>"),
    "step3p5": _qwen("<tool_call>", "</tool_call>"),
    "seed_oss": _qwen("<seed:tool_call>", "</seed:tool_call>", inline=True),
    "glm45": _each(_glm),
    "minimax_m2": lambda calls: (
        "<minimax:tool_call>\n" + "\n".join(_invokes(calls)) + "\n</minimax:tool_call>"
    ),
    "deepseek_v3": lambda calls: (
        DS_B
        + "\n".join(
            f"{DS_CB}function{DS_SEP}{n}\n```json\n{json.dumps(a, ensure_ascii=False)}\n```{DS_CE}"
            for n, a in calls
        )
        + DS_E
    ),
    "deepseek_v31": lambda calls: (
        DS_B
        + "".join(f"{DS_CB}{n}{DS_SEP}{json.dumps(a, ensure_ascii=False)}{DS_CE}" for n, a in calls)
        + DS_E
    ),
    "kimi_k2": lambda calls: (
        "<|tool_calls_section_begin|>"
        + "".join(
            f"<|tool_call_begin|>functions.{n}:{k}<|tool_call_argument_begin|>"
            f"{json.dumps(a, ensure_ascii=False)}<|tool_call_end|>"
            for k, (n, a) in enumerate(calls)
        )
        + "<|tool_calls_section_end|>"
    ),
    "step3": lambda calls: (
        "<｜tool_calls_begin｜>"
        + "".join(
            f"<｜tool_call_begin｜>function<｜tool_sep｜>{inv}<｜tool_call_end｜>"
            for inv in _invokes(calls, "steptml:")
        )
        + "<｜tool_calls_end｜>"
    ),
    "granite": lambda calls: (
        "<|tool_call|>"
        + json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)
    ),
    "granite4": _each(lambda n, a: f"<tool_call>\n{_obj(n, a)}\n</tool_call>"),
    "granite-20b-fc": _each(lambda n, a: f"<function_call> {_obj(n, a)}"),
    "xlam": lambda calls: json.dumps(
        [{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False
    ),
    "phi4_mini_json": lambda calls: (
        "functools"
        + json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)
    ),
    "internlm": _each(
        lambda n, a: f"<|action_start|><|plugin|>\n{_obj(n, a, 'parameters')}<|action_end|>"
    ),
    "hunyuan_a13b": lambda calls: (
        "<tool_calls>"
        + json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)
        + "</tool_calls>"
    ),
    "minimax": lambda calls: (
        "<tool_calls>\n" + "\n".join(_obj(n, a) for n, a in calls) + "\n</tool_calls>"
    ),
    "jamba": lambda calls: (
        "<tool_calls>"
        + json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)
        + "</tool_calls>"
    ),
    "longcat": _each(lambda n, a: f"<longcat_tool_call>{_obj(n, a)}</longcat_tool_call>"),
    "ernie45": _each(lambda n, a: f"<tool_call>\n{_obj(n, a)}\n</tool_call>"),
    "gigachat3": _each(lambda n, a: f"function call<|role_sep|>\n{_obj(n, a)}"),
    "llama4_pythonic": lambda calls: (
        "<|python_start|>[" + ", ".join(_pycall(n, a) for n, a in calls) + "]<|python_end|>"
    ),
    "lfm2": lambda calls: (
        "<|tool_call_start|>[" + ", ".join(_pycall(n, a) for n, a in calls) + "]<|tool_call_end|>"
    ),
    "olmo3": lambda calls: (
        "<function_calls>\n"
        + "\n".join(_pycall(n, a, json_literals=True) for n, a in calls)
        + "\n</function_calls>"
    ),
}

#: malformed outputs (kept whole as content, with a problem), two or three per format
MALFORMED: dict[str, list[tuple[str, str]]] = {
    "qwen3_coder": [
        ("no_function_tag", "<tool_call>\nget_weather city=Tokyo\n</tool_call>"),
        (
            "function_tag_not_closed",
            "<tool_call>\n<function=get_weather\n<parameter=city>\nTokyo\n</parameter>"
            "\n</tool_call>",
        ),
    ],
    "glm45": [
        ("text_between_pairs", "<tool_call>get_weather\ncity Tokyo\n</tool_call>"),
        ("key_without_value", "<tool_call>get_weather\n<arg_key>city</arg_key>\n</tool_call>"),
    ],
    "minimax_m2": [
        ("no_invoke", "<minimax:tool_call>\nget_weather(Tokyo)\n</minimax:tool_call>"),
        (
            "parameter_without_name",
            '<minimax:tool_call>\n<invoke name="f">\n'
            "<parameter name=>x</parameter>\n</invoke>\n</minimax:tool_call>",
        ),
    ],
    "deepseek_v3": [
        (
            "invalid_json",
            f'{DS_B}{DS_CB}function{DS_SEP}get_weather\n```json\n{{"city": \n```{DS_CE}{DS_E}',
        ),
        ("no_separator", f"{DS_B}{DS_CB}get_weather{DS_CE}{DS_E}"),
    ],
    "deepseek_v31": [
        ("invalid_json", f'{DS_B}{DS_CB}get_weather{DS_SEP}{{"city": {DS_CE}{DS_E}'),
        ("arguments_not_object", f'{DS_B}{DS_CB}f{DS_SEP}["Tokyo"]{DS_CE}{DS_E}'),
    ],
    "kimi_k2": [
        (
            "invalid_json",
            "<|tool_calls_section_begin|><|tool_call_begin|>"
            'functions.get_weather:0<|tool_call_argument_begin|>{"city": '
            "<|tool_call_end|><|tool_calls_section_end|>",
        ),
        (
            "id_without_index",
            "<|tool_calls_section_begin|><|tool_call_begin|>get_weather"
            '<|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|>'
            "<|tool_calls_section_end|>",
        ),
    ],
    "step3": [
        (
            "type_not_function",
            "<｜tool_calls_begin｜><｜tool_call_begin｜>code<｜tool_sep｜>"
            '<steptml:invoke name="f"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
        ),
        (
            "no_invoke",
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>f(x)"
            "<｜tool_call_end｜><｜tool_calls_end｜>",
        ),
    ],
    "granite": [
        ("invalid_json", '<|tool_call|>[{"name": "get_weather", "arguments": {]'),
        ("not_a_list", "<|tool_call|> get_weather(city='Tokyo')"),
    ],
    "granite-20b-fc": [
        ("invalid_json", '<function_call> {"name": "get_weather", "arguments": {]}'),
        ("no_object", "<function_call> get_weather"),
    ],
    "xlam": [
        ("invalid_json", '[{"name": "get_weather", "arguments": {"city": ]'),
        ("fence_invalid", '```json\n[{"name": "get_weather", "arguments": {]\n```'),
    ],
    "phi4_mini_json": [
        ("invalid_json", 'functools[{"name": "get_weather", "arguments": {]'),
        ("not_a_list", "functools get_weather"),
    ],
    "internlm": [
        (
            "invalid_json",
            '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {<|action_end|>',
        ),
        ("not_a_call", '<|action_start|><|plugin|>\n{"city": "Tokyo"}<|action_end|>'),
    ],
    "gigachat3": [
        ("invalid_json", 'function call<|role_sep|>\n{"name": "get_weather", "arguments": {]}'),
        ("no_object", "function call<|role_sep|>\nget_weather"),
    ],
    "llama4_pythonic": [
        ("undefined_name", "[get_weather(city=undefined)]"),
        ("mismatched_brackets", "[get_weather(city='Tokyo']"),
    ],
    "lfm2": [
        ("undefined_name", "<|tool_call_start|>[get_weather(city=Tokyo)]<|tool_call_end|>"),
        ("not_python", "<|tool_call_start|>get_weather city=Tokyo<|tool_call_end|>"),
    ],
    "olmo3": [
        ("undefined_name", "<function_calls>\nget_weather(city=Tokyo)\n</function_calls>"),
        ("statement", "<function_calls>\nx = 1\n</function_calls>"),
    ],
}
for _fmt, _open, _close in (
    ("granite4", "<tool_call>", "</tool_call>"),
    ("ernie45", "<tool_call>", "</tool_call>"),
    ("longcat", "<longcat_tool_call>", "</longcat_tool_call>"),
    ("hunyuan_a13b", "<tool_calls>", "</tool_calls>"),
    ("minimax", "<tool_calls>", "</tool_calls>"),
    ("jamba", "<tool_calls>", "</tool_calls>"),
):
    MALFORMED[_fmt] = [
        ("invalid_json", f'{_open}{{"name": "get_weather", "arguments": {{{_close}'),
        ("not_a_call", f'{_open}{{"city": "Tokyo"}}{_close}'),
    ]
MALFORMED["step3p5"] = MALFORMED["qwen3_coder"]
MALFORMED["seed_oss"] = [
    (n, t.replace("<tool_call>", "<seed:tool_call>").replace("</tool_call>", "</seed:tool_call>"))
    for n, t in MALFORMED["qwen3_coder"]
]

DESCRIPTIONS = {
    "qwen3_coder": "Qwen3-Coder XML-ish calls: <tool_call><function=NAME><parameter=KEY>",
    "step3p5": "Step-3.5: the Qwen3-Coder layout",
    "seed_oss": "Seed-OSS: the Qwen3-Coder layout inside <seed:tool_call>",
    "glm45": "GLM-4.5: <tool_call>NAME <arg_key>/<arg_value> pairs",
    "minimax_m2": "MiniMax-M2: <minimax:tool_call><invoke name=...><parameter name=...>",
    "deepseek_v3": "DeepSeek-V3: special-token sections, name then a ```json fence",
    "deepseek_v31": "DeepSeek-V3.1: special-token sections, NAME<｜tool▁sep｜>JSON",
    "kimi_k2": "Kimi-K2: sections of functions.NAME:INDEX<|tool_call_argument_begin|>JSON",
    "step3": "Step-3: special-token sections holding <steptml:invoke> elements",
    "granite": "Granite 3.x: <|tool_call|> then a JSON list",
    "granite4": "Granite 4.0: <tool_call>JSON</tool_call>",
    "granite-20b-fc": "granite-20b-functioncalling: <function_call> JSON per call",
    "xlam": "xLAM: a JSON list of calls, bare or fenced",
    "phi4_mini_json": "Phi-4-mini: functools[JSON list]",
    "internlm": "InternLM 2.5: <|action_start|><|plugin|>JSON<|action_end|>",
    "hunyuan_a13b": "Hunyuan-A13B: <tool_calls>[JSON list]</tool_calls>",
    "minimax": "MiniMax-M1: <tool_calls> one JSON call per line </tool_calls>",
    "jamba": "Jamba 1.5: <tool_calls>[JSON list]</tool_calls>",
    "longcat": "LongCat-Flash: <longcat_tool_call>JSON</longcat_tool_call>",
    "ernie45": "ERNIE 4.5: <tool_call>JSON</tool_call>",
    "gigachat3": "GigaChat 3: function call<|role_sep|> then one JSON call",
    "llama4_pythonic": "Llama 4: <|python_start|>[pythonic calls]<|python_end|>",
    "lfm2": "LFM2: <|tool_call_start|>[pythonic calls]<|tool_call_end|>",
    "olmo3": "Olmo 3: <function_calls> one pythonic call per line </function_calls>",
}

WEATHER: Call = ("get_weather", {"city": "Tokyo"})
TIME: Call = ("get_time", {"timezone": "Asia/Tokyo"})
TYPES: Call = (
    "create_user",
    {
        "name": "John",
        "age": 30,
        "price": 19.99,
        "active": True,
        "role": None,
        "tags": ["a", "b"],
        "address": {"city": "Tokyo", "zip": "100-0001"},
        "items": [],
        "meta": {},
    },
)
ESCAPES: Call = (
    "write",
    {
        "text": 'He said "hello"',
        "path": "C:\\Users\\file.txt",
        "unicode": "emoji: 🎉 東京",
        "newline": "line1\nline2",
    },
)
NOARGS: Call = ("get_current_time", {})


def _extras(fmt: str) -> list[dict[str, Any]]:
    """Cases of the format's own: its optional tokens, alternative spellings, wrappers."""
    write = WRITERS[fmt]
    one = write([WEATHER])
    out: list[dict[str, Any]] = []
    if fmt == "seed_oss":
        out.append(
            _case(
                "think_then_call",
                6,
                f"<seed:think>Need the weather.</seed:think>{one}",
                [WEATHER],
                None,
                expected_reasoning="Need the weather.",
            )
        )
    if fmt in ("qwen3_coder", "step3p5"):
        cut = one[: one.rindex("</tool_call>")]
        out.append(
            _case(
                "unclosed_block",
                2,
                cut,
                [WEATHER],
                None,
                problem=True,
                notes="generation stopped before </tool_call>: read as far as valid",
            )
        )
        bare = one.replace("<tool_call>\n", "").replace("\n</tool_call>", "")
        out.append(
            _case(
                "bare_function_element",
                6,
                f"Checking.\n{bare}\nDone.",
                [WEATHER],
                "Checking.\n\nDone.",
                notes="no <tool_call> around the element",
            )
        )
        out.append(
            _case(
                "prose_mentioning_function_tag",
                1,
                "Write <function=name> to call.",
                [],
                "Write <function=name> to call.",
            )
        )
    if fmt == "glm45":
        out.append(
            _case(
                "glm47_no_newline",
                2,
                "<tool_call>get_weather<arg_key>city</arg_key>"
                "<arg_value>Tokyo</arg_value></tool_call>",
                [WEATHER],
                None,
            )
        )
    if fmt == "kimi_k2":
        out.append(
            _case(
                "singular_section_token",
                2,
                one.replace("_calls_section", "_call_section"),
                [WEATHER],
                None,
            )
        )
        dotted = (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.weather.get:0"
            '<|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|>'
            "<|tool_calls_section_end|>"
        )
        out.append(
            _case("dotted_name_kept_whole", 7, dotted, [("weather.get", {"city": "Tokyo"})], None)
        )
    if fmt == "llama4_pythonic":
        out.append(_case("no_wrapper", 2, "[get_weather(city='Tokyo')]", [WEATHER], None))
        bad = "[get_weather(city=undefined)]"
        out.append(
            _case(
                "malformed_wrapped",
                8,
                f"<|python_start|>{bad}<|python_end|>",
                [],
                bad,
                problem=True,
                notes="the wrapper tokens never reach the content",
            )
        )
    if fmt == "xlam":
        out.append(
            _case(
                "fenced_list",
                6,
                f"Here you go:\n```json\n{one}\n```\nDone.",
                [WEATHER],
                "Here you go:\n\nDone.",
            )
        )
        out.append(_case("tool_calls_token", 2, f"[TOOL_CALLS]{one}", [WEATHER], None))
        out.append(_case("tool_call_tags", 2, f"<tool_call>{one}</tool_call>", [WEATHER], None))
        out.append(
            _case(
                "list_that_is_not_a_call", 1, "Pick one of [1, 2, 3].", [], "Pick one of [1, 2, 3]."
            )
        )
    if fmt == "granite":
        out.append(
            _case("granite31_tag", 2, one.replace("<|tool_call|>", "<tool_call>"), [WEATHER], None)
        )
    if fmt == "gigachat3":
        out.append(
            _case(
                "message_separator_dropped",
                6,
                f"Let me check.<|message_sep|>\n\n{one}",
                [WEATHER],
                "Let me check.",
            )
        )
        out.append(
            _case(
                "function_call_token",
                2,
                one.replace("function call<|role_sep|>\n", "<|function_call|>"),
                [WEATHER],
                None,
            )
        )
    if fmt == "ernie45":
        out.append(
            _case("response_wrapper_dropped", 1, "<response>Hello!</response>", [], "Hello!")
        )
    return out


def _expected(calls: list[Call]) -> list[dict[str, Any]]:
    return [{"name": n, "arguments": a} for n, a in calls]


def _case(
    name: str,
    pattern: int,
    text: str,
    calls: list[Call],
    content: str | None,
    problem: bool = False,
    chunks: list[str] | None = None,
    notes: str = "",
    **extra: Any,
) -> dict[str, Any]:
    case: dict[str, Any] = {
        "scenario_name": name,
        "pattern": pattern,
        "model_output": text,
        "expected_tools_called": bool(calls),
        "expected_tool_calls": _expected(calls),
        "expected_content": content,
        "expect_problem": problem,
    }
    if chunks:
        assert "".join(chunks) == text
        case["chunks"] = chunks
    if notes:
        case["notes"] = notes
    case.update(extra)
    return case


def _split(text: str, marks: list[str]) -> list[str]:
    points = sorted({text.find(m) + max(1, len(m) // 2) for m in marks if m in text})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def _before(text: str, mark: str) -> str:
    """The four characters before ``mark``: a split there falls between two calls."""
    at = text.find(mark)
    return text[max(0, at - 4) : at]


def cases(fmt: str) -> list[dict[str, Any]]:
    write = WRITERS[fmt]
    one, two = write([WEATHER]), write([WEATHER, TIME])
    out = [
        _case(
            "no_tool_calls_plain", 1, "Hello, how can I help you?", [], "Hello, how can I help you?"
        ),
        _case("empty_output", 1, "", [], ""),
        _case("whitespace_only", 1, "   \n  ", [], "   \n  "),
        _case("single_tool_call", 2, one, [WEATHER], None),
        _case("parallel_calls", 3, two, [WEATHER, TIME], None),
        _case("all_json_types", 4, write([TYPES]), [TYPES], None),
        _case("parameterless_call", 5, write([NOARGS]), [NOARGS], None),
        _case(
            "surrounding_text",
            6,
            f"Let me check the weather.\n{one}\nAnything else?",
            [WEATHER],
            "Let me check the weather.\n\nAnything else?",
            notes="text before and after the call is content (vLLM drops the text after)",
        ),
        _case("escapes_and_unicode", 7, write([ESCAPES]), [ESCAPES], None),
        _case(
            "streaming_reconstruction",
            9,
            one,
            [WEATHER],
            None,
            chunks=[one[i : i + 7] for i in range(0, len(one), 7)],
        ),
        _case(
            "streaming_splits_mid_name_key_value_between_calls",
            10,
            two,
            [WEATHER, TIME],
            None,
            chunks=_split(two, ["get_weather", "city", "Tokyo", _before(two, "get_time")]),
        ),
    ]
    for name, text in MALFORMED[fmt]:
        out.append(_case(f"malformed_{name}", 8, text, [], text, problem=True))
    return out + _extras(fmt)


def main(formats: list[str]) -> None:
    for fmt in formats or list(WRITERS):
        data = {
            "format": fmt,
            "description": f"{DESCRIPTIONS[fmt]}. Written for tooleval_nb from the format's "
            "documentation (docs/parsers.md) with tests/parsers/write_corpus.py.",
            "cases": cases(fmt),
        }
        path = OUT / f"{fmt}.yaml"
        path.write_text(
            yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100), encoding="utf-8"
        )
        print(f"wrote {path} ({len(data['cases'])} cases)")


if __name__ == "__main__":
    main(sys.argv[1:])
