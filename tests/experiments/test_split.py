"""split(): stratified, seeded, disjoint, with a minimum holdout."""

from __future__ import annotations

import pytest

from tooleval_nb.errors import ExperimentError
from tooleval_nb.experiments.split import Split, split
from tooleval_nb.suite import EvalCase, Suite, Tool


def make_suite(n: int, categories: tuple[str, ...] = ("a", "b")) -> Suite:
    tool = Tool.create("get_weather", "Weather", {"city": {"type": "string"}}, ["city"])
    cases = [
        EvalCase(
            id=f"c{i:02d}",
            prompt=f"weather in Town{i}",
            expected_tool="get_weather",
            expected_params={"city": f"Town{i}"},
            category=categories[i % len(categories)],
            tags=[f"t{i % 3}"],
        )
        for i in range(n)
    ]
    return Suite(name="s", tools=[tool], cases=cases)


def test_split_is_disjoint_complete_and_seeded():
    suite = make_suite(40)
    sp = split(suite, holdout=0.25, seed=1)
    assert set(sp.dev).isdisjoint(sp.holdout)
    assert set(sp.dev) | set(sp.holdout) == {c.id for c in suite.cases}
    assert len(sp.holdout) == 10
    assert split(suite, holdout=0.25, seed=1) == sp
    assert split(suite, holdout=0.25, seed=2) != sp


def test_split_is_stratified():
    suite = make_suite(40, ("a", "a", "a", "b"))  # 30 a, 10 b
    sp = split(suite, holdout=0.2, by="category", seed=0)
    held = [suite.case(i).category for i in sp.holdout]
    assert held.count("a") == 6 and held.count("b") == 2


@pytest.mark.parametrize(
    ("n", "holdout", "min_holdout", "expected"),
    [
        (20, 0.1, 8, 8),
        (10, 0.1, 8, 5),
        (3, 0.3, 8, 1),
        (40, 0.3, 8, 12),
        (20, 0.0, 8, 0),
    ],
    ids=["raised", "capped-half", "tiny", "share-wins", "no-holdout"],
)
def test_min_holdout(n, holdout, min_holdout, expected):
    sp = split(make_suite(n), holdout=holdout, min_holdout=min_holdout)
    assert len(sp.holdout) == expected
    if expected > round(holdout * n):
        assert any("min_holdout" in note for note in sp.notes)


def test_split_subset_and_ids():
    suite = make_suite(12)
    sp = split(suite, holdout=0.5, by=None)
    dev = sp.subset(suite, "dev")
    assert [c.id for c in dev.cases] == list(sp.dev)
    assert sp.ids("all") == [*sp.dev, *sp.holdout]
    with pytest.raises(ExperimentError, match="not in suite"):
        Split(dev=("nope",), holdout=()).subset(suite, "dev")


@pytest.mark.parametrize("by", ["tag", None, lambda c: c.id[-1]], ids=["tag", "none", "callable"])
def test_split_strata_options(by):
    sp = split(make_suite(20), holdout=0.4, by=by, min_holdout=0)
    assert len(sp.holdout) == 8


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"holdout": 1.0}, "must be in"), ({"by": "colour"}, "not supported")],
    ids=["holdout-1", "bad-by"],
)
def test_split_errors(kwargs, match):
    with pytest.raises(ExperimentError, match=match):
        split(make_suite(10), **kwargs)
