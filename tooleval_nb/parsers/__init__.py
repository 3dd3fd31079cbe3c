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

The names load on first use (:mod:`tooleval_nb._lazy`: each is written once, in the
``TYPE_CHECKING`` block below), and a format's module loads when the format is first asked for
(:mod:`.registry`): the models' raw-text wire imports the few names it needs without loading
the thirty formats or the conformance kit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:  # the one list of public names; at run time _lazy.attach reads it
    from .conformance import ExpectedParsedCall as ExpectedParsedCall
    from .conformance import ParserCase as ParserCase
    from .conformance import ParserCorpus as ParserCorpus
    from .conformance import check_parser as check_parser
    from .conformance import load_corpus as load_corpus
    from .prompting import example_exchange as example_exchange
    from .prompting import render_tool_calls as render_tool_calls
    from .prompting import render_tools_prompt as render_tools_prompt
    from .prompting import with_tools_prompt as with_tools_prompt
    from .protocol import DeltaFunctionCall as DeltaFunctionCall
    from .protocol import DeltaMessage as DeltaMessage
    from .protocol import DeltaToolCall as DeltaToolCall
    from .protocol import ExtractedToolCallInformation as ExtractedToolCallInformation
    from .protocol import ToolParser as ToolParser
    from .reconstruct import StreamingToolReconstructor as StreamingToolReconstructor
    from .registry import PARSER_FORMATS as PARSER_FORMATS
    from .registry import ParserFormat as ParserFormat
    from .registry import get_parser as get_parser
    from .registry import parse_tool_calls as parse_tool_calls
    from .repair import repair_tool_call as repair_tool_call
    from .repair import repair_tool_calls as repair_tool_calls

if not TYPE_CHECKING:  # hidden from type checkers: they read the block above as plain imports
    __getattr__, __dir__, __all__ = attach(__name__)
