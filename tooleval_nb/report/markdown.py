"""Text from a suite, a store or a model put into the report's Markdown, as text only.

nbconvert renders a Markdown output with the raw HTML in it, so a title or a suite name holding
``<img onerror=...>`` (or a backtick that ends a code span) would become markup in
``report.html``. :func:`markdown_text` and :func:`markdown_code` make any string show as the
characters it holds. Pure.
"""

from __future__ import annotations

import html
import re

__all__ = ["markdown_text", "markdown_code"]

#: Markdown's punctuation that makes markup inside a line: emphasis, code spans, links and
#: images (no link without ``[``), strike-through, table cells (``<``, ``>`` and ``&`` are
#: HTML-escaped instead). Block markup (``#``, ``-``, ``1.``) needs the start of a line, which
#: these helpers never put text at: they make one line, placed after text of ours.
_MARKUP = re.compile(r"([\\`*_\[\]|~])")


def markdown_text(text: object) -> str:
    """``text`` as Markdown that shows its characters, to put after text of ours on a line:
    inline markup punctuation backslash-escaped, ``<``, ``>`` and ``&`` as HTML entities, line
    breaks as spaces."""
    flat = " ".join(str(text).split())
    return html.escape(_MARKUP.sub(r"\\\1", flat), quote=False)


def markdown_code(text: object) -> str:
    """``text`` in a code face: an HTML ``<code>`` element around :func:`markdown_text` (a
    Markdown code span could be closed by a backtick in the text, and the content of an inline
    HTML element is still read as Markdown)."""
    return f"<code>{markdown_text(text)}</code>"
