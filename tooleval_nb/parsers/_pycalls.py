"""Reading Python-syntax calls (``f(a=1, b='x')``) with ``ast``, never ``eval``.

Values are read with ``ast.literal_eval``: strings in any quotes, ``True`` / ``False`` /
``None``, negative numbers, nested lists, dicts and tuples (as lists); with ``json_literals``
also ``true`` / ``false`` / ``null`` (Olmo 3). Dotted names (``spotify.play``) are kept whole.
Positional arguments are mapped to parameter names when the tools' schemas give their order.
"""

from __future__ import annotations

import ast
from typing import Any

from ._calls import CallResult, dump_arguments, jsonable
from ._tagged import BodyReader, Found
from .protocol import ToolSchemas

__all__ = ["python_calls"]

_JSON_NAMES: dict[str, Any] = {"true": True, "false": False, "null": None}


class _JsonLiterals(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in _JSON_NAMES:
            return ast.copy_location(ast.Constant(_JSON_NAMES[node.id]), node)
        return node


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _literal(node: ast.expr, json_literals: bool) -> tuple[Any, str | None]:
    if json_literals:
        node = _JsonLiterals().visit(node)
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None, f"is not a literal ({ast.unparse(node)[:40]})"
    value, problem = jsonable(value)
    if problem:
        return None, f"is not JSON: {problem}"
    return value, None


def _read_call(
    node: ast.Call, schemas: ToolSchemas | None, json_literals: bool
) -> CallResult | str:
    name = _dotted(node.func)
    if not name:
        return "does not name a function"
    args: dict[str, Any] = {}
    if node.args:
        params = list(schemas[name]) if schemas is not None and name in schemas else None
        if params is None or len(node.args) > len(params):
            return f"({name}) has positional arguments and no tool schema gives their names"
        for param, value_node in zip(params, node.args, strict=False):
            if isinstance(value_node, ast.Starred):
                return f"({name}) unpacks *arguments"
            value, problem = _literal(value_node, json_literals)
            if problem:
                return f"({name}) argument {param!r} {problem}"
            args[param] = value
    for kw in node.keywords:
        if kw.arg is None:
            return f"({name}) unpacks **arguments"
        value, problem = _literal(kw.value, json_literals)
        if problem:
            return f"({name}) argument {kw.arg!r} {problem}"
        args[kw.arg] = value
    return CallResult(name, dump_arguments(args))


def python_calls(*, lines: bool = False, json_literals: bool = False) -> BodyReader:
    """A body reader for a Python list of calls ``[f(a=1), g()]``, or (``lines``) calls one per
    line, a list also accepted (Olmo 3's ``<function_calls>`` block)."""

    def read(body: str, schemas: ToolSchemas | None) -> Found:
        text = body.strip()
        try:
            tree = ast.parse(text, mode="exec" if lines else "eval")
        except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
            return [], f"not valid Python ({type(exc).__name__}: {getattr(exc, 'msg', exc)})"
        nodes: list[ast.expr] = []
        if isinstance(tree, ast.Expression):
            if not isinstance(tree.body, ast.List):
                return None
            nodes = list(tree.body.elts)
        elif isinstance(tree, ast.Module):
            for stmt in tree.body:
                if not isinstance(stmt, ast.Expr):
                    return [], "it holds a statement that is not a call"
                if isinstance(stmt.value, ast.List):
                    nodes.extend(stmt.value.elts)
                else:
                    nodes.append(stmt.value)
        if not nodes:
            return None
        if not all(isinstance(node, ast.Call) for node in nodes):
            if any(isinstance(node, ast.Call) for node in nodes):
                return [], "it mixes calls with other values"
            return None
        calls: list[CallResult] = []
        for k, node in enumerate(nodes):
            assert isinstance(node, ast.Call)
            call = _read_call(node, schemas, json_literals)
            if isinstance(call, str):
                return [], f"call {k} {call}"
            calls.append(call)
        return calls, None

    return read
