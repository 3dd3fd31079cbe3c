"""A griffe extension for the docs site: our docstrings use reStructuredText's cross-reference
roles (``:class:`~tooleval_nb.runner.Run```, ``:func:`run_eval```); mkdocstrings renders Markdown,
where they would show as raw text. Each role becomes inline code of the name it shows (the last
part with ``~``, as Sphinx shows it). mkdocs.yml loads it (``extensions:`` of the Python handler).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|exc|obj|const|ref):`(~?)\.?([^`]+)`")


_LITERAL = re.compile(r"(\S)?[ ]?::$", re.MULTILINE)


def plain_roles(text: str) -> str:
    """``text`` with every reST cross-reference role written as inline code, and ``::`` at
    the end of a line (a literal block follows) written as ``:``."""

    def shown(match: re.Match[str]) -> str:
        name = match.group(2).strip()
        if "<" in name and name.endswith(">"):  # :ref:`text <target>` shows its text
            name = name[: name.index("<")].strip()
        elif match.group(1):
            name = name.rsplit(".", 1)[-1]
        return f"`{name}`"

    # reST's "text::" introduces a literal block, which Markdown knows by its indent alone
    return _LITERAL.sub(lambda m: m.group(1) + ":" if m.group(1) else "", _ROLE.sub(shown, text))


class PlainRoles(griffe.Extension):
    """Rewrites the roles of every docstring griffe loads."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(obj.docstring.value)
