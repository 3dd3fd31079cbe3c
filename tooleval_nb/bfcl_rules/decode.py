"""Decode a BFCL model result into the checker's call list ``[{name: {param: value}}]``.

Two shapes are stored in BFCL result files:

* function-calling (FC) results: ``[{name: "<arguments JSON>"}, ...]``; each arguments string is
  parsed with :func:`json.loads` (a dict is accepted as is);
* prompt-style raw text: ``"[f(a=1), g(b='x')]"``; it is parsed with :mod:`ast` and the values
  are resolved from the syntax tree the way BFCL's decoder resolves them. BFCL calls ``eval`` on
  arithmetic sub-expressions (``2 * 3``); here a small evaluator computes arithmetic on literals
  only, with size limits, and anything else is a decoding failure. Model text is never executed.

Any failure raises :class:`DecodeError`; BFCL reports it as ``ast_decoder:decoder_failed`` (or, in
the irrelevance categories, as "no call"). Java and JavaScript prompt-style text is decoded by a
small argument splitter (BFCL uses tree-sitter there); FC results, the common case, are exact.
"""

from __future__ import annotations

import ast
import json
import operator
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "DecodeError",
    "decode_result",
    "decode_prompt",
    "is_call_list",
    "is_empty_calls",
    "RETURN_FORMATS",
]

#: the call formats a prompt may ask for (BFCL's format-sensitivity configurations)
RETURN_FORMATS: tuple[str, ...] = ("python", "json", "verbose_xml", "concise_xml")


_DECODER = json.JSONDecoder()
#: what ``raw_decode`` calls: ``(value, end)``, or StopIteration when no value starts at 0
_scan_once = _DECODER.scan_once  # type: ignore[attr-defined]  # set by JSONDecoder.__init__
_JSON_BLANKS = " \t\n\r"  # the whitespace JSON allows around a value


def _json_decode(text: str) -> Any:
    """``json.loads`` for a str, with the common case (no surrounding blanks) short-cut."""
    try:
        value, end = _scan_once(text, 0)
    except (StopIteration, ValueError):
        return _DECODER.decode(text)  # leading blanks, or a real error (raised here)
    if end != len(text) and text[end:].strip(_JSON_BLANKS):
        return _DECODER.decode(text)  # raises "Extra data"
    return value


class DecodeError(ValueError):
    """The model result could not be decoded into function calls."""


def decode_result(result: Any, language: str = "Python") -> list[Any]:
    """Decode one BFCL ``result`` (FC list or prompt-style string) into ``[{name: params}]``.

    Raises:
        DecodeError: the result is not a call list in either shape.
    """
    if isinstance(result, str):
        return decode_prompt(result, language)
    if not isinstance(result, list):
        raise DecodeError(f"result is a {type(result).__name__}, not a list of calls")
    out: list[Any] = []
    for item in result:
        if not isinstance(item, dict):
            raise DecodeError(f"call {item!r:.80} is a {type(item).__name__}, not {{name: args}}")
        if not item:
            raise DecodeError("empty call object")
        name = next(iter(item))
        args = item[name]
        if isinstance(args, str):
            try:
                args = _json_decode(args)
            except ValueError as exc:
                raise DecodeError(f"arguments of {name!r} are not JSON: {exc}") from None
        elif not isinstance(args, dict):
            raise DecodeError(f"arguments of {name!r} are a {type(args).__name__}")
        out.append({name: args})
    return out


def is_call_list(decoded: Any) -> bool:
    """BFCL's format check: a list of single-key dicts whose value is a dict (``[]`` passes)."""
    if type(decoded) is not list:
        return False
    for item in decoded:
        if type(item) is not dict or len(item) != 1:
            return False
        for value in item.values():
            if type(value) is not dict:
                return False
    return True


def is_empty_calls(decoded: Any) -> bool:
    """BFCL's "no call" test for (ir)relevance: not a call list, ``[]`` or ``[{}]``."""
    if not is_call_list(decoded):
        return True
    return len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)


# -- prompt style ----------------------------------------------------------------------------
def decode_prompt(
    text: str,
    language: str = "Python",
    *,
    return_format: str = "python",
    tool_call_tag: bool = False,
) -> list[Any]:
    """Decode prompt-style text ``[f(a=1), g(b='x')]`` (brackets optional), as BFCL's
    ``default_decode_ast_prompting``.

    ``return_format`` and ``tool_call_tag`` are a format-sensitivity configuration's: the calls
    inside ``<TOOLCALL>...</TOOLCALL>``, as BFCL's JSON list or as verbose or concise XML
    (parsed as its ``ast_parse`` parses them; XML values converted by their ``type``).
    """
    s = text.strip("`\n ")
    if not s.startswith("["):
        s = "[" + s
    if not s.endswith("]"):
        s = s + "]"
    if tool_call_tag:
        tagged = re.search(r"<TOOLCALL>(.*?)</TOOLCALL>", s, re.DOTALL)
        if tagged is None:
            raise DecodeError("no <TOOLCALL>...</TOOLCALL> in the reply")
        s = tagged.group(1).strip()
    if return_format == "python":
        if language == "Python":
            return _parse_python(s)
        return _parse_clike(s[1:-1])
    if return_format == "json":
        region = re.search(r"\[.*\]", s, re.DOTALL)
        return _parse_json_calls(region.group(0) if region else s)
    if return_format in ("verbose_xml", "concise_xml"):
        region = re.search(r"<functions>(.*?)</functions>", s, re.DOTALL)
        if region is None:
            raise DecodeError("no <functions>...</functions> in the reply")
        return _parse_xml(region.group(0), verbose=return_format == "verbose_xml")
    raise DecodeError(f"unknown return format {return_format!r}; one of {RETURN_FORMATS}")


_JSON_CALLS = re.compile(r"\[\s*{.*?}\s*(?:,\s*{.*?}\s*)*\]", re.DOTALL)


def _parse_json_calls(source: str) -> list[Any]:
    """BFCL's ``parse_json_function_call``: ``[{"function": name, "parameters": {...}}]``; text
    that is not JSON decodes as no call (``[]``), as there."""
    found = _JSON_CALLS.search(source)
    try:
        value = json.loads(found.group(0) if found else source)
    except ValueError:
        return []
    if not isinstance(value, list | dict | str):
        raise DecodeError(f"a JSON {type(value).__name__} is not a list of calls")
    out = []
    for item in value:
        if isinstance(item, dict):
            if "function" not in item or "parameters" not in item:
                raise DecodeError('a JSON call needs "function" and "parameters"')
            if not isinstance(item["function"], str | int | float | bool | None):
                raise DecodeError("a JSON call's function must be a name")
            out.append({item["function"]: item["parameters"]})
    return out


def _xml_value(raw: str, kind: str) -> Any:
    """BFCL's ``convert_value_by_type`` (containers read as Python literals, never run)."""
    if kind == "integer":
        return int(raw)
    if kind == "float":
        return float(raw)
    if kind == "boolean":
        return raw.lower() == "true"
    if kind == "null":
        return None
    if kind in ("array", "tuple", "object", "dict"):
        return ast.literal_eval(raw)
    return raw


def _parse_xml(source: str, verbose: bool) -> list[Any]:
    """BFCL's ``parse_verbose_xml_function_call`` / ``parse_concise_xml_function_call``."""
    import xml.etree.ElementTree as ET  # only for the XML return formats: a run never loads it

    try:
        root = ET.fromstring(source)
        out = []
        for func in root.findall("function"):
            params: dict[Any, Any] = {}
            if verbose:
                container = func.find("params")
                elements = (container if container is not None else func).findall("param")
                for param in elements:
                    params[param.attrib.get("name")] = _xml_value(
                        param.attrib.get("value", ""), param.attrib.get("type", "string")
                    )
            else:
                for param in func.findall("param"):
                    params[param.attrib["name"]] = _xml_value(
                        (param.text or "").strip(), param.attrib.get("type", "string")
                    )
            out.append({func.attrib["name"]: params})
        return out
    except (
        ET.ParseError,
        KeyError,
        ValueError,
        SyntaxError,
        TypeError,
        MemoryError,
        RecursionError,
    ) as exc:
        raise DecodeError(f"not BFCL's XML call format: {exc}") from None


def _parse_python(source: str) -> list[Any]:
    source = source.strip().strip("'")
    try:
        body = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise DecodeError(f"not Python call syntax: {exc}") from None
    try:
        if isinstance(body, ast.Call):
            return [_call(body)]
        elements = getattr(body, "elts", None)
        if elements is None:
            raise DecodeError(f"expected a list of calls, got {type(body).__name__}")
        out = []
        for elem in elements:
            if not isinstance(elem, ast.Call):
                raise DecodeError(f"list element is a {type(elem).__name__}, not a call")
            out.append(_call(elem))
        return out
    except DecodeError:
        raise
    except (ArithmeticError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise DecodeError(f"cannot resolve the call: {exc}") from None


def _call(node: ast.Call) -> dict[str, Any]:
    parts: list[str] = []
    func: ast.expr = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    args = {kw.arg: _value(kw.value) for kw in node.keywords}
    return {".".join(reversed(parts)): args}


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        # BFCL negates the operand's constant whatever the operator is (+5 and ~5 give -5).
        operand = node.operand
        if not isinstance(operand, ast.Constant):
            raise DecodeError("unary operator on a non-literal")
        return -operand.value  # type: ignore[operator]  # a str operand fails, as in BFCL
    if isinstance(node, ast.List):
        return [_value(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise DecodeError("dict unpacking (**) is not a value")
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(node, ast.BinOp):
        return _arith(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return ast.unparse(node) if not node.keywords else _call(node)
    if isinstance(node, ast.Tuple):
        return tuple(_value(v) for v in node.elts)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise DecodeError(f"unsupported value syntax: {type(node).__name__}")


# -- safe arithmetic (what BFCL evaluates with eval) -------------------------------------------
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_MAX_SIZE = 100_000


def _arith(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        if node.value is Ellipsis:
            raise DecodeError("ellipsis in arithmetic")
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_arith(e) for e in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
        return {_arith(k): _arith(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_arith(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _arith(node.left), _arith(node.right)
        _check_size(node.op, left, right)
        return _BINOPS[type(node.op)](left, right)
    raise DecodeError(f"only arithmetic on literals is evaluated, not {type(node).__name__}")


def _check_size(op: ast.operator, left: Any, right: Any) -> None:
    if isinstance(op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > 1000:
        raise DecodeError("exponent too large to evaluate")
    if isinstance(op, ast.LShift) and isinstance(right, int) and right > 10_000:
        raise DecodeError("shift too large to evaluate")
    if isinstance(op, ast.Mult):
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int):
                if len(seq) * n > _MAX_SIZE:
                    raise DecodeError("repetition too large to evaluate")


# -- Java / JavaScript prompt style (approximation of BFCL's tree-sitter decoders) -----------
_CALL_HEAD = re.compile(r"\s*([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*\(")
_OPEN = {"(": ")", "[": "]", "{": "}"}


def _parse_clike(source: str) -> list[Any]:
    m = _CALL_HEAD.search(source)
    if not m:
        raise DecodeError("no method call found")
    name = re.sub(r"\s+", "", m.group(1))
    body, _ = _balanced(source, m.end() - 1)
    args: dict[str, Any] = {}
    for part in _split_top(body):
        key, eq, value = part.partition("=")
        if not eq or not re.fullmatch(r"\s*[A-Za-z_$][\w$]*\s*", key):
            continue  # positional arguments are not parameters by name
        key, value = key.strip(), value.strip()
        if key in args:
            raise DecodeError(f"parameter {key!r} given twice")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        args[key] = value
    return [{name: args}]


def _balanced(text: str, start: int) -> tuple[str, int]:
    """The text inside the bracket at ``start`` and the index after its closing bracket."""
    stack: list[str] = []
    quote = ""
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch in _OPEN:
            stack.append(_OPEN[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return text[start + 1 : i], i + 1
        i += 1
    raise DecodeError("unbalanced brackets")


def _split_top(body: str) -> list[str]:
    parts, depth, quote, cur = [], 0, "", []
    i = 0
    while i < len(body):
        ch = body[i]
        if quote:
            if ch == "\\" and i + 1 < len(body):
                cur.append(body[i : i + 2])
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts
