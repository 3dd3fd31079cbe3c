"""space(), uniform(): canonical expansion, conditions, seeded sampling."""

from __future__ import annotations

import pytest

from tooleval_nb.errors import ExperimentError
from tooleval_nb.experiments.config import Config
from tooleval_nb.experiments.sweep.space import DEFAULT_SPACE, Condition, space, uniform


def test_greedy_top_p_collapses_to_one_trial():
    exp = space(temperature=[0], top_p=[0.8, 1.0]).expand(Config())
    assert exp.n_raw == 2 and exp.n_canonical == 1
    assert exp.describe() == "collapsed 2 → 1 configs"
    assert exp.assignments == [{"temperature": 0.0, "top_p": None}]


def test_default_space_has_sixteen_configs():
    exp = DEFAULT_SPACE.expand(Config())
    assert exp.n_canonical == 16 and exp.n_raw == 16
    assert len({c.key for c in exp.configs}) == 16


def test_mixed_space_collapse_count():
    exp = space(
        temperature=[0.0, 0.7], top_p=[0.8, 0.9, 1.0], tool_choice=["auto", "required"]
    ).expand(Config())
    # greedy: 2 tool_choice; sampled: 3 top_p x 2 tool_choice
    assert exp.n_raw == 12 and exp.n_canonical == 8
    assert exp.collapsed[Config().key] == 3


def test_conditional_uniform():
    sp = space(temperature=[0.0, 0.5], repeat_penalty=uniform(1.0, 1.2, when="temperature > 0"))
    exp = sp.expand(Config())
    assert exp.n_canonical == 4  # greedy: penalty dropped to base; sampled: 3 grid points
    greedy = [a for a in exp.assignments if a["temperature"] == 0]
    assert greedy == [{"temperature": 0.0, "repeat_penalty": None}]


def test_random_sampling_is_seeded_distinct_and_discrete():
    sp = space(temperature=[0.0, 0.7], top_p=[0.8, 1.0], max_tokens=[128, 256])
    one = sp.sample(Config(), 3, seed=4)
    assert [c.key for c in one.configs] == [c.key for c in sp.sample(Config(), 3, seed=4).configs]
    assert len({c.key for c in one.configs}) == 3
    for cfg in one.configs:
        assert cfg.params.get("top_p") in (None, 0.8, 1.0)


def test_random_sampling_of_uniform_range():
    sp = space(temperature=uniform(0.1, 0.9))
    got = sp.sample(Config(), 5, seed=0)
    assert got.n_canonical == 5
    assert all(0.1 <= c.temperature <= 0.9 for c in got.configs)


@pytest.mark.parametrize(
    ("text", "cfg", "holds"),
    [
        ("temperature > 0", Config(temperature=0.5), True),
        ("temperature > 0", Config(), False),
        ("tool_choice == 'required'", Config(tool_choice="required"), True),
        ("top_p <= 0.9", Config(), False),  # missing key: condition false
    ],
    ids=["gt-true", "gt-false", "string-eq", "missing"],
)
def test_conditions(text, cfg, holds):
    assert Condition.parse(text).holds(cfg) is holds


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: space(), "at least one"),
        (lambda: space(temperature=[]), "no values"),
        (lambda: Condition.parse("__import__('os')"), "not understood"),
    ],
    ids=["empty", "empty-list", "no-eval"],
)
def test_space_errors(call, match):
    with pytest.raises(ExperimentError, match=match):
        call()


def test_space_to_json_dict():
    sp = space(temperature=[0, 0.7], top_p=uniform(0.8, 1.0, when="temperature > 0"))
    assert sp.to_json_dict() == {
        "temperature": [0, 0.7],
        "top_p": {"uniform": [0.8, 1.0], "when": "temperature > 0", "grid_points": 3},
    }
