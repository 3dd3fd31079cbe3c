"""The one scanner for "the first JSON object in a model's reply", lenient and strict."""

from __future__ import annotations

import pytest

from tooleval_nb.models.json_reply import extract_json_object


@pytest.mark.parametrize(
    ("text", "lenient", "strict"),
    [
        pytest.param(
            'say {"a": {"b": "}"}} ok', {"a": {"b": "}"}}, {"a": {"b": "}"}}, id="brace-in-str"
        ),
        pytest.param("```json\n{'a': True,}\n```", {"a": True}, None, id="python-literal"),
        pytest.param('{"a": 1', {"a": 1}, None, id="cut-off"),
        pytest.param('noise {bad} then {"ok": true}', {"ok": True}, {"ok": True}, id="skip-bad"),
        pytest.param("no json", None, None, id="none"),
    ],
)
def test_lenient_and_strict(text, lenient, strict):
    assert extract_json_object(text) == lenient
    assert extract_json_object(text, lenient=False) == strict


def test_want_prefers_the_object_with_that_key():
    assert extract_json_object('{"x": 1} {"prompt": "hi"}', want="prompt") == {"prompt": "hi"}
