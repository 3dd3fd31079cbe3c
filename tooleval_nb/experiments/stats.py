"""Paired statistics without scipy: exact binomial tails, McNemar, bootstrap, t, MDE.

Every comparison in the experiment layer is *paired*: the same cases (and seeds) scored under two
configurations. :func:`paired` is the one entry point the sweeps, races, prompt tunes and
experiments use; :func:`tooleval_nb.experiments.compare` wraps it for runs and DataFrames.

Methods (``method=``):

* ``"mcnemar"``: exact McNemar test for a binary metric (``passed``). The p-value is the doubled
  smaller binomial tail of the discordant pairs (wins vs losses) under p = 1/2; the CI of the delta
  is the exact conditional (Clopper-Pearson) interval of the share of wins among discordant pairs,
  scaled by the discordant share. It is consistent with the test: the CI excludes 0 exactly when
  the p-value is below ``1 - ci``. With no discordant pair the CI collapses to ``[0, 0]``; read
  ``mde80`` for what the data could have detected.
* ``"bootstrap"``: seeded paired bootstrap of the mean difference (percentile CI); with
  ``clusters`` whole clusters are resampled. p-value: share of resampled means at least as far
  from the observed mean as the observed mean is from 0.
* ``"t"``: paired t interval and test.
* ``"auto"``: McNemar for binary values without clusters, else the bootstrap.

``mde80`` is the minimum detectable effect at 80% power for a two-sided test at ``1 - ci``:
``(z_{1-alpha/2} + z_{0.8}) * sd_diff / sqrt(n)``; when the observed SD is 0 the SD of a single
discordant pair among ``n`` (``sqrt(1/n)``) stands in, so the figure never claims a perfect test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

from ..scoring.interval import betainc, is_binary, mean_ci, solve, t_cdf, t_ppf, wilson

__all__ = [
    "Method",
    "PairedResult",
    "betainc",
    "binom_cdf",
    "clopper_pearson",
    "describe_mde",
    "holm",
    "is_binary",
    "mcnemar_exact",
    "mde",
    "mean_ci",
    "paired",
    "t_ppf",
    "wilson",
]

Method = Literal["auto", "mcnemar", "bootstrap", "t"]

_EPS = 1e-12
_NORM = NormalDist()


# -- special functions (the interval itself: tooleval_nb.scoring.interval) -------------------
def binom_cdf(k: int, n: int, p: float) -> float:
    """``P(X <= k)`` for ``X ~ Binomial(n, p)``."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return 1.0 - betainc(k + 1, n - k, p)


def clopper_pearson(k: int, n: int, ci: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for a binomial proportion ``k / n``."""
    if n <= 0:
        return (0.0, 1.0)
    alpha = 1.0 - ci
    lo = 0.0 if k == 0 else solve(lambda p: 1.0 - binom_cdf(k - 1, n, p), 0.0, 1.0, alpha / 2)
    hi = (
        1.0
        if k == n
        else solve(lambda p: binom_cdf(k, n, p), 0.0, 1.0, alpha / 2, increasing=False)
    )
    return (lo, hi)


def mcnemar_exact(wins: int, losses: int) -> float:
    """Two-sided exact McNemar p-value: doubled smaller tail of Binomial(wins + losses, 1/2)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def mde(n: int, sd: float, ci: float = 0.95, power: float = 0.8) -> float:
    """Minimum detectable (paired) effect at ``power`` for a two-sided test at level ``1 - ci``."""
    if n <= 0:
        return float("nan")
    z = _NORM.inv_cdf(0.5 + ci / 2) + _NORM.inv_cdf(power)
    return z * sd / math.sqrt(n)


def describe_mde(value: float) -> str:
    """``"≈ 14 pts"``, or a plain statement when no effect could be detected at all."""
    if value != value:
        return "unknown"
    if value >= 1:
        return "over 100 pts (no effect is detectable at this size)"
    return f"≈ {100 * value:.0f} pts"


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (NaN stays NaN), in the input order."""
    idx = [i for i, p in enumerate(p_values) if p == p]
    order = sorted(idx, key=lambda i: p_values[i])
    m = len(order)
    out = [float("nan")] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


# -- the paired comparison -------------------------------------------------------------------
@dataclass(frozen=True)
class PairedResult:
    """A paired comparison of ``b`` against ``a`` (``delta = mean_b - mean_a``)."""

    n_common: int
    mean_a: float
    mean_b: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    method: str
    wins: int
    losses: int
    ties: int
    mde80: float
    sd_diff: float
    ci: float

    def as_dict(self) -> dict[str, float | int | str]:
        return asdict(self)

    @property
    def significant(self) -> bool:
        """The CI excludes 0."""
        return bool(self.ci_low > 0 or self.ci_high < 0)


def paired(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    clusters: Sequence[object] | None = None,
    ci: float = 0.95,
    method: Method = "auto",
    seed: int = 0,
    n_boot: int = 10_000,
) -> PairedResult:
    """Compare paired samples ``b`` vs ``a`` (same length, same order).

    Args:
        a: the reference scores, one per case.
        b: the candidate scores, aligned with ``a``.
        clusters: optional cluster label per case; the bootstrap then resamples whole clusters.
        ci: confidence level of the interval (0.95 by default; 0.90 gives one-sided 95% bounds).
        method: ``auto``, ``mcnemar``, ``bootstrap`` or ``t`` (see the module docstring).
        seed: bootstrap seed (results are reproducible).
        n_boot: bootstrap resamples.
    """
    xa = np.asarray(a, dtype=float)
    xb = np.asarray(b, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError(f"paired samples differ in length: {xa.size} vs {xb.size}")
    n = int(xa.size)
    nan = float("nan")
    if n == 0:
        return PairedResult(0, nan, nan, nan, nan, nan, nan, "none", 0, 0, 0, nan, nan, ci)
    d = xb - xa
    wins = int(np.sum(d > _EPS))
    losses = int(np.sum(d < -_EPS))
    ties = n - wins - losses
    delta = float(d.mean())
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    mde80 = mde(n, sd if sd > _EPS else math.sqrt(1.0 / n), ci)
    chosen = method
    if method == "auto":
        chosen = "mcnemar" if clusters is None and is_binary(xa) and is_binary(xb) else "bootstrap"
    if chosen == "mcnemar":
        if not (is_binary(xa) and is_binary(xb)):
            raise ValueError("method='mcnemar' needs binary (0/1) scores; use 'bootstrap'")
        p = mcnemar_exact(wins, losses)
        disc = wins + losses
        if disc == 0:
            lo = hi = 0.0
        else:
            plo, phi = clopper_pearson(wins, disc, ci)
            lo, hi = disc / n * (2 * plo - 1), disc / n * (2 * phi - 1)
    elif chosen == "t":
        if n < 2:
            lo = hi = p = nan
        elif sd <= _EPS:
            lo = hi = delta
            p = 1.0 if abs(delta) <= _EPS else 0.0
        else:
            se = sd / math.sqrt(n)
            half = t_ppf(0.5 + ci / 2, n - 1) * se
            lo, hi = delta - half, delta + half
            p = 2 * (1 - t_cdf(abs(delta) / se, n - 1))
    elif chosen == "bootstrap":
        lo, hi, p = _bootstrap(d, clusters, ci, seed, n_boot)
    else:
        raise ValueError(f"unknown method {method!r}: use auto, mcnemar, bootstrap or t")
    return PairedResult(
        n,
        float(xa.mean()),
        float(xb.mean()),
        delta,
        float(lo),
        float(hi),
        float(p),
        chosen,
        wins,
        losses,
        ties,
        float(mde80),
        sd,
        ci,
    )


def _bootstrap(
    d: np.ndarray, clusters: Sequence[object] | None, ci: float, seed: int, n_boot: int
) -> tuple[float, float, float]:
    rng = np.random.default_rng(seed)
    observed = float(d.mean())
    if np.all(np.abs(d - d[0]) <= _EPS):  # no spread: every resample equals the observation
        return observed, observed, (1.0 if abs(observed) <= _EPS else 0.0)
    if clusters is None:
        means = np.empty(n_boot)
        chunk = max(1, 2_000_000 // d.size)
        for start in range(0, n_boot, chunk):
            stop = min(n_boot, start + chunk)
            idx = rng.integers(0, d.size, size=(stop - start, d.size))
            means[start:stop] = d[idx].mean(axis=1)
    else:
        labels = list(clusters)
        if len(labels) != d.size:
            raise ValueError("clusters must give one label per paired case")
        keys = sorted({str(c) for c in labels})
        pos = {k: i for i, k in enumerate(keys)}
        code = np.array([pos[str(c)] for c in labels])
        sums = np.bincount(code, weights=d, minlength=len(keys))
        counts = np.bincount(code, minlength=len(keys)).astype(float)
        draws = rng.integers(0, len(keys), size=(n_boot, len(keys)))
        means = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    alpha = 1.0 - ci
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    extreme = int(np.sum(np.abs(means - observed) >= abs(observed) - _EPS))
    p = min(1.0, (1 + extreme) / (n_boot + 1))
    return float(lo), float(hi), p
