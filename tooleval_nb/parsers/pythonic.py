"""Pythonic format (Llama 3.2 / Llama 4, ToolACE): ``[f(a=1), g(b='x')]``.

A Python list of calls with keyword arguments, read with ``ast`` and ``ast.literal_eval``
(never ``eval``): strings in any quotes, ``True`` / ``False`` / ``None``, negative numbers,
nested lists, dicts and tuples (as lists). Dotted names (``spotify.play``) are kept whole.
Positional arguments are mapped to parameter names when ``tools`` give their order.

The list may sit inside text (``Text before [tool()] text after``): every bracketed list that
starts with a name is examined; one that is not a list of calls (``[see above]``, ``[1, 2]``) is
plain content, and one that starts like a call but does not parse (``[func(arg=undefined)]``,
``[func(arg='val']``) is content with the reason in ``problems``.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ._calls import dump_arguments, jsonable
from ._scan import BracketScanner
from .protocol import ToolParser

__all__ = ["PythonicParser"]

_CALL_LIKE = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*\(")


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


class PythonicParser(ToolParser):
    """Streaming parser for Python-syntax lists of calls."""

    format = "pythonic"

    def __init__(self, tools: Any = None) -> None:
        super().__init__(tools)
        self._scanner: BracketScanner | None = None
        self._n_lists = 0

    def _scan(self, data: str, final: bool) -> int:
        pos, n = 0, len(data)
        while True:
            if self._scanner is None:
                idx = data.find("[", pos)
                if idx < 0:
                    self._text(data[pos:])
                    return n
                self._text(data[pos:idx])
                pos = idx
                self._scanner = BracketScanner(python=True, first="identifier")
                self._region = []
            pos, status = self._scanner.follow(self._region, data, pos, final)
            if status is None:
                return pos
            if status == "abort":
                self._text("".join(self._region))
                self._region, self._scanner = [], None
                continue
            if status == "more":
                self._end_list("its brackets are not closed")
                return n
            self._end_list(None if status == "closed" else "its brackets do not match")

    def _end_list(self, unbalanced: str | None) -> None:
        raw = "".join(self._region)
        self._region, self._scanner = [], None
        self._n_lists += 1
        label = f"the call list {self._n_lists} ({raw[:40]!r})"
        call_like = _CALL_LIKE.match(raw) is not None
        if unbalanced:
            if call_like:
                self._problem(f"{label} is malformed: {unbalanced}; kept as content")
            self._text(raw)
            return
        try:
            tree = ast.parse(raw, mode="eval")
        except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
            if call_like:
                self._problem(f"{label} is malformed: not valid Python ({type(exc).__name__}: "
                              f"{getattr(exc, 'msg', exc)}); kept as content")
            self._text(raw)
            return
        body = tree.body
        if not isinstance(body, ast.List) or not body.elts:
            self._text(raw)
            return
        if not all(isinstance(e, ast.Call) for e in body.elts):
            if any(isinstance(e, ast.Call) for e in body.elts):
                self._problem(f"{label} mixes calls with other values; kept as content")
            self._text(raw)
            return
        calls: list[tuple[str, str]] = []
        for k, node in enumerate(body.elts):
            assert isinstance(node, ast.Call)
            read = self._read_call(node)
            if isinstance(read, str):
                self._problem(f"{label} is malformed: call {k} {read}; kept as content")
                self._text(raw)
                return
            calls.append(read)
        for name, arguments in calls:
            self._call(name, arguments)

    def _read_call(self, node: ast.Call) -> tuple[str, str] | str:
        name = _dotted(node.func)
        if not name:
            return "does not name a function"
        args: dict[str, Any] = {}
        if node.args:
            params = (self.tools or {}).get(name)
            if params is None or len(node.args) > len(params):
                return (f"({name}) has positional arguments and no tool schema gives their "
                        "names")
            for param, value_node in zip(params, node.args, strict=False):
                if isinstance(value_node, ast.Starred):
                    return f"({name}) unpacks *arguments"
                value = self._literal(value_node)
                if isinstance(value, _Bad):
                    return f"({name}) argument {param!r} {value.reason}"
                args[param] = value.value
        for kw in node.keywords:
            if kw.arg is None:
                return f"({name}) unpacks **arguments"
            value = self._literal(kw.value)
            if isinstance(value, _Bad):
                return f"({name}) argument {kw.arg!r} {value.reason}"
            args[kw.arg] = value.value
        return name, dump_arguments(args)

    @staticmethod
    def _literal(node: ast.expr) -> _Good | _Bad:
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return _Bad(f"is not a literal ({ast.unparse(node)[:40]})")
        value, problem = jsonable(value)
        if problem:
            return _Bad(f"is not JSON: {problem}")
        return _Good(value)


class _Good:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _Bad:
    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason
