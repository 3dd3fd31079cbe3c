"""Describe tools in a system prompt for raw-text mode, in every format.

In raw-text mode the server applies no tool template and no grammar: the tools are described in
the system prompt, one example exchange shows the format, and the reply is parsed by the
format's parser. ``render_tool_calls`` (:mod:`.rendering`) writes calls the way each format's
parser reads them.

Prompt conventions: hermes, pythonic (Llama 3.2), llama3_json, mistral and harmony follow their
model cards; the Qwen3-Coder family (``qwen3_coder``, ``step3p5``, ``seed_oss``) lists the tools
as XML as its chat template does; every other format lists the tools as JSON and shows one call
written in the format (its chat template's own wording varies by model and is not needed for
the model to see the shape).

    >>> messages = with_tools_prompt([{"role": "user", "content": "Weather in Oslo?"}], tools,
    ...                              "hermes")                              # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import ParserError
from ..toolcall import ToolCall
from .registry import parser_class
from .rendering import render_tool_calls

__all__ = [
    "render_tools_prompt",
    "render_tool_calls",
    "example_exchange",
    "with_tools_prompt",
    "EXAMPLE_TOOL",
]

#: the tool used by the example exchange when no tools are given
EXAMPLE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Get the current time in a time zone.",
        "parameters": {
            "type": "object",
            "properties": {
                "timezone": {"type": "string", "description": "IANA time zone, e.g. Europe/Paris"}
            },
            "required": ["timezone"],
        },
    },
}


def _functions(tools: Iterable[Any] | None) -> list[dict[str, Any]]:
    """OpenAI ``function`` dicts from Tool objects or dicts."""
    out = []
    for tool in tools or []:
        if hasattr(tool, "model_dump"):
            tool = tool.model_dump(mode="json", exclude_none=True)
        if not isinstance(tool, dict):
            raise ParserError(
                f"a tool must be a Tool or an OpenAI tool dict, got {type(tool).__name__}"
            )
        fn = tool.get("function", tool)
        out.append(
            {
                "name": fn["name"],
                "description": fn.get("description", ""),
                "parameters": fn.get("parameters") or {"type": "object", "properties": {}},
            }
        )
    return out


def _ts_type(schema: Any, indent: str = "") -> str:
    """A TypeScript-like type for harmony's ``namespace functions`` block."""
    if not isinstance(schema, dict):
        return "any"
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"]) or "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_ts_type({**schema, "type": k}, indent) for k in kind)
    if kind == "string":
        return "string"
    if kind in ("number", "integer"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        return f"{_ts_type(schema.get('items', {}), indent)}[]"
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        if not props:
            return "object"
        required = set(schema.get("required") or [])
        lines = ["{"]
        for name, sub in props.items():
            if isinstance(sub, dict) and sub.get("description"):
                lines.append(f"{indent}// {sub['description']}")
            mark = "" if name in required else "?"
            lines.append(f"{indent}{name}{mark}: {_ts_type(sub, indent)},")
        lines.append(f"{indent}}}")
        return "\n".join(lines)
    return "any"


def render_tools_prompt(tools: Iterable[Any] | None, format: str) -> str:
    """The system prompt text that describes ``tools`` and how to call them in ``format``."""
    fmt = parser_class(format).format
    fns = _functions(tools)
    listing = "\n".join(
        json.dumps({"type": "function", "function": f}, ensure_ascii=False) for f in fns
    )
    if fmt == "hermes":
        return (
            "You are a function calling AI model. You are given function signatures within "
            "<tools></tools> XML tags. You may call one or more functions to answer the user. "
            "Do not make up values for the arguments.\n"
            f"<tools>\n{listing}\n</tools>\n"
            "For each function call, return a JSON object with the function name and "
            "arguments within <tool_call></tool_call> XML tags:\n"
            '<tool_call>\n{"name": <function-name>, "arguments": <args-dict>}\n</tool_call>'
        )
    if fmt == "pythonic":
        return (
            "You are an expert in composing functions. You are given a question and a set of "
            "possible functions. Based on the question, make one or more function calls.\n"
            "If you decide to call functions, you MUST write them in the format "
            "[func_name1(param1=value1, param2=value2), func_name2(param=value)] "
            "and write no other text.\n"
            f"Here is the list of functions in JSON format:\n{listing}"
        )
    if fmt == "llama3_json":
        return (
            "Given the following functions, respond with a JSON object for a function call "
            "with its proper arguments that best answers the question. Respond in the format "
            '{"name": function name, "parameters": dictionary of argument name and value}. '
            "Do not use variables. Separate several calls with ';'.\n"
            f"{listing}"
        )
    if fmt == "mistral":
        return (
            f"[AVAILABLE_TOOLS]{json.dumps([{'type': 'function', 'function': f} for f in fns])}"
            "[/AVAILABLE_TOOLS]\nTo call tools, write [TOOL_CALLS] followed by a JSON list of "
            'calls: [TOOL_CALLS][{"name": "function name", "arguments": {...}}]'
        )
    if fmt == "json":
        return (
            "You can call these functions:\n"
            f"{listing}\n"
            "To call a function, reply with only a JSON object "
            '{"name": "function name", "arguments": {...}}, or a JSON list of them.'
        )
    if fmt == "openai":
        return _harmony_prompt(fns)
    example = render_tool_calls(
        [
            ToolCall.create(
                fns[0]["name"] if fns else "function_name", _sample_args(fns[0]) if fns else {}
            )
        ],
        fmt,
    )
    if fmt in _QWEN_STYLE:
        return _qwen_prompt(fns, example)
    return (
        "You can call the following functions, listed in JSON:\n"
        f"{listing}\n"
        "To call one or more functions, write the calls exactly in this form (with your own "
        f"values), one entry per call:\n{example}"
    )


_QWEN_STYLE = frozenset({"qwen3_coder", "step3p5", "seed_oss"})


def _harmony_prompt(fns: list[dict[str, Any]]) -> str:
    """Harmony's developer message: a TypeScript-like ``namespace functions``."""
    blocks = []
    for f in fns:
        params = f["parameters"]
        comment = f"// {f['description']}\n" if f["description"] else ""
        if params.get("properties"):
            blocks.append(f"{comment}type {f['name']} = (_: {_ts_type(params)}) => any;")
        else:
            blocks.append(f"{comment}type {f['name']} = () => any;")
    body = "\n\n".join(blocks)
    return (
        "# Valid channels: analysis, commentary, final. Channel must be included for every "
        "message.\nCalls to these tools must go to the commentary channel: 'functions'.\n\n"
        f"# Tools\n\n## functions\n\nnamespace functions {{\n\n{body}\n\n}} // namespace functions"
    )


def _qwen_prompt(fns: list[dict[str, Any]], example: str) -> str:
    """The Qwen3-Coder convention: tools as XML, calls as ``<function=...>`` elements."""
    parts = ["# Tools\n\nYou have access to the following functions:\n\n<tools>"]
    for f in fns:
        parts.append(f"<function>\n<name>{f['name']}</name>")
        if f["description"]:
            parts.append(f"<description>{f['description']}</description>")
        parts.append("<parameters>")
        props = f["parameters"].get("properties") or {}
        for name, sub in props.items():
            sub = sub if isinstance(sub, dict) else {}
            kind = sub.get("type", "string")
            parts.append(f"<parameter>\n<name>{name}</name>\n<type>{kind}</type>")
            if sub.get("description"):
                parts.append(f"<description>{sub['description']}</description>")
            parts.append("</parameter>")
        parts.append("</parameters>\n</function>")
    parts.append(
        "</tools>\n\nIf you choose to call a function, reply ONLY in the following "
        f"format, with nothing after it:\n\n{example}\n\n<IMPORTANT>\nReminder:\n"
        "- Function calls MUST follow the specified format\n"
        "- Required parameters MUST be specified\n"
        "- You may explain your call in natural language BEFORE it, not after\n"
        "- If no function fits, answer normally\n</IMPORTANT>"
    )
    return "\n".join(parts)


def _sample(schema: Any, name: str) -> Any:
    """A plausible value for a parameter schema (for the example exchange)."""
    if not isinstance(schema, dict):
        return "example"
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    if kind == "array":
        return [_sample(schema.get("items", {}), name)]
    if kind == "object":
        return {k: _sample(v, k) for k, v in (schema.get("properties") or {}).items()}
    return f"example {name.replace('_', ' ')}"


def _sample_args(fn: dict[str, Any]) -> dict[str, Any]:
    props = fn["parameters"].get("properties") or {}
    required = fn["parameters"].get("required") or list(props)
    return {k: _sample(props[k], k) for k in required if k in props}


def example_exchange(format: str, tools: Sequence[Any] | None = None) -> list[dict[str, Any]]:
    """One user / assistant exchange that shows a call written in ``format``.

    Uses the first of ``tools`` (with example values drawn from its schema) or, without tools,
    :data:`EXAMPLE_TOOL`.
    """
    fns = _functions(tools) or _functions([EXAMPLE_TOOL])
    fn = fns[0]
    if fn["name"] == EXAMPLE_TOOL["function"]["name"] and not tools:
        user, args = "What time is it in Paris?", {"timezone": "Europe/Paris"}
    else:
        args = _sample_args(fn)
        user = f"Example request that needs {fn['name']}."
    call = ToolCall.create(fn["name"], args)
    return [
        {"role": "user", "content": user},
        {"role": "assistant", "content": render_tool_calls([call], format)},
    ]


def _history_message(message: dict[str, Any], format: str) -> dict[str, Any]:
    """Assistant tool calls and tool results rewritten as plain text for raw-text mode."""
    role = message.get("role")
    if role == "assistant" and message.get("tool_calls"):
        text = render_tool_calls(message["tool_calls"], format)
        content = message.get("content") or ""
        return {"role": "assistant", "content": f"{content}\n{text}".strip()}
    if role == "tool":
        result = message.get("content") or ""
        if not isinstance(result, str):
            result = json.dumps(result, ensure_ascii=False)
        name = message.get("name") or ""
        if parser_class(format).format == "hermes":
            payload = json.dumps({"name": name, "content": result}, ensure_ascii=False)
            return {"role": "user", "content": f"<tool_response>\n{payload}\n</tool_response>"}
        return {"role": "user", "content": f"Result of {name or 'the tool'}: {result}"}
    return message


def with_tools_prompt(
    messages: Sequence[dict[str, Any]],
    tools: Sequence[Any] | None,
    format: str,
    *,
    example: bool = True,
) -> list[dict[str, Any]]:
    """Messages for raw-text mode: the tools prompt as the system message (any system text of
    ``messages`` appended to it), one example exchange, then the conversation with tool calls
    and tool results written as text."""
    system = render_tools_prompt(tools, format)
    rest = []
    for message in messages:
        if message.get("role") == "system":
            extra = message.get("content") or ""
            system = f"{system}\n\n{extra}" if extra else system
        else:
            rest.append(_history_message(dict(message), format))
    out: list[dict[str, Any]] = [{"role": "system", "content": system}]
    if example:
        out.extend(example_exchange(format, tools))
    out.extend(rest)
    return out
