"""``compat="vllm"``: read a whole output exactly as vLLM serves its ``--tool-call-parser``.

Our default parse keeps text around the calls as content and degrades a malformed call to
content with a problem, format by format. vLLM's parsers make other choices: most drop the text
after the calls, some drop text between them, some accept what we refuse (a JSON string as
arguments, an unclosed region) and refuse what we accept (negative numbers in pythonic calls,
a second call marker). A user who evaluates raw completions to predict what a vLLM server will
return needs vLLM's exact reading: ``parse_tool_calls(text, fmt, compat="vllm")``.

Each format's reading here is written from what vLLM's ``extract_tool_calls`` of that parser
does (read, not copied; the commits read are in each module), in vLLM's ``vllm/tool_parsers/``
layout of :data:`VLLM_VERSION`; ``step3p5``, which that release does not have, follows the first
release that has it (0.16.0, see :mod:`._expat`). What vLLM returns is mapped onto our data model with three
rules, the same for every format:

* **content**: with calls, vLLM's content stripped (None when empty), as our content rule does;
  without calls, vLLM's content as is (``""`` where vLLM gives None).
* **arguments**: vLLM's arguments string, character for character. Where vLLM would serve
  arguments that are not a JSON object (a list, a number, text), no client can use them and our
  streaming protocol cannot carry them: the output is read as content, with a problem naming
  the call and what vLLM would have served.
* **errors**: where vLLM's parser raises (the server answers with an error, not a message), the
  output is content, with a problem saying so. Nothing here raises.

Streaming in this mode uses our streaming machine, and the stream's last delta settles it to
this reading (see :mod:`.._settle`), so a streamed reply ends exactly where vLLM's whole-text
reading does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ...errors import ParserError
from ...toolcall import FunctionCall, ToolCall, make_call_id
from ..messages import ExtractedToolCallInformation, final_content
from ..protocol import ToolParser, tool_schemas
from ._expat import EXPAT_READERS
from ._json import JSON_READERS
from ._listed import LISTED_READERS
from ._pythonic import PYTHONIC_READERS
from ._reading import Reading
from ._tokens import TOKEN_READERS
from ._xml import XML_READERS

__all__ = ["VLLM_VERSION", "VLLM_FORMATS", "VLLM_UNREAD", "parse", "check_format", "Reading"]

#: the vLLM release line whose parsers this mode follows (``vllm/tool_parsers/``)
VLLM_VERSION = "0.14"

#: format name -> vLLM's whole-text reading of it
READERS: dict[str, Callable[[str, dict[str, dict[str, Any]] | None], Reading]] = {
    **JSON_READERS,
    **TOKEN_READERS,
    **PYTHONIC_READERS,
    **LISTED_READERS,
    **XML_READERS,
    **EXPAT_READERS,
}

#: the formats ``compat="vllm"`` reads (the others raise ParserError naming these)
VLLM_FORMATS: tuple[str, ...] = tuple(READERS)

#: the formats this mode does not read, and why
VLLM_UNREAD: dict[str, str] = {
    "json": "vLLM has no tool-call parser of that name (our generic JSON reading is ours alone)",
    "openai": (
        "vLLM's openai parser reads gpt-oss output only from its token ids, through "
        "openai_harmony (on text alone it raises NotImplementedError); re-encoding a text "
        "needs harmony's o200k_base vocabulary, which openai_harmony downloads at first use "
        "from outside the package registries (no wheel ships it), so that reading cannot run "
        "or be checked offline"
    ),
}


def parse(
    cls: type[ToolParser], text: str, tools: list[Any] | None
) -> ExtractedToolCallInformation:
    """The whole-text parse of ``text`` as vLLM's parser of ``cls.format`` serves it."""
    reading = READERS[check_format(cls.format)](text, tool_schemas(tools))
    problems = list(reading.problems)
    if reading.error is not None:
        problems.append(
            f"vLLM's {cls.format} parser raises on this output ({reading.error}): the server "
            "answers with an error; the output is kept as content"
        )
        return ExtractedToolCallInformation(tools_called=False, content=text, problems=problems)
    calls: list[ToolCall] = []
    for k, (name, arguments) in enumerate(reading.calls):
        bad = _unusable(name, arguments)
        if bad is not None:
            problems.append(
                f"vLLM's {cls.format} parser would serve tool call {k} as {name!r} with "
                f"arguments {str(arguments)[:60]!r}, {bad}; the output is kept as content"
            )
            return ExtractedToolCallInformation(tools_called=False, content=text, problems=problems)
        call_id = make_call_id(9, prefix="") if cls.id_style == "mistral" else make_call_id()
        calls.append(ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments)))
    if calls:
        content = final_content(reading.content or "", True)
    else:
        content = reading.content if reading.content is not None else ""
    return ExtractedToolCallInformation(
        tools_called=bool(calls), tool_calls=calls, content=content, problems=problems
    )


def check_format(fmt: str) -> str:
    """``fmt`` when this mode reads it; otherwise a ParserError that names the formats read."""
    if fmt not in READERS:
        why = VLLM_UNREAD.get(fmt, "it is not written yet")
        raise ParserError(
            f"compat='vllm' does not read the {fmt!r} format: {why}. It reads "
            f"{', '.join(VLLM_FORMATS)} (vLLM {VLLM_VERSION}); use compat='default' for {fmt!r}"
        )
    return fmt


def _unusable(name: Any, arguments: Any) -> str | None:
    """Why a call vLLM would serve cannot be one of ours, or None."""
    if not isinstance(name, str) or not name:
        return "a name that is not a non-empty string"
    if not isinstance(arguments, str):
        return "arguments that are not a string"
    try:
        value = json.loads(arguments)
    except ValueError:
        return "arguments that are not JSON"
    if not isinstance(value, dict):
        return "arguments that are not a JSON object"
    return None
