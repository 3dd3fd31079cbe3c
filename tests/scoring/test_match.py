"""Every parameter match mode, with its edges."""

from __future__ import annotations

import time

import pytest

from tooleval_nb.errors import RegexTimeoutError, ScoringError
from tooleval_nb.scoring import match_value
from tooleval_nb.suite import ScoringConfig

CASES = [
    # exact
    ("exact", "Paris", "paris", None, True),
    ("exact", "Paris", "Paris, France", None, False),
    ("exact", 3, 3.0, None, True),
    ("exact", 3, "3", None, False),
    ("exact", True, True, None, True),
    ("exact", True, 1, None, False),
    ("exact", 0.1 + 0.2, 0.3, None, False),
    ("exact", {"a": "X", "b": [1, 2]}, {"b": [1.0, 2], "a": "x"}, None, True),
    ("exact", None, None, None, True),
    # case_insensitive
    ("case_insensitive", "Paris", "  PARIS ", None, True),
    ("case_insensitive", 5, "5", None, True),
    ("case_insensitive", 5.0, "5", None, True),
    ("case_insensitive", {"a": 1}, {"A": 1}, None, True),
    ("case_insensitive", "Paris", "Pariss", None, False),
    # contains
    ("contains", "paris", "Paris, France", None, True),
    ("contains", "Paris, France", "paris", None, True),
    ("contains", "Rome", "Paris, France", None, False),
    ("contains", "", "anything", None, False),
    ("contains", "", "", None, True),
    ("contains", 3, 3.0, None, True),
    # numeric_tolerance
    ("numeric_tolerance", 1.0, 1.009, None, True),
    ("numeric_tolerance", 1.0, 1.02, None, False),
    ("numeric_tolerance", 1.0, 1.4, ScoringConfig(epsilon=0.5), True),
    ("numeric_tolerance", 10, "10.001", None, True),
    ("numeric_tolerance", "abc", "ABC", None, True),
    ("numeric_tolerance", 1.0, "nan", None, False),
    # regex
    ("regex", r"\d{3}-\d{4}", "555-1234", None, True),
    ("regex", r"\d{3}", "555-1234", None, False),
    ("regex", r"(?i)paris", "PARIS", None, True),
    ("regex", r"4\d", 42, None, True),
    # fuzzy
    ("fuzzy", "New York City", "new york cty", None, True),
    ("fuzzy", "Paris", "London", None, False),
    ("fuzzy", "colour", "color", ScoringConfig(threshold=0.95), False),
    ("fuzzy", "colour", "color", ScoringConfig(threshold=0.9), True),
    ("fuzzy", 5, 5.0, None, True),
]


@pytest.mark.parametrize(
    ("mode", "expected", "actual", "cfg", "ok"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_mode(mode, expected, actual, cfg, ok):
    assert match_value(expected, actual, mode, cfg) is ok


def test_regex_catastrophic_pattern_is_bounded():
    cfg = ScoringConfig(regex_timeout=0.2)
    started = time.perf_counter()
    with pytest.raises(RegexTimeoutError, match="did not finish within 0.2 s"):
        match_value(r"(a|aa)+$", "a" * 40 + "b", "regex", cfg)
    assert time.perf_counter() - started < 5


def test_invalid_regex_is_a_scoring_error():
    with pytest.raises(ScoringError, match="invalid regular expression"):
        match_value("([a-z", "abc", "regex")


def test_unknown_mode():
    with pytest.raises(ScoringError, match="unknown scoring mode"):
        match_value("a", "a", "telepathy")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("expected", "actual", "ok"),
    [
        ("New York City", "NYC", True),
        ("Paris", "Paris, France", True),
        ("apple", "car engine", False),
        ("Tokyo", "New York City", False),
        ("weather forecast", "Weather Forecast", True),
        (7, 7.0, True),
    ],
    ids=[
        "abbreviation",
        "qualified-name",
        "unrelated",
        "unrelated-city",
        "same-text-other-case",
        "numbers-exact",
    ],
)
def test_semantic_with_offline_embeddings(expected, actual, ok):
    assert match_value(expected, actual, "semantic") is ok


def test_semantic_threshold_configurable():
    from tooleval_nb.scoring import similarity

    sim = similarity("New York City", "NYC")
    assert 0.5 < sim < 0.95
    assert (
        match_value("New York City", "NYC", "semantic", ScoringConfig(threshold=sim + 0.01))
        is False
    )
    assert (
        match_value("New York City", "NYC", "semantic", ScoringConfig(threshold=sim - 0.01)) is True
    )
