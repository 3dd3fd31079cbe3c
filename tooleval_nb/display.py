"""The one display guard of the package's ``_repr_mimebundle_`` methods (pure; imports nothing
of ours): a notebook always gets the plain text, and the HTML only when it renders. A failure
while rendering HTML must never break the notebook, so it falls back to the text (altair's
display does the same)."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["mimebundle"]


def mimebundle(text: str, html: Callable[[], str] | None = None) -> dict[str, str]:
    """``{"text/plain": text, "text/html": html()}``; only the text when ``html`` is None or
    raises (any exception: rendering is never worth an error in the notebook)."""
    if html is None:
        return {"text/plain": text}
    try:
        page = html()
    except Exception:  # rendering must never break the notebook
        return {"text/plain": text}
    return {"text/plain": text, "text/html": page}
