"""vLLM's reading of ``step3p5``: the Qwen3-Coder layout fed, piece by piece, through expat.

vLLM 0.14 has no ``step3p5`` parser (its wheel's ``vllm/tool_parsers/`` has none, nor has
0.15.1's): the first release checked that has one is **0.16.0**, and this is the reading of that
release's ``vllm/tool_parsers/step3p5_tool_parser.py`` (read, not copied; the repository index's
commit ca8d0e5 differs at least in its fallback, which closes the open call whichever it is).
vLLM does not read the whole output with a pattern: its whole-text ``extract_tool_calls`` hands
the output to its *streaming* machine as one chunk and serves what that chunk produced. The
machine:

1. cuts the output into pieces: a text run up to the next ``<``; a ``<...`` run up to the next
   ``<`` (exclusive) or ``>`` (inclusive); a ``<parameter=`` / ``<function=`` opening with no
   ``>`` on its line runs to its closing tag. A ``<`` run left open at the end waits for more
   (and is lost) when it may still become ``<tool_call>`` / ``<function=``, or inside a call;
2. outside a call, a piece that is not a ``<tool_call>``/``<function=``/``<parameter=`` opening
   is kept as text; the other pieces are mended (``<function NAME>``, ``<functionNAME>`` and a
   ``<parameter=NAME`` or ``<function=NAME`` without its ``>`` get their ``=``/``>`` when the
   name is the request's tool or parameter), rewritten (``<function=N>`` to
   ``<function name="N">``) and escaped where they are not tags, then fed to an expat parser,
   one document per ``<tool_call>``;
3. expat's events write each call's arguments as JSON text as they come: a parameter's name,
   then its value by the type the tool's schema gives it (a string in quotes, other values
   **raw**: an ``object`` value is the model's own text, ``integer``/``number`` converted when
   they convert, ``boolean`` true only for ``true``); array-typed values (and object-typed ones
   written with single quotes) are held to their ``</parameter>`` and read as a Python literal;
4. when the output opened exactly one call and it is still open, a missing
   ``</parameter>``/``</function>``/``</tool_call>`` is closed if the output holds such a tag
   anywhere; an open call is otherwise served as far as it was written (its arguments cut
   short, which is no JSON: the output is then content with a problem). The text before the
   first call is content, text between calls is content (served after the call that follows
   it), text after the last call is dropped.

The reading here drives Python's own expat (``xml.parsers.expat``) with the same pieces and
reacts to its events as vLLM's machine does, so what expat accepts, refuses or decodes
(entities, attribute values, a document that is already closed) is the same. Its pieces are
found in one pass (vLLM re-slices the rest of the output for every piece), so it stays linear;
only a long value of an ``integer``/``number``/``boolean`` parameter written in many pieces is
re-converted per piece, as vLLM does.

Expat is the running Python's (2.5.0 on our 3.11); a later expat (2.6 defers re-parsing a
token left incomplete) could answer later on a piece that ends inside a token, which only odd
input makes (the pieces are whole tags or escaped text). Two differences remain,
both where the request's tools are unusual: vLLM looks a parameter up
in a tool's ``parameters`` directly when they have no ``properties`` (we see only
``properties``), and a tool with ``parameters: null`` accepts any mended parameter name in
vLLM (ours: none).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from typing import Any
from xml.parsers.expat import ParserCreate, XMLParserType

from ._reading import Reading

__all__ = ["EXPAT_READERS"]

_STRINGS = ("string", "str", "text", "varchar", "char", "enum")
_INT_PREFIXES = ("int", "uint", "long", "short", "unsigned")
_NUM_PREFIXES = ("num", "float")
_BOOLS = ("boolean", "bool", "binary")
_CONTAINERS = ("object", "array", "arr", "sequence")
_HELD = ("array", "arr", "sequence")  # held to </parameter>, read as a literal

_TOOL_OPENINGS = ("<tool_call>", "<function=", "<parameter=")
_TAGS = ("<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=", "</parameter>")
_FUNCTION_LETTER = re.compile(r"<function[a-zA-Z_]")
_SPACED_FUNCTION = re.compile(r"<function\s+([a-zA-Z_][a-zA-Z0-9_]*)\s*>")
_GLUED_FUNCTION = re.compile(r"<function([a-zA-Z_][a-zA-Z0-9_]*)\s*>")
_FUNCTION_EQ = re.compile(r"<function=([^>]+)>")
_PARAMETER_EQ = re.compile(r"<parameter=([^>]+)>")
_PARAMETER_NAMED = re.compile(r'<parameter name="([^"]+)">')
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"})


def _known_type(kind: str) -> str:
    """The schema type vLLM keeps; any other is read as ``string``."""
    if (
        kind in _STRINGS
        or kind.startswith(_INT_PREFIXES + _NUM_PREFIXES + ("dict", "list"))
        or kind in _BOOLS
        or kind in _CONTAINERS
    ):
        return kind
    return "string"


def _typed(value: str, kind: str) -> Any:
    """A value as vLLM types it: ``null`` is None; ints and numbers when they convert (an
    ``inf`` number raises, as in vLLM), booleans true only for ``true``; the rest stays text."""
    if value.lower() == "null":
        return None
    kind = kind.strip().lower()
    if kind in _STRINGS:
        return value
    if kind.startswith(_INT_PREFIXES):
        try:
            return int(value)
        except (ValueError, TypeError):
            return value
    if kind.startswith(_NUM_PREFIXES):
        try:
            number = float(value)
            return number if number - int(number) != 0 else int(number)
        except (ValueError, TypeError):
            return value
    if kind in _BOOLS:
        return value.lower() == "true"
    return value


def _written(value: Any, kind: str) -> str:
    """How a typed value is written into the arguments: a string without its quotes (they are
    written apart), other values as JSON, text as it is; None and ``""`` as nothing."""
    if value is None or (isinstance(value, str) and value == ""):
        return ""
    if kind in _STRINGS:
        return json.dumps(value, ensure_ascii=False)[1:-1]
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _escaped(text: str) -> str:
    return text.translate(_ESCAPES)


class _Next:
    """The next index of ``needle`` at or after a position, for positions that only grow: one
    scan of the text in all."""

    def __init__(self, text: str, needle: str) -> None:
        self.text, self.needle, self.at = text, needle, -2

    def __call__(self, pos: int) -> int:
        if self.at == -1 or self.at >= pos:
            return self.at
        self.at = self.text.find(self.needle, pos)
        return self.at


class _Delta:
    """One delta vLLM's machine emits: content, or a piece of a call (its id, maybe its name,
    an arguments fragment)."""

    __slots__ = ("content", "call", "name", "arguments")

    def __init__(
        self, content: str | None, call: int | None, name: str | None, arguments: str | None
    ) -> None:
        self.content, self.call, self.name, self.arguments = content, call, name, arguments


class _Machine:
    """vLLM's step3p5 machine for one whole output (one chunk)."""

    def __init__(self, schemas: dict[str, dict[str, Any]] | None) -> None:
        self.schemas = schemas or {}
        self.deltas: list[_Delta] = []
        self.index = 0  # calls opened so far
        self.ids = 0
        self.call: int | None = None  # the open call's id
        self.function: str | None = None
        self.function_open = False
        self.params: dict[str, Any] = {}
        self.param: str | None = None
        self.value: list[str] = []  # the open parameter's value, in pieces
        self.value_len = 0
        self.sent_len = 0  # the length of what the open parameter's value wrote so far
        self.sent_whole = False  # that is the written form of the whole value, not null
        self.quoted = False
        self.held_newline = False
        self.text = ""  # text outside calls, not yet served
        self.pre_param: str | None = None  # the preprocessor's view of an opening parameter
        self.pre_inside = False
        self.pre_held: list[str] = []
        self.defer = False
        self.deferred_raw = ""
        self.parser = self._new_parser()

    # ------------------------------------------------------------------ the whole output
    def read(self, text: str) -> Reading:
        if self._walk(text):
            try:
                self._close_what_the_output_closes(text)
            except Exception:  # vLLM logs the failure of this fallback and serves what it has
                pass
            return self._served()
        if self.text and self.index == 0:
            return Reading([], self.text)
        if self._fallback_call() is not None and ("</function>" in text or "</tool_call>" in text):
            try:
                if self.param:
                    self._end("parameter")
                if "</function>" in text and self.function:
                    self._end("function")
                if "</tool_call>" in text:
                    self._end("tool_call")
            except Exception as exc:  # not caught in vLLM: the request fails
                return Reading(error=f"{type(exc).__name__} closing the open call")
            return self._served()
        return Reading([], None)

    def _walk(self, text: str) -> bool:
        """Feed every piece; True when expat took at least one."""
        finders = {n: _Next(text, n) for n in ("<", ">", "\n", "</parameter>", "</function>")}
        found, pos = False, 0
        while pos < len(text):
            piece, end = self._next_piece(text, pos, finders)
            if piece is None:
                break
            if not self._outside_text(piece):
                try:
                    fed = self._prepare(piece)
                    head = fed.strip()
                    if (
                        head.startswith(("<tool_call>", "<function name="))
                        and self.index == 0
                        and self.text
                    ):
                        self._emit_content(self.text)
                        self.text = ""
                    if head.startswith("<tool_call>") and self.index > 0 and self.call:
                        if self.function:
                            if self.param:
                                self._end("parameter")
                            if self.function_open:
                                self._end("function")
                            self._emit(self.call, None, "")
                            self._new_document()
                    self.parser.Parse(fed, False)
                    found = True
                except Exception:  # vLLM logs a piece that fails and goes on
                    pass
            pos = end
        return found

    def _next_piece(self, text: str, pos: int, finders: dict[str, _Next]) -> tuple[str | None, int]:
        if text[pos] != "<":
            lt = finders["<"](pos)
            return (text[pos:lt], lt) if lt != -1 else (text[pos:], len(text))
        for tag in ("parameter", "function"):
            if text.startswith(f"<{tag}=", pos):
                newline, gt = finders["\n"](pos), finders[">"](pos + 1)
                line_end = newline if newline != -1 else len(text)
                if gt == -1 or gt >= line_end:  # no ">" on the opening's line
                    close = finders[f"</{tag}>"](pos)
                    if close != -1:
                        end = close + len(f"</{tag}>")
                        return text[pos:end], end
        lt, gt = finders["<"](pos + 1), finders[">"](pos + 1)
        if lt != -1 and (gt == -1 or lt < gt):
            return text[pos:lt], lt
        if gt != -1:
            return text[pos : gt + 1], gt + 1
        rest = text[pos:]
        if self.call is not None:
            return None, pos  # waits for the tag to complete
        if (
            "<tool_call>".startswith(rest)
            or rest.startswith("<function=")
            or ("<function=".startswith(rest))
        ):
            return None, pos
        return rest, len(text)

    def _outside_text(self, piece: str) -> bool:
        """True when the piece is text outside a call (kept as such) and not fed."""
        if piece.startswith(_TOOL_OPENINGS):
            return False
        if self.call is None and piece:
            self.text += piece
            return True
        return self.call is None and not piece

    def _fallback_call(self) -> int | None:
        """The call vLLM's fallback may close: the open call, when it is the only one the output
        opened (the chunk began outside a call and opened exactly one)."""
        return self.call if self.call is not None and self.index == 1 else None

    def _close_what_the_output_closes(self, text: str) -> None:
        """vLLM's fallback: the output holds ``</function>`` / ``</tool_call>`` but the open call
        did not see its own close, so it is closed now."""
        call = self._fallback_call()
        mine = [d for d in self.deltas if d.arguments is not None and d.call == call]
        if call is not None and "</function>" in text:
            if not any(d.arguments in ("}", "{}") for d in mine):
                if self.param:
                    self._end("parameter")
                if self.function:
                    self._end("function")
        if call is not None and "</tool_call>" in text:
            if not any(d.arguments == "" for d in mine):
                if self.param:
                    self._end("parameter")
                if self.function:
                    self._end("function")
                self._end("tool_call")

    def _served(self) -> Reading:
        """The deltas merged as vLLM merges them (by call id, arguments joined, the last name
        given), then the calls that have a name."""
        order: list[int | None] = []
        names: dict[int | None, str | None] = {}
        args: dict[int | None, list[str]] = {}
        content: list[str] = []
        for delta in self.deltas:
            if delta.arguments is None:
                if delta.content:
                    content.append(delta.content)
                continue
            if delta.call not in args:
                order.append(delta.call)
                names[delta.call], args[delta.call] = delta.name, [delta.arguments]
                continue
            if delta.name:
                names[delta.call] = delta.name
            args[delta.call].append(delta.arguments)
        calls = [(names[k], "".join(args[k])) for k in order if names[k]]
        return Reading(calls, "".join(content) or None)

    # ------------------------------------------------------------------ the pieces
    def _prepare(self, piece: str) -> str:
        """A piece as vLLM hands it to expat: mended, rewritten, escaped or held."""
        tag = piece.startswith(_TAGS) or piece.startswith("<function ")
        tag = tag or _FUNCTION_LETTER.match(piece) is not None
        if self.call is not None or piece.startswith(("<function", "<parameter")):
            piece = self._mend(piece)
        fed = piece
        if "<function=" in fed:
            fed = _FUNCTION_EQ.sub(r'<function name="\1">', fed)
        if "<parameter=" in fed:
            fed = _PARAMETER_EQ.sub(r'<parameter name="\1">', fed)
        if self.pre_inside:
            if fed.startswith("</parameter>"):
                raw = "".join(self.pre_held)
                self.defer, self.deferred_raw = True, raw
                self.pre_inside, self.pre_held, self.pre_param = False, [], None
                return _escaped(raw) + "</parameter>"
            if not self.pre_held:
                kind = self._type_of(self.pre_param) if self.pre_param else "string"
                held = kind in _HELD or kind.startswith(("dict", "list"))
                held = held or (
                    kind == "object" and any(c in piece for c in "[{(") and "'" in piece
                )
                if not held:
                    self.pre_inside = False
                    return _escaped(piece)
            self.pre_held.append(piece)
            return ""
        if fed.startswith("<parameter name="):
            named = _PARAMETER_NAMED.match(fed)
            if named:
                self.pre_param = named.group(1)
            self.pre_inside, self.pre_held = True, []
            return fed
        return fed if tag else _escaped(fed)

    def _mend(self, piece: str) -> str:
        """vLLM's repairs: ``<function NAME>``/``<functionNAME>`` of a known tool get their
        ``=``; a ``<parameter=``/``<function=`` opening without its ``>`` gets one after the name
        (cut at a space, newline or ``<``, less a doubled ``parameter=`` and trailing marks)
        when a parameter's name is the tool's."""
        if "<function=" not in piece:
            for pattern in (_SPACED_FUNCTION, _GLUED_FUNCTION):
                found = pattern.search(piece)
                if found and found.group(1).strip() and found.group(1).strip() in self.schemas:
                    name = found.group(1).strip()
                    piece = piece[: found.start()] + f"<function={name}>" + piece[found.end() :]
                    break
        for tag in ("parameter", "function"):
            opening = f"<{tag}="
            at = piece.find(opening)
            if at == -1:
                continue
            gt = piece.find(">", at)
            lt = piece.find("<", at + len(opening))
            if gt != -1 and (lt == -1 or gt < lt) and gt - at >= len(opening):
                continue  # already closed
            start = at + len(opening)
            end = start
            while end < len(piece) and piece[end] not in " \n<":
                end += 1
            name = piece[start:end]
            if not name:
                continue
            name = name.removeprefix(f"{tag}=")
            while name and not (name[-1].isalnum() or name[-1] in "-_"):
                name = name[:-1]
            if not name or (tag == "parameter" and not self._parameter_known(name)):
                continue
            piece = piece[:at] + f"<{tag}={name}>" + piece[end:]
        return piece

    def _parameter_known(self, name: str) -> bool:
        if not self.schemas or not self.function or self.function not in self.schemas:
            return True
        return name in self.schemas[self.function]

    def _type_of(self, name: str) -> str:
        if not self.schemas or not self.function:
            return "string"
        spec = (self.schemas.get(self.function) or {}).get(name)
        if isinstance(spec, dict):
            return _known_type(str(spec.get("type", "string")))
        return "string"

    # ------------------------------------------------------------------ expat's events
    def _new_parser(self) -> XMLParserType:
        parser = ParserCreate()
        parser.buffer_text = True
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._chars
        return parser

    def _new_document(self) -> None:
        """Each ``<tool_call>`` is its own document: a new parser and a clean call state."""
        self.parser = self._new_parser()
        self.call, self.function, self.function_open = None, None, False
        self.params = {}
        self._clear_param()
        self.text = ""
        self.pre_inside, self.pre_held, self.pre_param = False, [], None

    def _clear_value(self) -> None:
        """What a parameter's start clears (a held newline and a deferred reading stay, as in
        vLLM, until a parameter's end clears them)."""
        self.param = None
        self.value, self.value_len = [], 0
        self.sent_len, self.sent_whole = 0, False
        self.quoted = False

    def _clear_param(self) -> None:
        self._clear_value()
        self.held_newline = self.defer = False
        self.deferred_raw = ""

    def _emit(self, call: int | None, name: str | None, arguments: str) -> None:
        self.deltas.append(_Delta(None, call, name, arguments))

    def _emit_content(self, text: str) -> None:
        self.deltas.append(_Delta(text, None, None, None))

    def _close_open(self, incoming: str | None = None) -> None:
        if self.param:
            self._end("parameter")
        if incoming in ("function", "tool_call") and self.function:
            self._end("function")
        if incoming == "tool_call" and self.call:
            self._end("tool_call")

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "tool_call":
            self._close_open("tool_call")
            self.params = {}
            self.ids += 1
            self.call = self.ids
            self.index += 1
        elif name.startswith("function"):
            if not self.call:
                self._start("tool_call", {})
            self._close_open("function")
            self.function = attrs.get("name")
            self.function_open = True
            if self.function:
                self._emit(self.call, self.function, "")
        elif name.startswith("parameter"):
            self._close_open("parameter")
            self._clear_value()
            self.param = attrs.get("name")
            if self.param:  # the name is written as it is, unescaped, as vLLM does
                lead = "{" if not self.params else ", "
                self._emit(self.call, None, f'{lead}"{self.param}": ')

    def _chars(self, data: str) -> None:
        if not (data and self.param):
            return
        if self.defer:
            piece = self._hold_newline(data)
            self.value.append(piece)
            self.value_len += len(piece)
            return
        kind = self._type_of(self.param)
        if self.value_len == 0 and data.startswith("\n"):
            data = data[1:]
        if kind in _STRINGS and not self.quoted:
            self._emit(self.call, None, '"')
            self.quoted = True
        if not data:
            return
        piece = self._hold_newline(data)
        self.value.append(piece)
        self.value_len += len(piece)
        self._emit(self.call, None, self._written_delta(piece, kind))

    def _hold_newline(self, data: str) -> str:
        """A value's trailing newline is held back until more of the value follows."""
        if self.held_newline:
            data, self.held_newline = "\n" + data, False
        if data.endswith("\n"):
            data, self.held_newline = data[:-1], True
        return data

    def _written_delta(self, piece: str, kind: str) -> str:
        """What the value's written form gained (vLLM: the new written form less as many
        characters as were written before). A string or raw-text value that was written whole
        gains the piece's own written form; other values are re-written whole."""
        plain = kind in _STRINGS or not (
            kind.startswith(_INT_PREFIXES + _NUM_PREFIXES) or kind in _BOOLS
        )
        whole: str | None = None
        if plain and self.sent_whole and self.value_len != 4 and piece:
            gained = json.dumps(piece, ensure_ascii=False)[1:-1] if kind in _STRINGS else piece
        else:
            whole = _written(_typed("".join(self.value), kind), kind)
            gained = whole[self.sent_len :]
        if whole is not None:
            value = "".join(self.value)
            self.sent_len = len(whole)
            self.sent_whole = plain and value.lower() != "null" and value != ""
        else:
            self.sent_len += len(gained)
        return gained

    def _end(self, name: str) -> None:
        if (name.startswith("function") or name == "tool_call") and self.param:
            self._close_open()
        if name.startswith("parameter") and self.param:
            self._end_parameter()
        elif name.startswith("function"):
            self._emit(self.call, None, "}" if self.params else "{}")
            self.function_open, self.function = False, None
        elif name == "tool_call":
            if self.function_open:
                if self.param:
                    self._end("parameter")
                self._end("function")
            self._emit(self.call, None, "")
            if self.text.strip():
                self._emit_content(self.text)
            self._new_document()

    def _end_parameter(self) -> None:
        name, value = self.param or "", "".join(self.value)
        if self.defer:
            raw = self.deferred_raw or value
            try:
                parsed: Any = ast.literal_eval(raw + "\n" if self.held_newline else raw)
                written = json.dumps(parsed, ensure_ascii=False)
            except Exception:  # vLLM serves the text as a string when it is no literal
                parsed, written = raw, json.dumps(raw, ensure_ascii=False)
            self._emit(self.call, None, written)
            self.params[name] = parsed
            self._clear_param()
            return
        kind = self._type_of(name)
        typed = _typed(value, kind)
        if kind in _STRINGS:
            self._emit(self.call, None, '""' if not value and not self.quoted else '"')
        self.params[name] = typed
        self._clear_param()


def _step3p5(text: str, schemas: Any) -> Reading:
    """vLLM's step3p5 reading of a whole output (see the module's doc)."""
    reading = _Machine(schemas).read(text)
    if (
        not reading.calls
        and reading.error is None
        and ("<tool_call>" in text or "<function" in text)
    ):
        reading.problems.append("vLLM's step3p5 parser serves no call from this output's markup")
    return reading


EXPAT_READERS: dict[str, Callable[[str, Any], Reading]] = {"step3p5": _step3p5}
