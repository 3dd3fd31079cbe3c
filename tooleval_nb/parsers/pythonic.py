"""Python-syntax formats: ``[f(a=1), g(b='x')]`` lists, bare or wrapped (one table entry each).

Calls are read by :mod:`._pycalls` (``ast``, never ``eval``).

* ``pythonic`` (Llama 3.2, ToolACE) and ``llama4_pythonic`` (Llama 4): a list of calls anywhere
  in the text (``Text before [tool()] text after``). Every bracketed list that starts with a
  name is examined; one that is not a list of calls (``[see above]``, ``[1, 2]``) is plain
  content, and one that starts like a call but does not parse (``[func(arg=undefined)]``,
  ``[func(arg='val']``) is content with the reason in ``problems``. Llama 4's wrapper tokens
  ``<|python_start|>`` and ``<|python_end|>`` are dropped wherever they appear, so they never
  reach the content, the list inside is read as usual (vLLM strips them too).
* ``lfm2`` (LiquidAI LFM2): the list between ``<|tool_call_start|>`` and ``<|tool_call_end|>``.
* ``olmo3`` (Olmo 3): calls one per line between ``<function_calls>`` and ``</function_calls>``,
  JSON's ``true`` / ``false`` / ``null`` accepted besides Python's.

Text around the calls is content (vLLM keeps the text before and, for LFM2, after; we keep both
for every format).

Streaming (:mod:`._pystream`): a call is sent at the ``(`` after its name; string literals stream
inside their quotes, other values are sent at the ``,`` or ``)`` after them. Committed after
that first delta: a later error (``undefined``, a bracket that does not match) keeps the call,
its arguments closed where they stopped, with the error in ``problems``.
"""

from __future__ import annotations

import re

from ._pycalls import python_calls
from ._pystream import python_stream
from ._tagged import Region, TaggedParser

__all__ = ["PythonicParser", "Llama4PythonicParser", "Lfm2Parser", "Olmo3Parser"]

_CALL_LIKE = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*\(")
_LIST = python_calls()
#: a call is sent at the "(" after its name; string values stream inside their quotes, other
#: values are sent when they end (see ._pystream)
_STREAM = python_stream()


class PythonicParser(TaggedParser):
    """Streaming parser for Python-syntax lists of calls (``pythonic``)."""

    format = "pythonic"
    regions = (
        Region("[", _LIST, syntax="python", bare=True, call_like=_CALL_LIKE, stream=_STREAM),
    )
    drop = ("<|python_start|>", "<|python_end|>")


class Llama4PythonicParser(PythonicParser):
    """``llama4_pythonic`` (Llama 4): ``<|python_start|>[f(a=1)]<|python_end|>``, the wrapper
    optional; the same reading as ``pythonic``."""

    format = "llama4_pythonic"


class Lfm2Parser(TaggedParser):
    """``lfm2`` (LiquidAI LFM2 / LFM2.5): ``<|tool_call_start|>[f(a=1)]<|tool_call_end|>``."""

    format = "lfm2"
    regions = (Region("<|tool_call_start|>", _LIST, end="<|tool_call_end|>", stream=_STREAM),)


class Olmo3Parser(TaggedParser):
    """``olmo3`` (Olmo 3): ``<function_calls>`` then one call per line, then
    ``</function_calls>``."""

    format = "olmo3"
    regions = (
        Region(
            "<function_calls>",
            python_calls(lines=True, json_literals=True),
            end="</function_calls>",
            stream=python_stream(lines=True, json_literals=True),
        ),
    )
