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
from typing import Any, Literal

from ..suite import FunctionDef, Tool
from .categories import language_of

__all__ = ["PromptFormat", "PROMPT_FORMATS", "bfcl_functions", "bfcl_tools", "openai_tool",
           "system_prompt", "prompt_messages", "fc_messages", "GORILLA_TO_OPENAPI",
           "AGENTIC_RESPONSE_FORMAT", "FORMAT_SENSITIVITY_CONFIGS", "DEFAULT_PROMPT_CONFIG"]

PromptFormat = Literal["python", "json"]
PROMPT_FORMATS: tuple[str, ...] = ("python", "json")

#: BFCL's type table for native tools (``constants/type_mappings.py``)
GORILLA_TO_OPENAPI: dict[str, str] = {
    "integer": "integer", "number": "number", "float": "number", "string": "string",
    "boolean": "boolean", "bool": "boolean", "array": "array", "list": "array",
    "dict": "object", "object": "object", "tuple": "array", "any": "string", "byte": "integer",
    "short": "integer", "long": "integer", "double": "number", "char": "string",
    "ArrayList": "array", "Array": "array", "HashMap": "object", "Hashtable": "object",
    "Queue": "array", "Stack": "array", "Any": "string", "String": "string", "Bigint": "integer",
}

_HINT = {"Python": " Note that the provided function is in Python 3 syntax.",
         "Java": " Note that the provided function is in Java 8 SDK syntax.",
         "JavaScript": " Note that the provided function is in JavaScript syntax."}

# The default system prompt of BFCL's prompting handlers (format
# "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic").
_PERSONA = "You are an expert in composing functions."
_TASK = ("You are given a question and a set of possible functions. Based on the question, you "
         "will need to make one or more function/tool calls to achieve the purpose. If none of "
         "the functions can be used, point it out. If the given question lacks the parameters "
         "required by the function, also point it out.")
_CALL_FORMAT = ("You should only return the function calls in your response.\n\nIf you decide "
                "to invoke any of the function(s), you MUST put it in the format of "
                "{output_format}. {param_types} You SHOULD NOT include any other text in the "
                "response.")
_MULTITURN = ("At each turn, you should try your best to complete the tasks requested by the "
              "user within the current turn. Continue to output functions to call until you "
              "have fulfilled the user's request to the best of your ability. Once you have no "
              "more functions to call, the system will consider the current turn complete and "
              "proceed to the next turn or task.")
_TOOLS = "Here is a list of functions in {format} format that you can invoke.\n{functions}\n"
_OUTPUT_FORMATS = {
    "python": "[func_name1(params_name1=params_value1, params_name2=params_value2...), "
              "func_name2(params)]",
    "json": '```json\n[{"function":"func_name1","parameters":{"param1":"value1",'
            '"param2":"value2"...}},{"function":"func_name2","parameters":{"param":"value"}}]'
            "\n```",
}


#: the system message BFCL puts first in every agentic (memory, web search) entry's first turn
#: (``ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT``; a prerequisite conversation has none)
AGENTIC_RESPONSE_FORMAT = (
    "For your final answer to the user, you must respond in this format: {'answer': A short and "
    "precise answer to the question, 'context': A brief explanation of how you arrived at this "
    "answer or why it is correct}. If you do not know the answer, respond with {'answer': 'I do "
    "not know', 'context': 'I do not know'}. If you think the question cannot be properly "
    "answered, response with {'answer': 'I cannot answer this question', 'context': A short "
    "reason explaining why this question cannot be answered}.\n")

#: BFCL's default prompt configuration (every entry but format sensitivity's)
DEFAULT_PROMPT_CONFIG = ("ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext"
                         "&style=classic")


def _format_sensitivity_configs() -> tuple[str, ...]:
    """BFCL's 26 prompt configurations of format sensitivity, in its order
    (``get_all_format_sensitivity_configs``): 4 return formats x tag or not x 3 function-doc
    formats in plain text and the classic style, then markdown, then the experimental style."""
    configs = [f"ret_fmt={ret}&tool_call_tag={tag}&func_doc_fmt={doc}&prompt_fmt=plaintext"
               "&style=classic"
               for ret in ("python", "json", "verbose_xml", "concise_xml")
               for tag in ("True", "False") for doc in ("python", "xml", "json")]
    configs.append("ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=markdown"
                   "&style=classic")
    configs.append("ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext"
                   "&style=experimental")
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
                _describe(value, f" This parameter can be of any type of {language} object in "
                                 "string representation.")
            else:
                _describe(value, f" This is {language} {kind} type parameter in string "
                                 "representation.")
            listy = ("ArrayList", "Array") if language == "Java" else ("array",)
            if kind in listy:
                item_type = (value.get("items") or {}).get("type")
                _describe(value, f" The list elements are of type {item_type}; they are not in "
                                 "string representation.")
                value.pop("items", None)
            if language == "JavaScript" and kind == "dict" and "properties" in value:
                _describe(value, " The dictionary entries have the following schema; they are "
                                 "not in string representation. "
                                 + json.dumps(value["properties"]))
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
        tools.append(Tool.model_construct(function=FunctionDef.model_construct(
            name=name, description=str(fn.get("description", "")), parameters=params,
            **extra)))
    return tools


def system_prompt(functions: list[dict[str, Any]], prompt_format: PromptFormat = "python") -> str:
    """BFCL's default system prompt for prompting models, with these (hinted) functions."""
    if prompt_format not in _OUTPUT_FORMATS:
        raise ValueError(f"prompt_format must be one of {PROMPT_FORMATS}, not {prompt_format!r}")
    call_format = _CALL_FORMAT.format(output_format=_OUTPUT_FORMATS[prompt_format],
                                      param_types="")
    tools = _TOOLS.format(format="json", functions=json.dumps(functions, indent=4))
    return f"{_PERSONA}{_TASK}\n\n{call_format}\n\n{_MULTITURN}\n\n{tools}"


def prompt_messages(entry: dict[str, Any], category: str,
                    prompt_format: PromptFormat = "python") -> list[dict[str, Any]]:
    """The first turn of an entry with BFCL's system prompt, as a prompting handler sends it."""
    messages = _copy(entry["question"][0])
    text = system_prompt(bfcl_functions(entry["function"], category), prompt_format)
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = f"{text}\n\n{messages[0].get('content') or ''}"
    else:
        messages.insert(0, {"role": "system", "content": text})
    return messages


def fc_messages(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The first turn of an entry as a function-calling handler sends it (as is)."""
    return _copy(entry["question"][0])
