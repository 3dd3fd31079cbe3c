"""The one confidence interval of a mean score, used wherever an interval is shown.

:func:`mean_ci` is the interval of the mean of per-case values: the **Wilson score interval**
when every value is 0 or 1 (a pass rate), else the **Student-t interval**, clipped to [0, 1]
(scores live there). The leaderboard (:mod:`tooleval_nb.charts.leaderboard`), experiments,
sweeps, prompt tunes and judge reports all call it, so one run shows one interval everywhere;
:func:`interval_method` names the method beside the numbers. Why these two and not a bootstrap:
``docs/statistics.md``.

No scipy: the t quantile comes from the regularized incomplete beta function (a continued
fraction), solved by bisection.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Union

if TYPE_CHECKING:  # numpy is imported where an interval is computed: a run that only scores
    # cases never pays its import (about a third of the runner's import time)
    import numpy.typing as npt

__all__ = [
    "IntervalMethod",
    "betainc",
    "interval_method",
    "is_binary",
    "mean_ci",
    "solve",
    "t_cdf",
    "t_ppf",
    "wilson",
]

#: the name shown beside an interval (a ``ci_method`` column, a chart title)
IntervalMethod = Literal["wilson", "t"]

#: one value per case: a sequence or a numpy array
Values = Union[Sequence[float], "npt.NDArray[Any]"]  # noqa: UP007 (a string member)

_EPS = 1e-12


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def solve(
    f: Callable[[float], float], lo: float, hi: float, target: float, increasing: bool = True
) -> float:
    """The ``x`` in ``[lo, hi]`` where the monotone ``f(x)`` reaches ``target`` (bisection)."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if (f(mid) < target) == increasing:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13:
            break
    return (lo + hi) / 2


def t_cdf(t: float, df: float) -> float:
    """Student-t cumulative distribution function."""
    if df <= 0:
        return float("nan")
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_ppf(q: float, df: float) -> float:
    """Student-t quantile (bisection on :func:`t_cdf`)."""
    if q == 0.5:
        return 0.0
    return solve(lambda t: t_cdf(t, df), -1e6, 1e6, q)


def wilson(k: int, n: int, ci: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the proportion ``k / n`` (``(0, 1)`` for no trials)."""
    if n <= 0:
        return (0.0, 1.0)
    # statistics loads here (with fractions, about 15 ms): a run that scores cases never asks
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + ci / 2)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def is_binary(values: Values) -> bool:
    """True when there are values and every one is 0 or 1."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    return bool(arr.size) and bool(np.all((np.abs(arr) < _EPS) | (np.abs(arr - 1) < _EPS)))


def interval_method(values: Values) -> IntervalMethod:
    """Which interval :func:`mean_ci` gives ``values``: ``"wilson"`` (0/1 values) or ``"t"``."""
    return "wilson" if is_binary(values) else "t"


def mean_ci(values: Values, ci: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)`` of one value per case (NaN values are left out).

    Wilson for 0/1 values, else a t interval clipped to [0, 1]; with one non-binary value the
    bounds are NaN (no spread to estimate); with none, all three are NaN.

    Raises:
        ValueError: ``ci`` is not strictly between 0 and 1.
    """
    if not 0 < ci < 1:
        raise ValueError(f"ci must be between 0 and 1 (exclusive), got {ci}")
    import numpy as np

    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    n = arr.size
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    mean = float(arr.mean())
    if interval_method(arr) == "wilson":
        lo, hi = wilson(int(round(float(arr.sum()))), n, ci)
        return (mean, lo, hi)
    if n == 1:
        return (mean, float("nan"), float("nan"))
    half = t_ppf(0.5 + ci / 2, n - 1) * float(arr.std(ddof=1)) / math.sqrt(n)
    return (mean, max(0.0, mean - half), min(1.0, mean + half))
