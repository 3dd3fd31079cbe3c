"""Java and JavaScript argument converters, behaving as BFCL's AST checker's converters do.

BFCL's Java and JavaScript categories send every argument as a *string of source code*
(``"new int[]{1, 2}"``, ``"[1, 2]"``, ``"true"``); the checker converts that text to a Python
value according to the parameter's declared type before comparing it with the ground truth.
Text that does not look like the declared type is kept as a string (the converter "defaults to
string"), which then usually fails the type check. These functions reproduce that behaviour,
including its quirks (a ``char`` is never unquoted; a JavaScript object is split with a
non-greedy pattern), because verdicts must agree with BFCL's score files exactly.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["JAVA_TYPES", "JS_TYPES", "java_convert", "js_convert"]

#: Java type name -> the Python type a converted value has
JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}
#: JavaScript type name -> the Python type a converted value has
JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}

# Patterns. ``re.match`` + ``$`` (which also accepts one trailing newline) on purpose: it is the
# behaviour the reference checker has.
_INT = re.compile(r"-?\d+$")
_JAVA_FLOAT = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"-?\d+[lL]$")
_F_SUFFIX = re.compile(r"[fF]$")
_L_SUFFIX = re.compile(r"[lL]$")
_ARRAYLIST_ASLIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_ARRAYLIST_ADD = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
_ADD_CALL = re.compile(r"add\((.+?)\)")
_ARRAYLIST_EMPTY = re.compile(r"new\s+ArrayList<\w*>\(\)")
_JAVA_ARRAY = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
_HASHMAP = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
_PUT_CALL = re.compile(r"put\(\"(.*?)\",\s*(.*?)\)")
_HASHMAP_EMPTY = re.compile(r"new\s+HashMap<.*?>\s*\(\)")

_JS_FLOAT = re.compile(r"-?\d+(\.\d+)?$")
_JS_BIGINT = re.compile(r"-?\d+n$")
_JS_ARRAY_2D = re.compile(
    r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"
)
_JS_ARRAY = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_JS_INNER = re.compile(r"\[(.*?)\]")
_JS_DICT = re.compile(r"\{(.*?)\}")
_JS_PAIR = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


# -- Java ------------------------------------------------------------------------------------
def java_convert(value: str, kind: str, nested: str | None = None) -> Any:
    """Convert Java source text ``value`` declared as ``kind`` (items ``nested``) to Python.

    Raises:
        ValueError: ``kind`` is not a Java type BFCL knows.
        NotImplementedError: ``Set``, ``Hashtable``, ``Queue`` and ``Stack`` (as BFCL).
    """
    if kind not in JAVA_TYPES:
        raise ValueError(f"unsupported Java type: {kind}")
    if kind in ("byte", "short", "integer"):
        return int(value) if _INT.match(value) else str(value)
    if kind == "float":
        return float(_F_SUFFIX.sub("", value)) if _JAVA_FLOAT.match(value) else str(value)
    if kind == "double":
        return float(value) if _JAVA_DOUBLE.match(value) else str(value)
    if kind == "long":
        return int(_L_SUFFIX.sub("", value)) if _JAVA_LONG.match(value) else str(value)
    if kind == "boolean":
        return value == "true" if value in ("true", "false") else str(value)
    if kind in ("char", "String", "any"):
        # BFCL's char pattern can never match, so a char stays as written.
        return str(value)
    if kind == "ArrayList":
        return _java_arraylist(value, nested)
    if kind == "Array":
        return _java_array(value, nested)
    if kind == "HashMap":
        return _java_hashmap(value)
    raise NotImplementedError(f"{kind} conversion is not implemented")


def _java_item(text: str, nested: str | None, unquote: bool) -> Any:
    if unquote and nested in ("char", "String"):
        return text[1:-1]
    return java_convert(text, nested) if nested else java_value(text)


def _java_arraylist(text: str, nested: str | None) -> Any:
    m = _ARRAYLIST_ASLIST.search(text)
    if m:
        return [_java_item(part.strip(), nested, True) for part in m.group(1).split(",")]
    m = _ARRAYLIST_ADD.search(text)
    if m:
        return [_java_item(part.strip(), nested, True) for part in _ADD_CALL.findall(m.group(1))]
    if _ARRAYLIST_EMPTY.search(text):
        return []
    return text


def _java_array(text: str, nested: str | None) -> Any:
    m = _JAVA_ARRAY.search(text)
    if not m:
        return text
    parts = [p.strip() for p in m.group(1).split(",") if p.strip()]
    return [java_convert(p, nested) if nested else java_value(p) for p in parts]


def _java_hashmap(text: str) -> Any:
    m = _HASHMAP.search(text)
    if m:
        body = m.group(1)
        out: dict[str, Any] = {}
        if body.strip():
            for key, val in _PUT_CALL.findall(body):
                out[key] = java_value(val.strip())
        return out
    if _HASHMAP_EMPTY.search(text):
        return {}
    return text


def java_value(text: str) -> Any:
    """A Java literal whose type is not declared: boolean, string, long, float, int, else text."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(_F_SUFFIX.sub("", text))
    return _number_or_text(text)


def _number_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


# -- JavaScript ------------------------------------------------------------------------------
def js_convert(value: str, kind: str, nested: str | None = None) -> Any:
    """Convert JavaScript source text ``value`` declared as ``kind`` (items ``nested``) to Python.

    Raises:
        ValueError: ``kind`` is not a JavaScript type BFCL knows.
    """
    if kind not in JS_TYPES:
        raise ValueError(f"unsupported JavaScript type: {kind}")
    if kind == "String":
        quoted = (value.startswith('"') and value.endswith('"')) or (
            value.startswith("'") and value.endswith("'")
        )
        return value[1:-1] if quoted else str(value)
    if kind == "integer":
        return int(value) if _INT.match(value) else str(value)
    if kind == "float":
        return float(value) if _JS_FLOAT.match(value) else str(value)
    if kind == "Bigint":
        return int(value[:-1]) if _JS_BIGINT.match(value) else str(value)
    if kind == "Boolean":
        return value == "true" if value in ("true", "false") else str(value)
    if kind == "dict":
        return _js_collection(value, "dict", nested)
    if kind == "array":
        return _js_collection(value, "array", nested)
    return str(value)  # any


def _js_collection(code: str, kind: str, nested: str | None = None) -> Any:
    code = code.strip()
    if kind == "array":
        try:
            return _js_array(code, nested)
        except Exception:  # the reference falls back to the text on any failure
            return code
    if code == "{}":
        return {}
    m = _JS_DICT.match(code)
    if not m:
        return code
    try:
        out: dict[str, Any] = {}
        for key, val in _JS_PAIR.findall(m.group(1)):
            key = key.strip().strip("'\"")
            val = val.strip()
            if val.startswith("[") and val.endswith("]"):
                out[key] = _js_collection(val, "array")
            elif val.startswith("{") and val.endswith("}"):
                out[key] = _js_collection(val, "dict")
            else:
                out[key] = js_value(val.strip("'\""))
        return out
    except Exception:
        return code


def _js_array(code: str, nested: str | None) -> Any:
    m2 = _JS_ARRAY_2D.match(code)
    if m2:
        rows = []
        for idx, inner in enumerate(_JS_INNER.findall(m2.group(0))):
            inner = inner.strip()
            if idx == 0 and inner.startswith("["):
                inner = inner[1:]
            rows.append([js_value(e.strip()) for e in inner.split(",")])
        return rows
    m = _JS_ARRAY.match(code)
    if not m:
        return code
    body = m.group(1) if m.group(1) is not None else m.group(2)
    body = (body or "").strip()
    parts = body.split(",") if body else []
    if nested:
        out = []
        for part in parts:
            p = part.strip()
            if p.startswith("'") or p.startswith('"'):
                out.append(js_convert(p, nested, "String"))
            else:
                out.append(js_convert(p, nested))
        return out
    return [js_value(p.strip()) for p in parts]


def js_value(text: str) -> Any:
    """A JavaScript literal whose type is not declared: boolean, quoted string, number, else text."""
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if (text.startswith('"') and text.endswith('"')) or (
        text.startswith("'") and text.endswith("'")
    ):
        return text[1:-1]
    return _number_or_text(text)
