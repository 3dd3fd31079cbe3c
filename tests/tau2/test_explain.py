"""tau2/explain.py's database diff: DeepDiff on what differs only, the same lines as on the whole."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("deepdiff")

from deepdiff import DeepDiff  # noqa: E402

from tooleval_nb.tau2.explain import DEEPER, _differing, _lines  # noqa: E402

_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from([0.0, 1.0, 2.5]),
    st.text(max_size=2),
)
_values = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=2), inner, max_size=5)
    ),
    max_leaves=30,
)
_databases = st.dictionaries(st.text(max_size=2), _values, max_size=6)


def _edit(value: Any, draw: Any) -> Any:
    """``value`` with a few of its mapping entries changed, added or removed."""
    if isinstance(value, dict):
        out = dict(value)
        for key in list(out):
            choice = draw(st.integers(0, 5))
            if choice == 0:
                del out[key]
            elif choice == 1:
                out[key] = draw(_values)
            elif choice == 2:
                out[key] = _edit(out[key], draw)
        if draw(st.booleans()):
            out[draw(st.text(max_size=2))] = draw(_values)
        return out
    if isinstance(value, list) and value and draw(st.booleans()):
        return [*value[:-1], draw(_values)]
    return value


@settings(max_examples=400, deadline=None)
@given(gold=_databases, data=st.data())
def test_the_narrowed_diff_says_what_the_whole_diff_says(gold: dict, data: Any) -> None:
    got = _edit(copy.deepcopy(gold), data.draw)
    whole = _lines(DeepDiff(gold, got, verbose_level=2, threshold_to_diff_deeper=DEEPER))
    narrowed = DeepDiff(*_differing(gold, got), verbose_level=2, threshold_to_diff_deeper=DEEPER)
    assert _lines(narrowed) == whole


def test_only_what_differs_is_kept() -> None:
    gold = {"users": {"a": {"name": "A", "n": 1}, "b": {"name": "B"}}, "flights": [1, 2]}
    got = {"users": {"a": {"name": "A", "n": 2}, "b": {"name": "B"}, "c": {}}, "flights": [1, 2]}
    assert _differing(gold, got) == (
        {"users": {"a": {"n": 1}}},
        {"users": {"a": {"n": 2}, "c": {}}},
    )
    assert _lines(DeepDiff(*_differing(gold, got), verbose_level=2)) == [
        "['users']['a']['n']: gold 1 -> got 2",
        "['users']['c']: only in the conversation's",
    ]
