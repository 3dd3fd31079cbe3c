"""Formats whose arguments are XML-ish elements with raw-text values (one table entry each).

Values are typed by the tools' schemas as :mod:`._xmlargs` describes (without a schema, JSON
literals keep their type and the rest is text). Text around the calls is content (vLLM keeps
the text before the first call and drops what follows the calls; we keep both). A block that
does not read as calls stays in the content, tags included, with the reason in ``problems``;
the last block may be unclosed.

Streaming (:mod:`._xmlstream`): a call is sent at the ``>`` of its ``<function=NAME>`` /
``<invoke name="NAME">`` tag (GLM: at the whitespace or ``<`` after the name); a ``string``
value (by the schema) streams inside its quotes, other values are sent at their closing tag.
Committed after that first delta: a later error keeps the call with the error in ``problems``.
``<think>`` ... ``</think>`` is reasoning (Qwen3, GLM).
"""

from __future__ import annotations

import re

from ._tagged import THINK, Region, TaggedParser
from ._xmlargs import arg_pairs, function_params, invoke_params
from ._xmlstream import element_stream, pair_stream

#: the call streams: a call is sent at the ``>`` that ends its name tag; a ``string`` value streams
#: inside its quotes, any other value is sent when its closing tag arrives
_FUNCTION = element_stream("<function=", ">", "</function>", ("<parameter=", ">", "</parameter>"))
_BARE_FUNCTION = element_stream(
    "<function=", ">", "</function>", ("<parameter=", ">", "</parameter>"), confirm=True
)
_INVOKE = element_stream(
    "<invoke name=", ">", "</invoke>", ("<parameter name=", ">", "</parameter>")
)
_BARE_CALL = re.compile(r"<function=[^\s<>]+>\s*(?:<parameter=|</function>)")

__all__ = ["Qwen3CoderParser", "Step3p5Parser", "SeedOssParser", "Glm45Parser", "MinimaxM2Parser"]


class Qwen3CoderParser(TaggedParser):
    """``qwen3_coder`` (Qwen3-Coder, Qwen3.5)::

        <tool_call>
        <function=get_weather>
        <parameter=city>
        Tokyo
        </parameter>
        </function>
        </tool_call>

    One ``<function=...>`` per block (several are read), several blocks per reply. A bare
    ``<function=NAME>...</function>`` element without ``<tool_call>`` is read too, as vLLM
    does; one that does not read as a call is content, with a problem only when it starts like
    a call (``<function=NAME>`` then ``<parameter=``)."""

    format = "qwen3_coder"
    think = THINK
    regions = (
        Region("<tool_call>", function_params(), end="</tool_call>", stream=_FUNCTION),
        Region(
            "<function=",
            function_params(),
            end="</function>",
            bare=True,
            call_like=_BARE_CALL,
            stream=_BARE_FUNCTION,
        ),
    )


class Step3p5Parser(Qwen3CoderParser):
    """``step3p5`` (Step-3.5): the Qwen3-Coder layout, ``<tool_call><function=NAME>
    <parameter=KEY>VALUE</parameter></function></tool_call>``."""

    format = "step3p5"


class SeedOssParser(TaggedParser):
    """``seed_oss`` (Seed-OSS): the Qwen3-Coder layout inside ``<seed:tool_call>`` ...
    ``</seed:tool_call>``; ``<seed:think>`` ... ``</seed:think>`` is reasoning."""

    format = "seed_oss"
    regions = (
        Region("<seed:tool_call>", function_params(), end="</seed:tool_call>", stream=_FUNCTION),
    )
    think = ("<seed:think>", "</seed:think>")


class Glm45Parser(TaggedParser):
    """``glm45`` (GLM-4.5 / 4.6; GLM-4.7's ``glm47`` writes the same without the newline after
    the name)::

        <tool_call>get_weather
        <arg_key>city</arg_key>
        <arg_value>Tokyo</arg_value>
        </tool_call>
    """

    format = "glm45"
    think = THINK
    regions = (Region("<tool_call>", arg_pairs(), end="</tool_call>", stream=pair_stream()),)


class MinimaxM2Parser(TaggedParser):
    """``minimax_m2`` (MiniMax-M2): ``<minimax:tool_call>`` then ``<invoke name="NAME">``
    ``<parameter name="KEY">VALUE</parameter>`` ... ``</invoke>`` (several), then
    ``</minimax:tool_call>``."""

    format = "minimax_m2"
    regions = (
        Region("<minimax:tool_call>", invoke_params(), end="</minimax:tool_call>", stream=_INVOKE),
    )
