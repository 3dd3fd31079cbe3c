"""Paired statistics: checked against textbook values and by brute-force enumeration."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval_nb.experiments import stats


@pytest.mark.parametrize(
    ("k", "n", "p"),
    [(0, 5, 0.3), (3, 10, 0.5), (7, 12, 0.2), (19, 20, 0.9)],
    ids=["k0", "mid", "upper", "near-n"],
)
def test_binom_cdf_equals_direct_sum(k, n, p):
    direct = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))
    assert stats.binom_cdf(k, n, p) == pytest.approx(direct, abs=1e-12)


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        (3, 10, 0.06673951, 0.65245285),  # R: binom.test(3, 10)$conf.int
        (0, 10, 0.0, 0.30849710),
        (6, 6, 0.54074187, 1.0),
    ],
    ids=["3of10", "0of10", "6of6"],
)
def test_clopper_pearson_matches_r(k, n, lo, hi):
    got = stats.clopper_pearson(k, n)
    assert got == pytest.approx((lo, hi), abs=1e-7)


@pytest.mark.parametrize(
    ("q", "df", "expected"),
    [(0.975, 10, 2.228139), (0.975, 29, 2.045230), (0.95, 3, 2.353363), (0.05, 5, -2.015048)],
    ids=["df10", "df29", "df3", "lower"],
)
def test_t_ppf_matches_tables(q, df, expected):
    assert stats.t_ppf(q, df) == pytest.approx(expected, abs=1e-5)


def test_mcnemar_exact_known_values():
    assert stats.mcnemar_exact(6, 0) == pytest.approx(2 / 64)
    assert stats.mcnemar_exact(3, 0) == pytest.approx(0.25)
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(5, 5) == 1.0


@settings(max_examples=200, deadline=None)
@given(wins=st.integers(0, 25), losses=st.integers(0, 25), ties=st.integers(0, 20))
def test_mcnemar_ci_agrees_with_its_test(wins, losses, ties):
    a = np.array([0] * wins + [1] * losses + [1] * ties, dtype=float)
    b = np.array([1] * wins + [0] * losses + [1] * ties, dtype=float)
    if a.size == 0:
        return
    res = stats.paired(a, b)
    assert res.method == "mcnemar"
    assert (res.wins, res.losses, res.ties) == (wins, losses, ties)
    assert res.ci_low <= res.delta <= res.ci_high
    if abs(res.p_value - 0.05) > 1e-9:  # exactly on the boundary either answer is right
        assert res.significant == (res.p_value < 0.05)


def test_bootstrap_is_seeded_and_covers_the_mean():
    rng = np.random.default_rng(0)
    a = rng.random(25)
    b = a + 0.1 + rng.normal(0, 0.05, 25)
    one = stats.paired(a, b, seed=3)
    two = stats.paired(a, b, seed=3)
    assert one == two
    assert one.method == "bootstrap"
    assert one.ci_low > 0 and one.p_value < 0.01
    assert one.ci_low < 0.1 < one.ci_high


def test_bootstrap_null_is_not_significant():
    rng = np.random.default_rng(1)
    a = rng.random(30)
    b = rng.permutation(a)
    res = stats.paired(a, b, method="bootstrap")
    assert not res.significant and res.p_value > 0.05


def test_t_method_agrees_with_bootstrap_roughly():
    rng = np.random.default_rng(2)
    a = rng.random(40)
    b = a + rng.normal(0.05, 0.2, 40)
    t = stats.paired(a, b, method="t")
    boot = stats.paired(a, b, method="bootstrap")
    assert t.delta == boot.delta
    assert t.ci_low == pytest.approx(boot.ci_low, abs=0.03)
    assert t.ci_high == pytest.approx(boot.ci_high, abs=0.03)


def test_cluster_bootstrap_is_wider_when_clusters_move_together():
    # two clusters that each shift as a block: case-level resampling is overconfident
    d = np.array([0.5] * 10 + [-0.3] * 10)
    a = np.full(20, 0.4)
    b = a + d
    flat = stats.paired(a, b, method="bootstrap")
    clustered = stats.paired(a, b, clusters=["x"] * 10 + ["y"] * 10)
    assert clustered.method == "bootstrap"
    assert clustered.ci_high - clustered.ci_low > flat.ci_high - flat.ci_low


def test_mcnemar_refuses_non_binary():
    with pytest.raises(ValueError, match="binary"):
        stats.paired([0.5, 1.0], [1.0, 1.0], method="mcnemar")


def test_mde_shrinks_with_n_and_never_zero():
    assert stats.mde(100, 0.5) < stats.mde(25, 0.5)
    assert stats.mde(25, 0.5) == pytest.approx(2.8016 * 0.5 / 5, abs=1e-3)
    same = stats.paired([1, 1, 0, 0], [1, 1, 0, 0])
    assert same.mde80 > 0 and (same.ci_low, same.ci_high) == (0.0, 0.0) and same.p_value == 1.0


def test_holm_adjustment():
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    nan_kept = stats.holm([float("nan"), 0.2])
    assert math.isnan(nan_kept[0]) and nan_kept[1] == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("values", "binary"),
    [([0, 1, 1], True), ([0.0, 0.5], False), ([], False)],
    ids=["binary", "fraction", "empty"],
)
def test_is_binary(values, binary):
    assert stats.is_binary(values) is binary


def test_mean_ci_wilson_and_t():
    mean, lo, hi = stats.mean_ci([1] * 8 + [0] * 2)
    assert (
        mean == 0.8
        and lo == pytest.approx(0.4902, abs=1e-3)
        and hi == pytest.approx(0.9433, abs=1e-3)
    )
    mean, lo, hi = stats.mean_ci([0.2, 0.4, 0.6])
    assert mean == pytest.approx(0.4) and lo == 0.0 and hi == pytest.approx(0.8968, abs=1e-3)


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.137, "≈ 14 pts"), (1.4, "over 100 pts"), (float("nan"), "unknown")],
    ids=["normal", "hopeless", "nan"],
)
def test_describe_mde(value, text):
    assert stats.describe_mde(value).startswith(text)
