"""Parser formats by explicit name: ``get_parser`` and ``parse_tool_calls``.

A format is always chosen by its name, never guessed from a model name. The names are vLLM's
``--tool-call-parser`` names, so a serving stack's setting names our parser of the same format.
"""

from __future__ import annotations

import difflib
import functools
import pkgutil
from collections.abc import Iterable
from typing import Any, Literal

from ..errors import ParserError
from .protocol import COMPAT_MODES, Compat, ExtractedToolCallInformation, ToolParser
from .vllm import check_format as check_vllm_format
from .vllm import parse as parse_vllm

__all__ = [
    "ParserFormat",
    "PARSER_FORMATS",
    "PARSERS",
    "ALIASES",
    "get_parser",
    "parser_class",
    "parse_tool_calls",
    "parse_as",
    "compat_parser",
]

#: The raw-text formats (vLLM's ``--tool-call-parser`` names).
ParserFormat = Literal[
    "hermes",
    "pythonic",
    "mistral",
    "llama3_json",
    "openai",
    "json",
    "qwen3_coder",
    "deepseek_v3",
    "deepseek_v31",
    "kimi_k2",
    "glm45",
    "granite",
    "granite4",
    "granite-20b-fc",
    "xlam",
    "phi4_mini_json",
    "internlm",
    "hunyuan_a13b",
    "minimax",
    "minimax_m2",
    "seed_oss",
    "step3",
    "step3p5",
    "llama4_pythonic",
    "olmo3",
    "jamba",
    "longcat",
    "ernie45",
    "gigachat3",
    "lfm2",
]

#: format name -> ``"module:Class"`` of its parser in this package, imported when the format is
#: first asked for (:func:`parser_class`): importing the registry loads none of the thirty
#: format modules, so a run in native mode, or in one raw-text format, loads only what it uses
PARSERS: dict[str, str] = {
    "hermes": "hermes:HermesParser",
    "pythonic": "pythonic:PythonicParser",
    "mistral": "mistral:MistralParser",
    "llama3_json": "llama3_json:Llama3JsonParser",
    "openai": "openai:HarmonyParser",
    "json": "generic_json:GenericJsonParser",
    "qwen3_coder": "xmltags:Qwen3CoderParser",
    "glm45": "xmltags:Glm45Parser",
    "seed_oss": "xmltags:SeedOssParser",
    "step3p5": "xmltags:Step3p5Parser",
    "minimax_m2": "xmltags:MinimaxM2Parser",
    "deepseek_v3": "tokencalls:DeepSeekV3Parser",
    "deepseek_v31": "tokencalls:DeepSeekV31Parser",
    "kimi_k2": "tokencalls:KimiK2Parser",
    "step3": "tokencalls:Step3Parser",
    "granite": "jsontags:GraniteParser",
    "granite4": "jsontags:Granite4Parser",
    "granite-20b-fc": "jsontags:Granite20bFCParser",
    "xlam": "jsontags:XLAMParser",
    "phi4_mini_json": "jsontags:Phi4MiniJsonParser",
    "internlm": "jsontags:InternLMParser",
    "hunyuan_a13b": "jsontags:HunyuanA13BParser",
    "minimax": "jsontags:MinimaxParser",
    "jamba": "jsontags:JambaParser",
    "longcat": "jsontags:LongcatParser",
    "ernie45": "jsontags:Ernie45Parser",
    "gigachat3": "jsontags:GigaChat3Parser",
    "llama4_pythonic": "pythonic:Llama4PythonicParser",
    "olmo3": "pythonic:Olmo3Parser",
    "lfm2": "pythonic:Lfm2Parser",
}

#: The format names accepted by ``get_parser`` and ``parse_tool_calls``.
PARSER_FORMATS: tuple[str, ...] = tuple(PARSERS)

#: other names of the same formats (vLLM's alternative names included)
ALIASES = {
    "harmony": "openai",
    "gpt-oss": "openai",
    "generic_json": "json",
    "qwen3_xml": "qwen3_coder",
    "glm47": "glm45",
    "granite_20b_fc": "granite-20b-fc",
    "internlm2": "internlm",
    "minimax-m2": "minimax_m2",
    "phi4mini": "phi4_mini_json",
}


def _nearest(name: str) -> list[str]:
    """Every known name, the nearest to ``name`` first."""
    known = list(PARSER_FORMATS) + list(ALIASES)
    close = difflib.get_close_matches(name, known, n=len(known), cutoff=0.0)
    ranked = [ALIASES.get(c, c) for c in close]
    return list(dict.fromkeys(ranked + list(PARSER_FORMATS)))


def parser_class(format: str) -> type[ToolParser]:
    """The parser class of a format name (``harmony`` is accepted for ``openai``).

    Raises:
        ParserError: an unknown name; the message lists the known ones, the nearest first.
    """
    if not isinstance(format, str):
        raise ParserError(
            f"a parser format is a name, got {type(format).__name__}; "
            f"use one of {', '.join(PARSER_FORMATS)}"
        )
    key = format.strip().lower()
    key = ALIASES.get(key, key)
    where = PARSERS.get(key)
    if where is None:
        nearest = _nearest(key)
        raise ParserError(
            f"unknown parser format {format!r}; did you mean {nearest[0]!r}? "
            f"Known formats, nearest first: {', '.join(nearest)} (formats are "
            "never guessed from a model name)"
        )
    return _load(key, where)


@functools.cache
def _load(key: str, where: str) -> type[ToolParser]:
    """The class named by ``where`` (``"module:Class"`` of this package), checked to be the
    parser of the format ``key``."""
    cls: type[ToolParser] = pkgutil.resolve_name(f"{__package__}.{where}")
    if cls.format != key:  # the table and the class disagree: a bug of ours, said at once
        raise ParserError(f"parser table: {where} parses {cls.format!r}, not {key!r}")
    return cls


def _check_compat(compat: Any) -> Compat:
    if compat not in COMPAT_MODES:
        raise ParserError(
            f"unknown compat {compat!r}; use one of {', '.join(map(repr, COMPAT_MODES))} "
            '("vllm": parse exactly as vLLM serves the format)'
        )
    return compat  # type: ignore[no-any-return]


def get_parser(
    format: str, tools: Iterable[Any] | None = None, *, compat: Compat = "default"
) -> ToolParser:
    """A fresh streaming parser: ``feed(delta)`` per piece of output, then ``finish()``.

    The stream's final state (what a :class:`StreamingToolReconstructor` rebuilds from its
    deltas, and ``result()``) is the whole-text parse of the same text in the same ``compat``.

    Args:
        format: one of :data:`PARSER_FORMATS` (vLLM's ``--tool-call-parser`` names).
        tools: the tools offered (``Tool`` objects or OpenAI dicts); used to type the raw-text
            values of the XML-ish formats, to map positional pythonic arguments, to accept
            name-only JSON calls of known tools, and to note calls of unknown tools in
            ``problems``.
        compat: ``"default"`` (ours) or ``"vllm"``: end exactly as vLLM's parser of the same
            name serves the output (see docs/parsers.md for where the two differ).
    """
    return compat_parser(parser_class(format), tools, compat)


def compat_parser(
    cls: type[ToolParser], tools: Iterable[Any] | None = None, compat: Compat = "default"
) -> ToolParser:
    """A fresh parser of ``cls`` whose stream ends on the ``compat`` reading of its text."""
    mode = _check_compat(compat)
    tools = None if tools is None else list(tools)
    if mode == "vllm":
        check_vllm_format(cls.format)
    parser = cls(tools)
    parser.compat = mode
    if mode == "vllm":
        parser.whole_reader = functools.partial(parse_vllm, cls)
    return parser


def parse_as(
    cls: type[ToolParser], text: str, tools: Iterable[Any] | None = None, compat: Compat = "default"
) -> ExtractedToolCallInformation:
    """The whole-text parse of ``text`` by ``cls`` in the ``compat`` reading."""
    if _check_compat(compat) == "vllm":
        return parse_vllm(cls, text, None if tools is None else list(tools))
    return cls.parse(text, tools)


def parse_tool_calls(
    text: str, format: str, tools: Iterable[Any] | None = None, *, compat: Compat = "default"
) -> ExtractedToolCallInformation:
    """Find the tool calls in a whole model output.

    Malformed calls never raise: their text stays in ``content`` and the reason is listed in
    ``problems``. ``compat="vllm"`` reads the output exactly as vLLM's ``--tool-call-parser``
    of the same name serves it (what it keeps or drops around the calls included).

    >>> parse_tool_calls('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
    ...                  "hermes").tool_calls[0].function.arguments
    '{"a": 1}'
    """
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise ParserError(f"parse_tool_calls() takes the model's text, got {type(text).__name__}")
    return parse_as(parser_class(format), text, tools, compat)
