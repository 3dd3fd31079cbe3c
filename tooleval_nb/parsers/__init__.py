"""Raw-text tool-call parsers, the streaming protocol, and the parser conformance kit.

Local models often write their tool calls as text. A parser, chosen by an explicit format name,
turns that text into OpenAI-shaped calls::

    >>> from tooleval_nb.parsers import parse_tool_calls
    >>> info = parse_tool_calls("[get_weather(city='Tokyo')]", "pythonic")
    >>> info.tool_calls[0].function.arguments
    '{"city": "Tokyo"}'

The formats are vLLM's ``--tool-call-parser`` names (``PARSER_FORMATS``; see docs/parsers.md).
The package reads as its architecture:

* the contract: :mod:`.protocol` (data model and the streaming base parser), :mod:`.reconstruct`;
* shared machines: :mod:`._scan` (incremental marker and bracket scanners), :mod:`._tagged`
  (the tagged-region machine most formats are a table for), the body readers
  :mod:`._calls` (JSON), :mod:`._pycalls` (Python calls), :mod:`._xmlargs` (XML-ish arguments),
  and the call streams that send a call's name and arguments as they are written:
  :mod:`._callstream` (the protocol), :mod:`._jsonstream` (with the JSON re-writer :mod:`._jsonwriter`), :mod:`._xmlstream`,
  :mod:`._seqstream`, :mod:`._pystream`;
* one module per format family: :mod:`.hermes`, :mod:`.mistral`, :mod:`.llama3_json`,
  :mod:`.generic_json`, :mod:`.openai` (harmony), and the table entries of :mod:`.jsontags`,
  :mod:`.xmltags`, :mod:`.tokencalls`, :mod:`.pythonic`;
* how a stream ends where the whole text does (:mod:`._settle`), and ``compat="vllm"``: each
  format read exactly as vLLM serves it (:mod:`.vllm`);
* the registry (:mod:`.registry`), raw-text prompts (:mod:`.prompting`, :mod:`.rendering`) and
  the conformance kit (:mod:`.corpus`, :mod:`.conformance`).

Streaming: ``get_parser(format)`` gives a fresh parser; ``feed(delta)`` returns a
:class:`DeltaMessage` (or None) and ``finish()`` flushes the rest; a
:class:`StreamingToolReconstructor` rebuilds the calls and checks the protocol. The conformance
kit (``load_corpus``, ``check_parser``) runs any parser over the standard corpus.
"""

from __future__ import annotations

from .conformance import (
    ExpectedParsedCall,
    ParserCase,
    ParserCorpus,
    check_parser,
    load_corpus,
)
from .prompting import example_exchange, render_tool_calls, render_tools_prompt, with_tools_prompt
from .protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    ToolParser,
)
from .reconstruct import StreamingToolReconstructor
from .registry import PARSER_FORMATS, ParserFormat, get_parser, parse_tool_calls
from .repair import repair_tool_call, repair_tool_calls

__all__ = [
    "parse_tool_calls",
    "get_parser",
    "PARSER_FORMATS",
    "ParserFormat",
    "ToolParser",
    "ExtractedToolCallInformation",
    "DeltaMessage",
    "DeltaToolCall",
    "DeltaFunctionCall",
    "StreamingToolReconstructor",
    "repair_tool_call",
    "repair_tool_calls",
    "check_parser",
    "load_corpus",
    "ParserCase",
    "ParserCorpus",
    "ExpectedParsedCall",
    "render_tools_prompt",
    "render_tool_calls",
    "example_exchange",
    "with_tools_prompt",
]
