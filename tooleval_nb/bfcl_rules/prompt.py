"""What BFCL shows a model, rebuilt from its data: function docs, native tools, system prompt.

BFCL's generation step (``bfcl_eval``'s model handlers) prepares every single-turn entry the
same way, and this module does the same, so that a model sees here what it sees there:

* **language hints** (:func:`bfcl_functions`): each function description gains
  " Note that the provided function is in Python 3 syntax." (Java 8 SDK / JavaScript for the
  Java and JavaScript categories); Java and JavaScript parameters are described as source text
  in string representation and presented as ``string``.
* **native tools** (:func:`bfcl_tools`, ``mode="fc"``): the OpenAI chat-completions shape, types
  mapped with BFCL's gorilla -> OpenAPI table, floats marked ``format: float`` with a note in
  their description. Dots in names become ``_`` (OpenAI-style APIs forbid them); the call's
  name is mapped back when scored (``underscore_to_dot``).
* **the prompting system prompt** (:func:`system_prompt`, ``mode="prompt"``): BFCL's default
  ("classic" style, plain text, functions as indented JSON), asking for
  ``[func(a=1), g(b=2)]`` (``prompt_format="python"``) or BFCL's JSON list
  (``prompt_format="json"``). It goes first, or before the entry's own system message.

Pure functions on plain dicts; nothing is read or sent here.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Literal, NamedTuple

from ..suite import FunctionDef, Tool
from .categories import is_format_sensitivity, language_of

__all__ = [
    "PromptFormat",
    "PROMPT_FORMATS",
    "bfcl_functions",
    "bfcl_tools",
    "openai_tool",
    "system_prompt",
    "prompt_messages",
    "fc_messages",
    "GORILLA_TO_OPENAPI",
    "AGENTIC_RESPONSE_FORMAT",
    "FORMAT_SENSITIVITY_CONFIGS",
    "DEFAULT_PROMPT_CONFIG",
    "PromptConfig",
    "parse_prompt_config",
    "prompt_config_of",
    "config_system_prompt",
    "function_doc",
]

PromptFormat = Literal["python", "json"]
PROMPT_FORMATS: tuple[str, ...] = ("python", "json")

#: BFCL's type table for native tools (``constants/type_mappings.py``)
GORILLA_TO_OPENAPI: dict[str, str] = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "string": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "dict": "object",
    "object": "object",
    "tuple": "array",
    "any": "string",
    "byte": "integer",
    "short": "integer",
    "long": "integer",
    "double": "number",
    "char": "string",
    "ArrayList": "array",
    "Array": "array",
    "HashMap": "object",
    "Hashtable": "object",
    "Queue": "array",
    "Stack": "array",
    "Any": "string",
    "String": "string",
    "Bigint": "integer",
}

_HINT = {
    "Python": " Note that the provided function is in Python 3 syntax.",
    "Java": " Note that the provided function is in Java 8 SDK syntax.",
    "JavaScript": " Note that the provided function is in JavaScript syntax.",
}

# BFCL's system prompt templates (``constants/default_prompts.py``): what a prompting model is told,
# by style; the default is "classic" in plain text with the functions as indented JSON
_STYLES: dict[str, dict[str, str]] = {
    "classic": {
        "persona": "You are an expert in composing functions.",
        "task": "You are given a question and a set of possible functions. Based on the "
        "question, you will need to make one or more function/tool calls to achieve the "
        "purpose. If none of the functions can be used, point it out. If the given "
        "question lacks the parameters required by the function, also point it out.",
        "tool_call_no_tag": "You should only return the function calls in your response.\n\nIf "
        "you decide to invoke any of the function(s), you MUST put it in the "
        "format of {output_format}. {param_types} You SHOULD NOT include any "
        "other text in the response.",
        "tool_call_with_tag": "You should only return the function calls in the <TOOLCALL> "
        "section. If you decide to invoke any of the function(s), you MUST "
        "put it in the format of <TOOLCALL>{output_format}</TOOLCALL>. "
        "{param_types} You SHOULD NOT include any other text in the "
        "response.",
        "multiturn_behavior": "At each turn, you should try your best to complete the tasks "
        "requested by the user within the current turn. Continue to output "
        "functions to call until you have fulfilled the user's request to "
        "the best of your ability. Once you have no more functions to "
        "call, the system will consider the current turn complete and "
        "proceed to the next turn or task.",
        "available_tools": "Here is a list of functions in {format} format that you can "
        "invoke.\n{functions}\n",
    },
    "experimental": {
        "persona": "You are an expert in generating structured function calls.",
        "task": "You are given a user query and a set of available functions. Your task is to "
        "produce one or more function/tool calls to fulfill the user's request. If no "
        "suitable function exists, or required parameters are missing, clearly indicate "
        "this.",
        "tool_call_no_tag": "Respond with only the function calls.\n\nYou MUST format it "
        "exactly as {output_format}. {param_types} Do NOT include any other "
        "text.",
        "tool_call_with_tag": "Return only the function calls enclosed in <TOOLCALL> tags.\n\n"
        "You MUST format it exactly as <TOOLCALL>{output_format}</TOOLCALL>. "
        "{param_types} Do NOT include any other text.",
        "multiturn_behavior": "At every turn, aim to complete the user's tasks within that "
        "turn. Continue emitting function calls until the request is "
        "satisfied to the best of your ability. Once no more calls are "
        "needed, the system will proceed to the next turn.",
        "available_tools": "Below is a list of callable functions in the {format} style:\n"
        "{functions}\n",
    },
}
_TEMPLATES = {
    "plaintext": "{persona}{task}\n\n{tool_call_format}\n\n{multiturn_behavior}\n\n"
    "{available_tools}",
    "markdown": "{persona}\n\n## Task\n{task}\n\n## Tool Call Format\n{tool_call_format}\n\n"
    "## Multi-turn Behavior\n{multiturn_behavior}\n\n## Available Tools\n"
    "{available_tools}",
}
_XML_TYPES = (
    "The type fields of the parameters in your function calls must be one of: string, "
    "integer, float, boolean, array, dict, or tuple."
)
_OUTPUT_FORMATS = {
    "python": (
        "[func_name1(params_name1=params_value1, params_name2=params_value2...), "
        "func_name2(params)]",
        "",
    ),
    "json": (
        '```json\n[{"function":"func_name1","parameters":{"param1":"value1",'
        '"param2":"value2"...}},{"function":"func_name2","parameters":{"param":"value"}}]'
        "\n```",
        "",
    ),
    "verbose_xml": (
        '<functions><function name="func_name1"><params><param name="param1" '
        'value="value1" type="type1"/><param name="param2" value="value2" '
        'type="type2"/>...</params></function><function name="func_name2"><params>'
        '<param name="param3" value="value3" type="type3"/></params></function>'
        "</functions>",
        _XML_TYPES,
    ),
    "concise_xml": (
        '<functions><function name="func_name1"><param name="param1" type="type1">'
        'value1</param><param name="param2" type="type2">value2</param>...</function>'
        '<function name="func_name2"><param name="param3" type="type3">value</param>'
        "</function></functions>",
        _XML_TYPES,
    ),
}
_CONFIG = re.compile(
    r"^ret_fmt=(?P<return_format>python|json|verbose_xml|concise_xml)"
    r"&tool_call_tag=(?P<tool_call_tag>True|False)&func_doc_fmt=(?P<doc_format>python|xml|json)"
    r"&prompt_fmt=(?P<prompt_format>plaintext|markdown)&style=(?P<style>classic|experimental)$"
)


#: the system message BFCL puts first in every agentic (memory, web search) entry's first turn
#: (``ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT``; a prerequisite conversation has none)
AGENTIC_RESPONSE_FORMAT = (
    "For your final answer to the user, you must respond in this format: {'answer': A short and "
    "precise answer to the question, 'context': A brief explanation of how you arrived at this "
    "answer or why it is correct}. If you do not know the answer, respond with {'answer': 'I do "
    "not know', 'context': 'I do not know'}. If you think the question cannot be properly "
    "answered, response with {'answer': 'I cannot answer this question', 'context': A short "
    "reason explaining why this question cannot be answered}.\n"
)

#: BFCL's default prompt configuration (every entry but format sensitivity's)
DEFAULT_PROMPT_CONFIG = (
    "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic"
)


def _format_sensitivity_configs() -> tuple[str, ...]:
    """BFCL's 26 prompt configurations of format sensitivity, in its order
    (``get_all_format_sensitivity_configs``): 4 return formats x tag or not x 3 function-doc
    formats in plain text and the classic style, then markdown, then the experimental style."""
    configs = [
        f"ret_fmt={ret}&tool_call_tag={tag}&func_doc_fmt={doc}&prompt_fmt=plaintext&style=classic"
        for ret in ("python", "json", "verbose_xml", "concise_xml")
        for tag in ("True", "False")
        for doc in ("python", "xml", "json")
    ]
    configs.append(
        "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=markdown&style=classic"
    )
    configs.append(
        "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext"
        "&style=experimental"
    )
    return tuple(configs)


FORMAT_SENSITIVITY_CONFIGS: tuple[str, ...] = _format_sensitivity_configs()


def _copy(value: Any) -> Any:
    """A deep copy of decoded JSON (dicts, lists and scalars): ``copy.deepcopy`` without its
    memo and dispatch, about four times faster on BFCL's function lists."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    return value if type(value) in _SCALARS else copy.deepcopy(value)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _describe(value: dict[str, Any], note: str) -> None:
    value["description"] = str(value.get("description", "")) + note


def bfcl_functions(functions: list[dict[str, Any]], category: str) -> list[dict[str, Any]]:
    """A copy of an entry's functions with BFCL's language hints (the input is not changed)."""
    out = _copy(functions)
    language = language_of(category)
    for fn in out:
        _describe(fn, _HINT[language])
        if language == "Python":
            continue
        props = (fn.get("parameters") or {}).get("properties") or {}
        for value in props.values():
            kind = value.get("type")
            if kind == "any":
                _describe(
                    value,
                    f" This parameter can be of any type of {language} object in "
                    "string representation.",
                )
            else:
                _describe(
                    value, f" This is {language} {kind} type parameter in string representation."
                )
            listy = ("ArrayList", "Array") if language == "Java" else ("array",)
            if kind in listy:
                item_type = (value.get("items") or {}).get("type")
                _describe(
                    value,
                    f" The list elements are of type {item_type}; they are not in "
                    "string representation.",
                )
                value.pop("items", None)
            if language == "JavaScript" and kind == "dict" and "properties" in value:
                _describe(
                    value,
                    " The dictionary entries have the following schema; they are "
                    "not in string representation. " + json.dumps(value["properties"]),
                )
                del value["properties"]
            value["type"] = "string"
    return out


def _openapi(kind: Any) -> str:
    return GORILLA_TO_OPENAPI.get(kind, "string") if isinstance(kind, str) else "string"


def _cast(properties: dict[str, Any]) -> dict[str, Any]:
    for value in properties.values():
        if "type" not in value:
            value["type"] = "string"
        else:
            if value["type"] == "float":
                value["format"] = "float"
                _describe(value, " This is a float type value.")
            value["type"] = _openapi(value["type"])
        if value["type"] in ("array", "object"):
            if isinstance(value.get("properties"), dict):
                value["properties"] = _cast(value["properties"])
            elif isinstance(value.get("items"), dict):
                items = value["items"]
                items["type"] = _openapi(items.get("type"))
                if items["type"] == "array" and isinstance(items.get("items"), dict):
                    items["items"]["type"] = _openapi(items["items"].get("type"))
                elif items["type"] == "object" and isinstance(items.get("properties"), dict):
                    items["properties"] = _cast(items["properties"])
    return properties


def openai_tool(function: dict[str, Any]) -> dict[str, Any]:
    """One (hinted) BFCL function as BFCL sends it to an OpenAI-style API (dots -> ``_``)."""
    return _as_openai_tool(_copy(function))


def _as_openai_tool(item: dict[str, Any]) -> dict[str, Any]:
    """:func:`openai_tool` on a function dict this module owns (changed in place)."""
    item["name"] = re.sub(r"\.", "_", str(item["name"]))
    params = item.setdefault("parameters", {})
    params["type"] = "object"
    params["properties"] = _cast(params.get("properties") or {})
    return {"type": "function", "function": item}


def bfcl_tools(functions: list[dict[str, Any]], category: str) -> list[Tool]:
    """An entry's functions as :class:`Tool` objects holding BFCL's native-tool schemas.

    Each tool keeps the function's own (dotted) name; :attr:`Tool.api_name` is the name sent.
    Top-level parameters carry their BFCL type under ``x-bfcl-type`` (not sent).

    The tools are built as BFCL builds them and not meta-checked as JSON Schema (pydantic's
    ``model_construct``): BFCL's generation step sends its schemas unchecked, so a model sees
    the same here, and the meta-check was most of the time spent preparing a run (its verdicts
    are per distinct schema, and BFCL's schemas are nearly all distinct).
    ``tests/bfcl/test_prompt.py`` checks that every schema of the reference data built here
    passes the check, and that the tools equal validated ones. The shape is still checked:
    ValueError for a function without a name, TypeError / AttributeError for one whose
    parameters are not an object.
    """
    tools = []
    for original, hinted in zip(functions, bfcl_functions(functions, category), strict=True):
        fn = _as_openai_tool(hinted)["function"]
        params = fn["parameters"]
        types = (original.get("parameters") or {}).get("properties") or {}
        for pname, schema in params["properties"].items():
            schema["x-bfcl-type"] = (types.get(pname) or {}).get("type")
        name = str(original["name"])
        if not name:
            raise ValueError("a function needs a name")
        extra = {k: v for k, v in fn.items() if k not in ("name", "description", "parameters")}
        tools.append(
            Tool.model_construct(
                function=FunctionDef.model_construct(
                    name=name,
                    description=str(fn.get("description", "")),
                    parameters=params,
                    **extra,
                )
            )
        )
    return tools


class PromptConfig(NamedTuple):
    """One of BFCL's prompt configurations (``ret_fmt=...&tool_call_tag=...&func_doc_fmt=...
    &prompt_fmt=...&style=...``): how calls are asked for and how functions are shown."""

    return_format: str  # python, json, verbose_xml, concise_xml
    tool_call_tag: bool  # calls inside <TOOLCALL>...</TOOLCALL>
    doc_format: str  # the functions as python, xml or json
    prompt_format: str  # plaintext or markdown
    style: str  # classic or experimental


def parse_prompt_config(config: str) -> PromptConfig:
    """BFCL's ``parse_prompt_variation_params`` (ValueError naming a malformed config)."""
    m = _CONFIG.match(config)
    if m is None:
        raise ValueError(
            f"not a BFCL prompt configuration: {config!r}; one looks like {DEFAULT_PROMPT_CONFIG!r}"
        )
    return PromptConfig(
        m["return_format"],
        m["tool_call_tag"] == "True",
        m["doc_format"],
        m["prompt_format"],
        m["style"],
    )


def prompt_config_of(entry_id: str) -> str:
    """The prompt configuration of an entry: the middle of a format-sensitivity id
    (``format_sensitivity_0:<config>:simple_python_19``), else BFCL's default."""
    parts = entry_id.split(":")
    if len(parts) == 1:
        return DEFAULT_PROMPT_CONFIG
    if len(parts) != 3:
        raise ValueError(f"entry id {entry_id!r}: a format-sensitivity id has exactly two ':'")
    return parts[1]


def config_system_prompt(config: str, functions: list[dict[str, Any]]) -> str:
    """BFCL's system prompt for a prompt configuration (``formulate_system_prompt``), with these
    (hinted) functions."""
    cfg = parse_prompt_config(config)
    style = _STYLES[cfg.style]
    output_format, param_types = _OUTPUT_FORMATS[cfg.return_format]
    call = style["tool_call_with_tag" if cfg.tool_call_tag else "tool_call_no_tag"]
    tools = style["available_tools"].format(
        format=cfg.doc_format, functions=function_doc(functions, cfg.doc_format)
    )
    return _TEMPLATES[cfg.prompt_format].format(
        persona=style["persona"],
        task=style["task"],
        tool_call_format=call.format(output_format=output_format, param_types=param_types),
        multiturn_behavior=style["multiturn_behavior"],
        available_tools=tools,
    )


def system_prompt(functions: list[dict[str, Any]], prompt_format: PromptFormat = "python") -> str:
    """BFCL's default system prompt for prompting models, with these (hinted) functions
    (``prompt_format="json"``: the same asking for BFCL's JSON list)."""
    if prompt_format not in PROMPT_FORMATS:
        raise ValueError(f"prompt_format must be one of {PROMPT_FORMATS}, not {prompt_format!r}")
    return config_system_prompt(
        DEFAULT_PROMPT_CONFIG.replace("ret_fmt=python", f"ret_fmt={prompt_format}"), functions
    )


def function_doc(functions: list[dict[str, Any]], doc_format: str) -> str:
    """The functions as BFCL shows them in a prompt (``format_function_doc``): indented JSON,
    XML or Python docstrings."""
    if doc_format == "json":
        return json.dumps(functions, indent=4)
    if doc_format == "xml":
        return "\n".join(_xml_function(fn) for fn in functions)
    if doc_format == "python":
        docs: list[str] = []
        for fn in functions:
            docs += [_python_function(fn), "\n"]
        return "\n\n".join(docs)
    raise ValueError(f"function doc format must be json, xml or python, not {doc_format!r}")


def _xml_param(name: str, meta: dict[str, Any], required: list[str] | None, level: int) -> str:
    indent = " " * level * 2
    kind = meta.get("type", "string")
    desc = meta.get("description", "")
    is_required = "true" if required is None or name in required else "false"
    if "enum" in meta:
        desc += f" Enum values: {meta['enum']}."
    if "items" in meta and "type" in meta["items"]:
        kind = f"{kind}[{meta['items']['type']}]"
    elif "additionalProperties" in meta:
        kind = f"{kind}[{meta['additionalProperties'].get('type', 'string')}]"
    attrs = [f'name="{name}", type="{kind}", required="{is_required}"']
    if "default" in meta:
        attrs.append(f'default="{meta["default"]!r}"')
    parts = [
        f"{indent}<param " + " ".join(attrs).replace(",", "") + ">\n",
        f"{indent}  <desc>{desc}</desc>\n",
    ]
    if "properties" in meta:
        parts.append(f"{indent}  <params>\n")
        for child, child_meta in meta["properties"].items():
            parts.append(_xml_param(child, child_meta, meta.get("required"), level + 2))
        parts.append(f"{indent}  </params>\n")
    parts.append(f"{indent}</param>\n")
    return "".join(parts)


def _xml_function(fn: dict[str, Any]) -> str:
    schema = fn["parameters"]
    out = f'<function name="{fn["name"]}">\n  <desc>{fn.get("description", "")}</desc>\n'
    out += "  <params>\n"
    for name, meta in schema.get("properties", {}).items():
        out += _xml_param(name, meta, schema.get("required"), 2)
    return out + "  </params>\n</function>\n"


_PY_TYPES = {"string": "str", "number": "float", "integer": "int", "boolean": "bool"}


def _py_type(meta: dict[str, Any]) -> str:
    kind = meta.get("type", "string")
    if kind in _PY_TYPES:
        return _PY_TYPES[kind]
    if kind in {"array", "list", "tuple"} and "items" in meta:
        return f"list[{_py_type(meta['items'])}]"
    if kind in {"object", "dict"}:
        if "additionalProperties" in meta:
            return f"dict[str, {_py_type(meta['additionalProperties'])}]"
        return "dict"
    return str(kind)


def _py_param(name: str, meta: dict[str, Any], depth: int = 0) -> list[str]:
    desc = meta.get("description", "")
    if "enum" in meta:
        desc += f" Enum values: {meta['enum']}."
    default = f", default={meta['default']!r}" if "default" in meta else ""
    lines = [f"{' ' * (8 + 4 * depth)}{name} ({_py_type(meta)}{default}): {desc}\n"]
    for child, child_meta in meta.get("properties", {}).items():
        lines += _py_param(child, child_meta, depth + 1)
    return lines


def _python_function(fn: dict[str, Any]) -> str:
    lines = [f"# Function: {fn['name']}\n", '    """\n', f"    {fn.get('description', '')}\n\n"]
    props = fn.get("parameters", {}).get("properties", {})
    if props:
        lines.append("    Args:\n")
        for name, meta in props.items():
            lines += _py_param(name, meta)
    lines.append('    """\n')
    return "".join(lines)


def prompt_messages(
    entry: dict[str, Any], category: str, prompt_format: PromptFormat = "python"
) -> list[dict[str, Any]]:
    """The first turn of an entry with BFCL's system prompt, as a prompting handler sends it.

    A format-sensitivity entry gets its own configuration (from its id) and, as BFCL's
    generation gives them, its functions hinted twice (bfcl-eval hints them when it reads the
    original entries and again for the category); ``prompt_format`` is then not used."""
    messages = _copy(entry["question"][0])
    functions = bfcl_functions(entry["function"], category)
    if is_format_sensitivity(category):
        functions = bfcl_functions(functions, category)
        text = config_system_prompt(prompt_config_of(str(entry["id"])), functions)
    else:
        text = system_prompt(functions, prompt_format)
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = f"{text}\n\n{messages[0].get('content') or ''}"
    else:
        messages.insert(0, {"role": "system", "content": text})
    return messages


def fc_messages(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The first turn of an entry as a function-calling handler sends it (as is)."""
    return _copy(entry["question"][0])
