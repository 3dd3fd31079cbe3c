"""Marginal effects of swept parameters, from matched trial pairs (pure).

For a key and one of its values, the effect against the base config's value is estimated from
*matched pairs*: trials that differ only in this key. Per case, the differences are averaged over
the pairs that have the case, and a seeded paired bootstrap gives the CI, so racing (which drops
some trials early) does not confound the estimate. When no pair differs in this key alone
(random draws), the group means are compared instead (``method="groups"``).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..stats import paired

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..config import Config
    from ..race import Arm

__all__ = ["EFFECT_COLUMNS", "effects_frame", "group_means"]

#: columns of :func:`effects_frame`
EFFECT_COLUMNS = [
    "param",
    "value",
    "is_base_value",
    "n_trials",
    "n_pairs",
    "n_cases",
    "score",
    "delta",
    "ci_low",
    "ci_high",
    "p_value",
    "detectable",
    "method",
]


def group_means(arms: list[Arm], metric: str) -> pd.Series:
    """Per case, the mean score over the arms that have the case."""
    import pandas as pd

    series = [a.scores(metric) for a in arms if len(a.scores(metric))]
    if not series:
        return pd.Series(dtype=float)
    return pd.concat(series, axis=1).mean(axis=1, skipna=True)


def _diffs(
    key: str, refs: list[Arm], members: list[Arm], metric: str
) -> tuple[pd.Series, int, str]:
    import pandas as pd

    def rest(arm: Arm) -> str:
        return json.dumps(
            {k: v for k, v in arm.info["params"].items() if k != key}, sort_keys=True, default=str
        )

    by_rest = {rest(a): a for a in refs}
    pairs = [(by_rest[rest(m)], m) for m in members if rest(m) in by_rest]
    series = []
    for ref, arm in pairs:
        a, b = ref.scores(metric), arm.scores(metric)
        common = [c for c in b.index if c in a.index]
        if common:
            series.append(b.loc[common] - a.loc[common])
    if series:
        return pd.concat(series, axis=1).mean(axis=1, skipna=True), len(pairs), "pairs"
    ref = group_means(refs, metric)
    mine = group_means(members, metric)
    common = [c for c in mine.index if c in ref.index]
    return mine.loc[common] - ref.loc[common], 0, "groups"


def effects_frame(
    arms: list[Arm],
    keys: list[str],
    base: Config,
    *,
    metric: str = "score",
    seed: int = 0,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """One row per swept key and value (columns :data:`EFFECT_COLUMNS`)."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for key in keys:
        groups: dict[str, list[Arm]] = {}
        for arm in arms:
            groups.setdefault(json.dumps(arm.info["params"].get(key)), []).append(arm)
        ref_value = json.dumps(base.get(key))
        if ref_value not in groups:
            ref_value = next(iter(groups))
        for value, members in groups.items():
            means = group_means(members, metric)
            rec: dict[str, Any] = {
                "param": key,
                "value": json.loads(value),
                "is_base_value": value == ref_value,
                "n_trials": len(members),
                "n_pairs": 0,
                "n_cases": len(means),
                "score": float(means.mean()) if len(means) else math.nan,
                "delta": 0.0,
                "ci_low": 0.0,
                "ci_high": 0.0,
                "p_value": math.nan,
                "method": "reference",
            }
            if value != ref_value:
                diffs, n_pairs, method = _diffs(key, groups[ref_value], members, metric)
                rec.update(n_pairs=n_pairs, method=method)
                if len(diffs):
                    res = paired(
                        np.zeros(len(diffs)),
                        diffs.to_numpy(),
                        method="bootstrap",
                        seed=seed,
                        ci=1 - alpha,
                    )
                    rec.update(
                        delta=res.delta, ci_low=res.ci_low, ci_high=res.ci_high, p_value=res.p_value
                    )
                else:
                    rec.update(delta=math.nan, ci_low=math.nan, ci_high=math.nan)
            rec["detectable"] = bool(rec["ci_low"] > 0 or rec["ci_high"] < 0)
            rows.append(rec)
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)
