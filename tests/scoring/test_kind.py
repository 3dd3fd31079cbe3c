"""How a case is scored (``scoring/kind.py``): the four kinds, the first that applies."""

from __future__ import annotations

import pytest

from tooleval_nb.scoring import case_kind
from tooleval_nb.suite import EvalCase, Expectations, ExpectedCall


@pytest.mark.parametrize(
    ("fields", "kind"),
    [
        ({"expected_tool": "get_weather"}, "call"),
        ({"expected_calls": [ExpectedCall(name="get_weather")]}, "call"),
        ({"expected_tool": None}, "no_call"),
        ({"expected": Expectations(output_contains=["Paris"])}, "agent"),
        # a chain before anything else: its turns carry their own expectations
        ({"multi_turn": True, "expected_tool": "get_weather"}, "chain"),
        # a call case with an expected block is scored as a call case (the block checked on top)
        (
            {"expected_tool": "get_weather", "expected": Expectations(output_contains=["Paris"])},
            "call",
        ),
    ],
)
def test_each_kind_and_which_comes_first(fields: dict, kind: str) -> None:
    assert case_kind(EvalCase(id="c", prompt="Weather in Paris?", **fields)) == kind
