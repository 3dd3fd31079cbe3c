"""The one display guard (``tooleval_nb.display.mimebundle``) and the objects that use it."""

from __future__ import annotations

import pytest

from tooleval_nb.display import mimebundle
from tooleval_nb.formats import example_suite


def _broken() -> str:
    raise KeyError("a column the frame no longer has")


@pytest.mark.parametrize(
    ("html", "want"),
    [
        pytest.param(lambda: "<b>x</b>", {"text/plain": "x", "text/html": "<b>x</b>"}, id="html"),
        pytest.param(_broken, {"text/plain": "x"}, id="failing-html-falls-back-to-text"),
        pytest.param(None, {"text/plain": "x"}, id="text-only"),
    ],
)
def test_mimebundle(html, want):
    assert mimebundle("x", html) == want


def test_a_suite_that_fails_to_render_still_shows_its_text(monkeypatch):
    suite = example_suite()
    assert "text/html" in suite._repr_mimebundle_()
    monkeypatch.setattr(type(suite), "cases_df", lambda self: _broken())
    assert suite._repr_mimebundle_() == {"text/plain": repr(suite)}
