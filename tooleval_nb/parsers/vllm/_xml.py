"""vLLM's readings of the formats whose arguments are XML-ish raw text: ``qwen3_coder``,
``seed_oss``, ``glm45``, ``minimax_m2``.

Read from vLLM's ``vllm/tool_parsers/`` (commits): ``qwen3coder_tool_parser.py`` (00d0a33,
and the stored version whose ``extract_tool_calls`` is the plain regex reading, the one the
0.14 line serves; later versions add a structural scan), ``seed_oss_tool_parser.py``
(3e47bf4), ``glm4_moe_tool_parser.py`` (081866a; ``glm45`` is its name in the 0.14 registry),
``minimax_m2_tool_parser.py`` (9412856). Each reading keeps vLLM's own value typing: a value is
converted by the type its tool's schema gives the parameter, and a conversion that fails in a way
vLLM does not catch (``int(float("inf"))``, a set that ``json.dumps`` cannot write) makes vLLM
serve the whole output as content.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from typing import Any

from ._reading import Reading, blocks, no_calls

__all__ = ["XML_READERS"]

_STRINGS = ("string", "str", "text", "varchar", "char", "enum")
_INTS = ("int", "uint", "long", "short", "unsigned")


def _properties(schemas: Any, name: str) -> dict[str, Any]:
    """The tool's parameter schemas ({} when the tool is unknown or there are no tools)."""
    return dict((schemas or {}).get(name) or {})


def _declared_type(config: dict[str, Any], key: str) -> str:
    spec = config[key]
    return (
        str(spec["type"]).strip().lower() if isinstance(spec, dict) and "type" in spec else "string"
    )


def _number(value: str) -> Any:
    """vLLM's number rule: a float, written as an int when integral; ``int(inf)`` escapes."""
    number = float(value)
    return number if number - int(number) != 0 else int(number)


def _qwen_value(value: str, key: str, config: dict[str, Any], *, seed: bool) -> Any:
    """One parameter value typed as Qwen3-Coder's (``seed=False``) or Seed-OSS's parser does."""
    if value.lower() == "null":
        return None
    if key not in config:
        return value
    kind = _declared_type(config, key)
    if kind in _STRINGS:
        return value
    if kind.startswith(_INTS):
        try:
            return int(value)
        except (ValueError, TypeError):
            return value
    if kind.startswith(("num", "float")):
        try:
            return _number(value)
        except (ValueError, TypeError):
            return value
    if kind in ("boolean", "bool", "binary"):
        return value.lower() == "true"
    containers = ("object",) if seed else ("object", "array", "arr")
    prefixes = ("dict",) if seed else ("dict", "list")
    if kind in containers or kind.startswith(prefixes):
        try:
            return json.loads(value)
        except (ValueError, TypeError):
            pass
    caught: tuple[type[Exception], ...] = (
        (ValueError, SyntaxError) if seed else (ValueError, SyntaxError, TypeError)
    )
    try:
        return ast.literal_eval(value)
    except caught:
        return value


def _qwen_family(start: str, end: str, *, seed: bool) -> Callable[[str, Any], Reading]:
    """``<function=NAME>`` blocks, inside ``start ... end`` regions (closed, or the last one open
    to the end) or, with no region, anywhere in the output; each ``<parameter=KEY>`` value loses
    one newline at each end and is typed by the schema. Content is the text before the first
    region (or the first ``<function=``); text after and between the calls is dropped."""
    region = re.compile(f"{re.escape(start)}(.*?){re.escape(end)}|{re.escape(start)}(.*?)$", re.S)
    function = re.compile(r"<function=(.*?)</function>|<function=(.*)$", re.S)
    parameter = (
        re.compile(r"<parameter=(.*?)</parameter>|<parameter=(.*?)$", re.S)
        if seed
        else re.compile(r"<parameter=(.*?)(?:</parameter>|(?=<parameter=)|(?=</function>)|$)", re.S)
    )

    def read(text: str, schemas: Any) -> Reading:
        if "<function=" not in text:
            return no_calls(text)
        thinking, rest = "", text
        if seed and "<seed:think>" in text and "</seed:think>" in text:
            cut = text.find("</seed:think>") + len("</seed:think>")
            thinking, rest = text[:cut], text[cut:]
        try:
            regions = [a or b for a, b in region.findall(rest)] or [rest]
            bodies = [a or b for r in regions for a, b in function.findall(r)]
            if not bodies:
                return no_calls(text)
            calls = []
            for body in bodies:
                name = body[: body.index(">")]
                config = _properties(schemas, name)
                args: dict[str, Any] = {}
                for found in parameter.findall(body[body.index(">") + 1 :]):
                    piece = (found[0] or found[1]) if seed else found
                    key, value = piece[: piece.index(">")], piece[piece.index(">") + 1 :]
                    value = value.removeprefix("\n").removesuffix("\n")
                    args[key] = _qwen_value(value, key, config, seed=seed)
                calls.append((name, json.dumps(args, ensure_ascii=False)))
        except Exception as exc:  # vLLM catches every error of its reading alike
            return no_calls(text, f"a <function=...> call does not read ({type(exc).__name__})")
        at = rest.find(start)
        content = thinking + rest[: at if at >= 0 else rest.find("<function=")]
        return Reading(calls, content or None)

    return read


_SPACE = re.compile(r"\s*")
_KEY, _KEY_END, _VALUE, _VALUE_END = "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"


def _glm_pairs(body: str) -> list[tuple[str, str]]:
    """``(key, value)`` pairs as ``re.findall(<arg_key>(.*?)</arg_key>\\s*<arg_value>(.*?)
    </arg_value>, re.S)`` finds them, in linear time. A match starts at the first ``<arg_key>``;
    its key runs to the first ``</arg_key>`` followed (after whitespace) by ``<arg_value>``, its
    value to the next ``</arg_value>``; when there is none, no later pair can end either."""
    pairs, pos, close = [], 0, 0
    while (i := body.find(_KEY, pos)) != -1:
        close = max(close, i + len(_KEY))
        while (e := body.find(_KEY_END, close)) != -1:
            v = _SPACE.match(body, e + len(_KEY_END)).end()  # type: ignore[union-attr]
            if body.startswith(_VALUE, v):
                break
            close = e + 1
        if e == -1:
            break
        f = body.find(_VALUE_END, v + len(_VALUE))
        if f == -1:
            break
        pairs.append((body[i + len(_KEY) : e], body[v + len(_VALUE) : f]))
        pos = close = f + len(_VALUE_END)
    return pairs


def _glm_value(value: str) -> Any:
    """A value whose parameter is not a string: JSON, else a Python literal, else the text."""
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def _glm45(text: str, schemas: Any) -> Reading:
    """Every closed ``<tool_call>NAME\\n...</tool_call>`` (a block with no newline after the
    name is skipped); each ``<arg_key>``/``<arg_value>`` pair's value is kept raw when the schema
    says ``string``, else stripped and decoded (JSON, then a Python literal, else text). Content
    is the text before the first ``<tool_call>``; text after and between is dropped."""
    try:
        calls = []
        for _, _, block in blocks(text, "<tool_call>", "</tool_call>"):
            if "\n" not in block:  # vLLM's <tool_call>([^\n]*)\n(.*)</tool_call>
                continue
            head, rest = block.split("\n", 1)
            name = head.strip()
            config = _properties(schemas, name)
            args: dict[str, Any] = {}
            for key, value in _glm_pairs(rest):
                key = key.strip()
                spec = config.get(key, {})
                raw = isinstance(spec, dict) and spec.get("type") == "string"
                args[key] = value if raw else _glm_value(value.strip())
            calls.append((name, json.dumps(args, ensure_ascii=False)))
    except Exception as exc:
        return no_calls(text, f"a <tool_call> block does not read ({type(exc).__name__})")
    if not calls:
        problem = "no <tool_call> block vLLM reads" if "<tool_call>" in text else None
        return no_calls(text, problem)
    content = text[: text.find("<tool_call>")]
    return Reading(calls, content if content.strip() else None)


_MM_NAME = re.compile(r"^([^>]+)")
_MM_NAMED = re.compile(r"^([^>]+)>(.*)", re.S)
_MM_PRIORITY = ("integer", "int", "number", "float", "boolean", "bool", "object", "array")
_MM_STRINGS = ("string", "str", "text")


def _unquote(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'":
        return name[1:-1]
    return name


def _schema_types(schema: Any) -> set[str]:
    """Every type a parameter's schema admits (``type``, a type list, ``enum`` values,
    ``anyOf``/``oneOf``/``allOf``), ``{"string"}`` when it names none."""
    if not isinstance(schema, dict):
        return {"string"}
    types: set[str] = set()
    kind = schema.get("type")
    if isinstance(kind, str):
        types.add(kind)
    elif isinstance(kind, list):
        types.update(t for t in kind if isinstance(t, str))
    enum = schema.get("enum")
    if isinstance(enum, list):
        for value in enum:
            if value is None:
                types.add("null")
            elif isinstance(value, bool):
                types.add("boolean")
            elif isinstance(value, int):
                types.add("integer")
            elif isinstance(value, float):
                types.add("number")
            elif isinstance(value, str):
                types.add("string")
            elif isinstance(value, list):
                types.add("array")
            elif isinstance(value, dict):
                types.add("object")
    for choice in ("anyOf", "oneOf", "allOf"):
        options = schema.get(choice)
        if isinstance(options, list):
            for option in options:
                types |= _schema_types(option)
    return types or {"string"}


def _minimax_value(value: str, types: set[str]) -> Any:
    """MiniMax-M2's typing: ``null``/``none``/``nil`` is None; then the first admitted type, in
    vLLM's order, that converts; else JSON, else the text."""
    if value.lower() in ("null", "none", "nil"):
        return None
    admitted = {t.lower() for t in types}
    for kind in _MM_PRIORITY + _MM_STRINGS:
        if kind not in admitted:
            continue
        if kind in _MM_STRINGS:
            return value
        if kind in ("integer", "int"):
            try:
                return int(value)
            except (ValueError, TypeError):
                continue
        elif kind in ("number", "float"):
            try:
                number = float(value)
                return number if number != int(number) else int(number)
            except (ValueError, TypeError):
                continue
        elif kind in ("boolean", "bool"):
            low = value.lower().strip()
            if low in ("true", "1", "yes", "on"):
                return True
            if low in ("false", "0", "no", "off"):
                return False
        else:
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                continue
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def _minimax_m2(text: str, schemas: Any) -> Reading:
    """Every ``<invoke name=...>`` inside a closed ``<minimax:tool_call>`` block (open blocks
    and invokes are not read); the name and parameter names lose their quotes, values are
    stripped and typed by the schema (without one they stay text). Content is the text before
    the first block; the text after and between the blocks is dropped."""
    if "<minimax:tool_call>" not in text:
        return no_calls(text)
    try:
        calls = []
        for _, _, block in blocks(text, "<minimax:tool_call>", "</minimax:tool_call>"):
            for _, _, invoke in blocks(block, "<invoke name=", "</invoke>"):
                named = _MM_NAME.search(invoke)
                if not named:
                    continue
                name = _unquote(named.group(1))
                config = _properties(schemas, name)
                args: dict[str, Any] = {}
                for _, _, param in blocks(invoke, "<parameter name=", "</parameter>"):
                    found = _MM_NAMED.search(param)
                    if not found:
                        continue
                    key = _unquote(found.group(1))
                    types = _schema_types(config[key]) if key in config else {"string"}
                    args[key] = _minimax_value(found.group(2).strip(), types)
                calls.append((name, json.dumps(args, ensure_ascii=False)))
    except Exception as exc:
        return no_calls(text, f"a <minimax:tool_call> block does not read ({type(exc).__name__})")
    if not calls:
        return no_calls(text, "no closed <minimax:tool_call> block holds an <invoke> vLLM reads")
    first = text.find("<minimax:tool_call>")
    return Reading(calls, text[:first] if first > 0 else None)


XML_READERS: dict[str, Callable[[str, Any], Reading]] = {
    "qwen3_coder": _qwen_family("<tool_call>", "</tool_call>", seed=False),
    "seed_oss": _qwen_family("<seed:tool_call>", "</seed:tool_call>", seed=True),
    "glm45": _glm45,
    "minimax_m2": _minimax_m2,
}
