"""The one interval of a mean score (:mod:`tooleval_nb.scoring.interval`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tooleval_nb.scoring import interval_method, mean_ci
from tooleval_nb.scoring.interval import t_ppf, wilson


@pytest.mark.parametrize(
    ("q", "df", "want"),
    [
        pytest.param(0.975, 1, 12.7062, id="df1"),
        pytest.param(0.975, 10, 2.2281, id="df10"),
        pytest.param(0.95, 30, 1.6973, id="df30-one-sided"),
        pytest.param(0.5, 5, 0.0, id="median"),
    ],
)
def test_t_quantiles_match_the_tables(q, df, want):
    assert t_ppf(q, df) == pytest.approx(want, abs=1e-3)


@pytest.mark.parametrize(
    ("k", "n", "want"),
    [
        pytest.param(8, 10, (0.4902, 0.9433), id="8-of-10"),
        pytest.param(0, 10, (0.0, 0.2775), id="none"),
        pytest.param(0, 0, (0.0, 1.0), id="no-trials"),
    ],
)
def test_wilson_matches_the_textbook(k, n, want):
    assert wilson(k, n) == pytest.approx(want, abs=1e-3)


@pytest.mark.parametrize(
    ("values", "method"),
    [
        pytest.param([1, 0, 1, 1], "wilson", id="pass-rate"),
        pytest.param([0.5, 1.0, 0.25], "t", id="scores"),
        pytest.param([1.0, 1.0], "wilson", id="all-passed"),
    ],
)
def test_the_method_follows_the_values(values, method):
    assert interval_method(values) == method


def test_binary_values_get_the_wilson_interval():
    assert mean_ci([1, 0, 1, 1, 1, 0, 1, 1, 1, 1]) == pytest.approx((0.8, *wilson(8, 10)))


def test_scores_get_the_t_interval_clipped_to_the_unit_range():
    values = np.array([0.9, 1.0, 0.95, 0.99])
    mean, low, high = mean_ci(values)
    half = t_ppf(0.975, 3) * values.std(ddof=1) / 2
    assert (mean, low, high) == pytest.approx((values.mean(), values.mean() - half, 1.0))


def test_nans_are_left_out():
    assert mean_ci([1.0, float("nan"), 0.0]) == pytest.approx(mean_ci([1.0, 0.0]))


@pytest.mark.parametrize("values", [pytest.param([], id="empty"), pytest.param([0.4], id="one")])
def test_no_spread_gives_nan_bounds(values):
    _, low, high = mean_ci(values)
    assert math.isnan(low) and math.isnan(high)


def test_bad_coverage_is_refused():
    with pytest.raises(ValueError, match="ci must be between 0 and 1"):
        mean_ci([1, 0], ci=95)
