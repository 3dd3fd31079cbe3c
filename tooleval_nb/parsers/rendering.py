"""Write tool calls the way each format's model writes them (what the format's parser reads).

``parse_tool_calls(render_tool_calls(calls, f), f, tools)`` gives the calls back. The XML-ish
formats write values as raw text, so a string that reads as JSON (``"30"``, ``"true"``) comes
back as a string only when the tools' schemas say the parameter is a string.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..toolcall import ToolCall, to_tool_calls
from .registry import parser_class

__all__ = ["render_tool_calls", "RENDERERS"]

Pair = tuple[str, dict[str, Any]]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _obj(name: str, args: dict[str, Any], key: str = "arguments") -> str:
    return _json({"name": name, key: args})


def _list(pairs: list[Pair]) -> str:
    return _json([{"name": n, "arguments": a} for n, a in pairs])


def _raw(value: Any) -> str:
    return value if isinstance(value, str) else _json(value)


def _python(pairs: list[Pair]) -> str:
    return (
        "["
        + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in pairs)
        + "]"
    )


def _each(
    template: Callable[[str, dict[str, Any]], str], sep: str = "\n"
) -> Callable[[list[Pair]], str]:
    return lambda pairs: sep.join(template(n, a) for n, a in pairs)


def _qwen(open_tag: str, close_tag: str) -> Callable[[list[Pair]], str]:
    def one(name: str, args: dict[str, Any]) -> str:
        params = "".join(f"<parameter={k}>\n{_raw(v)}\n</parameter>\n" for k, v in args.items())
        return f"{open_tag}\n<function={name}>\n{params}</function>\n{close_tag}"

    return _each(one)


def _glm(name: str, args: dict[str, Any]) -> str:
    pairs = "".join(
        f"<arg_key>{k}</arg_key><arg_value>{_raw(v)}</arg_value>" for k, v in args.items()
    )
    return f"<tool_call>{name}\n{pairs}</tool_call>"


def _invoke(name: str, args: dict[str, Any], prefix: str = "") -> str:
    params = "".join(
        f'<{prefix}parameter name="{k}">{_raw(v)}</{prefix}parameter>' for k, v in args.items()
    )
    return f'<{prefix}invoke name="{name}">{params}</{prefix}invoke>'


def _harmony(pairs: list[Pair]) -> str:
    return "".join(
        f"{'' if k == 0 else '<|start|>assistant'}<|channel|>commentary to=functions.{n} "
        f"<|constrain|>json<|message|>{_json(a)}<|call|>"
        for k, (n, a) in enumerate(pairs)
    )


_DS = (
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
)

#: format -> writer of (name, arguments) pairs
RENDERERS: dict[str, Callable[[list[Pair]], str]] = {
    "hermes": _each(lambda n, a: f"<tool_call>\n{_obj(n, a)}\n</tool_call>"),
    "pythonic": _python,
    "llama3_json": _each(lambda n, a: _obj(n, a, "parameters"), "; "),
    "mistral": lambda pairs: "[TOOL_CALLS]" + _list(pairs),
    "json": lambda pairs: _obj(*pairs[0]) if len(pairs) == 1 else _list(pairs),
    "openai": _harmony,
    "qwen3_coder": _qwen("<tool_call>", "</tool_call>"),
    "step3p5": _qwen("<tool_call>", "</tool_call>"),
    "seed_oss": _qwen("<seed:tool_call>", "</seed:tool_call>"),
    "glm45": _each(_glm),
    "minimax_m2": lambda pairs: (
        "<minimax:tool_call>\n"
        + "\n".join(_invoke(n, a) for n, a in pairs)
        + "\n</minimax:tool_call>"
    ),
    "deepseek_v3": lambda pairs: (
        _DS[0]
        + "\n".join(
            f"{_DS[1]}function{_DS[2]}{n}\n```json\n{_json(a)}\n```{_DS[3]}" for n, a in pairs
        )
        + _DS[4]
    ),
    "deepseek_v31": lambda pairs: (
        _DS[0] + "".join(f"{_DS[1]}{n}{_DS[2]}{_json(a)}{_DS[3]}" for n, a in pairs) + _DS[4]
    ),
    "kimi_k2": lambda pairs: (
        "<|tool_calls_section_begin|>"
        + "".join(
            f"<|tool_call_begin|>functions.{n}:{k}<|tool_call_argument_begin|>{_json(a)}"
            "<|tool_call_end|>"
            for k, (n, a) in enumerate(pairs)
        )
        + "<|tool_calls_section_end|>"
    ),
    "step3": lambda pairs: (
        "<｜tool_calls_begin｜>"
        + "".join(
            f"<｜tool_call_begin｜>function<｜tool_sep｜>{_invoke(n, a, 'steptml:')}<｜tool_call_end｜>"
            for n, a in pairs
        )
        + "<｜tool_calls_end｜>"
    ),
    "granite": lambda pairs: "<|tool_call|>" + _list(pairs),
    "granite4": _each(lambda n, a: f"<tool_call>\n{_obj(n, a)}\n</tool_call>"),
    "granite-20b-fc": _each(lambda n, a: f"<function_call> {_obj(n, a)}"),
    "xlam": _list,
    "phi4_mini_json": lambda pairs: "functools" + _list(pairs),
    "internlm": _each(
        lambda n, a: f"<|action_start|><|plugin|>\n{_obj(n, a, 'parameters')}<|action_end|>"
    ),
    "hunyuan_a13b": lambda pairs: f"<tool_calls>{_list(pairs)}</tool_calls>",
    "minimax": lambda pairs: (
        "<tool_calls>\n" + "\n".join(_obj(n, a) for n, a in pairs) + "\n</tool_calls>"
    ),
    "jamba": lambda pairs: f"<tool_calls>{_list(pairs)}</tool_calls>",
    "longcat": _each(lambda n, a: f"<longcat_tool_call>{_obj(n, a)}</longcat_tool_call>"),
    "ernie45": _each(lambda n, a: f"<tool_call>\n{_obj(n, a)}\n</tool_call>"),
    "gigachat3": _each(lambda n, a: f"function call<|role_sep|>\n{_obj(n, a)}"),
    "llama4_pythonic": lambda pairs: f"<|python_start|>{_python(pairs)}<|python_end|>",
    "lfm2": lambda pairs: f"<|tool_call_start|>{_python(pairs)}<|tool_call_end|>",
    "olmo3": lambda pairs: (
        "<function_calls>\n" + "\n".join(_python([p])[1:-1] for p in pairs) + "\n</function_calls>"
    ),
}


def render_tool_calls(calls: Any, format: str) -> str:
    """Write calls as the model would in ``format`` (what the format's parser reads back)."""
    fmt = parser_class(format).format
    items: list[ToolCall] = to_tool_calls(calls)
    pairs = [(c.function.name, c.parsed_arguments() or {}) for c in items]
    return RENDERERS[fmt](pairs)
